//! Files, threads and ordering: turns the paths a user gave into inputs
//! (walking directories with the `ignore` crate, so `.gitignore` is
//! respected), scans them in parallel, and hands each file's rendered
//! output to the caller in input order, as soon as that order allows.
//!
//! Workers render into a per-file buffer and the calling thread writes the
//! buffers in order, so output is byte-identical whatever the thread count
//! and lines of different files never interleave.
//!
//! One file per job, the data flowing down: `walk` turns paths into
//! inputs; `pool` runs the workers, keeps the output order and writes;
//! `parts` cuts a big file, counts its parts and joins their results;
//! `read` reads one input (or part) and renders its URLs. This file holds
//! the types they share and the entry points.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Condvar, Mutex};

use crate::compress::Compression;
use crate::extract::{Extracted, Scratch, Sifter};
use crate::mail::{InputKind, MailStats, MailUrl};

pub mod embed;
mod parts;
mod pool;
mod read;
mod records;
mod walk;

use pool::{Ordered, Pool, Queue, Writer};
use read::process;
pub use walk::{InputError, WalkOptions, Walked, Walker, collect_inputs, walk_inputs};

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

    /// The exact bytes of the shown name, when it is not UTF-8 (and so
    /// [`Input::shown`] had to escape it); `None` otherwise.
    pub fn raw_name(&self) -> Option<&[u8]> {
        let Input::File { path, .. } = self else { return None };
        path.to_str().is_none().then(|| {
            let raw = path.as_os_str().as_encoded_bytes();
            // An implicit walk of `.` shows names without their `./`.
            raw.strip_prefix(b"./").filter(|_| !self.shown().starts_with("./")).unwrap_or(raw)
        })
    }
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
    /// The compression the input was read through, if any.
    pub compressed: Option<Compression>,
    /// With `--resolve-local`: the index of the message in the same file
    /// that a `news:` or `mid:` URL names.
    pub resolved: Option<usize>,
    /// Set for a URL of a WARC record's payload: the record.
    pub warc: Option<&'a crate::warc::Record>,
    /// With `--input records`: the id of the record, as JSON text.
    pub record: Option<&'a str>,
}

/// Renders one file's URLs. Implemented by the printers.
pub trait Emit: Sync {
    /// Appends the output for one URL of `input` to `out`; returns true if
    /// the URL counts as failing (for `lint`'s exit code).
    fn emit(&self, input: &Input, url: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool;

    /// Appends the output for a line of a record stream (`--input
    /// records`) that is not a record: line `line` of `input`, with its
    /// `id` (JSON text) when it has one. Only JSON printers print one; the
    /// message also goes to standard error.
    fn record_error(
        &self,
        input: &Input,
        line: u64,
        id: Option<&str>,
        why: &str,
        out: &mut Vec<u8>,
    ) {
        let _ = (input, line, id, why, out);
    }
}

/// What came of one input.
#[derive(Debug, Default)]
pub struct FileResult {
    /// Rendered output (of this piece, when `partial`).
    pub out: Vec<u8>,
    /// More output of the same input follows: this is a piece of it, and
    /// the totals below come with the last piece.
    pub partial: bool,
    /// URLs found.
    pub urls: u64,
    /// URLs that `emit` called failing.
    pub failing: u64,
    /// Findings on the URLs.
    pub findings: u64,
    /// Bytes read.
    pub bytes: u64,
    /// The parts a big file was cut into and scanned in parallel; 0 when
    /// it was read whole.
    pub parts: u64,
    /// Skipped because it looks binary.
    pub binary: bool,
    /// Could not be read (fully); the message names the reason.
    pub error: Option<String>,
    /// Messages of a mail or news input that could not be parsed and were
    /// skipped (the rest of the file was read).
    pub problems: Vec<String>,
    /// Some of the input was not read (a message or MIME subtree skipped):
    /// the run reports it as an error (exit 2), the rest still counts.
    pub unread: bool,
    /// Counts for a mail or news input.
    pub mail: Option<MailStats>,
    /// URLs by scheme and kind, findings by code (with
    /// [`RunOptions::tally`] only).
    pub tally: Tally,
    /// The compression the input was read through, if any; `bytes` are
    /// the decompressed bytes.
    pub compressed: Option<Compression>,
    /// Compressed bytes read, for a compressed input.
    pub compressed_bytes: u64,
    /// Counts for a WARC input.
    pub warc: Option<crate::warc::WarcStats>,
}

/// URLs by scheme and kind, and findings by code, for `--stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// URLs by scheme, lowercased (`""` for none).
    pub schemes: BTreeMap<String, u64>,
    /// URLs by kind (`wrapped`, `angle`, `prefixed`, `bare`).
    pub kinds: BTreeMap<&'static str, u64>,
    /// Findings by code.
    pub codes: BTreeMap<&'static str, u64>,
}

