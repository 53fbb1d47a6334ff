//! Local links: a document's relative links (`[guide](../guide.md#install)`,
//! `href="img/a.png"`) and `file:` URLs, resolved against the document's
//! directory and checked on disk, with no network.
//!
//! A link is resolved as a browser or GitHub resolves it, lexically: the
//! path is percent-decoded, `.` and `..` are folded without asking the
//! file system, and only then is the target looked up (so a symbolic link
//! is followed to what it names, and a dangling one is missing). An
//! absolute path (`/guide/`) names the site's root, which only the user
//! knows (`--root-dir`); without one it is listed, not checked. A link
//! that climbs out of that root is reported, never followed.
//!
//! Fragments are checked in Markdown and HTML targets (see
//! [`Anchors`]); each target's anchors are read once per run, whatever
//! the number of files linking to it and of threads asking.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

pub use crate::doc::anchors::{Anchors, slug};
use crate::doc::{Format, scheme_len};

/// How local links are treated.
#[derive(Clone, Debug, Default)]
pub struct LinkOptions {
    /// Check relative links and `file:` URLs of documents (Markdown,
    /// HTML, reST, notebooks): `local-link-missing`, `fragment-missing`.
    pub check: bool,
    /// Hand every relative link to the caller as well, with the path it
    /// resolves to ([`crate::extract::Extracted::local`]), not only those
    /// with findings (`extract --relative`).
    pub list: bool,
    /// The directory an absolute path (`/guide/`) is resolved against,
    /// and that no link may climb out of; `None`: absolute paths are not
    /// checked, and relative ones may go anywhere.
    pub root: Option<PathBuf>,
}

/// Where a local link leads, as [`crate::extract::Extracted::local`]
/// gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Local {
    /// The path it resolves to (relative to the working directory when it
    /// is under it, else absolute); `None` when it cannot be resolved
    /// here: an absolute path and no root directory.
    pub path: Option<PathBuf>,
}

/// What came of resolving one link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// No local link: a URL of another scheme, another host, a template,
    /// a `#` or `?query` alone.
    NotLocal,
    /// An absolute path with no root directory to resolve it against.
    Unresolved,
    /// The target exists (and so does the fragment, when it could be
    /// judged).
    Found(PathBuf),
    /// The target does not exist; with what is there instead, when
    /// something is.
    Missing(PathBuf, Option<Hint>),
    /// The link climbs out of the root directory.
    OutsideRoot(PathBuf),
    /// The target exists but has no anchor of that name.
    FragmentMissing(PathBuf, String),
}

/// What stands where a missing target was looked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hint {
    /// An entry of the directory whose name differs only in case: on a
    /// case-sensitive file system (and on GitHub) the link is broken,
    /// and that is most likely why.
    Case(String),
    /// The target compressed (`changelog.html.gz`, as Debian installs
    /// large documents): a browser does not open it in its place.
    Compressed(String),
}

/// A link split into what the file system needs.
#[derive(Debug, PartialEq, Eq)]
struct Parsed {
    /// Percent-decoded; empty for a link to the same document.
    path: Vec<u8>,
    /// As written, without the `#`: a browser looks for an anchor of
    /// that name, then of its percent-decoded name (rustdoc's ids hold
    /// `%3C`).
    fragment: Option<Vec<u8>>,
    /// How `path` is anchored.
    base: Base,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    /// The linking document's directory.
    Dir,
    /// The root directory (`/guide/`).
    Root,
    /// The file system's root (`file:///etc/hosts`).
    System,
}

