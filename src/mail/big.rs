//! One message too big to hold: a file read as a single message (an
//! `.eml`, a Maildir file, a news article) of at least [`BIG`] bytes, or a
//! message of an mbox or of standard input that the splitter spilled
//! ([`split::Spilled`]: a stretch of the input file, or of the spool it
//! was copied to), is read from its file with positioned reads instead of
//! whole, so that its size does not set the memory a run takes.
//!
//! The header block is read from the first [`HEAD`] bytes; the body is
//! then either one text part, decoded and scanned as a stream
//! ([`stream::Decoded`] over the file), or a multipart, whose boundaries
//! are found by a windowed pass over the file (exactly where
//! [`mime::split_multipart`] finds them): its small parts, preamble and
//! epilogue are read whole and walked as [`Walker::entity`] walks them
//! inside a message, a big text part streams its body as a top-level
//! one does, and a big preamble or epilogue is scanned as a stream. Line numbers are counted forward through the file from the
//! last URL placed, and excerpts read again around their finding.
//!
//! An mbox message has its `>From ` quoting undone as the usual reader
//! does: a stretch read whole is unquoted with its map, a streamed body
//! through [`stream::Unquote`], whose hits place what follows them. A
//! quoted line inside a header block read from the file sends the message
//! the usual way (it never happens in real mail).
//!
//! Everything else (a header block longer than [`HEAD`], an attached
//! message, a nested multipart or a multi-byte charset in a big part) is
//! decided before anything is reported, and
//! the message is then read the usual way, whole: what comes out never
//! depends on which way it was read.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::os::unix::fs::FileExt;

use super::header::{self, Block};
use super::mime::{self, Multipart, Role, Walker};
use super::part::read_full_at;
use super::{InputKind, MailProblem, MailStats, MailUrl, charset, split, stream};
use crate::extract::{Extracted, Scratch, Sifter, excerpt_of};
use crate::posmap::{EXCERPT_REACH, Layer, PosMap, SlidingMap, Trace};
use crate::span::Position;

/// Messages of at least this many bytes are read from their file (see
/// [`big_message_min`]).
pub const BIG: u64 = 16 << 20;

/// The size from which a message is read from its file rather than held:
/// [`BIG`], or the value of the environment variable
/// `URLSIFT_BIG_MESSAGE` (bytes), which tests set low to send small
/// messages down this path (and high to hold every message) and compare
/// what comes out. Parts are streamed from the same size.
pub fn big_message_min() -> u64 {
    static MIN: std::sync::LazyLock<u64> = std::sync::LazyLock::new(|| {
        std::env::var("URLSIFT_BIG_MESSAGE").ok().and_then(|v| v.parse().ok()).unwrap_or(BIG)
    });
    *MIN
}

/// The most of a message (or a big part) read to find its header block.
const HEAD: usize = 4 << 20;

/// Bytes read at a time by the boundary search and the line count.
const WINDOW: usize = 1 << 20;

/// Reads one message from `file` (its whole length, from offset 0) without
/// holding it, when it is a single message of at least
/// [`big_message_min`] bytes whose structure allows (see the module's
/// comment): the counts, and the line breaks of the file as
/// `Splitter::lines_done` counts them.
/// `None` when it must be read the usual way; nothing was reported then.
pub fn extract_big_message(
    sifter: &Sifter,
    file: &File,
    kind: InputKind,
    sink: &mut dyn FnMut(MailUrl),
    problem: &mut dyn FnMut(MailProblem),
) -> io::Result<Option<(MailStats, u64)>> {
    read_file(sifter, file, kind, big_message_min(), sink, problem)
}

/// [`extract_big_message`] for messages and parts of at least `big` bytes.
fn read_file(
    sifter: &Sifter,
    file: &File,
    kind: InputKind,
    big: u64,
    sink: &mut dyn FnMut(MailUrl),
    problem: &mut dyn FnMut(MailProblem),
) -> io::Result<Option<(MailStats, u64)>> {
    let meta = file.metadata()?;
    let size = meta.len();
    if !matches!(kind, InputKind::Message | InputKind::News) || !meta.is_file() || size < big {
        return Ok(None);
    }
    let origin = Position { offset: 0, line: 1, column: 1 };
    let src = Src { file, at: 0, len: size, origin, mbox: false };
    let mut stats = MailStats { messages: 1, ..MailStats::default() };
    let Some(lines) = read_big(sifter, &src, None, 0, big, &mut stats, sink, problem)? else {
        return Ok(None);
    };
    stats.bytes = size;
    Ok(Some((stats, lines)))
}