impl Tally {
    /// Counts one reported URL.
    pub fn add(&mut self, e: &Extracted) {
        if e.is_relative() {
            // No URL: only its findings count.
            for f in &e.findings {
                *self.codes.entry(f.diagnostic.code.as_str()).or_default() += 1;
            }
            return;
        }
        let scheme = match memchr::memchr(b':', &e.url) {
            Some(i) => &e.url[..i],
            None => &b""[..],
        };
        // Schemes are few: look up without allocating, allocate once each.
        match self.schemes.iter_mut().find(|(k, _)| k.as_bytes().eq_ignore_ascii_case(scheme)) {
            Some((_, n)) => *n += 1,
            None => {
                let name = String::from_utf8_lossy(scheme).to_ascii_lowercase();
                *self.schemes.entry(name).or_default() += 1;
            }
        }
        *self.kinds.entry(e.kind.as_str()).or_default() += 1;
        for f in &e.findings {
            *self.codes.entry(f.diagnostic.code.as_str()).or_default() += 1;
        }
    }

    /// Adds another tally to this one.
    pub fn merge(&mut self, o: &Tally) {
        for (k, n) in &o.schemes {
            *self.schemes.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &o.kinds {
            *self.kinds.entry(k).or_default() += n;
        }
        for (k, n) in &o.codes {
            *self.codes.entry(k).or_default() += n;
        }
    }
}

/// Totals over a run.
#[derive(Clone, Debug, Default)]
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
    /// URLs by scheme and kind, findings by code (with
    /// [`RunOptions::tally`] only).
    pub tally: Tally,
    /// Compressed inputs read, and their compressed bytes (their
    /// decompressed bytes are in `bytes`).
    pub compressed_files: u64,
    /// See `compressed_files`.
    pub compressed_bytes: u64,
    /// The part of `bytes` that was read through a decompressor.
    pub decompressed_bytes: u64,
    /// WARC record counts, summed over the WARC inputs.
    pub warc: crate::warc::WarcStats,
}

/// How a run treats files.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Scan files that look binary instead of skipping them.
    pub binary: bool,
    /// How to read inputs: `None` detects mail, news and WARC by content.
    pub input: Option<InputKind>,
    /// Read every input as a WARC file (`--input warc`).
    pub warc: bool,
    /// Read every input as a stream of JSON records (`--input records`).
    pub records: bool,
    /// Resolve `news:` and `mid:` URLs to messages of the same file.
    pub resolve_local: bool,
    /// Read compressed files (gzip, bzip2, xz, zstd) as they are, instead
    /// of decompressing them.
    pub no_decompress: bool,
    /// How many times its compressed size a compressed input may expand
    /// to before it is stopped as a decompression bomb; 0 means
    /// [`MAX_RATIO`](crate::compress::MAX_RATIO).
    pub max_ratio: u64,
    /// Plain-text files of at least twice this many bytes are split into
    /// parts of about this size, scanned in parallel; 0 means 8 MiB.
    pub part_size: u64,
    /// Count URLs by scheme and kind and findings by code
    /// ([`FileResult::tally`], [`Summary::tally`]).
    pub tally: bool,
    /// Report the URLs found in the code of documents (`in_code`);
    /// otherwise they are dropped (`lint` passes over examples).
    pub keep_code: bool,
}

