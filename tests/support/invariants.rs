//! Invariants of extraction and validation that must hold for ANY input,
//! hostile or not. One copy serves two masters: the fuzz targets
//! (`fuzz/fuzz_targets/*.rs` include this file by path) and the regression
//! tests (`tests/regression.rs`), so a crash input found by the fuzzer
//! replays here under `cargo test` with exactly the checks that caught it.
//!
//! Everything is checked against the public contract (README "How text is
//! read" and "JSON fields"), recomputed naively from the input bytes, not
//! by calling the code under test a second way.
//!
//! # The source-span invariant, precisely
//!
//! For a reported URL `u` whose first byte is at offset `s` and last byte
//! at offset `t` (`u.start.offset`, `u.end.offset`):
//!
//! - **Bare and prefixed** URLs are never rejoined: `input[s..=t] == u.url`.
//! - **Wrapped and angle** URLs: let `<` be the last `<` before `s` (the
//!   opener's; `URL:<` and `URL=<` are written on one line) and `Q` the
//!   number of quote characters (`>`, `|`) in the leading run of spaces,
//!   tabs and quote characters of the line that `<` is on (the quote
//!   prefix of the opening line). Then `u.url` is `input[s..=t]` with
//!   1. every whitespace byte removed (space, TAB, LF, CR, VT, FF), and
//!   2. at the start of every line that begins inside the span (after an
//!      LF or a CR), within its leading run of spaces, tabs and quote
//!      characters, the first `Q` quote characters removed. Further quote
//!      characters of that run are URL text (`|` is then an unsafe
//!      character in the URL; a `>` would have closed the wrapper).
//!
//!   That is exact: the scanner removes nothing else and adds nothing. An
//!   unclosed wrapper reports only its first token, which has no
//!   whitespace, so the rule holds for it trivially.
//! - **Joined bare** URLs (note `line-break-joined`): `u.url` is
//!   `input[s..=t]` with every line break removed together with the
//!   leading run of spaces, tabs and quote characters of the line after
//!   it (`unbreak`); each line break in the span is one the URL was
//!   joined across, the lines hold the same number of quote characters in
//!   their leading runs, and the only alternative is the cut reading: a
//!   prefix of the URL that ends on the first line, before its break.

#![allow(dead_code)]

use std::sync::OnceLock;

use urlsift::diag::{Code, Grammar};
use urlsift::extract::{EXCERPT, Extracted, MARKER_LIST, MARKER_REACH, Options, Scratch, Sifter};
use urlsift::rules::Validator;
use urlsift::scan::{Found, Kind, Lead, MAX_URL, Outcome, Resume, Scanner};

/// Known bugs the fuzz targets step around until they are fixed, so that
/// the fuzzers look for new ones (each has an ignored test in
/// `tests/regression.rs` that fails until the fix): set to false with the
/// fix.
///
/// `r_control_bytes_in_messages`: messages quoted URL text raw, control
/// bytes included (fixed: messages escape them).
pub const KNOWN_BUG_CONTROLS_IN_MESSAGES: bool = false;

/// The engines, built once (a validator compiles its DFAs, which takes
/// milliseconds: far too slow per fuzz execution).
pub struct Engines {
    /// Default options.
    pub sifter: Sifter,
    /// Default options plus excerpts.
    pub excerpts: Sifter,
    /// The rfc1738 profile, and with excerpts: it reports what the
    /// default leaves to `alternatives` (`hyphen-line-break`).
    pub strict: [Sifter; 2],
    /// Every profile's validator, the default profile's (the sifters')
    /// first, then rfc1738's.
    pub validators: [Validator; 3],
}

pub fn engines() -> &'static Engines {
    static E: OnceLock<Engines> = OnceLock::new();
    E.get_or_init(|| Engines {
        sifter: Sifter::new(Options::default()),
        excerpts: Sifter::new(Options { excerpts: true, ..Options::default() }),
        strict: [false, true].map(|excerpts| {
            Sifter::new(Options { grammar: Grammar::Rfc1738, excerpts, ..Options::default() })
        }),
        validators: [
            Validator::new(Grammar::default()),
            Validator::new(Grammar::Rfc1738),
            Validator::new(Grammar::Rfc3986),
        ],
    })
}

