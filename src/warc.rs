//! Web archives: WARC 1.0 and 1.1 files (the Internet Archive's crawls)
//! and Common Crawl's WET files, read record by record.
//!
//! Each record's payload is scanned as its own document: a `response`'s
//! HTTP body by its `Content-Type` (HTML, text, Markdown, JSON...; its
//! HTTP headers and chunked transfer coding left out), a `resource` or a
//! WET `conversion` record by the record's own `Content-Type`. What is
//! not text (images, PDFs, compressed bodies) and the records that carry
//! no document (`request`, `metadata`, `warcinfo`, `revisit`) are counted
//! and skipped.
//!
//! Positions: a URL's line and column count from the start of its
//! record's payload (where a `warcio` user's `content_stream()` starts);
//! its offset is the byte offset in the (decompressed) file, so the two
//! together place it exactly.
//!
//! A record whose `Content-Length` does not end where the next record (or
//! the file) starts is damaged: it is read up to the real boundary, the
//! next `WARC/1.x` line at a line start, and reported. Memory is bounded
//! by [`MAX_PAYLOAD`], whatever a header claims.

use std::io::{self, Read};

use crate::doc::Format;
use crate::extract::{Extracted, Scratch, Sifter};

/// Payload bytes of one record that are read and scanned; the rest of a
/// bigger record is skipped and reported.
pub const MAX_PAYLOAD: usize = 64 << 20;

/// A record's header block may not be longer than this.
const MAX_HEADER: usize = 1 << 20;

/// Whether `head`, the first bytes of an input, is a WARC file: its first
/// line is `WARC/1.0` or `WARC/1.1`.
pub fn is_warc(head: &[u8]) -> bool {
    let Some(rest) = head.strip_prefix(b"WARC/1.") else { return false };
    matches!(rest, [b'0' | b'1', b'\r', b'\n', ..] | [b'0' | b'1', b'\n', ..])
}

/// One record of a WARC file, as a URL found in it is reported.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// 0-based index of the record in its file.
    pub index: u64,
    /// Byte offset of the record's `WARC/1.x` line in the file.
    pub offset: u64,
    /// `WARC-Type` (`response`, `resource`, `conversion`, ...).
    pub kind: String,
    /// `WARC-Target-URI`: the URL the payload was fetched from.
    pub target_uri: Option<String>,
    /// `WARC-Record-ID` (`<urn:uuid:...>`).
    pub record_id: Option<String>,
    /// Byte offset in the file of the payload's first byte, where line 1
    /// column 1 of the record's URLs is.
    pub payload_offset: u64,
}

/// Counts for one WARC input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarcStats {
    /// Records read, damaged ones included.
    pub records: u64,
    /// Records whose payload was scanned.
    pub scanned: u64,
    /// Records whose payload is not text (an image, a PDF, a compressed
    /// body), skipped.
    pub not_text: u64,
    /// Records that hold no document (`request`, `metadata`, `warcinfo`,
    /// `revisit`), skipped.
    pub other: u64,
    /// Records whose header or length was wrong (each reported).
    pub damaged: u64,
    /// Bytes read.
    pub bytes: u64,
}

impl std::ops::AddAssign for WarcStats {
    fn add_assign(&mut self, o: WarcStats) {
        self.records += o.records;
        self.scanned += o.scanned;
        self.not_text += o.not_text;
        self.other += o.other;
        self.damaged += o.damaged;
        self.bytes += o.bytes;
    }
}

