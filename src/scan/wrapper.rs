//! Bracketed URLs (`<URL:...>`, `URL=<...>`, `URL:<...>`, `<scheme:...>`)
//! and their rejoining across lines, as the appendix of RFC 1738 asks:
//! all whitespace inside the brackets is ignored, a break right after `-`
//! is recorded as ambiguous, and in quoted mail the quote prefix of the
//! opening line is dropped from each continuation line.
//!
//! A wrapper that meets the end of input, a blank line or a `<` before its
//! `>` is unclosed. Then only its first token is reported (what is surely
//! URL) and scanning resumes right after that token, so nothing later is
//! lost and no byte is scanned by two wrappers: the work stays linear.

use super::{Found, Kind, Lead, MAX_URL, Piece, Step, bare, chars};

/// Scans a wrapper whose opener starts at `opener` and whose URL text
/// starts at `body` (after `<URL:` and any whitespace, or after `<`), on
/// a line that starts at `line_start` (or before `hay`, as `lead` says).
///
/// A wrapper whose `>` is not within [`MAX_URL`] bytes of `body` is
/// unclosed: a stream never holds more of it than that.
pub(crate) fn scan(
    hay: &[u8],
    line_start: usize,
    lead: Lead,
    opener: usize,
    body: usize,
    kind: Kind,
    eof: bool,
) -> Step {
    let mut quotes = lead.quotes;
    if lead.open {
        quotes += hay[line_start..opener]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t' || chars::is_quote(b))
            .filter(|&&b| chars::is_quote(b))
            .count();
    }
    let cap = body + MAX_URL;
    let mut text = Vec::new();
    let mut pieces = super::Pieces::new();
    let mut hyphen_breaks = Vec::new();
    let mut i = body;
    let mut overlong = false;
    let stop = loop {
        if i >= cap {
            overlong = true;
            break i;
        }
        let Some(&b) = hay.get(i) else {
            if !eof {
                return Step::NeedMore(opener);
            }
            break i;
        };
        match b {
            b'>' => {
                if text.is_empty() {
                    return Step::Skip(i + 1);
                }
                let first = pieces[0].src;
                if spelled_out_mailto(&text, &hay[first..i]) {
                    // Taken as written, spaces and all: removing them
                    // would make up an address nobody wrote.
                    let end = first + hay[first..i].trim_ascii_end().len();
                    let mut found = Found::single(kind, hay, first, end);
                    found.next = i + 1;
                    return Step::Found(found, i + 1);
                }
                let found = Found {
                    kind,
                    text,
                    pieces,
                    hyphen_breaks,
                    closed: true,
                    overlong: false,
                    truncated: false,
                    next: i + 1,
                    trigger: 0,
                    joins: Vec::new(),
                    unjoined: 0,
                    join_sure: false,
                    glued: false,
                };
                return Step::Found(found, i + 1);
            }
            b'<' => break i,
            b'\n' | b'\r' => {
                if text.last() == Some(&b'-') && hyphen_breaks.last() != Some(&(text.len() - 1)) {
                    hyphen_breaks.push(text.len() - 1);
                }
                let mut j = i + 1;
                if b == b'\r' && hay.get(j) == Some(&b'\n') {
                    j += 1;
                }
                // A blank line ends the paragraph, and with it any wrapper
                // still open. In quoted text a line of just the quote prefix
                // is blank; elsewhere a lone `>` is the closer.
                let mut k = j;
                let mut q = quotes;
                while k < cap
                    && let Some(&c) = hay.get(k)
                {
                    match c {
                        b' ' | b'\t' => {}
                        _ if q > 0 && chars::is_quote(c) => q -= 1,
                        _ => break,
                    }
                    k += 1;
                }
                if k >= cap {
                    overlong = true;
                    break i;
                }
                match hay.get(k) {
                    None if !eof => return Step::NeedMore(opener),
                    None | Some(b'\n' | b'\r') => break i,
                    Some(_) => {}
                }
                i = skip_prefix(hay, j, quotes);
            }
            _ if chars::is_space(b) => i += 1,
            // A URL starts with its scheme (or, when mangled, a `/`); a
            // wrapper opening on punctuation is prose about wrappers, such
            // as "`<URL:...>`" in documentation.
            _ if text.is_empty() && !(b.is_ascii_alphanumeric() || b == b'/') => {
                return Step::Reject;
            }
            _ => {
                let contiguous = pieces.last().is_some_and(|p| p.src + (text.len() - p.text) == i);
                if !contiguous {
                    pieces.push(Piece { text: text.len(), src: i });
                }
                // The run of bytes this arm takes, copied at once: byte by
                // byte through the match, a wrapper cost 20 instructions a
                // byte. (Capped where the loop's own checks are due.)
                let to = cap.min(hay.len());
                let run = hay[i + 1..to]
                    .iter()
                    .position(|&c| c == b'>' || c == b'<' || chars::is_space(c))
                    .map_or(to, |k| i + 1 + k);
                text.extend_from_slice(&hay[i..run]);
                i = run;
            }
        }
    };
    unclosed(hay, &pieces, stop, kind, overlong, cap)
}

/// Whether a wrapper holds a mailto address spelled out against
/// harvesters, `<mailto:xcb at lists.example.org>`, on one line: the
/// appendix's rule (whitespace is the typesetter's) would join it into
/// `xcbatlists.example.org`.
fn spelled_out_mailto(text: &[u8], source: &[u8]) -> bool {
    text.len() > 7
        && text[..7].eq_ignore_ascii_case(b"mailto:")
        && !source.contains(&b'\n')
        && source
            .split(|&b| b == b' ' || b == b'\t')
            .skip(1)
            .any(|w| w.eq_ignore_ascii_case(b"at") || w.eq_ignore_ascii_case(b"(at)"))
}

/// Skips the indentation and up to `quotes` quote characters at the start
/// of a continuation line.
fn skip_prefix(hay: &[u8], mut i: usize, mut quotes: usize) -> usize {
    while i < hay.len() {
        match hay[i] {
            b' ' | b'\t' => {}
            b if quotes > 0 && chars::is_quote(b) => quotes -= 1,
            _ => break,
        }
        i += 1;
    }
    i
}

/// Reports the first token of an unclosed wrapper (to the first whitespace
/// or `<`, sentence punctuation trimmed) and resumes after it. A token
/// that reaches `cap` is cut there.
fn unclosed(
    hay: &[u8],
    text: &[Piece],
    stop: usize,
    kind: Kind,
    overlong: bool,
    cap: usize,
) -> Step {
    let Some(first) = text.first() else {
        return Step::Skip(stop);
    };
    let body = first.src;
    let mut end = body;
    while end < stop && !chars::is_space(hay[end]) {
        end += 1;
    }
    let (end, truncated) = bare::trim(hay, body, end, cap);
    if end == body {
        return Step::Skip(end + 1);
    }
    let mut found = Found::single(kind, hay, body, end);
    found.closed = false;
    found.overlong = overlong;
    found.truncated = truncated;
    Step::Found(found, end)
}