/// The input, escaped and cut to a readable length, for failure messages.
pub fn show(b: &[u8]) -> String {
    const MAX: usize = 300;
    let s: String =
        b.iter().take(MAX).flat_map(|&c| std::ascii::escape_default(c)).map(char::from).collect();
    if b.len() > MAX { format!("\"{s}\"... ({} bytes)", b.len()) } else { format!("\"{s}\"") }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn is_quote(b: u8) -> bool {
    b == b'>' || b == b'|'
}

/// Offsets where lines start: 0, after every LF, after every CR that is
/// not followed by an LF (a CRLF is one break, a lone CR is one too).
pub fn line_starts(input: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    for (i, &b) in input.iter().enumerate() {
        if b == b'\n' || (b == b'\r' && input.get(i + 1) != Some(&b'\n')) {
            starts.push(i + 1);
        }
    }
    starts
}

/// 1-based (line, byte column) of `at`, counted naively.
pub fn line_col(starts: &[usize], at: usize) -> (u64, u64) {
    let line = starts.partition_point(|&s| s <= at);
    (line as u64, (at - starts[line - 1] + 1) as u64)
}

/// What a wrapper spanning `input[s..=t]` must yield: see the module docs.
pub fn rejoin(input: &[u8], s: usize, t: usize) -> Vec<u8> {
    let opener =
        input[..s].iter().rposition(|&b| b == b'<').expect("a bracketed URL has an opener");
    let line = input[..opener].iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |i| i + 1);
    let q = input[line..opener]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t' || is_quote(b))
        .filter(|&&b| is_quote(b))
        .count();
    let mut out = Vec::new();
    let mut at_line_start = false;
    let mut budget = 0;
    for &b in &input[s..=t] {
        if b == b'\n' || b == b'\r' {
            at_line_start = true;
            budget = q;
            continue;
        }
        if at_line_start {
            if b == b' ' || b == b'\t' {
                continue;
            }
            if is_quote(b) && budget > 0 {
                budget -= 1;
                continue;
            }
            at_line_start = false;
        }
        if !is_ws(b) {
            out.push(b);
        }
    }
    out
}

/// What a joined bare URL spanning `input[s..=t]` must yield: see the
/// module docs.
pub fn unbreak(input: &[u8], s: usize, t: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at_line_start = false;
    for &b in &input[s..=t] {
        if b == b'\n' || b == b'\r' {
            at_line_start = true;
            continue;
        }
        if at_line_start && (b == b' ' || b == b'\t' || is_quote(b)) {
            continue;
        }
        at_line_start = false;
        out.push(b);
    }
    out
}

