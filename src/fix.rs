//! Fixing what `lint` finds, in place (`lint --fix`, `--diff`).
//!
//! A fix is the `fix` of a diagnostic: the whole URL with that problem
//! corrected. Only fixes that leave the URL naming the same resource are
//! safe ([`Safety`]); the others need `--unsafe-fixes`. A URL's fixes are
//! applied one after the other, the URL checked again after each (one
//! fix can make or end another problem), until none is left to apply.
//!
//! A URL is fixed where it stands only when its text is the file's own
//! bytes on one line ([`Extracted::verbatim`](crate::extract::Extracted)):
//! every byte outside the fixed URLs stays as it was, line endings and
//! all. Writing goes through a temporary file in the same directory,
//! renamed over the original, with its permissions; a file that changed
//! since it was read is left alone and reported.

use std::io::{self, Write};
use std::path::Path;

use crate::diag::Code;
use crate::extract::Sifter;

/// Whether applying a code's fix keeps the URL naming the same resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Safety {
    /// The fixed URL names the same resource (a case or an encoding a
    /// reader treats as equal, a redundant part dropped): applied by
    /// `--fix`.
    Safe,
    /// The fix is a guess at what was meant and may change what the URL
    /// names: applied only with `--unsafe-fixes`.
    Unsafe,
}

impl Safety {
    /// The name `explain` shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Safety::Safe => "safe",
            Safety::Unsafe => "unsafe",
        }
    }
}

/// The kind of fix a code's diagnostics carry, `None` for codes that
/// never carry one.
pub fn safety(code: Code) -> Option<Safety> {
    use Code::*;
    Some(match code {
        // Case-insensitive (RFC 3986 3.1), or the encoding every reader
        // applies itself (a browser sends a space as %20, `é` as its UTF-8
        // escapes, a stray `%` as %25), or a part that is the default.
        UppercaseScheme | DefaultPort | UnsafeCharacter | NonAscii | ControlCharacter
        | BadEscape | EncodedHost | BadPort => Safety::Safe,
        // Encoding a reserved character, adding slashes, dropping a
        // password or a user, reshaping a scheme's fields: what was meant
        // is a guess.
        ReservedCharacter | MissingSlashes | PasswordPresent | UserinfoNotAllowed | FileHost
        | FtpTypecode | TelnetPath | WaisForm | ProsperoField | MailtoAddress | BadHostname
        | BadFragment => Safety::Unsafe,
        // A server's permanent redirect may lead to its home page or a
        // login page rather than the same document: the user judges.
        LinkRedirected => Safety::Unsafe,
        _ => return None,
    })
}

/// Whether a diagnostic's fix of `code` is applied: safe ones always,
/// unsafe ones with `unsafe_fixes`.
pub fn applies(code: Code, unsafe_fixes: bool) -> bool {
    match safety(code) {
        Some(Safety::Safe) => true,
        Some(Safety::Unsafe) => unsafe_fixes,
        None => false,
    }
}

/// Most fixes one URL takes: each ends a problem, and a URL has few.
const MAX_STEPS: usize = 64;

/// `url` with every fix that [`applies`] applied, one at a time, checked
/// again after each; `None` when none applies. Codes not in `codes` (the
/// ones reported for the URL where it stands, after markers and
/// settings) are left alone.
pub fn fixed_url(
    sifter: &Sifter,
    url: &[u8],
    codes: &[Code],
    unsafe_fixes: bool,
) -> Option<Vec<u8>> {
    let mut now = url.to_vec();
    for _ in 0..MAX_STEPS {
        let v = sifter.check(&now);
        let next = v.diagnostics.iter().find_map(|d| {
            let fix = d.fix.as_ref()?;
            (codes.contains(&d.code) && applies(d.code, unsafe_fixes) && fix.as_bytes() != now)
                .then(|| fix.as_bytes().to_vec())
        });
        match next {
            Some(n) => now = n,
            None => break,
        }
    }
    (now != url).then_some(now)
}

