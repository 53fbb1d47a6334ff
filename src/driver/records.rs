//! `--input records`: JSON Lines in, one document a line, for engines that
//! pipe text through a program (Spark's `RDD.pipe`, Hadoop Streaming, GNU
//! parallel). Each line is `{"id": ..., "text": "..."}` or `{"id": ...,
//! "base64": "..."}`; its URLs come out with the `id` carried through
//! (`"id"` in JSON, verbatim), their positions inside the record's text.
//! A line that is not such an object gets an error object of its own and
//! the stream goes on.

use std::io::{self, BufRead, Read};

use super::read::{Render, Sink};
use super::{Context, Emit, FileResult, Input, RunOptions};
use crate::extract::{Scratch, Sifter};
use crate::mail::{self, InputKind, MailProblem, MailUrl};

/// The longest line read as a record; a longer one is an error object
/// (its bytes are passed over, not held).
pub const MAX_RECORD: usize = 1 << 30;

/// One record as the reader sees it.
/// Other fields are let be: an engine may carry its own along.
#[derive(serde::Deserialize)]
struct Line {
    id: serde_json::Value,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    base64: Option<String>,
}

/// Reads a stream of records (see the module documentation).
#[allow(clippy::too_many_arguments)]
pub(super) fn scan_records<R: Read, E: Emit>(
    reader: R,
    input: &Input,
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    scratch: &mut Scratch,
    r: &mut FileResult,
    sink: &mut Sink<'_, '_>,
) -> io::Result<()> {
    let mut reader = io::BufReader::with_capacity(256 << 10, reader);
    let mut each = Render::new(input, emit, opts, r, sink);
    let (mut problems, mut line, mut number, mut bytes) = (Vec::new(), Vec::new(), 0u64, 0u64);
    let res = loop {
        line.clear();
        let n = match (&mut reader).take(MAX_RECORD as u64 + 1).read_until(b'\n', &mut line) {
            Ok(0) => break Ok(()),
            Ok(n) => n,
            Err(e) => break Err(e),
        };
        number += 1;
        bytes += n as u64;
        let failed = if line.len() > MAX_RECORD && line.last() != Some(&b'\n') {
            // Passed over to its end, in bounded pieces.
            match skip_line(&mut reader) {
                Ok(n) => bytes += n,
                Err(e) => break Err(e),
            }
            Some((None, format!("longer than {MAX_RECORD} bytes: not read")))
        } else {
            let text = line.trim_ascii();
            if text.is_empty() {
                continue;
            }
            match record(text) {
                Ok((id, data)) => {
                    scan_one(sifter, &id, &data, scratch, &mut each);
                    None
                }
                Err((id, why)) => Some((id, why)),
            }
        };
        if let Some((id, why)) = failed {
            each.emit.record_error(input, number, id.as_deref(), &why, &mut each.out);
            problems.push(format!("record line {number}: {why}"));
        }
    };
    each.close(r);
    r.bytes = bytes;
    r.unread = !problems.is_empty();
    r.problems = problems;
    res
}

/// Reads the rest of an overlong line; returns its length.
fn skip_line(reader: &mut impl BufRead) -> io::Result<u64> {
    let mut skipped = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(skipped);
        }
        let (n, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        reader.consume(n);
        skipped += n as u64;
        if done {
            return Ok(skipped);
        }
    }
}

/// The id (as JSON text) and the bytes of one record line, or the id if
/// any and why the line is not a record.
fn record(text: &[u8]) -> Result<(String, Vec<u8>), (Option<String>, String)> {
    let line: Line = serde_json::from_slice(text).map_err(|e| {
        // The id of an object with other faults is still worth giving.
        let id = serde_json::from_slice::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.get("id").map(|id| id.to_string()));
        (id, format!("not a record object: {e}"))
    })?;
    let id = line.id.to_string();
    match (line.text, line.base64) {
        (Some(t), None) => Ok((id, t.into_bytes())),
        (None, Some(b)) => match decode_base64(b.as_bytes()) {
            Some(data) => Ok((id, data)),
            None => Err((Some(id), "`base64` is not valid base64 (RFC 4648)".into())),
        },
        (Some(_), Some(_)) => Err((Some(id), "both `text` and `base64`: give one".into())),
        (None, None) => Err((Some(id), "neither `text` nor `base64`".into())),
    }
}

/// Strict RFC 4648 base64 (padding optional, no other bytes).
fn decode_base64(s: &[u8]) -> Option<Vec<u8>> {
    let s = s.strip_suffix(b"==").or_else(|| s.strip_suffix(b"=")).unwrap_or(s);
    if s.len() % 4 == 1 {
        return None;
    }
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 2);
    for chunk in s.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// Scans one record's bytes: as mail or news when they look like it, as
/// text otherwise.
fn scan_one<E: Emit>(
    sifter: &Sifter,
    id: &str,
    data: &[u8],
    scratch: &mut Scratch,
    each: &mut Render<'_, '_, '_, '_, E>,
) {
    let cx = Context { record: Some(id), ..Context::default() };
    match mail::detect(data) {
        InputKind::Text => {
            let _ = sifter.extract_reader(data, scratch, |e| each.url(&e, cx));
        }
        kind => {
            let mut url = |m: MailUrl| each.url(&m.url, Context { mail: Some(&m), ..cx });
            let _ =
                mail::extract_mail_with(sifter, data, kind, None, &mut url, |_: MailProblem| {});
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_strict_rfc_4648() {
        for (enc, dec) in [
            ("", ""),
            ("Zg==", "f"),
            ("Zm8=", "fo"),
            ("Zm9v", "foo"),
            ("Zm9vYg", "foob"),
            ("Zm9vYmFy", "foobar"),
        ] {
            assert_eq!(decode_base64(enc.as_bytes()).as_deref(), Some(dec.as_bytes()), "{enc}");
        }
        for bad in ["Zm9v!", "Z", "Zm 9v", "Zm9v\n"] {
            assert_eq!(decode_base64(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn a_record_needs_an_id_and_one_body() {
        assert_eq!(record(br#"{"id":7,"text":"a"}"#).unwrap(), ("7".into(), b"a".to_vec()));
        assert_eq!(
            record(br#"{"id":"x","base64":"aHR0cDo="}"#).unwrap(),
            ("\"x\"".into(), b"http:".to_vec())
        );
        assert_eq!(
            record(br#"{"id":1,"text":"a","base64":"YQ=="}"#).unwrap_err().0.as_deref(),
            Some("1")
        );
        assert!(record(br#"{"text":"a"}"#).is_err());
        assert!(record(br#"{"id":1}"#).is_err());
        assert_eq!(record(br#"{"id":2,"text":3}"#).unwrap_err().0.as_deref(), Some("2"));
        assert!(record(b"not json").is_err());
    }
}
