//! A big file in parts: where to cut it, the fast pass that counts a
//! part's lines (and lists its block markers) so the parts after it can
//! place their URLs early, the scan of one part, and the joining of the
//! parts' results in order.

use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::read::{is_warc_input, problem_line, sniff};
use super::{Context, Emit, FileResult, Input, RunOptions, Tally, panic_message, reason};
use crate::compress::Compression;
use crate::extract::{
    BlockMark, Extracted, MARKER_SPAN, Scratch, Sifter, Silence, Span, SpanStats,
};
use crate::mail::{self, InputKind, LocalIndex, MailProblem, MailStats, MailUrl, PartStats};

/// Files at least twice this big are scanned by several threads at once,
/// in parts of about this size cut at line starts: big enough that the
/// per-part overhead vanishes, small enough to balance two to eight cores
/// on files of a few hundred megabytes.
pub(super) const PART: u64 = 8 << 20;

#[derive(Clone, Copy, Debug)]
pub(super) struct Part {
    /// A line start.
    pub(super) start: u64,
    /// The start of the line before `start`, or `start` (see
    /// [`line_before`]): scanned as context only.
    pub(super) context: u64,
    /// How the file is read; a mail or news file is cut between messages.
    pub(super) kind: InputKind,
    /// The next part's start, or the file size.
    pub(super) end: u64,
    pub(super) last: bool,
    /// What the file's `urlsift: ignore-file` marker silences.
    pub(super) file: Option<Silence>,
}

impl Part {
    /// The part from `from`, scanned as if no block were open at its
    /// start, or `disabled`'s.
    pub(super) fn span(&self, from: u64, disabled: Option<Silence>) -> Span {
        Span { base: self.context, from, stop: Some(self.end), file: self.file, disabled }
    }

    /// Line breaks in the context before `start`.
    pub(super) fn context_lines(&self) -> u64 {
        u64::from(self.context < self.start)
    }
}

/// What came of one part: the output its worker rendered, then the URLs
/// it found before the lines before it were known, with lines counted
/// from the part's context (text) or start (mail).
pub(super) struct PartResult {
    pub(super) early: Rendered,
    pub(super) found: Found,
    /// Could not be read (fully): what was found before is kept.
    pub(super) error: Option<String>,
}

/// Output rendered by a part's worker (lines already the file's), and
/// its counts.
#[derive(Default)]
pub(super) struct Rendered {
    pub(super) out: Vec<u8>,
    pub(super) urls: u64,
    pub(super) failing: u64,
    pub(super) findings: u64,
    pub(super) tally: Tally,
    /// Some of the output was written already.
    pub(super) streamed: bool,
}

impl Rendered {
    pub(super) fn add<E: Emit>(
        &mut self,
        emit: &E,
        input: &Input,
        e: &Extracted,
        cx: Context<'_>,
        tally: bool,
    ) {
        self.urls += 1;
        self.findings += e.findings.len() as u64;
        self.failing += u64::from(emit.emit(input, e, cx, &mut self.out));
        if tally {
            self.tally.add(e);
        }
    }
}

pub(super) enum Found {
    Text { urls: Vec<Extracted>, stats: SpanStats, marks: Vec<BlockMark> },
    Mail { urls: Vec<MailUrl>, problems: Vec<MailProblem>, stats: PartStats },
}

/// Part boundaries of a big file (first 0, last its size), each with the
/// start of the line before it, and how the file is read: text is cut at
/// line starts, mail and news between messages. `None` for a file to read
/// whole: small, not a regular file, or binary. `head` is the file's first
/// bytes ([`read_head`]).
///
/// Asked by the worker that opened the file, of the open file: the listing
/// thread does nothing per file, and a FIFO is never opened twice (the
/// second open would take the writer's data away from the real read).
pub(super) fn cuts(
    f: &File,
    head: &[u8],
    opts: RunOptions,
) -> Option<(Vec<(u64, u64)>, InputKind)> {
    // A compressed file cannot be cut at a byte offset: one thread reads
    // it, the others take other files.
    if !opts.no_decompress && Compression::detect(head).is_some() {
        return None;
    }
    // Records are read whole, each as its own document.
    if opts.records || is_warc_input(head, opts) {
        return None;
    }
    let kind = sniff(head, opts)?;
    let cuts = cut_points(f, kind, opts).ok()?;
    (cuts.len() >= 3).then_some((cuts, kind))
}

