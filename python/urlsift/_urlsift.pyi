# The native module: use the functions of `urlsift` instead.
from typing import Any, List, Optional, Tuple

__version__: str
INPUTS: List[str]

_Out = Tuple[bytes, Optional[bytes], Optional[str], List[str], bool]

def scan_buffer(
    data: Any, command: str, grammar: Optional[str], input: str, path: Optional[str], binary: bool, lines: bool
) -> _Out: ...
def scan_file(
    path: str, shown: str, command: str, grammar: Optional[str], input: str, binary: bool, lines: bool
) -> _Out: ...
def check(url: Any, grammar: Optional[str]) -> bytes: ...