/// Quote characters in the leading run of spaces, tabs and quote
/// characters of the line starting at `ls`.
fn quote_depth(input: &[u8], ls: usize) -> usize {
    input[ls..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t' || is_quote(b))
        .filter(|&&b| is_quote(b))
        .count()
}

/// The inline suppression marker (README, "urlsift: ignore").
const MARKER: &[u8] = b"urlsift: ignore";

/// What the markers on a URL's line and the line before it silence.
#[derive(Debug, Default)]
struct Silence {
    /// A marker is there.
    any: bool,
    /// A bare marker: everything.
    all: bool,
    /// `urlsift: ignore[a,b]`: these codes.
    codes: Vec<String>,
}

impl Silence {
    fn covers(&self, c: Code) -> bool {
        self.all || self.codes.iter().any(|x| x == c.as_str())
    }
}

/// The markers for a URL from `at` to `last`: on the line holding `at`
/// and on the line before it (if it leads that line), the first marker of
/// the line counts (on the
/// URL's own line only if it starts at most `MARKER_REACH` bytes after
/// `last`); `[...]` right after it lists codes, separated by commas,
/// blanks around them ignored, up to `]`, the end of the line or
/// `MARKER_LIST` bytes.
fn silence(input: &[u8], starts: &[usize], at: usize, last: usize) -> Silence {
    let line = starts.partition_point(|&x| x <= at) - 1;
    let mut out = Silence::default();
    for &begin in &starts[line.saturating_sub(1)..=line] {
        let end = input[begin..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(input.len(), |i| begin + i);
        let text = &input[begin..end];
        // `urlsift: ignore-file` (any `urlsift: ignore-...`) is not the
        // line marker.
        let Some(i) = (0..text.len().saturating_sub(MARKER.len() - 1))
            .find(|&i| text[i..].starts_with(MARKER) && text.get(i + MARKER.len()) != Some(&b'-'))
        else {
            continue;
        };
        if begin == starts[line] && begin + i > last + MARKER_REACH {
            continue;
        }
        // On the line before, only a marker that leads its line (blanks
        // and punctuation before it) counts: one after text is its own
        // line's.
        let leads = text[..i].iter().all(|b| b.is_ascii_punctuation() || b.is_ascii_whitespace());
        if begin != starts[line] && !leads {
            continue;
        }
        out.any = true;
        match text[i + MARKER.len()..].strip_prefix(b"[") {
            Some(list) => {
                let list = &list[..list.len().min(MARKER_LIST)];
                let list = &list[..list.iter().position(|&b| b == b']').unwrap_or(list.len())];
                out.codes.extend(
                    list.split(|&b| b == b',')
                        .map(|c| String::from_utf8_lossy(c.trim_ascii()).into_owned()),
                );
            }
            None => out.all = true,
        }
    }
    out
}

/// What block and file markers silence at `at` (README, "Silencing a
/// finding"): the last `urlsift: disable[...]` or `urlsift: enable` that
/// starts before `at`, and the first `urlsift: ignore-file[...]` that
/// starts in the first 8 KiB. A marker word must end where it ends (not
/// go on in a letter, digit or `-`).
fn blocks(input: &[u8], at: usize) -> Silence {
    const DIRECTIVE: &[u8] = b"urlsift: ";
    let read = |i: usize| -> Option<(&'static str, Silence)> {
        let rest = &input[i + DIRECTIVE.len()..];
        for word in ["disable", "enable", "ignore-file"] {
            let Some(after) = rest.strip_prefix(word.as_bytes()) else { continue };
            if after.first().is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'-') {
                return None;
            }
            let mut out = Silence { any: true, ..Silence::default() };
            match after.strip_prefix(b"[") {
                Some(list) => {
                    let list = &list[..list.len().min(MARKER_LIST)];
                    let list = &list[..list
                        .iter()
                        .position(|&b| b == b'\n' || b == b'\r')
                        .unwrap_or(list.len())];
                    let list = &list[..list.iter().position(|&b| b == b']').unwrap_or(list.len())];
                    out.codes.extend(
                        list.split(|&b| b == b',')
                            .map(|c| String::from_utf8_lossy(c.trim_ascii()).into_owned()),
                    );
                }
                None => out.all = true,
            }
            return Some((word, out));
        }
        None
    };
    let mut block = Silence::default();
    let mut file = None;
    for i in (0..input.len()).filter(|&i| input[i..].starts_with(DIRECTIVE)) {
        match read(i) {
            Some(("disable", s)) if i < at => block = s,
            Some(("enable", _)) if i < at => block = Silence::default(),
            Some(("ignore-file", s)) if i < 8192 && file.is_none() => file = Some(s),
            _ => {}
        }
    }
    let file = file.unwrap_or_default();
    Silence {
        any: block.any || file.any,
        all: block.all || file.all,
        codes: block.codes.into_iter().chain(file.codes).collect(),
    }
}

/// The diagnostics urlsift adds itself, beside the validator's.
fn is_extraction_code(c: Code) -> bool {
    matches!(c, Code::UnclosedWrapper | Code::HyphenLineBreak | Code::UrlTooLong)
}

/// Unicode spaces that end a bare URL (README, "Bare URLs").
const UNICODE_SPACES: &[char] = &[
    '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}',
    '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200a}', '\u{200b}', '\u{2028}',
    '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}', '\u{feff}',
];

/// Whether `bytes` holds one of `UNICODE_SPACES` in UTF-8.
fn holds_unicode_space(bytes: &[u8]) -> bool {
    UNICODE_SPACES.iter().any(|c| {
        let mut b = [0; 4];
        let enc = c.encode_utf8(&mut b).as_bytes();
        bytes.windows(enc.len()).any(|w| w == enc)
    })
}

/// The excerpt of the line `ls..le` for a finding at `at` (README, "lint"
/// excerpts): the line when at most `EXCERPT` bytes; else `EXCERPT` bytes
/// starting `EXCERPT / 3` before `at` (or fewer where the line starts;
/// shifted back where it ends), then narrowed so that neither edge is in
/// the middle of a UTF-8 sequence (an edge byte 80-BF goes, the byte at
/// `at` stays). With the 1-based column of its first byte.
fn excerpt_naive(input: &[u8], ls: usize, le: usize, at: usize) -> (&[u8], u64) {
    if le - ls <= EXCERPT {
        return (&input[ls..le], 1);
    }
    let mut lo = at.saturating_sub(EXCERPT / 3).max(ls);
    let mut hi = (lo + EXCERPT).min(le);
    if hi - lo < EXCERPT {
        lo = hi - EXCERPT;
    }
    while lo < at && input[lo] & 0xc0 == 0x80 {
        lo += 1;
    }
    while hi > at + 1 && hi < le && input[hi] & 0xc0 == 0x80 {
        hi -= 1;
    }
    (&input[lo..hi], (lo - ls + 1) as u64)
}

/// Extracts from `input` and checks every invariant; panics naming the
/// first one broken. Returns the URLs for callers that check more.
pub fn check_extract(input: &[u8]) -> Vec<Extracted> {
    // A hyphen at a line break is reported under rfc1738 only: check
    // those findings there too.
    if input.windows(2).any(|w| w == b"-\n" || w == b"-\r") {
        check_extract_in(input, Grammar::Rfc1738);
    }
    check_extract_in(input, Grammar::default())
}

/// Whether `span`, a wrapper's URL text as written, is a mailto address
/// spelled out with an `at` word on one line (`scan::wrapper` keeps it).
fn spelled_out(span: &[u8]) -> bool {
    span.len() > 7
        && span[..7].eq_ignore_ascii_case(b"mailto:")
        && !span.iter().any(|&b| b == b'\n' || b == b'\r')
        && span
            .split(|&b| b == b' ' || b == b'\t')
            .skip(1)
            .any(|w| w.eq_ignore_ascii_case(b"at") || w.eq_ignore_ascii_case(b"(at)"))
}

/// [`check_extract`] under one profile (the default or rfc1738).
pub fn check_extract_in(input: &[u8], grammar: Grammar) -> Vec<Extracted> {
    let e = engines();
    let (sifter, excerpts) = if grammar == Grammar::Rfc1738 {
        (&e.strict[0], &e.strict[1])
    } else {
        (&e.sifter, &e.excerpts)
    };
    let urls = sifter.extract(input);
    let starts = line_starts(input);
    let mut prev_end: Option<usize> = None;
    for (i, u) in urls.iter().enumerate() {
        let ctx = || format!("URL #{i} {} ({:?}) of {}", show(&u.url), u.kind, show(input));
        let n = u.url.len();
        assert!(n > 0, "empty URL: {}", ctx());
        assert!(n <= MAX_URL, "URL longer than MAX_URL: {}", ctx());
        let (s, t) = (u.start.offset as usize, u.end.offset as usize);
        assert!(s < input.len() && t < input.len(), "position outside the input: {}", ctx());
        assert!(t >= s, "end before start: {}", ctx());
        if let Some(p) = prev_end {
            assert!(s > p, "overlaps or goes back from the previous URL (ended at {p}): {}", ctx());
        }
        prev_end = Some(t);
        assert_eq!(input[s], u.url[0], "input[start] is not the first byte: {}", ctx());
        assert_eq!(input[t], u.url[n - 1], "input[end] is not the last byte: {}", ctx());
        assert_eq!(line_col(&starts, s), (u.start.line, u.start.column), "start: {}", ctx());
        assert_eq!(line_col(&starts, t), (u.end.line, u.end.column), "end: {}", ctx());
        // A rejoined URL's runs are the input's own bytes, in order, the
        // first at its start (what `lint --fix` edits in place).
        assert!(!u.verbatim || u.pieces.is_empty(), "verbatim with runs: {}", ctx());
        for (k, &(t0, f0)) in u.pieces.iter().enumerate() {
            let t1 = u.pieces.get(k + 1).map_or(n as u64, |p| p.0);
            assert!(t0 < t1, "runs out of order: {:?}: {}", u.pieces, ctx());
            let (t0, t1, f0) = (t0 as usize, t1 as usize, f0 as usize);
            assert_eq!(
                input.get(f0..f0 + (t1 - t0)),
                Some(&u.url[t0..t1]),
                "run {k} of {:?} is not the input's bytes: {}",
                u.pieces,
                ctx()
            );
        }
        if let Some(&(t0, f0)) = u.pieces.first() {
            assert_eq!((t0, f0), (0, u.start.offset), "first run: {}", ctx());
        }
        let span = &input[s..=t];
        let joined = u.notes.contains(&"line-break-joined");
        for n in &u.notes {
            assert!(
                ["glued-scheme", "line-break-joined"].contains(n),
                "unknown note {n}: {}",
                ctx()
            );
        }
        if u.notes.contains(&"glued-scheme") {
            // The scheme was cut from a word: letters, digits, `.` or `-`
            // (not `+`) stand right before it.
            // (A template keeps no form.)
            let bare = matches!(u.kind, Kind::Bare | Kind::Template);
            assert!(bare, "a glued scheme not bare: {}", ctx());
            assert!(
                s > 0 && (input[s - 1].is_ascii_alphanumeric() || b".-".contains(&input[s - 1])),
                "a glued scheme glued to nothing: {}",
                ctx()
            );
        }
        if joined {
            let bare = matches!(u.kind, Kind::Bare | Kind::Template);
            assert!(bare, "a joined URL not bare: {}", ctx());
            assert_eq!(
                show(&unbreak(input, s, t)),
                show(&u.url),
                "a joined URL is not its span unbroken: {}",
                ctx()
            );
            let depth = quote_depth(input, starts[starts.partition_point(|&x| x <= s) - 1]);
            let mut breaks = 0;
            for (i, &b) in span.iter().enumerate() {
                let at = s + i;
                if b == b'\n' || (b == b'\r' && input.get(at + 1) != Some(&b'\n')) {
                    breaks += 1;
                    assert_eq!(quote_depth(input, at + 1), depth, "quote depth: {}", ctx());
                }
            }
            assert!(breaks > 0, "a joined URL on one line: {}", ctx());
            assert_eq!(u.alternatives.len(), 1, "alternatives: {}", ctx());
            let cut = &u.alternatives[0];
            let first_line = span.iter().position(|&b| b == b'\n' || b == b'\r').unwrap();
            assert!(
                !cut.is_empty() && cut.len() <= first_line && u.url.starts_with(cut),
                "the cut reading {} is not a prefix on the first line: {}",
                show(cut),
                ctx()
            );
        }
        match u.kind {
            Kind::Bare if joined => {
                assert!(
                    !u.url.iter().any(|&b| is_ws(b) || b == b'<' || b == b'>'),
                    "a joined URL holds whitespace or a bracket: {}",
                    ctx()
                );
            }
            Kind::Bare | Kind::Prefixed => {
                assert_eq!(span, &u.url[..], "a bare URL is not its source span: {}", ctx());
                assert!(
                    !u.url.iter().any(|&b| is_ws(b) || b == b'<' || b == b'>'),
                    "a bare URL holds whitespace or a bracket: {}",
                    ctx()
                );
                assert!(
                    !holds_unicode_space(&u.url),
                    "a bare URL holds a Unicode space: {}",
                    ctx()
                );
            }
            // A mailto address spelled out against harvesters
            // (`<mailto:xcb at lists.example.org>`, one line) is taken as
            // written, spaces and all.
            Kind::Wrapped | Kind::Angle if spelled_out(span) => {
                assert_eq!(span, &u.url[..], "a spelled-out address is not its span: {}", ctx());
            }
            Kind::Wrapped | Kind::Angle => {
                assert_eq!(
                    show(&rejoin(input, s, t)),
                    show(&u.url),
                    "the URL is not its span rejoined: {}",
                    ctx()
                );
            }
            // A template was written in any form: its span as it is, or
            // rejoined.
            Kind::Template => assert!(
                span == &u.url[..]
                    || (joined && unbreak(input, s, t) == u.url)
                    || (input[..s].contains(&b'<') && rejoin(input, s, t) == u.url),
                "a template is neither its span nor its span rejoined: {}",
                ctx()
            ),
            // Plain text has no markup to give a link whole.
            Kind::Link => panic!("a link in plain text: {}", ctx()),
        }

        // Findings: placed inside the URL, on the bytes they name.
        let mut hyphens = Vec::new();
        let mut unclosed = false;
        let mut too_long = false;
        let mut prev = (0, 0);
        for f in &u.findings {
            let d = &f.diagnostic;
            assert!(d.start <= d.end && d.end <= n, "diagnostic span {d:?} outside: {}", ctx());
            assert!((d.start, d.end) >= prev, "findings not sorted: {}", ctx());
            prev = (d.start, d.end);
            // A merged finding lists every place: each is checked as a
            // finding of its own was.
            assert_eq!(d.extra_spans.len(), f.extra_spans.len(), "{d:?}: {}", ctx());
            for ((ds, de), (ps, pe)) in d.spans().zip(f.spans()) {
                assert!(ds <= de && de <= n, "span {ds}..{de} of {d:?} outside: {}", ctx());
                let (a, b) = (ds.min(n - 1), de.saturating_sub(1).max(ds).min(n - 1));
                let (fa, fb) = (ps.offset as usize, pe.offset as usize);
                assert!(s <= fa && fa <= fb && fb <= t, "finding {d:?} placed outside: {}", ctx());
                assert_eq!(input[fa], u.url[a], "finding {d:?} start on the wrong byte: {}", ctx());
                assert_eq!(input[fb], u.url[b], "finding {d:?} end on the wrong byte: {}", ctx());
                assert_eq!(line_col(&starts, fa), (ps.line, ps.column), "{d:?}: {}", ctx());
                assert_eq!(line_col(&starts, fb), (pe.line, pe.column), "{d:?}: {}", ctx());
                if d.code == Code::HyphenLineBreak {
                    assert_eq!((u.url[ds], de), (b'-', ds + 1), "{d:?}: {}", ctx());
                    let after =
                        input[fa + 1..].iter().find(|&&b| !matches!(b, b' ' | b'\t' | 0x0b | 0x0c));
                    assert!(
                        matches!(after, Some(b'\n' | b'\r')),
                        "hyphen {d:?} not at a line break: {}",
                        ctx()
                    );
                    hyphens.push(ds);
                }
            }
            match d.code {
                Code::HyphenLineBreak => {
                    // A template keeps no form: it may have been a wrapper.
                    let bracketed = u.kind.is_bracketed() || u.kind == Kind::Template;
                    assert!(bracketed, "hyphen break outside brackets: {}", ctx());
                }
                Code::UnclosedWrapper => {
                    let bracketed = u.kind.is_bracketed() || u.kind == Kind::Template;
                    assert!(bracketed, "unclosed bare URL: {}", ctx());
                    assert_eq!((d.start, d.end), (0, n), "{d:?}: {}", ctx());
                    unclosed = true;
                }
                Code::UrlTooLong => {
                    assert_eq!((d.start, d.end), (n - 1, n), "{d:?}: {}", ctx());
                    too_long = true;
                }
                _ => {}
            }
        }
        // Inline markers (README, "urlsift: ignore") silence findings.
        let silenced = {
            let (mut line, block) = (silence(input, &starts, s, t), blocks(input, s));
            line.any |= block.any;
            line.all |= block.all;
            line.codes.extend(block.codes);
            line
        };
        // Reported: not silenced by a marker, and not left off by the
        // default profile (modern leaves `hyphen-line-break` to
        // `alternatives`).
        let loud = |c: Code| !silenced.covers(c) && c.severity_in(grammar).is_some();
        for f in &u.findings {
            assert!(
                loud(f.diagnostic.code),
                "{:?} was silenced by a marker: {}",
                f.diagnostic,
                ctx()
            );
        }
        if joined {
            // Checked above: the cut reading.
        } else if loud(Code::HyphenLineBreak) {
            let want_alt: Vec<Vec<u8>> = if hyphens.is_empty() {
                Vec::new()
            } else {
                vec![
                    u.url
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| !hyphens.contains(j))
                        .map(|(_, &b)| b)
                        .collect(),
                ]
            };
            assert_eq!(u.alternatives, want_alt, "alternatives: {}", ctx());
        } else {
            // The warning is silenced, not the reading: an alternative is
            // still the URL less some of its hyphens.
            assert!(u.alternatives.len() <= 1, "alternatives: {}", ctx());
            for a in &u.alternatives {
                let mut rest = a.iter().peekable();
                let mut dropped = 0;
                for &b in &u.url {
                    if rest.peek() == Some(&&b) {
                        rest.next();
                    } else {
                        assert_eq!(b, b'-', "alternative drops more than hyphens: {}", ctx());
                        dropped += 1;
                    }
                }
                assert!(rest.peek().is_none() && dropped > 0, "alternative {}: {}", show(a), ctx());
            }
        }

        // The validator's verdict, unchanged by extraction.
        let v = e.validators[usize::from(grammar == Grammar::Rfc1738)].validate(&u.url);
        // validate() reports every place on its own; extraction merges
        // the places of one code (issue 14): compared place by place.
        let mut got: Vec<_> = u
            .findings
            .iter()
            .filter(|f| !is_extraction_code(f.diagnostic.code))
            .flat_map(|f| {
                let d = &f.diagnostic;
                d.spans().map(|(s, e)| (s, e, d.code.to_string(), d.severity.to_string()))
            })
            .collect();
        // A template is not validated: nothing but extraction findings.
        let template = u.kind == Kind::Template;
        let mut want: Vec<_> = v
            .diagnostics
            .iter()
            .filter(|d| loud(d.code) && !template)
            .map(|d| (d.start, d.end, d.code.to_string(), d.severity.to_string()))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "findings differ from validate(): {}", ctx());
        let errors =
            u.findings.iter().any(|f| f.diagnostic.severity == urlsift::diag::Severity::Error);
        assert_eq!(u.is_valid(), !errors, "is_valid: {}", ctx());
        if !silenced.any {
            let valid = v.is_valid() || template;
            assert_eq!(u.is_valid(), valid && !unclosed && !too_long, "is_valid: {}", ctx());
        }
    }

    check_pieces(input);

    // Streaming in small windows gives the same answer, excerpts aside.
    let mut windows = vec![1 + input.len() % 13, 64];
    if input.len() < 512 {
        windows.push(1);
    }
    let with_excerpts = excerpts.extract(input);
    for w in windows {
        let mut scratch = Scratch::with_window(w);
        let mut streamed = Vec::new();
        let stats = excerpts
            .extract_reader(input, &mut scratch, |x| streamed.push(x))
            .expect("reading a slice cannot fail");
        assert_eq!(stats.bytes, input.len() as u64, "window {w}: bytes of {}", show(input));
        assert_eq!(stats.urls, streamed.len() as u64, "window {w}: count of {}", show(input));
        if let Some(i) = (0..with_excerpts.len().max(streamed.len()))
            .find(|&i| with_excerpts.get(i) != streamed.get(i))
        {
            panic!(
                "window {w}: #{i} differs from extract()\n  extract: {:?}\n  stream:  {:?}\n  in {}",
                with_excerpts.get(i),
                streamed.get(i),
                show(input)
            );
        }
    }
    // Excerpts change nothing else, and each is the line of its finding
    // (a window of it when long).
    assert_eq!(with_excerpts.len(), urls.len(), "excerpts changed the count: {}", show(input));
    for (a, b) in with_excerpts.iter().zip(&urls) {
        let mut a = a.clone();
        for f in &mut a.findings {
            let at = f.start.offset as usize;
            let ls = starts[starts.partition_point(|&x| x <= at) - 1];
            let le = input[at..]
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
                .map_or(input.len(), |i| at + i);
            let (want, column) = excerpt_naive(input, ls, le, at);
            assert_eq!(f.excerpt.as_deref(), Some(want), "excerpt of {}", show(input));
            assert_eq!(f.excerpt_column, column, "excerpt column in {}", show(input));
            let i = (f.start.column - f.excerpt_column) as usize;
            assert_eq!(want[i], input[at], "the finding is not at its column of the excerpt");
            f.excerpt = None;
            f.excerpt_column = 1;
        }
        assert_eq!(&a, b, "excerpts changed a URL: {}", show(input));
    }
    urls
}