/// Reads a message that the splitter spilled ([`split::Spilled`]), as
/// `super::message` reads one held whole, with the same results: from its
/// file when its structure allows, else read back into memory (up to
/// [`split::MAX_MESSAGE`]; a bigger one is reported and skipped).
#[allow(clippy::too_many_arguments)]
pub(super) fn spilled(
    sifter: &Sifter,
    raw: &split::RawMessage<'_>,
    spill: split::Spilled<'_>,
    index: usize,
    mbox: bool,
    big: u64,
    stats: &mut MailStats,
    sink: &mut dyn FnMut(MailUrl),
    problem: &mut dyn FnMut(MailProblem),
) -> io::Result<()> {
    let origin = Position { offset: raw.offset, line: raw.line, column: raw.column };
    let src = Src { file: spill.file, at: spill.at, len: spill.len, origin, mbox };
    let envelope = Some(raw.envelope);
    if read_big(sifter, &src, envelope, index, big, stats, sink, problem)?.is_some() {
        return Ok(());
    }
    #[cfg(test)]
    HELD.with(|h| h.set(h.get() + 1));
    if spill.len > split::MAX_MESSAGE as u64 {
        let mib = split::MAX_MESSAGE >> 20;
        let reason = format!("message larger than {mib} MiB that cannot be streamed: not read");
        problem(MailProblem { message_index: index, line: raw.line, reason, skipped: true });
        return Ok(());
    }
    let bytes = src.read(0..spill.len)?;
    let held = split::RawMessage { bytes: &bytes, spilled: None, ..*raw };
    super::message(sifter, &held, index, mbox, stats, sink, problem);
    Ok(())
}

#[cfg(test)]
thread_local! {
    /// Spilled messages read back whole on this thread, for tests.
    pub(super) static HELD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The message being read: `len` bytes of `file` from `at`, whose first
/// byte is at `origin` in the input. Offsets below are the message's
/// (0 at its first byte) unless said otherwise.
struct Src<'f> {
    file: &'f File,
    at: u64,
    len: u64,
    origin: Position,
    /// An mbox message: its `>From ` quoting is undone.
    mbox: bool,
}

impl Src<'_> {
    /// Fills `buf` from message offset `o`, as far as the message goes.
    fn read_at(&self, buf: &mut [u8], o: u64) -> io::Result<usize> {
        let n = (self.len.saturating_sub(o) as usize).min(buf.len());
        read_full_at(self.file, &mut buf[..n], self.at + o)
    }

    /// Message bytes `r`, which must all be there.
    fn read(&self, r: Range<u64>) -> io::Result<Vec<u8>> {
        let mut buf = vec![0; (r.end - r.start) as usize];
        if self.read_at(&mut buf, r.start)? < buf.len() {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the file shrank"));
        }
        Ok(buf)
    }

    /// Bytes `raw` of the message, read whole, as the usual reader sees
    /// them: unquoted (with the map back to `raw`) in an mbox.
    fn unquoted(&self, raw: &[u8]) -> Option<(Vec<u8>, PosMap)> {
        if self.mbox { super::unquote_from(raw) } else { None }
    }

    /// Whether a quoted `From ` line starts in `raw[..end]`.
    fn quoted_before(&self, raw: &[u8], end: usize) -> bool {
        self.mbox && super::quoted_from_lines(raw).next().is_some_and(|at| at < end)
    }
}

