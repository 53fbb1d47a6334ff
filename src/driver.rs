//! Files, threads and ordering: turns the paths a user gave into inputs
//! (walking directories with the `ignore` crate, so `.gitignore` is
//! respected), scans them in parallel, and hands each file's rendered
//! output to the caller in input order, as soon as that order allows.
//!
//! Workers render into a per-file buffer and the calling thread writes the
//! buffers in order, so output is byte-identical whatever the thread count
//! and lines of different files never interleave.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use crate::doc::Format;
use crate::extract::{
    BlockMark, Extracted, MARKER_SPAN, Scratch, Sifter, Silence, Span, SpanStats,
};
use crate::mail::{self, InputKind, LocalIndex, MailProblem, MailStats, MailUrl, PartStats};

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
    /// Walk only files of these types (the `ignore` crate's default type
    /// names, as in ripgrep's `--type`).
    pub types: Vec<String>,
    /// Do not walk files of these types.
    pub types_not: Vec<String>,
    /// `(device, inode)` of a file never to read: where the output goes.
    /// `urlsift lint --json . > out.json` would otherwise read its own
    /// output as it writes it, find its own URLs again and write them
    /// again, without end (ripgrep skips that file too).
    pub output: Option<(u64, u64)>,
    /// `(device, inode)` of files the run itself reads or writes besides
    /// its input (a `--baseline`): a walk passes over them without a word,
    /// as their URLs are urlsift's own findings, not the tree's.
    pub skip: Vec<(u64, u64)>,
}

impl WalkOptions {
    /// Checks what can be wrong before any walk: unknown type names.
    pub fn check(&self) -> Result<(), String> {
        self.file_types().map(|_| ())
    }

    fn file_types(&self) -> Result<Option<ignore::types::Types>, String> {
        if self.types.is_empty() && self.types_not.is_empty() {
            return Ok(None);
        }
        let mut b = ignore::types::TypesBuilder::new();
        b.add_defaults();
        for t in &self.types {
            b.select(t);
        }
        for t in &self.types_not {
            b.negate(t);
        }
        b.build().map(Some).map_err(|e| format!("--type: {e}"))
    }
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

/// One input in output order, or a problem met while looking for inputs.
pub type Walked = Result<Input, InputError>;

/// Expands the user's paths into inputs: `-` is standard input, a file is
/// itself (even if an ignore file would skip it: naming it is asking for
/// it), a directory is walked and its files sorted by path.
pub fn collect_inputs(
    paths: &[PathBuf],
    opts: &WalkOptions,
    errors: &mut Vec<InputError>,
) -> Vec<Input> {
    let mut inputs = Vec::new();
    for w in walk_inputs(paths, opts) {
        match w {
            Ok(i) => inputs.push(i),
            Err(e) => errors.push(e),
        }
    }
    inputs
}

/// Like [`collect_inputs`], but lazy: each directory is read when the walk
/// reaches it, so [`run_stream`] can scan the first files while the rest of
/// the tree is still being listed. The order is the same: arguments as
/// given, each directory's files sorted by path (directory entries are
/// sorted by name as they are read, and a depth-first walk in that order
/// yields paths in sorted order).
pub fn walk_inputs(paths: &[PathBuf], opts: &WalkOptions) -> Walker {
    let implicit = paths.is_empty();
    let paths = if implicit { vec![PathBuf::from(".")] } else { paths.to_vec() };
    Walker {
        paths: paths.into_iter(),
        implicit,
        opts: opts.clone(),
        current: None,
        pending: std::collections::VecDeque::new(),
    }
}

/// The iterator of [`walk_inputs`].
pub struct Walker {
    paths: std::vec::IntoIter<PathBuf>,
    implicit: bool,
    opts: WalkOptions,
    current: Option<ignore::Walk>,
    pending: std::collections::VecDeque<Walked>,
}

impl Iterator for Walker {
    type Item = Walked;

    fn next(&mut self) -> Option<Walked> {
        loop {
            if let Some(w) = self.pending.pop_front() {
                return Some(w);
            }
            if let Some(walk) = &mut self.current {
                match walk.next() {
                    Some(Ok(e)) => {
                        if e.file_type().is_some_and(|t| t.is_file()) {
                            if self.skipped(&e) {
                                continue;
                            }
                            let shown = show(e.path(), self.implicit);
                            // The directory entry knows the inode: only a
                            // match costs a `stat`.
                            if self.opts.output.is_some_and(|(_, ino)| e.ino() == Some(ino))
                                && let Some(skip) = self.skip_output(e.path(), &shown)
                            {
                                return Some(Err(skip));
                            }
                            return Some(Ok(Input::File { path: e.into_path(), shown }));
                        }
                    }
                    Some(Err(e)) => return Some(Err(walk_error(&e, None, self.implicit))),
                    None => self.current = None,
                }
                continue;
            }
            let p = self.paths.next()?;
            if p.as_os_str() == "-" {
                return Some(Ok(Input::Stdin));
            }
            match std::fs::metadata(&p) {
                Ok(m) if m.is_dir() => self.current = Some(self.build(&p)),
                Ok(_) => {
                    let shown = show(&p, false);
                    if let Some(skip) = self.skip_output(&p, &shown) {
                        return Some(Err(skip));
                    }
                    return Some(Ok(Input::File { path: p, shown }));
                }
                Err(e) => {
                    return Some(Err(InputError {
                        path: show(&p, false),
                        reason: reason(&e),
                        fatal: true,
                    }));
                }
            }
        }
    }
}

impl Walker {
    /// Whether the walk passes over `e` (see [`WalkOptions::skip`]); only
    /// an inode match costs a `stat`.
    fn skipped(&self, e: &ignore::DirEntry) -> bool {
        use std::os::unix::fs::MetadataExt;
        let skip = &self.opts.skip;
        if !e.ino().is_some_and(|ino| skip.iter().any(|&(_, i)| i == ino)) {
            return false;
        }
        std::fs::metadata(e.path()).is_ok_and(|m| skip.contains(&(m.dev(), m.ino())))
    }

