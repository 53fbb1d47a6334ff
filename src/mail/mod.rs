//! Mail and news archives: mbox files, single messages (Maildir files,
//! `.eml`), Usenet articles and rnews batches, with every URL traced back
//! to its message, its header or MIME part, and its place in the file.
//!
//! Mail text is rarely what the user reads: mbox quotes `From ` lines,
//! headers are folded and carry RFC 2047 encoded words, bodies are
//! quoted-printable (which cuts long URLs with soft line breaks and turns
//! each `=` into `=3D`) or base64, in Latin-1 or any other charset, and
//! nested in multiparts. [`extract_mail`] undoes all of that before the
//! scanner reads a part, so a URL cut by a soft break is found whole, and
//! then maps every position back through each decoding step (see
//! `crate::posmap`), so that reports point at the bytes of the file on disk.
//!
//! ```
//! use urlsift::extract::{Options, Sifter};
//! use urlsift::mail::{InputKind, detect, extract_mail};
//!
//! let mbox = b"From a@example.org Mon Jan  2 10:00:00 1995\n\
//! Message-ID: <1@example.org>\n\
//! Content-Transfer-Encoding: quoted-printable\n\
//! \n\
//! See http://www.example.org/a/very/long/pa=\n\
//! th?x=3D1 today.\n";
//! assert_eq!(detect(mbox), InputKind::Mbox);
//! let sifter = Sifter::new(Options::default());
//! let mut urls = Vec::new();
//! extract_mail(&sifter, &mbox[..], InputKind::Mbox, |u| urls.push(u), |_| {}).unwrap();
//! assert_eq!(urls[0].url.url, b"http://www.example.org/a/very/long/path?x=1");
//! assert_eq!(urls[0].message_id.as_deref(), Some("1@example.org"));
//! assert_eq!(urls[0].part.as_deref(), Some("1"));
//! // Positions are in the file: line 5, column 5 ...
//! assert_eq!((urls[0].url.start.line, urls[0].url.start.column), (5, 5));
//! // ... and the last byte, `1`, is after the `=3D` on line 6.
//! assert_eq!((urls[0].url.end.line, urls[0].url.end.column), (6, 8));
//! ```
//!
//! A big file can be read by several threads at once: [`message_cuts`]
//! finds where it can be cut (only where the one-pass reader starts a
//! message), [`extract_mail_part`] reads one part, and [`MailUrl::shift`]
//! and [`MailProblem::shift`] put a part's results back in place; the
//! joined parts give exactly what [`extract_mail`] gives.
//!
//! Every decoder here (MIME, quoted-printable, base64, RFC 2047, the
//! mbox splitter) is hand-written rather than taken from a mail crate:
//! those return decoded text and nothing else, and urlsift needs the
//! position map from each decoded byte back to the file.

use std::io::{self, Read};
use std::sync::LazyLock;

use memchr::memmem;

use crate::extract::{Extracted, Scratch, Sifter};

mod base64;
mod big;
mod charset;
mod header;
mod local;
pub(crate) use local::percent_decode;
mod mime;
mod part;
mod qp;
#[cfg(test)]
mod spill_tests;

/// For the mail modules' tests: a reader that hands out at most `.1`
/// bytes at a time, as a pipe does, so that separators and escapes fall
/// across reads.
#[cfg(test)]
pub(crate) struct Trickle<'a>(pub &'a [u8], pub usize);

#[cfg(test)]
impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.1.min(self.0.len()).min(out.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}
mod split;
mod stream;

use crate::posmap::{Layer, MapBuilder, PosMap, Trace};
pub use big::{BIG, big_message_min, extract_big_message};
pub use local::{LocalIndex, resolve_local};
pub use part::{PartStats, extract_mail_part, extract_mail_part_with, message_cuts};
use split::{Mode, Splitter};

/// What an input holds, decided from its first bytes by [`detect`] (or
/// forced by the user).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// Plain text: scanned as it is.
    Text,
    /// An mbox file: messages after `From ` separator lines (mboxo and
    /// mboxrd quoting both undone).
    Mbox,
    /// One RFC 822/MIME message, such as an `.eml` or a Maildir file.
    Message,
    /// One Usenet article (RFC 1036 headers such as `Newsgroups`, `Path`)
    /// or an rnews batch (`#! rnews <bytes>` before each article). Read as
    /// messages are.
    News,
}

impl InputKind {
    /// The name used on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            InputKind::Text => "text",
            InputKind::Mbox => "mbox",
            InputKind::Message => "mail",
            InputKind::News => "news",
        }
    }
}

/// How many bytes [`detect`] wants to see.
pub const DETECT_LEN: usize = 8 << 10;

