//! Files, threads and ordering: turns the paths a user gave into inputs
//! (walking directories with the `ignore` crate, so `.gitignore` is
//! respected), scans them in parallel, and hands each file's rendered
//! output to the caller in input order, as soon as that order allows.
//!
//! Workers render into a per-file buffer and the calling thread writes the
//! buffers in order, so output is byte-identical whatever the thread count
//! and lines of different files never interleave.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::extract::{Extracted, Scratch, Sifter, Span, SpanStats};
use crate::mail::{self, InputKind, LocalIndex, MailStats, MailUrl};

/// One thing to scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input, shown as `-`.
    Stdin,
    /// A file, and the path to show for it.
    File {
        /// Where to read it.
        path: PathBuf,
        /// How output names it.
        shown: String,
    },
}

impl Input {
    /// The name output uses for this input.
    pub fn shown(&self) -> &str {
        match self {
            Input::Stdin => "-",
            Input::File { shown, .. } => shown,
        }
    }
}

/// How directories are walked.
#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    /// Also walk hidden files and directories.
    pub hidden: bool,
    /// Do not read `.gitignore`, `.ignore` or git excludes.
    pub no_ignore: bool,
    /// Follow symbolic links (loops are reported, not followed).
    pub follow: bool,
    /// Skip files larger than this many bytes.
    pub max_filesize: Option<u64>,
    /// Include (`pattern`) and exclude (`!pattern`) globs, as in ripgrep.
    pub globs: Vec<String>,
}

/// A problem with the inputs themselves, not with a URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// The path concerned.
    pub path: String,
    /// What went wrong.
    pub reason: String,
    /// False for a report that does not make the run fail (a symlink loop
    /// that was skipped).
    pub fatal: bool,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}

/// Expands the user's paths into inputs: `-` is standard input, a file is
/// itself (even if an ignore file would skip it: naming it is asking for
/// it), a directory is walked and its files sorted by path.
pub fn collect_inputs(
    paths: &[PathBuf],
    opts: &WalkOptions,
    errors: &mut Vec<InputError>,
) -> Vec<Input> {
    let implicit = paths.is_empty();
    let default = [PathBuf::from(".")];
    let paths = if implicit { &default[..] } else { paths };
    let mut inputs = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            inputs.push(Input::Stdin);
            continue;
        }
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => walk(p, implicit, opts, &mut inputs, errors),
            Ok(_) => inputs.push(Input::File { path: p.clone(), shown: show(p, false) }),
            Err(e) => {
                errors.push(InputError { path: show(p, false), reason: reason(&e), fatal: true })
            }
        }
    }
    inputs
}

fn walk(
    root: &Path,
    implicit: bool,
    opts: &WalkOptions,
    inputs: &mut Vec<Input>,
    errors: &mut Vec<InputError>,
) {
    let mut b = ignore::WalkBuilder::new(root);
    b.hidden(!opts.hidden)
        .ignore(!opts.no_ignore)
        .git_ignore(!opts.no_ignore)
        .git_global(!opts.no_ignore)
        .git_exclude(!opts.no_ignore)
        .parents(!opts.no_ignore)
        .follow_links(opts.follow)
        .max_filesize(opts.max_filesize);
    if !opts.globs.is_empty() {
        let mut ob = ignore::overrides::OverrideBuilder::new(root);
        for g in &opts.globs {
            if let Err(e) = ob.add(g) {
                errors.push(InputError {
                    path: g.clone(),
                    reason: format!("bad glob: {e}"),
                    fatal: true,
                });
            }
        }
        match ob.build() {
            Ok(o) => {
                b.overrides(o);
            }
            Err(e) => errors.push(InputError {
                path: root.display().to_string(),
                reason: format!("bad glob: {e}"),
                fatal: true,
            }),
        }
    }
    let mut found = Vec::new();
    for entry in b.build() {
        match entry {
            Ok(e) => {
                if e.file_type().is_some_and(|t| t.is_file()) {
                    found.push(e.into_path());
                }
            }
            Err(e) => {
                let looped = is_loop(&e);
                errors.push(InputError {
                    path: root.display().to_string(),
                    reason: e.to_string(),
                    fatal: !looped,
                });
            }
        }
    }
    found.sort();
    inputs.extend(found.into_iter().map(|p| {
        let shown = show(&p, implicit);
        Input::File { path: p, shown }
    }));
}