/// Reads the message of `src` from its file when its structure allows
/// (see the module's comment): the line breaks in it. `envelope` is the
/// length of its envelope line when the splitter knows it. `None` when it
/// must be read the usual way: nothing was reported, nor counted, then.
#[allow(clippy::too_many_arguments)]
fn read_big(
    sifter: &Sifter,
    src: &Src<'_>,
    envelope: Option<usize>,
    index: usize,
    big: u64,
    stats: &mut MailStats,
    sink: &mut dyn FnMut(MailUrl),
    problem: &mut dyn FnMut(MailProblem),
) -> io::Result<Option<u64>> {
    let size = src.len;
    let prefix = src.read(0..(HEAD as u64).min(size))?;
    let envelope = match envelope {
        Some(e) => e,
        None => {
            if prefix.starts_with(b"#! rnews ") {
                return Ok(None);
            }
            let Some(first_line) = memchr::memchr(b'\n', &prefix).map(|i| i + 1) else {
                return Ok(None);
            };
            split::envelope_len(&prefix, first_line)
        }
    };
    let Some(content) = prefix.get(envelope..) else { return Ok(None) };
    // Repeated envelopes are skipped by the usual reader: left to it.
    if content.starts_with(b"From ") {
        return Ok(None);
    }
    let Some(head) = whole_block(content) else { return Ok(None) };
    if src.quoted_before(content, head.body_start) {
        return Ok(None);
    }
    let (ct, cte) = mime::content(content, &head);
    let body = (envelope + head.body_start) as u64..size;
    let plan = match mime::mime_of(&ct, false).strip_prefix("multipart/") {
        Some(sub) => {
            let Some(boundary) = ct.param("boundary").filter(|b| !b.is_empty()) else {
                return Ok(None);
            };
            let split = split_multipart_file(src, body.clone(), &boundary, WINDOW)?;
            let digest = sub == "digest";
            let Some(parts) = plan_parts(src, body.start, &split, digest, big, 1)? else {
                return Ok(None);
            };
            Plan::Multipart { split, parts, digest: sub == "digest" }
        }
        None => match streamable(&ct, mime::mime_of(&ct, false)) {
            Some(text) => Plan::Leaf { text },
            // An attached message as the whole body, read as it stands.
            None if attached(mime::mime_of(&ct, false), &cte) => {
                let Some(message) = plan_entity(src, body.clone(), false, big, 1)? else {
                    return Ok(None);
                };
                Plan::Message(message)
            }
            None => return Ok(None),
        },
    };
    let message_id = head.get(content, "message-id").and_then(header::message_id);
    let mut lines = Lines::new(src);
    let mut reading =
        Big { sifter, src, index, big, message_id, stats, sink, problem, lines: &mut lines };
    let trace = Trace::ROOT.push(Layer::Shift(envelope));
    let top = Role::Message { prefix: String::new() };
    reading.walker(&prefix, 0).fields(content, &trace, &head, &top);
    match plan {
        Plan::Leaf { text: true } => {
            let cs = ct.param("charset");
            reading.stats.text_parts += 1;
            reading.stream(body, &cte, cs.as_deref(), Some("1"))?;
        }
        Plan::Leaf { text: false } => reading.stats.skipped_parts += 1,
        Plan::Message(message) => {
            let role = Role::Message { prefix: top.leaf() };
            reading.entity(body, message, &role, 1)?;
        }
        Plan::Multipart { split, parts, digest } => {
            reading.multipart(body.start, &split, parts, digest, "", 1)?
        }
    }
    let done = lines.position(size)?;
    if let Some(e) = lines.err.take() {
        return Err(e);
    }
    Ok(Some(done.line - src.origin.line))
}

/// What the body of a big message is read as.
enum Plan {
    /// A body that is no multipart: a text one streamed, another skipped.
    Leaf { text: bool },
    /// A multipart, with what is known of its big parts.
    Multipart { split: Multipart, parts: Vec<Option<BigPart>>, digest: bool },
    /// An attached message (`message/rfc822`), as it stands.
    Message(BigPart),
}

/// A part too big to read whole: its header block, and how its body is
/// read.
struct BigPart {
    head_bytes: Vec<u8>,
    head: Block,
    body: Body,
}

/// How the body of a big part is read.
enum Body {
    /// A text body, streamed.
    Text,
    /// A body that is not text: skipped.
    Skipped,
    /// A nested multipart, with what is known of its own big parts.
    Multipart { split: Multipart, parts: Vec<Option<BigPart>>, digest: bool },
    /// An attached message (`message/rfc822`), as it stands.
    Message(Box<BigPart>),
}

/// The header block at the start of `buf`, when it ends in `buf` at a
/// blank line (so that it is the block of the whole entity too).
fn whole_block(buf: &[u8]) -> Option<Block> {
    let head = header::parse_block(buf);
    // (No block at all leaves `body_start` at 0.)
    let ends = (1..buf.len()).contains(&head.body_start) && buf[head.body_start - 1] == b'\n';
    (!head.fields.is_empty() && !head.stray && ends).then_some(head)
}

/// Whether a body of type `mime` can be read from the file: `Some(true)`
/// for a text part in a single-byte charset (streamed), `Some(false)` for
/// a part that is skipped, `None` otherwise.
fn streamable(ct: &header::ContentType, mime: &str) -> Option<bool> {
    if mime.starts_with("multipart/") {
        return None;
    }
    let text = mime::is_text(mime)?;
    let cs = ct.param("charset");
    let single_byte =
        cs.as_deref().and_then(charset::encoding_for).is_none_or(|e| e.is_single_byte());
    (!text || single_byte).then_some(text)
}

/// Whether a body of type `mime` in transfer encoding `cte` is an attached
/// message that can be read as it stands (encoded, it would have to be
/// decoded whole first).
fn attached(mime: &str, cte: &str) -> bool {
    mime::is_text(mime).is_none() && !matches!(cte, "quoted-printable" | "base64")
}

