//! The MIME walk over one message (RFC 2045, 2046): headers, then the
//! body, descending into multiparts and attached messages, decoding each
//! text part's transfer encoding and charset, scanning what it decodes,
//! and placing every URL back in the original file.
//!
//! Hand-written, with no mail-parsing crate, because every decoding step
//! must keep a [`PosMap`] back to the bytes it read, and those crates keep
//! none. The walk borrows: parts are slices of their parent, and the
//! [`Trace`] of each lives on the stack of the recursion.
//!
//! Part paths follow IMAP (RFC 3501 section 6.4.5): the parts of a
//! multipart are `1`, `2`, ... and nest as `2.1`; a body that is not a
//! multipart is part `1` of its message; the parts of a message attached
//! as part `P` are `P.1`, `P.2`, ... (or `P.1` alone when it is not
//! multipart).

use std::cell::RefCell;

use crate::extract::{Extracted, Scratch, Sifter};

use super::header::{self, Block, ContentType};
use super::{MailProblem, MailStats, MailUrl, base64, charset, qp, stream};
use crate::posmap::{Layer, LineIndex, PosMap, SlidingMap, Trace, relocate};

/// The longest header field value read, in bytes: real ones (long
/// `References`, DKIM signatures) stay far below it.
const MAX_HEADER: usize = 256 << 10;

/// Multiparts nested deeper than this are not walked: no real mail needs
/// it, and it bounds the recursion on hostile input.
pub(super) const MAX_DEPTH: usize = 32;

/// Text parts of at least this many bytes are decoded and scanned as a
/// stream; smaller ones whole, which costs less per part (a mailbox holds
/// many small parts) and is bounded by this size.
pub(super) const STREAM_MIN: usize = 1 << 20;

/// Header fields that are never scanned: their `<...>` are message ids,
/// not URLs, or their values are signatures and hashes.
const UNSCANNED: &[&str] = &[
    "message-id",
    "references",
    "in-reply-to",
    "content-id",
    "resent-message-id",
    "supersedes",
    "dkim-signature",
    "x-google-dkim-signature",
    "domainkey-signature",
    "arc-seal",
    "arc-message-signature",
];

/// Where an entity sits, which decides the part paths of what it holds.
#[derive(Clone, Debug)]
pub enum Role {
    /// A whole message: the top-level one (`prefix` empty) or one
    /// attached as part `prefix`.
    Message {
        /// The path of the attaching part; empty at the top.
        prefix: String,
    },
    /// A MIME part with this path.
    Part {
        /// The part path.
        path: String,
    },
}

impl Role {
    /// Part recorded for URLs in this entity's own header fields.
    pub(super) fn header_part(&self) -> Option<String> {
        match self {
            Role::Message { prefix } if prefix.is_empty() => None,
            Role::Message { prefix } | Role::Part { path: prefix } => Some(prefix.clone()),
        }
    }

    /// Path of the body when it is not a multipart.
    pub(super) fn leaf(&self) -> String {
        match self {
            Role::Message { prefix } => child(prefix, 1),
            Role::Part { path } => path.clone(),
        }
    }

    /// Prefix of the parts of a multipart body.
    pub(super) fn parts_prefix(&self) -> &str {
        match self {
            Role::Message { prefix } => prefix,
            Role::Part { path } => path,
        }
    }
}

pub(super) fn child(prefix: &str, n: usize) -> String {
    if prefix.is_empty() { n.to_string() } else { format!("{prefix}.{n}") }
}

/// Walks one message and reports what it finds.
pub struct Walker<'a> {
    /// The engine.
    pub sifter: &'a Sifter,
    /// The message's bytes in the file, envelope line included.
    pub original: &'a [u8],
    /// File offset of `original[0]`.
    pub base: u64,
    /// Line number of `original[0]`.
    pub first_line: u64,
    /// Column of `original[0]`.
    pub first_column: u64,
    /// 0-based index of the message in its file.
    pub index: usize,
    /// The message's `Message-ID`, without brackets.
    pub message_id: Option<String>,
    /// Counters to update.
    pub stats: &'a mut MailStats,
    /// Where URLs go.
    pub sink: &'a mut dyn FnMut(MailUrl),
    /// Where problems go.
    pub problem: &'a mut dyn FnMut(MailProblem),
    /// Built on the first URL or problem: most messages need none.
    pub lines: Option<LineIndex>,
}

