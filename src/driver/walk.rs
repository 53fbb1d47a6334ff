//! Turning the paths a user gave into inputs: walking directories with the
//! `ignore` crate (so `.gitignore` is respected), the file-type filter,
//! and what a path that cannot be read is reported as.

use super::{Input, reason};
use std::path::{Path, PathBuf};

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

    pub(super) fn file_types(&self) -> Result<Option<ignore::types::Types>, String> {
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
/// reaches it, so [`run_stream`](super::run_stream) can scan the first files while the rest of
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
    pub(super) paths: std::vec::IntoIter<PathBuf>,
    pub(super) implicit: bool,
    pub(super) opts: WalkOptions,
    pub(super) current: Option<ignore::Walk>,
    pub(super) pending: std::collections::VecDeque<Walked>,
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
    pub(super) fn skipped(&self, e: &ignore::DirEntry) -> bool {
        use std::os::unix::fs::MetadataExt;
        let skip = &self.opts.skip;
        if !e.ino().is_some_and(|ino| skip.iter().any(|&(_, i)| i == ino)) {
            return false;
        }
        std::fs::metadata(e.path()).is_ok_and(|m| skip.contains(&(m.dev(), m.ino())))
    }

    /// The note that skips `path` when it is the output file.
    pub(super) fn skip_output(&self, path: &Path, shown: &str) -> Option<InputError> {
        use std::os::unix::fs::MetadataExt;
        let (dev, ino) = self.opts.output?;
        let m = std::fs::metadata(path).ok()?;
        (m.dev() == dev && m.ino() == ino).then(|| InputError {
            path: shown.to_string(),
            reason: "is the file the output goes to: not read".to_string(),
            fatal: false,
        })
    }

    pub(super) fn build(&mut self, root: &Path) -> ignore::Walk {
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
pub(super) fn glob_reason(e: &ignore::Error) -> String {
    match e {
        ignore::Error::Glob { err, .. } => err.clone(),
        e => e.to_string(),
    }
}

/// One line for a walk problem: the path it concerns and the reason,
/// without the path a second time (`ignore`'s own messages embed it).
pub(super) fn walk_error(e: &ignore::Error, path: Option<&Path>, implicit: bool) -> InputError {
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
pub(super) fn show(p: &Path, implicit: bool) -> String {
    let p = if implicit { p.strip_prefix(".").unwrap_or(p) } else { p };
    match p.to_str() {
        Some(s) => s.to_owned(),
        None => escape_name(p.as_os_str().as_encoded_bytes()),
    }
}

pub(super) fn escape_name(bytes: &[u8]) -> String {
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