    /// The note that skips `path` when it is the output file.
    fn skip_output(&self, path: &Path, shown: &str) -> Option<InputError> {
        use std::os::unix::fs::MetadataExt;
        let (dev, ino) = self.opts.output?;
        let m = std::fs::metadata(path).ok()?;
        (m.dev() == dev && m.ino() == ino).then(|| InputError {
            path: shown.to_string(),
            reason: "is the file the output goes to: not read".to_string(),
            fatal: false,
        })
    }

    fn build(&mut self, root: &Path) -> ignore::Walk {
        let opts = &self.opts;
        let mut b = ignore::WalkBuilder::new(root);
        b.hidden(!opts.hidden)
            .ignore(!opts.no_ignore)
            .git_ignore(!opts.no_ignore)
            .git_global(!opts.no_ignore)
            .git_exclude(!opts.no_ignore)
            .parents(!opts.no_ignore)
            .follow_links(opts.follow)
            .max_filesize(opts.max_filesize)
            // Entries of one directory share their parent's path, so
            // comparing whole paths as bytes orders them by name, as
            // `sort_by_file_name` would; but that one takes each name
            // apart from its path on every comparison, a sixth of the
            // listing's time on a docs tree.
            .sort_by_file_path(|a, b| a.as_os_str().cmp(b.as_os_str()));
        if let Ok(Some(types)) = opts.file_types() {
            b.types(types);
        }
        if !opts.globs.is_empty() {
            let mut ob = ignore::overrides::OverrideBuilder::new(root);
            for g in &opts.globs {
                if let Err(e) = ob.add(g) {
                    self.pending.push_back(Err(InputError {
                        path: g.clone(),
                        reason: format!("bad glob: {}", glob_reason(&e)),
                        fatal: true,
                    }));
                }
            }
            match ob.build() {
                Ok(o) => {
                    b.overrides(o);
                }
                Err(e) => self.pending.push_back(Err(InputError {
                    path: show(root, false),
                    reason: format!("bad glob: {e}"),
                    fatal: true,
                })),
            }
        }
        b.build()
    }
}

/// What a bad glob is, without the glob repeated (the message names it).
fn glob_reason(e: &ignore::Error) -> String {
    match e {
        ignore::Error::Glob { err, .. } => err.clone(),
        e => e.to_string(),
    }
}

/// One line for a walk problem: the path it concerns and the reason,
/// without the path a second time (`ignore`'s own messages embed it).
fn walk_error(e: &ignore::Error, path: Option<&Path>, implicit: bool) -> InputError {
    let shown = |p: Option<&Path>| p.map(|p| show(p, implicit)).unwrap_or_default();
    match e {
        ignore::Error::WithPath { path, err } => walk_error(err, Some(path), implicit),
        ignore::Error::WithDepth { err, .. } => walk_error(err, path, implicit),
        ignore::Error::WithLineNumber { line, err } => {
            let mut inner = walk_error(err, path, implicit);
            inner.reason = format!("line {line}: {}", inner.reason);
            inner
        }
        ignore::Error::Loop { ancestor, child } => InputError {
            path: show(child, implicit),
            reason: format!(
                "symbolic link loop (back to {}), not followed",
                show(ancestor, implicit)
            ),
            fatal: false,
        },
        ignore::Error::Io(io) => InputError { path: shown(path), reason: reason(io), fatal: true },
        e => InputError { path: shown(path), reason: e.to_string(), fatal: true },
    }
}

/// Paths are shown as given; the `./` of an implicit `.` is dropped, as
/// ripgrep does. A name that is not UTF-8 is shown with each byte that is
/// not part of valid UTF-8 written `\xHH` (`caf\xE9.txt`), so that two such
/// names never look the same; JSON output adds the exact bytes (see
/// [`Input::raw_name`]).
fn show(p: &Path, implicit: bool) -> String {
    let p = if implicit { p.strip_prefix(".").unwrap_or(p) } else { p };
    match p.to_str() {
        Some(s) => s.to_owned(),
        None => escape_name(p.as_os_str().as_encoded_bytes()),
    }
}

fn escape_name(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        s.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(s, "\\x{b:02X}");
        }
    }
    s
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

/// Tasks listed but not started, at most: the walk may run ahead of the
/// scan, but not without bound.
const MAX_QUEUED: usize = 1 << 16;

/// How far (in tasks) a worker may start ahead of the output: a slow file
/// holds up the output, and the results after it must not pile up without
/// bound meanwhile.
const MAX_AHEAD: u64 = 4096;

/// Output of one file is handed over in pieces of about this size.
const PIECE: usize = 256 << 10;

/// One unit of parallel work.
enum Task {
    /// A whole input (which the worker may still cut into parts).
    Whole(Arc<Input>),
    /// Part `.1` of a big file.
    Part(Arc<Big>, usize),
}

/// A big file cut into parts.
///
/// Memory stays bounded by the number of parts in flight (handed to a
/// worker and not yet written), which [`Ordered::release`] holds to the
/// thread count: a part is only queued when an earlier one is written, so
/// results never pile up behind a slow part. Nothing ever waits for a
/// slot: a part that cannot be queued yet is simply not queued, and the
/// thread that writes a part queues the next (a worker blocked on a slot
/// while the part that frees it waited for a worker deadlocked with eight
/// threads or more).
///
/// Each part renders its URLs itself, as it finds them, once the lines
/// (and messages) of every part before it are counted: a text part counts
/// its own lines first (a fast pass), a mail part publishes its counts
/// when it is read. Rendered output is a fraction of the found URLs'
/// size, and the part at the head of the output writes it out at once.
struct Big {
    input: Arc<Input>,
    /// The file's place in the output order.
    seq: u64,
    parts: Vec<Part>,
    /// Line breaks and messages of each part, once known.
    counts: Vec<OnceLock<(u64, u64)>>,
    /// The block markers of each text part, set before its count.
    marks: Vec<OnceLock<Vec<BlockMark>>>,
    /// Parts queued so far (changed under the output lock only).
    released: AtomicUsize,
}

