//! Bare URLs that a mailer or an editor broke at the margin, joined with
//! the lines that hold their tails.
//!
//! RFC 1738 rejoins only wrapped URLs; a bare URL broken across lines is
//! ambiguous, so it is joined only on strong evidence, as readers of mail
//! and Usenet do it:
//!
//! - the URL's token ends its line (nothing after it, not even a quote);
//! - the line was cut there: right after a URL delimiter (`/ - & ? = . _
//!   #`), which no URL ends on by choice, inside an escape (`%`, `%4`), or
//!   at the text's wrap width (72
//!   characters or more, or as long as the line above it when that is 40
//!   or more);
//! - the next line has the same quote prefix (`> `), and after it and its
//!   indentation starts with URL text that reads as a tail, not prose: not
//!   blank, not a new URL (`scheme:`), not a list item (`- `, `1. `), not
//!   a capitalised word, not a word after sentence punctuation (but a
//!   known file extension: `a.` then `html`), not a word alone on its
//!   line after `/` unless the line was cut at the wrap width, never a
//!   little word of English alone on its line (`and`, `or`), and when
//!   more text follows it on
//!   its line, a path or query (`/ ? = & %` in it), not a word, a table
//!   cell or a list number;
//! - and, when the cut was not at a delimiter, the joined URL is valid
//!   where the cut one is not: the scanner does not judge URLs, so it
//!   marks such a join as not sure and the caller asks the validator
//!   ([`Found::join_sure`](super::Found::join_sure)). The tails of such a
//!   join hold no colon, so that undoing it loses no URL.
//!
//! A URL broken over several lines is joined line by line, each step on
//! the same evidence.

use memchr::{memmem, memrchr2};

use super::bare::{self, End, Open};
use super::{Lead, MAX_URL, chars};

/// Bytes that a URL broken at one of them plainly goes on after.
const DELIMITERS: &[u8] = b"/-&?=._#";

/// A line this long (in characters) was cut at the wrap width.
const WIDTH: usize = 72;

/// A line as long as the one above it was cut at the wrap width, when that
/// is at least this long (shorter lines are not wrapped text).
const MIN_WIDTH: usize = 40;

/// What follows a bare URL that ends its line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Join {
    /// Nothing to join.
    No,
    /// The window ends before this can be told.
    More,
    /// Tails to append: `(start, end)` in the window, in order; the
    /// first part of the URL then runs to its raw end (its punctuation
    /// is not the end), and so does every tail but the last.
    Yes {
        /// The tails: where each starts, where it ends as the last part
        /// (trimmed), where its token ends (raw).
        tails: Vec<(usize, usize, usize)>,
        /// Every step was cut at a delimiter.
        sure: bool,
    },
}