/// Splits a link destination; `None` when it names nothing local.
fn parse(dest: &[u8]) -> Option<Parsed> {
    let dest = dest.trim_ascii();
    // Templates of site generators (Jinja, Liquid, Hugo, ERB): filled
    // in when the site is built, not a path.
    if [&b"{{"[..], b"{%", b"${", b"<%", b"%}"]
        .iter()
        .any(|t| memchr::memmem::find(dest, t).is_some())
    {
        return None;
    }
    // Sphinx's `.. image:: name.*`: whichever format the builder finds,
    // not a file of that name.
    if dest.ends_with(b".*") {
        return None;
    }
    let (mut rest, mut base) = (dest, Base::Dir);
    if let Some(n) = scheme_len(dest) {
        if !dest[..n].eq_ignore_ascii_case(b"file") {
            return None;
        }
        rest = &dest[n + 1..];
        if let Some(auth) = rest.strip_prefix(b"//") {
            let host_end = memchr::memchr(b'/', auth).unwrap_or(auth.len());
            let host = &auth[..host_end];
            if !(host.is_empty() || host.eq_ignore_ascii_case(b"localhost")) {
                return None;
            }
            rest = &auth[host_end..];
        }
        if rest.starts_with(b"/") {
            base = Base::System;
        }
    } else if dest.starts_with(b"//") {
        // A network-path reference: another host.
        return None;
    } else if dest.len() >= 2 && dest[0].is_ascii_alphabetic() && dest[1] == b':' {
        // A Windows drive (`C:\x`, `C:/x`): not a path on this system.
        return None;
    } else if dest.starts_with(b"/") {
        base = Base::Root;
    }
    let (before, fragment) = match memchr::memchr(b'#', rest) {
        Some(h) => (&rest[..h], Some(rest[h + 1..].to_vec())),
        None => (rest, None),
    };
    let path = &before[..memchr::memchr(b'?', before).unwrap_or(before.len())];
    if path.is_empty() && fragment.as_ref().is_none_or(|f| f.is_empty()) {
        // `#`, `?query`: the document itself, nothing to check.
        return None;
    }
    Some(Parsed { path: crate::mail::percent_decode(path), fragment, base })
}

/// Whether `fragment` names lines of a source view (`#89`, `#89-97`,
/// GitHub's `#L89-L97`): rustdoc's and GitHub's viewers make those
/// anchors with a script, so no file shows them.
fn is_line_fragment(fragment: &[u8]) -> bool {
    let line = |s: &[u8]| {
        let s = s.strip_prefix(b"L").unwrap_or(s);
        !s.is_empty() && s.iter().all(u8::is_ascii_digit)
    };
    match memchr::memchr(b'-', fragment) {
        Some(d) => line(&fragment[..d]) && line(&fragment[d + 1..]),
        None => line(fragment),
    }
}