impl Walker<'_> {
    /// Walks an entity (a message or a part) held in `buf`, whose header
    /// block is `head`.
    pub fn entity(
        &mut self,
        buf: &[u8],
        trace: &Trace<'_>,
        head: &Block,
        role: &Role,
        digest: bool,
        depth: usize,
    ) {
        self.fields(buf, trace, head, role);
        let body = &buf[head.body_start..];
        let body_trace = trace.push(Layer::Shift(head.body_start));
        let (ct, cte) = content(buf, head);
        let mime = mime_of(&ct, digest);
        if depth > MAX_DEPTH {
            self.report(
                &body_trace,
                0,
                format!("MIME nesting deeper than {MAX_DEPTH}: skipped"),
                true,
            );
            return;
        }
        if let Some(sub) = mime.strip_prefix("multipart/") {
            match ct.param("boundary").filter(|b| !b.is_empty()) {
                Some(boundary) => {
                    let prefix = role.parts_prefix().to_string();
                    let digest = sub == "digest";
                    self.multipart(body, &body_trace, &boundary, &prefix, digest, depth);
                }
                None => {
                    self.report(
                        &body_trace,
                        0,
                        "multipart without a boundary: read as text".into(),
                        false,
                    );
                    self.text(body, &body_trace, &cte, None, &role.leaf());
                }
            }
        } else if matches!(mime, "message/rfc822" | "message/global" | "message/news") {
            self.attached(body, &body_trace, &cte, &role.leaf(), depth);
        } else if mime.starts_with("text/") || mime.starts_with("message/") {
            // Other message/* types (delivery-status, disposition-
            // notification, partial) are header-like text.
            let cs = ct.param("charset");
            self.text(body, &body_trace, &cte, cs.as_deref(), &role.leaf());
        } else {
            self.stats.skipped_parts += 1;
        }
    }

    /// Scans the header fields of an entity.
    pub(super) fn fields(&mut self, buf: &[u8], trace: &Trace<'_>, head: &Block, role: &Role) {
        let header_part = role.header_part();
        for field in &head.fields {
            self.scan_field(buf, trace, field, header_part.as_deref());
        }
    }

    /// A multipart body: parts between `--boundary` lines. The preamble and
    /// epilogue are read as plain text too: list software appends footers
    /// after the closing boundary, and nothing there should be lost.
    fn multipart(
        &mut self,
        body: &[u8],
        trace: &Trace<'_>,
        boundary: &[u8],
        prefix: &str,
        digest: bool,
        depth: usize,
    ) {
        let split = split_multipart(body, boundary);
        if split.parts.is_empty() && !split.closed {
            if body.trim_ascii().is_empty() {
                return;
            }
            self.report(
                trace,
                0,
                "multipart boundary never found: body read as text".into(),
                false,
            );
            self.text(body, trace, "", None, &child(prefix, 1));
            return;
        }
        let outside = (!prefix.is_empty()).then_some(prefix);
        self.plain(body, trace, split.preamble.clone(), outside);
        for (n, range) in split.parts.iter().enumerate() {
            let part = &body[range.clone()];
            let part_trace = trace.push(Layer::Shift(range.start));
            let mut head = header::parse_block(part);
            if head.stray && head.fields.is_empty() {
                // No header block: the part is all body, with the defaults.
                head.body_start = 0;
            }
            let role = Role::Part { path: child(prefix, n + 1) };
            self.entity(part, &part_trace, &head, &role, digest, depth + 1);
        }
        if let Some(epilogue) = split.epilogue.clone() {
            self.plain(body, trace, epilogue, outside);
        }
    }

    /// Text outside every part, scanned as it is.
    pub(super) fn plain(
        &mut self,
        body: &[u8],
        trace: &Trace<'_>,
        range: std::ops::Range<usize>,
        part: Option<&str>,
    ) {
        let text = &body[range.clone()];
        if memchr::memchr(b':', text).is_none() {
            return;
        }
        let t = trace.push(Layer::Shift(range.start));
        let found = self.sifter.extract(text);
        self.emit(found, &t, None, part);
    }

    /// A message attached as a part (`message/rfc822`).
    fn attached(&mut self, body: &[u8], trace: &Trace<'_>, cte: &str, path: &str, depth: usize) {
        let decoded = self.transfer_decode(body, cte);
        let (inner, map) = match &decoded {
            Some((bytes, map)) => (bytes.as_slice(), Some(map)),
            None => (body, None),
        };
        let t = match map {
            Some(m) => trace.push(Layer::Map(m)),
            None => *trace,
        };
        let mut head = header::parse_block(inner);
        if head.stray && head.fields.is_empty() {
            head.body_start = 0;
        }
        let role = Role::Message { prefix: path.to_string() };
        self.entity(inner, &t, &head, &role, false, depth + 1);
    }

    /// A text part: undo the transfer encoding, then the charset, then scan
    /// the whole decoded text at once (so that wrappers spanning lines,
    /// quoted ones included, are rejoined by the scanner).
    fn text(
        &mut self,
        body: &[u8],
        trace: &Trace<'_>,
        cte: &str,
        charset: Option<&[u8]>,
        path: &str,
    ) {
        self.stats.text_parts += 1;
        let single_byte =
            charset.and_then(charset::encoding_for).is_none_or(|e| e.is_single_byte());
        if body.len() >= STREAM_MIN && single_byte {
            self.text_streamed(body, trace, cte, charset, path);
        } else {
            self.text_whole(body, trace, cte, charset, path);
        }
    }

    /// A text part decoded whole, then scanned at once.
    fn text_whole(
        &mut self,
        body: &[u8],
        trace: &Trace<'_>,
        cte: &str,
        charset: Option<&[u8]>,
        path: &str,
    ) {
        let decoded = self.transfer_decode(body, cte);
        let (text, map) = match &decoded {
            Some((bytes, map)) => (bytes.as_slice(), Some(map)),
            None => (body, None),
        };
        let t1 = match map {
            Some(m) => trace.push(Layer::Map(m)),
            None => *trace,
        };
        let recoded = charset.and_then(|cs| charset::decode(cs, text));
        let (text, t2) = match &recoded {
            Some((bytes, map)) => (bytes.as_slice(), t1.push(Layer::Map(map))),
            None => (text, t1),
        };
        if memchr::memchr(b':', text).is_none() {
            return;
        }
        let found = self.sifter.extract(text);
        self.emit(found, &t2, None, Some(path));
    }

    /// A big text part, decoded and scanned as a stream ([`stream`]): what
    /// [`Walker::text`] finds, in memory bounded by the scanner's window
    /// instead of several times the part's size.
    fn text_streamed(
        &mut self,
        body: &[u8],
        trace: &Trace<'_>,
        cte: &str,
        charset: Option<&[u8]>,
        path: &str,
    ) {
        let transfer = stream::Transfer::of(cte, self.stats);
        let map = RefCell::new(SlidingMap::default());
        let reader = stream::Decoded::new(body, transfer, charset, &map);
        let sifter = self.sifter;
        let mut scratch = Scratch::default();
        let read = sifter.extract_reader(reader, &mut scratch, |url| {
            let start = url.start.offset as usize;
            {
                let m = map.borrow();
                self.place(url, &|o| trace.resolve(m.map(o)), None, Some(path));
            }
            // URLs come in order: nothing before this one is asked again.
            map.borrow_mut().forget_before(start);
        });
        debug_assert!(read.is_ok(), "a decoded body reads without error");
    }

    /// Undoes quoted-printable or base64; `None` for the identity
    /// encodings (7bit, 8bit, binary) and unknown ones, which are read raw.
    fn transfer_decode(&mut self, body: &[u8], cte: &str) -> Option<(Vec<u8>, PosMap)> {
        match cte {
            "quoted-printable" => {
                self.stats.decoded_qp += 1;
                Some(qp::decode(body))
            }
            "base64" => {
                self.stats.decoded_base64 += 1;
                Some(base64::decode(body))
            }
            _ => None,
        }
    }

    /// Scans one header field: unfolded, encoded words decoded.
    fn scan_field(
        &mut self,
        buf: &[u8],
        trace: &Trace<'_>,
        field: &header::Field,
        part: Option<&str>,
    ) {
        let mut raw = &buf[field.value.clone()];
        // Every URL holds a colon (one may hide in an encoded word).
        if memchr::memchr(b':', raw).is_none() && header::find_word_start(raw).is_none() {
            return;
        }
        let name = &buf[field.name.clone()];
        if raw.len() > MAX_HEADER {
            // Unfolding and decoding copy the value, and a hostile 100 MB
            // header line took 1.5 GB: read a real header's worth of it.
            let shown = crate::escape::for_terminal(name).into_owned();
            let reason = format!(
                "header field {shown} longer than {} KiB: only its first {} KiB read",
                MAX_HEADER >> 10,
                MAX_HEADER >> 10
            );
            self.report(trace, field.value.start, reason, true);
            raw = &raw[..MAX_HEADER];
        }
        if UNSCANNED.iter().any(|n| name.eq_ignore_ascii_case(n.as_bytes())) {
            return;
        }
        let t0 = trace.push(Layer::Shift(field.value.start));
        let (unfolded, fold_map) = header::unfold(raw);
        let t1 = match &fold_map {
            Some(m) => t0.push(Layer::Map(m)),
            None => t0,
        };
        let words = header::decode_words(&unfolded);
        let (value, t2) = match &words {
            Some((bytes, map)) => (bytes.as_slice(), t1.push(Layer::Map(map))),
            None => (&*unfolded, t1),
        };
        let found = self.sifter.extract(value);
        if !found.is_empty() {
            let name = String::from_utf8_lossy(name).into_owned();
            self.emit(found, &t2, Some(&name), part);
        }
    }

    /// Places found URLs in the file and hands them to the sink.
    fn emit(
        &mut self,
        found: Vec<Extracted>,
        trace: &Trace<'_>,
        header: Option<&str>,
        part: Option<&str>,
    ) {
        for url in found {
            self.place(url, &|o| trace.resolve(o), header, part);
        }
    }

    /// Places one URL found in a buffer whose offsets `resolve` maps to
    /// the message, and hands it to the sink.
    fn place(
        &mut self,
        mut url: Extracted,
        resolve: &dyn Fn(usize) -> usize,
        header: Option<&str>,
        part: Option<&str>,
    ) {
        self.line_index();
        let lines = self.lines.as_ref().expect("built just now");
        relocate(&mut url, resolve, self.original, self.base, &|o| lines.position(o));
        // Mail is never rewritten, and a message read from its file (a
        // big one) keeps no runs: the same for every message.
        url.pieces.clear();
        self.stats.urls += 1;
        (self.sink)(MailUrl {
            url,
            message_index: self.index,
            message_id: self.message_id.clone(),
            header: header.map(str::to_string),
            part: part.map(str::to_string),
        });
    }

    fn line_index(&mut self) -> &LineIndex {
        let (original, base, first, column) =
            (self.original, self.base, self.first_line, self.first_column);
        self.lines.get_or_insert_with(|| LineIndex::new(original, base, first, column))
    }

    /// Reports a problem at byte `at` of a traced buffer.
    pub fn report(&mut self, trace: &Trace<'_>, at: usize, reason: String, skipped: bool) {
        let o = trace.resolve(at).min(self.original.len().saturating_sub(1));
        let line = self.line_index().position(o).line;
        (self.problem)(MailProblem { message_index: self.index, line, reason, skipped });
    }
}