/// Reads a WARC file from `reader` and calls `sink` with each URL of each
/// record's payload, in file order, and `problem` with a line for each
/// damaged record (the rest of the file is still read). A read error ends
/// the file: what came before it was reported.
pub fn extract_warc<R: Read>(
    sifter: &Sifter,
    reader: R,
    keep_code: bool,
    scratch: &mut Scratch,
    mut sink: impl FnMut(&Record, Extracted),
    mut problem: impl FnMut(String),
) -> io::Result<WarcStats> {
    let mut s = Stream { r: reader, buf: Vec::new(), pos: 0, base: 0, eof: false };
    let mut stats = WarcStats::default();
    let mut chunks = Vec::new();
    let mut dechunked = Vec::new();
    loop {
        // Blank lines between records (the record's own CRLF CRLF ending,
        // or stray ones) are passed over.
        loop {
            s.fill(1)?;
            match s.rest().first() {
                Some(b'\r' | b'\n') => s.pos += 1,
                _ => break,
            }
        }
        if s.rest().is_empty() {
            break;
        }
        let offset = s.offset();
        let index = stats.records;
        stats.records += 1;
        let header = match s.header()? {
            Some(h) => h,
            _ => {
                stats.damaged += 1;
                let next = s.next_record(1)?;
                problem(format!(
                    "WARC record {index} at byte {offset}: not a WARC header; skipped to {}",
                    next.map_or_else(|| "the end".to_string(), |n| format!("byte {n}"))
                ));
                continue;
            }
        };
        let mut record = Record {
            index,
            offset,
            kind: header.get("warc-type").unwrap_or("").to_string(),
            target_uri: header.get("warc-target-uri").map(|u| {
                // WARC 1.0's grammar puts the URI in angle brackets.
                u.strip_prefix('<').and_then(|u| u.strip_suffix('>')).unwrap_or(u).to_string()
            }),
            record_id: header.get("warc-record-id").map(str::to_string),
            payload_offset: 0,
        };
        let content_type = header.get("content-type").unwrap_or("").to_ascii_lowercase();
        let length = header.get("content-length").and_then(|l| l.trim().parse::<u64>().ok());
        let block_start = s.pos;
        let block_offset = s.offset();
        // The block: `Content-Length` bytes, checked against what follows
        // them (CRLF CRLF, then the next record or the end).
        let (block_len, damage) = match length {
            Some(n) if n <= MAX_PAYLOAD as u64 => {
                let n = n as usize;
                s.fill(n + 16)?;
                let have = s.rest().len();
                if have >= n && ends_record(&s.rest()[n..], s.eof) {
                    (n, None)
                } else {
                    // The boundary is elsewhere: at the next `WARC/1.x`
                    // line, looked for from the block's start.
                    match s.next_record_from(0)? {
                        Some(at) => {
                            let end = trim_ending(&s.rest()[..(at - block_offset) as usize]);
                            let why = format!(
                                "Content-Length {n} does not end the record; read to byte {}",
                                block_offset + end as u64
                            );
                            (end, Some(why))
                        }
                        None if have < n => (
                            have,
                            Some(format!("truncated: Content-Length {n}, {have} bytes left")),
                        ),
                        None => {
                            let end = trim_ending(s.rest()).min(MAX_PAYLOAD);
                            (
                                end,
                                Some(format!(
                                    "Content-Length {n} does not end the record; read to the end"
                                )),
                            )
                        }
                    }
                }
            }
            Some(n) => {
                s.fill(MAX_PAYLOAD)?;
                let have = s.rest().len().min(MAX_PAYLOAD);
                (
                    have,
                    Some(format!(
                        "Content-Length {n} is over {MAX_PAYLOAD} bytes: the first {have} were read"
                    )),
                )
            }
            None => {
                let end = match s.next_record_from(0)? {
                    Some(at) => trim_ending(&s.rest()[..(at - block_offset) as usize]),
                    None => s.rest().len(),
                }
                .min(MAX_PAYLOAD);
                (end, Some("no valid Content-Length; read to the next record".to_string()))
            }
        };
        if let Some(d) = damage {
            stats.damaged += 1;
            problem(format!("WARC record {index} at byte {offset}: {d}"));
        }
        let block = &s.buf[block_start..block_start + block_len];
        let payload = match payload_of(&record.kind, &content_type, block) {
            Payload::Body { skip, format, chunked } => {
                let body = &block[skip..];
                let base = block_offset + skip as u64;
                record.payload_offset = base;
                chunks.clear();
                let body: &[u8] = if chunked && dechunk(body, &mut dechunked, &mut chunks) {
                    &dechunked
                } else {
                    chunks.clear();
                    body
                };
                Some((format, body, base))
            }
            Payload::NotText => {
                stats.not_text += 1;
                None
            }
            Payload::Other => {
                stats.other += 1;
                None
            }
        };
        if let Some((format, body, base)) = payload {
            stats.scanned += 1;
            let mut each = |mut e: Extracted| {
                relocate(&mut e, base, &chunks);
                sink(&record, e);
            };
            if format == Format::Text {
                sifter.extract_reader(body, scratch, &mut each)?;
            } else {
                crate::doc::extract_doc(sifter, format, body, keep_code, &mut each);
            }
        }
        s.pos = block_start + block_len;
        if length.is_some_and(|n| n > MAX_PAYLOAD as u64) {
            // The rest of an oversized block is passed over in bounded
            // pieces, then the reading goes on at the next record.
            s.next_record(0)?;
        }
        s.compact();
    }
    stats.bytes = s.offset();
    Ok(stats)
}