pub(super) fn part_size(opts: RunOptions) -> u64 {
    if opts.part_size == 0 { PART } else { opts.part_size }
}

/// The cuts of [`cuts`] for a file read as `kind`; none when it is not
/// worth cutting.
pub(super) fn cut_points(
    f: &File,
    kind: InputKind,
    opts: RunOptions,
) -> io::Result<Vec<(u64, u64)>> {
    use std::os::unix::fs::FileExt;
    let meta = f.metadata()?;
    let size = meta.len();
    let part = part_size(opts);
    if !meta.is_file() || size < 2 * part {
        return Ok(Vec::new());
    }
    if kind != InputKind::Text {
        // Messages are independent: no context, no rescan.
        let cuts = mail::message_cuts(f, kind, size, part)?;
        return Ok(cuts.into_iter().map(|c| (c, c)).collect());
    }
    let mut cuts = vec![(0, 0)];
    let mut probe = vec![0u8; (64 << 10).min(part as usize)];
    let mut at = part;
    while at + part / 2 < size {
        // Never at or before the last cut (a long line can carry a cut
        // past the next target), never at the end: no part is empty.
        let from = at.max(cuts.last().map_or(0, |c| c.0));
        let n = f.read_at(&mut probe, from)?;
        // A cut goes right after a line feed; with no line break in
        // reach, this part simply grows.
        if let Some(i) = memchr::memchr(b'\n', &probe[..n]) {
            let cut = from + i as u64 + 1;
            if cut < size && cut > cuts.last().map_or(0, |c| c.0) {
                cuts.push((cut, line_before(f, cut)?));
            }
        }
        at += part;
    }
    cuts.push((size, size));
    Ok(cuts)
}

/// How far back a part looks for the start of the line before it.
pub(super) const CONTEXT: usize = 64 << 10;

/// The start of the line that ends right before `at` (a line start), or
/// `at` when that line is longer than [`CONTEXT`]: a part is scanned from
/// there so that an inline `urlsift: ignore` on the line before its first
/// line is seen, as in a scan of the whole file.
pub(super) fn line_before(f: &File, at: u64) -> io::Result<u64> {
    use std::os::unix::fs::FileExt;
    // One byte more than the context: a line of exactly `CONTEXT` bytes
    // is found by the break before it.
    let lo = at.saturating_sub(CONTEXT as u64 + 1);
    let mut buf = vec![0u8; (at - lo) as usize];
    f.read_exact_at(&mut buf, lo)?;
    // Not the line's own break: `\n` (maybe after `\r`), or a lone `\r`.
    let mut end = buf.len();
    if buf.last() == Some(&b'\n') {
        end -= 1;
        if end > 0 && buf[end - 1] == b'\r' {
            end -= 1;
        }
    } else if buf.last() == Some(&b'\r') {
        end -= 1;
    }
    Ok(match memchr::memrchr2(b'\n', b'\r', &buf[..end]) {
        Some(i) => lo + i as u64 + 1,
        None if lo == 0 => 0,
        None => at,
    })
}

/// Line breaks in `part` (a CRLF once), and its block markers, read
/// apart from its scan so that the parts after it can place their URLs
/// early.
pub(super) fn count_part(
    input: &Input,
    part: Part,
    sifter: &Sifter,
) -> io::Result<(u64, Vec<BlockMark>)> {
    use std::os::unix::fs::FileExt;
    pub(super) const CHUNK: usize = 256 << 10;
    let Input::File { path, .. } = input else { unreachable!("only files are split") };
    let f = File::open(path)?;
    // `buf[..kept]` is the end of the last read, not yet looked at for
    // markers (one may run on into this read); past the part's end, the
    // bytes a marker starting before it spans.
    let mut buf = vec![0u8; MARKER_SPAN + CHUNK + MARKER_SPAN];
    let (mut at, mut lines, mut cr, mut kept) = (part.start, 0, false, 0usize);
    let mut marks = Vec::new();
    while at < part.end {
        let want = ((part.end - at) as usize).min(CHUNK);
        let n = f.read_at(&mut buf[kept..kept + want], at)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let b = &buf[kept..kept + n];
        lines += crate::posmap::count_lines(b);
        // A CRLF cut between two reads is one break, not two.
        if cr && b[0] == b'\n' {
            lines -= 1;
        }
        cr = b[n - 1] == b'\r';
        let first = at - kept as u64;
        at += n as u64;
        let mut filled = kept + n;
        let upto = if at >= part.end {
            let end = filled;
            while filled < buf.len() {
                match f.read_at(&mut buf[filled..], at + (filled - end) as u64)? {
                    0 => break,
                    m => filled += m,
                }
            }
            end
        } else {
            filled.saturating_sub(MARKER_SPAN)
        };
        sifter.block_marks(&buf[..filled], 0..upto, first, &mut marks);
        buf.copy_within(upto..kept + n, 0);
        kept = kept + n - upto;
    }
    Ok((lines, marks))
}

