//! WARC and WET files (issue 17): each record's payload is read as its own
//! document; every URL carries its record, a line and column inside the
//! payload and its byte offset in the (decompressed) file; what is not
//! text is skipped and counted; a damaged record is reported, read to the
//! real boundary, and the run goes on. The fixtures are made here.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

fn urlsift(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_urlsift")).args(args).current_dir(dir).output().unwrap()
}

/// One record: its header with `Content-Length` (the block's own, or
/// `length` when given, to damage it), the block, CRLF CRLF.
fn record(
    kind: &str,
    uri: &str,
    content_type: &str,
    block: &[u8],
    length: Option<usize>,
) -> Vec<u8> {
    let id = format!("<urn:uuid:{kind}-{}>", uri.len());
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: {id}\r\nWARC-Date: 2026-11-24T00:00:00Z\r\n\
         WARC-Target-URI: {uri}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        length.unwrap_or(block.len())
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// The records of the fixture, in order.
fn records() -> Vec<Vec<u8>> {
    let html = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\nServer: x\r\n\r\n\
<!doctype html>\n<title>t</title>\n<p>See <a href=\"http://a.example/x?a=1&amp;b=2\">the list</a>\n\
and http://b.example/page.\n<pre>http://in-code.example/</pre>\n";
    let png = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n\0\0\0http://not-read.example/";
    let wet = b"Title line\nread https://c.example/a/b and\n  ftp://d.example/pub/ too\n";
    let short = b"resource text http://e.example/one and http://f.example/two\n";
    let after = b"last http://g.example/ here\nbad http://k.example/%zz";
    vec![
        record(
            "warcinfo",
            "",
            "application/warc-fields",
            b"software: t\r\nhttp://info.example/\r\n",
            None,
        ),
        record(
            "response",
            "http://site.example/img.png",
            "application/http; msgtype=response",
            png,
            None,
        ),
        record(
            "request",
            "http://site.example/",
            "application/http; msgtype=request",
            b"GET / HTTP/1.1\r\nHost: http://req.example/\r\n\r\n",
            None,
        ),
        record(
            "response",
            "http://site.example/",
            "application/http; msgtype=response",
            html,
            None,
        ),
        record("conversion", "http://site.example/", "text/plain", wet, None),
        // Its Content-Length is 20 bytes short.
        record(
            "resource",
            "http://site.example/r.txt",
            "text/plain",
            short,
            Some(short.len() - 20),
        ),
        record("conversion", "http://site.example/last", "text/plain", after, None),
    ]
}

fn gzip_members(records: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in records {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(r).unwrap();
        out.extend(e.finish().unwrap());
    }
    out
}

fn rows(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn fixture() -> (tempfile::TempDir, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let plain = records().concat();
    std::fs::write(dir.path().join("crawl.warc"), &plain).unwrap();
    std::fs::write(dir.path().join("crawl.warc.gz"), gzip_members(&records())).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "plain http://h.example/\n").unwrap();
    (dir, plain)
}

#[test]
fn each_record_is_a_document_with_exact_positions() {
    let (dir, plain) = fixture();
    let o = urlsift(&["extract", "--json", "crawl.warc"], dir.path());
    let rows = rows(&o);
    let urls: Vec<&str> = rows.iter().map(|r| r["url"].as_str().unwrap()).collect();
    assert_eq!(
        urls,
        [
            "http://a.example/x?a=1&b=2",
            "http://b.example/page",
            "http://in-code.example/",
            "https://c.example/a/b",
            "ftp://d.example/pub/",
            "http://e.example/one",
            "http://f.example/two",
            "http://g.example/",
            "http://k.example/%zz",
        ],
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for r in &rows {
        let url = r["url"].as_str().unwrap();
        let offset = r["offset"].as_u64().unwrap() as usize;
        let payload = r["warc_payload_offset"].as_u64().unwrap() as usize;
        // The offset is the URL's first byte in the file.
        assert!(plain[offset..].starts_with(&url.as_bytes()[..16]), "{r}");
        // Line and column count from the payload's start.
        let before = &plain[payload..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let column = (before.len() - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1))
            as u64
            + 1;
        assert_eq!(
            (r["line"].as_u64().unwrap(), r["column"].as_u64().unwrap()),
            (line, column),
            "{r}"
        );
        let record = r["warc_record_offset"].as_u64().unwrap() as usize;
        assert!(plain[record..].starts_with(b"WARC/1.1\r\n"), "{r}");
        assert!(r["warc_record_id"].as_str().unwrap().starts_with("<urn:uuid:"), "{r}");
    }
    // The HTML body starts after the HTTP headers: the link is on its line 3.
    assert_eq!((rows[0]["line"].as_u64(), rows[0]["column"].as_u64()), (Some(3), Some(17)));
    assert_eq!(rows[0]["warc_target_uri"], "http://site.example/");
    assert_eq!(rows[0]["warc_type"], "response");
    // `extract` keeps a URL in code, marked; `lint` passes over it.
    assert_eq!(rows[2]["in_code"], true);
    assert_eq!(rows[3]["warc_type"], "conversion");
    assert_eq!(rows[8]["warc_target_uri"], "http://site.example/last");
    // The damaged record is reported once, and the file exits 2.
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("Content-Length").count(), 1, "{err}");
    assert!(err.contains("crawl.warc: WARC record 5 at byte"), "{err}");
}

#[test]
fn gzip_members_give_the_same_rows_and_the_other_files_are_read() {
    let (dir, _) = fixture();
    let plain = urlsift(&["extract", "--json", "crawl.warc"], dir.path());
    let gz = urlsift(&["extract", "--json", "crawl.warc.gz", "notes.txt"], dir.path());
    let mut gz_rows = rows(&gz);
    let last = gz_rows.pop().unwrap();
    assert_eq!(last["url"], "http://h.example/");
    assert_eq!(gz.status.code(), Some(2));
    let strip = |mut v: serde_json::Value| {
        let m = v.as_object_mut().unwrap();
        m.remove("path");
        m.remove("compressed");
        v
    };
    assert!(gz_rows.iter().all(|r| r["compressed"] == "gzip"));
    let a: Vec<_> = rows(&plain).into_iter().map(strip).collect();
    let b: Vec<_> = gz_rows.into_iter().map(strip).collect();
    assert_eq!(a, b);
}

#[test]
fn stats_count_records_and_lint_carries_the_record() {
    let (dir, _) = fixture();
    let o = urlsift(&["extract", "--stats", "crawl.warc"], dir.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warc records: 7  scanned: 4  not text: 1  no document: 2  damaged: 1"),
        "{err}"
    );
    let o = urlsift(&["lint", "--json", "--fail-on", "note", "crawl.warc"], dir.path());
    let rows = rows(&o);
    assert!(!rows.is_empty());
    for r in &rows {
        assert!(r["warc_record_id"].is_string(), "{r}");
        assert_ne!(r["url"], "http://in-code.example/");
    }
    // In text, a finding names its record.
    let o = urlsift(&["lint", "crawl.warc"], dir.path());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("crawl.warc:2:22: error[bad-escape]")
            && out.contains("(WARC record 6 at byte ")
            && out.contains(", http://site.example/last)\n"),
        "{out}"
    );
    // Forced to text, the file is just text (binary, for its PNG, unless
    // asked): the URLs outside the payloads appear.
    let o = urlsift(&["extract", "--input", "text", "crawl.warc"], dir.path());
    assert!(o.stdout.is_empty());
    let o = urlsift(&["extract", "--input", "text", "--binary", "crawl.warc"], dir.path());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("http://info.example/"), "{out}");
}

#[test]
fn forced_warc_reads_records_from_standard_input() {
    let (dir, plain) = fixture();
    let mut child = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(["extract", "--input", "warc", "-"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&plain).unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().count(), 9, "{out}");
    assert!(!out.contains("not-read") && !out.contains("req.example"));
}
