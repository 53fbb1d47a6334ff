//! Byte classes the scanner needs, as 256-entry tables so that each test is
//! one load.

const SCHEME: u8 = 1;
const SPACE: u8 = 2;
const BARE_STOP: u8 = 4;
const QUOTE: u8 = 8;
const TRAIL: u8 = 16;
const SPACE_LEAD: u8 = 32;
const BRACKET: u8 = 64;

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
        // Bare URLs end at whitespace, controls, double quotes and the
        // characters that delimit URLs in text (RFC 1738 appendix; Markdown
        // and HTML). An apostrophe ends one only after an opening one (see
        // `bare::Open`): `/it's-here` is a path.
        if c < 0x20 || c == 0x7f || matches!(c, b' ' | b'"' | b'<' | b'>' | b'`') {
            v |= BARE_STOP;
        }
        if c == b'>' || c == b'|' {
            v |= QUOTE;
        }
        // Sentence punctuation and a closing apostrophe: legal inside a
        // URL, never its last byte. So is a backslash: one that ends a
        // URL is a shell line continuation or an escape the text left
        // undone (reST's `\ `), never the URL's (it is unsafe in every
        // grammar).
        if matches!(c, b'.' | b',' | b';' | b':' | b'!' | b'?' | b'\'' | b'\\') {
            v |= TRAIL;
        }
        // First bytes of the UTF-8 spaces and punctuation in `unicode_stop`,
        // the backslash of an escape the text left undone (`is_escape`),
        // and the comma of a list of URLs (`is_list_comma`).
        if matches!(c, 0xc2 | 0xe1 | 0xe2 | 0xe3 | 0xef | b'\\' | b',') {
            v |= SPACE_LEAD;
        }
        // What a bare URL's end balances, and the apostrophe that may
        // close a quotation.
        if matches!(c, b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'\'') {
            v |= BRACKET;
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

/// A byte that ends a bare URL, or one that may start a Unicode space or
/// stop (see [`unicode_stop`]) or an escape (see [`is_escape`]): one load
/// decides for every other byte.
#[inline]
pub(crate) fn may_stop(b: u8) -> bool {
    TABLE[b as usize] & (BARE_STOP | SPACE_LEAD) != 0
}

/// A byte a bare URL's end need not look at: not [`may_stop`], no bracket,
/// no apostrophe. Most of a URL is such bytes, and one load skips each.
#[inline]
pub(crate) fn is_bare_plain(b: u8) -> bool {
    TABLE[b as usize] & (BARE_STOP | SPACE_LEAD | BRACKET) == 0
}

/// What `bytes` opens with, as far as bare URLs care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum USpace {
    /// A Unicode space of this many bytes.
    Yes(usize),
    /// Anything else.
    No,
    /// The start of one, cut off by the end of `bytes`.
    Cut,
}