/// Whether `after`, the bytes after a record's block, is its ending:
/// CRLF CRLF (LF LF tolerated), then the next record or the end.
fn ends_record(after: &[u8], eof: bool) -> bool {
    let rest = after
        .strip_prefix(b"\r\n\r\n")
        .or_else(|| after.strip_prefix(b"\n\n"))
        .or_else(|| after.strip_prefix(b"\r\n").filter(|r| r.is_empty() && eof));
    match rest {
        Some(r) => {
            let r = r.trim_ascii_start();
            (r.is_empty() && eof) || r.starts_with(b"WARC/1.") || (r.len() < 7 && !eof)
        }
        None => after.is_empty() && eof,
    }
}

/// The length of `block` without the CRLF CRLF (or LF LF) that ends a
/// record.
fn trim_ending(block: &[u8]) -> usize {
    let b =
        block.strip_suffix(b"\r\n\r\n").or_else(|| block.strip_suffix(b"\n\n")).unwrap_or(block);
    b.len()
}

enum Payload {
    /// Scan the block from `skip` on as `format`.
    Body {
        skip: usize,
        format: Format,
        chunked: bool,
    },
    NotText,
    Other,
}

/// What of a record's block is scanned, and how.
fn payload_of(kind: &str, content_type: &str, block: &[u8]) -> Payload {
    match kind {
        "response" if content_type.starts_with("application/http") => {
            let Some((head_len, http)) = http_head(block) else { return Payload::NotText };
            let body = &block[head_len..];
            if http.encoded {
                return Payload::NotText;
            }
            match format_of_mime(&http.content_type, body) {
                Some(format) => Payload::Body { skip: head_len, format, chunked: http.chunked },
                None => Payload::NotText,
            }
        }
        "response" | "resource" | "conversion" => match format_of_mime(content_type, block) {
            Some(format) => Payload::Body { skip: 0, format, chunked: false },
            None => Payload::NotText,
        },
        _ => Payload::Other,
    }
}

/// The document format of a payload of MIME type `mime` (lowercase);
/// `None` for what is not text. A payload with no type is text when its
/// first 8 KiB have no NUL.
fn format_of_mime(mime: &str, body: &[u8]) -> Option<Format> {
    let m = mime.split(';').next().unwrap_or("").trim();
    Some(match m {
        "" => {
            let head = &body[..body.len().min(8192)];
            return memchr::memchr(0, head).is_none().then_some(Format::Text);
        }
        "text/html" | "application/xhtml+xml" | "application/xml" | "text/xml" => Format::Html,
        _ if m.ends_with("+xml") => Format::Html,
        "text/markdown" | "text/x-markdown" => Format::Markdown,
        "application/json" => Format::Json,
        _ if m.ends_with("+json") => Format::Json,
        "application/javascript" | "text/javascript" | "application/x-javascript" => Format::Script,
        _ if m.starts_with("text/") => Format::Text,
        _ => return None,
    })
}

/// What the HTTP head of a response says about its body.
struct Http {
    content_type: String,
    chunked: bool,
    /// A content coding other than `identity` (gzip, br, ...): the body
    /// is not text as stored.
    encoded: bool,
}

/// The length of the HTTP status line and headers (with the blank line
/// after them) at the start of `block`, and what they say.
fn http_head(block: &[u8]) -> Option<(usize, Http)> {
    if !block.starts_with(b"HTTP/") {
        return None;
    }
    let end = memchr::memmem::find(block, b"\r\n\r\n")
        .map(|i| i + 4)
        .into_iter()
        .chain(memchr::memmem::find(block, b"\n\n").map(|i| i + 2))
        .min()?;
    let mut http = Http { content_type: String::new(), chunked: false, encoded: false };
    for line in block[..end].split(|&b| b == b'\n').skip(1) {
        let Some(colon) = memchr::memchr(b':', line) else { continue };
        let name = &line[..colon];
        let value = String::from_utf8_lossy(line[colon + 1..].trim_ascii()).to_ascii_lowercase();
        if name.eq_ignore_ascii_case(b"content-type") {
            http.content_type = value;
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            http.chunked = value.contains("chunked");
        } else if name.eq_ignore_ascii_case(b"content-encoding") {
            http.encoded = !value.is_empty() && value != "identity";
        }
    }
    Some((end, http))
}