/// What a found URL is, in absolute offsets: kind, text, where each text
/// byte came from, hyphen breaks, how it ended, where scanning resumed.
type Placed = (Kind, Vec<u8>, Vec<usize>, Vec<usize>, (bool, bool, bool), usize, usize, Joined);

/// A join as found: where the tails start in the text, the cut reading's
/// length, whether it is sure; and whether the scheme was glued.
type Joined = (Vec<usize>, usize, bool, bool);

fn placed(f: &Found, base: usize) -> Placed {
    (
        f.kind,
        f.text.clone(),
        (0..f.text.len()).map(|t| base + f.source_of(t)).collect(),
        f.hyphen_breaks.clone(),
        (f.closed, f.overlong, f.truncated),
        base + f.next,
        base + f.trigger,
        (f.joins.clone(), f.unjoined, f.join_sure, f.glued),
    )
}

/// The scanner fed the way a stream feeds a line too long for a window:
/// windows that end anywhere (inside a line, a URL, a UTF-8 sequence),
/// each scan resuming where the last stopped, and all but a little
/// context before that dropped, with `Lead` carrying the dropped part of
/// the line. It must find exactly what one scan of the whole input finds.
/// (`Sifter::extract_reader` cuts lines this way only past 17 KB, more
/// than a fuzz input; this reaches the same code at any size.)
pub fn check_pieces(input: &[u8]) {
    let scanner = Scanner::new();
    let mut whole = Vec::new();
    scanner.scan(input, 0, true, &mut whole);
    let whole: Vec<Placed> = whole.iter().map(|f| placed(f, 0)).collect();
    for (step, context) in [(1 + input.len() % 7, 64), (16, 40), (1, 64)] {
        if step == 1 && input.len() > 512 {
            continue;
        }
        let mut got = Vec::new();
        let (mut base, mut filled) = (0, 0);
        let mut at = Resume { from: 0, floor: 0 };
        let mut lead = Lead::default();
        let mut found = Vec::new();
        loop {
            filled = (filled + step).min(input.len());
            let eof = filled == input.len();
            let hay = &input[base..filled];
            let outcome = scanner.scan_from(hay, &mut at, eof, lead, &mut found);
            got.extend(found.drain(..).map(|f| placed(&f, base)));
            let resume = match outcome {
                Outcome::Done if eof => break,
                Outcome::Done => hay.len(),
                Outcome::NeedMore(a) => a,
            };
            let mut keep = resume.saturating_sub(context);
            if keep > 0 && hay[keep - 1] == b'\r' && hay.get(keep) == Some(&b'\n') {
                keep -= 1;
            }
            lead = lead.after(&hay[..keep]);
            base += keep;
            at = Resume { from: resume - keep, floor: at.floor.saturating_sub(keep) };
        }
        assert!(
            got == whole,
            "scanning in pieces of {step} (context {context}) differs from one scan\n  pieces: {got:?}\n  whole:  {whole:?}\n  in {}",
            show(input)
        );
    }
}

