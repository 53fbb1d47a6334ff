//! From found URLs to reported ones: the [`Sifter`] runs the scanner over a
//! whole input (a slice or a stream read in bounded windows), validates
//! each URL, adds the extraction diagnostics (unclosed wrapper, ambiguous
//! hyphen) and maps every offset back to a line and column in the source.

use std::io::{self, Read};

use memchr::memrchr2;

use crate::diag::{Code, Diagnostic, Grammar, Severity};
use crate::rules::{Validation, Validator};
use crate::scan::{Found, Kind, Outcome, Scanner};
use crate::span::{LineCursor, Position};

/// Library knobs shared by every entry point.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which URL grammar the validator applies.
    pub grammar: Grammar,
    /// Severity overrides by code; `None` turns a code off.
    pub severities: Vec<(Code, Option<Severity>)>,
    /// Keep the source line of each finding (for excerpts with a caret).
    pub excerpts: bool,
    /// When non-empty, URLs of other schemes get `scheme-not-allowed`.
    pub allow_schemes: Vec<String>,
    /// URLs of these schemes get `scheme-not-allowed`.
    pub deny_schemes: Vec<String>,
    /// Regular expressions: a URL matching one is not reported at all.
    pub ignore_urls: Vec<String>,
}

/// One URL as reported: text, form, exact positions, alternatives and
/// diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extracted {
    /// The URL (whitespace of a rejoined wrapper removed). Raw bytes: text
    /// is not always UTF-8.
    pub url: Vec<u8>,
    /// How it was written.
    pub kind: Kind,
    /// Where its first byte is in the source.
    pub start: Position,
    /// Where its last byte is in the source.
    pub end: Position,
    /// Other readings: the URL without the hyphens that stood at line breaks.
    pub alternatives: Vec<Vec<u8>>,
    /// What is wrong or notable, sorted by position in the URL.
    pub findings: Vec<Finding>,
}

impl Extracted {
    /// True when no finding has severity error.
    pub fn is_valid(&self) -> bool {
        self.findings.iter().all(|f| f.diagnostic.severity != Severity::Error)
    }

    /// The URL as text, with any invalid UTF-8 replaced by U+FFFD.
    pub fn url_lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.url)
    }
}

/// A diagnostic placed in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The diagnostic; its `start..end` are offsets in the URL text.
    pub diagnostic: Diagnostic,
    /// Source position of the diagnostic's first byte.
    pub start: Position,
    /// Source position of the diagnostic's last byte.
    pub end: Position,
    /// The source line holding `start`, without its line break, when
    /// [`Options::excerpts`] asked for it.
    pub excerpt: Option<Vec<u8>>,
}

/// Counts for one input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes read.
    pub bytes: u64,
    /// URLs reported.
    pub urls: u64,
}

/// Which part of an input [`Sifter::extract_span`] scans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Absolute offset of the reader's first byte: a line start.
    pub base: u64,
    /// Where scanning starts (>= `base`); bytes before it are context.
    pub from: u64,
    /// Report only URLs that start before this offset.
    pub stop: Option<u64>,
}

/// What [`Sifter::extract_span`] saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpanStats {
    /// Bytes read (relative to `base`); may run past `stop`.
    pub bytes: u64,
    /// URLs reported.
    pub urls: u64,
    /// Line breaks in `base..stop` (0 without `stop`).
    pub lines: u64,
    /// Where scanning would go on after the last URL reported (past its
    /// closing `>`), or `from` if there was none: the next part's scan
    /// must not start before it.
    pub resume: u64,
}

/// The compiled engine: scanner, validator and options. Immutable and
/// `Send + Sync`; share one across threads. Per-thread state lives in
/// [`Scratch`].
#[derive(Debug)]
pub struct Sifter {
    scanner: Scanner,
    validator: Validator,
    severities: Vec<(Code, Option<Severity>)>,
    excerpts: bool,
    allow_schemes: Vec<String>,
    deny_schemes: Vec<String>,
    ignore_urls: Option<regex_automata::meta::Regex>,
}

/// Reusable buffers for one thread.
#[derive(Debug, Default)]
pub struct Scratch {
    buf: Vec<u8>,
    found: Vec<Found>,
    diags: Vec<Diagnostic>,
    window: usize,
}

impl Scratch {
    /// Scratch that reads `window` bytes at a time (default 1 MiB). Small
    /// windows are for tests that put wrappers across window edges.
    pub fn with_window(window: usize) -> Scratch {
        Scratch { window: window.max(1), ..Scratch::default() }
    }
}

/// How much a streamed read asks for at a time. Large enough that the
/// per-window overhead (a read call, one `memrchr`) vanishes next to the
/// scan, small enough that the kernel's copy lands in L2 and the scan reads
/// it from there (1 MiB windows made the copy a third slower).
const WINDOW: usize = 256 << 10;

