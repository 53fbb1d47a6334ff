//! Quoted-printable (RFC 2045 section 6.7), decoded with a position map.
//!
//! Quoted-printable is where mail breaks URLs: an encoder must keep lines
//! under 76 characters, so a long URL is cut by a soft line break (`=` at
//! the end of a line) wherever the limit falls, and every `=` in its query
//! becomes `=3D`. The decoder removes soft breaks and turns each `=XX`
//! into its byte; the map sends that byte back to the `=` (the escape's
//! first byte) and a soft break maps to nothing.
//!
//! Hand-written rather than taken from a mail crate because those return
//! only the decoded bytes, and we need to know where each came from.
//!
//! Leniency, as RFC 2045 asks of decoders and as real mail needs:
//!
//! - lower-case hex digits are accepted;
//! - an `=` that starts neither an escape nor a soft break is kept as it is;
//! - transport padding (spaces and tabs) after a soft break's `=` and before
//!   a hard line break is removed;
//! - a soft break *inside* an escape (`=3=` newline `D`, or `==` newline
//!   `3D`) is skipped too: some encoders cut lines at a fixed width without
//!   looking, and the byte is still recoverable.

use crate::posmap::{MapBuilder, PosMap};

/// Decodes a quoted-printable body. Hard line breaks are kept as they were
/// (LF or CRLF).
pub fn decode(input: &[u8]) -> (Vec<u8>, PosMap) {
    let mut out = Vec::with_capacity(input.len());
    let mut map = MapBuilder::new();
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'=' => {
                if let Some(next) = soft_break(input, i) {
                    i = next;
                } else if let Some((byte, next)) = escape(input, i) {
                    out.push(byte);
                    map.point(i, 1);
                    i = next;
                } else {
                    out.push(b'=');
                    map.copy(i, 1);
                    i += 1;
                }
            }
            b' ' | b'\t' => {
                let end = i + input[i..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
                // Blanks at the end of a line (or of the body) were added in
                // transport; blanks before anything else are text.
                if !matches!(input.get(end), None | Some(b'\r' | b'\n')) {
                    out.extend_from_slice(&input[i..end]);
                    map.copy(i, end - i);
                }
                i = end;
            }
            _ => {
                let end =
                    memchr::memchr3(b'=', b' ', b'\t', &input[i..]).map_or(input.len(), |n| i + n);
                out.extend_from_slice(&input[i..end]);
                map.copy(i, end - i);
                i = end;
            }
        }
    }
    debug_assert_eq!(out.len(), map.produced());
    (out, map.finish())
}

/// If a soft line break starts at `at` (`=`, optional blanks, then a line
/// break or the end of input), the offset after it.
fn soft_break(input: &[u8], at: usize) -> Option<usize> {
    let mut j = at + 1;
    while matches!(input.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    match input.get(j) {
        None => Some(j),
        Some(b'\r') if input.get(j + 1) == Some(&b'\n') => Some(j + 2),
        Some(b'\r' | b'\n') => Some(j + 1),
        _ => None,
    }
}

/// Skips any soft line breaks starting at `j`.
fn skip_soft_breaks(input: &[u8], mut j: usize) -> usize {
    while input.get(j) == Some(&b'=') {
        match soft_break(input, j) {
            Some(next) if next < input.len() => j = next,
            _ => break,
        }
    }
    j
}

/// If an escape `=XX` starts at `at` (soft breaks allowed between its
/// bytes), its byte and the offset after it.
fn escape(input: &[u8], at: usize) -> Option<(u8, usize)> {
    let j = skip_soft_breaks(input, at + 1);
    let hi = hex(*input.get(j)?)?;
    let k = skip_soft_breaks(input, j + 1);
    let lo = hex(*input.get(k)?)?;
    Some((hi << 4 | lo, k + 1))
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> (String, Vec<usize>) {
        let (out, map) = decode(s.as_bytes());
        let srcs = (0..out.len()).map(|o| map.map(o)).collect();
        (String::from_utf8_lossy(&out).into_owned(), srcs)
    }

    #[test]
    fn soft_breaks_vanish_and_escapes_point_at_their_equals_sign() {
        let (text, srcs) = dec("a=\nb=3Dc");
        assert_eq!(text, "ab=c");
        assert_eq!(srcs, [0, 3, 4, 7]);
    }

    #[test]
    fn crlf_soft_breaks_and_transport_padding() {
        assert_eq!(dec("ab= \t\r\ncd  \r\nef").0, "abcd\r\nef");
        assert_eq!(dec("a b=\n").0, "a b");
    }

    #[test]
    fn breaks_inside_an_escape_are_skipped() {
        let (text, srcs) = dec("x=3=\nDy");
        assert_eq!(text, "x=y");
        assert_eq!(srcs, [0, 1, 6]);
        let (text, srcs) = dec("x==\r\n3Dy");
        assert_eq!(text, "x=y");
        assert_eq!(srcs, [0, 1, 7]);
    }

    #[test]
    fn invalid_escapes_are_kept() {
        assert_eq!(dec("a=zz b=").0, "a=zz b");
        assert_eq!(decode(b"=e9t=E9").0, b"\xE9t\xE9");
    }
}
