//! One whole input: its head read once (binary sniff, kind), then read as
//! text, mail or a document, each URL rendered through the caller's
//! [`Emit`] into the file's output, handed over in pieces.

use std::fs::File;
use std::io::{self, Read};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Context, Emit, FileResult, Input, RunOptions, Tally, panic_message, reason};
use crate::compress::{Compression, Decoder};
use crate::doc::Format;
use crate::extract::{Extracted, Scratch, Sifter};
use crate::mail::{self, InputKind, LocalIndex, MailProblem, MailUrl};

/// Bytes inspected for a NUL to call a file binary, as git and ripgrep do.
pub(super) const BINARY_SNIFF: usize = 8 * 1024;

/// Where a file's output goes while it is scanned: the writer, in pieces,
/// when the file's turn to be written has come; nowhere (the output is
/// kept) otherwise. An error is the writer's: the run stops.
pub(super) type Pieces<'a> = dyn FnMut(&mut Vec<u8>) -> io::Result<()> + 'a;

/// Scans one whole input; `opened` is the input file if the caller has
/// opened it already and read its head into `scratch.head`.
///
/// `stop` set (by an output error, here or on another thread) ends the
/// scan at its next read: nobody will read what it would find.
#[allow(clippy::too_many_arguments)]
pub(super) fn process<E: Emit>(
    input: &Input,
    opened: Option<File>,
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    scratch: &mut Scratch,
    pieces: &mut Pieces<'_>,
    stop: &AtomicBool,
) -> io::Result<FileResult> {
    let mut r = FileResult::default();
    let mut sink = Sink { pieces, failed: None, panic: None, stop, detached: false };
    let sifter = match input {
        Input::File { path, .. } => sifter.for_path(path),
        Input::Stdin => sifter,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| match input {
        Input::Stdin => {
            let reader = Stoppable { inner: io::stdin().lock(), stop };
            scan_reader(reader, false, input, sifter, emit, opts, scratch, &mut r, &mut sink)
        }
        Input::File { path, .. } => {
            let head_read = opened.is_some();
            match opened.map_or_else(|| File::open(path), Ok) {
                Ok(f) => {
                    let mut inner = AtReader::new(f);
                    if head_read {
                        // The worker read the head already (`Pool::work`).
                        inner.pos = scratch.head.len() as u64;
                    }
                    let reader = Stoppable { inner, stop };
                    let (r, sink) = (&mut r, &mut sink);
                    scan_reader(reader, head_read, input, sifter, emit, opts, scratch, r, sink)
                }
                Err(e) => Err(e),
            }
        }
    }));
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => r.error = Some(reason(&e)),
        Err(panic) => {
            *scratch = Scratch::default();
            r.error = Some(panic_message(&panic));
        }
    }
    if let Some(panic) = sink.panic {
        // The caller's callback panicked, not the scan: theirs to see.
        std::panic::resume_unwind(panic);
    }
    match sink.failed {
        Some(e) => Err(e),
        None => Ok(r),
    }
}

pub(super) struct Sink<'a, 'b> {
    pub(super) pieces: &'a mut Pieces<'b>,
    pub(super) failed: Option<io::Error>,
    /// A panic of the callback, kept apart from the scan's own panics
    /// (which `process` reports as the file's error).
    pub(super) panic: Option<Box<dyn std::any::Any + Send>>,
    pub(super) stop: &'a AtomicBool,
    /// The input's bytes are not its file's (a buffer given a name): the
    /// file is never opened again for a big message or a size.
    pub(super) detached: bool,
}

/// A reader that fails once the run is stopping.
pub(super) struct Stoppable<'a, R> {
    pub(super) inner: R,
    pub(super) stop: &'a AtomicBool,
}

impl<R: Read> Read for Stoppable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(io::Error::other("the run is stopping"));
        }
        self.inner.read(buf)
    }
}

