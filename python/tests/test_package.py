"""urlsift as a Python library: the same records as the CLI's JSON, the
arguments checked, the GIL released."""

import gzip
import json
import threading
import time

import pytest

import urlsift
from conftest import CORPUS, corpus_files


def lines(out: bytes):
    return [json.loads(line) for line in out.splitlines() if line]


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_extract_is_the_cli_extract_json(cli, path):
    want = lines(cli("extract", "--json", "--no-config", str(path)))
    assert want, "every sample of corpus/ has URLs"
    assert urlsift.extract_file(path) == want
    # The same bytes given in memory, named as the file: the same records.
    assert urlsift.extract(path.read_bytes(), path=str(path)) == want


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
@pytest.mark.parametrize("grammar", [None, "rfc1738"])
def test_lint_is_the_cli_lint_json(cli, path, grammar):
    args = ["--grammar", grammar] if grammar else []
    want = lines(cli("lint", "--json", "--no-config", *args, str(path)))
    assert urlsift.lint_file(path, grammar=grammar) == want
    assert urlsift.lint(path.read_bytes(), path=str(path), grammar=grammar) == want


def test_lint_finds_the_corpus_broken_urls():
    # corpus/ holds deliberately broken URLs: lint must find some.
    found = [f for p in corpus_files() for f in urlsift.lint_file(p)]
    assert any(f["severity"] == "error" for f in found)


@pytest.mark.parametrize("grammar", [None, "modern", "rfc3986", "rfc1738"])
def test_check_is_the_cli_check_json(cli, grammar):
    for url in ["http://a.example/", "http://a b/%zz", "ftp://h/%2Fetc;type=d", "mailto:x@y", "news:alt.test"]:
        args = ["--grammar", grammar] if grammar else []
        want = json.loads(cli("check", "--json", *args, url))
        assert urlsift.check(url, grammar=grammar) == want
        assert urlsift.check(url.encode(), grammar=grammar) == want


def test_mail_fields_for_mail_input():
    mbox = CORPUS / "mail" / "list-excerpt.mbox"
    urls = urlsift.extract_file(mbox)
    assert all({"message_id", "message_index", "header", "part"} <= u.keys() for u in urls)
    assert any(u["message_id"] for u in urls)
    # Plain text has none of them.
    text = urlsift.extract(b"see http://a.example/\n", path="a.txt")
    assert "message_id" not in text[0]


def test_without_path_is_standard_input(cli):
    data = (CORPUS / "mail" / "list-excerpt.mbox").read_bytes()
    assert urlsift.extract(data) == lines(cli("extract", "--json", "--no-config", "-", input=data))
    assert urlsift.extract(data)[0]["path"] == "-"


def test_str_is_scanned_as_utf8():
    s = "voir <URL:http://exemple.fr/é>\n"
    assert urlsift.extract(s) == urlsift.extract(s.encode())
    assert urlsift.extract(bytearray(s.encode())) == urlsift.extract(s.encode())


def test_input_kinds_and_grammar(cli):
    art = CORPUS / "news" / "comp.infosystems.www.article"
    for kind in urlsift.INPUTS:
        if kind in ("warc", "records"):
            continue
        want = lines(cli("extract", "--json", "--no-config", "--input", kind, str(art)))
        assert urlsift.extract_file(art, input=kind) == want, kind
    recs = b'{"id": 7, "text": "see http://a.example/x"}\n{"id": "b", "text": 1}\n'
    with pytest.warns(urlsift.ScanWarning, match="record line 2"):
        got = urlsift.extract(recs, input="records")
    assert [r.get("id") for r in got] == [7, "b"]
    assert got[0]["url"] == "http://a.example/x" and "error" in got[1]


def test_binary_data_is_skipped_unless_asked():
    data = b"\0\0 http://a.example/ \n"
    assert urlsift.extract(data) == []
    assert [u["url"] for u in urlsift.extract(data, binary=True)] == ["http://a.example/"]


def test_compressed_data_is_decompressed_and_a_broken_stream_raises():
    text = b"".join(b"line %d http://h%d.example/\n" % (i, i) for i in range(2000))
    gz = gzip.compress(text)
    got = urlsift.extract(gz, path="x.txt.gz")
    assert len(got) == 2000 and got[0]["compressed"] == "gzip"
    with pytest.raises(urlsift.ScanError) as e:
        urlsift.extract(gz[: len(gz) // 2], path="x.txt.gz")
    assert "x.txt.gz" in str(e.value)
    # What was found before the break is kept.
    assert 0 < len(e.value.records) < 2000


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: urlsift.extract(b"x", grammar="rfc9999"), ValueError, "grammar must be one of"),
        (lambda: urlsift.extract(b"x", input="pdf"), ValueError, "input must be one of"),
        (lambda: urlsift.extract(123), TypeError, "data must be bytes, bytearray or str, not int"),
        (lambda: urlsift.extract(b"x", grammar=1), TypeError, "grammar must be a str"),
        (lambda: urlsift.extract(b"x", path=3), TypeError, "path must be"),
        (lambda: urlsift.lint(b"x", input=None), TypeError, "input must be a str"),
        (lambda: urlsift.check(None), TypeError, "url must be str or bytes"),
        (lambda: urlsift.check("http://a/", grammar="x"), ValueError, "grammar must be one of"),
        (lambda: urlsift.extract_file("/nonexistent/urlsift"), FileNotFoundError, "nonexistent"),
        (lambda: urlsift.extract_file(CORPUS), IsADirectoryError, "directory"),
        (lambda: urlsift.extract(b"x", 1), TypeError, "positional"),
    ],
)
def test_bad_arguments_raise_clearly(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_big_mailbox_is_streamed_from_its_file(tmp_path):
    # 40 MB of messages: extract_file reads it message by message; the
    # records name every message.
    msg = b"From a@b Mon Jan  1 00:00:00 2001\nMessage-ID: <%d@x>\nSubject: s\n\nsee http://h.example/%d\n" + b"filler text\n" * 4000 + b"\n"
    path = tmp_path / "big.mbox"
    with open(path, "wb") as f:
        for i in range(800):
            f.write(msg % (i, i))
    got = urlsift.extract_file(path)
    assert [u["message_id"] for u in got] == ["%d@x" % i for i in range(800)]


def test_the_gil_is_released_while_scanning():
    # A scan that holds the GIL lets no other Python thread run; the
    # counter would not move while it lasts.
    data = b"word http://a.example/path word " * 1_000_000
    count, stop = [0], threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.05)
        before = count[0]
        started = time.perf_counter()
        urlsift.extract(data, input="text")
        took = time.perf_counter() - started
        moved = count[0] - before
    finally:
        stop.set()
        t.join()
    assert took > 0.05, "the scan is long enough to see"
    assert moved > 10_000, f"the other thread ran {moved} steps in {took:.2f}s"


def test_threads_give_the_same_records():
    from concurrent.futures import ThreadPoolExecutor

    files = corpus_files()
    alone = [urlsift.extract_file(p) for p in files]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(urlsift.extract_file, files * 1)) == alone