/// How a big entity (a part, or a message attached as one) at message
/// bytes `r` and MIME depth `depth` is read; `None` when the message must
/// be read the usual way.
fn plan_entity(
    src: &Src<'_>,
    r: Range<u64>,
    digest: bool,
    min: u64,
    depth: usize,
) -> io::Result<Option<BigPart>> {
    let len = r.end - r.start;
    let head_bytes = src.read(r.start..r.start + (HEAD as u64).min(len))?;
    let mut head = header::parse_block(&head_bytes);
    if head.stray && head.fields.is_empty() {
        head.body_start = 0;
    } else if whole_block(&head_bytes).is_none() {
        return Ok(None);
    }
    if src.quoted_before(&head_bytes, head.body_start) {
        return Ok(None);
    }
    let (ct, cte) = mime::content(&head_bytes, &head);
    let mime_type = mime::mime_of(&ct, digest);
    let inner = r.start + head.body_start as u64..r.end;
    // Past the nesting limit, the usual reader reports what is skipped.
    let nests = depth < mime::MAX_DEPTH;
    let body = match mime_type.strip_prefix("multipart/") {
        Some(sub) if nests => {
            let Some(boundary) = ct.param("boundary").filter(|b| !b.is_empty()) else {
                return Ok(None);
            };
            let split = split_multipart_file(src, inner.clone(), &boundary, WINDOW)?;
            let digest = sub == "digest";
            let Some(parts) = plan_parts(src, inner.start, &split, digest, min, depth + 1)? else {
                return Ok(None);
            };
            Body::Multipart { split, parts, digest }
        }
        Some(_) => return Ok(None),
        None => match streamable(&ct, mime_type) {
            Some(true) if inner.end - inner.start < mime::STREAM_MIN as u64 => return Ok(None),
            Some(true) => Body::Text,
            Some(false) => Body::Skipped,
            None if nests && attached(mime_type, &cte) => {
                let Some(message) = plan_entity(src, inner, false, min, depth + 1)? else {
                    return Ok(None);
                };
                Body::Message(Box::new(message))
            }
            None => return Ok(None),
        },
    };
    Ok(Some(BigPart { head_bytes, head, body }))
}

/// For each part of a multipart whose parts are at MIME depth `depth` (1
/// for a message's own): `None` when it is small enough to read whole, its
/// header block when it is not; `None` overall when the body must be read
/// the usual way.
fn plan_parts(
    src: &Src<'_>,
    body_start: u64,
    split: &Multipart,
    digest: bool,
    min: u64,
    depth: usize,
) -> io::Result<Option<Vec<Option<BigPart>>>> {
    if split.parts.is_empty() && !split.closed {
        return Ok(None);
    }
    let big = |r: &Range<usize>| (r.len() as u64) >= min;
    let mut out = Vec::with_capacity(split.parts.len());
    for r in &split.parts {
        if !big(r) {
            out.push(None);
            continue;
        }
        let at = body_start + r.start as u64..body_start + r.end as u64;
        let Some(part) = plan_entity(src, at, digest, min, depth)? else { return Ok(None) };
        out.push(Some(part));
    }
    Ok(Some(out))
}

/// The reading of one big message.
struct Big<'a, 'b> {
    sifter: &'a Sifter,
    src: &'a Src<'b>,
    index: usize,
    /// Stretches of at least this many bytes are streamed.
    big: u64,
    message_id: Option<String>,
    stats: &'a mut MailStats,
    sink: &'a mut dyn FnMut(MailUrl),
    problem: &'a mut dyn FnMut(MailProblem),
    lines: &'a mut Lines<'b>,
}

impl Big<'_, '_> {
    /// A walker over `bytes`, which are the message's from offset `at`.
    fn walker<'w>(&'w mut self, bytes: &'w [u8], at: u64) -> Walker<'w> {
        let base = self.src.origin.offset + at;
        let p = self.lines.position(at).unwrap_or(Position { offset: base, line: 1, column: 1 });
        self.lines.advance(at);
        Walker {
            sifter: self.sifter,
            original: bytes,
            base,
            first_line: p.line,
            first_column: p.column,
            index: self.index,
            message_id: self.message_id.clone(),
            stats: self.stats,
            sink: self.sink,
            problem: self.problem,
            lines: None,
        }
    }

