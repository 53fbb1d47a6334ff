//! `lint --baseline FILE` and `--write-baseline FILE`: adopting urlsift on
//! a tree that already has findings, so that CI fails only on new ones.
//!
//! A finding is known by its file (as output names it), its code and its
//! URL, not by its line: edits above it move it without making it new.
//! The price is that a second occurrence of the same bad URL with the same
//! code in the same file is taken as known too; counting occurrences would
//! make the answer depend on which part of a big file a thread finished
//! first, and output must not depend on the thread count.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use urlsift::driver::{Context, Emit, Input};
use urlsift::extract::Extracted;

/// The file's format version; a file with another is refused.
const VERSION: u32 = 1;

/// One known finding.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
struct Entry {
    path: String,
    code: String,
    url: String,
}

#[derive(Serialize, Deserialize)]
struct File {
    urlsift_baseline: u32,
    findings: Vec<Entry>,
}

fn entry(input: &Input, url: &[u8], code: &str) -> Entry {
    Entry {
        path: input.shown().to_owned(),
        code: code.to_owned(),
        url: String::from_utf8_lossy(url).into_owned(),
    }
}

/// An [`Emit`] that drops the findings a baseline knows and counts them.
pub struct Known<'a, E> {
    inner: &'a E,
    known: HashSet<Entry>,
    /// Findings not reported because the baseline knows them.
    pub hidden: AtomicU64,
}

impl<'a, E> Known<'a, E> {
    /// Reads the baseline at `path`; an error names the file and what is
    /// wrong with it.
    pub fn load(inner: &'a E, path: &Path) -> Result<Known<'a, E>, String> {
        let shown = urlsift::escape::str_for_terminal(&path.display().to_string()).into_owned();
        let text = std::fs::read(path).map_err(|e| format!("--baseline {shown}: {e}"))?;
        let file: File = serde_json::from_slice(&text).map_err(|e| {
            format!("--baseline {shown}: not a baseline written by --write-baseline ({e})")
        })?;
        if file.urlsift_baseline != VERSION {
            return Err(format!(
                "--baseline {shown}: version {} (this urlsift reads {VERSION})",
                file.urlsift_baseline
            ));
        }
        Ok(Known { inner, known: file.findings.into_iter().collect(), hidden: AtomicU64::new(0) })
    }

    /// No baseline: everything is reported.
    pub fn none(inner: &'a E) -> Known<'a, E> {
        Known { inner, known: HashSet::new(), hidden: AtomicU64::new(0) }
    }
}

impl<E: Emit> Emit for Known<'_, E> {
    fn emit(&self, input: &Input, url: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool {
        if self.known.is_empty() || url.findings.is_empty() {
            return self.inner.emit(input, url, cx, out);
        }
        let is_known = |code: &str| self.known.contains(&entry(input, &url.url, code));
        if !url.findings.iter().any(|f| is_known(f.diagnostic.code.as_str())) {
            return self.inner.emit(input, url, cx, out);
        }
        let mut left = url.clone();
        left.findings.retain(|f| !is_known(f.diagnostic.code.as_str()));
        let hidden = url.findings.len() - left.findings.len();
        self.hidden.fetch_add(hidden as u64, Ordering::Relaxed);
        self.inner.emit(input, &left, cx, out)
    }
}

/// An [`Emit`] that records every finding for `--write-baseline` and
/// prints nothing.
#[derive(Default)]
pub struct Recorder {
    seen: Mutex<BTreeSet<Entry>>,
    /// Findings recorded, before merging those with the same key.
    pub findings: AtomicU64,
}

impl Emit for Recorder {
    fn emit(&self, input: &Input, url: &Extracted, _cx: Context<'_>, _out: &mut Vec<u8>) -> bool {
        if url.findings.is_empty() {
            return false;
        }
        self.findings.fetch_add(url.findings.len() as u64, Ordering::Relaxed);
        let mut seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for f in &url.findings {
            seen.insert(entry(input, &url.url, f.diagnostic.code.as_str()));
        }
        false
    }
}

impl Recorder {
    /// Writes the baseline to `path` (sorted, one finding a line, so that
    /// it diffs well under version control): how many entries.
    pub fn write(self, path: &Path) -> Result<usize, String> {
        let seen = self.seen.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = seen.len();
        let mut text = format!("{{\"urlsift_baseline\":{VERSION},\"findings\":[\n");
        for (i, e) in seen.iter().enumerate() {
            let line = serde_json::to_string(e).expect("strings serialize");
            text.push_str(&line);
            text.push_str(if i + 1 < n { ",\n" } else { "\n" });
        }
        text.push_str("]}\n");
        let shown = urlsift::escape::str_for_terminal(&path.display().to_string()).into_owned();
        std::fs::write(path, text).map_err(|e| format!("--write-baseline {shown}: {e}"))?;
        Ok(n)
    }
}