impl Sifter {
    /// Builds the engine (compiles the grammar automata once).
    ///
    /// # Panics
    ///
    /// If a pattern in `ignore_urls` is not a valid regular expression;
    /// [`Sifter::try_new`] reports that as an error instead.
    pub fn new(options: Options) -> Sifter {
        Sifter::try_new(options).expect("invalid ignore_urls pattern")
    }

    /// Builds the engine, or says which `ignore_urls` pattern is invalid.
    pub fn try_new(options: Options) -> Result<Sifter, String> {
        let ignore_urls = if options.ignore_urls.is_empty() {
            None
        } else {
            Some(
                regex_automata::meta::Regex::new_many(&options.ignore_urls)
                    .map_err(|e| format!("bad URL pattern: {e}"))?,
            )
        };
        Ok(Sifter {
            scanner: Scanner::new(),
            validator: Validator::new(options.grammar),
            severities: options.severities,
            excerpts: options.excerpts,
            allow_schemes: options.allow_schemes,
            deny_schemes: options.deny_schemes,
            ignore_urls,
        })
    }

    /// The validator, for checking single URLs.
    pub fn validator(&self) -> &Validator {
        &self.validator
    }

    /// Validates one URL and applies the severity overrides.
    pub fn check(&self, url: &[u8]) -> Validation {
        let mut v = self.validator.validate(url);
        self.apply_severities(&mut v.diagnostics);
        v
    }

    /// Every URL in `hay`, in order.
    pub fn extract(&self, hay: &[u8]) -> Vec<Extracted> {
        let mut out = Vec::new();
        let mut scratch = Scratch::default();
        let mut cursor = LineCursor::new();
        let outcome = self.scanner.scan(hay, 0, true, &mut scratch.found);
        debug_assert_eq!(outcome, Outcome::Done);
        for f in std::mem::take(&mut scratch.found) {
            out.extend(self.finish(&f, hay, 0, &mut cursor, &mut scratch.diags));
        }
        out
    }

    /// Streams `reader` through the scanner in bounded windows and hands
    /// each URL to `sink` in order. Memory is bounded by the window size
    /// and the longest line (or unclosed paragraph), not the input size.
    pub fn extract_reader<R: Read>(
        &self,
        reader: R,
        scratch: &mut Scratch,
        sink: impl FnMut(Extracted),
    ) -> io::Result<Stats> {
        let span = Span { base: 0, from: 0, stop: None };
        let s = self.extract_span(reader, span, scratch, sink)?;
        Ok(Stats { bytes: s.bytes, urls: s.urls })
    }