/// Whether the bare URL `hay[start..raw]` (its token before trimming)
/// goes on on the next line(s); `lead` is what comes before `hay` on the
/// line `hay[0]` is in, `open` what opened the URL.
pub(crate) fn join(
    hay: &[u8],
    start: usize,
    raw: usize,
    lead: Lead,
    eof: bool,
    open: Open,
) -> Join {
    match hay.get(raw) {
        Some(b'\n' | b'\r') => {}
        None if !eof => return Join::More,
        _ => return Join::No,
    }
    let cap = start + MAX_URL;
    // The line the URL is on, found only when a next line looks like a
    // tail (one walk back per line: only one URL ends a line).
    let mut first: Option<(usize, usize)> = None;
    let mut tails = Vec::new();
    let mut sure = true;
    let mut colons = false;
    // The part before the break: where its token ends (at the break),
    // where its line starts (`None`: the URL's line) and how long the line
    // above that is (`None`: not measured yet).
    let mut cut = raw;
    let mut line: Option<usize> = None;
    let mut above: Option<usize> = None;
    loop {
        let mut n = cut + 1;
        if hay[cut] == b'\r' {
            match hay.get(n) {
                Some(b'\n') => n += 1,
                None if !eof => return Join::More,
                _ => {}
            }
        }
        let mut c = n;
        let mut q = 0;
        while c < cap
            && let Some(&b) = hay.get(c)
        {
            match b {
                b' ' | b'\t' => {}
                _ if chars::is_quote(b) => q += 1,
                _ => break,
            }
            c += 1;
        }
        if c >= cap {
            break;
        }
        let Some(&b) = hay.get(c) else {
            if eof {
                break;
            }
            return Join::More;
        };
        if !starts_tail(b) {
            break;
        }
        let (e, r) = match bare::end(hay, c, cap, eof, open) {
            End::More => return Join::More,
            End::Cut => break,
            End::At { end, raw } => (end, raw),
        };
        let token = &hay[c..e];
        let at_line_end = matches!(hay.get(r), Some(b'\n' | b'\r') | None);
        let before = hay[cut - 1];
        // A word and a colon opens a key or a label (`meta-spec:` in YAML,
        // `Note:`), not the rest of a URL.
        let key = hay.get(e) == Some(&b':') && !matches!(hay.get(e + 1), Some(b'/'));
        if e == c || key || !reads_as_tail(token, at_line_end, before) {
            break;
        }
        // The quote prefix of the URL's line, and where that line starts.
        let (quotes, first_line) = *first.get_or_insert_with(|| prefix_of(hay, start, lead));
        if q != quotes {
            break;
        }
        let ls = line.unwrap_or(first_line);
        // An escape cut in two (`%` or `%4` at the line end) is a cut too.
        let split_escape =
            before == b'%' || (before.is_ascii_hexdigit() && cut >= 2 && hay[cut - 2] == b'%');
        let delimited = DELIMITERS.contains(&before) || split_escape;
        let colon = memchr::memchr(b':', token).is_some();
        // A word alone on its line after a `/`, which a URL may well end
        // on, is prose (a changelog's initials) unless the line was cut at
        // the wrap width.
        let weak = before == b'/' && at_line_end && is_word(token);
        if !delimited || weak {
            let len = length(hay, ls, cut, lead);
            let up = *above.get_or_insert_with(|| length_above(hay, ls, lead));
            let width = len >= WIDTH || (up >= MIN_WIDTH && len >= up);
            // Undoing a join must lose no URL: see the module docs.
            if !width || colons || colon {
                break;
            }
            sure &= delimited;
        } else if colon && !sure {
            break;
        }
        colons |= colon;
        tails.push((c, e, r));
        if !matches!(hay.get(r), Some(b'\n' | b'\r')) {
            break;
        }
        // The tail's line is the next part's, below the line just left.
        above = Some(length(hay, ls, cut, lead));
        line = Some(n);
        cut = r;
    }
    if tails.is_empty() { Join::No } else { Join::Yes { tails, sure } }
}

/// Whether `token` is a word: letters, and an apostrophe (`it's`).
fn is_word(token: &[u8]) -> bool {
    token.iter().all(|&b| b.is_ascii_alphabetic() || b == b'\'')
}

