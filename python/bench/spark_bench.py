"""Throughput of the Spark job against the CLI on the same files (not a
test: figures for the README). For each tree: the CLI with -j1 and -j2,
then urlsift.spark in local[1] and local[2], reading content and paths.
Spark's figures are for the job alone, in a session started and warmed
up beforehand (a JVM starts in 10-20 s whatever the input).

    python python/bench/spark_bench.py [--cli target/release/urlsift] [--copies N] TREE...

--copies N scans N copies of each tree's files (hard links where the
filesystem allows), so that the job's fixed cost (scheduling a stage,
starting Python workers: about a second) is spread over more bytes.
"""

import argparse
import os
import subprocess
import sys
import time


def size_and_count(root):
    n = total = 0
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.startswith((".", "_")):
                continue
            n += 1
            total += os.path.getsize(os.path.join(d, f))
    return n, total


def cli_time(cli, root, threads, runs):
    best = None
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(
            [cli, "extract", "--json", "--no-config", f"-j{threads}", root], stdout=subprocess.DEVNULL, check=False
        )
        el = time.perf_counter() - t
        best = el if best is None else min(best, el)
    return best


def spark_time(master, root, read, runs):
    from pyspark.sql import SparkSession

    import urlsift.spark as us

    spark = (
        SparkSession.builder.master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "64")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")

    def once():
        docs = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(root)
        if read == "path":
            rows = us.extract(docs.select("path"), content_col=None)
        else:
            rows = us.extract(docs.select("path", "content"))
        t = time.perf_counter()
        rows.write.format("noop").mode("overwrite").save()
        return time.perf_counter() - t

    once()  # warm-up: Python workers, the JIT
    best = min(once() for _ in range(runs))
    spark.stop()
    return best


def copies(root, n):
    import shutil
    import tempfile

    out = os.path.join(tempfile.mkdtemp(prefix="urlsift-bench-"), f"{os.path.basename(root.rstrip('/'))}x{n}")
    for i in range(n):
        for d, _, fs in os.walk(root):
            rel = os.path.relpath(d, root)
            os.makedirs(os.path.join(out, str(i), rel), exist_ok=True)
            for f in fs:
                src, dst = os.path.join(d, f), os.path.join(out, str(i), rel, f)
                try:
                    os.link(src, dst)
                except OSError:
                    shutil.copyfile(src, dst)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trees", nargs="+")
    p.add_argument("--cli", default="target/release/urlsift")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--copies", type=int, default=1)
    p.add_argument("--reads", default="content,path", help="the --read modes to run, comma-separated")
    a = p.parse_args()
    if a.copies > 1:
        a.trees = [copies(t, a.copies) for t in a.trees]
    print("| input | run | cores | s | docs/s | MB/s | MB/s per core |")
    print("|---|---|---|---|---|---|---|")
    for root in a.trees:
        n, total = size_and_count(root)
        name = os.path.basename(root.rstrip("/"))
        rows = []
        for j in (1, 2):
            rows.append((f"CLI -j{j}", j, cli_time(a.cli, root, j, a.runs)))
        for j in (1, 2):
            for read in a.reads.split(","):
                # A fresh process per master: one SparkContext per process.
                out = subprocess.run(
                    [sys.executable, __file__, "--one", f"local[{j}]", root, read, str(a.runs)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                rows.append((f"Spark local[{j}] --read {read}", j, float(out.stdout.strip().splitlines()[-1])))
        for run, cores, s in rows:
            mb = total / 1e6
            print(f"| {name} ({n} files, {mb:.0f} MB) | {run} | {cores} | {s:.2f} | {n / s:.0f} | {mb / s:.1f} | {mb / s / cores:.1f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        print(spark_time(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])))
    else:
        main()