    /// Like [`Sifter::extract_reader`], for a part of a larger input, so
    /// that one big file can be scanned by several threads.
    ///
    /// `reader` starts at absolute offset `span.base`, which must be a line
    /// start; lines are counted from 1 there (the caller adds the lines
    /// before it). Scanning starts at `span.from`; with `span.stop`, only
    /// URLs that start before it are reported, though they may run past
    /// it (a wrapper broken across the boundary), and reading stops soon
    /// after it.
    pub fn extract_span<R: Read>(
        &self,
        mut reader: R,
        span: Span,
        scratch: &mut Scratch,
        mut sink: impl FnMut(Extracted),
    ) -> io::Result<SpanStats> {
        let mut stats = Stats::default();
        let mut resume = span.from;
        let stop = span.stop.unwrap_or(u64::MAX);
        // Counts the line breaks in `base..stop`; only needed for parts.
        let mut counter = LineCursor::starting_at(span.base);
        // `buf[..filled]` holds data; the rest is initialised spare room, so
        // refills never zero memory again.
        let mut buf = std::mem::take(&mut scratch.buf);
        let mut filled = 0usize;
        let mut base = span.base;
        let mut from = (span.from - span.base) as usize;
        let mut cursor = LineCursor::starting_at(span.base);
        let window = if scratch.window == 0 { WINDOW } else { scratch.window };
        // A part reads little past its end: only what a URL crossing the
        // cut needs (more comes on demand).
        let window_for = |base: u64, filled: usize| match span.stop {
            Some(stop) => window.min((stop.saturating_sub(base + filled as u64) as usize) + 4096),
            None => window,
        };
        let mut want = window_for(base, 0);
        let result = loop {
            let eof = match fill(&mut reader, &mut buf, &mut filled, want) {
                Ok(eof) => eof,
                Err(e) => break Err(e),
            };
            stats.bytes = base + filled as u64 - span.base;
            if from > filled {
                // A rescan that starts past a long wrapper: read up to it
                // first (the bytes before it are context, and counted).
                if eof {
                    break Ok(stats);
                }
                want = want.max(from - filled + window);
                continue;
            }
            let hay = &buf[..filled];
            let limit = if eof {
                filled
            } else {
                match memrchr2(b'\n', b'\r', &hay[from..]) {
                    Some(i) => from + i + 1,
                    // One line longer than the window: read on until it ends.
                    None => {
                        want = want.max(filled);
                        continue;
                    }
                }
            };
            let outcome = self.scanner.scan(&hay[..limit], from, eof, &mut scratch.found);
            for f in scratch.found.drain(..) {
                // A part owns the URLs whose form opens in it, even when
                // the URL text itself starts on the next line.
                if base + f.trigger as u64 >= stop {
                    continue;
                }
                resume = base + f.next as u64;
                if let Some(e) = self.finish(&f, hay, base, &mut cursor, &mut scratch.diags) {
                    stats.urls += 1;
                    sink(e);
                }
            }
            if span.stop.is_some() && counter.offset() < stop {
                counter.advance(hay, base, stop.min(base + limit as u64));
            }
            let done = matches!(outcome, Outcome::Done) && base + limit as u64 >= stop;
            let resume_at = match outcome {
                Outcome::Done if eof || done => break Ok(stats),
                Outcome::Done => {
                    want = window_for(base, filled);
                    limit
                }
                Outcome::NeedMore(at) => {
                    // Grow geometrically so a wrapper spanning many windows
                    // is rescanned O(log n) times, not once per window.
                    want = want.max(filled);
                    at
                }
            };
            // Keep the line before the resume point too: an inline
            // `urlsift: ignore` marker there applies to the next line.
            let keep = prev_line_start(hay, line_start(hay, resume_at));
            if cursor.offset() < base + keep as u64 {
                cursor.advance(hay, base, base + keep as u64);
            }
            buf.copy_within(keep..filled, 0);
            filled -= keep;
            base += keep as u64;
            from = resume_at - keep;
        };
        scratch.buf = buf;
        let stats = result?;
        let lines = match span.stop {
            Some(stop) if counter.offset() == stop => counter.line() - 1,
            _ => 0,
        };
        Ok(SpanStats { bytes: stats.bytes, urls: stats.urls, lines, resume })
    }

    /// Validates a found URL and places it and its diagnostics.
    fn finish(
        &self,
        f: &Found,
        hay: &[u8],
        base: u64,
        cursor: &mut LineCursor,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Extracted> {
        if self.ignore_urls.as_ref().is_some_and(|re| re.is_match(&f.text)) {
            return None;
        }
        diags.clear();
        let mut alternatives = Vec::new();
        if !f.closed {
            diags.push(Diagnostic::new(
                Code::UnclosedWrapper,
                0,
                f.text.len(),
                format!(
                    "`{}` is not closed by `>` before the end of input, a blank line or the \
                     next `<`; only its first line is taken",
                    opener(f.kind)
                ),
            ));
        }
        if !f.hyphen_breaks.is_empty() {
            let alt: Vec<u8> = f
                .text
                .iter()
                .enumerate()
                .filter(|(i, _)| f.hyphen_breaks.binary_search(i).is_err())
                .map(|(_, &b)| b)
                .collect();
            let verdict = match (self.validator.is_valid(&f.text), self.validator.is_valid(&alt)) {
                (true, false) => format!(
                    "; only the form with the hyphen is valid under {}",
                    self.validator.grammar().as_str()
                ),
                (false, true) => format!(
                    "; only the form without the hyphen is valid under {}",
                    self.validator.grammar().as_str()
                ),
                _ => String::new(),
            };
            for &h in &f.hyphen_breaks {
                diags.push(Diagnostic::new(
                    Code::HyphenLineBreak,
                    h,
                    h + 1,
                    format!(
                        "line break right after `-`: the hyphen may be the typesetter's, \
                         not the URL's; also read as `{}`{verdict}",
                        String::from_utf8_lossy(&alt)
                    ),
                ));
            }
            alternatives.push(alt);
        }
        self.validator.diagnose(&f.text, diags);
        self.check_scheme(&f.text, diags);
        self.apply_severities(diags);
        if !diags.is_empty() {
            let at = f.start();
            let ls = line_start(hay, at);
            let lines = [line_at(hay, at), line_at(hay, prev_line_start(hay, ls).min(at))];
            suppress(&lines[..if ls > 0 { 2 } else { 1 }], diags);
        }
        diags.sort_by_key(|d| (d.start, d.end));

        let mut marks: Vec<usize> = Vec::with_capacity(2 + 2 * diags.len());
        marks.push(0);
        marks.push(f.text.len() - 1);
        for d in diags.iter() {
            let last = f.text.len() - 1;
            marks.push(d.start.min(last));
            marks.push(d.end.saturating_sub(1).max(d.start).min(last));
        }
        marks.sort_unstable();
        marks.dedup();
        let start = cursor.advance(hay, base, base + f.start() as u64);
        let mut local = cursor.clone();
        let positions: Vec<Position> =
            marks.iter().map(|&t| local.advance(hay, base, base + f.source_of(t) as u64)).collect();
        let at = |t: usize| positions[marks.binary_search(&t).expect("offset was marked")];
        let last = f.text.len() - 1;
        let findings = diags
            .drain(..)
            .map(|d| {
                let s = d.start.min(last);
                let e = d.end.saturating_sub(1).max(d.start).min(last);
                let excerpt = self.excerpts.then(|| line_at(hay, f.source_of(s)).to_vec());
                Finding { start: at(s), end: at(e), diagnostic: d, excerpt }
            })
            .collect();
        Some(Extracted {
            url: f.text.clone(),
            kind: f.kind,
            start,
            end: at(last),
            alternatives,
            findings,
        })
    }

    /// `[schemes] allow/deny` of the configuration.
    fn check_scheme(&self, url: &[u8], diags: &mut Vec<Diagnostic>) {
        if self.allow_schemes.is_empty() && self.deny_schemes.is_empty() {
            return;
        }
        let Some(colon) = memchr::memchr(b':', url) else { return };
        let scheme = String::from_utf8_lossy(&url[..colon]).to_ascii_lowercase();
        let denied = self.deny_schemes.contains(&scheme)
            || (!self.allow_schemes.is_empty() && !self.allow_schemes.contains(&scheme));
        if denied {
            diags.push(Diagnostic::new(
                Code::SchemeNotAllowed,
                0,
                colon,
                format!("scheme `{scheme}` is not allowed by the configuration"),
            ));
        }
    }

    fn apply_severities(&self, diags: &mut Vec<Diagnostic>) {
        if self.severities.is_empty() {
            return;
        }
        diags.retain_mut(|d| match self.severities.iter().find(|(c, _)| *c == d.code) {
            Some((_, None)) => false,
            Some((_, Some(s))) => {
                d.severity = *s;
                true
            }
            None => true,
        });
    }
}

fn opener(kind: Kind) -> &'static str {
    match kind {
        Kind::Wrapped => "<URL:",
        _ => "<",
    }
}