/// One URL replaced in a file: `old` at byte `offset` becomes `new`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Offset of the URL's first byte in the file.
    pub offset: u64,
    /// The URL as it stands.
    pub old: Vec<u8>,
    /// The URL fixed.
    pub new: Vec<u8>,
}

/// The edits that put `new` in place of the URL `u` where it stands in
/// its input, or `None` when its text is not the input's own bytes (read
/// through a decoding layer, or rejoined from more than one line without
/// [`Extracted::pieces`](crate::extract::Extracted)) and so cannot be
/// replaced there. The caller knows whether the input itself is the file
/// (not mail, nor a compressed file or a record).
pub fn edits_in_place(u: &crate::extract::Extracted, new: &[u8]) -> Option<Vec<Edit>> {
    let own_bytes = (u.verbatim && u.start.line == u.end.line) || !u.pieces.is_empty();
    if !own_bytes {
        return None;
    }
    let pieces = if u.verbatim { &[][..] } else { &u.pieces[..] };
    edits_for(&u.url, new, u.start.offset, pieces)
}

/// The edits that turn a URL into its fixed form in the file: one edit
/// of the whole URL when its text is the file's bytes from `offset` on
/// (`pieces` empty); for a URL rejoined from runs of the file's bytes
/// (`pieces`: `(offset in url, offset in the file)` of each run), one edit
/// per changed stretch, each made in the run it falls in, so the line
/// breaks and quote prefixes between the runs stay where they are. `None`
/// when the URL is too long to compare.
pub fn edits_for(
    url: &[u8],
    fixed: &[u8],
    offset: u64,
    pieces: &[(u64, u64)],
) -> Option<Vec<Edit>> {
    if pieces.is_empty() {
        return Some(vec![Edit { offset, old: url.to_vec(), new: fixed.to_vec() }]);
    }
    let file_of = |t: usize| {
        let i = pieces.partition_point(|p| p.0 as usize <= t) - 1;
        pieces[i].1 + (t - pieces[i].0 as usize) as u64
    };
    let mut out: Vec<Edit> = Vec::new();
    for (a, b, new) in changes(url, fixed)? {
        if a == b {
            // An insertion goes right after the byte before it, on its line.
            let at = if a == 0 { file_of(0) } else { file_of(a - 1) + 1 };
            out.push(Edit { offset: at, old: Vec::new(), new });
            continue;
        }
        // A stretch that crosses runs is cut at each; the new bytes go
        // where it starts.
        let mut t = a;
        let mut new = Some(new);
        while t < b {
            let i = pieces.partition_point(|p| p.0 as usize <= t) - 1;
            let run_end = pieces.get(i + 1).map_or(url.len(), |p| p.0 as usize);
            let end = run_end.min(b);
            out.push(Edit {
                offset: file_of(t),
                old: url[t..end].to_vec(),
                new: new.take().unwrap_or_default(),
            });
            t = end;
        }
    }
    Some(out)
}

/// Where `new` differs from `old`: `(start, end, replacement)` stretches of
/// `old`, in order, from a longest common subsequence.
fn changes(old: &[u8], new: &[u8]) -> Option<Vec<(usize, usize, Vec<u8>)>> {
    let (n, m) = (old.len(), new.len());
    if n > 4096 || m > 4096 {
        return None;
    }
    // lcs[i][j]: the longest common subsequence of old[i..] and new[j..].
    let w = m + 1;
    let mut lcs = vec![0u16; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * w + j] = if old[i] == new[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    let mut open: Option<(usize, Vec<u8>)> = None;
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] && lcs[i * w + j] == lcs[(i + 1) * w + j + 1] + 1 {
            if let Some((a, ins)) = open.take() {
                out.push((a, i, ins));
            }
            i += 1;
            j += 1;
        } else if j == m || (i < n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            open.get_or_insert((i, Vec::new()));
            i += 1;
        } else {
            open.get_or_insert((i, Vec::new())).1.push(new[j]);
            j += 1;
        }
    }
    if let Some((a, ins)) = open {
        out.push((a, n, ins));
    }
    Some(out)
}