/// The content type and the transfer encoding (lowercase, trimmed) an
/// entity's header block declares.
pub(super) fn content(buf: &[u8], head: &Block) -> (ContentType, String) {
    let ct = head.get(buf, "content-type").map(|v| ContentType::parse(&header::unfold(v).0));
    let cte = head
        .get(buf, "content-transfer-encoding")
        .map(|v| String::from_utf8_lossy(&header::unfold(v).0).trim().to_ascii_lowercase())
        .unwrap_or_default();
    (ct.unwrap_or_default(), cte)
}

/// The MIME type an entity is read as: the declared one, or the default
/// of its multipart (`message/rfc822` in a digest, `text/plain` elsewhere).
pub(super) fn mime_of(ct: &ContentType, digest: bool) -> &str {
    if !ct.mime.is_empty() {
        ct.mime.as_str()
    } else if digest {
        "message/rfc822"
    } else {
        "text/plain"
    }
}

/// What [`Walker::entity`] does with a body that is no multipart: `true`
/// for a text part (scanned), `false` for one skipped; `None` for an
/// attached message.
pub(super) fn is_text(mime: &str) -> Option<bool> {
    if matches!(mime, "message/rfc822" | "message/global" | "message/news") {
        None
    } else {
        Some(mime.starts_with("text/") || mime.starts_with("message/"))
    }
}

