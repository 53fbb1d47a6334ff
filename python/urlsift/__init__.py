"""urlsift for Python: find, rejoin (RFC 1738 appendix) and lint URLs in text.

The records are the command line's own: :func:`extract` gives the objects of
``urlsift extract --json``, :func:`lint` those of ``urlsift lint --json`` and
:func:`check` the one of ``urlsift check --json``, field for field (the mail
fields, ``message_id`` and the rest, for mail and news input). Inputs are read
as ``--no-config`` reads them: no ``urlsift.toml`` is looked for.

Scans run in native code with the GIL released, so threads of one process
scan in parallel. :mod:`urlsift.spark` runs the same scans over Spark
DataFrames.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import warnings
from typing import Any, Dict, List, Optional, Union

from . import _urlsift

__all__ = [
    "extract",
    "lint",
    "check",
    "extract_file",
    "lint_file",
    "ScanError",
    "ScanWarning",
    "GRAMMARS",
    "INPUTS",
    "__version__",
]

__version__: str = _urlsift.__version__

#: The ``--grammar`` names (``None`` is the CLI's default, ``modern``).
GRAMMARS = ("modern", "rfc3986", "rfc1738")
#: The ``--input`` names.
INPUTS = tuple(_urlsift.INPUTS)

Data = Union[bytes, bytearray, str]


class ScanError(ValueError):
    """An input could not be read fully (a broken compressed stream, an
    unreadable file). ``records`` holds what was found before the break,
    as the CLI prints it before its error."""

    def __init__(self, message: str, records: List[Dict[str, Any]]):
        super().__init__(message)
        self.records = records


class ScanWarning(UserWarning):
    """Messages or records that were skipped; the rest was read (the CLI
    reports them on standard error)."""


def _check_args(grammar: Optional[str], input: str) -> None:
    if grammar is not None and not isinstance(grammar, str):
        raise TypeError(f"grammar must be a str or None, not {type(grammar).__name__}")
    if not isinstance(input, str):
        raise TypeError(f"input must be a str, not {type(input).__name__}")


def _finish(name: str, out: tuple) -> List[Dict[str, Any]]:
    array, _lines, error, problems, _binary = out
    records = json.loads(array)
    for p in problems:
        warnings.warn(f"urlsift: {name}: {p}", ScanWarning, stacklevel=3)
    if error is not None:
        raise ScanError(f"urlsift: {name}: {error}", records)
    return records


def _scan(command: str, data: Data, grammar, input, path, binary) -> List[Dict[str, Any]]:
    _check_args(grammar, input)
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str, a path or None, not {type(path).__name__}")
    name = None if path is None else os.fsdecode(path)
    out = _urlsift.scan_buffer(data, command, grammar, input, name, bool(binary), False)
    return _finish(name or "-", out)


def _scan_file(command: str, path, grammar, input, binary) -> List[Dict[str, Any]]:
    _check_args(grammar, input)
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a str or a path, not {type(path).__name__}")
    shown = os.fsdecode(path)
    # An absent file or a directory is the caller's mistake, raised as
    # Python raises it (the CLI would report it and go on, or walk it).
    if stat.S_ISDIR(os.stat(shown).st_mode):
        raise IsADirectoryError(errno.EISDIR, "a directory, not a file (urlsift extract walks trees)", shown)
    out = _urlsift.scan_file(shown, shown, command, grammar, input, bool(binary), False)
    return _finish(shown, out)


def extract(
    data: Data,
    *,
    grammar: Optional[str] = None,
    input: str = "auto",
    path: Optional[Union[str, os.PathLike]] = None,
    binary: bool = False,
) -> List[Dict[str, Any]]:
    """The URLs of ``data``: the objects ``urlsift extract --json`` prints.

    ``data`` is ``bytes``, ``bytearray`` or ``str`` (scanned as UTF-8).
    ``grammar`` and ``input`` are the CLI's ``--grammar`` (``modern``,
    ``rfc3986``, ``rfc1738``; ``None`` for its default) and ``--input``
    (``auto``, ``text``, ``mail``, ``mbox``, ``news``, ``warc``, ``records``).
    ``path`` names the data as a file would be named: the name chooses a
    document format (``README.md`` is read as Markdown) and is each record's
    ``path``; it is never opened. Without it the data is read as the CLI
    reads standard input (``"path": "-"``). Data that looks binary (a NUL
    in its first 8 KiB) gives no URLs unless ``binary`` is true.

    Raises :class:`ValueError` for an unknown grammar or input,
    :class:`TypeError` for an argument of the wrong type and
    :class:`ScanError` for data that could not be read fully.
    """
    return _scan("extract", data, grammar, input, path, binary)


def lint(
    data: Data,
    *,
    grammar: Optional[str] = None,
    input: str = "auto",
    path: Optional[Union[str, os.PathLike]] = None,
    binary: bool = False,
) -> List[Dict[str, Any]]:
    """The findings on the URLs of ``data``: the objects ``urlsift lint
    --json`` prints, one per finding. URLs in the code of a document
    (examples) are passed over, as ``lint`` does. Arguments as for
    :func:`extract`."""
    return _scan("lint", data, grammar, input, path, binary)


def extract_file(
    path: Union[str, os.PathLike],
    *,
    grammar: Optional[str] = None,
    input: str = "auto",
    binary: bool = False,
) -> List[Dict[str, Any]]:
    """The URLs of the file at ``path``, as ``urlsift extract --json PATH``
    gives them. The file is streamed, never loaded whole: a mailbox message
    by message, text in bounded windows, a compressed file through its
    decoder. Raises :class:`OSError` when it cannot be opened."""
    return _scan_file("extract", path, grammar, input, binary)


def lint_file(
    path: Union[str, os.PathLike],
    *,
    grammar: Optional[str] = None,
    input: str = "auto",
    binary: bool = False,
) -> List[Dict[str, Any]]:
    """The findings of ``urlsift lint --json PATH``, the file streamed as
    :func:`extract_file` streams it."""
    return _scan_file("lint", path, grammar, input, binary)


def check(url: Union[str, bytes], *, grammar: Optional[str] = None) -> Dict[str, Any]:
    """One URL judged alone: the object of ``urlsift check --json URL``
    (``url``, ``valid``, ``scheme``, ``rejected_by``, ``diagnostics``)."""
    if grammar is not None and not isinstance(grammar, str):
        raise TypeError(f"grammar must be a str or None, not {type(grammar).__name__}")
    return json.loads(_urlsift.check(url, grammar))
