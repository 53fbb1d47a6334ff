//! Header blocks (RFC 822/5322, RFC 1036 for news, RFC 2045 for MIME part
//! headers): finding the fields, unfolding them, decoding RFC 2047 encoded
//! words, and reading the few MIME parameters the walk needs.
//!
//! Everything here keeps offsets: a field is a pair of ranges into its
//! buffer, and the unfolded, decoded value that the scanner reads comes
//! with the [`PosMap`]s that lead back to those ranges. Hand-written
//! because mail-parsing crates return decoded strings with no way back to
//! the bytes they came from.

use std::borrow::Cow;
use std::ops::Range;

use super::base64;
use super::charset;
use crate::posmap::{MapBuilder, PosMap};

/// One header field as it stands in its buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The field name (without the colon).
    pub name: Range<usize>,
    /// The raw value: from after the colon to the end of its last
    /// continuation line, line breaks included, final line break excluded.
    pub value: Range<usize>,
}

/// A parsed header block.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// The fields, in order.
    pub fields: Vec<Field>,
    /// Where the body starts: after the blank line that ends the block, or
    /// at the first line that is neither a field nor a continuation.
    pub body_start: usize,
    /// The block ended at such a line rather than at a blank line (or the
    /// end of input); for a whole message with no field before it, that
    /// means there is no header block at all.
    pub stray: bool,
}

impl Block {
    /// The raw value of the first field named `name` (any case).
    pub fn get<'b>(&self, buf: &'b [u8], name: &str) -> Option<&'b [u8]> {
        self.fields
            .iter()
            .find(|f| buf[f.name.clone()].eq_ignore_ascii_case(name.as_bytes()))
            .map(|f| &buf[f.value.clone()])
    }
}