fn is_loop(e: &ignore::Error) -> bool {
    match e {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => is_loop(err),
        _ => false,
    }
}

/// Paths are shown as given; the `./` of an implicit `.` is dropped, as
/// ripgrep does.
fn show(p: &Path, implicit: bool) -> String {
    let p = if implicit { p.strip_prefix(".").unwrap_or(p) } else { p };
    p.to_string_lossy().into_owned()
}

fn reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Where a URL sits beyond its file position: the message and MIME part
/// of a mail or news input.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context<'a> {
    /// Set for mail and news inputs.
    pub mail: Option<&'a MailUrl>,
    /// With `--resolve-local`: the index of the message in the same file
    /// that a `news:` or `mid:` URL names.
    pub resolved: Option<usize>,
}

/// Renders one file's URLs. Implemented by the printers.
pub trait Emit: Sync {
    /// Appends the output for one URL of `input` to `out`; returns true if
    /// the URL counts as failing (for `lint`'s exit code).
    fn emit(&self, input: &Input, url: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool;
}

/// What came of one input.
#[derive(Debug, Default)]
pub struct FileResult {
    /// Rendered output, written as one block.
    pub out: Vec<u8>,
    /// URLs found.
    pub urls: u64,
    /// URLs that `emit` called failing.
    pub failing: u64,
    /// Findings on the URLs.
    pub findings: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Skipped because it looks binary.
    pub binary: bool,
    /// Could not be read (fully); the message names the reason.
    pub error: Option<String>,
    /// Messages of a mail or news input that could not be parsed and were
    /// skipped (the rest of the file was read).
    pub problems: Vec<String>,
    /// Counts for a mail or news input.
    pub mail: Option<MailStats>,
}

/// Totals over a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    /// Inputs scanned.
    pub files: u64,
    /// Bytes read.
    pub bytes: u64,
    /// URLs found.
    pub urls: u64,
    /// URLs that counted as failing.
    pub failing: u64,
    /// Findings on the URLs.
    pub findings: u64,
    /// Inputs skipped as binary.
    pub binary: u64,
    /// Inputs that could not be read.
    pub errors: u64,
    /// Mail and news counts, summed over the inputs read as mail.
    pub mail: MailStats,
}

/// How a run treats files.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Scan files that look binary instead of skipping them.
    pub binary: bool,
    /// How to read inputs: `None` detects mail and news by content.
    pub input: Option<InputKind>,
    /// Resolve `news:` and `mid:` URLs to messages of the same file.
    pub resolve_local: bool,
    /// Plain-text files of at least twice this many bytes are split into
    /// parts of about this size, scanned in parallel; 0 means 32 MiB.
    pub part_size: u64,
}