/// Header names that mark a message or an article. Prose rarely opens with
/// two of them in a row, which is what [`detect`] asks for.
const KNOWN_HEADERS: &[&str] = &[
    "received",
    "return-path",
    "from",
    "to",
    "cc",
    "bcc",
    "sender",
    "reply-to",
    "message-id",
    "date",
    "subject",
    "mime-version",
    "content-type",
    "content-transfer-encoding",
    "in-reply-to",
    "references",
    "delivered-to",
    "x-mailer",
    "user-agent",
    "organization",
    "lines",
    "keywords",
    "summary",
    "status",
    "newsgroups",
    "path",
    "followup-to",
    "distribution",
    "xref",
    "approved",
    "expires",
    "nntp-posting-host",
    "article-i.d.",
];

/// Headers that only news articles carry.
const NEWS_HEADERS: &[&str] = &["newsgroups", "path", "xref", "nntp-posting-host", "article-i.d."];

/// Decides what `head` (up to the first [`DETECT_LEN`] bytes of an input)
/// holds:
///
/// - an mbox when the first line starts with `From ` and the second is a
///   header field (an envelope alone could be prose: "From 10:00 on...");
/// - news when it opens with `#! rnews`, or with a header block naming
///   `Newsgroups`, `Path`, `Xref`, `NNTP-Posting-Host` or `Article-I.D.`;
/// - a message when it opens with a header block (fields and their
///   continuation lines up to a blank line, or to the end of `head`) that
///   holds at least two known header names (`Received`, `From`,
///   `Subject`, `Date`, `Message-ID`, `MIME-Version`, ...), so that prose
///   opening with "Note: ..." stays text;
/// - text otherwise.
pub fn detect(head: &[u8]) -> InputKind {
    let head = &head[..head.len().min(DETECT_LEN)];
    if head.starts_with(b"#! rnews ") {
        return InputKind::News;
    }
    let (_, next) = header::line_at(head, 0);
    if head.starts_with(b"From ") {
        let (end, _) = header::line_at(head, next);
        let second = &head[next..end];
        return if header::field_name(second).is_some() {
            InputKind::Mbox
        } else {
            InputKind::Text
        };
    }
    let (mut known, mut news) = (0, false);
    let mut pos = 0;
    while pos < head.len() {
        let (end, next) = header::line_at(head, pos);
        let line = &head[pos..end];
        if line.is_empty() {
            break;
        }
        // Continuation lines, even before the first field (see
        // `header::parse_block`).
        if matches!(line[0], b' ' | b'\t') {
            pos = next;
            continue;
        }
        let Some(n) = header::field_name(line) else {
            // A line that is no field before the blank line: not a header
            // block (unless `head` was cut in the middle of this line).
            if next < head.len() || head.len() < DETECT_LEN {
                return InputKind::Text;
            }
            break;
        };
        let name = &line[..n];
        let is = |list: &[&str]| list.iter().any(|k| name.eq_ignore_ascii_case(k.as_bytes()));
        known += usize::from(is(KNOWN_HEADERS));
        news |= is(NEWS_HEADERS);
        pos = next;
    }
    match (known >= 2, news) {
        (true, true) => InputKind::News,
        (true, false) => InputKind::Message,
        _ => InputKind::Text,
    }
}

/// Reads the head of `reader`, detects its kind, and gives back a reader
/// that yields the whole input again (head included).
pub fn detect_reader<R: Read>(mut reader: R) -> io::Result<(InputKind, impl Read)> {
    let mut head = Vec::with_capacity(DETECT_LEN);
    (&mut reader).take(DETECT_LEN as u64).read_to_end(&mut head)?;
    let kind = detect(&head);
    Ok((kind, io::Cursor::new(head).chain(reader)))
}

/// One URL found in a mail or news input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailUrl {
    /// The URL, with `start`, `end` and every finding's positions in the
    /// ORIGINAL file bytes (offset, 1-based line, 1-based byte column),
    /// whatever decoding it took to find it. An excerpt, when asked for,
    /// is the file's line, not the decoded one.
    pub url: Extracted,
    /// 0-based index of its message within the file (0 for text input).
    pub message_index: usize,
    /// The message's `Message-ID` without its angle brackets (for a URL in
    /// an attached message, still the id of the message in the file).
    pub message_id: Option<String>,
    /// The header field's name, as written, for URLs found in headers;
    /// `None` in bodies.
    pub header: Option<String>,
    /// The MIME part path, IMAP style: `1` for a body that is not a
    /// multipart, `1`, `2`, `2.1`, ... for parts of multiparts, `P.1`, ...
    /// inside a message attached as part `P`. `None` for the top-level
    /// message's own header fields and for text outside every part (the
    /// preamble and epilogue of a top-level multipart). A URL in the header
    /// of a part has both `header` and `part`.
    pub part: Option<String>,
}