/// `original` with `edits` (sorted by offset, not overlapping) made;
/// `None` if an edit's old bytes are not at its offset (the file is not
/// what was scanned).
pub fn apply(original: &[u8], edits: &[Edit]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(original.len() + 64);
    let mut at = 0usize;
    for e in edits {
        let start = usize::try_from(e.offset).ok()?;
        let end = start.checked_add(e.old.len())?;
        if start < at || original.get(start..end)? != e.old.as_slice() {
            return None;
        }
        out.extend_from_slice(&original[at..start]);
        out.extend_from_slice(&e.new);
        at = end;
    }
    out.extend_from_slice(&original[at..]);
    Some(out)
}

/// Why a fixed file was not written.
#[derive(Debug)]
pub enum WriteError {
    /// The file is no longer what was read: someone changed it meanwhile.
    Changed,
    /// Reading, writing or renaming failed.
    Io(io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Changed => f.write_str("changed on disk since it was read: not fixed"),
            WriteError::Io(e) => write!(f, "not fixed: {e}"),
        }
    }
}

/// Replaces the file at `path`, whose content was `original`, by `fixed`:
/// written to a temporary file beside it with the same permissions, then
/// renamed over it, unless the file no longer holds `original`.
pub fn write_if_unchanged(path: &Path, original: &[u8], fixed: &[u8]) -> Result<(), WriteError> {
    let now = std::fs::read(path).map_err(WriteError::Io)?;
    if now != original {
        return Err(WriteError::Changed);
    }
    let meta = std::fs::metadata(path).map_err(WriteError::Io)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp =
        tempfile::Builder::new().prefix(".urlsift-fix").tempfile_in(dir).map_err(WriteError::Io)?;
    tmp.write_all(fixed).map_err(WriteError::Io)?;
    tmp.as_file().sync_all().map_err(WriteError::Io)?;
    std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(WriteError::Io)?;
    // The last look: a change made while the copy was written is not
    // overwritten either (a change within the rename itself cannot be
    // told apart without locks nobody else takes).
    if std::fs::read(path).map_err(WriteError::Io)? != original {
        return Err(WriteError::Changed);
    }
    tmp.persist(path).map_err(|e| WriteError::Io(e.error))?;
    Ok(())
}