/// Scans every input in parallel and calls `write` with each result, in
/// input order. `write` runs on the calling thread.
pub fn run<E: Emit>(
    inputs: &[Input],
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    mut write: impl FnMut(&Input, &FileResult) -> io::Result<()>,
) -> io::Result<Summary> {
    let mut summary = Summary::default();
    let mut tally = |r: &FileResult| {
        summary.files += 1;
        summary.bytes += r.bytes;
        summary.urls += r.urls;
        summary.failing += r.failing;
        summary.findings += r.findings;
        summary.binary += u64::from(r.binary);
        summary.errors += u64::from(r.error.is_some());
        if let Some(m) = r.mail {
            summary.mail += m;
        }
    };
    let threads = if opts.threads == 0 { num_cpus() } else { opts.threads };
    let jobs = plan(inputs, threads, opts);
    if threads <= 1 || jobs.len() <= 1 {
        let mut scratch = Scratch::default();
        for input in inputs {
            let r = process(input, sifter, emit, opts, &mut scratch);
            tally(&r);
            write(input, &r)?;
        }
        return Ok(summary);
    }
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(io::Error::other)?;
    // One scratch per worker for the whole run: rayon's `_init` closures
    // run once per split of the work, which on a tree of small files meant
    // a fresh 256 KiB buffer (and its page faults) every few files.
    let scratches: Vec<Mutex<Scratch>> =
        (0..threads).map(|_| Mutex::new(Scratch::default())).collect();
    let mut joining = Joining::default();
    let mut scratch = Scratch::default();
    // Jobs go to the pool in batches and each batch is written in order as
    // soon as it is done. A channel with a result per file woke the writing
    // thread 1,400 times on a docs tree and made two threads slower than
    // one; a batch keeps the output streaming and the cores busy.
    let batch = (threads * 512).max(1024);
    for (b, chunk) in jobs.chunks(batch).enumerate() {
        let results: Vec<JobResult> = pool.install(|| {
            chunk
                .par_iter()
                .map(|job| {
                    let slot = rayon::current_thread_index().unwrap_or(0) % threads;
                    let mut guard = scratches[slot].lock().unwrap_or_else(|e| e.into_inner());
                    let scratch = &mut *guard;
                    match *job {
                        Job::Whole(k) => {
                            JobResult::Whole(process(&inputs[k], sifter, emit, opts, scratch))
                        }
                        Job::Part(part) => {
                            JobResult::Part(scan_part(&inputs[part.input], part, sifter, scratch))
                        }
                    }
                })
                .collect()
        });
        for (i, r) in results.into_iter().enumerate() {
            match (r, jobs[b * batch + i]) {
                (JobResult::Whole(r), Job::Whole(k)) => {
                    tally(&r);
                    write(&inputs[k], &r)?;
                }
                (JobResult::Part(p), Job::Part(part)) => {
                    let input = &inputs[part.input];
                    joining.add(part, p, input, sifter, emit, &mut scratch);
                    if part.last {
                        let r = std::mem::take(&mut joining.result);
                        joining = Joining::default();
                        tally(&r);
                        write(input, &r)?;
                    }
                }
                _ => unreachable!("results come back as the job they answer"),
            }
        }
    }
    Ok(summary)
}

/// Files at least twice this big are scanned by several threads at once,
/// in parts of about this size cut at line starts: big enough that the
/// per-part overhead vanishes, small enough to balance two to eight cores
/// on files of a few hundred megabytes.
const PART: u64 = 32 << 20;

/// One unit of parallel work.
#[derive(Clone, Copy, Debug)]
enum Job {
    /// A whole input.
    Whole(usize),
    /// A part of a big text file.
    Part(Part),
}

#[derive(Clone, Copy, Debug)]
struct Part {
    input: usize,
    /// A line start.
    start: u64,
    /// The next part's start, or the file size.
    end: u64,
    last: bool,
}

enum JobResult {
    Whole(FileResult),
    Part(PartResult),
}

/// A part's URLs with lines counted from the part's start.
struct PartResult {
    urls: Vec<Extracted>,
    stats: SpanStats,
    error: Option<String>,
}

/// Splits big plain-text files into parts; everything else is one job.
/// Mail is never split (messages would lose their numbering), nor is
/// anything binary.
fn plan(inputs: &[Input], threads: usize, opts: RunOptions) -> Vec<Job> {
    let mut jobs = Vec::with_capacity(inputs.len());
    for (k, input) in inputs.iter().enumerate() {
        let cuts = match input {
            Input::File { path, .. } if threads > 1 => cuts(path, opts).unwrap_or_default(),
            _ => Vec::new(),
        };
        if cuts.len() < 3 {
            jobs.push(Job::Whole(k));
            continue;
        }
        for w in cuts.windows(2) {
            let last = w[1] == *cuts.last().unwrap();
            jobs.push(Job::Part(Part { input: k, start: w[0], end: w[1], last }));
        }
    }
    jobs
}