/// Undoes HTTP's chunked transfer coding of `body` into `out`, noting in
/// `chunks` where each chunk's data starts, in `out` and in `body`.
/// False (and `out` not to be used) when `body` is not chunked after all.
fn dechunk(body: &[u8], out: &mut Vec<u8>, chunks: &mut Vec<(u64, u64)>) -> bool {
    out.clear();
    let mut at = 0;
    loop {
        let Some(nl) = memchr::memchr(b'\n', &body[at..]) else { return !chunks.is_empty() };
        let line = body[at..at + nl].trim_ascii();
        let hex = line.split(|&b| b == b';').next().unwrap_or(b"");
        let Some(size) =
            std::str::from_utf8(hex).ok().and_then(|h| usize::from_str_radix(h, 16).ok())
        else {
            return false;
        };
        at += nl + 1;
        if size == 0 {
            return true;
        }
        let take = size.min(body.len() - at);
        chunks.push((out.len() as u64, at as u64));
        out.extend_from_slice(&body[at..at + take]);
        at += take;
        if take < size {
            return true;
        }
        // The CRLF after the chunk's data.
        at += body[at..].iter().take(2).take_while(|b| matches!(b, b'\r' | b'\n')).count();
    }
}

/// Moves a URL's offsets from its payload to the file: `base` is the
/// payload's offset in the file, `chunks` the map of a dechunked body.
fn relocate(e: &mut Extracted, base: u64, chunks: &[(u64, u64)]) {
    let at = |o: u64| -> u64 {
        let i = chunks.partition_point(|c| c.0 <= o);
        match i.checked_sub(1).map(|i| chunks[i]) {
            Some((out, body)) => base + body + (o - out),
            None => base + o,
        }
    };
    e.start.offset = at(e.start.offset);
    e.end.offset = at(e.end.offset);
    // Runs of the payload; a record is not rewritten.
    e.pieces.clear();
    for f in &mut e.findings {
        f.start.offset = at(f.start.offset);
        f.end.offset = at(f.end.offset);
        for (s, t) in &mut f.extra_spans {
            s.offset = at(s.offset);
            t.offset = at(t.offset);
        }
    }
}

/// A record's named header fields, from its header block.
struct Header<'a> {
    fields: Vec<(&'a str, &'a str)>,
}

impl Header<'_> {
    /// The value of field `name` (lowercase), the first if repeated.
    fn get(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
    }
}

/// The input, buffered so that a record's block is one slice and the
/// reader can look ahead for the next record.
struct Stream<R> {
    r: R,
    buf: Vec<u8>,
    /// Where the reading is in `buf`.
    pos: usize,
    /// The file offset of `buf[0]`.
    base: u64,
    eof: bool,
}