/// Reads a mail part, handing each URL and problem over as it is found.
pub(super) fn scan_mail_part(
    input: &Input,
    part: Part,
    sifter: &Sifter,
    sink: impl FnMut(MailUrl),
    problem: impl FnMut(MailProblem),
) -> (PartStats, Option<String>) {
    let Input::File { path, .. } = input else { unreachable!("only files are split") };
    let sifter = sifter.for_path(path);
    let outcome = catch_unwind(AssertUnwindSafe(|| -> io::Result<PartStats> {
        let mut f = File::open(path)?;
        let (mut sink, mut problem) = (sink, problem);
        if part.start == 0
            && part.end == f.metadata()?.len()
            && let Some((mail, lines)) =
                mail::extract_big_message(sifter, &f, part.kind, &mut sink, &mut problem)?
        {
            return Ok(PartStats { mail, lines });
        }
        f.seek(SeekFrom::Start(part.start))?;
        // Read with positioned reads only, so the cursor they share stays.
        let source = f.try_clone().ok();
        let (start, end) = (part.start, part.end);
        mail::extract_mail_part_with(sifter, f, part.kind, start, end, source, sink, problem)
    }));
    match outcome {
        Ok(Ok(stats)) => (stats, None),
        Ok(Err(e)) => (PartStats::default(), Some(reason(&e))),
        Err(panic) => (PartStats::default(), Some(panic_message(&panic))),
    }
}

/// Scans a span of a text file, handing each URL over as it is found.
pub(super) fn scan_span_with(
    input: &Input,
    span: Span,
    sifter: &Sifter,
    scratch: &mut Scratch,
    sink: impl FnMut(Extracted),
) -> (SpanStats, Option<String>) {
    let Input::File { path, .. } = input else { unreachable!("only files are split") };
    // A rescan of a part comes here directly: its engine is the file's.
    let sifter = sifter.for_path(path);
    let outcome = catch_unwind(AssertUnwindSafe(|| -> io::Result<SpanStats> {
        let mut f = File::open(path)?;
        f.seek(SeekFrom::Start(span.base))?;
        sifter.extract_span(f, span, scratch, sink)
    }));
    match outcome {
        Ok(Ok(stats)) => (stats, None),
        Ok(Err(e)) => (SpanStats::default(), Some(reason(&e))),
        Err(panic) => {
            *scratch = Scratch::default();
            (SpanStats::default(), Some(panic_message(&panic)))
        }
    }
}

/// Puts the parts of one file back together, in order.
///
/// Each text part was scanned as if nothing came before it. That is exact
/// unless a URL of the previous part ran past this part's start (a wrapper
/// broken across the cut): then this part is scanned again from where
/// that URL ended, here, on the calling thread. Cuts sit at line starts,
/// so nothing else can differ: a scheme never spans a line break.
///
/// Mail parts are cut between messages, which are independent: their
/// results only move by the lines and messages before them.
#[derive(Default)]
pub(super) struct Joining {
    pub(super) result: FileResult,
    /// Line breaks before the current part.
    pub(super) lines: u64,
    /// Where the previous part's last URL ended.
    pub(super) resume: u64,
    /// Messages before the current part.
    pub(super) messages: u64,
    /// What an `urlsift: disable` block open at the current part's start
    /// silences.
    pub(super) disabled: Option<Silence>,
    /// With `--resolve-local`: the file's message ids, read before its
    /// first URL is written.
    pub(super) index: Option<LocalIndex>,
}