/// Part boundaries of a file (first 0, last its size), or none when it
/// should be read whole.
fn cuts(path: &Path, opts: RunOptions) -> io::Result<Vec<u64>> {
    use std::os::unix::fs::FileExt;
    // Look before opening: opening a FIFO here would take the writer's
    // data away from the real read (and then that read would wait forever).
    let meta = std::fs::metadata(path)?;
    let size = meta.len();
    let part = if opts.part_size == 0 { PART } else { opts.part_size };
    if !meta.is_file() || size < 2 * part {
        return Ok(Vec::new());
    }
    let f = File::open(path)?;
    let mut head = vec![0u8; BINARY_SNIFF];
    let n = f.read_at(&mut head, 0)?;
    head.truncate(n);
    let kind = opts.input.unwrap_or_else(|| mail::detect(&head));
    if kind != InputKind::Text || (!opts.binary && memchr::memchr(0, &head).is_some()) {
        return Ok(Vec::new());
    }
    let mut cuts = vec![0];
    let mut probe = vec![0u8; (64 << 10).min(part as usize)];
    let mut at = part;
    while at + part / 2 < size {
        let n = f.read_at(&mut probe, at)?;
        // A cut goes right after a line feed; with no line break in
        // reach, this part simply grows.
        if let Some(i) = memchr::memchr(b'\n', &probe[..n]) {
            cuts.push(at + i as u64 + 1);
        }
        at += part;
    }
    cuts.push(size);
    Ok(cuts)
}

fn scan_part(input: &Input, part: Part, sifter: &Sifter, scratch: &mut Scratch) -> PartResult {
    let span = Span { base: part.start, from: part.start, stop: Some(part.end) };
    scan_span(input, span, sifter, scratch)
}

fn scan_span(input: &Input, span: Span, sifter: &Sifter, scratch: &mut Scratch) -> PartResult {
    let mut urls = Vec::new();
    let Input::File { path, .. } = input else { unreachable!("only files are split") };
    let outcome = catch_unwind(AssertUnwindSafe(|| -> io::Result<SpanStats> {
        let mut f = File::open(path)?;
        f.seek(SeekFrom::Start(span.base))?;
        sifter.extract_span(f, span, scratch, |e| urls.push(e))
    }));
    let (stats, error) = match outcome {
        Ok(Ok(stats)) => (stats, None),
        Ok(Err(e)) => (SpanStats::default(), Some(reason(&e))),
        Err(panic) => {
            *scratch = Scratch::default();
            (SpanStats::default(), Some(panic_message(&panic)))
        }
    };
    PartResult { urls, stats, error }
}

/// Puts the parts of one file back together, in order.
///
/// Each part was scanned as if nothing came before it. That is exact
/// unless a URL of the previous part ran past this part's start (a wrapper
/// broken across the cut): then this part is scanned again from where
/// that URL ended, here, on the calling thread. Cuts sit at line starts,
/// so nothing else can differ: a scheme never spans a line break.
#[derive(Default)]
struct Joining {
    result: FileResult,
    /// Line breaks before the current part.
    lines: u64,
    /// Where the previous part's last URL ended.
    resume: u64,
}

impl Joining {
    fn add<E: Emit>(
        &mut self,
        part: Part,
        mut p: PartResult,
        input: &Input,
        sifter: &Sifter,
        emit: &E,
        scratch: &mut Scratch,
    ) {
        if self.result.error.is_some() {
            return;
        }
        if self.resume >= part.end {
            // One URL ran over this whole part: nothing of it is new.
            p.urls.clear();
            p.stats.resume = self.resume;
        } else if self.resume > part.start {
            let span = Span { base: part.start, from: self.resume, stop: Some(part.end) };
            p = scan_span(input, span, sifter, scratch);
        }
        if let Some(e) = p.error {
            self.result.error = Some(e);
            return;
        }
        for mut e in p.urls {
            shift_lines(&mut e, self.lines);
            self.result.urls += 1;
            self.result.findings += e.findings.len() as u64;
            let failing = emit.emit(input, &e, Context::default(), &mut self.result.out);
            self.result.failing += u64::from(failing);
        }
        self.result.bytes += part.end - part.start;
        self.lines += p.stats.lines;
        self.resume = self.resume.max(p.stats.resume);
    }
}

