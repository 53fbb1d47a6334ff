//! Suppression markers written in the text: what they say and how far
//! they reach (README, "Silencing a finding").
//!
//! - `urlsift: ignore` (or `urlsift: ignore[CODE,...]`) after text on a
//!   line covers that line; alone on its line (after a comment opener) it
//!   covers the next line.
//! - `urlsift: disable` (or `disable[CODE,...]`) covers every URL that
//!   starts after it, until `urlsift: enable`.
//! - `urlsift: ignore-file` (or `ignore-file[CODE,...]`) in an input's
//!   first [`HEAD`] bytes covers the whole input.
//!
//! The line markers are found by the placer, line by line; the block
//! markers by [`Blocks`], which reads forward as URLs with findings come,
//! so a file without findings costs nothing here.

use memchr::memchr2;
use memchr::memmem::Finder;

use crate::diag::{Code, Diagnostic};

/// The line marker.
pub(crate) const MARKER: &[u8] = b"urlsift: ignore";

/// What every marker starts with.
pub(crate) const DIRECTIVE: &[u8] = b"urlsift: ";

/// The most a marker's code list (`urlsift: ignore[...]`) is read, in
/// bytes after its `[`: every code there is takes about 800.
pub const MARKER_LIST: usize = 1024;

/// How far into an input an `urlsift: ignore-file` marker counts: the
/// head every reader sees first (the driver reads it to sniff the input),
/// where a file's header comment is. A marker further on would come after
/// findings already written out.
pub const HEAD: usize = 8 * 1024;

/// The block and file marker words, after [`DIRECTIVE`].
const DISABLE: &[u8] = b"disable";
const ENABLE: &[u8] = b"enable";
const IGNORE_FILE: &[u8] = b"ignore-file";

/// The longest marker word, for reading a marker that starts near the end
/// of what was searched.
const LONGEST: usize = 11;

/// The bytes a block or file marker spans at most, from its first: its
/// word and its code list.
pub const SPAN: usize = DIRECTIVE.len() + LONGEST + 1 + MARKER_LIST;

/// Whether the marker at `at` leads `line`: only blanks and punctuation
/// (a comment's opener: `#`, `//`, `<!--`, `..`) stand before it. Such a
/// marker speaks of the line after it; one that follows text speaks of
/// its own line only, so that `url  # urlsift: ignore` cannot hide a
/// finding on the next line.
pub(crate) fn leads(line: &[u8], at: usize) -> bool {
    line[..at].iter().all(|b| b.is_ascii_punctuation() || b.is_ascii_whitespace())
}

/// The first line marker in `hay`: `urlsift: ignore` that is not the
/// start of `urlsift: ignore-file`.
pub(crate) fn line_marker(finder: &Finder<'_>, hay: &[u8]) -> Option<usize> {
    finder.find_iter(hay).find(|&p| hay.get(p + MARKER.len()) != Some(&b'-'))
}

/// What one marker silences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silence {
    /// Every finding.
    All,
    /// The findings of these codes (see `Code::bit`).
    Codes(u64),
}

impl Silence {
    /// What the line marker starting at `at` silences.
    pub(crate) fn parse(hay: &[u8], at: usize) -> Silence {
        Silence::after(hay, at + MARKER.len())
    }

    /// What a marker whose word ends at `rest` silences: the code list in
    /// `[...]` right after it runs to `]`, the end of the line or
    /// `MARKER_LIST` bytes (which `hay` holds, or it ends first).
    fn after(hay: &[u8], rest: usize) -> Silence {
        if hay.get(rest) != Some(&b'[') {
            return Silence::All;
        }
        let list = &hay[rest + 1..(rest + 1 + MARKER_LIST).min(hay.len())];
        let list = &list[..memchr2(b'\n', b'\r', list).unwrap_or(list.len())];
        let list = &list[..memchr::memchr(b']', list).unwrap_or(list.len())];
        let mut codes = 0;
        for name in list.split(|&b| b == b',') {
            let name = std::str::from_utf8(name.trim_ascii()).unwrap_or("");
            if let Some(c) = Code::from_name(name) {
                codes |= c.bit();
            }
        }
        Silence::Codes(codes)
    }

