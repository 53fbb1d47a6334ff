//! Where a URL written in running text starts and ends.
//!
//! The end rules are the ones users ask for: sentence punctuation and
//! closing quotes after a URL are not part of it, a closing `)` or `]` is
//! kept only when it balances an opener inside the URL (Wikipedia links
//! keep theirs, Markdown `[text](url)` and prose parentheses lose theirs),
//! and quotes, angle brackets, backticks, whitespace and Unicode spaces
//! (a no-break space after a URL is common in decoded mail) end it, and so
//! does the ideographic and full-width punctuation of CJK text. What
//! stood before the scheme counts too (see [`Open`]): an apostrophe
//! opening a quotation is closed by the next one, and Markdown emphasis
//! (`*`, `_`, `**`) opened there is not part of the URL at its end.
//!
//! A URL is at most [`MAX_URL`] bytes: one longer is cut there (see
//! [`Bare::Url`]), so that a window of a stream never has to hold more.

use super::{MAX_URL, chars};
use chars::USpace;

/// What stood right before a bare URL's scheme, where it decides how the
/// URL ends (as linkify and Markdown readers see it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Open {
    /// An apostrophe opened a quotation: the next one closes it, so it
    /// ends the URL. Otherwise an apostrophe is URL text (`/it's-here`)
    /// unless it is the last byte (then it closes a quotation).
    pub quote: bool,
    /// A run of `*` or `_` (Markdown emphasis): the byte and how many
    /// (at most 3). As many of the same at the URL's end are trimmed.
    pub emphasis: Option<(u8, usize)>,
}

impl Open {
    /// What stands before a scheme starting at `start` (the 3 bytes
    /// before it at most, inside any window's context).
    pub(crate) fn before(hay: &[u8], start: usize) -> Open {
        let Some(&b) = start.checked_sub(1).map(|i| &hay[i]) else {
            return Open::default();
        };
        match b {
            b'\'' => Open { quote: true, emphasis: None },
            b'*' | b'_' => {
                let n = hay[start.saturating_sub(3)..start]
                    .iter()
                    .rev()
                    .take_while(|&&c| c == b)
                    .count();
                Open { quote: false, emphasis: Some((b, n)) }
            }
            _ => Open::default(),
        }
    }
}

/// The verdict on a bare candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bare {
    /// Not a URL.
    No,
    /// A URL ending at `end`; `cut` when it ran on past [`MAX_URL`] bytes
    /// and was cut there (no punctuation trimmed then: that is not its
    /// real end). `raw` is where its token ended before punctuation was
    /// trimmed (the byte there ended it).
    Url { end: usize, cut: bool, raw: usize },
    /// The window ends before this can be told.
    More,
}

/// Where the walk over a URL body stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// At its natural end `end`, sentence punctuation trimmed (may be the
    /// body's start: nothing there); `raw` is the end before trimming,
    /// the byte that ended the token.
    At { end: usize, raw: usize },
    /// It runs on past the cap.
    Cut,
    /// The window ends first.
    More,
}

/// What the bytes a scheme needs in its body are: `mailto:`, `mid:` and
/// `cid:` need an `@`; `news:` an `@`, or a `.` when the body starts with a
/// letter (a dotted group name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    At = 0,
    AtOrDot = 1,
}

/// What the scan of one window has learnt about opaque candidates
/// (`news:x,news:x,...`), so that rejecting each costs O(1) instead of a
/// walk over the rest of the token: a text of such candidates then costs
/// one pass, not one pass per candidate.
#[derive(Debug)]
pub(crate) struct Memo {
    /// Per [`Need`]: `(from, to)`, the body and trimmed end of the last
    /// candidate rejected at its natural end, which held none of those
    /// bytes. A later body inside `from..to` ends at or before `to` (an
    /// end is a stop byte or an unbalanced closer, and depth only falls
    /// from a later start), so it holds none either unless the next such
    /// byte is before `to`.
    barren: [(usize, usize); 2],
    /// Per [`Need`]: `(from, next)`, the first such byte at or after
    /// `from` (`None`: none in the window).
    next: [(usize, Option<usize>); 2],
}

impl Memo {
    fn next(&mut self, need: Need, hay: &[u8], at: usize) -> Option<usize> {
        let (from, next) = self.next[need as usize];
        if from <= at && next.is_none_or(|n| n >= at) {
            return next;
        }
        let found = match need {
            Need::At => memchr::memchr(b'@', &hay[at..]),
            Need::AtOrDot => memchr::memchr2(b'@', b'.', &hay[at..]),
        };
        let next = found.map(|i| at + i);
        self.next[need as usize] = (at, next);
        next
    }

    fn barren(&mut self, need: Need, from: usize, to: usize) {
        let needs: &[Need] =
            if need == Need::AtOrDot { &[Need::At, Need::AtOrDot] } else { &[need] };
        for &n in needs {
            if to > self.barren[n as usize].1 {
                self.barren[n as usize] = (from, to);
            }
        }
    }