impl Big {
    /// Lines and messages before part `k`, once every part before it is
    /// counted; `known` carries the prefix summed so far between calls.
    fn base(&self, k: usize, known: &mut (usize, u64, u64)) -> Option<(u64, u64)> {
        while known.0 < k {
            let &(lines, messages) = self.counts[known.0].get()?;
            *known = (known.0 + 1, known.1 + lines, known.2 + messages);
        }
        Some((known.1, known.2))
    }

    /// Whether an `urlsift: disable` block is open where part `k` starts,
    /// once the markers of every part before it are read.
    fn block_open(&self, k: usize) -> Option<bool> {
        for m in self.marks[..k].iter().rev() {
            if let Some(&(_, state)) = m.get()?.last() {
                return Some(state.is_some());
            }
        }
        Some(false)
    }
}

/// A finished task, waiting for its turn to be written.
enum Done {
    Whole(Arc<Input>, FileResult),
    Part(Arc<Big>, usize, PartResult),
    Problem(InputError),
}

/// The place of one input (or problem) in the output order.
// Most slots are `Ready`: boxing it would cost an allocation per file.
#[allow(clippy::large_enum_variant)]
enum Slot {
    /// Not finished yet.
    Waiting,
    Ready(Done),
    /// A file cut into parts: their results, in order, from part `first`
    /// on (the ones before are written already).
    Parts {
        first: usize,
        parts: VecDeque<Option<Done>>,
    },
}

#[derive(Default)]
struct Queue {
    tasks: VecDeque<(u64, Task)>,
    /// The source is exhausted: a worker that finds no task may stop.
    listed: bool,
    /// Workers waiting for a task.
    idle: usize,
    /// Workers running a task (which may queue more).
    busy: usize,
    walker_waiting: bool,
}

/// Results put back in order: `ring[i]` is the slot of input `next + i`.
struct Ordered<W> {
    writer: Writer<W>,
    next: u64,
    ring: VecDeque<Slot>,
    failed: Option<io::Error>,
    /// Big files with parts not queued yet, in output order.
    bigs: Vec<Arc<Big>>,
    /// Parts queued and not yet written, of every file.
    in_flight: usize,
    /// The most parts in flight: the thread count.
    limit: usize,
}