/// `path` with `.` and `..` folded away, without asking the file system
/// (as a URL's dot segments are); `..` at the root stays at the root.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let up = out.components().next_back().is_some_and(|c| c == Component::ParentDir);
                if up || (!out.pop() && !out.has_root()) {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Extensions whose sources a site generator turns into `.html`: a link
/// to `guide.html` beside `guide.md` is to the page built from it.
const SOURCES: &[&str] = &["md", "markdown", "rst", "txt", "adoc"];

/// Checks local links, caching each target's anchors for the whole run
/// (shared by every thread).
#[derive(Debug)]
pub struct Resolver {
    root: Option<PathBuf>,
    cwd: PathBuf,
    anchors: Mutex<HashMap<PathBuf, Arc<OnceLock<Option<Anchors>>>>>,
    /// What each target resolved to: a docs tree links to the same pages
    /// from every page (an index, a stylesheet), and a missing one costs a
    /// look through its directory for a name in another case.
    targets: Mutex<HashMap<PathBuf, Lookup>>,
}

/// A document whose links [`Resolver::check_in`] checks.
#[derive(Clone, Debug)]
pub struct Document {
    /// Absolute, with `.` and `..` folded.
    file: PathBuf,
}

/// What the file system said of a target.
#[derive(Clone, Debug)]
enum Lookup {
    /// The file that answers for it, and the format of its anchors.
    Found(PathBuf, Option<Format>),
    /// Nothing does; what stands there instead, if anything.
    Missing(Option<Hint>),
}

impl Resolver {
    /// A resolver with `root` as the root directory (see
    /// [`LinkOptions::root`]).
    pub fn new(root: Option<PathBuf>) -> Resolver {
        let cwd = std::env::current_dir().unwrap_or_default();
        let root = root.map(|r| normalize(&cwd.join(r)));
        Resolver { root, cwd, anchors: Mutex::default(), targets: Mutex::default() }
    }

    /// Drops the anchors read so far, so that the next check reads its
    /// targets again (a long-lived resolver, as the language server's,
    /// whose files change under it).
    pub fn forget(&self) {
        self.anchors.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.targets.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Resolves `dest`, a link of the document `file` (whose bytes are
    /// `src`, read as `format`), and checks its target.
    pub fn check(&self, file: &Path, format: Format, src: &[u8], dest: &[u8]) -> Outcome {
        self.check_in(&self.document(file), format, src, dest)
    }

    /// The document `file` as [`Resolver::check_in`] takes it: its path
    /// made absolute and folded once, for all of its links.
    pub fn document(&self, file: &Path) -> Document {
        Document { file: normalize(&self.cwd.join(file)) }
    }

    /// [`Resolver::check`] of a link of `doc`.
    pub fn check_in(&self, doc: &Document, format: Format, src: &[u8], dest: &[u8]) -> Outcome {
        let Some(p) = parse(dest) else { return Outcome::NotLocal };
        let file = &doc.file;
        let path = bytes_path(&p.path);
        let target = match p.base {
            _ if p.path.is_empty() => file.clone(),
            Base::Dir => normalize(&file.parent().unwrap_or(Path::new("/")).join(path)),
            Base::System => normalize(path),
            Base::Root => match &self.root {
                Some(root) => normalize(&root.join(path.strip_prefix("/").unwrap_or(path))),
                None => return Outcome::Unresolved,
            },
        };
        let shown = self.shown(&target);
        // `..` past the file system's root stays there: no link leaves
        // the root directory by that either.
        if let Some(root) = &self.root
            && !p.path.is_empty()
            && !target.starts_with(root)
        {
            return Outcome::OutsideRoot(shown);
        }
        let (found, format) = if p.path.is_empty() {
            (file.clone(), Some(format))
        } else {
            match self.lookup(&target) {
                Lookup::Found(f, format) => (f, format),
                Lookup::Missing(hint) => return Outcome::Missing(shown, hint),
            }
        };
        let Some(fragment) = p.fragment.filter(|f| !f.is_empty()) else {
            return Outcome::Found(shown);
        };
        let Some(format) = format else { return Outcome::Found(shown) };
        let own = (found == *file).then_some(src);
        let cell = self.anchors(&found, format, own);
        match cell.get().and_then(Option::as_ref) {
            Some(a)
                if !a.has(&fragment)
                    && !a.has(&crate::mail::percent_decode(&fragment))
                    && !is_line_fragment(&fragment) =>
            {
                Outcome::FragmentMissing(shown, String::from_utf8_lossy(&fragment).into_owned())
            }
            _ => Outcome::Found(shown),
        }
    }

    /// What `target` resolves to, asked of the file system once per run.
    fn lookup(&self, target: &Path) -> Lookup {
        let known = self.targets.lock().unwrap_or_else(|e| e.into_inner()).get(target).cloned();
        if let Some(known) = known {
            return known;
        }
        // Asked outside the lock; two threads may both ask for the same
        // new target, and get the same answer.
        let found = match self.find(target) {
            Some(f) => {
                let format = self.format_of(&f);
                Lookup::Found(f, format)
            }
            None => Lookup::Missing(hint(target)),
        };
        let mut map = self.targets.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(target.to_path_buf()).or_insert(found).clone()
    }

    /// The file that answers for `target`: itself, a directory's
    /// `index.html` (for its anchors; the directory itself when it has
    /// none), or the source of a page a generator builds; `None` when
    /// nothing does.
    fn find(&self, target: &Path) -> Option<PathBuf> {
        match std::fs::metadata(target) {
            Ok(m) if m.is_dir() => {
                let index = target.join("index.html");
                Some(if index.is_file() { index } else { target.to_path_buf() })
            }
            Ok(_) => Some(target.to_path_buf()),
            Err(_) => {
                let ext = target.extension()?.to_str()?;
                if !(ext.eq_ignore_ascii_case("html") || ext.eq_ignore_ascii_case("htm")) {
                    return None;
                }
                SOURCES.iter().map(|s| target.with_extension(s)).find(|p| p.is_file())
            }
        }
    }

    /// The format whose anchors a target has, if it has known ones.
    fn format_of(&self, path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?;
        match Format::from_extension(ext)? {
            f @ (Format::Markdown | Format::Html) => Some(f),
            _ => None,
        }
    }

    /// The anchors of `path`, read once per run; `src` is its bytes when
    /// the caller has them. The cell holds `None` when it cannot be read.
    fn anchors(
        &self,
        path: &Path,
        format: Format,
        src: Option<&[u8]>,
    ) -> Arc<OnceLock<Option<Anchors>>> {
        let cell = {
            let mut map = self.anchors.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(path.to_path_buf()).or_default().clone()
        };
        // Read outside the lock: other targets' readers go on; one
        // asking for the same target waits for this one.
        cell.get_or_init(|| match src {
            Some(s) => Anchors::of(format, s),
            None => std::fs::read(path).ok().and_then(|s| Anchors::of(format, &s)),
        });
        cell
    }

    /// `path` as output shows it: relative to the working directory when
    /// under it.
    fn shown(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(&self.cwd) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
            Ok(_) => PathBuf::from("."),
            Err(_) => path.to_path_buf(),
        }
    }
}

/// What stands in place of the missing `target`, if anything.
fn hint(target: &Path) -> Option<Hint> {
    let name = target.file_name()?.to_str()?;
    let gz = format!("{name}.gz");
    if target.with_file_name(&gz).is_file() {
        return Some(Hint::Compressed(gz));
    }
    other_case(target).map(Hint::Case)
}

/// The name of an entry of `target`'s directory that differs from
/// `target`'s only in case.
fn other_case(target: &Path) -> Option<String> {
    let name = target.file_name()?.to_str()?;
    let dir = target.parent()?;
    let mut hits: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n != name && n.eq_ignore_ascii_case(name))
        .collect();
    hits.sort();
    hits.into_iter().next()
}

fn bytes_path(b: &[u8]) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    Path::new(std::ffi::OsStr::from_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(s: &str) -> Option<(String, Option<String>, Base)> {
        parse(s.as_bytes()).map(|p| {
            let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (lossy(&p.path), p.fragment.as_deref().map(lossy), p.base)
        })
    }

    #[test]
    fn what_is_local() {
        let some = |p: &str, f: Option<&str>, b| Some((p.to_string(), f.map(String::from), b));
        assert_eq!(parsed("../guide.md#install"), some("../guide.md", Some("install"), Base::Dir));
        assert_eq!(parsed("a%20b.md?x=1#F%C3%BC"), some("a b.md", Some("F%C3%BC"), Base::Dir));
        assert_eq!(parsed("#top"), some("", Some("top"), Base::Dir));
        assert_eq!(parsed("/guide/"), some("/guide/", None, Base::Root));
        assert_eq!(parsed("file:///etc/hosts"), some("/etc/hosts", None, Base::System));
        assert_eq!(parsed("file://localhost/x"), some("/x", None, Base::System));
        assert_eq!(parsed("file:notes.txt"), some("notes.txt", None, Base::Dir));
        assert_eq!(parsed("100%.md"), some("100%.md", None, Base::Dir));
        for not in [
            "",
            "#",
            "?page=2",
            "http://example.com/a.md",
            "mailto:a@example.com",
            "javascript:void(0)",
            "//cdn.example.com/x.js",
            "file://server/share/x",
            "C:\\docs\\a.md",
            "{{ site.baseurl }}/a.html",
            "${root}/a.md",
            "images/turtle-star.*",
        ] {
            assert_eq!(parsed(not), None, "{not}");
        }
    }

    #[test]
    fn line_fragments_are_a_viewer_s() {
        for yes in ["89", "89-97", "L89", "L89-L97"] {
            assert!(is_line_fragment(yes.as_bytes()), "{yes}");
        }
        for no in ["", "-", "89-", "index-19", "L", "v1-2"] {
            assert!(!is_line_fragment(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn dot_segments_fold_lexically() {
        assert_eq!(normalize(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
        assert_eq!(normalize(Path::new("/a/../../x")), PathBuf::from("/x"));
        assert_eq!(normalize(Path::new("../../x")), PathBuf::from("../../x"));
    }
}