/// A unified diff (`diff -u`, three lines of context) of a file whose
/// lines were edited in place: `old` and `new` have the same lines, some
/// changed (fixes never add or remove a line break).
pub fn unified_diff(name: &str, old: &[u8], new: &[u8], out: &mut Vec<u8>) {
    let a: Vec<&[u8]> = old.split_inclusive(|&b| b == b'\n').collect();
    let b: Vec<&[u8]> = new.split_inclusive(|&b| b == b'\n').collect();
    debug_assert_eq!(a.len(), b.len());
    let changed: Vec<usize> = (0..a.len().min(b.len())).filter(|&i| a[i] != b[i]).collect();
    if changed.is_empty() {
        return;
    }
    let _ = writeln!(out, "--- a/{name}\n+++ b/{name}");
    let line = |out: &mut Vec<u8>, sign: u8, l: &[u8]| {
        out.push(sign);
        out.extend_from_slice(l);
        if !l.ends_with(b"\n") {
            out.extend_from_slice(b"\n\\ No newline at end of file\n");
        }
    };
    let mut i = 0;
    while i < changed.len() {
        // A hunk: changes whose contexts touch go together.
        let mut j = i;
        while j + 1 < changed.len() && changed[j + 1] - changed[j] <= 6 {
            j += 1;
        }
        let from = changed[i].saturating_sub(3);
        let to = (changed[j] + 4).min(a.len());
        let n = to - from;
        let _ = writeln!(out, "@@ -{},{n} +{},{n} @@", from + 1, from + 1);
        for k in from..to {
            if a[k] == b[k] {
                line(out, b' ', a[k]);
            } else {
                line(out, b'-', a[k]);
                line(out, b'+', b[k]);
            }
        }
        i = j + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::Options;

    #[test]
    fn safe_fixes_only_unless_asked() {
        let s = Sifter::new(Options::default());
        let all =
            [Code::BadEscape, Code::UnsafeCharacter, Code::ReservedCharacter, Code::MissingSlashes];
        assert_eq!(
            fixed_url(&s, b"http://h.example/a b/%zz", &all, false).as_deref(),
            Some(&b"http://h.example/a%20b/%25zz"[..])
        );
        assert_eq!(fixed_url(&s, b"http://h.example/ok", &all, false), None);
        // A code the URL was not reported for where it stands is left.
        assert_eq!(fixed_url(&s, b"http://h.example/a b", &[Code::BadEscape], false), None);
    }

    #[test]
    fn a_rejoined_url_is_fixed_in_its_runs() {
        // "See <URL:http://h.example/a\n  /%zz\n  /c|d>": three runs.
        let file = b"See <URL:http://h.example/a\n  /%zz\n  /c|d> here";
        let url = b"http://h.example/a/%zz/c|d";
        let pieces = [(0, 9), (18, 30), (22, 37)];
        for (t, f) in pieces {
            let len = pieces.iter().map(|p| p.0).find(|&n| n > t).unwrap_or(url.len() as u64) - t;
            assert_eq!(&url[t as usize..(t + len) as usize], &file[f as usize..(f + len) as usize]);
        }
        let fixed = b"http://h.example/a/%25zz/c%7Cd";
        let edits = edits_for(url, fixed, 9, &pieces).unwrap();
        let out = apply(file, &edits).unwrap();
        assert_eq!(out, b"See <URL:http://h.example/a\n  /%25zz\n  /c%7Cd> here");
        // A change across a break: each run keeps its place.
        let edits = edits_for(url, b"http://h.example/x", 9, &pieces).unwrap();
        assert_eq!(apply(file, &edits).unwrap(), b"See <URL:http://h.example/x\n  \n  > here");
    }

    #[test]
    fn changes_are_minimal_stretches() {
        assert_eq!(changes(b"a%zzb", b"a%25zzb").unwrap(), [(2, 2, b"25".to_vec())]);
        assert_eq!(changes(b"a b|c", b"a%20b%7Cc").unwrap().len(), 2);
        assert_eq!(
            changes(b"HTTP://x:80/", b"http://x/").unwrap().iter().map(|c| c.0).collect::<Vec<_>>(),
            [0, 8]
        );
        assert_eq!(changes(b"same", b"same").unwrap(), []);
    }

    #[test]
    fn apply_checks_the_old_bytes() {
        let e = |o, old: &str, new: &str| Edit { offset: o, old: old.into(), new: new.into() };
        assert_eq!(
            apply(b"a xy b xy", &[e(2, "xy", "XYZ"), e(7, "xy", "")]).as_deref(),
            Some(&b"a XYZ b "[..])
        );
        assert_eq!(apply(b"a xy", &[e(2, "xz", "q")]), None);
        assert_eq!(apply(b"a xy", &[e(3, "y", "q"), e(2, "xy", "q")]), None);
        assert_eq!(apply(b"a xy", &[e(3, "yy", "q")]), None);
    }

    #[test]
    fn a_diff_has_context_and_marks_a_last_line_without_newline() {
        let old = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\nlast";
        let new = b"1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\nLAST";
        let mut out = Vec::new();
        unified_diff("f.txt", old, new, &mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("--- a/f.txt\n+++ b/f.txt\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n"),
            "{text}"
        );
        assert!(text.ends_with("@@ -10,4 +10,4 @@\n 10\n 11\n 12\n-last\n\\ No newline at end of file\n+LAST\n\\ No newline at end of file\n"), "{text}");
    }

    #[test]
    fn a_changed_file_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        std::fs::write(&p, b"new content").unwrap();
        assert!(matches!(
            write_if_unchanged(&p, b"old content", b"fixed"),
            Err(WriteError::Changed)
        ));
        assert_eq!(std::fs::read(&p).unwrap(), b"new content");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_if_unchanged(&p, b"new content", b"fixed").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"fixed");
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o640);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }
}