    /// A fresh memo for a window (no barren range, nothing searched).
    pub(crate) fn new() -> Memo {
        Memo { barren: [(0, 0); 2], next: [(usize::MAX, None); 2] }
    }
}

/// For a scheme at `start..colon`, where the bare URL it begins ends, or
/// [`Bare::No`] when what follows does not look like that scheme's URL (so
/// that "Note:", "news: we shipped", "10:30" and `C:\path` are not URLs).
pub(crate) fn find(
    hay: &[u8],
    start: usize,
    colon: usize,
    eof: bool,
    memo: &mut Memo,
    open: Open,
) -> Bare {
    let scheme = &hay[start..colon];
    let body = colon + 1;
    let cap = start + MAX_URL;
    let is = |s: &str| scheme.eq_ignore_ascii_case(s.as_bytes());
    let rest = &hay[body..];
    // Decide on the bytes at hand before looking for the end: most colons
    // in text ("Subject:", "Note:") fail here, at no cost.
    if rest.len() < 2 && !eof && b"//".starts_with(rest) {
        return Bare::More;
    }
    if rest.starts_with(b"//") {
        // One-letter "schemes" are drive letters (`C://`), not URLs.
        if scheme.len() < 2 {
            return Bare::No;
        }
        // `(http://|https://)`: alternatives of a pattern or a syntax
        // line, no authority; a host never starts with `|`.
        if rest.get(2) == Some(&b'|') {
            return Bare::No;
        }
        return match end(hay, body, cap, eof, open) {
            End::At { end: e, raw } if e - body > 2 => {
                let e = host_semicolon(scheme, &hay[body + 2..e]).map_or(e, |i| body + 2 + i);
                Bare::Url { end: e, cut: false, raw }
            }
            End::At { .. } => Bare::No,
            End::Cut => Bare::Url { end: cap, cut: true, raw: cap },
            End::More => Bare::More,
        };
    }
    let need = match scheme.len() {
        3 if is("mid") || is("cid") => Need::At,
        6 if is("mailto") => Need::At,
        4 if is("file") => {
            return match rest.first() {
                Some(b'/') => url(end(hay, body, cap, eof, open), body, cap),
                Some(_) => Bare::No,
                None if eof => Bare::No,
                None => Bare::More,
            };
        }
        4 if is("news") => match rest.first() {
            // `*`, an article (`id@host`) or a dotted group name: a lone
            // word after "news:" is prose.
            Some(b'*') => match star_only(hay, body, cap, eof) {
                Some(true) => return Bare::Url { end: body + 1, cut: false, raw: body + 1 },
                Some(false) => Need::At,
                None => return Bare::More,
            },
            Some(b) if b.is_ascii_alphabetic() => Need::AtOrDot,
            Some(_) => Need::At,
            None if eof => return Bare::No,
            None => return Bare::More,
        },
        _ => return Bare::No,
    };
    let next = memo.next(need, hay, body);
    // None of the needed bytes before the cap: whatever the end, no URL.
    let none = match next {
        Some(n) => n >= cap,
        None => eof || hay.len() >= cap,
    };
    let (from, to) = memo.barren[need as usize];
    if none || (from <= body && body < to && next.is_none_or(|n| n >= to)) {
        return Bare::No;
    }
    match end(hay, body, cap, eof, open) {
        End::At { end: e, raw } if next.is_some_and(|n| n < e) => {
            Bare::Url { end: e, cut: false, raw }
        }
        End::At { end: e, .. } => {
            // A body ended by its opener (an apostrophe, emphasis) may end
            // sooner than a later body inside it would: only a plain end
            // bounds those.
            if open == Open::default() {
                memo.barren(need, body, e);
            }
            Bare::No
        }
        // The needed byte is before the cap, and the URL runs past it.
        End::Cut => Bare::Url { end: cap, cut: true, raw: cap },
        End::More => Bare::More,
    }
}

/// Where a `;` ends the host of a bare web URL (`"https://fake.example;auto"`,
/// curl's `--referer` suffix; `see http://a.example;then`): no DNS name
/// holds `;`, and a reader takes it as the punctuation after the URL. A `;`
/// in userinfo (`imap`-style `user;AUTH=...@`) is followed by `@` and
/// stays; paths and queries (`/x;jsessionid=`) are not looked at.
fn host_semicolon(scheme: &[u8], after_slashes: &[u8]) -> Option<usize> {
    let web =
        [&b"http"[..], b"https", b"ws", b"wss"].iter().any(|s| scheme.eq_ignore_ascii_case(s));
    if !web {
        return None;
    }
    let authority = after_slashes
        .iter()
        .position(|b| matches!(b, b'/' | b'?' | b'#'))
        .map_or(after_slashes, |e| &after_slashes[..e]);
    let semi = memchr::memchr(b';', authority)?;
    (semi > 0 && memchr::memchr(b'@', &authority[semi..]).is_none()).then_some(semi)
}