    /// Drops the findings it silences.
    pub(crate) fn apply(self, diags: &mut Vec<Diagnostic>) {
        diags.retain(|d| !self.covers(d.code));
    }

    pub(crate) fn covers(self, code: Code) -> bool {
        match self {
            Silence::All => true,
            Silence::Codes(codes) => codes & code.bit() != 0,
        }
    }
}

/// A block or file marker, read at a [`DIRECTIVE`]'s end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Directive {
    Disable(Silence),
    Enable,
    IgnoreFile(Silence),
}

impl Directive {
    /// The marker whose [`DIRECTIVE`] starts at `at`, if it is a block or
    /// file marker. The word must end there: `urlsift: disabled` is prose.
    fn read(hay: &[u8], at: usize) -> Option<Directive> {
        let rest = &hay[at + DIRECTIVE.len()..];
        let word = |w: &[u8]| {
            rest.starts_with(w)
                && !rest.get(w.len()).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'-')
        };
        let end = at + DIRECTIVE.len();
        if word(DISABLE) {
            Some(Directive::Disable(Silence::after(hay, end + DISABLE.len())))
        } else if word(ENABLE) {
            Some(Directive::Enable)
        } else if word(IGNORE_FILE) {
            Some(Directive::IgnoreFile(Silence::after(hay, end + IGNORE_FILE.len())))
        } else {
            None
        }
    }
}

/// What an `urlsift: ignore-file` marker in `head` (an input's first
/// bytes; only the first [`HEAD`] count) silences.
pub(crate) fn file_silence(finder: &Finder<'_>, head: &[u8]) -> Option<Silence> {
    let look = &head[..head.len().min(HEAD + SPAN)];
    finder.find_iter(look).take_while(|&p| p < HEAD).find_map(|p| match Directive::read(look, p) {
        Some(Directive::IgnoreFile(s)) => Some(s),
        _ => None,
    })
}

/// A block marker: where it starts (an offset in the input), and what is
/// disabled after it.
pub type BlockMark = (u64, Option<Silence>);

/// Appends the block markers that start in `hay[range]` (`hay` holds the
/// input from `base`, and the bytes a marker starting in `range` spans,
/// or ends first).
pub(crate) fn block_marks(
    finder: &Finder<'_>,
    hay: &[u8],
    range: std::ops::Range<usize>,
    base: u64,
    out: &mut Vec<BlockMark>,
) {
    let look = (range.end + SPAN).min(hay.len());
    for p in finder.find_iter(&hay[range.start..look]) {
        let at = range.start + p;
        if at >= range.end {
            break;
        }
        match Directive::read(&hay[..look], at) {
            Some(Directive::Disable(s)) => out.push((base + at as u64, Some(s))),
            Some(Directive::Enable) => out.push((base + at as u64, None)),
            _ => {}
        }
    }
}

/// [`block_marks`] where the markers may start only at `noted` (offsets
/// in the input, ascending; see `Scanner::scan_noting`), instead of a
/// search of `hay[range]`.
fn block_marks_noted(
    hay: &[u8],
    range: std::ops::Range<usize>,
    base: u64,
    noted: &[u64],
    out: &mut Vec<BlockMark>,
) {
    let look = (range.end + SPAN).min(hay.len());
    for &n in noted {
        let Some(at) = n.checked_sub(base).map(|a| a as usize) else { continue };
        if at < range.start {
            continue;
        }
        if at >= range.end {
            break;
        }
        if !hay[at..look].starts_with(DIRECTIVE) {
            continue;
        }
        match Directive::read(&hay[..look], at) {
            Some(Directive::Disable(s)) => out.push((base + at as u64, Some(s))),
            Some(Directive::Enable) => out.push((base + at as u64, None)),
            _ => {}
        }
    }
}

/// The block markers of one input, read forward: what is disabled at the
/// place read up to, and what the file marker silences.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blocks {
    /// Markers that start before this offset have been read.
    searched: u64,
    /// What the last `disable` read silences, until an `enable`.
    disabled: Option<Silence>,
    /// What an `ignore-file` marker silences.
    file: Option<Silence>,
    /// The input's head is still to be read for a file marker: the
    /// reader starts at the input's start.
    head: bool,
}