/// Start of the line holding `at`.
fn line_start(hay: &[u8], at: usize) -> usize {
    memrchr2(b'\n', b'\r', &hay[..at]).map_or(0, |i| i + 1)
}

/// Start of the line before the one starting at `ls` (`ls` itself at the
/// start of the window).
fn prev_line_start(hay: &[u8], ls: usize) -> usize {
    if ls == 0 {
        return 0;
    }
    let mut end = ls - 1;
    if hay[end] == b'\n' && end > 0 && hay[end - 1] == b'\r' {
        end -= 1;
    }
    line_start(hay, end)
}

/// The inline suppression marker: `urlsift: ignore` silences every
/// finding of the URLs on its line and the next; `urlsift: ignore[a,b]`
/// only the codes named.
const MARKER: &[u8] = b"urlsift: ignore";

/// Drops the findings that a marker on one of `lines` silences.
fn suppress(lines: &[&[u8]], diags: &mut Vec<Diagnostic>) {
    for line in lines {
        let Some(i) = memchr::memmem::find(line, MARKER) else { continue };
        let rest = &line[i + MARKER.len()..];
        match rest.strip_prefix(b"[") {
            Some(list) => {
                let list = &list[..memchr::memchr(b']', list).unwrap_or(list.len())];
                let codes: Vec<&[u8]> =
                    list.split(|&b| b == b',').map(|c| c.trim_ascii()).collect();
                diags.retain(|d| !codes.contains(&d.code.as_str().as_bytes()));
            }
            None => diags.clear(),
        }
    }
}

/// The line holding `at`, without its line break.
fn line_at(hay: &[u8], at: usize) -> &[u8] {
    let start = memrchr2(b'\n', b'\r', &hay[..at]).map_or(0, |i| i + 1);
    let end = memchr::memchr2(b'\n', b'\r', &hay[at..]).map_or(hay.len(), |i| at + i);
    &hay[start..end]
}

/// Reads up to `want` more bytes into `buf[*filled..]`, growing `buf` if
/// needed; true at end of input.
fn fill<R: Read>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    filled: &mut usize,
    want: usize,
) -> io::Result<bool> {
    let target = *filled + want;
    if buf.len() < target {
        buf.resize(target, 0);
    }
    while *filled < target {
        match reader.read(&mut buf[*filled..target]) {
            Ok(0) => return Ok(true),
            Ok(n) => *filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(false)
}