    /// The body of a multipart, as [`Walker`] reads it, segment by segment:
    /// its parts have paths `prefix.N` and are at MIME depth `depth`.
    fn multipart(
        &mut self,
        body_start: u64,
        split: &Multipart,
        parts: Vec<Option<BigPart>>,
        digest: bool,
        prefix: &str,
        depth: usize,
    ) -> io::Result<()> {
        let outside = (!prefix.is_empty()).then_some(prefix);
        let at = |r: &Range<usize>| body_start + r.start as u64..body_start + r.end as u64;
        let root = Trace::ROOT;
        // Text outside every part, scanned as it is: streamed when big.
        let plain = |big: &mut Self, r: &Range<usize>| -> io::Result<()> {
            if r.len() as u64 >= big.big {
                return big.stream(at(r), "", None, outside);
            }
            let raw = big.src.read(at(r))?;
            let unquoted = big.src.unquoted(&raw);
            let (bytes, trace) = match &unquoted {
                Some((bytes, map)) => (bytes.as_slice(), root.push(Layer::Map(map))),
                None => (raw.as_slice(), root),
            };
            big.walker(&raw, at(r).start).plain(bytes, &trace, 0..bytes.len(), outside);
            Ok(())
        };
        plain(self, &split.preamble)?;
        for (n, (r, planned)) in split.parts.iter().zip(parts).enumerate() {
            let role = Role::Part { path: mime::child(prefix, n + 1) };
            match planned {
                None => {
                    let raw = self.src.read(at(r))?;
                    let unquoted = self.src.unquoted(&raw);
                    let (bytes, trace) = match &unquoted {
                        Some((bytes, map)) => (bytes.as_slice(), root.push(Layer::Map(map))),
                        None => (raw.as_slice(), root),
                    };
                    let mut head = header::parse_block(bytes);
                    if head.stray && head.fields.is_empty() {
                        head.body_start = 0;
                    }
                    let mut walker = self.walker(&raw, at(r).start);
                    walker.entity(bytes, &trace, &head, &role, digest, depth);
                }
                Some(part) => self.entity(at(r), part, &role, depth)?,
            }
        }
        if let Some(epilogue) = &split.epilogue {
            plain(self, epilogue)?;
        }
        Ok(())
    }

    /// A big entity at message bytes `r`, as [`Walker::entity`] reads one
    /// at MIME depth `depth`, planned by [`plan_entity`].
    fn entity(
        &mut self,
        r: Range<u64>,
        part: BigPart,
        role: &Role,
        depth: usize,
    ) -> io::Result<()> {
        let hb = &part.head_bytes;
        self.walker(hb, r.start).fields(hb, &Trace::ROOT, &part.head, role);
        let body = r.start + part.head.body_start as u64..r.end;
        match part.body {
            Body::Text => {
                let (ct, cte) = mime::content(hb, &part.head);
                let cs = ct.param("charset");
                self.stats.text_parts += 1;
                self.stream(body, &cte, cs.as_deref(), Some(&role.leaf()))?;
            }
            Body::Skipped => self.stats.skipped_parts += 1,
            Body::Multipart { split, parts, digest } => {
                let prefix = role.parts_prefix().to_string();
                self.multipart(body.start, &split, parts, digest, &prefix, depth + 1)?;
            }
            Body::Message(message) => {
                let role = Role::Message { prefix: role.leaf() };
                self.entity(body, *message, &role, depth + 1)?;
            }
        }
        Ok(())
    }

    /// A text body at file bytes `body`, decoded and scanned as a stream,
    /// as `Walker::text_streamed` reads one held in memory.
    fn stream(
        &mut self,
        body: Range<u64>,
        cte: &str,
        charset: Option<&[u8]>,
        part: Option<&str>,
    ) -> io::Result<()> {
        let transfer = stream::Transfer::of(cte, self.stats);
        let map = RefCell::new(SlidingMap::default());
        let hits = RefCell::new(stream::Hits::default());
        let range = FileRange { src: self.src, at: body.start, end: body.end };
        let unquote = stream::Unquote::new(range, self.src.mbox, &hits);
        let reader = stream::Decoded::new(unquote, transfer, charset, &map).with_hits(&hits);
        let sifter = self.sifter;
        let src = self.src;
        sifter.extract_reader(reader, &mut Scratch::default(), |mut url| {
            let start = url.start.offset as usize;
            {
                let (m, h) = (map.borrow(), hits.borrow());
                let resolve = |o: usize| body.start + h.raw(m.map(o) as u64);
                place(&mut url, &resolve, src, self.lines);
            }
            self.lines.advance(url.start.offset - src.origin.offset);
            map.borrow_mut().forget_before(start);
            self.stats.urls += 1;
            (self.sink)(MailUrl {
                url,
                message_index: self.index,
                message_id: self.message_id.clone(),
                header: None,
                part: part.map(str::to_string),
            });
        })?;
        Ok(())
    }
}