impl<R: Read> Stream<R> {
    fn rest(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Reads until `want` bytes are buffered past `pos`, or the end.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        while self.buf.len() - self.pos < want && !self.eof {
            let len = self.buf.len();
            let grow = (want - (len - self.pos)).clamp(64 << 10, 1 << 20);
            self.buf.resize(len + grow, 0);
            let n = loop {
                match self.r.read(&mut self.buf[len..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    other => break other,
                }
            };
            match n {
                Ok(n) => {
                    self.buf.truncate(len + n);
                    self.eof = n == 0;
                }
                Err(e) => {
                    self.buf.truncate(len);
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Drops what was read, so memory is bounded by one record; only once
    /// it is half the buffer, so the bytes moved are at most those read
    /// (a WET file's records are a few kB each).
    fn compact(&mut self) {
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
    }

    /// Reads a header block at `pos`: the version line, fields up to the
    /// blank line. `None` (and nothing consumed) when there is none within
    /// [`MAX_HEADER`], or when it holds another record's version line.
    fn header(&mut self) -> io::Result<Option<Header<'_>>> {
        let mut from = 0;
        let (lines_end, block_end) = loop {
            self.fill(from + 4096)?;
            let rest = self.rest();
            let back = from.saturating_sub(3);
            if let Some((a, b)) = find_blank_line(&rest[back..]) {
                break (back + a, back + b);
            }
            if self.eof || rest.len() > MAX_HEADER {
                return Ok(None);
            }
            from = rest.len();
        };
        let text = &self.buf[self.pos..self.pos + lines_end];
        let mut lines = text.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
        let version_line = lines.next().unwrap_or(b"");
        let mut fields = Vec::new();
        for l in lines {
            if is_version(l) {
                return Ok(None);
            }
            let Some((n, v)) = std::str::from_utf8(l).ok().and_then(|l| l.split_once(':')) else {
                continue;
            };
            fields.push((n.trim(), v.trim()));
        }
        if !is_version(version_line) {
            return Ok(None);
        }
        self.pos += block_end;
        Ok(Some(Header { fields }))
    }

    /// The file offset of the next `WARC/1.x` line that starts at least
    /// `from` bytes past `pos`, reading ahead as needed (but no more than
    /// [`MAX_PAYLOAD`] past `from`); `None` if there is none in reach.
    fn next_record_from(&mut self, from: usize) -> io::Result<Option<u64>> {
        let mut start = from.saturating_sub(1);
        loop {
            self.fill(start + (1 << 20))?;
            let rest = self.rest();
            let mut next_start = rest.len().saturating_sub(10).max(start);
            for i in memchr::memmem::find_iter(&rest[start..], b"\nWARC/1.") {
                let line = start + i + 1;
                if line >= from && is_warc(&rest[line..]) {
                    return Ok(Some(self.offset() + line as u64));
                }
                if rest.len() - line < 10 && !self.eof {
                    next_start = start + i;
                    break;
                }
            }
            if self.eof || rest.len() >= from + MAX_PAYLOAD {
                return Ok(None);
            }
            start = next_start;
        }
    }

    /// Moves `pos` to the next `WARC/1.x` line at least `from` bytes on,
    /// dropping what is passed over; returns its offset, `None` at the
    /// end (everything consumed).
    fn next_record(&mut self, from: usize) -> io::Result<Option<u64>> {
        loop {
            match self.next_record_from(from)? {
                Some(at) => {
                    self.pos = (at - self.base) as usize;
                    return Ok(Some(at));
                }
                None if self.eof => {
                    self.pos = self.buf.len();
                    return Ok(None);
                }
                None => {
                    // Past the look-ahead bound: drop it and go on.
                    self.pos = self.buf.len().saturating_sub(16).max(self.pos);
                    self.compact();
                }
            }
        }
    }
}

/// Whether `line` (without its line break) is a WARC version line.
fn is_version(line: &[u8]) -> bool {
    line == b"WARC/1.0" || line == b"WARC/1.1"
}

/// The end of a header block in `b`: (the length of its lines, the
/// length with the blank line).
fn find_blank_line(b: &[u8]) -> Option<(usize, usize)> {
    let crlf = memchr::memmem::find(b, b"\r\n\r\n").map(|i| (i, i + 4));
    let lf = memchr::memmem::find(b, b"\n\n").map(|i| (i, i + 2));
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::Options;

    fn record(kind: &str, ct: &str, uri: &str, block: &[u8]) -> Vec<u8> {
        let mut r = format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nWARC-Record-ID: <urn:uuid:{kind}-1>\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        r.extend_from_slice(block);
        r.extend_from_slice(b"\r\n\r\n");
        r
    }

    /// A URL as the tests see it: text, line, column, offset, target URI.
    type Row = (String, u64, u64, u64, Option<String>);

    fn urls(file: &[u8]) -> (Vec<Row>, Vec<String>, WarcStats) {
        let sifter = Sifter::new(Options::default());
        let (mut out, mut problems) = (Vec::new(), Vec::new());
        let stats = extract_warc(
            &sifter,
            file,
            false,
            &mut Scratch::default(),
            |r, e| {
                out.push((
                    String::from_utf8_lossy(&e.url).into_owned(),
                    e.start.line,
                    e.start.column,
                    e.start.offset,
                    r.target_uri.clone(),
                ))
            },
            |p| problems.push(p),
        )
        .unwrap();
        (out, problems, stats)
    }

    #[test]
    fn detects_the_version_line() {
        assert!(is_warc(b"WARC/1.0\r\nWARC-Type: x"));
        assert!(is_warc(b"WARC/1.1\r\n"));
        assert!(!is_warc(b"WARC/1.2\r\n"));
        assert!(!is_warc(b"WARC/1.0 "));
        assert!(!is_warc(b"From x"));
    }

    #[test]
    fn a_response_body_by_its_type_with_exact_offsets() {
        let body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>\n<a href=\"http://a.example/x?a=1&amp;b=2\">x</a>";
        let file = record("response", "application/http; msgtype=response", "http://site/", body);
        let (u, p, s) = urls(&file);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].0, "http://a.example/x?a=1&b=2");
        assert_eq!((u[0].1, u[0].2), (2, 10));
        let at = u[0].3 as usize;
        assert!(file[at..].starts_with(b"http://a.example/"));
        assert_eq!(u[0].4.as_deref(), Some("http://site/"));
        assert_eq!((s.records, s.scanned), (1, 1));
    }

    #[test]
    fn chunked_bodies_are_joined_and_offsets_mapped() {
        let body = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nsee h\r\n14\r\nttp://b.example/ ok \r\n0\r\n\r\n";
        let file = record("response", "application/http;msgtype=response", "http://s/", body);
        let (u, p, _) = urls(&file);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(u[0].0, "http://b.example/");
        let at = u[0].3 as usize;
        assert_eq!(&file[at..at + 1], b"h");
    }

    #[test]
    fn skips_what_is_not_text_and_what_holds_no_document() {
        let mut file =
            record("warcinfo", "application/warc-fields", "", b"software: x http://w.example/\r\n");
        file.extend(record(
            "request",
            "application/http; msgtype=request",
            "http://s/",
            b"GET / HTTP/1.1\r\n\r\n",
        ));
        file.extend(record(
            "response",
            "application/http",
            "http://s/i.png",
            b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG\0http://no.example/",
        ));
        file.extend(record("conversion", "text/plain", "http://s/", b"read http://c.example/ now"));
        let (u, p, s) = urls(&file);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(u.iter().map(|u| u.0.as_str()).collect::<Vec<_>>(), ["http://c.example/"]);
        assert_eq!((u[0].1, u[0].2), (1, 6));
        assert_eq!(
            s,
            WarcStats {
                records: 4,
                scanned: 1,
                not_text: 1,
                other: 2,
                damaged: 0,
                bytes: file.len() as u64
            }
        );
    }

    #[test]
    fn a_wrong_content_length_is_reported_and_nothing_is_lost() {
        for delta in [-7i64, 9, 400] {
            let block = b"a http://one.example/ b\nc http://two.example/ d";
            let mut first = record("conversion", "text/plain", "http://one/", block);
            let second =
                record("conversion", "text/plain", "http://two/", b"http://three.example/");
            let field = format!("Content-Length: {}", block.len());
            let at = memchr::memmem::find(&first, field.as_bytes()).unwrap();
            let n = block.len() as i64 + delta;
            first.splice(at..at + field.len(), format!("Content-Length: {n}").bytes());
            first.extend(&second);
            let (u, p, s) = urls(&first);
            let got: Vec<_> = u.iter().map(|u| u.0.as_str()).collect();
            assert_eq!(
                got,
                ["http://one.example/", "http://two.example/", "http://three.example/"],
                "delta {delta}"
            );
            assert_eq!(p.len(), 1, "{p:?}");
            assert_eq!(s.damaged, 1);
            for x in &u {
                assert!(first[x.3 as usize..].starts_with(x.0.as_bytes()));
            }
        }
    }

    #[test]
    fn a_truncated_record_keeps_what_it_has() {
        let mut file = record(
            "conversion",
            "text/plain",
            "http://one/",
            b"a http://one.example/ b http://two.example/",
        );
        file.truncate(file.len() - 15);
        let (u, p, _) = urls(&file);
        assert_eq!(u[0].0, "http://one.example/");
        assert_eq!(p.len(), 1);
        assert!(p[0].contains("truncated"), "{p:?}");
    }

    #[test]
    fn garbage_before_a_record_is_passed_over() {
        let mut file = b"WARC/1.0\r\nno blank line then junk\nWARC-Type".to_vec();
        file.extend(b"\r\n");
        file.extend(record("conversion", "text/plain", "http://one/", b"http://one.example/"));
        let (u, p, _) = urls(&file);
        assert_eq!(u.len(), 1, "{p:?}");
        assert_eq!(u[0].0, "http://one.example/");
    }
}
