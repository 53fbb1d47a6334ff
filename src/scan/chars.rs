//! Byte classes the scanner needs, as 256-entry tables so that each test is
//! one load.

const SCHEME: u8 = 1;
const SPACE: u8 = 2;
const BARE_STOP: u8 = 4;
const QUOTE: u8 = 8;
const TRAIL: u8 = 16;

static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut v = 0;
        if c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.' {
            v |= SCHEME;
        }
        if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            v |= SPACE;
        }
        // Bare URLs end at whitespace, controls, quotes and the characters
        // that delimit URLs in text (RFC 1738 appendix; Markdown and HTML).
        if c < 0x20 || c == 0x7f || matches!(c, b' ' | b'"' | b'\'' | b'<' | b'>' | b'`') {
            v |= BARE_STOP;
        }
        if c == b'>' || c == b'|' {
            v |= QUOTE;
        }
        // Sentence punctuation: legal inside a URL, never its last byte.
        if matches!(c, b'.' | b',' | b';' | b':' | b'!' | b'?') {
            v |= TRAIL;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// A byte of `scheme = 1*[ lowalpha | digit | "+" | "-" | "." ]`, either case.
#[inline]
pub(crate) fn is_scheme(b: u8) -> bool {
    TABLE[b as usize] & SCHEME != 0
}

/// Whitespace that a wrapper ignores.
#[inline]
pub(crate) fn is_space(b: u8) -> bool {
    TABLE[b as usize] & SPACE != 0
}

/// A byte that ends a bare URL.
#[inline]
pub(crate) fn is_bare_stop(b: u8) -> bool {
    TABLE[b as usize] & BARE_STOP != 0
}

/// A mail or news quoting character (`>` or `|`).
#[inline]
pub(crate) fn is_quote(b: u8) -> bool {
    TABLE[b as usize] & QUOTE != 0
}

/// Sentence punctuation trimmed from the end of a bare URL.
#[inline]
pub(crate) fn is_trailing_punct(b: u8) -> bool {
    TABLE[b as usize] & TRAIL != 0
}
