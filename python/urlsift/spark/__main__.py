"""``python -m urlsift.spark extract|lint INPUT... --output OUT``: the Spark
job. With ``spark-submit`` the cluster is the one spark-submit gives; run
with plain ``python`` it starts ``--master`` itself (``local[*]`` unless
set). See ``--help`` and the README's "Python and Spark" section."""

from __future__ import annotations

import argparse
import sys

# Absolute: spark-submit runs this file as a script.
from urlsift.spark import DEFAULT_MAX_BYTES, extract, lint


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m urlsift.spark",
        description="Find (extract) or lint the URLs of files with Spark; one output row per URL or finding.",
    )
    p.add_argument("command", choices=["extract", "lint"])
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="files or directories (read recursively), any Hadoop path")
    p.add_argument("--output", "-o", required=True, help="where to write the rows (a directory, as Spark writes)")
    p.add_argument("--format", choices=["parquet", "jsonl"], default="parquet", help="output format (default parquet)")
    p.add_argument(
        "--compression",
        choices=["snappy", "gzip", "zstd", "lz4", "none"],
        default=None,
        help="the Parquet codec (default: the session's spark.sql.parquet.compression.codec, snappy unless set); "
        "gzip needs no native library",
    )
    p.add_argument("--mode", choices=["error", "overwrite", "append"], default="error", help="if OUT exists (default error)")
    p.add_argument("--grammar", choices=["modern", "rfc3986", "rfc1738"], default=None)
    p.add_argument("--input", default="auto", choices=["auto", "text", "mail", "mbox", "news", "warc", "records"])
    p.add_argument("--binary", action="store_true", help="scan files that look binary instead of skipping them")
    p.add_argument(
        "--read",
        choices=["auto", "content", "path"],
        default="auto",
        help="content: Spark reads each file whole (binaryFile), any filesystem, files up to --max-bytes; "
        "path: executors stream each file from its path (local or shared filesystem), no size limit; "
        "auto (default): path when the master is local and every input a local path, else content",
    )
    p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, help=f"with --read content, the largest file (default {DEFAULT_MAX_BYTES})")
    p.add_argument("--glob", default=None, help="only files whose name matches (Spark's pathGlobFilter), e.g. '*.mbox'")
    p.add_argument("--partitions", type=int, default=0, help="repartition the files into N tasks (default: Spark's split by size)")
    p.add_argument("--master", default=None, help="the master when not run by spark-submit (default local[*])")
    return p.parse_args(argv)


def local_run(master: str, inputs) -> bool:
    """Whether the executors see the inputs as the driver does: a local
    master and local paths (no scheme, or file:). There, streaming each
    file from its path runs at the CLI's rate; reading through Spark
    (content) costs about three times more per byte."""
    if not master.startswith("local"):
        return False
    for i in inputs:
        head = i.split("/", 1)[0]
        if ":" in head and not i.startswith("file:"):
            return False
    return True


def main(argv=None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    from pyspark.sql import SparkSession

    # A session already running in this process (a notebook, a test) is
    # used and left running.
    own = SparkSession.getActiveSession() is None
    b = SparkSession.builder.appName(f"urlsift {a.command}")
    if a.master:
        b = b.master(a.master)
    # A batch holds whole documents: few per batch keeps an executor's
    # Python memory near a few documents' size.
    b = b.config("spark.sql.execution.arrow.maxRecordsPerBatch", "64")
    spark = b.getOrCreate()
    if a.read == "auto":
        a.read = "path" if local_run(spark.sparkContext.master, a.inputs) else "content"
    if a.read == "content":
        # Spark refuses a longer file itself, naming it.
        spark.conf.set("spark.sql.sources.binaryFile.maxLength", str(a.max_bytes))
    reader = spark.read.format("binaryFile").option("recursiveFileLookup", "true")
    if a.glob:
        reader = reader.option("pathGlobFilter", a.glob)
    docs = reader.load(a.inputs)
    if a.partitions:
        docs = docs.repartition(a.partitions)
    run = extract if a.command == "extract" else lint
    content = "content" if a.read == "content" else None
    docs = docs.select("path", "content") if content else docs.select("path")
    rows = run(docs, "path", content, grammar=a.grammar, input=a.input, binary=a.binary, max_bytes=a.max_bytes)
    w = rows.write.mode(a.mode)
    if a.format == "parquet":
        if a.compression:
            w = w.option("compression", a.compression)
        w.parquet(a.output)
    else:
        w.json(a.output)
    if own:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