fn url(end: End, body: usize, cap: usize) -> Bare {
    match end {
        End::At { end: e, raw } if e > body => Bare::Url { end: e, cut: false, raw },
        End::At { .. } => Bare::No,
        End::Cut => Bare::Url { end: cap, cut: true, raw: cap },
        End::More => Bare::More,
    }
}

/// Whether a `news:` body starting with `*` at `body` is exactly `*`
/// once trailing punctuation is trimmed (`None`: the window ends first).
/// Looks only at the punctuation right after the `*`, which belongs to no
/// other candidate, so the cost is linear over all of them.
fn star_only(hay: &[u8], body: usize, cap: usize, eof: bool) -> Option<bool> {
    let mut j = body + 1;
    while j <= cap {
        let Some(&b) = hay.get(j) else {
            return if eof { Some(true) } else { None };
        };
        if chars::is_trailing_punct(b) {
            j += 1;
            continue;
        }
        match closing_quote_at(&hay[j..]) {
            Some(Ok(n)) => {
                j += n;
                continue;
            }
            Some(Err(())) if !eof => return None,
            _ => {}
        }
        if chars::is_bare_stop(b) || matches!(b, b')' | b']' | b'}') {
            return Some(true);
        }
        return match chars::unicode_stop(&hay[j..]) {
            USpace::Yes(_) => Some(true),
            USpace::Cut if !eof => None,
            _ => Some(false),
        };
    }
    Some(false)
}

/// The end of a bare URL body starting at `body`, at most at `cap`
/// (exclusive: a body that runs on past it is [`End::Cut`]), for a URL
/// opened as `open` says.
///
/// The walk stops at the first closing bracket that has no opener in the
/// URL, not at the end of the whitespace-free token: `x)http://y)` repeated
/// a million times then costs one pass, not one pass per URL.
pub(crate) fn end(hay: &[u8], body: usize, cap: usize, eof: bool, open: Open) -> End {
    let limit = hay.len().min(cap + 1);
    match balanced_end(hay, body, limit, eof, open.quote) {
        None => End::More,
        Some(e) if e > cap => End::Cut,
        Some(e) if e == hay.len() && !eof => End::More,
        Some(e) => End::At { end: trim_punct(hay, body, e, open), raw: e },
    }
}

/// Cuts an unbalanced closing bracket and trailing punctuation from the
/// token `body..end`: its new end, and whether it was cut at `cap`
/// instead (nothing in it ended it and it reaches `cap`: it keeps its
/// punctuation then, as that is not its end).
pub(crate) fn trim(hay: &[u8], body: usize, end: usize, cap: usize) -> (usize, bool) {
    let e = balanced_end(&hay[..end], body, end, true, false).expect("at the end of input");
    if e == end && end >= cap {
        (end, true)
    } else {
        (trim_punct(hay, body, e, Open::default()), false)
    }
}