/// Length of the field name if `line` opens a field (`Name:`). Names are
/// printable ASCII without `:`; blanks before the colon are tolerated (the
/// obsolete syntax of RFC 822), but the mbox `From ` line is no field.
pub fn field_name(line: &[u8]) -> Option<usize> {
    let n = line.iter().take_while(|&&b| (33..=126).contains(&b) && b != b':').count();
    if n == 0 {
        return None;
    }
    let blanks = line[n..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    (line.get(n + blanks) == Some(&b':')).then_some(n)
}

/// Splits `buf` at the end of its header block.
pub fn parse_block(buf: &[u8]) -> Block {
    let mut block = Block::default();
    let mut pos = 0;
    while pos < buf.len() {
        let (end, next) = line_at(buf, pos);
        let line = &buf[pos..end];
        if line.iter().all(|&b| b == b' ' || b == b'\t') {
            // A blank (or blanks-only) line ends the block.
            block.body_start = next;
            return block;
        }
        if matches!(line[0], b' ' | b'\t') {
            // A continuation before any field belongs to a field that was
            // lost (archives that strip `Path:` keep its second line):
            // passed over, so the fields after it still count.
            if let Some(last) = block.fields.last_mut() {
                last.value.end = end;
            }
            pos = next;
            continue;
        } else if let Some(n) = field_name(line) {
            let colon = pos + line.iter().position(|&b| b == b':').unwrap_or(n);
            block.fields.push(Field { name: pos..pos + n, value: colon + 1..end });
            pos = next;
            continue;
        }
        block.stray = true;
        block.body_start = pos;
        return block;
    }
    block.body_start = buf.len();
    block
}

/// The line starting at `pos`: end of its content (before CRLF or LF) and
/// start of the next line.
pub fn line_at(buf: &[u8], pos: usize) -> (usize, usize) {
    match memchr::memchr(b'\n', &buf[pos..]) {
        Some(i) => {
            let lf = pos + i;
            let end = if lf > pos && buf[lf - 1] == b'\r' { lf - 1 } else { lf };
            (end, lf + 1)
        }
        None => (buf.len(), buf.len()),
    }
}

/// The value with its folding line breaks removed (RFC 5322 section
/// 2.2.3: the blanks that follow a break stay). The map is `None` when
/// nothing was folded and the value is a plain slice.
pub fn unfold(raw: &[u8]) -> (Cow<'_, [u8]>, Option<PosMap>) {
    if memchr::memchr2(b'\n', b'\r', raw).is_none() {
        return (Cow::Borrowed(raw), None);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut map = MapBuilder::new();
    let mut i = 0;
    for br in memchr::memchr2_iter(b'\n', b'\r', raw) {
        out.extend_from_slice(&raw[i..br]);
        map.copy(i, br - i);
        i = br + 1;
    }
    out.extend_from_slice(&raw[i..]);
    map.copy(i, raw.len() - i);
    (Cow::Owned(out), Some(map.finish()))
}

/// Decodes the RFC 2047 encoded words (`=?charset?Q?...?=` and `?B?`) of an
/// unfolded value into UTF-8 (or raw bytes for charsets left alone).
/// Blanks between two adjacent encoded words are dropped, as the RFC says.
/// `None` when the value holds no encoded word.
///
/// Words are decoded wherever they stand, not only where RFC 2047 allows
/// them (never inside quoted strings or `<...>`), because mailers put them
/// everywhere and a URL inside one is still the sender's URL.
pub fn decode_words(value: &[u8]) -> Option<(Vec<u8>, PosMap)> {
    let mut out = Vec::new();
    let mut map = MapBuilder::new();
    let mut copied = 0;
    let mut last_word_end = None;
    let mut from = 0;
    let mut any = false;
    while let Some(p) = find_word_start(&value[from..]).map(|p| from + p) {
        let Some(word) = parse_word(value, p) else {
            from = p + 2;
            continue;
        };
        let gap = &value[copied..p];
        let between_words =
            last_word_end == Some(copied) && gap.iter().all(u8::is_ascii_whitespace);
        if !between_words {
            out.extend_from_slice(gap);
            map.copy(copied, gap.len());
        }
        let (payload, srcs) = word_payload(value, &word);
        match charset::decode(&value[word.charset.clone()], &payload) {
            Some((text, cmap)) => {
                for k in 0..text.len() {
                    map.copy(srcs[cmap.map(k)], 1);
                }
                out.extend_from_slice(&text);
            }
            None => {
                for &s in &srcs {
                    map.copy(s, 1);
                }
                out.extend_from_slice(&payload);
            }
        }
        any = true;
        copied = word.end;
        last_word_end = Some(word.end);
        from = word.end;
    }
    if !any {
        return None;
    }
    out.extend_from_slice(&value[copied..]);
    map.copy(copied, value.len() - copied);
    debug_assert_eq!(out.len(), map.produced());
    Some((out, map.finish()))
}

/// The first `=?` in `hay`. A `memchr` walk, not `memmem`: a searcher
/// built per header field cost more than the search.
pub fn find_word_start(hay: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'=', hay).find(|&i| hay.get(i + 1) == Some(&b'?'))
}

/// Longest encoded-word text looked for.
const MAX_WORD: usize = 1024;

/// The parts of one encoded word.
struct Word {
    charset: Range<usize>,
    base64: bool,
    text: Range<usize>,
    end: usize,
}

/// Parses `=?charset?X?text?=` at `at`; the charset may carry an RFC 2231
/// language (`us-ascii*en`), which is dropped.
fn parse_word(v: &[u8], at: usize) -> Option<Word> {
    let cs = at + 2;
    let q1 = cs + v[cs..].iter().take(76).position(|&b| b == b'?')?;
    let name_end = v[cs..q1].iter().position(|&b| b == b'*').map_or(q1, |n| cs + n);
    if name_end == cs || v[cs..q1].iter().any(|&b| b <= b' ' || b >= 0x7f) {
        return None;
    }
    let base64 = match v.get(q1 + 1)? {
        b'B' | b'b' => true,
        b'Q' | b'q' => false,
        _ => return None,
    };
    if v.get(q1 + 2) != Some(&b'?') {
        return None;
    }
    let t = q1 + 3;
    // RFC 2047 caps a word at 75 bytes; mailers overshoot, but a bound
    // keeps a value full of unterminated `=?` openers linear.
    let q2 = t + v[t..].iter().take(MAX_WORD).position(|&b| matches!(b, b'?' | b' ' | b'\t'))?;
    if v[q2] != b'?' || v.get(q2 + 1) != Some(&b'=') {
        return None;
    }
    Some(Word { charset: cs..name_end, base64, text: t..q2, end: q2 + 2 })
}

/// The bytes an encoded word stands for, each with its offset in `v`.
fn word_payload(v: &[u8], w: &Word) -> (Vec<u8>, Vec<usize>) {
    let text = &v[w.text.clone()];
    if w.base64 {
        let (bytes, map) = base64::decode(text);
        let srcs = (0..bytes.len()).map(|k| w.text.start + map.map(k)).collect();
        return (bytes, srcs);
    }
    let mut bytes = Vec::with_capacity(text.len());
    let mut srcs = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let src = w.text.start + i;
        match text[i] {
            b'_' => bytes.push(b' '),
            b'=' => match hex_pair(&text[i + 1..]) {
                Some(b) => {
                    bytes.push(b);
                    i += 2;
                }
                None => bytes.push(b'='),
            },
            b => bytes.push(b),
        }
        srcs.push(src);
        i += 1;
    }
    (bytes, srcs)
}