/// Validates `url` in every profile and checks that the fast and full
/// paths agree and every span is inside the URL.
pub fn check_validate(url: &[u8]) {
    let e = engines();
    for v in &e.validators {
        let g = v.grammar();
        let full = v.validate(url);
        assert_eq!(
            v.is_valid(url),
            full.is_valid(),
            "{g:?}: is_valid vs validate of {}",
            show(url)
        );
        let mut d = Vec::new();
        v.diagnose(url, &mut d);
        assert_eq!(d, full.diagnostics, "{g:?}: diagnose vs validate of {}", show(url));
        let mut prev = 0;
        for d in &full.diagnostics {
            assert!(d.start <= d.end && d.end <= url.len(), "{g:?}: {d:?} outside {}", show(url));
            assert!(d.start >= prev, "{g:?}: diagnostics not sorted in {}", show(url));
            prev = d.start;
            assert_eq!(d.grammar, Some(g), "{g:?}: {d:?} names no grammar in {}", show(url));
            assert!(!d.message.is_empty(), "{g:?}: {d:?} has no message");
            if !KNOWN_BUG_CONTROLS_IN_MESSAGES {
                // One line, and nothing a terminal would act on: `lint`
                // prints messages as they are.
                assert!(
                    !d.message.chars().any(char::is_control),
                    "{g:?}: {d:?}: a control character in the message"
                );
            }
            if let Some(fix) = &d.fix {
                assert_ne!(fix.as_bytes(), url, "{g:?}: {d:?}: the fix changes nothing");
            }
        }
        let mut prev = 0;
        for c in &full.components {
            assert!(c.start <= c.end && c.end <= url.len(), "{g:?}: {c:?} outside {}", show(url));
            assert!(c.start >= prev, "{g:?}: components not sorted in {}", show(url));
            prev = c.start;
        }
        if url.is_empty() {
            assert!(!full.is_valid(), "the empty URL is valid");
        }
    }
    // A URL valid under the default profile (the extraction's) round-trips
    // through the recommended wrapper: found once, as itself, with the
    // same verdict. (The scanner reads a wrapper opening on punctuation as
    // prose, by design.)
    if e.validators[0].is_valid(url) && url[0].is_ascii_alphanumeric() {
        let mut text = b"<URL:".to_vec();
        text.extend_from_slice(url);
        text.push(b'>');
        let found = check_extract(&text);
        assert_eq!(
            found.len(),
            1,
            "a valid URL in <URL:...> found {} times: {}",
            found.len(),
            show(url)
        );
        assert_eq!(found[0].url, url, "a valid URL in <URL:...> came back changed");
        let form = if urlsift::extract::is_template(url) { Kind::Template } else { Kind::Wrapped };
        assert_eq!(found[0].kind, form);
        assert!(found[0].is_valid(), "valid alone, invalid in a wrapper: {}", show(url));
    }
}
