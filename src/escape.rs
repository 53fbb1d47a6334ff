//! One escaping rule for everything a person reads: text output, excerpts,
//! annotations, messages on standard error. URLs, source lines and file
//! names come from files nobody vetted; printed raw, an ESC sequence
//! retitles the reader's terminal or forges a hyperlink in a CI log, a
//! bidirectional override reorders what is shown, and a line break splits
//! one record in two. So control characters, the Unicode format characters
//! that reorder or hide text, and bytes that are not UTF-8 are shown
//! escaped: `\n`, `\r`, `\t`, `\x1b`, `\xff`, `\u{202e}`. JSON and SARIF
//! keep their own exact encodings and do not use this.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal raw: C0 and C1 controls, DEL,
/// and the invisible characters that reorder or hide text (bidirectional
/// marks, embeddings, overrides and isolates, zero-width joiners and
/// spaces, the byte order mark, line and paragraph separators).
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        )
}

/// `bytes` for a terminal: valid UTF-8 is kept, except characters that
/// [`is_unsafe`], which are escaped; bytes that are not UTF-8 are written
/// `\xHH`. Borrows when nothing needs escaping (the common case).
pub fn for_terminal(bytes: &[u8]) -> Cow<'_, str> {
    // Printable ASCII, nearly every URL: one pass the compiler vectorises,
    // instead of decoding characters (8% of `extract` on a link list).
    // (`fold`, not `all`: an early exit would stop the vectorising.)
    if bytes.iter().fold(true, |ok, &b| ok & (0x20..0x7f).contains(&b)) {
        return Cow::Borrowed(std::str::from_utf8(bytes).expect("ASCII is UTF-8"));
    }
    if let Ok(s) = std::str::from_utf8(bytes)
        && !s.chars().any(is_unsafe)
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push(&mut out, c);
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    Cow::Owned(out)
}

/// [`for_terminal`] for text that is already a `str`.
pub fn str_for_terminal(s: &str) -> Cow<'_, str> {
    for_terminal(s.as_bytes())
}

fn push(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 && is_unsafe(c) => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if is_unsafe(c) => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_bidi_and_bad_bytes_are_escaped() {
        assert_eq!(for_terminal(b"http://a.example/x"), "http://a.example/x");
        assert!(matches!(for_terminal("caf\u{e9}".as_bytes()), Cow::Borrowed(_)));
        assert_eq!(for_terminal(b"a\x1b]0;t\x07b"), "a\\x1b]0;t\\x07b");
        assert_eq!(for_terminal(b"a\nb\r\tc\x7f"), "a\\nb\\r\\tc\\x7f");
        assert_eq!(for_terminal("x\u{202e}y\u{85}z".as_bytes()), "x\\u{202e}y\\u{85}z");
        assert_eq!(for_terminal(b"caf\xe9 \xff"), "caf\\xe9 \\xff");
    }

    #[test]
    fn no_unsafe_character_survives_any_input() {
        // Every C0 and C1 control, DEL, every bidi control, every single
        // byte, and truncated sequences.
        let mut input = Vec::new();
        for b in 0..=255u8 {
            input.push(b);
            input.extend_from_slice(b"x");
        }
        for c in ('\u{80}'..='\u{9f}').chain('\u{2000}'..='\u{206f}').chain(['\u{feff}', '\u{61c}'])
        {
            input.extend_from_slice(c.to_string().as_bytes());
        }
        input.extend_from_slice(&"\u{202e}".as_bytes()[..2]);
        let out = for_terminal(&input);
        assert!(!out.chars().any(is_unsafe), "{out:?}");
        assert!(!out.bytes().any(|b| b < 0x20 || b == 0x7f));
    }
}
