"""urlsift over Spark DataFrames: one row per URL (or per finding).

:func:`extract` and :func:`lint` take a DataFrame of documents and return a
DataFrame of their URLs, scanned by the same native code as
:func:`urlsift.extract`, so each row carries the fields of ``urlsift extract
--json`` (a projection of them: see :data:`EXTRACT_FIELDS`). Rows move
between the JVM and Python as Arrow batches (``mapInArrow``); the JSON
records are parsed into Arrow columns by Arrow's own reader.

Documents come in one of two ways:

* **content** (``content_col`` set): each row holds a document's bytes or
  text, as ``spark.read.format("binaryFile")`` gives (``path``,
  ``content``) or any table with an id column and a string or binary
  column. A document is one Python ``bytes`` object on an executor, so its
  size is bounded: one longer than ``max_bytes`` (256 MiB unless set) fails
  the task with an error naming it. Spark itself refuses binary files over
  ``spark.sql.sources.binaryFile.maxLength``.
* **path** (``content_col=None``): each row holds a path that every
  executor can open (``file:`` URIs as ``binaryFile`` lists them, or plain
  paths: a local machine or a shared filesystem). The executor streams the
  file itself, a mailbox message by message and text in bounded windows,
  so a file of any size is scanned in bounded memory; no limit applies.

The id column (``path_col``) is carried to every output row with its own
name and type. When it is a string, it also names the document as a file
name would (``README.md`` is read as Markdown), as the CLI does.

A document that cannot be read fully (a broken compressed stream), and a
message of a mailbox that had to be skipped, give one row with ``error``
set and no URL; the rest of the document's rows are still there.
"""

from __future__ import annotations

import io
from functools import partial
from typing import Optional
from urllib.parse import unquote, urlparse

from .. import _urlsift

__all__ = ["extract", "lint", "EXTRACT_FIELDS", "LINT_FIELDS", "DEFAULT_MAX_BYTES"]

#: Documents longer than this are refused in content mode (see above).
DEFAULT_MAX_BYTES = 256 << 20

#: Output columns of :func:`extract` after the id, as (name, Arrow type
#: name); ``codes`` are the ``code`` of each of the record's
#: ``diagnostics``.
EXTRACT_FIELDS = (
    ("message_id", "string"),
    ("message_index", "int64"),
    ("line", "int64"),
    ("column", "int64"),
    ("end_line", "int64"),
    ("end_column", "int64"),
    ("url", "string"),
    ("kind", "string"),
    ("valid", "bool"),
    ("codes", "list<string>"),
    ("in_code", "bool"),
    ("error", "string"),
)

#: Output columns of :func:`lint` after the id: one row per finding.
LINT_FIELDS = (
    ("message_id", "string"),
    ("message_index", "int64"),
    ("line", "int64"),
    ("column", "int64"),
    ("end_line", "int64"),
    ("end_column", "int64"),
    ("code", "string"),
    ("severity", "string"),
    ("message", "string"),
    ("url", "string"),
    ("kind", "string"),
    ("url_line", "int64"),
    ("url_column", "int64"),
    ("fix", "string"),
    ("error", "string"),
)


def _arrow_type(name):
    import pyarrow as pa

    return {
        "string": pa.string(),
        "int64": pa.int64(),
        "bool": pa.bool_(),
        "list<string>": pa.list_(pa.string()),
    }[name]


def _spark_type(name):
    from pyspark.sql import types as T

    return {
        "string": T.StringType(),
        "int64": T.LongType(),
        "bool": T.BooleanType(),
        "list<string>": T.ArrayType(T.StringType()),
    }[name]


def _json_schema(command):
    """The fields read from each JSON record (the rest are ignored)."""
    import pyarrow as pa

    fields = EXTRACT_FIELDS if command == "extract" else LINT_FIELDS
    out = [pa.field(n, _arrow_type(t)) for n, t in fields if n != "codes"]
    if command == "extract":
        out.append(pa.field("diagnostics", pa.list_(pa.struct([pa.field("code", pa.string())]))))
    return pa.schema(out)


def _local_path(p: str) -> str:
    """A path an executor can open: a ``file:`` URI's path, or the path."""
    u = urlparse(p)
    if u.scheme == "file":
        return unquote(u.path)
    if u.scheme and len(u.scheme) > 1:
        raise ValueError(
            f"urlsift.spark: {p!r} is not on a local or shared filesystem ({u.scheme}:); "
            "read its content (content_col) instead of its path"
        )
    return p