/// Scans every input in parallel and calls `write` with each result, in
/// input order (see [`run_stream`] for how `write` is called).
pub fn run<E: Emit>(
    inputs: &[Input],
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    write: impl FnMut(&Input, &FileResult) -> io::Result<()> + Send,
) -> io::Result<Summary> {
    let mut write = write;
    run_stream(inputs.iter().cloned().map(Ok), sifter, emit, opts, |event| match event {
        Event::File(input, r) => write(input, r),
        Event::Problem(_) => Ok(()),
    })
}

/// What [`run_stream`] hands to its caller, in source order.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// Output and totals of one input (or a piece of its output).
    File(&'a Input, &'a FileResult),
    /// A problem of the source: a path that could not be listed.
    Problem(&'a InputError),
}

/// Scans the inputs of `source` as they come (typically [`walk_inputs`],
/// so that scanning starts while the tree is still being listed) and hands
/// each result, and each problem of the source, to `on` in source order.
/// Output is byte-identical whatever the thread count.
///
/// `on` gets one or more [`Event::File`] per input: every one but the last
/// has [`FileResult::partial`] set and carries only the next piece of the
/// output, so that a big file's output is never held whole. The last call
/// carries the rest of the output and the file's totals.
///
/// With several threads, `on` runs on whichever worker finished
/// the result that was next in order, one at a time under a lock: handing
/// every result to one writing thread woke that thread once per file, and
/// on a docs tree made two threads slower than one.
pub fn run_stream<E: Emit>(
    source: impl Iterator<Item = Walked> + Send,
    sifter: &Sifter,
    emit: &E,
    opts: RunOptions,
    on: impl FnMut(Event<'_>) -> io::Result<()> + Send,
) -> io::Result<Summary> {
    let threads = if opts.threads == 0 { num_cpus() } else { opts.threads };
    let mut out = Writer { on, opts, summary: Summary::default(), joining: None };
    if threads <= 1 {
        let mut scratch = Scratch::default();
        let stop = AtomicBool::new(false);
        for w in source {
            match w {
                Ok(input) => {
                    let mut pieces = |buf: &mut Vec<u8>| out.piece(&input, buf);
                    let r = process(
                        &input,
                        None,
                        sifter,
                        emit,
                        opts,
                        &mut scratch,
                        &mut pieces,
                        &stop,
                    )?;
                    out.file(&input, r)?;
                }
                Err(e) => out.problem(&e)?,
            }
        }
        return Ok(out.summary);
    }
    let pool = Pool {
        queue: Mutex::new(Queue::default()),
        work: Condvar::new(),
        room: Condvar::new(),
        out: Mutex::new(Ordered {
            writer: out,
            next: 0,
            ring: VecDeque::new(),
            failed: None,
            bigs: Vec::new(),
            in_flight: 0,
            limit: threads,
        }),
        next: AtomicU64::new(0),
        failed: AtomicBool::new(false),
        panic: Mutex::new(None),
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(|| pool.guarded(|| pool.work(sifter, emit, opts)));
        }
        // This thread lists the inputs, and cuts big files into parts,
        // while the other workers scan what is listed already; then it
        // scans too. (A listing thread beside `threads` workers made
        // three threads share two cores during the walk.)
        pool.guarded(|| pool.list(source, sifter, emit));
        let mut q = pool.lock_queue();
        q.listed = true;
        pool.work.notify_all();
        drop(q);
        pool.guarded(|| pool.work(sifter, emit, opts));
    });
    if let Some(panic) = pool.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
        // A panic of the caller's (or the source's): theirs to see.
        std::panic::resume_unwind(panic);
    }
    let ordered = pool.out.into_inner().unwrap_or_else(|e| e.into_inner());
    match ordered.failed {
        Some(e) => Err(e),
        None => Ok(ordered.writer.summary),
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