impl Joining {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn add<E: Emit>(
        &mut self,
        part: Part,
        mut p: PartResult,
        input: &Input,
        sifter: &Sifter,
        emit: &E,
        opts: RunOptions,
        scratch: &mut Scratch,
    ) {
        if self.result.error.is_some() {
            return;
        }
        if let Found::Text { urls, stats, marks } = &mut p.found {
            let marks = std::mem::take(marks);
            if self.resume >= part.end {
                // One URL ran over this whole part: nothing of it is new.
                urls.clear();
                p.early = Rendered::default();
                stats.resume = self.resume;
            } else if self.resume > part.start || self.disabled.is_some() {
                // A part streams only once the part before is joined, and
                // then knows not to (`Writer::stream`); one that starts in
                // a block renders nothing early (`Pool::scan_part`).
                debug_assert!(!p.early.streamed);
                let lines = self.lines - part.context_lines();
                let mut again = Rendered::default();
                let span = part.span(self.resume.max(part.start), self.disabled);
                let (stats, error) = scan_span_with(input, span, sifter, scratch, |mut e| {
                    e.shift_lines(lines);
                    again.add(emit, input, &e, Context::default(), opts.tally);
                });
                p = PartResult {
                    early: again,
                    found: Found::Text { urls: Vec::new(), stats, marks: Vec::new() },
                    error,
                };
            }
            if let Some(&(_, state)) = marks.last() {
                self.disabled = state;
            }
        }
        let r = &mut self.result;
        let early = p.early;
        if r.out.is_empty() {
            r.out = early.out;
        } else {
            r.out.extend_from_slice(&early.out);
        }
        r.urls += early.urls;
        r.failing += early.failing;
        r.findings += early.findings;
        if opts.tally {
            r.tally.merge(&early.tally);
        }
        match p.found {
            Found::Text { urls, stats, .. } => {
                for mut e in urls {
                    shift_lines(&mut e, self.lines - part.context_lines());
                    r.urls += 1;
                    r.findings += e.findings.len() as u64;
                    r.failing += u64::from(emit.emit(input, &e, Context::default(), &mut r.out));
                    if opts.tally {
                        r.tally.add(&e);
                    }
                }
                // (A part that failed has no count: nothing after it is
                // written anyway.)
                self.lines += stats.lines.saturating_sub(part.context_lines());
                self.resume = self.resume.max(stats.resume);
            }
            Found::Mail { urls, problems, stats } => {
                if opts.resolve_local && self.index.is_none() && r.error.is_none() {
                    match local_index(input, part.kind) {
                        Ok(i) => self.index = Some(i),
                        Err(e) => r.error = Some(reason(&e)),
                    }
                }
                for mut m in urls {
                    m.shift(self.lines, self.messages);
                    r.urls += 1;
                    r.findings += m.url.findings.len() as u64;
                    let resolved = self.index.as_ref().and_then(|i| mail::resolve_local(i, &m));
                    let cx = Context {
                        mail: Some(&m),
                        resolved,
                        compressed: None,
                        warc: None,
                        record: None,
                    };
                    r.failing += u64::from(emit.emit(input, &m.url, cx, &mut r.out));
                    if opts.tally {
                        r.tally.add(&m.url);
                    }
                }
                for mut problem in problems {
                    problem.shift(self.lines, self.messages);
                    r.unread |= problem.skipped;
                    r.problems.push(problem_line(&problem));
                }
                *r.mail.get_or_insert_with(MailStats::default) += stats.mail;
                self.lines += stats.lines;
                self.messages += stats.mail.messages;
            }
        }
        r.bytes += part.end - part.start;
        r.parts += 1;
        if p.error.is_some() {
            r.error = p.error;
        }
    }
}

pub(super) fn local_index(input: &Input, kind: InputKind) -> io::Result<LocalIndex> {
    let Input::File { path, .. } = input else { unreachable!("only files are split") };
    LocalIndex::build_file(File::open(path)?, kind)
}

pub(super) fn shift_lines(e: &mut Extracted, lines: u64) {
    e.shift_lines(lines);
}