/// Whether `bytes` opens with a Unicode space in UTF-8: no-break space
/// (U+00A0, which decoded mail and word processors put after a URL all
/// the time), NEL (U+0085), ogham space (U+1680), the typographic spaces
/// U+2000 to U+200A, the zero-width space U+200B, the line and paragraph
/// separators U+2028 and U+2029, U+202F, U+205F, the ideographic space
/// U+3000 and the byte-order mark U+FEFF. None of them can be in a URL
/// (RFC 1738 2.2: raw bytes above 7F are always encoded), and text puts
/// them between words.
pub(crate) fn unicode_space(bytes: &[u8]) -> USpace {
    let want: &[u8] = match bytes.first() {
        Some(0xc2) => match bytes.get(1) {
            Some(0xa0 | 0x85) => return USpace::Yes(2),
            Some(_) => return USpace::No,
            None => return USpace::Cut,
        },
        Some(0xe1) => &[0xe1, 0x9a, 0x80],
        Some(0xe3) => &[0xe3, 0x80, 0x80],
        Some(0xef) => &[0xef, 0xbb, 0xbf],
        Some(0xe2) => {
            let ok = match (bytes.get(1), bytes.get(2)) {
                (Some(0x80), Some(&c)) => matches!(c, 0x80..=0x8b | 0xa8 | 0xa9 | 0xaf),
                (Some(0x81), Some(&c)) => c == 0x9f,
                (Some(0x80 | 0x81), None) | (None, _) => return USpace::Cut,
                _ => false,
            };
            return if ok { USpace::Yes(3) } else { USpace::No };
        }
        _ => return USpace::No,
    };
    let n = bytes.len().min(3);
    if bytes[..n] != want[..n] {
        USpace::No
    } else if n < 3 {
        USpace::Cut
    } else {
        USpace::Yes(3)
    }
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

/// Whether `bytes` opens with a Unicode character that ends a bare URL: a
/// space of [`unicode_space`], or the ideographic and full-width
/// punctuation of CJK text: `、` `。` `〈〉《》「」『』【】〔〕〖〗〘〙〚〛`
/// `〝〞〟` (U+3001-U+3002, U+3008-U+3011, U+3014-U+301B, U+301D-U+301F),
/// and the full-width and half-width twins of the ASCII stops, brackets
/// and sentence punctuation: `！＂＇（），．：；＜＞？［］｛｝｟｠｡｢｣､`.
///
/// All of them are stops, none mere trailing punctuation: CJK text puts
/// the next word right after them with no space (`http://x/a。次`), so
/// trimming them only at the end would swallow that word; and no URL has
/// them raw (RFC 1738 2.2 encodes every byte above 7F; an IRI path with
/// ideographic punctuation in it is not written in running text).
pub(crate) fn unicode_stop(bytes: &[u8]) -> USpace {
    let third = |lo: u8| match (bytes.get(1), bytes.get(2)) {
        (Some(&b1), Some(&b2)) if b1 == lo => Some(b2),
        (Some(&b1), None) if b1 == lo => None,
        (None, _) => None,
        _ => Some(0),
    };
    match bytes.first() {
        Some(0xe3) => {
            // U+3000-U+303F: E3 80 80-BF.
            match third(0x80) {
                None => USpace::Cut,
                Some(0x80) => USpace::Yes(3),
                Some(0x81 | 0x82 | 0x88..=0x91 | 0x94..=0x9b | 0x9d..=0x9f) => USpace::Yes(3),
                Some(_) => USpace::No,
            }
        }
        Some(0xef) => match bytes.get(1) {
            None => USpace::Cut,
            // U+FF00-U+FF3F: EF BC 80-BF.
            Some(0xbc) => match bytes.get(2) {
                None => USpace::Cut,
                Some(
                    0x81 | 0x82 | 0x87 | 0x88 | 0x89 | 0x8c | 0x8e | 0x9a | 0x9b | 0x9c | 0x9e
                    | 0x9f | 0xbb | 0xbd,
                ) => USpace::Yes(3),
                Some(_) => USpace::No,
            },
            // U+FF40-U+FF7F: EF BD 80-BF.
            Some(0xbd) => match bytes.get(2) {
                None => USpace::Cut,
                Some(0x9b | 0x9d | 0x9f..=0xa4) => USpace::Yes(3),
                Some(_) => USpace::No,
            },
            Some(_) => unicode_space(bytes),
        },
        _ => unicode_space(bytes),
    }
}

/// Whether `s`, which starts with `\`, starts with a C-style escape a
/// string or a doctest left undone: `\xHH`, `\uHHHH`, `\u{`,
/// `\UHHHHHHHH`, `\n`, `\t`, `\r`. `None` when `s` ends before that is
/// decided and more input may come.
///
/// Such an escape ends a bare URL: `\` is unsafe in every URL grammar, so
/// a URL never holds one as written, and text that shows
/// `'https://example.com\x07link'` or `"https://x.org/a\n"` means the URL
/// and then a control character.
pub(crate) fn is_escape(s: &[u8], eof: bool) -> Option<bool> {
    let hex = |n: usize| {
        let r = &s[2.min(s.len())..];
        let k = r.iter().take(n).take_while(|b| b.is_ascii_hexdigit()).count();
        if k == n {
            Some(true)
        } else if k == r.len() && !eof {
            None
        } else {
            Some(false)
        }
    };
    match s.get(1) {
        None if eof => Some(false),
        None => None,
        Some(b'x') => hex(2),
        Some(b'u') if s.get(2) == Some(&b'{') => Some(true),
        Some(b'u') => hex(4),
        Some(b'U') => hex(8),
        Some(b'n' | b't' | b'r') => Some(true),
        Some(_) => Some(false),
    }
}

/// Whether `s`, which starts with `,`, goes on with another URL's
/// `scheme://` (`ssl://a.example:61617,ssl://b.example:61617`): a list
/// written without spaces, whose comma ends the first URL. `None` when `s`
/// ends before that is decided and more input may come.
pub(crate) fn is_list_comma(s: &[u8], eof: bool) -> Option<bool> {
    const LONGEST: usize = 32;
    let rest = &s[1..];
    let n = rest.iter().take(LONGEST).take_while(|&&b| is_scheme(b)).count();
    if n == rest.len() && !eof {
        return None;
    }
    if n == 0 || !rest[0].is_ascii_alphabetic() {
        return Some(false);
    }
    let tail = &rest[n..];
    if tail.len() < 3 && b"://".starts_with(tail) && !eof {
        return None;
    }
    Some(tail.starts_with(b"://"))
}
