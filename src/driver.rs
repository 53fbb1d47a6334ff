//! Files, threads and ordering: turns the paths a user gave into inputs
//! (walking directories with the `ignore` crate, so `.gitignore` is
//! respected), scans them in parallel, and hands each file's rendered
//! output to the caller in input order, as soon as that order allows.
//!
//! Workers render into a per-file buffer and the calling thread writes the
//! buffers in order, so output is byte-identical whatever the thread count
//! and lines of different files never interleave.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use rayon::prelude::*;

use crate::extract::{Extracted, Scratch, Sifter};
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
    if threads <= 1 || inputs.len() <= 1 {
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
    let (tx, rx) = mpsc::channel::<(usize, FileResult)>();
    std::thread::scope(|s| {
        s.spawn(|| {
            pool.install(|| {
                inputs.par_iter().enumerate().for_each_init(
                    || (tx.clone(), Scratch::default()),
                    |(tx, scratch), (i, input)| {
                        let r = process(input, sifter, emit, opts, scratch);
                        // The receiver only goes away when writing failed;
                        // the remaining work is then moot.
                        let _ = tx.send((i, r));
                    },
                )
            });
            drop(tx);
        });
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (i, r) in rx.iter() {
            pending.insert(i, r);
            while let Some(r) = pending.remove(&next) {
                tally(&r);
                write(&inputs[next], &r)?;
                next += 1;
            }
        }
        Ok::<(), io::Error>(())
    })?;
    Ok(summary)
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
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
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            *scratch = Scratch::default();
            r.error = Some(format!("internal error (please report): {msg}"));
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