/// A multipart body cut at its boundaries.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Multipart {
    /// Text before the first boundary line.
    pub preamble: std::ops::Range<usize>,
    /// Each part, without the line break before the next boundary line.
    pub parts: Vec<std::ops::Range<usize>>,
    /// Text after the closing boundary line, if it was found.
    pub epilogue: Option<std::ops::Range<usize>>,
    /// The closing `--boundary--` line was found.
    pub closed: bool,
}

/// Cuts `body` at lines `--boundary` (a part follows) and `--boundary--`
/// (the end), each possibly followed by blanks (RFC 2046 section 5.1.1).
/// A missing closing line is forgiven: the last part runs to the end.
pub fn split_multipart(body: &[u8], boundary: &[u8]) -> Multipart {
    let mut delim = Vec::with_capacity(boundary.len() + 2);
    delim.extend_from_slice(b"--");
    delim.extend_from_slice(boundary);
    let mut out = Multipart::default();
    // Start of the current part, once the first boundary line is seen.
    let mut open: Option<usize> = None;
    for at in memchr::memmem::find_iter(body, &delim) {
        if at > 0 && !matches!(body[at - 1], b'\n' | b'\r') {
            continue;
        }
        let mut k = at + delim.len();
        let closing = body[k..].starts_with(b"--");
        if closing {
            k += 2;
        }
        while matches!(body.get(k), Some(b' ' | b'\t')) {
            k += 1;
        }
        let next = match body.get(k) {
            None => k,
            Some(b'\r') if body.get(k + 1) == Some(&b'\n') => k + 2,
            Some(b'\n' | b'\r') => k + 1,
            // `--boundaryX`: a longer boundary of some other multipart.
            Some(_) => continue,
        };
        // The line break before a boundary line belongs to it.
        let mut end = at;
        if end > 0 && body[end - 1] == b'\n' {
            end -= 1;
        }
        if end > 0 && body[end - 1] == b'\r' {
            end -= 1;
        }
        match open {
            None => out.preamble = 0..end,
            Some(s) => out.parts.push(s..end.max(s)),
        }
        if closing {
            out.closed = true;
            out.epilogue = Some(next..body.len());
            return out;
        }
        open = Some(next);
    }
    match open {
        Some(s) => out.parts.push(s..body.len()),
        None => out.preamble = 0..body.len(),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipart_boundaries() {
        let body = b"pre\r\n--b\r\nA\r\n--b  \r\n\r\nB\r\n--bb\r\n--b--\r\nepi";
        let m = split_multipart(body, b"b");
        assert_eq!(&body[m.preamble.clone()], b"pre");
        let parts: Vec<&[u8]> = m.parts.iter().map(|r| &body[r.clone()]).collect();
        assert_eq!(parts, [&b"A"[..], &b"\r\nB\r\n--bb"[..]]);
        assert_eq!(&body[m.epilogue.clone().unwrap()], b"epi");
        assert!(m.closed);
        let m = split_multipart(b"--b\nonly", b"b");
        assert_eq!((m.parts.len(), m.parts[0].clone()), (1, 4..8));
        assert!(!m.closed);
    }

    /// The streamed reading of a text part finds what the whole reading
    /// finds, at the same places, for every transfer encoding.
    #[test]
    fn streamed_text_parts_read_as_whole_ones() {
        let sifter = Sifter::new(crate::extract::Options::default());
        let mut text = String::new();
        for k in 0..30_000 {
            text.push_str(&format!(
                "line {k} caf\u{e9} http://b.example/{k}?q=1 <URL:ftp://w{k}.example/a\n  /b> x\n"
            ));
        }
        let latin1: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
        let mut qp = Vec::new();
        for line in latin1.split(|&b| b == b'\n') {
            let mut l = Vec::new();
            for &b in line {
                if b == b'=' || b >= 0x80 {
                    l.extend_from_slice(format!("={b:02X}").as_bytes());
                } else {
                    l.push(b);
                }
            }
            for (i, c) in l.chunks(40).enumerate() {
                if i > 0 {
                    qp.extend_from_slice(b"=\r\n");
                }
                qp.extend_from_slice(c);
            }
            qp.extend_from_slice(b"\r\n");
        }
        let mut b64 = Vec::new();
        for c in latin1.chunks(57) {
            b64.extend_from_slice(stream_b64(c).as_bytes());
            b64.push(b'\n');
        }
        for (cte, body) in [("", &latin1), ("quoted-printable", &qp), ("base64", &b64)] {
            assert!(body.len() >= STREAM_MIN, "{cte}: {} bytes", body.len());
            let mut msg = b"Subject: x\n\n".to_vec();
            let at = msg.len();
            msg.extend_from_slice(body);
            let run = |streamed: bool| {
                let (mut urls, mut problems, mut stats) =
                    (Vec::new(), Vec::new(), MailStats::default());
                let (mut sink, mut problem) = (|u| urls.push(u), |p| problems.push(p));
                let mut w = Walker {
                    sifter: &sifter,
                    original: &msg,
                    base: 1000,
                    first_line: 3,
                    first_column: 1,
                    index: 0,
                    message_id: None,
                    stats: &mut stats,
                    sink: &mut sink,
                    problem: &mut problem,
                    lines: None,
                };
                let t = Trace::ROOT;
                let t = t.push(Layer::Shift(at));
                let body = &msg[at..];
                let cs = Some(&b"iso-8859-1"[..]);
                if streamed {
                    w.text_streamed(body, &t, cte, cs, "1");
                } else {
                    w.text_whole(body, &t, cte, cs, "1");
                }
                drop(w);
                (urls, stats)
            };
            let (streamed, whole) = (run(true), run(false));
            assert!(whole.0.len() >= 60_000, "{cte}: {} URLs", whole.0.len());
            assert_eq!(streamed.1, whole.1, "{cte}: counts");
            if let Some(i) = (0..whole.0.len()).find(|&i| streamed.0.get(i) != whole.0.get(i)) {
                panic!("{cte}: URL #{i} differs: {:?} vs {:?}", streamed.0.get(i), whole.0[i]);
            }
            assert_eq!(streamed.0.len(), whole.0.len(), "{cte}");
        }
    }

    fn stream_b64(bytes: &[u8]) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for c in bytes.chunks(3) {
            let v = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            for j in 0..4 {
                s.push(if j <= c.len() {
                    A[(v >> (18 - 6 * j) & 63) as usize] as char
                } else {
                    '='
                });
            }
        }
        s
    }

    #[test]
    fn part_paths() {
        let top = Role::Message { prefix: String::new() };
        assert_eq!((top.header_part(), top.leaf()), (None, "1".to_string()));
        let att = Role::Message { prefix: "2".into() };
        assert_eq!((att.header_part(), att.leaf()), (Some("2".into()), "2.1".to_string()));
        assert_eq!(child("2", 3), "2.3");
    }
}