fn shift_lines(e: &mut Extracted, lines: u64) {
    e.start.line += lines;
    e.end.line += lines;
    for f in &mut e.findings {
        f.start.line += lines;
        f.end.line += lines;
    }
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What a caught panic says, for the one-line report.
fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    let msg = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    format!("internal error (please report): {msg}")
}

/// Bytes inspected for a NUL to call a file binary, as git and ripgrep do.
const BINARY_SNIFF: usize = 8 * 1024;

fn process<E: Emit>(
    input: &Input,
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    scratch: &mut Scratch,
) -> FileResult {
    let mut r = FileResult::default();
    let outcome = catch_unwind(AssertUnwindSafe(|| match input {
        Input::Stdin => scan_reader(io::stdin().lock(), input, sifter, emit, opts, scratch, &mut r),
        Input::File { path, .. } => match File::open(path) {
            Ok(f) => scan_reader(f, input, sifter, emit, opts, scratch, &mut r),
            Err(e) => Err(e),
        },
    }));
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => r.error = Some(reason(&e)),
        Err(panic) => {
            *scratch = Scratch::default();
            r.error = Some(panic_message(&panic));
        }
    }
    r
}

fn scan_reader<R: Read, E: Emit>(
    mut reader: R,
    input: &Input,
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    scratch: &mut Scratch,
    r: &mut FileResult,
) -> io::Result<()> {
    let mut head = Vec::with_capacity(BINARY_SNIFF);
    (&mut reader).take(BINARY_SNIFF as u64).read_to_end(&mut head)?;
    if !opts.binary && memchr::memchr(0, &head).is_some() {
        r.binary = true;
        r.bytes = head.len() as u64;
        return Ok(());
    }
    let kind = opts.input.unwrap_or_else(|| mail::detect(&head));
    let out = &mut r.out;
    let (mut urls, mut failing, mut findings) = (0, 0, 0);
    let reader = io::Cursor::new(head).chain(reader);
    if kind == InputKind::Text {
        let stats = sifter.extract_reader(reader, scratch, |e| {
            urls += 1;
            findings += e.findings.len() as u64;
            failing += u64::from(emit.emit(input, &e, Context::default(), out));
        });
        // What was found before a read error is kept: nothing is lost.
        r.urls = urls;
        r.failing = failing;
        r.findings = findings;
        r.bytes = stats?.bytes;
        return Ok(());
    }
    // The cross-reference map needs every message id before the first
    // URL is printed, so it costs a quick pass over the headers first.
    let index = match (opts.resolve_local, input) {
        (true, Input::File { path, .. }) => Some(LocalIndex::build(File::open(path)?, kind)?),
        _ => None,
    };
    let problems = &mut r.problems;
    let stats = mail::extract_mail(
        sifter,
        reader,
        kind,
        |m| {
            urls += 1;
            findings += m.url.findings.len() as u64;
            let resolved = index.as_ref().and_then(|i| mail::resolve_local(i, &m));
            let cx = Context { mail: Some(&m), resolved };
            failing += u64::from(emit.emit(input, &m.url, cx, out));
        },
        |p| problems.push(format!("message {} (line {}): {}", p.message_index, p.line, p.reason)),
    );
    r.urls = urls;
    r.failing = failing;
    r.findings = findings;
    let stats = stats?;
    r.mail = Some(stats);
    r.bytes = stats.bytes;
    Ok(())
}