impl Sink<'_, '_> {
    /// Called after each URL's output is appended to `out`.
    pub(super) fn after(&mut self, out: &mut Vec<u8>) {
        if self.failed.is_some() || self.panic.is_some() {
            // Nobody will read it: the run is stopping.
            out.clear();
        } else if out.len() >= PIECE {
            match catch_unwind(AssertUnwindSafe(|| (self.pieces)(out))) {
                Ok(Ok(())) => return,
                Ok(Err(e)) => self.failed = Some(e),
                Err(panic) => self.panic = Some(panic),
            }
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn scan_reader<R: Read, E: Emit>(
    mut reader: R,
    head_read: bool,
    input: &Input,
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    scratch: &mut Scratch,
    r: &mut FileResult,
    sink: &mut Sink<'_, '_>,
) -> io::Result<()> {
    let mut head = std::mem::take(&mut scratch.head);
    let res = if head_read { Ok(()) } else { read_head(&mut reader, &mut head) }.and_then(|_| {
        scan_head_and_rest(&head, reader, input, sifter, emit, opts, scratch, r, sink)
    });
    scratch.head = head;
    res
}

/// How an input whose first bytes are `head` is read; `None` when it
/// looks binary (a NUL byte) and binary files are skipped.
pub(super) fn sniff(head: &[u8], opts: RunOptions) -> Option<InputKind> {
    if !opts.binary && memchr::memchr(0, head).is_some() {
        return None;
    }
    Some(opts.input.unwrap_or_else(|| mail::detect(head)))
}

/// Reads the first [`BINARY_SNIFF`] bytes of an input (fewer at its end)
/// into `head`.
pub(super) fn read_head(reader: impl Read, head: &mut Vec<u8>) -> io::Result<()> {
    head.clear();
    head.reserve(BINARY_SNIFF);
    reader.take(BINARY_SNIFF as u64).read_to_end(head).map(drop)
}

/// The rest of [`scan_reader`], once `head` (the first bytes of the
/// input, at most [`BINARY_SNIFF`]) is read.
#[allow(clippy::too_many_arguments)]
pub(super) fn scan_head_and_rest<R: Read, E: Emit>(
    head: &[u8],
    reader: R,
    input: &Input,
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    scratch: &mut Scratch,
    r: &mut FileResult,
    sink: &mut Sink<'_, '_>,
) -> io::Result<()> {
    // `read_to_end` stops at the limit or at the end: in the second case
    // the read that said so need not be asked again (most files of a docs
    // tree are smaller than the sniff, and one read call each is saved).
    let ended = head.len() < BINARY_SNIFF;
    if !opts.no_decompress
        && r.compressed.is_none()
        && let Some(format) = Compression::detect(head)
    {
        // Decompressed in process, and read as what it holds: the same
        // path again, with the decompressed head. (Boxed: one more
        // instance of this function, not one per level.)
        let raw = io::Cursor::new(head).chain(reader.take(if ended { 0 } else { u64::MAX }));
        let mut decoder = Decoder::new(format, raw, opts.max_ratio);
        let handle = decoder.handle();
        r.compressed = Some(format);
        let mut inner = Vec::new();
        let res = read_head(&mut decoder, &mut inner).and_then(|_| {
            let decoder: Box<dyn Read + '_> = Box::new(decoder);
            scan_head_and_rest(&inner, decoder, input, sifter, emit, opts, scratch, r, sink)
        });
        r.compressed_bytes = handle.compressed_bytes();
        // A broken stream ended the read where it broke: what came before
        // is reported, and so is the break.
        return match handle.error() {
            Some(e) => res.and(Err(e)),
            None => res,
        };
    }
    if opts.records {
        let reader = io::Cursor::new(head).chain(reader.take(if ended { 0 } else { u64::MAX }));
        return super::records::scan_records(reader, input, sifter, emit, opts, scratch, r, sink);
    }
    if is_warc_input(head, opts) {
        let reader = io::Cursor::new(head).chain(reader.take(if ended { 0 } else { u64::MAX }));
        return scan_warc(reader, input, sifter, emit, opts, scratch, r, sink);
    }
    let Some(kind) = sniff(head, opts) else {
        r.binary = true;
        r.bytes = head.len() as u64;
        return Ok(());
    };
    let mut reader = io::Cursor::new(head).chain(reader.take(if ended { 0 } else { u64::MAX }));
    let path = match input {
        Input::File { path, .. } => Some(path.as_path()),
        Input::Stdin => None,
    };
    // What is inside a compressed file is told by the name before its
    // suffix (`notes.md.gz` is Markdown); the file itself is not opened
    // again (its bytes are not what is read).
    let inner_path = match (r.compressed, path) {
        (Some(_), Some(p)) => p
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| p.with_file_name(Compression::inner_name(n))),
        _ => None,
    };
    let (path, reopen) = match &inner_path {
        Some(p) => (Some(p.as_path()), false),
        None => (path, r.compressed.is_none() && !sink.detached),
    };
    let format = match opts.input {
        // A file forced to be read as mail or text is read that way.
        Some(_) => Format::Text,
        None => sifter.format_of(path, head),
    };
    if format.is_document() {
        // Documents are read whole: markup decides what the text is, and
        // a reader looks ahead (a Markdown reference definition can come
        // after its use). Past `DOC_MAX` a file is read as plain text,
        // streamed, so memory stays bounded.
        // Sized from the file's length, so a document is read in one
        // allocation: a buffer grown by doubling touches up to three times
        // the file's size in fresh pages, and page faults were a good part
        // of a large document's time. `+ 1` lets the read that finds the
        // end land in the buffer; a file that grew meanwhile still grows it.
        let size =
            path.filter(|_| reopen).and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len());
        let want = (size as usize).clamp(head.len(), DOC_MAX) + 1;
        let mut doc = Vec::with_capacity(want);
        (&mut reader).take(DOC_MAX as u64).read_to_end(&mut doc)?;
        if doc.len() < DOC_MAX {
            let mut each = Render::new(input, emit, opts, r, sink);
            // Relative links lead from the file's directory. A compressed
            // document's are not checked: its tree is not read as it
            // stands (a browser opens no `.md.gz`), and its findings stay
            // those of the plain file.
            let local = path.filter(|_| r.compressed.is_none());
            crate::doc::extract_doc_at(sifter, format, &doc, local, opts.keep_code, |e| {
                each.url(&e, Context::default());
            });
            each.close(r);
            r.bytes = doc.len() as u64;
            return Ok(());
        }
        let reader = io::Cursor::new(doc).chain(reader);
        return scan_text(reader, input, sifter, emit, opts, scratch, r, sink);
    }
    if kind == InputKind::Text {
        return scan_text(reader, input, sifter, emit, opts, scratch, r, sink);
    }
    // The cross-reference map needs every message id before the first
    // URL is printed, so it costs a quick pass over the headers first.
    // (Not for a compressed file, whose bytes on disk are not the mail.)
    let index = match (opts.resolve_local, input) {
        (true, Input::File { path, .. }) if reopen => {
            Some(LocalIndex::build_file(File::open(path)?, kind)?)
        }
        _ => None,
    };
    let (mut problems, mut unread) = (Vec::new(), false);
    let mut each = Render::new(input, emit, opts, r, sink);
    let mut url = |m: MailUrl| {
        let resolved = index.as_ref().and_then(|i| mail::resolve_local(i, &m));
        each.url(&m.url, Context { mail: Some(&m), resolved, ..Context::default() });
    };
    let mut problem = |p: MailProblem| {
        unread |= p.skipped;
        problems.push(problem_line(&p));
    };
    // A single message too big to hold is read from its file (opened
    // again only when it is a regular file: a FIFO would block).
    let big = match input {
        Input::File { path, .. }
            if kind != InputKind::Mbox
                && reopen
                && std::fs::metadata(path)
                    .is_ok_and(|m| m.is_file() && m.len() >= mail::big_message_min()) =>
        {
            File::open(path)
                .and_then(|f| mail::extract_big_message(sifter, &f, kind, &mut url, &mut problem))
        }
        _ => Ok(None),
    };
    // Else a big message of an mbox is read again from the file, one of
    // standard input from the copy spooled while it is read.
    let source = match input {
        Input::File { path, .. } if reopen => {
            File::open(path).ok().filter(|f| f.metadata().is_ok_and(|m| m.is_file()))
        }
        _ => None,
    };
    let stats = match big {
        Ok(Some((stats, _))) => Ok(stats),
        Ok(None) => mail::extract_mail_with(sifter, reader, kind, source, &mut url, &mut problem),
        Err(e) => Err(e),
    };
    // What was found before a read error is kept: nothing is lost.
    each.close(r);
    r.problems = problems;
    r.unread = unread;
    let stats = stats?;
    r.mail = Some(stats);
    r.bytes = stats.bytes;
    Ok(())
}

/// Whether an input whose first bytes are `head` is read as a WARC file:
/// forced, or detected when the input kind is not.
pub(super) fn is_warc_input(head: &[u8], opts: RunOptions) -> bool {
    opts.warc || (opts.input.is_none() && crate::warc::is_warc(head))
}

/// Scans a WARC file record by record, streamed (see [`crate::warc`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn scan_warc<R: Read, E: Emit>(
    reader: R,
    input: &Input,
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    scratch: &mut Scratch,
    r: &mut FileResult,
    sink: &mut Sink<'_, '_>,
) -> io::Result<()> {
    let mut problems = Vec::new();
    let mut each = Render::new(input, emit, opts, r, sink);
    let stats = crate::warc::extract_warc(
        sifter,
        reader,
        opts.keep_code,
        scratch,
        |record, e| each.url(&e, Context { warc: Some(record), ..Context::default() }),
        |p| problems.push(p),
    );
    // What was found before a read error is kept: nothing is lost.
    each.close(r);
    // A damaged record was read as far as it could be, but the file is
    // not what it says: the run reports it (exit 2).
    r.unread = !problems.is_empty();
    r.problems = problems;
    let stats = stats?;
    r.bytes = stats.bytes;
    r.warc = Some(stats);
    Ok(())
}

