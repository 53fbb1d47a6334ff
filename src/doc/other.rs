//! The readers of the smaller formats. (To be written: for now each file is
//! read as prose.)

use super::{Doc, DocBuilder, Format};

/// Reads `src` as `format`.
pub(super) fn read(format: Format, src: &[u8]) -> Doc {
    let _ = format;
    let mut b = DocBuilder::new(src);
    b.copy(0..src.len());
    b.finish()
}

/// Whether `head` is the start of a man page rendered to text: its first
/// non-blank line is a title line such as `LS(1)   User Commands   LS(1)`.
pub(super) fn is_rendered_man(head: &[u8]) -> bool {
    let Some(line) = head.split(|&b| b == b'\n').find(|l| !l.trim_ascii().is_empty()) else {
        return false;
    };
    let line = line.trim_ascii();
    let title = |w: &[u8]| {
        w.iter().position(|&b| b == b'(').is_some_and(|p| {
            p > 0 && w.ends_with(b")") && w.get(p + 1).is_some_and(|b| b.is_ascii_digit())
        })
    };
    let words: Vec<&[u8]> =
        line.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).collect();
    words.len() >= 2
        && title(words[0])
        && title(words[words.len() - 1])
        && words[0] == words[words.len() - 1]
}