/// Whether `word` is one of English's little words, which join sentences
/// rather than end paths.
fn is_function_word(word: &[u8]) -> bool {
    const WORDS: &[&[u8]] = &[
        b"a", b"an", b"and", b"or", b"nor", b"but", b"the", b"to", b"of", b"in", b"on", b"at",
        b"by", b"for", b"from", b"with", b"as", b"is", b"are", b"was", b"see", b"also", b"then",
        b"than", b"that", b"this", b"it", b"via", b"per", b"if", b"so", b"not",
    ];
    WORDS.iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// Whether `word` is a file extension a URL's path often ends in.
fn is_extension(word: &[u8]) -> bool {
    const EXTENSIONS: &[&[u8]] = &[
        b"htm", b"html", b"shtml", b"xhtml", b"php", b"asp", b"aspx", b"jsp", b"cgi", b"pl",
        b"txt", b"pdf", b"ps", b"xml", b"json", b"md", b"rst", b"gz", b"tgz", b"bz", b"xz", b"zip",
        b"tar", b"png", b"jpg", b"jpeg", b"gif", b"svg", b"css", b"js", b"py", b"rs", b"c", b"h",
        b"diff", b"patch", b"deb", b"rpm", b"iso", b"doc", b"mbox",
    ];
    EXTENSIONS.iter().any(|e| word.eq_ignore_ascii_case(e))
}

/// A byte a tail may start with: URL text that is not punctuation ending
/// a sentence or opening something.
fn starts_tail(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"%~_/#?&=.-+@$*".contains(&b)
}

/// Whether the start of the next line, `token` (up to where a bare URL
/// would end), reads as the tail of a URL rather than prose: see the
/// module docs. `at_line_end`: nothing follows it on its line; `before`:
/// the last byte of the URL's line.
fn reads_as_tail(token: &[u8], at_line_end: bool, before: u8) -> bool {
    if !token.iter().any(u8::is_ascii_alphanumeric) || memmem::find(token, b"://").is_some() {
        return false;
    }
    // A `%` that opens no escape starts a comment or a directive
    // (PostScript's `%%EndComments` under a URL that ends a sentence),
    // not a tail: a cut inside an escape leaves its hex digits here.
    if token[0] == b'%'
        && !matches!(token, [_, a, b, ..] if a.is_ascii_hexdigit() && b.is_ascii_hexdigit())
    {
        return false;
    }
    // A new URL (`mailto:a@b`, `news:x.y`), not a tail.
    let scheme = token.iter().take_while(|&&b| chars::is_scheme(b)).count();
    if token[0].is_ascii_alphabetic() && token.get(scheme) == Some(&b':') {
        return false;
    }
    let punct = chars::is_trailing_punct(before);
    if is_word(token) {
        // After sentence punctuation only a file extension (`a.` then
        // `html`): another word starts the next sentence. A little word of
        // English ("and", "or", "see") is the sentence going on, even at
        // the margin: a path rarely ends in one.
        let extension = before == b'.' && is_extension(token);
        return at_line_end
            && !token[0].is_ascii_uppercase()
            && (!punct || extension)
            && !is_function_word(token);
    }
    // Text after it on its line: only a path, a query or an escape is a
    // tail there (`2.b. [v11]` is a list item, `git_  N/A` a table cell,
    // SDP's `m=video 0 RTP/AVP 31` a new field).
    if !at_line_end {
        let query = b"&?=".contains(&before) && token.iter().any(|b| b"=&".contains(b));
        return query || token.iter().any(|b| b"/?%".contains(b));
    }
    !punct || token.iter().any(|b| b"/.?=&#%_~".contains(b))
}

/// The quote characters in the leading run of the line holding `at`, and
/// where that line starts (0 when before `hay`).
fn prefix_of(hay: &[u8], at: usize, lead: Lead) -> (usize, usize) {
    let ls = memrchr2(b'\n', b'\r', &hay[..at]).map_or(0, |i| i + 1);
    let run = || {
        hay[ls..at]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t' || chars::is_quote(b))
            .filter(|&&b| chars::is_quote(b))
            .count()
    };
    let quotes = match (ls, lead.open) {
        (0, true) => lead.quotes + run(),
        (0, false) => lead.quotes,
        _ => run(),
    };
    (quotes, ls)
}

/// Characters (not bytes: UTF-8 continuation bytes do not count).
pub(crate) fn chars_in(s: &[u8]) -> usize {
    s.iter().filter(|&&b| b & 0xc0 != 0x80).count()
}

/// The length in characters of the line from `ls` to `end` (its break),
/// counting what `lead` says came before `hay` when it starts there.
fn length(hay: &[u8], ls: usize, end: usize, lead: Lead) -> usize {
    chars_in(&hay[ls..end]) + if ls == 0 { lead.column } else { 0 }
}

/// The length in characters of the line above the one starting at `ls`
/// (0 when there is none).
fn length_above(hay: &[u8], ls: usize, lead: Lead) -> usize {
    if ls == 0 {
        return lead.above;
    }
    let mut end = ls - 1;
    if hay[end] == b'\n' && end > 0 && hay[end - 1] == b'\r' {
        end -= 1;
    }
    match memrchr2(b'\n', b'\r', &hay[..end]) {
        Some(i) => chars_in(&hay[i + 1..end]),
        None => lead.column + chars_in(&hay[..end]),
    }
}