/// Walks from `body` to the first byte that ends a bare URL (a stop byte,
/// a Unicode space or CJK punctuation, `)`, `]` or `}` with no opener
/// since `body`, and an apostrophe when `quote`), at most to `limit`;
/// `None` when a Unicode character that may end it is cut off by the end
/// of `hay` (and more input may come).
fn balanced_end(hay: &[u8], body: usize, limit: usize, eof: bool, quote: bool) -> Option<usize> {
    let (mut paren, mut square, mut curly) = (0usize, 0usize, 0usize);
    let mut placeholder = Placeholders::default();
    let mut end = body;
    while end < limit {
        // Eight plain bytes at a time: one branch for the lot, where a
        // path of a link list is mostly runs of them.
        while end + 8 <= limit
            && hay[end..end + 8].iter().fold(true, |all, &b| all & chars::is_bare_plain(b))
        {
            end += 8;
        }
        if end == limit {
            break;
        }
        if chars::is_bare_plain(hay[end]) {
            end += 1;
            continue;
        }
        let b = hay[end];
        if chars::may_stop(b) {
            if chars::is_bare_stop(b) {
                break;
            }
            if b == b',' {
                match chars::is_list_comma(&hay[end..], eof) {
                    Some(true) => break,
                    None => return None,
                    Some(false) => {
                        end += 1;
                        continue;
                    }
                }
            }
            if b == b'\\' {
                match chars::is_escape(&hay[end..], eof) {
                    Some(true) => break,
                    None => return None,
                    Some(false) => {
                        end += 1;
                        continue;
                    }
                }
            }
            match chars::unicode_stop(&hay[end..]) {
                USpace::Yes(_) => break,
                USpace::Cut if !eof => return None,
                _ => {}
            }
            end += 1;
            continue;
        }
        if matches!(b, b'(' | b'{') && end > body && hay[end - 1] == b'$' {
            match placeholder.close(hay, end, limit, eof) {
                Closer::At(c) => {
                    end = c + 1;
                    continue;
                }
                Closer::No => {}
                Closer::More => return None,
            }
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
            b'{' => {
                curly += 1;
                end += 1;
                continue;
            }
            b')' => &mut paren,
            b']' => &mut square,
            b'}' => &mut curly,
            b'\'' if quote => break,
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
    Some(end)
}

/// The most a shell or template placeholder (`$(...)`, `${...}`) inside a
/// URL may span: `file://$(realpath merged/doc)`,
/// `https://doc.rust-lang.org/${getVar("channel")}/`.
const MAX_PLACEHOLDER: usize = 256;

/// Where a placeholder opened at `$(` or `${` closes.
enum Closer {
    /// At this offset, on the same line: the URL takes in all of it,
    /// blanks and quotes included (it is a template).
    At(usize),
    /// Not on its line within [`MAX_PLACEHOLDER`]: an ordinary bracket.
    No,
    /// The window ends first.
    More,
}

/// What earlier searches for a placeholder's closer found, so that a walk
/// over many openers (`$($($(...`) stays linear: for `)` and `}`, the
/// closer last found, and the offset before which there is none.
#[derive(Default)]
struct Placeholders {
    found: [Option<usize>; 2],
    none_before: [usize; 2],
}

impl Placeholders {
    /// The closer of the placeholder whose bracket is at `open`.
    fn close(&mut self, hay: &[u8], open: usize, limit: usize, eof: bool) -> Closer {
        let (k, closer) = if hay[open] == b'(' { (0, b')') } else { (1, b'}') };
        if let Some(c) = self.found[k].filter(|&c| c > open) {
            return if c - open <= MAX_PLACEHOLDER { Closer::At(c) } else { Closer::No };
        }
        let reach = (open + 1 + MAX_PLACEHOLDER).min(limit);
        let from = self.none_before[k].max(open + 1);
        if from < reach
            && let Some(i) = memchr::memchr3(closer, b'\n', b'\r', &hay[from..reach])
        {
            let at = from + i;
            if hay[at] == closer {
                self.found[k] = Some(at);
                return Closer::At(at);
            }
            // A line break ends the search for every later opener on this
            // line too: it finds no closer before `at`.
            self.none_before[k] = at;
            return Closer::No;
        }
        if reach == hay.len() && reach < open + 1 + MAX_PLACEHOLDER && !eof {
            return Closer::More;
        }
        self.none_before[k] = self.none_before[k].max(reach);
        Closer::No
    }
}

/// Drops trailing sentence punctuation, closing quotes, a lone opening
/// bracket, and the closing emphasis that matches `open`'s.
fn trim_punct(hay: &[u8], body: usize, mut end: usize, open: Open) -> usize {
    let mut emphasis = open.emphasis;
    loop {
        let s = &hay[body..end];
        let opener = |b: Option<&u8>| matches!(b, Some(b'(' | b'[' | b'{'));
        // A lone opener, not the last of a run (`{{` opens a template).
        let lone = opener(s.last()) && !opener(s.len().checked_sub(2).map(|i| &s[i]));
        match s.last() {
            Some(&b) if chars::is_trailing_punct(b) || lone => {
                end -= 1;
                continue;
            }
            Some(&b) if emphasis.is_some_and(|(e, _)| e == b) => {
                let (_, n) = emphasis.take().expect("checked");
                let run = s.iter().rev().take(n).take_while(|&&c| c == b).count();
                end -= run;
                continue;
            }
            _ => {}
        }
        if let Some(n) = closing_quote_len(s) {
            end -= n;
        } else {
            return end;
        }
    }
}

/// Typographic closing quotes and the ellipsis in UTF-8: ’ ” » … (the
/// ASCII quotes already end the URL or are trailing punctuation).
const CLOSING_QUOTES: [&[u8]; 4] = [b"\xe2\x80\x99", b"\xe2\x80\x9d", b"\xc2\xbb", b"\xe2\x80\xa6"];

fn closing_quote_len(s: &[u8]) -> Option<usize> {
    CLOSING_QUOTES.iter().find(|q| s.ends_with(q)).map(|q| q.len())
}

/// Whether `s` opens with a closing quote: its length, or `Err` when `s`
/// ends inside what could still become one.
fn closing_quote_at(s: &[u8]) -> Option<Result<usize, ()>> {
    for q in CLOSING_QUOTES {
        if s.starts_with(q) {
            return Some(Ok(q.len()));
        }
        if s.len() < q.len() && q.starts_with(s) {
            return Some(Err(()));
        }
    }
    None
}
