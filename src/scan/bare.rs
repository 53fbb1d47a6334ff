//! Where a URL written in running text starts and ends.
//!
//! The end rules are the ones users ask for: sentence punctuation and
//! closing quotes after a URL are not part of it, a closing `)` or `]` is
//! kept only when it balances an opener inside the URL (Wikipedia links
//! keep theirs, Markdown `[text](url)` and prose parentheses lose theirs),
//! and quotes, angle brackets, backticks and whitespace end it.

use super::chars;

/// For a scheme at `start..colon`, the end of the bare URL it begins, or
/// `None` when what follows does not look like that scheme's URL (so that
/// "Note:", "news: we shipped", "10:30" and `C:\path` are not URLs).
pub(crate) fn find(hay: &[u8], start: usize, colon: usize) -> Option<usize> {
    let scheme = &hay[start..colon];
    let body = colon + 1;
    let is = |s: &str| scheme.eq_ignore_ascii_case(s.as_bytes());
    // Decide on the bytes at hand before looking for the end: most colons
    // in text ("Subject:", "Note:") fail here, at no cost.
    if hay[body..].starts_with(b"//") {
        // One-letter "schemes" are drive letters (`C://`), not URLs.
        if scheme.len() < 2 {
            return None;
        }
        let end = end(hay, body)?;
        return (end - body > 2).then_some(end);
    }
    let opaque = match scheme.len() {
        3 => is("mid") || is("cid"),
        4 => is("news") || is("file"),
        6 => is("mailto"),
        _ => false,
    };
    if !opaque {
        return None;
    }
    let end = end(hay, body)?;
    let rest = &hay[body..end];
    let ok = if is("news") {
        // `*`, an article (`id@host`) or a dotted group name: a lone word
        // after "news:" is prose.
        rest == b"*"
            || rest.contains(&b'@')
            || (rest[0].is_ascii_alphabetic() && rest.contains(&b'.'))
    } else if is("file") {
        rest[0] == b'/'
    } else {
        rest.contains(&b'@')
    };
    ok.then_some(end)
}

/// The end of a bare URL body starting at `body`, or `None` if it is empty.
///
/// The walk stops at the first closing bracket that has no opener in the
/// URL, not at the end of the whitespace-free token: `x)http://y)` repeated
/// a million times then costs one pass, not one pass per URL.
pub(crate) fn end(hay: &[u8], body: usize) -> Option<usize> {
    let end = balanced_end(hay, body, hay.len());
    let end = trim_punct(hay, body, end);
    (end > body).then_some(end)
}

/// Cuts an unbalanced closing bracket and trailing punctuation.
pub(crate) fn trim(hay: &[u8], body: usize, end: usize) -> usize {
    let end = balanced_end(hay, body, end);
    trim_punct(hay, body, end)
}

/// Walks from `body` to the first byte that ends a bare URL (a stop byte,
/// or `)`/`]` with no opener since `body`), at most to `limit`.
fn balanced_end(hay: &[u8], body: usize, limit: usize) -> usize {
    let (mut paren, mut square) = (0usize, 0usize);
    let mut end = body;
    while end < limit {
        let b = hay[end];
        if chars::is_bare_stop(b) {
            break;
        }
        let depth = match b {
            b'(' => {
                paren += 1;
                end += 1;
                continue;
            }
            b'[' => {
                square += 1;
                end += 1;
                continue;
            }
            b')' => &mut paren,
            b']' => &mut square,
            _ => {
                end += 1;
                continue;
            }
        };
        if *depth == 0 {
            break;
        }
        *depth -= 1;
        end += 1;
    }
    end
}

/// Drops trailing sentence punctuation and closing quotes.
fn trim_punct(hay: &[u8], body: usize, mut end: usize) -> usize {
    loop {
        let s = &hay[body..end];
        if s.last().is_some_and(|&b| chars::is_trailing_punct(b)) {
            end -= 1;
        } else if let Some(n) = closing_quote_len(s) {
            end -= n;
        } else {
            return end;
        }
    }
}

/// Typographic closing quotes in UTF-8: ’ ” » (the ASCII ones already end
/// the URL).
fn closing_quote_len(s: &[u8]) -> Option<usize> {
    if s.ends_with("\u{2019}".as_bytes()) || s.ends_with("\u{201d}".as_bytes()) {
        Some(3)
    } else if s.ends_with("\u{bb}".as_bytes()) {
        Some(2)
    } else {
        None
    }
}