/// Counts for one mail or news input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MailStats {
    /// Messages read, malformed ones included.
    pub messages: u64,
    /// Messages skipped as malformed (reported through `problem`).
    pub malformed: u64,
    /// Text parts scanned (a body that is not a multipart counts as one).
    pub text_parts: u64,
    /// Non-text parts skipped (images, archives, signatures...).
    pub skipped_parts: u64,
    /// Parts decoded from quoted-printable.
    pub decoded_qp: u64,
    /// Parts decoded from base64.
    pub decoded_base64: u64,
    /// Bytes read.
    pub bytes: u64,
    /// URLs reported.
    pub urls: u64,
}

impl std::ops::AddAssign for MailStats {
    fn add_assign(&mut self, o: MailStats) {
        self.messages += o.messages;
        self.malformed += o.malformed;
        self.text_parts += o.text_parts;
        self.skipped_parts += o.skipped_parts;
        self.decoded_qp += o.decoded_qp;
        self.decoded_base64 += o.decoded_base64;
        self.bytes += o.bytes;
        self.urls += o.urls;
    }
}

/// Something wrong with a message: malformed ones are skipped, the rest of
/// the input is still read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailProblem {
    /// 0-based index of the message in the file.
    pub message_index: usize,
    /// 1-based line in the file where the problem was seen.
    pub line: u64,
    /// What is wrong.
    pub reason: String,
    /// Part of the input was not read because of it (a message or a MIME
    /// subtree skipped), as opposed to read another way (a multipart
    /// without its boundary, read as text).
    pub skipped: bool,
}

/// Streams `reader` message by message and calls `sink` for every URL, in
/// order of position. Memory holds one message at a time (plus a read
/// chunk), never the whole mbox, and a message of [`big_message_min`]
/// bytes or more is not held either: it is copied to an unlinked
/// temporary file while it is read, then read from there as
/// [`extract_big_message`] reads a file (see [`extract_mail_with`] to read
/// it from the input file instead). `kind` [`InputKind::Text`] scans the
/// input as plain text (every URL in message 0, no header or part).
///
/// A message without a header block is reported to `problem` and skipped;
/// so is the body of a multipart nested too deep. A multipart whose
/// boundary is missing is reported and read as text, so nothing is lost.
pub fn extract_mail<R: Read>(
    sifter: &Sifter,
    reader: R,
    kind: InputKind,
    sink: impl FnMut(MailUrl),
    problem: impl FnMut(MailProblem),
) -> io::Result<MailStats> {
    extract_mail_with(sifter, reader, kind, None, sink, problem)
}

/// [`extract_mail`] of `reader`, which reads the regular file `source`
/// from its first byte: a big message is read again from `source` with
/// positioned reads, not copied.
pub fn extract_mail_with<R: Read>(
    sifter: &Sifter,
    reader: R,
    kind: InputKind,
    source: Option<std::fs::File>,
    mut sink: impl FnMut(MailUrl),
    mut problem: impl FnMut(MailProblem),
) -> io::Result<MailStats> {
    if kind == InputKind::Text {
        let s = sifter.extract_reader(reader, &mut Scratch::default(), |url| {
            sink(MailUrl { url, message_index: 0, message_id: None, header: None, part: None })
        })?;
        return Ok(MailStats { bytes: s.bytes, urls: s.urls, ..MailStats::default() });
    }
    let mut split = Splitter::new(reader, Mode::of(kind)).spill(big_message_min(), source);
    let mut stats = messages(sifter, &mut split, kind, &mut sink, &mut problem)?;
    stats.bytes = split.bytes_read();
    Ok(stats)
}

/// Reads every message `split` yields, numbering them from 0.
fn messages<R: Read>(
    sifter: &Sifter,
    split: &mut Splitter<R>,
    kind: InputKind,
    sink: &mut dyn FnMut(MailUrl),
    problem: &mut dyn FnMut(MailProblem),
) -> io::Result<MailStats> {
    let mut stats = MailStats::default();
    let mbox = kind == InputKind::Mbox;
    let mut index = 0;
    let big = split.spill_min();
    while let Some(raw) = split.next_message()? {
        stats.messages += 1;
        match raw.spilled {
            Some(spill) => {
                big::spilled(sifter, &raw, spill, index, mbox, big, &mut stats, sink, problem)?
            }
            None => message(sifter, &raw, index, mbox, &mut stats, sink, problem),
        }
        index += 1;
    }
    Ok(stats)
}

