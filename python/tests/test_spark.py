"""urlsift.spark in local[2]: the job's rows are the CLI's URLs."""

import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import urlsift
from conftest import CORPUS, SHARED, cli_path

if not shutil.which("java") and not os.environ.get("URLSIFT_REQUIRE_SPARK"):
    pytest.skip("no java: Spark cannot start (.ci/python.sh installs it)", allow_module_level=True)

pyspark = pytest.importorskip("pyspark") if not os.environ.get("URLSIFT_REQUIRE_SPARK") else __import__("pyspark")
from pyspark.sql import SparkSession  # noqa: E402

import urlsift.spark as us  # noqa: E402
from urlsift.spark.__main__ import main  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    s = (
        SparkSession.builder.master("local[2]")
        .appName("urlsift tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        # Snappy, Spark's default codec, is a native library that
        # snappy-java picks by guessing the C library: on some hosts it
        # guesses musl and the write fails. gzip is Java's own zlib.
        .config("spark.sql.parquet.compression.codec", "gzip")
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def local(p: str) -> str:
    return unquote(urlparse(p).path) if p.startswith("file:") else os.path.abspath(p)


def cli_urls(files):
    """(path, line, column, url) of `urlsift extract --json` on the files."""
    out = set()
    # In slices: a long command line of the news tree's 18,000 files.
    for i in range(0, len(files), 2000):
        p = subprocess.run(
            [cli_path(), "extract", "--json", "--no-config", *files[i : i + 2000]], capture_output=True, check=False
        )
        assert p.returncode in (0, 1), p.stderr.decode()
        for line in p.stdout.splitlines():
            r = json.loads(line)
            out.add((os.path.abspath(r["path"]), r["line"], r["column"], r["url"]))
    return out


def job_urls(spark, tmp_path, inputs, *extra):
    out = tmp_path / "out"
    assert main(["extract", *map(str, inputs), "--output", str(out), *extra]) == 0
    rows = spark.read.parquet(str(out)).collect()
    assert all(r.error is None for r in rows), [r.error for r in rows if r.error][:3]
    return {(local(r.path), r.line, r.column, r.url) for r in rows}


def listed(spark, inputs):
    docs = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load([str(i) for i in inputs])
    return sorted(local(r.path) for r in docs.select("path").collect())


def test_the_job_over_corpus_is_the_cli(spark, tmp_path):
    files = listed(spark, [CORPUS])
    assert len(files) >= 10
    want = cli_urls(files)
    assert len(want) > 100
    assert job_urls(spark, tmp_path, [CORPUS]) == want


@pytest.mark.parametrize("tree", ["mail", "news"])
def test_the_job_over_the_shared_corpus_is_the_cli(spark, tmp_path, tree):
    root = SHARED / tree
    if not root.is_dir():
        pytest.skip(f"{root} is not here")
    files = listed(spark, [root])
    want = cli_urls(files)
    # Mailboxes are streamed from their paths by the executors (no size
    # limit); the news tree's small files are read by Spark (the default
    # in local runs is paths: content is asked for).
    extra = ["--read", "path"] if tree == "mail" else ["--read", "content", "--partitions", "4"]
    assert job_urls(spark, tmp_path, [root], *extra) == want


def test_compression_is_the_one_asked_for(spark, tmp_path):
    mail = CORPUS / "mail"
    want = cli_urls([str(f) for f in sorted(mail.iterdir())])
    # The session says gzip (the fixture); the flag wins.
    assert job_urls(spark, tmp_path, [mail], "--compression", "none") == want
    parts = sorted(p.name for p in (tmp_path / "out").glob("part-*"))
    assert parts and all(n.endswith(".parquet") and ".gz." not in n and ".snappy." not in n for n in parts), parts
    out = tmp_path / "gz"
    assert main(["extract", str(mail), "--output", str(out)]) == 0
    assert all(".gz.parquet" in p.name for p in out.glob("part-*")), list(out.iterdir())


def test_a_local_run_reads_from_paths_by_default():
    from urlsift.spark.__main__ import local_run

    assert local_run("local[2]", ["corpus/", "/data/x.mbox", "file:///data/y"])
    assert not local_run("local[*]", ["corpus/", "hdfs:///archive/"])
    assert not local_run("spark://head:7077", ["/data/x.mbox"])
    assert not local_run("yarn", ["corpus/"])


def test_path_mode_is_content_mode(spark):
    docs = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(str(CORPUS))
    by_content = us.extract(docs).drop("error").collect()
    by_path = us.extract(docs.select("path"), content_col=None).drop("error").collect()
    assert sorted(by_content) == sorted(by_path) and by_content


def test_any_id_and_string_content(spark):
    texts = {
        1: "see <URL:http://a.example/x\n  y> and http://b.example/%zz\n",
        2: "no urls here",
        3: None,
        4: "mailto:someone@example.org",
    }
    df = spark.createDataFrame(list(texts.items()), "id long, body string")
    rows = us.extract(df, "id", "body").collect()
    assert dict(us.extract(df, "id", "body").dtypes)["id"] == "bigint"
    got = sorted((r.id, r.line, r.column, r.url, r.valid, tuple(r.codes)) for r in rows)
    want = sorted(
        (i, u["line"], u["column"], u["url"], u["valid"], tuple(d["code"] for d in u["diagnostics"]))
        for i, t in texts.items()
        if t
        for u in urlsift.extract(t)
    )
    assert got == want and len(got) == 3
    lint_rows = us.lint(df, "id", "body", grammar="rfc1738").collect()
    assert sorted((r.id, r.code, r.url) for r in lint_rows) == sorted(
        (i, f["code"], f["url"]) for i, t in texts.items() if t for f in urlsift.lint(t, grammar="rfc1738")
    )


def test_mail_rows_have_message_ids(spark):
    mbox = CORPUS / "mail" / "list-excerpt.mbox"
    df = spark.createDataFrame([(str(mbox), mbox.read_bytes())], "path string, content binary")
    rows = us.extract(df).collect()
    assert [r.message_id for r in rows] == [u["message_id"] for u in urlsift.extract_file(mbox)]


def test_a_broken_document_gives_an_error_row(spark):
    text = b"".join(b"line %d http://h%d.example/\n" % (i, i) for i in range(2000))
    gz = gzip.compress(text)
    df = spark.createDataFrame([("ok.txt.gz", gz), ("broken.txt.gz", gz[: len(gz) // 2])], "path string, content binary")
    rows = us.extract(df).collect()
    errors = [r for r in rows if r.error]
    assert len(errors) == 1 and errors[0].path == "broken.txt.gz" and errors[0].url is None
    assert sum(r.path == "ok.txt.gz" for r in rows) == 2000


def test_too_big_a_document_fails_clearly(spark):
    df = spark.createDataFrame([("big.txt", b"http://a.example/ " * 100)], "path string, content binary")
    with pytest.raises(Exception, match=r"'big.txt' is 1800 bytes, over max_bytes=1000"):
        us.extract(df, max_bytes=1000).collect()


def test_bad_arguments_fail_before_running(spark):
    df = spark.createDataFrame([(1, 2)], "id long, n long")
    with pytest.raises(ValueError, match="no column 'path'"):
        us.extract(df)
    with pytest.raises(TypeError, match="must be a binary or string column"):
        us.extract(df, "id", "n")
    with pytest.raises(ValueError, match="grammar must be one of"):
        us.extract(df, "id", "n", grammar="x")
    with pytest.raises(TypeError, match="must be a string column of paths"):
        us.extract(df, "id", None)


def test_spark_submit_runs_the_job(tmp_path):
    # The job as a cluster runs it: spark-submit, the module's file, JSON
    # Lines out.
    import urlsift.spark.__main__ as job

    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    out = tmp_path / "urls"
    mail = CORPUS / "mail"
    p = subprocess.run(
        [str(submit), "--master", "local[1]", job.__file__, "extract", str(mail), "--output", str(out), "--format", "jsonl"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [json.loads(line) for f in sorted(out.glob("part-*")) for line in f.read_text().splitlines()]
    got = {(local(r["path"]), r["line"], r["column"], r["url"]) for r in rows}
    assert got == cli_urls([str(f) for f in sorted(mail.iterdir())]) and got