fn hex_pair(s: &[u8]) -> Option<u8> {
    let d = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    Some(d(*s.first()?)? << 4 | d(*s.get(1)?)?)
}

/// A `Content-Type` value: the lower-case `type/subtype` and parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContentType {
    /// `type/subtype` in lower case; empty when absent or invalid, which
    /// means the default of the context (`text/plain`, or
    /// `message/rfc822` inside `multipart/digest`).
    pub mime: String,
    /// Parameters in order: lower-case name, unquoted value.
    pub params: Vec<(String, Vec<u8>)>,
}

impl ContentType {
    /// Parses an unfolded `Content-Type` value.
    pub fn parse(value: &[u8]) -> ContentType {
        let mut items = split_params(value).into_iter();
        let first = items.next().unwrap_or_default();
        let mime = String::from_utf8_lossy(first.trim_ascii()).to_ascii_lowercase();
        let mime = if mime.contains('/') && !mime.contains(char::is_whitespace) {
            mime
        } else {
            String::new()
        };
        let mut params = Vec::new();
        for item in items {
            let Some(eq) = item.iter().position(|&b| b == b'=') else { continue };
            let name = String::from_utf8_lossy(item[..eq].trim_ascii()).to_ascii_lowercase();
            params.push((name, unquote(item[eq + 1..].trim_ascii())));
        }
        ContentType { mime, params }
    }

    /// The value of parameter `name`, joining RFC 2231 continuations
    /// (`name*0`, `name*1*`, ...) and undoing their `%XX` escapes.
    pub fn param(&self, name: &str) -> Option<Vec<u8>> {
        if let Some((_, v)) = self.params.iter().find(|(n, _)| n == name) {
            return Some(v.clone());
        }
        let mut out = Vec::new();
        let mut found = false;
        for k in 0.. {
            let plain = format!("{name}*{k}");
            let extended = format!("{plain}*");
            let Some((n, v)) = self.params.iter().find(|(n, _)| *n == plain || *n == extended)
            else {
                break;
            };
            found = true;
            if n.ends_with('*') {
                out.extend(percent_decode(strip_2231_charset(v, k == 0)));
            } else {
                out.extend_from_slice(v);
            }
        }
        if !found {
            let (_, v) = self.params.iter().find(|(n, _)| *n == format!("{name}*"))?;
            return Some(percent_decode(strip_2231_charset(v, true)));
        }
        Some(out)
    }
}

/// Splits a header value at `;` outside quoted strings.
fn split_params(value: &[u8]) -> Vec<Vec<u8>> {
    let mut items = vec![Vec::new()];
    let mut quoted = false;
    let mut escaped = false;
    for &b in value {
        let cur = items.last_mut().expect("never empty");
        if escaped {
            escaped = false;
        } else if quoted && b == b'\\' {
            escaped = true;
        } else if b == b'"' {
            quoted = !quoted;
        } else if b == b';' && !quoted {
            items.push(Vec::new());
            continue;
        }
        cur.push(b);
    }
    items
}