/// Reads one message.
fn message(
    sifter: &Sifter,
    raw: &split::RawMessage<'_>,
    index: usize,
    mbox: bool,
    stats: &mut MailStats,
    sink: &mut dyn FnMut(MailUrl),
    problem: &mut dyn FnMut(MailProblem),
) {
    let content = &raw.bytes[raw.envelope..];
    let t0 = Trace::ROOT;
    let t1 = t0.push(Layer::Shift(raw.envelope));
    let unquoted = if mbox { unquote_from(content) } else { None };
    let (buf, trace) = match &unquoted {
        Some((bytes, map)) => (bytes.as_slice(), t1.push(Layer::Map(map))),
        None => (content, t1),
    };
    // Some mboxes repeat the envelope (`From ...`, then a quoted
    // `>From ...` line that unquoting turned back into `From `): skip such
    // lines before the header block.
    let mut skip = 0;
    while buf[skip..].starts_with(b"From ") {
        let (end, next) = header::line_at(buf, skip);
        if header::field_name(&buf[skip..end]).is_some() {
            break;
        }
        skip = next;
    }
    let shifted = trace.push(Layer::Shift(skip));
    let (buf, trace) = if skip > 0 { (&buf[skip..], shifted) } else { (buf, trace) };
    let head = header::parse_block(buf);
    if head.fields.is_empty() {
        stats.malformed += 1;
        let line = raw.line + u64::from(raw.envelope > 0);
        let reason = if buf.trim_ascii().is_empty() {
            "empty message: no header block".to_string()
        } else {
            "no header block (the message does not open with `Name: value` fields): skipped"
                .to_string()
        };
        problem(MailProblem { message_index: index, line, reason, skipped: true });
        return;
    }
    let message_id = head.get(buf, "message-id").and_then(header::message_id);
    let mut walker = mime::Walker {
        sifter,
        original: raw.bytes,
        base: raw.offset,
        first_line: raw.line,
        first_column: raw.column,
        index,
        message_id,
        stats,
        sink,
        problem,
        lines: None,
    };
    let role = mime::Role::Message { prefix: String::new() };
    walker.entity(buf, &trace, &head, &role, false, 0);
}

/// Undoes mbox `From ` quoting: one `>` is removed from every line that
/// matches `^>+From `. That is the mboxrd rule, and for the only quoted
/// form mboxo writes (`>From `) it is the mboxo rule too; an mboxo
/// `>>From ` line (which was `>>From ` in the message) loses one `>`,
/// which no URL can notice. `None` when no line is quoted.
fn unquote_from(content: &[u8]) -> Option<(Vec<u8>, PosMap)> {
    let hits: Vec<usize> = quoted_from_lines(content).collect();
    if hits.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(content.len());
    let mut map = MapBuilder::new();
    let mut copied = 0;
    // A line full of `>From ` gives a hit per occurrence, all at its start.
    for start in hits {
        if start < copied {
            continue;
        }
        out.extend_from_slice(&content[copied..start]);
        map.copy(copied, start - copied);
        copied = start + 1;
    }
    out.extend_from_slice(&content[copied..]);
    map.copy(copied, content.len() - copied);
    Some((out, map.finish()))
}

/// The starts of the lines of `content` that match `^>+From ` (the first
/// `>` of each is the quote), in order; a line may come more than once.
fn quoted_from_lines(content: &[u8]) -> impl Iterator<Item = usize> + '_ {
    static FINDER: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b">From "));
    // A hit counts when only `>`s stand between it and its line start.
    // Walking back over those (not to the previous LF) keeps a long line
    // full of `>From ` linear.
    FINDER.find_iter(content).filter_map(|at| {
        let start = at - content[..at].iter().rev().take_while(|&&b| b == b'>').count();
        (start == 0 || content[start - 1] == b'\n').then_some(start)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert_eq!(detect(b"From a@b Thu Jan  1 00:00:00 1970\nSubject: x\n"), InputKind::Mbox);
        assert_eq!(detect(b"From 10:00 on, we\nwill meet.\n"), InputKind::Text);
        assert_eq!(detect(b"Return-Path: <a@b>\nReceived: x\n\tmore\n\nbody"), InputKind::Message);
        assert_eq!(detect(b"Path: a!b\nFrom: c\nNewsgroups: comp.x\n\n"), InputKind::News);
        assert_eq!(detect(b"#! rnews 120\nPath: a\n"), InputKind::News);
        assert_eq!(detect(b"Note: one\nSubject: two\n\n"), InputKind::Text);
        assert_eq!(detect(b"Subject: a\nhello there\nDate: x\n\n"), InputKind::Text);
        assert_eq!(detect(b"Plain prose: with a colon.\n"), InputKind::Text);
        assert_eq!(detect(b" a!b!c\nFrom: x\nSubject: y\n\n"), InputKind::Message);
        assert_eq!(detect(b"   indented prose\nand more\n"), InputKind::Text);
    }

    #[test]
    fn from_quoting_is_undone_with_a_map() {
        let (out, map) = unquote_from(b">From a\n>>From b\n> From c\nx>From d").unwrap();
        assert_eq!(out, b"From a\n>From b\n> From c\nx>From d");
        assert_eq!(map.map(0), 1);
        assert_eq!(map.map(7), 9);
        assert!(unquote_from(b"> From quoted reply").is_none());
    }
}