struct Pool<W> {
    queue: Mutex<Queue>,
    /// Signalled when a task is queued, when the source ends, and when the
    /// output moves on while workers wait (they may be held by
    /// `MAX_AHEAD`).
    work: Condvar,
    /// Signalled when the queue has room for the walker again.
    room: Condvar,
    out: Mutex<Ordered<W>>,
    /// `out.next`, readable without the lock.
    next: AtomicU64,
    /// The run is stopping (an output error or a panic): nobody starts
    /// anything new, and scans in progress stop at their next read.
    failed: AtomicBool,
    /// The first panic outside the per-file guards (in the caller's
    /// callback or the source), re-raised once every thread has stopped.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl<W: FnMut(Event<'_>) -> io::Result<()> + Send> Pool<W> {
    fn lock_queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f`; a panic in it (the caller's callback, or the source)
    /// stops the run and is kept to be re-raised after every thread has
    /// stopped: without that, the other threads could wait forever for
    /// work or output that the panicking thread was to provide.
    fn guarded(&self, f: impl FnOnce()) {
        if let Err(panic) = catch_unwind(AssertUnwindSafe(f)) {
            self.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(panic);
            self.stop();
        }
    }

    /// Tells every thread to stop (they check `failed` before each task,
    /// each read and each wait).
    fn stop(&self) {
        self.failed.store(true, Ordering::Relaxed);
        let _q = self.lock_queue();
        self.work.notify_all();
        self.room.notify_all();
    }

    /// Stops the run on an output error, which `run_stream` returns.
    fn fail(&self, e: io::Error) {
        self.out.lock().unwrap_or_else(|e| e.into_inner()).failed.get_or_insert(e);
        self.stop();
    }

    /// Queues the inputs of `source` in order. Nothing else happens here
    /// per input, not even a `stat`: until the listing ends this thread
    /// does not scan, so any work it does per file is work the other
    /// threads cannot share.
    fn list<E: Emit>(&self, source: impl Iterator<Item = Walked>, sifter: &Sifter, emit: &E) {
        let mut scratch = Scratch::default();
        for (seq, w) in (0u64..).zip(source) {
            if self.failed.load(Ordering::Relaxed) {
                return;
            }
            let mut q = self.lock_queue();
            // Room for the tasks, and for the results: problems of the
            // source need no worker but wait in the output like the rest.
            while (q.tasks.len() >= MAX_QUEUED
                || seq >= self.next.load(Ordering::Acquire) + 2 * MAX_QUEUED as u64)
                && !self.failed.load(Ordering::Relaxed)
            {
                q.walker_waiting = true;
                q = self.room.wait(q).unwrap_or_else(|e| e.into_inner());
                q.walker_waiting = false;
            }
            let mut problem = None;
            match w {
                Ok(input) => q.tasks.push_back((seq, Task::Whole(Arc::new(input)))),
                Err(e) => problem = Some(e),
            }
            if q.idle > 0 && !q.tasks.is_empty() {
                self.work.notify_all();
            }
            drop(q);
            if let Some(e) = problem {
                self.finish(seq, Done::Problem(e), sifter, emit, &mut scratch);
            }
        }
    }

    fn work<E: Emit>(&self, sifter: &Sifter, emit: &E, opts: RunOptions) {
        let mut scratch = Scratch::default();
        loop {
            let (seq, task) = {
                let mut q = self.lock_queue();
                loop {
                    if self.failed.load(Ordering::Relaxed) {
                        return;
                    }
                    match q.tasks.front() {
                        Some(&(seq, _)) if seq < self.next.load(Ordering::Acquire) + MAX_AHEAD => {
                            break;
                        }
                        // Another worker may still queue parts of a big
                        // file: only when none is busy is the run over.
                        None if q.listed && q.busy == 0 => return,
                        _ => {}
                    }
                    q.idle += 1;
                    q = self.work.wait(q).unwrap_or_else(|e| e.into_inner());
                    q.idle -= 1;
                }
                let t = q.tasks.pop_front().expect("checked above");
                q.busy += 1;
                if q.walker_waiting && q.tasks.len() < MAX_QUEUED / 2 {
                    self.room.notify_one();
                }
                t
            };
            let go_on = self.task(seq, task, sifter, emit, opts, &mut scratch);
            let mut q = self.lock_queue();
            q.busy -= 1;
            if q.busy == 0 && q.listed && q.tasks.is_empty() {
                self.work.notify_all();
            }
            if !go_on {
                return;
            }
        }
    }

    /// Runs one task; false when the run must stop.
    fn task<E: Emit>(
        &self,
        seq: u64,
        task: Task,
        sifter: &Sifter,
        emit: &E,
        opts: RunOptions,
        scratch: &mut Scratch,
    ) -> bool {
        let done = match task {
            Task::Whole(input) => {
                // The file is opened and its head read here, once,
                // to decide whether to cut it: only a file that fills
                // the head can be big, so most files need no `fstat`.
                let mut opened = None;
                if let Input::File { path, .. } = &*input
                    && let Ok(f) = File::open(path)
                {
                    if let Err(e) = read_head(AtReader::new(&f), &mut scratch.head) {
                        let r = FileResult { error: Some(reason(&e)), ..FileResult::default() };
                        self.finish(seq, Done::Whole(input, r), sifter, emit, scratch);
                        return true;
                    }
                    // A head short of the sniff is the whole file.
                    let n = scratch.head.len();
                    if (n == BINARY_SNIFF || n as u64 >= 2 * part_size(opts))
                        && let Some((cuts, kind)) = cuts(&f, &scratch.head, opts)
                    {
                        let file = sifter.file_silence(&scratch.head);
                        self.split(seq, &input, &cuts, kind, file);
                        return true;
                    }
                    opened = Some(f);
                }
                // Once everything before this file is written, its
                // output goes out in pieces as it is found; until then
                // it is kept.
                let mut pieces = |buf: &mut Vec<u8>| {
                    if buf.len() < PIECE || self.next.load(Ordering::Acquire) != seq {
                        return Ok(());
                    }
                    let mut o = self.out.lock().unwrap_or_else(|e| e.into_inner());
                    // Checked and set under the lock that every write
                    // takes: nothing is written after an output error.
                    if self.failed.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    let res = o.writer.piece(&input, buf);
                    if res.is_err() {
                        self.failed.store(true, Ordering::Relaxed);
                    }
                    res
                };
                let r =
                    process(&input, opened, sifter, emit, opts, scratch, &mut pieces, &self.failed);
                match r {
                    Ok(r) => Done::Whole(input, r),
                    Err(e) => {
                        self.fail(e);
                        return false;
                    }
                }
            }
            Task::Part(big, index) => {
                let r = self.scan_part(&big, index, sifter, emit, opts, scratch);
                let done = Done::Part(big, index, r);
                self.finish_part(seq, index, done, sifter, emit, scratch);
                return true;
            }
        };
        self.finish(seq, done, sifter, emit, scratch);
        true
    }

    /// Replaces input `seq`, a big file, by tasks for its parts, as many
    /// as [`Ordered::release`] allows for now. The file's slot learns how
    /// many parts to expect before any of them can finish.
    ///
    /// `file` is what an `urlsift: ignore-file` marker in the file's head
    /// silences: a part past the head does not read it.
    fn split(
        &self,
        seq: u64,
        input: &Arc<Input>,
        cuts: &[(u64, u64)],
        kind: InputKind,
        file: Option<Silence>,
    ) {
        let last = cuts.last().expect("at least three cuts").0;
        let parts: Vec<Part> = cuts
            .windows(2)
            .map(|w| {
                let ((start, context), (end, _)) = (w[0], w[1]);
                Part { start, context, kind, end, last: end == last, file }
            })
            .collect();
        let big = Arc::new(Big {
            input: input.clone(),
            seq,
            counts: parts.iter().map(|_| OnceLock::new()).collect(),
            marks: parts.iter().map(|_| OnceLock::new()).collect(),
            parts,
            released: AtomicUsize::new(0),
        });
        let queued = {
            let mut o = self.out.lock().unwrap_or_else(|e| e.into_inner());
            let slot = o.slot(seq);
            *slot = Slot::Parts { first: 0, parts: big.parts.iter().map(|_| None).collect() };
            let at = o.bigs.partition_point(|b| b.seq < seq);
            o.bigs.insert(at, big);
            o.release()
        };
        self.queue_parts(queued);
    }

    /// Queues parts released by [`Ordered::release`], first: they are the
    /// oldest work.
    fn queue_parts(&self, parts: Vec<(Arc<Big>, usize)>) {
        if parts.is_empty() {
            return;
        }
        let mut q = self.lock_queue();
        for (big, index) in parts {
            // Behind the parts queued before, in output order, ahead of
            // every whole file.
            let key = (big.seq, index);
            let at = q
                .tasks
                .iter()
                .position(|(seq, t)| match t {
                    Task::Part(_, i) => (*seq, *i) > key,
                    Task::Whole(_) => true,
                })
                .unwrap_or(q.tasks.len());
            q.tasks.insert(at, (big.seq, Task::Part(big, index)));
        }
        if q.idle > 0 {
            self.work.notify_all();
        }
    }

    /// Scans part `k` of `big`. Its URLs are rendered here as soon as the
    /// lines (and messages) before the part are known, and written out at
    /// once while the part is at the head of the output; only what was
    /// found before that is kept as found, for the writer to render.
    fn scan_part<E: Emit>(
        &self,
        big: &Big,
        k: usize,
        sifter: &Sifter,
        emit: &E,
        opts: RunOptions,
        scratch: &mut Scratch,
    ) -> PartResult {
        let part = big.parts[k];
        let input = &*big.input;
        let mut early = Rendered::default();
        let mut known = (0, 0, 0);
        let stream = |early: &mut Rendered| {
            if early.out.len() >= PIECE {
                self.stream_piece(big, k, early);
            }
        };
        if part.kind == InputKind::Text {
            // A fast pass, so that the parts after this one know their
            // lines (and the blocks open at their start) long before this
            // one is scanned.
            let (counted, marks) = match count_part(input, part, sifter) {
                Ok((n, marks)) => (Some(n), marks),
                Err(_) => (None, Vec::new()),
            };
            let _ = big.marks[k].set(marks.clone());
            if let Some(n) = counted {
                let _ = big.counts[k].set((n, 0));
            }
            let mut pending: Vec<Extracted> = Vec::new();
            let lines_of = |base: u64| base - part.context_lines();
            // The part is scanned as if no block were open at its start;
            // when one is, its URLs wait for the writer, who scans it
            // again knowing the block (see `Joining::add`).
            let mut open = None;
            let (stats, error) =
                scan_span_with(input, part.span(part.start, None), sifter, scratch, |mut e| {
                    let ready = big
                        .base(k, &mut known)
                        .filter(|_| !*open.get_or_insert_with(|| big.block_open(k) == Some(true)));
                    let Some((base, _)) = ready else {
                        return pending.push(e);
                    };
                    for mut p in pending.drain(..) {
                        p.shift_lines(lines_of(base));
                        early.add(emit, input, &p, Context::default(), opts.tally);
                    }
                    e.shift_lines(lines_of(base));
                    early.add(emit, input, &e, Context::default(), opts.tally);
                    stream(&mut early);
                });
            let ready = big.base(k, &mut known).filter(|_| big.block_open(k) == Some(false));
            if let Some((base, _)) = ready {
                for mut p in pending.drain(..) {
                    p.shift_lines(lines_of(base));
                    early.add(emit, input, &p, Context::default(), opts.tally);
                }
            }
            debug_assert!(
                error.is_some()
                    || big.counts[k]
                        .get()
                        .is_none_or(|c| c.0 == stats.lines - part.context_lines())
            );
            let found = Found::Text { urls: pending, stats, marks };
            return PartResult { early, found, error };
        }
        // With `--resolve-local`, a mail URL is rendered with the file's
        // index of message ids, which the writer builds: it waits.
        let mut pending: Vec<MailUrl> = Vec::new();
        let mut problems = Vec::new();
        let render = |m: &mut MailUrl, base: (u64, u64), early: &mut Rendered| {
            m.shift(base.0, base.1);
            let cx = Context { mail: Some(m), resolved: None };
            early.add(emit, input, &m.url, cx, opts.tally);
        };
        let (stats, error) = scan_mail_part(
            input,
            part,
            sifter,
            |mut m| {
                let base = big.base(k, &mut known).filter(|_| !opts.resolve_local);
                let Some(base) = base else { return pending.push(m) };
                for mut p in pending.drain(..) {
                    render(&mut p, base, &mut early);
                }
                render(&mut m, base, &mut early);
                stream(&mut early);
            },
            |p| problems.push(p),
        );
        if error.is_none() {
            let _ = big.counts[k].set((stats.lines, stats.mail.messages));
        }
        if let Some(base) = big.base(k, &mut known).filter(|_| !opts.resolve_local) {
            for mut p in pending.drain(..) {
                render(&mut p, base, &mut early);
            }
        }
        PartResult { early, found: Found::Mail { urls: pending, problems, stats }, error }
    }

    /// Writes out what part `k` of `big` rendered so far, if the part is
    /// at the head of the output (every file and part before it written).
    fn stream_piece(&self, big: &Big, k: usize, early: &mut Rendered) {
        if self.next.load(Ordering::Acquire) != big.seq || self.failed.load(Ordering::Relaxed) {
            return;
        }
        let mut o = self.out.lock().unwrap_or_else(|e| e.into_inner());
        // Checked under the lock that every write takes: nothing is
        // written after an output error, nor out of order.
        if self.failed.load(Ordering::Relaxed) || o.next != big.seq {
            return;
        }
        match o.ring.front() {
            Some(Slot::Parts { first, .. }) if *first == k => {}
            _ => return,
        }
        // A panic of the caller's callback is theirs to see, as in
        // `guarded`, not this part's scan error.
        let written = catch_unwind(AssertUnwindSafe(|| {
            o.writer.stream(&big.input, big.parts[k], &mut early.out)
        }));
        match written {
            Ok(Ok(streamed)) => early.streamed |= streamed,
            Err(panic) => {
                drop(o);
                self.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(panic);
                self.stop();
            }
            Ok(Err(e)) => {
                self.failed.store(true, Ordering::Relaxed);
                o.failed.get_or_insert(e);
                drop(o);
                self.stop();
            }
        }
    }

    /// Files the result of input `seq` and writes whatever is next in
    /// order.
    fn finish<E: Emit>(
        &self,
        seq: u64,
        done: Done,
        sifter: &Sifter,
        emit: &E,
        scratch: &mut Scratch,
    ) {
        let mut guard = self.out.lock().unwrap_or_else(|e| e.into_inner());
        *guard.slot(seq) = Slot::Ready(done);
        self.write_ready(guard, sifter, emit, scratch);
    }

    /// Files the result of part `index` of input `seq` and writes whatever
    /// is next in order.
    fn finish_part<E: Emit>(
        &self,
        seq: u64,
        index: usize,
        done: Done,
        sifter: &Sifter,
        emit: &E,
        scratch: &mut Scratch,
    ) {
        let mut guard = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let Slot::Parts { first, parts } = guard.slot(seq) else {
            unreachable!("a part's slot is made before the part is queued")
        };
        parts[index - *first] = Some(done);
        self.write_ready(guard, sifter, emit, scratch);
    }

    /// Writes the results at the head of the order that are ready, and
    /// wakes whoever waits for the output to move on.
    fn write_ready<E: Emit>(
        &self,
        mut guard: std::sync::MutexGuard<'_, Ordered<W>>,
        sifter: &Sifter,
        emit: &E,
        scratch: &mut Scratch,
    ) {
        let o = &mut *guard;
        let before = o.next;
        // `next` must be published even if the caller's callback panics
        // below: workers held by `MAX_AHEAD` wait for it.
        let published = Publish { pool: self, next: &mut o.next };
        let mut failed = None;
        let mut written_parts = false;
        while !self.failed.load(Ordering::Relaxed) {
            let done = match o.ring.front_mut() {
                Some(Slot::Ready(_)) => {
                    let Some(Slot::Ready(done)) = o.ring.pop_front() else { unreachable!() };
                    *published.next += 1;
                    done
                }
                Some(Slot::Parts { first, parts })
                    if parts.front().is_some_and(Option::is_some) =>
                {
                    let done = parts.pop_front().flatten().expect("checked above");
                    *first += 1;
                    o.in_flight -= 1;
                    written_parts = true;
                    if parts.is_empty() {
                        o.ring.pop_front();
                        *published.next += 1;
                    }
                    done
                }
                _ => break,
            };
            if let Err(e) = o.writer.done(done, sifter, emit, scratch) {
                // Set before the lock is released, so that no other
                // thread writes after the error.
                self.failed.store(true, Ordering::Relaxed);
                failed = Some(e);
                break;
            }
        }
        let moved = *published.next != before;
        drop(published);
        if let Some(e) = failed {
            o.failed.get_or_insert(e);
            drop(guard);
            self.stop();
        } else if moved || written_parts {
            // A part written, or a big file now at the head: parts may be
            // queued again.
            let queued = o.release();
            drop(guard);
            self.queue_parts(queued);
            let q = self.lock_queue();
            if (q.idle > 0 && !q.tasks.is_empty()) || q.walker_waiting {
                self.work.notify_all();
                self.room.notify_all();
            }
        }
    }
}

impl<W> Ordered<W> {
    /// Releases the parts of big files that may be queued now, in output
    /// order: a file may have at most `limit` parts in flight, and all
    /// files together `limit` too, except the file at the head of the
    /// output, which may always have its own `limit` (were the slots all
    /// held by later files, whose results wait for it, nothing would
    /// move again).
    fn release(&mut self) -> Vec<(Arc<Big>, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.bigs.len() {
            let big = self.bigs[i].clone();
            let Slot::Parts { first: written, .. } = *self.slot(big.seq) else {
                unreachable!("a big file's slot holds its parts until the last is written")
            };
            let head = big.seq == self.next;
            let mut released = big.released.load(Ordering::Relaxed);
            while released < big.parts.len()
                && released - written < self.limit
                && (head || self.in_flight < self.limit)
            {
                out.push((big.clone(), released));
                released += 1;
                self.in_flight += 1;
            }
            big.released.store(released, Ordering::Relaxed);
            if released == big.parts.len() {
                self.bigs.remove(i);
            } else {
                i += 1;
            }
        }
        out
    }

    /// The slot of input `seq`, which is not written yet.
    fn slot(&mut self, seq: u64) -> &mut Slot {
        let i = (seq - self.next) as usize;
        if self.ring.len() <= i {
            self.ring.resize_with(i + 1, || Slot::Waiting);
        }
        &mut self.ring[i]
    }
}

/// Stores `Ordered::next` into `Pool::next` when dropped, normally or in
/// a panic.
struct Publish<'a, W> {
    pool: &'a Pool<W>,
    next: &'a mut u64,
}

impl<W> Drop for Publish<'_, W> {
    fn drop(&mut self) {
        self.pool.next.store(*self.next, Ordering::Release);
    }
}

/// Hands results to the caller's callbacks and keeps the totals.
struct Writer<W> {
    on: W,
    opts: RunOptions,
    summary: Summary,
    /// The big file whose parts are being put back together.
    joining: Option<Joining>,
}

impl<W: FnMut(Event<'_>) -> io::Result<()>> Writer<W> {
    /// Writes the next piece of one file's output.
    fn piece(&mut self, input: &Input, buf: &mut Vec<u8>) -> io::Result<()> {
        if buf.len() < PIECE {
            return Ok(());
        }
        let r = FileResult { out: std::mem::take(buf), partial: true, ..FileResult::default() };
        let res = (self.on)(Event::File(input, &r));
        // The buffer is reused: its capacity is what a piece needs.
        *buf = r.out;
        buf.clear();
        res
    }

    /// Writes the rest of one file's output, with its totals.
    fn file(&mut self, input: &Input, r: FileResult) -> io::Result<()> {
        let s = &mut self.summary;
        s.files += 1;
        s.bytes += r.bytes;
        s.urls += r.urls;
        s.failing += r.failing;
        s.findings += r.findings;
        s.binary += u64::from(r.binary);
        s.errors += u64::from(r.error.is_some() || r.unread);
        if let Some(m) = r.mail {
            s.mail += m;
        }
        s.tally.merge(&r.tally);
        (self.on)(Event::File(input, &r))
    }

    fn problem(&mut self, e: &InputError) -> io::Result<()> {
        self.summary.errors += u64::from(e.fatal);
        (self.on)(Event::Problem(e))
    }

    fn done<E: Emit>(
        &mut self,
        done: Done,
        sifter: &Sifter,
        emit: &E,
        scratch: &mut Scratch,
    ) -> io::Result<()> {
        match done {
            Done::Whole(input, r) => self.file(&input, r),
            Done::Problem(e) => self.problem(&e),
            Done::Part(big, index, p) => {
                let (input, part) = (&*big.input, big.parts[index]);
                let mut j = self.joining.take().unwrap_or_default();
                // A panic in a printer or a rescan is the file's, as in
                // `process`: reported with its path, and the run goes on.
                let opts = self.opts;
                let added = catch_unwind(AssertUnwindSafe(|| {
                    j.add(part, p, input, sifter, emit, opts, scratch)
                }));
                if let Err(panic) = added {
                    *scratch = Scratch::default();
                    j.result.error.get_or_insert(panic_message(&panic));
                }
                if part.last {
                    return self.file(input, j.result);
                }
                let res = self.piece(input, &mut j.result.out);
                self.joining = Some(j);
                res
            }
        }
    }

    /// Writes `buf`, output of `part` of the big file being joined, now
    /// that the part is next in order: after what the parts before left
    /// unwritten. Declines (false) when the part's own scan is not what
    /// will be kept: the part before ran over its start, or failed.
    fn stream(&mut self, input: &Input, part: Part, buf: &mut Vec<u8>) -> io::Result<bool> {
        let j = self.joining.get_or_insert_with(Joining::default);
        if j.result.error.is_some() || j.resume > part.start {
            return Ok(false);
        }
        if !j.result.out.is_empty() {
            let r = FileResult {
                out: std::mem::take(&mut j.result.out),
                partial: true,
                ..FileResult::default()
            };
            let res = (self.on)(Event::File(input, &r));
            j.result.out = r.out;
            j.result.out.clear();
            res?;
        }
        self.piece(input, buf)?;
        Ok(true)
    }
}

/// Files at least twice this big are scanned by several threads at once,
/// in parts of about this size cut at line starts: big enough that the
/// per-part overhead vanishes, small enough to balance two to eight cores
/// on files of a few hundred megabytes.
const PART: u64 = 8 << 20;

#[derive(Clone, Copy, Debug)]
struct Part {
    /// A line start.
    start: u64,
    /// The start of the line before `start`, or `start` (see
    /// [`line_before`]): scanned as context only.
    context: u64,
    /// How the file is read; a mail or news file is cut between messages.
    kind: InputKind,
    /// The next part's start, or the file size.
    end: u64,
    last: bool,
    /// What the file's `urlsift: ignore-file` marker silences.
    file: Option<Silence>,
}

impl Part {
    /// The part from `from`, scanned as if no block were open at its
    /// start, or `disabled`'s.
    fn span(&self, from: u64, disabled: Option<Silence>) -> Span {
        Span { base: self.context, from, stop: Some(self.end), file: self.file, disabled }
    }

    /// Line breaks in the context before `start`.
    fn context_lines(&self) -> u64 {
        u64::from(self.context < self.start)
    }
}

/// What came of one part: the output its worker rendered, then the URLs
/// it found before the lines before it were known, with lines counted
/// from the part's context (text) or start (mail).
struct PartResult {
    early: Rendered,
    found: Found,
    /// Could not be read (fully): what was found before is kept.
    error: Option<String>,
}

/// Output rendered by a part's worker (lines already the file's), and
/// its counts.
#[derive(Default)]
struct Rendered {
    out: Vec<u8>,
    urls: u64,
    failing: u64,
    findings: u64,
    tally: Tally,
    /// Some of the output was written already.
    streamed: bool,
}

impl Rendered {
    fn add<E: Emit>(
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

enum Found {
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
fn cuts(f: &File, head: &[u8], opts: RunOptions) -> Option<(Vec<(u64, u64)>, InputKind)> {
    let kind = sniff(head, opts)?;
    let cuts = cut_points(f, kind, opts).ok()?;
    (cuts.len() >= 3).then_some((cuts, kind))
}

fn part_size(opts: RunOptions) -> u64 {
    if opts.part_size == 0 { PART } else { opts.part_size }
}

/// The cuts of [`cuts`] for a file read as `kind`; none when it is not
/// worth cutting.
fn cut_points(f: &File, kind: InputKind, opts: RunOptions) -> io::Result<Vec<(u64, u64)>> {
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
const CONTEXT: usize = 64 << 10;

/// The start of the line that ends right before `at` (a line start), or
/// `at` when that line is longer than [`CONTEXT`]: a part is scanned from
/// there so that an inline `urlsift: ignore` on the line before its first
/// line is seen, as in a scan of the whole file.
fn line_before(f: &File, at: u64) -> io::Result<u64> {
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
fn count_part(input: &Input, part: Part, sifter: &Sifter) -> io::Result<(u64, Vec<BlockMark>)> {
    use std::os::unix::fs::FileExt;
    const CHUNK: usize = 256 << 10;
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
fn scan_mail_part(
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
fn scan_span_with(
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
struct Joining {
    result: FileResult,
    /// Line breaks before the current part.
    lines: u64,
    /// Where the previous part's last URL ended.
    resume: u64,
    /// Messages before the current part.
    messages: u64,
    /// What an `urlsift: disable` block open at the current part's start
    /// silences.
    disabled: Option<Silence>,
    /// With `--resolve-local`: the file's message ids, read before its
    /// first URL is written.
    index: Option<LocalIndex>,
}

impl Joining {
    #[allow(clippy::too_many_arguments)]
    fn add<E: Emit>(
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
                    let cx = Context { mail: Some(&m), resolved };
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

fn local_index(input: &Input, kind: InputKind) -> io::Result<LocalIndex> {
    let Input::File { path, .. } = input else { unreachable!("only files are split") };
    LocalIndex::build_file(File::open(path)?, kind)
}

/// One line for a message that could not be read.
fn problem_line(p: &MailProblem) -> String {
    format!("message {} (line {}): {}", p.message_index, p.line, p.reason)
}

fn shift_lines(e: &mut Extracted, lines: u64) {
    e.shift_lines(lines);
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

/// Where a file's output goes while it is scanned: the writer, in pieces,
/// when the file's turn to be written has come; nowhere (the output is
/// kept) otherwise. An error is the writer's: the run stops.
type Pieces<'a> = dyn FnMut(&mut Vec<u8>) -> io::Result<()> + 'a;

/// Scans one whole input; `opened` is the input file if the caller has
/// opened it already and read its head into `scratch.head`.
///
/// `stop` set (by an output error, here or on another thread) ends the
/// scan at its next read: nobody will read what it would find.
#[allow(clippy::too_many_arguments)]
fn process<E: Emit>(
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
    let mut sink = Sink { pieces, failed: None, panic: None, stop };
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

struct Sink<'a, 'b> {
    pieces: &'a mut Pieces<'b>,
    failed: Option<io::Error>,
    /// A panic of the callback, kept apart from the scan's own panics
    /// (which `process` reports as the file's error).
    panic: Option<Box<dyn std::any::Any + Send>>,
    stop: &'a AtomicBool,
}

/// A reader that fails once the run is stopping.
struct Stoppable<'a, R> {
    inner: R,
    stop: &'a AtomicBool,
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
    fn after(&mut self, out: &mut Vec<u8>) {
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
fn scan_reader<R: Read, E: Emit>(
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
fn sniff(head: &[u8], opts: RunOptions) -> Option<InputKind> {
    if !opts.binary && memchr::memchr(0, head).is_some() {
        return None;
    }
    Some(opts.input.unwrap_or_else(|| mail::detect(head)))
}

/// Reads the first [`BINARY_SNIFF`] bytes of an input (fewer at its end)
/// into `head`.
fn read_head(reader: impl Read, head: &mut Vec<u8>) -> io::Result<()> {
    head.clear();
    head.reserve(BINARY_SNIFF);
    reader.take(BINARY_SNIFF as u64).read_to_end(head).map(drop)
}

/// The rest of [`scan_reader`], once `head` (the first bytes of the
/// input, at most [`BINARY_SNIFF`]) is read.
#[allow(clippy::too_many_arguments)]
fn scan_head_and_rest<R: Read, E: Emit>(
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
        let size = path.and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len());
        let want = (size as usize).clamp(head.len(), DOC_MAX) + 1;
        let mut doc = Vec::with_capacity(want);
        (&mut reader).take(DOC_MAX as u64).read_to_end(&mut doc)?;
        if doc.len() < DOC_MAX {
            let mut each = Render::new(input, emit, opts, r, sink);
            crate::doc::extract_doc(sifter, format, &doc, opts.keep_code, |e| {
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
    let index = match (opts.resolve_local, input) {
        (true, Input::File { path, .. }) => Some(LocalIndex::build_file(File::open(path)?, kind)?),
        _ => None,
    };
    let (mut problems, mut unread) = (Vec::new(), false);
    let mut each = Render::new(input, emit, opts, r, sink);
    let mut url = |m: MailUrl| {
        let resolved = index.as_ref().and_then(|i| mail::resolve_local(i, &m));
        each.url(&m.url, Context { mail: Some(&m), resolved });
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
        Input::File { path, .. } => {
            File::open(path).ok().filter(|f| f.metadata().is_ok_and(|m| m.is_file()))
        }
        Input::Stdin => None,
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

/// Scans an input as plain text, streamed.
#[allow(clippy::too_many_arguments)]
fn scan_text<R: Read, E: Emit>(
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
struct Render<'a, 's, 'p, 'q, E> {
    input: &'a Input,
    emit: &'a E,
    opts: RunOptions,
    out: Vec<u8>,
    tally: Tally,
    sink: &'s mut Sink<'p, 'q>,
    urls: u64,
    failing: u64,
    findings: u64,
}

impl<'a, 's, 'p, 'q, E: Emit> Render<'a, 's, 'p, 'q, E> {
    /// Takes over `r`'s output buffer and tally until [`Render::close`].
    fn new(
        input: &'a Input,
        emit: &'a E,
        opts: RunOptions,
        r: &mut FileResult,
        sink: &'s mut Sink<'p, 'q>,
    ) -> Self {
        let (out, tally) = (std::mem::take(&mut r.out), std::mem::take(&mut r.tally));
        Render { input, emit, opts, out, tally, sink, urls: 0, failing: 0, findings: 0 }
    }

    fn url(&mut self, e: &Extracted, cx: Context<'_>) {
        self.urls += 1;
        self.findings += e.findings.len() as u64;
        self.failing += u64::from(self.emit.emit(self.input, e, cx, &mut self.out));
        if self.opts.tally {
            self.tally.add(e);
        }
        self.sink.after(&mut self.out);
    }

    /// Hands the output and the counts back to `r`.
    fn close(self, r: &mut FileResult) {
        r.out = self.out;
        r.tally = self.tally;
        r.urls = self.urls;
        r.failing = self.failing;
        r.findings = self.findings;
    }
}

/// Documents of this many bytes or more are read as plain text, streamed.
const DOC_MAX: usize = 64 << 20;

/// Reads a file with `pread` from its own offset: with several threads,
/// each `read` takes the open file's position lock; `pread` has none.
/// Falls back to `read` on what cannot seek (a FIFO named as an input).
struct AtReader<F> {
    file: F,
    pos: u64,
    seekable: bool,
}

impl<F> AtReader<F> {
    fn new(file: F) -> AtReader<F> {
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
