import os
from typing import Any, Dict, List, Literal, Optional, Tuple, Union


__version__: str
GRAMMARS: Tuple[str, ...]
INPUTS: Tuple[str, ...]

Grammar = Optional[Literal["modern", "rfc3986", "rfc1738"]]
Input = Literal["auto", "text", "mail", "mbox", "news", "warc", "records"]
Record = Dict[str, Any]

class ScanError(ValueError):
    records: List[Record]
    def __init__(self, message: str, records: List[Record]) -> None: ...

class ScanWarning(UserWarning): ...

def extract(
    data: Union[bytes, bytearray, str],
    *,
    grammar: Grammar = None,
    input: Input = "auto",
    path: Optional[Union[str, os.PathLike[str]]] = None,
    binary: bool = False,
) -> List[Record]: ...
def lint(
    data: Union[bytes, bytearray, str],
    *,
    grammar: Grammar = None,
    input: Input = "auto",
    path: Optional[Union[str, os.PathLike[str]]] = None,
    binary: bool = False,
) -> List[Record]: ...
def extract_file(
    path: Union[str, os.PathLike[str]],
    *,
    grammar: Grammar = None,
    input: Input = "auto",
    binary: bool = False,
) -> List[Record]: ...
def lint_file(
    path: Union[str, os.PathLike[str]],
    *,
    grammar: Grammar = None,
    input: Input = "auto",
    binary: bool = False,
) -> List[Record]: ...
def check(url: Union[str, bytes], *, grammar: Grammar = None) -> Record: ...