/// `crate::posmap::relocate` for a message read from its file: `resolve`
/// maps a decoded offset to a message offset.
fn place(
    url: &mut Extracted,
    resolve: &dyn Fn(usize) -> u64,
    src: &Src<'_>,
    lines: &mut Lines<'_>,
) {
    let mut at = |p: Position| {
        let o = resolve(p.offset as usize);
        let at = src.origin.offset + o;
        lines.position(o).unwrap_or(Position { offset: at, line: 0, column: 0 })
    };
    url.start = at(url.start);
    url.end = at(url.end);
    // Runs of the decoded message, not of the file.
    url.pieces.clear();
    for f in &mut url.findings {
        f.start = at(f.start);
        f.end = at(f.end);
        for (s, e) in &mut f.extra_spans {
            (*s, *e) = (at(*s), at(*e));
        }
    }
    if url.verbatim {
        // As `relocate` does: decoding may have changed the bytes.
        let (s, e) = (url.start.offset - src.origin.offset, url.end.offset - src.origin.offset);
        url.verbatim = s <= e
            && url.start.line > 0
            && match lines.bytes(s..e + 1) {
                Ok(bytes) => *bytes == url.url,
                Err(err) => {
                    lines.err.get_or_insert(err);
                    false
                }
            };
    }
    for f in &mut url.findings {
        if f.excerpt.is_none() {
            continue;
        }
        let o = f.start.offset - src.origin.offset;
        let reach = o.saturating_sub(EXCERPT_REACH as u64);
        let end = (o + EXCERPT_REACH as u64).min(src.len);
        let win = match src.read(reach..end) {
            Ok(w) => w,
            Err(e) => {
                lines.err.get_or_insert(e);
                continue;
            }
        };
        let rel = (o - reach) as usize;
        let lo = memchr::memrchr2(b'\n', b'\r', &win[..rel]).map_or(0, |i| i + 1);
        let hi = memchr::memchr2(b'\n', b'\r', &win[rel..]).map_or(win.len(), |i| rel + i);
        let lo_column = f.start.column - (rel - lo) as u64;
        let col = f.start.column - lo_column + 1;
        let (excerpt, column) = excerpt_of(&win[lo..hi], col);
        f.excerpt = Some(excerpt.to_vec());
        f.excerpt_column = lo_column + column - 1;
    }
}

/// Where counting lines stands at a message offset.
#[derive(Clone, Copy, Debug)]
struct Mark {
    at: u64,
    /// Line number at `at`.
    line: u64,
    /// Offset after the last line break before `at`; on the message's
    /// first line, where column 1 would be (before 0 when the message
    /// starts in the middle of a line of its input).
    line_start: i64,
    /// The byte before `at` is a CR.
    after_cr: bool,
}

/// Line numbers of message offsets, as `crate::posmap::LineIndex` gives
/// them for a message held whole (a CRLF is one break, a lone CR or LF one
/// each), counted forward from an anchor that moves with what is placed.
struct Lines<'s> {
    src: &'s Src<'s>,
    /// The message's first byte.
    start: Mark,
    anchor: Mark,
    /// File bytes from `buf_at`, `filled` of them.
    buf: Vec<u8>,
    buf_at: u64,
    filled: usize,
    /// The first read error; positions are then made up, and the message
    /// fails with it.
    err: Option<io::Error>,
}

impl<'s> Lines<'s> {
    fn new(src: &'s Src<'s>) -> Self {
        let (line, column) = (src.origin.line, src.origin.column);
        let start = Mark { at: 0, line, line_start: 1 - column as i64, after_cr: false };
        let buf = vec![0; WINDOW];
        Lines { src, start, anchor: start, buf, buf_at: 0, filled: 0, err: None }
    }

    /// Counts from `m` to offset `to` (at or after it). The bytes are read
    /// a window at a time and kept: URLs are placed a few bytes apart, and
    /// a read for each cost more than the scan.
    fn walk(&mut self, mut m: Mark, to: u64) -> io::Result<Mark> {
        while m.at < to {
            let cached = self.buf_at..self.buf_at + self.filled as u64;
            if !cached.contains(&m.at) {
                self.filled = self.src.read_at(&mut self.buf, m.at)?;
                self.buf_at = m.at;
                if self.filled == 0 {
                    return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the file shrank"));
                }
            }
            let from = (m.at - self.buf_at) as usize;
            let upto = ((to - self.buf_at) as usize).min(self.filled);
            let chunk = &self.buf[from..upto];
            for i in memchr::memchr2_iter(b'\n', b'\r', chunk) {
                let prev_cr = if i == 0 { m.after_cr } else { chunk[i - 1] == b'\r' };
                if !(chunk[i] == b'\n' && prev_cr) {
                    m.line += 1;
                }
                m.line_start = (m.at + i as u64 + 1) as i64;
            }
            m.after_cr = chunk[chunk.len() - 1] == b'\r';
            m.at += chunk.len() as u64;
        }
        Ok(m)
    }

    /// Message bytes `r`, from the window kept when it holds them (placing
    /// a URL has just read its bytes there, nearly always), else read.
    fn bytes(&self, r: Range<u64>) -> io::Result<std::borrow::Cow<'_, [u8]>> {
        let cached = self.buf_at..self.buf_at + self.filled as u64;
        if cached.contains(&r.start) && r.end <= cached.end {
            let from = (r.start - self.buf_at) as usize;
            return Ok(self.buf[from..from + (r.end - r.start) as usize].into());
        }
        self.src.read(r).map(Into::into)
    }

    /// The input position of message offset `o`.
    fn position(&mut self, o: u64) -> io::Result<Position> {
        // Positions come in order, from the anchor on; anything before it
        // is counted from the start of the message (correct, if slow).
        let from = if o >= self.anchor.at { self.anchor } else { self.start };
        let m = self.walk(from, o).inspect_err(|e| {
            self.err.get_or_insert(io::Error::new(e.kind(), e.to_string()));
        })?;
        let column = (o as i64 - m.line_start + 1) as u64;
        Ok(Position { offset: self.src.origin.offset + o, line: m.line, column })
    }

    /// Moves the anchor forward to `o`: nothing before it is asked again
    /// (or only at the cost of counting from the start).
    fn advance(&mut self, o: u64) {
        if o > self.anchor.at {
            match self.walk(self.anchor, o) {
                Ok(m) => self.anchor = m,
                Err(e) => {
                    self.err.get_or_insert(e);
                }
            }
        }
    }
}