/// Scans an input as plain text, streamed.
#[allow(clippy::too_many_arguments)]
pub(super) fn scan_text<R: Read, E: Emit>(
    reader: R,
    input: &Input,
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    scratch: &mut Scratch,
    r: &mut FileResult,
    sink: &mut Sink<'_, '_>,
) -> io::Result<()> {
    let mut each = Render::new(input, emit, opts, r, sink);
    let stats = sifter.extract_reader(reader, scratch, |e| each.url(&e, Context::default()));
    // What was found before a read error is kept: nothing is lost.
    each.close(r);
    r.bytes = stats?.bytes;
    Ok(())
}

/// Renders the URLs of one input as they are found, whatever reads them
/// (the text scanner, a document reader, the mail reader), and counts
/// them for its [`FileResult`].
pub(super) struct Render<'a, 's, 'p, 'q, E> {
    pub(super) input: &'a Input,
    pub(super) emit: &'a E,
    pub(super) opts: RunOptions,
    pub(super) out: Vec<u8>,
    pub(super) tally: Tally,
    pub(super) sink: &'s mut Sink<'p, 'q>,
    pub(super) urls: u64,
    pub(super) failing: u64,
    pub(super) findings: u64,
    pub(super) compressed: Option<Compression>,
}

impl<'a, 's, 'p, 'q, E: Emit> Render<'a, 's, 'p, 'q, E> {
    /// Takes over `r`'s output buffer and tally until [`Render::close`].
    pub(super) fn new(
        input: &'a Input,
        emit: &'a E,
        opts: RunOptions,
        r: &mut FileResult,
        sink: &'s mut Sink<'p, 'q>,
    ) -> Self {
        let (out, tally) = (std::mem::take(&mut r.out), std::mem::take(&mut r.tally));
        let compressed = r.compressed;
        Render { input, emit, opts, out, tally, sink, urls: 0, failing: 0, findings: 0, compressed }
    }