def _scan_batches(batches, command, grammar, input, binary, max_bytes, named, has_content):
    """The mapInArrow function: document batches in, URL batches out."""
    import json

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    schema = _json_schema(command)
    fields = EXTRACT_FIELDS if command == "extract" else LINT_FIELDS
    parse = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    for batch in batches:
        ids = batch.column(0)
        names = ids.to_pylist()
        contents = batch.column(1) if has_content else None
        chunks, counts = [], []
        for i, ident in enumerate(names):
            name = ident if named and ident is not None else None
            shown = str(ident)
            if has_content:
                value = contents[i]
                if not value.is_valid:
                    counts.append(0)
                    continue
                data = value.as_py()
                if len(data) > max_bytes:
                    raise ValueError(
                        f"urlsift.spark: document {shown!r} is {len(data)} bytes, over max_bytes="
                        f"{max_bytes}: raise max_bytes, or give its path (content_col=None) so that "
                        "the executor streams the file"
                    )
                out = _urlsift.scan_buffer(data, command, grammar, input, name, binary, True)
            else:
                if ident is None:
                    counts.append(0)
                    continue
                local = _local_path(shown)
                out = _urlsift.scan_file(local, shown, command, grammar, input, binary, True)
            _, raw, error, problems, _ = out
            n = raw.count(b"\n")
            chunks.append(raw)
            for why in [*problems, *([error] if error is not None else [])]:
                chunks.append(json.dumps({"error": f"{shown}: {why}"}).encode() + b"\n")
                n += 1
            counts.append(n)
        total = sum(counts)
        if total == 0:
            continue
        data = b"".join(chunks)
        # One block for the whole batch: a record must not straddle two.
        read = pj.ReadOptions(use_threads=False, block_size=len(data) + 1)
        table = pj.read_json(io.BytesIO(data), read_options=read, parse_options=parse)
        rows = pa.array([i for i, n in enumerate(counts) for _ in range(n)], pa.int64())
        columns = [ids.take(rows)]
        for n, _ in fields:
            if n == "codes":
                diag = table.column("diagnostics").combine_chunks()
                if diag.null_count:
                    diag = pc.if_else(pc.is_valid(diag), diag, pa.scalar([], diag.type))
                codes = pc.struct_field(diag.flatten(), "code")
                offsets = pc.subtract(diag.offsets, diag.offsets[0])
                columns.append(pa.ListArray.from_arrays(offsets, codes))
            else:
                columns.append(table.column(n).combine_chunks())
        names_out = [batch.schema.names[0]] + [n for n, _ in fields]
        yield pa.RecordBatch.from_arrays(columns, names=names_out)


def _run(command, df, path_col, content_col, grammar, input, binary, max_bytes):
    from pyspark.sql import types as T

    if grammar is not None and grammar not in ("modern", "rfc3986", "rfc1738"):
        raise ValueError(f"grammar must be one of modern, rfc3986, rfc1738 (or None), got {grammar!r}")
    if input not in _urlsift.INPUTS:
        raise ValueError(f"input must be one of {', '.join(_urlsift.INPUTS)}, got {input!r}")
    if not isinstance(max_bytes, int) or max_bytes <= 0:
        raise ValueError(f"max_bytes must be a positive int, got {max_bytes!r}")
    names = df.schema.names
    for col in (path_col, content_col):
        if col is not None and col not in names:
            raise ValueError(f"no column {col!r} in the DataFrame (its columns: {', '.join(names)})")
    id_field = df.schema[path_col]
    named = isinstance(id_field.dataType, T.StringType)
    if content_col is None:
        if not named:
            raise TypeError(f"without content_col, {path_col!r} must be a string column of paths")
        cols = [path_col]
    else:
        ctype = df.schema[content_col].dataType
        if not isinstance(ctype, (T.BinaryType, T.StringType)):
            raise TypeError(f"{content_col!r} must be a binary or string column, not {ctype.simpleString()}")
        cols = [path_col, content_col]
    fields = EXTRACT_FIELDS if command == "extract" else LINT_FIELDS
    schema = T.StructType(
        [T.StructField(path_col, id_field.dataType, id_field.nullable)]
        + [T.StructField(n, _spark_type(t), True) for n, t in fields]
    )
    fn = partial(
        _scan_batches,
        command=command,
        grammar=grammar,
        input=input,
        binary=bool(binary),
        max_bytes=max_bytes,
        named=named,
        has_content=content_col is not None,
    )
    return df.select(*cols).mapInArrow(fn, schema)


def extract(
    df,
    path_col: str = "path",
    content_col: Optional[str] = "content",
    *,
    grammar: Optional[str] = None,
    input: str = "auto",
    binary: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
):
    """The URLs of the documents of ``df``: a DataFrame with ``path_col``
    (the id, with its type) and the columns of :data:`EXTRACT_FIELDS`, one
    row per URL. ``grammar``, ``input`` and ``binary`` are as for
    :func:`urlsift.extract`. With ``content_col=None`` the path column is
    read from the filesystem by the executors (see the module docs)."""
    return _run("extract", df, path_col, content_col, grammar, input, binary, max_bytes)


def lint(
    df,
    path_col: str = "path",
    content_col: Optional[str] = "content",
    *,
    grammar: Optional[str] = None,
    input: str = "auto",
    binary: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
):
    """The findings of ``urlsift lint`` on the documents of ``df``: one row
    per finding, the columns of :data:`LINT_FIELDS` after ``path_col``.
    Arguments as for :func:`extract`."""
    return _run("lint", df, path_col, content_col, grammar, input, binary, max_bytes)