/// Message bytes `at..end` as a reader.
struct FileRange<'s> {
    src: &'s Src<'s>,
    at: u64,
    end: u64,
}

impl Read for FileRange<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = ((self.end - self.at) as usize).min(buf.len());
        if n == 0 {
            return Ok(0);
        }
        let got = self.src.file.read_at(&mut buf[..n], self.src.at + self.at)?;
        if got == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the file shrank"));
        }
        self.at += got as u64;
        Ok(got)
    }
}

/// Random access to the bytes of a stretch of a file, through a small
/// cached block: the look around each boundary candidate.
struct Bytes<'s> {
    src: &'s Src<'s>,
    range: Range<u64>,
    block_at: u64,
    block: Vec<u8>,
}

impl Bytes<'_> {
    /// Byte `i` of the stretch.
    fn get(&mut self, i: usize) -> io::Result<Option<u8>> {
        let i = i as u64;
        if i >= self.range.end - self.range.start {
            return Ok(None);
        }
        if i < self.block_at || i >= self.block_at + self.block.len() as u64 {
            self.block_at = i.saturating_sub(16);
            let len = (self.range.end - self.range.start - self.block_at).min(64 << 10);
            let start = self.range.start + self.block_at;
            self.block = self.src.read(start..start + len)?;
        }
        Ok(Some(self.block[(i - self.block_at) as usize]))
    }
}