impl Blocks {
    /// Blocks read from `base` on; `file` is what the input's head
    /// silences when the reader does not start at the input's start (a
    /// part of a big file: the driver read the head), `disabled` what a
    /// block open at `base` does.
    pub(crate) fn new(base: u64, file: Option<Silence>, disabled: Option<Silence>) -> Blocks {
        Blocks { searched: base, disabled, file, head: base == 0 }
    }

    /// Reads the markers that start before `to`; `hay` holds the input
    /// from `base`, and the bytes a marker starting before `to` spans, or
    /// ends first.
    ///
    /// With `noted`, markers may only start there (see
    /// [`block_marks_noted`]); the offsets read past are dropped from it.
    pub(crate) fn advance(
        &mut self,
        finder: &Finder<'_>,
        hay: &[u8],
        base: u64,
        to: u64,
        noted: Option<&mut Vec<u64>>,
    ) {
        if self.head {
            self.head = false;
            if base == 0 {
                self.file = file_silence(finder, hay);
            }
        }
        let lo = (self.searched.max(base) - base) as usize;
        let hi = (to.saturating_sub(base) as usize).min(hay.len());
        if lo >= hi {
            return;
        }
        let mut marks = Vec::new();
        match noted {
            Some(noted) => {
                block_marks_noted(hay, lo..hi, base, noted, &mut marks);
                let read = noted.partition_point(|&n| n < base + hi as u64);
                noted.drain(..read);
            }
            None => block_marks(finder, hay, lo..hi, base, &mut marks),
        }
        if let Some(&(_, state)) = marks.last() {
            self.disabled = state;
        }
        self.searched = base + hi as u64;
    }

    /// What is silenced where reading stands: the file marker's and the
    /// open block's.
    pub(crate) fn silences(&self) -> [Option<Silence>; 2] {
        [self.file, self.disabled]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks_at(text: &[u8], to: usize) -> [Option<Silence>; 2] {
        let finder = Finder::new(DIRECTIVE);
        let mut b = Blocks::new(0, None, None);
        b.advance(&finder, text, 0, to as u64, None);
        b.silences()
    }

    #[test]
    fn a_block_covers_what_follows_it_until_enable() {
        let t = b"a\n# urlsift: disable\nb\n# urlsift: enable\nc\n";
        let at = |s: &[u8]| memchr::memmem::find(t, s).unwrap();
        assert_eq!(blocks_at(t, at(b"a")), [None, None]);
        assert_eq!(blocks_at(t, at(b"b\n")), [None, Some(Silence::All)]);
        assert_eq!(blocks_at(t, at(b"c\n")), [None, None]);
    }

    #[test]
    fn a_block_names_its_codes_and_the_word_must_end() {
        let t = b"urlsift: disable[port-range, nope]\nx urlsift: disabled y urlsift: enabler\nz";
        let codes = Code::from_name("port-range").unwrap().bit();
        assert_eq!(blocks_at(t, t.len() - 1)[1], Some(Silence::Codes(codes)));
    }

    #[test]
    fn the_file_marker_counts_in_the_head_only() {
        let mut t = b"<!-- urlsift: ignore-file[port-range] -->\n".to_vec();
        let finder = Finder::new(DIRECTIVE);
        let codes = Code::from_name("port-range").unwrap().bit();
        assert_eq!(file_silence(&finder, &t), Some(Silence::Codes(codes)));
        let mut late = vec![b'x'; HEAD];
        late.extend_from_slice(&t);
        assert_eq!(file_silence(&finder, &late), None);
        t.truncate(0);
        t.extend_from_slice(b"urlsift: ignore-files\n");
        assert_eq!(file_silence(&finder, &t), None);
    }

    #[test]
    fn the_line_marker_is_not_the_file_marker() {
        let finder = Finder::new(MARKER);
        assert_eq!(line_marker(&finder, b"# urlsift: ignore-file"), None);
        assert_eq!(line_marker(&finder, b"urlsift: ignore-file urlsift: ignore"), Some(21));
    }
}