/// A parameter value without its quotes and backslash escapes.
fn unquote(v: &[u8]) -> Vec<u8> {
    let Some(inner) = v.strip_prefix(b"\"") else { return v.to_vec() };
    let inner = inner.strip_suffix(b"\"").unwrap_or(inner);
    let mut out = Vec::with_capacity(inner.len());
    let mut escaped = false;
    for &b in inner {
        if !escaped && b == b'\\' {
            escaped = true;
            continue;
        }
        escaped = false;
        out.push(b);
    }
    out
}

/// Drops the `charset'language'` prefix of the first RFC 2231 segment.
fn strip_2231_charset(v: &[u8], first: bool) -> &[u8] {
    if !first {
        return v;
    }
    let mut quotes = v.iter().enumerate().filter(|&(_, &b)| b == b'\'').map(|(i, _)| i);
    match (quotes.next(), quotes.next()) {
        (Some(_), Some(second)) => &v[second + 1..],
        _ => v,
    }
}

fn percent_decode(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0;
    while i < v.len() {
        if v[i] == b'%'
            && let Some(b) = hex_pair(&v[i + 1..])
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(v[i]);
        i += 1;
    }
    out
}

/// The message id in a `Message-ID` value: the text inside the first
/// `<...>`, or the trimmed value when there are no brackets (old news
/// software wrote bare ids).
pub fn message_id(raw: &[u8]) -> Option<String> {
    let (value, _) = unfold(raw);
    let v = value.trim_ascii();
    let id = match (v.iter().position(|&b| b == b'<'), v.iter().position(|&b| b == b'>')) {
        (Some(a), Some(b)) if a < b => &v[a + 1..b],
        _ => v,
    };
    let id = id.trim_ascii();
    (!id.is_empty()).then(|| String::from_utf8_lossy(id).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_end_at_a_blank_line_or_a_stray_line() {
        let buf = b"Subject: a\r\n b\r\nTo: x\r\n\r\nbody";
        let block = parse_block(buf);
        assert_eq!(block.fields.len(), 2);
        assert_eq!(&buf[block.fields[0].value.clone()], b" a\r\n b");
        assert_eq!(&buf[block.body_start..], b"body");
        assert!(!block.stray);
        let block = parse_block(b"not a header line\nSubject: x\n\n");
        assert!(block.stray && block.fields.is_empty() && block.body_start == 0);
        let block = parse_block(b" orphan!continuation\nSubject: x\n\nbody");
        assert_eq!((block.fields.len(), block.body_start), (1, 33));
    }

    #[test]
    fn unfolding_keeps_a_map() {
        let (v, map) = unfold(b" <http://a.example/\r\n  b>");
        assert_eq!(&*v, b" <http://a.example/  b>");
        let map = map.unwrap();
        assert_eq!(map.map(19), 21);
    }

    #[test]
    fn encoded_words_decode_with_their_map() {
        let v = b"=?ISO-8859-1?Q?caf=E9_au?= =?utf-8?B?bGFpdA==?= x";
        let (out, map) = decode_words(v).unwrap();
        assert_eq!(out, "café aulait x".as_bytes());
        // `é` (two UTF-8 bytes) maps to the `=` of `=E9`.
        assert_eq!((map.map(3), map.map(4)), (18, 18));
        // The blank between the two words is gone; `l` is the `b` of bGFp.
        assert_eq!(map.map(8), 37);
        assert!(decode_words(b"no words =? here").is_none());
    }

    #[test]
    fn content_type_parameters() {
        let ct = ContentType::parse(b"Multipart/Mixed; boundary=\"a;b\\\"c\"; charset=x");
        assert_eq!(ct.mime, "multipart/mixed");
        assert_eq!(ct.param("boundary").unwrap(), b"a;b\"c");
        let ct = ContentType::parse(b"text/plain; title*0*=us-ascii'en'a%20b; title*1=c");
        assert_eq!(ct.param("title").unwrap(), b"a bc");
        assert_eq!(ContentType::parse(b"text").mime, "");
    }

    #[test]
    fn message_ids() {
        assert_eq!(message_id(b" <a@b.example>").as_deref(), Some("a@b.example"));
        assert_eq!(message_id(b"\n bare@id").as_deref(), Some("bare@id"));
        assert_eq!(message_id(b"  "), None);
    }
}