/// [`mime::split_multipart`] of the file bytes `body`, read `window`
/// bytes at a time (and a boundary's length more, so that no boundary is
/// missed across the edge of a window).
fn split_multipart_file(
    src: &Src<'_>,
    body: Range<u64>,
    boundary: &[u8],
    window: usize,
) -> io::Result<Multipart> {
    let mut delim = Vec::with_capacity(boundary.len() + 2);
    delim.extend_from_slice(b"--");
    delim.extend_from_slice(boundary);
    let len = (body.end - body.start) as usize;
    let finder = memchr::memmem::Finder::new(&delim);
    let mut bytes = Bytes { src, range: body.clone(), block_at: 0, block: Vec::new() };
    let mut out = Multipart::default();
    let mut open: Option<usize> = None;
    let mut win = vec![0; window + delim.len() - 1];
    let mut win_at = 0;
    while win_at < len {
        let n = (len - win_at).min(win.len());
        if src.read_at(&mut win[..n], body.start + win_at as u64)? < n {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the file shrank"));
        }
        let hits: Vec<usize> =
            finder.find_iter(&win[..n]).filter(|&j| j < window).map(|j| win_at + j).collect();
        for at in hits {
            if at > 0 && !matches!(bytes.get(at - 1)?, Some(b'\n' | b'\r')) {
                continue;
            }
            let mut k = at + delim.len();
            let closing = bytes.get(k)? == Some(b'-') && bytes.get(k + 1)? == Some(b'-');
            if closing {
                k += 2;
            }
            while matches!(bytes.get(k)?, Some(b' ' | b'\t')) {
                k += 1;
            }
            let next = match bytes.get(k)? {
                None => k,
                Some(b'\r') if bytes.get(k + 1)? == Some(b'\n') => k + 2,
                Some(b'\n' | b'\r') => k + 1,
                Some(_) => continue,
            };
            let mut end = at;
            if end > 0 && bytes.get(end - 1)? == Some(b'\n') {
                end -= 1;
            }
            if end > 0 && bytes.get(end - 1)? == Some(b'\r') {
                end -= 1;
            }
            match open {
                None => out.preamble = 0..end,
                Some(s) => out.parts.push(s..end.max(s)),
            }
            if closing {
                out.closed = true;
                out.epilogue = Some(next..len);
                return Ok(out);
            }
            open = Some(next);
        }
        win_at += window;
    }
    match open {
        Some(s) => out.parts.push(s..len),
        None => out.preamble = 0..len,
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    fn whole(f: &File) -> Src<'_> {
        let origin = Position { offset: 0, line: 1, column: 1 };
        Src { file: f, at: 0, len: f.metadata().unwrap().len(), origin, mbox: false }
    }

    /// The windowed boundary search cuts where the one over a slice cuts,
    /// whatever the window (boundaries across its edges included).
    #[test]
    fn boundaries_found_across_windows() {
        let body = b"pre\r\n--b\r\nA\r\n--b  \r\n\r\nB\r\n--bb\r\n--b\n\nC--b\n--b--\r\nepi";
        for cut in 0..body.len() {
            let bodies: [&[u8]; 3] = [body, &body[..cut], b"x\n--b\nonly"];
            for (k, b) in bodies.iter().enumerate() {
                let f = file(b);
                for window in [1, 2, 3, 5, 8, 64] {
                    let got =
                        split_multipart_file(&whole(&f), 0..b.len() as u64, b"b", window).unwrap();
                    assert_eq!(got, mime::split_multipart(b, b"b"), "{k} {cut} {window}");
                }
            }
        }
    }

    /// A message read from its file gives what the usual reading gives:
    /// the same URLs at the same places, excerpts, counts and lines, for a
    /// big text body and for a multipart with big parts (streamed text in
    /// quoted-printable and Latin-1, a skipped image) between small ones,
    /// with CRLF line breaks.
    #[test]
    fn big_messages_read_as_held_ones() {
        let mut qp = String::new();
        for i in 0..12_000 {
            qp.push_str(&format!(
                "Go to http://www.example.org/x{i}.html or <URL:ftp://ftp.example.net/\r\n  \
                 pub/f{i}.txt> caf=E9 http://b.example/a%zz{i} http://c.example:99999/ \
                 http://a.example/{i}=\r\n?q=3D{i}\r\n"
            ));
        }
        let head = "From: a@example.org\r\nSubject: see http://subj.example:99999/\r\n\
                    Message-ID: <m@x>\r\n";
        let multi = format!(
            "{head}Content-Type: multipart/mixed; boundary=\"zz\"\r\n\r\n\
             preamble http://pre.example/%zz\r\n--zz\r\nContent-Type: text/plain\r\n\r\n\
             small http://small.example:99999/\r\n--zz\r\n\
             Content-Type: text/html; charset=iso-8859-1\r\n\
             Content-Transfer-Encoding: quoted-printable\r\nX-Url: http://hdr.example/%zz\r\n\
             \r\n{qp}\r\n--zz\r\nContent-Type: image/png\r\n\r\n{zeros}\r\n--zz\r\n\r\n\
             no header http://nh.example/%zz\r\n--zz--\r\nepilogue http://epi.example:1/%\r\n",
            zeros = "A".repeat(1_700_000),
        );
        let leaf = format!(
            "From a@b Thu Jan  1 00:00:00 1970\n{head}Content-Type: text/plain; charset=latin1\n\
             Content-Transfer-Encoding: quoted-printable\n\n{qp}"
        );
        let sifter = Sifter::new(crate::extract::Options { excerpts: true, ..Default::default() });
        for msg in [multi, leaf] {
            let msg = msg.as_bytes();
            let f = file(msg);
            let (mut urls, mut problems) = (Vec::new(), Vec::new());
            let (stats, lines) = read_file(
                &sifter,
                &f,
                InputKind::Message,
                1_500_000,
                &mut |u| urls.push(u),
                &mut |p| problems.push(p),
            )
            .unwrap()
            .expect("read from the file");
            let (mut want, mut want_problems) = (Vec::new(), Vec::new());
            let want_stats = super::super::extract_mail(
                &sifter,
                msg,
                InputKind::Message,
                |u| want.push(u),
                |p| want_problems.push(p),
            )
            .unwrap();
            assert!(want.len() > 40_000, "{}", want.len());
            assert!(want.iter().any(|u| u.url.findings.iter().any(|f| f.excerpt.is_some())));
            assert_eq!((stats, lines), (want_stats, crate::posmap::count_lines(msg)));
            assert_eq!(problems, want_problems);
            if let Some(i) = (0..want.len()).find(|&i| urls.get(i) != Some(&want[i])) {
                panic!("URL #{i}: {:?} vs {:?}", urls.get(i), want[i]);
            }
            assert_eq!(urls.len(), want.len());
        }
    }

    /// Lines and columns counted forward through the file are those of a
    /// line index over the whole of it, CRs and CRLFs included.
    #[test]
    fn lines_as_the_index_counts_them() {
        let text = b"ab\r\ncd\ref\n\n\r\r\ngh\rij\nk";
        let f = file(text);
        let index = crate::posmap::LineIndex::new(text, 0, 1, 1);
        for step in [1, 2, 3, 7] {
            let src = whole(&f);
            let mut lines = Lines::new(&src);
            for o in 0..=text.len() {
                assert_eq!(lines.position(o as u64).unwrap(), index.position(o), "{o}");
                if o % step == 0 {
                    lines.advance(o as u64);
                }
            }
        }
    }
}