    pub(super) fn url(&mut self, e: &Extracted, mut cx: Context<'_>) {
        cx.compressed = self.compressed;
        // A relative link is handed over for its findings (or with
        // `extract --relative`), but it is no URL.
        self.urls += u64::from(!e.is_relative());
        self.findings += e.findings.len() as u64;
        self.failing += u64::from(self.emit.emit(self.input, e, cx, &mut self.out));
        if self.opts.tally {
            self.tally.add(e);
        }
        self.sink.after(&mut self.out);
    }

    /// Hands the output and the counts back to `r`.
    pub(super) fn close(self, r: &mut FileResult) {
        r.out = self.out;
        r.tally = self.tally;
        r.urls = self.urls;
        r.failing = self.failing;
        r.findings = self.findings;
    }
}

/// Documents of this many bytes or more are read as plain text, streamed.
pub(super) const DOC_MAX: usize = 64 << 20;

/// Reads a file with `pread` from its own offset: with several threads,
/// each `read` takes the open file's position lock; `pread` has none.
/// Falls back to `read` on what cannot seek (a FIFO named as an input).
pub(super) struct AtReader<F> {
    pub(super) file: F,
    pub(super) pos: u64,
    pub(super) seekable: bool,
}

impl<F> AtReader<F> {
    pub(super) fn new(file: F) -> AtReader<F> {
        AtReader { file, pos: 0, seekable: true }
    }
}

impl<F: std::borrow::Borrow<File>> Read for AtReader<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::unix::fs::FileExt;
        if self.seekable {
            match self.file.borrow().read_at(buf, self.pos) {
                Ok(n) => {
                    self.pos += n as u64;
                    return Ok(n);
                }
                // A FIFO reads in order anyway: its head came from `read`
                // too, so nothing is skipped or read twice.
                Err(e) if e.kind() == io::ErrorKind::NotSeekable => self.seekable = false,
                Err(e) => return Err(e),
            }
        }
        let mut f: &File = self.file.borrow();
        f.read(buf)
    }
}

/// Output of one file is handed over in pieces of about this size.
pub(super) const PIECE: usize = 256 << 10;

/// One line for a message that could not be read.
pub(super) fn problem_line(p: &MailProblem) -> String {
    format!("message {} (line {}): {}", p.message_index, p.line, p.reason)
}
