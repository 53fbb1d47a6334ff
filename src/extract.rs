//! From found URLs to reported ones: the [`Sifter`] runs the scanner over a
//! whole input (a slice or a stream read in bounded windows), validates
//! each URL, adds the extraction diagnostics (unclosed wrapper, ambiguous
//! hyphen) and maps every offset back to a line and column in the source.

use std::io::{self, Read};

use memchr::memmem::Finder;
use memchr::{memchr2, memrchr2};

use crate::diag::{Code, Diagnostic, Grammar, Severity};
use crate::doc::Format;
use crate::markers::{Blocks, DIRECTIVE, MARKER, leads, line_marker};
use crate::rules::{Validation, Validator};
use crate::scan::{Found, Kind, Lead, MAX_URL, Outcome, Resume, Scanner};
use crate::span::{LineCursor, Position};

/// Library knobs shared by every entry point.
///
/// ```
/// use urlsift::diag::{Code, Grammar};
/// use urlsift::extract::{Options, Sifter};
///
/// // RFC 1738 as written, without the note about default ports.
/// let options = Options {
///     grammar: Grammar::Rfc1738,
///     severities: vec![(Code::from_name("default-port").unwrap(), None)],
///     ..Options::default()
/// };
/// let urls = Sifter::new(options).extract(b"<URL:http://h.example:80/~me/>");
/// let codes: Vec<String> = urls[0].findings.iter().map(|f| f.diagnostic.code.to_string()).collect();
/// assert_eq!(codes, ["unsafe-character"]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which URL grammar the validator applies.
    pub grammar: Grammar,
    /// Severity overrides by code; `None` turns a code off.
    pub severities: Vec<(Code, Option<Severity>)>,
    /// Keep an excerpt of the source line of each finding (for a caret
    /// under it): see [`Finding::excerpt`].
    pub excerpts: bool,
    /// When non-empty, URLs of other schemes get `scheme-not-allowed`.
    pub allow_schemes: Vec<String>,
    /// URLs of these schemes get `scheme-not-allowed`.
    pub deny_schemes: Vec<String>,
    /// Regular expressions: a URL matching one is not reported at all.
    pub ignore_urls: Vec<String>,
    /// File extensions read as another format than their own (`txt` read
    /// as Markdown): `(extension, format)`, extension without its dot.
    pub formats: Vec<(String, Format)>,
    /// Other grammars whose findings are shown too, as notes, where the
    /// `grammar` gives none like them (`--show rfc1738`): an archive user
    /// finds every RFC 1738 violation in one pass.
    pub show: Vec<Grammar>,
    /// `(glob, grammar)`: files whose path matches the glob are validated
    /// against that grammar instead; the first match wins (see
    /// [`Sifter::for_path`]). A glob without `/` matches a file name at
    /// any depth; one with `/` matches the path from `glob_base`.
    pub grammar_for: Vec<(String, Grammar)>,
    /// The directory `grammar_for` globs are relative to (where
    /// urlsift.toml is); `None`: paths as given, without a leading `./`.
    pub glob_base: Option<std::path::PathBuf>,
    /// Fill [`Extracted::rejected_by`] only for URLs with findings, and
    /// leave it empty for the others: it costs a DFA walk per URL and
    /// grammar, and only `extract --json` prints it for every URL.
    pub rejected_by_findings_only: bool,
    /// Whether documents' relative links and `file:` URLs are checked on
    /// disk, or listed (see [`crate::links`]).
    pub local_links: crate::links::LinkOptions,
    /// What online checks found, by URL (see [`Verdicts`]): each URL
    /// with a verdict gets it as one more finding, wherever it occurs.
    pub online: Option<std::sync::Arc<Verdicts>>,
}

/// The findings of online checks (`lint --online`), by URL text: the
/// diagnostic spans the whole URL. Built by `urlsift::online` (with the
/// `cli` feature), or by any caller that checked the links itself.
pub type Verdicts = std::collections::HashMap<Vec<u8>, Diagnostic>;

/// One URL as reported: text, form, exact positions, alternatives and
/// diagnostics.
///
/// ```
/// use urlsift::extract::{Options, Sifter};
/// use urlsift::scan::Kind;
///
/// let urls = Sifter::new(Options::default()).extract(b"see http://h.example:99999/ now");
/// let u = &urls[0];
/// assert_eq!((u.url.as_slice(), u.kind), (&b"http://h.example:99999/"[..], Kind::Bare));
/// assert_eq!((u.start.line, u.start.column, u.end.column), (1, 5, 27));
/// assert!(!u.is_valid());
/// let f = &u.findings[0];
/// assert_eq!(f.diagnostic.code.to_string(), "port-range");
/// // The finding's place in the file: the port.
/// assert_eq!((f.start.column, f.end.column), (22, 26));
/// ```
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
    /// Found in code (a Markdown code span or block, HTML `<pre>` or
    /// `<code>`, a POD `C<...>`): an example rather than a link, so `lint`
    /// passes over it unless asked to include code.
    pub in_code: bool,
    /// How the reading was arrived at, when it is not the plain one:
    /// `glued-scheme` (the scheme was cut from the word it was glued to),
    /// `line-break-joined` (a bare URL joined across a line break).
    pub notes: Vec<&'static str>,
    /// The URL's text is, byte for byte, what the input holds from `start`
    /// to `end`: it was read from one stretch of the file, not rejoined
    /// across a line break or out of a wrapper's whitespace, and not
    /// decoded (HTML entities, escapes, quoted-printable, a charset).
    /// Only then may a tool put a [`Diagnostic::fix`] in place of those
    /// bytes (SARIF's `fixes`).
    pub verbatim: bool,
    /// For a URL rejoined from several runs of the file's own bytes (a
    /// wrapper or a bare URL broken across lines), where each run starts:
    /// `(offset in url, offset in the file)`. Empty for a URL of one run
    /// (see `verbatim`) and for one read through a decoding layer (a
    /// document's markup, mail), whose runs are not the file's bytes.
    pub pieces: Vec<(u64, u64)>,
    /// The grammars (of [`Grammar::ALL`]) under which the URL is not
    /// valid, whatever the one it was checked against; empty for a
    /// template, which is not validated, and for a URL without findings
    /// when [`Options::rejected_by_findings_only`] is set.
    pub rejected_by: Vec<Grammar>,
    /// For a link of a document that names a local file (a relative link,
    /// or a `file:` URL), where it leads, when [`Options::local_links`]
    /// asks: see [`crate::links`]. A relative link has no scheme, so it
    /// is no URL: [`Extracted::is_relative`].
    pub local: Option<crate::links::Local>,
}

impl Extracted {
    /// Moves every position `lines` lines down: for a part of a file,
    /// whose lines were counted from its own start.
    pub(crate) fn shift_lines(&mut self, lines: u64) {
        self.start.line += lines;
        self.end.line += lines;
        for f in &mut self.findings {
            f.start.line += lines;
            f.end.line += lines;
            for (s, e) in &mut f.extra_spans {
                s.line += lines;
                e.line += lines;
            }
        }
    }

    /// True when no finding has severity error.
    pub fn is_valid(&self) -> bool {
        self.findings.iter().all(|f| f.diagnostic.severity != Severity::Error)
    }

    /// Whether this is a document's relative link (no scheme, no URL),
    /// handed out by the local-link check rather than found as a URL.
    pub fn is_relative(&self) -> bool {
        self.local.is_some() && crate::doc::scheme_len(&self.url).is_none()
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
    /// When [`Options::excerpts`] asked for it: the source line holding
    /// `start`, without its line break, or, when the line is longer than
    /// [`EXCERPT`] bytes, a window of `EXCERPT` bytes of it around `start`
    /// (about a third of it before; never starting or ending inside a
    /// UTF-8 sequence). So one long line with many findings costs a few
    /// hundred bytes per finding, not a copy of the line each.
    pub excerpt: Option<Vec<u8>>,
    /// The 1-based column of the excerpt's first byte in its line: 1 when
    /// the excerpt is the whole line. The finding's first byte is at
    /// `excerpt[start.column - excerpt_column]`.
    pub excerpt_column: u64,
    /// Where the diagnostic's [`Diagnostic::extra_spans`] are: the source
    /// positions of each one's first and last byte, in the same order.
    pub extra_spans: Vec<(Position, Position)>,
}

impl Finding {
    /// Every span's source positions (first and last byte): `start..end`,
    /// then [`Finding::extra_spans`].
    pub fn spans(&self) -> impl Iterator<Item = (Position, Position)> + '_ {
        std::iter::once((self.start, self.end)).chain(self.extra_spans.iter().copied())
    }
}

/// The longest excerpt, in bytes: see [`Finding::excerpt`].
pub const EXCERPT: usize = 256;

/// The excerpt of a line for a finding at 1-based `column` of it (see
/// [`Finding::excerpt`]): the part of `line` to show, and the column its
/// first byte is at. `line` is the whole line without its break.
pub fn excerpt_of(line: &[u8], column: u64) -> (&[u8], u64) {
    let at = (column - 1).min(line.len().saturating_sub(1) as u64);
    let (lo, hi) = excerpt_window(line, 0, 0, line.len() as u64, at);
    (&line[lo as usize..hi as usize], lo + 1)
}

/// The excerpt of the line `ls..le` for a finding at `at` (offsets in the
/// source; `hay` holds it from `base`, at least within `EXCERPT` bytes of
/// `at`): the whole line when short, else `EXCERPT` bytes with `at` about
/// a third in, moved off the middle of UTF-8 sequences.
fn excerpt_window(hay: &[u8], base: u64, ls: u64, le: u64, at: u64) -> (u64, u64) {
    let n = EXCERPT as u64;
    if le - ls <= n {
        return (ls, le);
    }
    let lo = ls.max(at.saturating_sub(n / 3));
    let mut hi = le.min(lo + n);
    let mut lo = ls.max(hi - n);
    // A sequence cut at an edge would show as garbage on a terminal.
    let continuation = |x: u64| hay[(x - base) as usize] & 0xc0 == 0x80;
    while lo < at && continuation(lo) {
        lo += 1;
    }
    while hi > at + 1 && hi < le && continuation(hi) {
        hi -= 1;
    }
    (lo, hi)
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
    /// What an `urlsift: ignore-file` marker in the input's head silences
    /// ([`Sifter::file_silence`]), for a span with `base` past the start:
    /// it does not see the head (a span from the start reads it itself).
    pub file: Option<Silence>,
    /// What an `urlsift: disable` block open at `base` silences: a caller
    /// that cuts an input finds the blocks before a cut with
    /// [`Sifter::block_marks`]. Block markers in the span are read here.
    pub disabled: Option<Silence>,
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
    /// One per [`Grammar::ALL`], built once: the profile's own, and the
    /// others for `rejected_by` and `show` (each loads a scheme's DFA only
    /// when a URL of that scheme needs it).
    validators: Vec<Validator>,
    /// Index of the profile's grammar in `validators`.
    own: usize,
    /// Indexes of the grammars whose findings are shown as notes.
    show: Vec<usize>,
    /// `grammar_for`: the same engine with another grammar, per glob.
    children: Vec<(PathGlob, Sifter)>,
    glob_base: Option<std::path::PathBuf>,
    /// The working directory when built, for relative paths under
    /// `glob_base` (asked once, not once per file).
    cwd: Option<std::path::PathBuf>,
    severities: Vec<(Code, Option<Severity>)>,
    excerpts: bool,
    allow_schemes: Vec<String>,
    deny_schemes: Vec<String>,
    ignore_urls: Option<regex_automata::meta::Regex>,
    marker: Finder<'static>,
    /// Block and file markers (`urlsift: disable`, ...).
    directive: Finder<'static>,
    formats: Vec<(String, Format)>,
    rejected_by_findings_only: bool,
    /// The local-link resolver, shared with `children` (one anchor cache
    /// per run), when links are checked or listed.
    local: Option<std::sync::Arc<crate::links::Resolver>>,
    local_check: bool,
    local_list: bool,
    online: Option<std::sync::Arc<Verdicts>>,
}

/// Reusable buffers for one thread.
#[derive(Debug, Default)]
pub struct Scratch {
    /// Spare room for a caller's first read of an input (the driver
    /// sniffs each file's head): a fresh buffer per file made the
    /// allocator consolidate its free lists once per file.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub(crate) head: Vec<u8>,
    buf: Vec<u8>,
    found: Vec<Found>,
    diags: Vec<Diagnostic>,
    /// Where the scan of a window saw `urlsift` before a colon.
    directives: Vec<usize>,
    window: usize,
}

impl Scratch {
    /// Scratch that reads `window` bytes at a time (default 256 KiB).
    /// Small windows are for tests that put wrappers across window edges.
    pub fn with_window(window: usize) -> Scratch {
        Scratch { window: window.max(1), ..Scratch::default() }
    }

    /// Bytes the read buffer holds, for checking that memory stays bounded:
    /// about the window plus one [`MAX_URL`], whatever the input (a line
    /// without breaks included).
    pub fn buffer_capacity(&self) -> usize {
        self.buf.capacity()
    }
}

/// Bytes of context kept before the point where a stream's scan resumes:
/// the scanner looks back at most 38 bytes (a scheme and `URL=<`), and an
/// excerpt at most [`EXCERPT`].
const CONTEXT: usize = 512;

/// How far after a URL's last byte a marker on the URL's own line still
/// counts (README, "Silencing a finding"): far enough for any comment at
/// the end of a line, and a bound on what a window must hold past a URL
/// on a line too long to hold whole.
pub const MARKER_REACH: usize = 16 << 10;

pub use crate::markers::{BlockMark, MARKER_LIST, SPAN as MARKER_SPAN, Silence};

/// What a window must hold past the last byte scanned when it ends inside
/// a line: what the URLs found need to be placed (markers after a URL,
/// excerpts).
const TAIL: usize = MARKER_REACH + MARKER.len() + 1 + MARKER_LIST + 64;

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
        let index = |g: Grammar| Grammar::ALL.iter().position(|&a| a == g).expect("in ALL");
        let links = &options.local_links;
        let local = (links.check || links.list)
            .then(|| std::sync::Arc::new(crate::links::Resolver::new(links.root.clone())));
        let mut children = Vec::new();
        for (glob, grammar) in &options.grammar_for {
            let child = Options {
                grammar: *grammar,
                grammar_for: Vec::new(),
                glob_base: None,
                ..options.clone()
            };
            let mut child = Sifter::try_new(child)?;
            child.local.clone_from(&local);
            children.push((PathGlob::new(glob)?, child));
        }
        let own = index(options.grammar);
        let mut show: Vec<usize> =
            options.show.iter().map(|&g| index(g)).filter(|&i| i != own).collect();
        show.sort_unstable();
        show.dedup();
        let cwd = match (&options.glob_base, children.is_empty()) {
            (Some(_), false) => std::env::current_dir().ok(),
            _ => None,
        };
        Ok(Sifter {
            scanner: Scanner::new(),
            // The profile's own validator carries the severity overrides; the
            // others only say whether a URL is valid under them and, with
            // `show`, what they find.
            validators: Grammar::ALL
                .iter()
                .map(|&g| {
                    if g == options.grammar {
                        Validator::with_severities(g, &options.severities)
                    } else {
                        Validator::new(g)
                    }
                })
                .collect(),
            own,
            show,
            children,
            glob_base: options.glob_base,
            cwd,
            severities: options.severities,
            excerpts: options.excerpts,
            allow_schemes: options.allow_schemes,
            deny_schemes: options.deny_schemes,
            ignore_urls,
            marker: Finder::new(MARKER),
            directive: Finder::new(DIRECTIVE),
            formats: options.formats,
            rejected_by_findings_only: options.rejected_by_findings_only,
            local,
            local_check: options.local_links.check,
            local_list: options.local_links.list,
            online: options.online,
        })
    }

    /// The format an input is read as: see [`Format::of`]; the
    /// extension overrides of [`Options::formats`] apply.
    pub fn format_of(&self, path: Option<&std::path::Path>, head: &[u8]) -> Format {
        Format::of(path, head, &self.formats)
    }

    /// The local-link resolver, and whether links are checked and listed
    /// (see [`Options::local_links`]); `None` when neither.
    pub(crate) fn local_links(&self) -> Option<(&crate::links::Resolver, bool, bool)> {
        self.local.as_deref().map(|r| (r, self.local_check, self.local_list))
    }

    /// Whether findings keep an excerpt of their line.
    pub(crate) fn excerpts(&self) -> bool {
        self.excerpts
    }

    /// The validator, for checking single URLs.
    pub fn validator(&self) -> &Validator {
        &self.validators[self.own]
    }

    /// Validates one URL and applies the severity overrides; the same
    /// problem in several places is one diagnostic (see
    /// [`Diagnostic::extra_spans`]).
    pub fn check(&self, url: &[u8]) -> Validation {
        let mut v = self.validator().validate(url);
        if let Some(d) = self.online.as_ref().and_then(|o| o.get(url)) {
            v.diagnostics.push(d.clone());
        }
        self.apply_severities(&mut v.diagnostics);
        crate::merge::merge(url, &mut v.diagnostics);
        v
    }

    /// The grammars of [`Grammar::ALL`] under which `url` is not valid
    /// (the DFA verdict only: cheap).
    pub fn rejected_by(&self, url: &[u8]) -> Vec<Grammar> {
        self.rejected_by_given(url, !self.validator().is_valid(url))
    }

    /// [`Sifter::rejected_by`] when the profile's own verdict is known.
    fn rejected_by_given(&self, url: &[u8], own_rejects: bool) -> Vec<Grammar> {
        let mut out = Vec::new();
        for (i, v) in self.validators.iter().enumerate() {
            let rejects = if i == self.own { own_rejects } else { !v.is_valid(url) };
            if rejects {
                out.push(Grammar::ALL[i]);
            }
        }
        out
    }

    /// The engine for a file at `path`: the one of the first
    /// [`Options::grammar_for`] glob that matches it, else this one. A
    /// path that is not under [`Options::glob_base`] is matched as given.
    pub fn for_path(&self, path: &std::path::Path) -> &Sifter {
        if self.children.is_empty() {
            return self;
        }
        let path = path.strip_prefix(".").unwrap_or(path);
        let absolute;
        let rel = match (&self.glob_base, &self.cwd) {
            (Some(base), _) if path.is_absolute() => path.strip_prefix(base).unwrap_or(path),
            (Some(base), Some(cwd)) => {
                absolute = cwd.join(path);
                absolute.strip_prefix(base).unwrap_or(path)
            }
            _ => path,
        };
        self.children.iter().find(|(g, _)| g.matches(rel)).map_or(self, |(_, s)| s)
    }

    /// Every URL in `hay`, in order.
    pub fn extract(&self, hay: &[u8]) -> Vec<Extracted> {
        self.extract_edited(hay, true, |_| {})
    }

    /// [`Sifter::extract`], letting `edit` change what the scanner found
    /// before it is validated and placed: a document reader drops what it
    /// read as markup and adds the links it knows exactly. `edit` may
    /// leave the list in any order. `blocks`: whether block and file
    /// markers in `hay` count (a document's are in its comments, which
    /// are not its text: its reader reads them in the file).
    pub(crate) fn extract_edited(
        &self,
        hay: &[u8],
        blocks: bool,
        edit: impl FnOnce(&mut Vec<Found>),
    ) -> Vec<Extracted> {
        let mut out = Vec::new();
        let mut scratch = Scratch::default();
        let mut place = Placer::new(0, blocks.then(|| Blocks::new(0, None, None)));
        let outcome = self.scanner.scan(hay, 0, true, &mut scratch.found);
        debug_assert_eq!(outcome, Outcome::Done);
        edit(&mut scratch.found);
        // The placer only moves forward.
        scratch.found.sort_by_key(Found::start);
        for f in std::mem::take(&mut scratch.found) {
            out.extend(self.finish(f, hay, 0, &mut place, &mut scratch.diags));
        }
        out
    }

    /// What an `urlsift: ignore-file` marker in `head`, an input's first
    /// bytes, silences (README, "Silencing a finding"): only a marker in
    /// the first 8 KiB counts.
    pub fn file_silence(&self, head: &[u8]) -> Option<Silence> {
        crate::markers::file_silence(&self.directive, head)
    }

    /// Appends the block markers (`urlsift: disable`, `urlsift: enable`)
    /// that start in `hay[range]`, at offsets from `base` (`hay`'s first
    /// byte), each with what is disabled after it. `hay` holds the bytes a
    /// marker starting in `range` spans, or ends first.
    pub fn block_marks(
        &self,
        hay: &[u8],
        range: std::ops::Range<usize>,
        base: u64,
        out: &mut Vec<crate::markers::BlockMark>,
    ) {
        crate::markers::block_marks(&self.directive, hay, range, base, out);
    }

    /// The block and file markers of `src`, read forward from its start
    /// by [`Blocks::advance`].
    pub(crate) fn blocks_of(&self, src: &[u8]) -> impl FnMut(u64) -> [Option<Silence>; 2] {
        let mut blocks = Blocks::new(0, None, None);
        move |to| {
            blocks.advance(&self.directive, src, 0, to, None);
            blocks.silences()
        }
    }

    /// What a `urlsift: ignore` marker on `line`, or leading the line
    /// before it (`before`), silences of `findings`: they are removed.
    /// For readers whose decoded text does not keep the file's lines (a
    /// document's comments are not its text).
    pub(crate) fn silence(&self, line: &[u8], before: &[u8], findings: &mut Vec<Finding>) {
        for (l, own) in [(line, true), (before, false)] {
            if let Some(p) = line_marker(&self.marker, l)
                && (own || leads(l, p))
            {
                let silence = Silence::parse(l, p);
                findings.retain(|f| !silence.covers(f.diagnostic.code));
            }
        }
    }

    /// Streams `reader` through the scanner in bounded windows and hands
    /// each URL to `sink` in order. Memory is bounded by the window size
    /// and [`MAX_URL`], not by the input size nor its longest line: a line
    /// too long for a window is scanned in pieces, with the same result.
    ///
    /// ```
    /// use urlsift::extract::{Options, Scratch, Sifter};
    ///
    /// let sifter = Sifter::new(Options::default());
    /// let input = std::io::Cursor::new(b"a http://a.example/\nb <URL:ftp://b.example/\n  pub/>\n");
    /// let mut urls = Vec::new();
    /// let stats = sifter.extract_reader(input, &mut Scratch::default(), |u| urls.push(u.url)).unwrap();
    /// assert_eq!(urls, [&b"http://a.example/"[..], b"ftp://b.example/pub/"]);
    /// assert_eq!(stats.urls, 2);
    /// ```
    pub fn extract_reader<R: Read>(
        &self,
        reader: R,
        scratch: &mut Scratch,
        sink: impl FnMut(Extracted),
    ) -> io::Result<Stats> {
        let span = Span { base: 0, from: 0, stop: None, file: None, disabled: None };
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
        // Where a scheme may start: the end of the last URL, which may lie
        // before `from` when a long line is scanned in pieces.
        let mut floor = from;
        let blocks = Blocks::new(span.base, span.file, span.disabled);
        let mut place = Placer::new(span.base, Some(blocks));
        // The scan notes where block markers may start, so they need no
        // search of their own; the context before `span.from`, which is
        // not scanned, is searched once it is read.
        place.noted = Some(Vec::new());
        let mut context_searched = false;
        // The line `buf[0]` is in, when a long line was cut before it.
        let mut lead = Lead::default();
        let window = if scratch.window == 0 { WINDOW } else { scratch.window };
        // A part reads little past its end: only what a URL crossing the
        // cut needs (more comes on demand).
        let window_for = |base: u64, filled: usize| match span.stop {
            Some(stop) => window.min((stop.saturating_sub(base + filled as u64) as usize) + 4096),
            None => window,
        };
        let mut want = window_for(base, 0);
        if span.base == 0 {
            // The first window holds the head an `urlsift: ignore-file`
            // marker counts in, whatever the window size: the markers
            // are first read in it.
            want = want.max(crate::markers::HEAD + crate::markers::SPAN);
        }
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
                    // A line longer than the window: scan it in pieces,
                    // each leaving unscanned what the URLs found may look
                    // at past their end.
                    None if filled - from > TAIL => filled - TAIL,
                    None => {
                        want = want.max(filled);
                        continue;
                    }
                }
            };
            if !context_searched {
                context_searched = true;
                let noted = place.noted.as_mut().expect("set above");
                let look = &hay[..(from + DIRECTIVE.len()).min(filled)];
                noted.extend(
                    self.directive.find_iter(look).filter(|&p| p < from).map(|p| base + p as u64),
                );
            }
            let mut at = Resume { from, floor };
            let outcome = self.scanner.scan_noting(
                &hay[..limit],
                &mut at,
                eof,
                lead,
                &mut scratch.found,
                &mut scratch.directives,
            );
            let noted = place.noted.as_mut().expect("set above");
            for d in scratch.directives.drain(..) {
                let d = base + d as u64;
                if noted.last().is_none_or(|&last| last < d) {
                    noted.push(d);
                }
            }
            for f in scratch.found.drain(..) {
                // A part owns the URLs whose form opens in it, even when
                // the URL text itself starts on the next line.
                if base + f.trigger as u64 >= stop {
                    continue;
                }
                resume = base + f.next as u64;
                if let Some(e) = self.finish(f, hay, base, &mut place, &mut scratch.diags) {
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
                    // is rescanned O(log n) times, not once per window:
                    // the next window holds twice what it needs so far,
                    // which `MAX_URL` bounds.
                    want = want.max(filled - at).max(window);
                    at
                }
            };
            // Keep some context before the resume point, not a CR without
            // the LF after it.
            let mut keep = resume_at.saturating_sub(CONTEXT);
            if keep > 0 && hay[keep - 1] == b'\r' && hay[keep] == b'\n' {
                keep -= 1;
            }
            if keep > 0 {
                place.forget(self, hay, base, keep);
                lead = lead.after(&hay[..keep]);
                buf.copy_within(keep..filled, 0);
                filled -= keep;
                base += keep as u64;
            }
            from = resume_at - keep;
            floor = at.floor.saturating_sub(keep);
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
        f: Found,
        hay: &[u8],
        base: u64,
        place: &mut Placer,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Extracted> {
        // A join the scanner could not settle alone stands only when it
        // makes a valid URL of an invalid one (see `scan::Found::join_sure`).
        let f = if !f.joins.is_empty()
            && !f.join_sure
            && (!self.validator().is_valid(&f.text)
                || self.validator().is_valid(&f.text[..f.unjoined]))
        {
            f.unjoin()
        } else {
            f
        };
        if self.ignore_urls.as_ref().is_some_and(|re| re.is_match(&f.text)) {
            return None;
        }
        diags.clear();
        let mut alternatives = Vec::new();
        let mut notes = Vec::new();
        if f.glued {
            notes.push("glued-scheme");
        }
        if !f.joins.is_empty() {
            notes.push("line-break-joined");
            alternatives.push(f.text[..f.unjoined].to_vec());
        }
        if !f.closed {
            let message = if f.overlong {
                format!(
                    "`{}` is not closed by `>` within {MAX_URL} bytes; only its first token is \
                     taken",
                    opener(f.kind)
                )
            } else {
                format!(
                    "`{}` is not closed by `>` before the end of input, a blank line or the \
                     next `<`; only its first line is taken",
                    opener(f.kind)
                )
            };
            diags.push(Diagnostic::new(Code::UnclosedWrapper, 0, f.text.len(), message));
        }
        if f.truncated {
            let n = f.text.len();
            diags.push(Diagnostic::new(
                Code::UrlTooLong,
                n - 1,
                n,
                format!("URL longer than {MAX_URL} bytes: cut here, and the rest read as text"),
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
            let v = self.validator();
            let verdict = match (v.is_valid(&f.text), v.is_valid(&alt)) {
                (true, false) => format!(
                    "; only the form with the hyphen is valid under {}",
                    v.grammar().as_str()
                ),
                (false, true) => format!(
                    "; only the form without the hyphen is valid under {}",
                    v.grammar().as_str()
                ),
                _ => String::new(),
            };
            // The profile may leave the code off (modern does): the other
            // reading is still given in `alternatives`.
            let severity = v.severity(Code::HyphenLineBreak, crate::rules::SchemeKind::Other);
            for (k, &h) in f.hyphen_breaks.iter().enumerate().filter(|_| severity.is_some()) {
                // In `alt`, the break is where the `k` hyphens before this
                // one and this one are gone.
                let mut d = Diagnostic::new(
                    Code::HyphenLineBreak,
                    h,
                    h + 1,
                    format!(
                        "line break right after `-`: the hyphen may be the typesetter's, \
                         not the URL's; also read as `{}`{verdict}",
                        quote_around(&alt, h - k)
                    ),
                );
                d.severity = severity.expect("filtered");
                crate::rules::defang(&mut d);
                diags.push(d);
            }
            alternatives.push(alt);
        }
        // Most URLs of a link list are plain http(s) ones that the modern
        // profile can only find clean and that hold no template form: one
        // table pass settles both (the template search, the DFA and the
        // authority checks cost about a third of `extract` on a link list).
        let plain = self.show.is_empty()
            && self.validator().grammar() == Grammar::Modern
            && plain_http(&f.text);
        let template = !plain && is_template(&f.text);
        let mut own_rejects = None;
        let mut shown = Vec::new();
        if plain {
            own_rejects = Some(false);
            self.check_scheme(&f.text, diags);
        } else if !template {
            let n = diags.len();
            self.validator().diagnose(&f.text, diags);
            // The validator reports an error exactly when its DFA
            // rejects: no second walk for the profile's own grammar.
            own_rejects = Some(diags[n..].iter().any(|d| d.severity == Severity::Error));
            if !self.show.is_empty() {
                shown = self.shown_notes(&f.text, &diags[n..]);
            }
            self.check_scheme(&f.text, diags);
        }
        if !template && let Some(d) = self.online.as_ref().and_then(|v| v.get(&f.text)) {
            diags.push(d.clone());
        }
        self.apply_severities(diags);
        diags.append(&mut shown);
        let start = place.cursor.advance(hay, base, base + f.start() as u64);
        if !diags.is_empty() {
            let markers = place.markers(self, hay, base, start, base + f.last() as u64 + 1);
            for silence in markers.into_iter().flatten() {
                silence.apply(diags);
            }
        }
        diags.sort_by_key(|d| (d.start, d.end));
        crate::merge::merge(&f.text, diags);

        let rejected_by = match own_rejects {
            Some(_) if self.rejected_by_findings_only && diags.is_empty() => Vec::new(),
            Some(own) => self.rejected_by_given(&f.text, own),
            None => Vec::new(),
        };
        let last = f.text.len() - 1;
        let (end, findings) = if !diags.is_empty() {
            self.place_findings(&f, hay, base, place, diags)
        } else if f.pieces.len() == 1 && memchr::memchr2(b'\n', b'\r', &f.text).is_none() {
            // Most URLs: nothing to place but the last byte, and the URL
            // was copied whole from one line, so that byte is on it too.
            let end = Position {
                offset: start.offset + last as u64,
                column: start.column + last as u64,
                ..start
            };
            (end, Vec::new())
        } else {
            let end = place.cursor.clone().advance(hay, base, base + f.source_of(last) as u64);
            (end, Vec::new())
        };
        // One piece is one run of the window's bytes copied as they are
        // (see `scan::Found::pieces`); a reader that decoded the window
        // checks again against the file when it places the URL.
        let verbatim = f.pieces.len() == 1;
        debug_assert!(
            !verbatim || hay.get(f.start()..=f.last()) == Some(&f.text[..]),
            "a one-piece URL is a copy of its bytes"
        );
        let pieces = if verbatim {
            Vec::new()
        } else {
            f.pieces.iter().map(|p| (p.text as u64, base + p.src as u64)).collect()
        };
        Some(Extracted {
            verbatim,
            pieces,
            kind: if template { Kind::Template } else { f.kind },
            url: f.text,
            start,
            end,
            alternatives,
            findings,
            in_code: false,
            notes,
            rejected_by,
            local: None,
        })
    }

    /// The URL's last byte and its findings (drained from `diags`), placed
    /// in the source: every offset they name is counted once, in order.
    fn place_findings(
        &self,
        f: &Found,
        hay: &[u8],
        base: u64,
        place: &Placer,
        diags: &mut Vec<Diagnostic>,
    ) -> (Position, Vec<Finding>) {
        let last = f.text.len() - 1;
        let first_last =
            |(s, e): (usize, usize)| (s.min(last), e.saturating_sub(1).max(s).min(last));
        let mut marks: Vec<usize> = Vec::with_capacity(2 + 2 * diags.len());
        marks.push(0);
        marks.push(last);
        for (s, e) in diags.iter().flat_map(|d| d.spans()).map(first_last) {
            marks.push(s);
            marks.push(e);
        }
        marks.sort_unstable();
        marks.dedup();
        let mut local = place.cursor.clone();
        let positions: Vec<Position> =
            marks.iter().map(|&t| local.advance(hay, base, base + f.source_of(t) as u64)).collect();
        let at = |t: usize| positions[marks.binary_search(&t).expect("offset was marked")];
        let findings = diags
            .drain(..)
            .map(|d| {
                let (s, e) = first_last((d.start, d.end));
                let extra_spans = d
                    .extra_spans
                    .iter()
                    .map(|&span| {
                        let (s, e) = first_last(span);
                        (at(s), at(e))
                    })
                    .collect();
                let start = at(s);
                let (excerpt, excerpt_column) = if self.excerpts {
                    let (text, column) = excerpt_in(hay, base, start);
                    (Some(text), column)
                } else {
                    (None, 1)
                };
                Finding { start, end: at(e), diagnostic: d, excerpt, excerpt_column, extra_spans }
            })
            .collect();
        (at(last), findings)
    }

    /// The findings of the `show` grammars that the profile's own
    /// (`own`, the validator's diagnostics of the same URL) has none like
    /// (same code, same bytes), as notes: shown, never failing a run.
    /// A code turned off stays off.
    fn shown_notes(&self, url: &[u8], own: &[Diagnostic]) -> Vec<Diagnostic> {
        let same: std::collections::HashSet<_> =
            own.iter().map(|d| (d.code, d.start, d.end)).collect();
        let mut out = Vec::new();
        for &i in &self.show {
            let n = out.len();
            self.validators[i].diagnose(url, &mut out);
            let mut k = n;
            for j in n..out.len() {
                let d = &out[j];
                let off = self.severities.iter().any(|(c, s)| *c == d.code && s.is_none());
                if !off && !same.contains(&(d.code, d.start, d.end)) {
                    out.swap(k, j);
                    out[k].severity = Severity::Note;
                    k += 1;
                }
            }
            out.truncate(k);
        }
        out
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

    pub(crate) fn apply_severities(&self, diags: &mut Vec<Diagnostic>) {
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

/// Whether `url` holds a placeholder, so that it is a pattern for URLs
/// (documentation, code, configuration examples) rather than one: `${...}`,
/// `$(command)`, `{name}` (and `{{name}}`, `{0}`, `{}`, an f-string's `{call()}`),
/// `<name>`, a printf conversion (`%s`, `%d` not followed by a hex digit,
/// `%(name)s`), a regex back-reference (`$1`) or a shell variable in the
/// host (`$hostname`); a regular expression (`https://.*`, `\w+`,
/// `(?:...)`, `[^/]`, a trailing `$`) or a glob (`file[1-100].txt`); a
/// syntax outline (`host:port`, `[user@]host`). Checked before validation:
/// a template's `{` or `%s` is not a mistake to report.
pub fn is_template(url: &[u8]) -> bool {
    // Every form below needs one of these bytes, except an elided host
    // (`http://.../x`) and a port that is a word (`host:port`), which only
    // `outlines_authority` looks for: most URLs have none of them, and
    // then one table pass replaces a dozen (15% of `extract` on a link
    // list).
    if !url.iter().fold(false, |any, &b| any | is_template_byte(b)) {
        return outlines_authority(url);
    }
    template_forms(url)
}

/// Bytes of a plain http(s) URL after its host, by where they stand: bit 0
/// in the path, bit 1 in the query, bit 2 in the fragment. Each set is
/// what the modern grammar takes there without question (RFC 3986's
/// unreserved and sub-delimiters, `:`, `@`, `/`; `?` after the path)
/// less every byte a template, pattern or outline
/// form needs (`$%()*+<[\{|` and non-ASCII): such a URL is left to the
/// full checks.
const PLAIN_TAIL: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'!' | b'\'' | b'~') {
            t[b] = 0b111;
        }
        if matches!(c, b';' | b':' | b'@' | b'&' | b'=' | b'/' | b',') {
            t[b] = 0b111;
        }
        // A second `?` is query or fragment; a second `#` is left to the
        // full checks.
        if c == b'?' {
            t[b] = 0b110;
        }
        b += 1;
    }
    t
};

/// Whether `url` is `http://` or `https://` (lower case), a host of
/// letter-led labels of letters, digits and inner hyphens with no port,
/// userinfo or trailing dot, then a path, query and fragment made only of
/// [`PLAIN_TAIL`]'s bytes. The modern profile's verdict on such a URL is
/// clean and [`is_template`] is false (a property test holds them to
/// that); anything else goes through both.
fn plain_http(url: &[u8]) -> bool {
    let rest = if let Some(r) = url.strip_prefix(b"https://") {
        r
    } else if let Some(r) = url.strip_prefix(b"http://") {
        r
    } else {
        return false;
    };
    // The host: labels, each alphanumeric at both ends; the last (and the
    // first: the fast verdict reads a host that opens with a letter
    // as a name) opens with a letter.
    let mut i = 0;
    let mut label_start = 0;
    loop {
        while i < rest.len() && rest[i].is_ascii_alphanumeric() {
            i += 1;
        }
        match rest.get(i) {
            Some(b'-') if i > label_start => i += 1,
            Some(b'.') if i > label_start && rest[i - 1] != b'-' => {
                i += 1;
                label_start = i;
            }
            _ => break,
        }
    }
    let host = &rest[..i];
    if host.is_empty()
        || !host[0].is_ascii_alphabetic()
        || label_start == i
        || !rest[label_start].is_ascii_alphabetic()
        || !host[i - 1].is_ascii_alphanumeric()
    {
        return false;
    }
    // Right after the host: the end, or `/`, `?`, `#` (not `:`, `@`, ...).
    if !matches!(rest.get(i), None | Some(b'/' | b'?' | b'#')) {
        return false;
    }
    let mut at = 0b001;
    loop {
        // A part's bytes in a loop of their own: one lookup per byte.
        while i < rest.len() && PLAIN_TAIL[usize::from(rest[i])] & at != 0 {
            i += 1;
        }
        match rest.get(i) {
            None => return true,
            Some(b'?') if at == 0b001 => at = 0b010,
            Some(b'#') if at != 0b100 => at = 0b100,
            Some(_) => return false,
        }
        i += 1;
    }
}

/// [`is_template`] without the shortcut.
fn template_forms(url: &[u8]) -> bool {
    let name = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':');
    let mut i = 0;
    while let Some(k) = url[i..].iter().position(|b| matches!(b, b'{' | b'$' | b'%' | b'<')) {
        let at = i + k;
        let rest = &url[at + 1..];
        let found = match url[at] {
            // `{name}`, `{}`, `{{` (Jinja, Go, Handlebars: spaces may have
            // cut the URL short), an f-string's `{expr}` (even cut short at
            // its `[`): real URLs have no raw `{` to write.
            b'{' => rest.first().is_none_or(|&b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b'{' | b'}' | b'[')
            }),
            // `${...}`, even cut short by a space inside the braces, and a
            // shell's `$(command)`.
            b'$' => rest.first().is_some_and(|&b| b == b'{' || b == b'(' || b.is_ascii_digit()),
            b'%' => match rest {
                [b's', ..] => true,
                [b'(', tail @ ..] => {
                    let n = tail.iter().take_while(|&&b| name(b)).count();
                    tail.get(n) == Some(&b')')
                }
                [b'd' | b'i' | b'u', next, ..] => !next.is_ascii_hexdigit(),
                [b'd' | b'i' | b'u'] => true,
                _ => false,
            },
            _ => {
                let n = rest.iter().take_while(|&&b| name(b)).count();
                n > 0 && rest.get(n) == Some(&b'>')
            }
        };
        if found {
            return true;
        }
        i = at + 1;
    }
    is_pattern(url) || outlines_authority(url)
}

/// Whether some template, pattern or outline form holds `b`
/// (`{$%<|*()[\\+`, and non-ASCII for `…`); see [`is_template`].
/// Comparisons rather than a table, so a fold over a URL vectorises.
const fn is_template_byte(b: u8) -> bool {
    matches!(b, b'$' | b'%' | b'('..=b'+' | b'<' | b'[' | b'\\' | b'{' | b'|' | 0x80..=0xff)
}

/// A regular expression or a glob written where a URL could be: `.*`,
/// `.+`, `*?`, `(?`, `?)`, `[^`, `[-`, `\w` and the like, a back-reference
/// (`\1`), an alternation (`(a|b)`), a character class or range (`[a-z]`,
/// `[1-100]`), or a trailing `$`. None of these is how a URL is
/// written (each of `*`, `(`, `[`, `\`, `$` would be encoded, or mean
/// nothing there).
fn is_pattern(url: &[u8]) -> bool {
    if url.ends_with(b"$") {
        return true;
    }
    // An alternation, `(sum|prod)` or `(s3://|http(s?)://)`.
    if let Some(bar) = memchr::memchr(b'|', url)
        && (memchr::memchr(b'(', &url[..bar]).is_some() || url[bar..].contains(&b')'))
    {
        return true;
    }
    // A query holds whatever its application wants: a Rust playground
    // link carries code (`f()?)`, `x.+`), not a pattern. Look up to the
    // first `?` after the authority, and the byte after it (`(www\.)?)`).
    let head = match memchr::memmem::find(url, b"://") {
        Some(p) => match memchr::memchr(b'?', &url[p + 3..]) {
            Some(q) => &url[..(p + 3 + q + 2).min(url.len())],
            None => url,
        },
        None => url,
    };
    head.windows(2).enumerate().any(|(k, w)| match w {
        [b'.', b'*' | b'+'] | [b'*', b'?'] | [b'(', b'?'] | [b'?', b')'] | [b'[', b'^' | b'-'] => {
            true
        }
        // `\w`, `\.`, and a back-reference in a replacement (`\1`).
        [b'\\', c] => {
            matches!(c, b'w' | b'W' | b'd' | b'D' | b's' | b'S' | b'b' | b'.') || c.is_ascii_digit()
        }
        [b'[', c] if c.is_ascii_alphanumeric() => {
            // A class or range: `[a-z`, `[0-9`, `[001-100]`.
            let body = &url[k + 1..];
            let n = body.iter().take_while(|b| b.is_ascii_alphanumeric()).count();
            body.get(n) == Some(&b'-') && body.get(n + 1).is_some_and(u8::is_ascii_alphanumeric)
        }
        _ => false,
    })
}

/// A syntax outline in the authority: a port that is a word (`host:port`,
/// `[:port]`), a bracketed optional part (`[user@]host`; an IP literal
/// opens with a hex digit, `:` or `v`), a shell variable for the host
/// (`$hostname`), an elision (`http://.../x`, `service.[..].example`,
/// `…`), a wildcard (`https://*.example.com`), or a name in capitals with
/// an underscore (`https://ISSUER_URL`, `YOUR_BUCKET.s3.example`), which
/// is how documentation writes "put yours here".
fn outlines_authority(url: &[u8]) -> bool {
    // Every URL pays for this, so one pass over the authority notes what
    // each test below needs (a search per test, each set up anew, cost
    // three times as much on a link list).
    let contains = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    let Some(p) = memchr::memchr_iter(b':', url).find(|&c| url[c + 1..].starts_with(b"//")) else {
        return false;
    };
    let rest = &url[p + 3..];
    if rest.first() == Some(&b'$') {
        return true;
    }
    // In the authority: the last `@`, the first `[`, the last `]`, the last
    // `:`, its end; in the host after the last `@`: `..`, `_`, `*`, and
    // non-ASCII (`…`).
    let (mut at, mut open, mut close, mut colon, mut len) = (None, None, None, None, rest.len());
    let (mut dots, mut underscore, mut star, mut high, mut prev) = (false, false, false, false, 0);
    for (i, &b) in rest.iter().enumerate() {
        match b {
            b'/' | b'?' | b'#' => {
                len = i;
                break;
            }
            b'@' => {
                at = Some(i);
                (dots, underscore, star, high, prev) = (false, false, false, false, 0);
                continue;
            }
            b'[' if open.is_none() => open = Some(i),
            b']' => close = Some(i),
            b':' => colon = Some(i),
            _ => {}
        }
        dots |= b == b'.' && prev == b'.';
        underscore |= b == b'_';
        star |= b == b'*';
        high |= b >= 0x80;
        prev = b;
    }
    let auth = &rest[..len];
    let host = &auth[at.map_or(0, |i| i + 1)..];
    let elided = (dots && (host == b".." || contains(host, b"...") || contains(host, b"[..]")))
        || (high && contains(host, "…".as_bytes()));
    if elided || star {
        return true;
    }
    let capital = |label: &[u8]| {
        label.contains(&b'_')
            && label.iter().any(u8::is_ascii_uppercase)
            && label.iter().all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    };
    if underscore && host.split(|&b| b == b'.' || b == b':').any(capital) {
        return true;
    }
    if let Some(b) = open {
        let inside = &auth[b + 1..];
        let first = inside.iter().find(|&&c| c != b':');
        if first.is_some_and(|c| {
            c.is_ascii_alphabetic() && !c.is_ascii_hexdigit() && !matches!(c, b'v' | b'V')
        }) {
            return true;
        }
    }
    // The port: after the last `:` outside brackets.
    match colon.filter(|&c| close.is_none_or(|b| c > b)) {
        Some(c) => {
            let port = &auth[c + 1..];
            let port = port.strip_suffix(b"]").unwrap_or(port);
            port.len() >= 2 && port.iter().all(u8::is_ascii_alphabetic)
        }
        None => false,
    }
}

/// A `grammar_for` glob: gitignore's reading, so `*.txt` matches a file
/// name at any depth and `rfc/**` a path from the base directory.
#[derive(Debug)]
struct PathGlob {
    matcher: globset::GlobMatcher,
    /// No `/` in the glob: matched against the file name.
    by_name: bool,
}

impl PathGlob {
    fn new(glob: &str) -> Result<PathGlob, String> {
        let g = glob.strip_prefix('/').unwrap_or(glob);
        let matcher = globset::GlobBuilder::new(g)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("bad glob {glob:?}: {}", e.kind()))?
            .compile_matcher();
        Ok(PathGlob { matcher, by_name: !glob.contains('/') })
    }

    fn matches(&self, path: &std::path::Path) -> bool {
        if self.by_name {
            path.file_name().is_some_and(|n| self.matcher.is_match(n))
        } else {
            self.matcher.is_match(path)
        }
    }
}

fn opener(kind: Kind) -> &'static str {
    match kind {
        Kind::Wrapped => "<URL:",
        _ => "<",
    }
}

/// `alt` quoted for a message about the break at `at`: whole when short,
/// else the bytes around the break, so that a URL with a thousand breaks
/// does not quote itself a thousand times.
fn quote_around(alt: &[u8], at: usize) -> String {
    const WHOLE: usize = 120;
    const SIDE: usize = 48;
    if alt.len() <= WHOLE {
        return String::from_utf8_lossy(alt).into_owned();
    }
    let lo = at.saturating_sub(SIDE);
    let hi = (at + SIDE).min(alt.len());
    format!(
        "{}{}{}",
        if lo > 0 { "..." } else { "" },
        String::from_utf8_lossy(&alt[lo..hi]),
        if hi < alt.len() { "..." } else { "" }
    )
}

/// The excerpt for a finding whose first byte is at `pos` (see
/// [`Finding::excerpt`]), from the window `hay` at absolute offset `base`,
/// which holds the `EXCERPT` bytes on either side of it that are on its
/// line (or ends with the input).
fn excerpt_in(hay: &[u8], base: u64, pos: Position) -> (Vec<u8>, u64) {
    let at = (pos.offset - base) as usize;
    let ls = pos.offset - (pos.column - 1);
    // A line that goes on past `reach` is too long to show whole, and the
    // window is the same wherever past it it ends.
    let reach = (at + EXCERPT + 1).min(hay.len());
    let le = base + memchr2(b'\n', b'\r', &hay[at..reach]).map_or(reach, |i| at + i) as u64;
    let (lo, hi) = excerpt_window(hay, base, ls, le, pos.offset);
    let text = hay[(lo - base) as usize..(hi - base) as usize].to_vec();
    (text, lo - ls + 1)
}

/// Places found URLs in one input: positions, and the markers that apply.
///
/// Markers are looked for once per line, and only on the lines that hold
/// URLs with findings (and the lines before them): the search of a line
/// goes on where it stopped, so many URLs on one long line cost one pass
/// over it, not one per URL. When a stream drops bytes (`forget`), what
/// later URLs may still need of them (the markers of the line they end in
/// and of the line before) is kept.
#[derive(Debug)]
struct Placer {
    cursor: LineCursor,
    /// The line markers are being looked for on: its start.
    line: u64,
    /// Markers on it that start before this offset have been looked for.
    searched: u64,
    /// Its first marker: where it starts, what it silences, and whether
    /// it leads the line (and so speaks of the next).
    first: Option<(u64, Silence, bool)>,
    /// What the first marker of the line before it silences.
    before: Option<Silence>,
    /// The block and file markers, when they are read in this text.
    blocks: Option<Blocks>,
    /// Where block markers may start (offsets in the input, ascending),
    /// when the scan notes them (`Scanner::scan_noting`); otherwise
    /// `blocks` searches for them.
    noted: Option<Vec<u64>>,
}

impl Placer {
    fn new(base: u64, blocks: Option<Blocks>) -> Placer {
        Placer {
            cursor: LineCursor::starting_at(base),
            line: base,
            searched: base,
            first: None,
            before: None,
            blocks,
            noted: None,
        }
    }

    /// The markers for a URL whose first byte is at `start` and whose
    /// last ends before `end`: its own line's first marker if it starts
    /// within `MARKER_REACH` of `end`, the line before's, the file's and
    /// the open block's.
    fn markers(
        &mut self,
        sifter: &Sifter,
        hay: &[u8],
        base: u64,
        start: Position,
        end: u64,
    ) -> [Option<Silence>; 4] {
        self.enter_line(sifter, hay, base, start.offset - (start.column - 1));
        let reach = end + MARKER_REACH as u64;
        self.search(sifter, hay, base, reach);
        let own = self.first.filter(|&(at, _, _)| at < reach).map(|(_, s, _)| s);
        let [file, block] = match &mut self.blocks {
            Some(b) => {
                b.advance(&sifter.directive, hay, base, start.offset, self.noted.as_mut());
                b.silences()
            }
            None => [None, None],
        };
        [own, self.before, file, block]
    }

    /// Before the window drops `hay[..keep]`: moves to the line holding
    /// `keep` and looks for markers up to it.
    fn forget(&mut self, sifter: &Sifter, hay: &[u8], base: u64, keep: usize) {
        let keep = base + keep as u64;
        if let Some(b) = &mut self.blocks {
            b.advance(&sifter.directive, hay, base, keep, self.noted.as_mut());
        }
        if self.cursor.offset() < keep {
            self.cursor.advance(hay, base, keep);
        }
        if self.searched >= keep {
            return;
        }
        let lo = (self.searched - base) as usize;
        let hi = (keep - base) as usize;
        if let Some(i) = memrchr2(b'\n', b'\r', &hay[lo..hi]) {
            self.enter_line(sifter, hay, base, base + (lo + i + 1) as u64);
        }
        self.search(sifter, hay, base, keep);
    }

    /// Moves to the line starting at `line` (at or after the current one),
    /// settling what the line before it silences.
    fn enter_line(&mut self, sifter: &Sifter, hay: &[u8], base: u64, line: u64) {
        if line <= self.line {
            return;
        }
        let lo = (self.searched - base) as usize;
        // The line before ends at `line`'s break (a CRLF is one).
        let mut end = (line - base) as usize - 1;
        if hay[end] == b'\n' && end > lo && hay[end - 1] == b'\r' {
            end -= 1;
        }
        self.before = match memrchr2(b'\n', b'\r', &hay[lo..end]) {
            // Another line than the current one: it is all in `hay`.
            Some(i) => {
                let ls = lo + i + 1;
                line_marker(&sifter.marker, &hay[ls..end])
                    .filter(|&p| leads(&hay[ls..end], p))
                    .map(|p| Silence::parse(hay, ls + p))
            }
            // The current line: finish its search.
            None => {
                if self.first.is_none() {
                    self.first = line_marker(&sifter.marker, &hay[lo..end])
                        .map(|p| self.first_marker(hay, base, lo + p));
                }
                self.first.filter(|&(_, _, lead)| lead).map(|(_, s, _)| s)
            }
        };
        self.line = line;
        self.searched = line;
        self.first = None;
    }

    /// The current line's first marker, found at `hay[at]`: where it
    /// starts, what it silences, and whether it leads the line (a line
    /// that began before the window is not seen whole: a marker that far
    /// along it is taken to follow text).
    fn first_marker(&self, hay: &[u8], base: u64, at: usize) -> (u64, Silence, bool) {
        let lead = self
            .line
            .checked_sub(base)
            .is_some_and(|ls| leads(&hay[ls as usize..], at - ls as usize));
        (base + at as u64, Silence::parse(hay, at), lead)
    }

    /// Looks for the first marker of the current line among those that
    /// start before `to`, stopping at the line's end. `hay` holds the
    /// bytes a marker starting before `to` spans, or ends first.
    fn search(&mut self, sifter: &Sifter, hay: &[u8], base: u64, to: u64) {
        let lo = (self.searched - base) as usize;
        let hi = ((to.saturating_sub(base)) as usize).min(hay.len());
        if lo >= hi {
            return;
        }
        let brk = memchr2(b'\n', b'\r', &hay[lo..hi]).map(|i| lo + i);
        if self.first.is_none() {
            // A marker starting before `hi` may end after it, within the
            // line.
            let look = match brk {
                Some(b) => b,
                None => {
                    // One byte more tells `ignore` from `ignore-file`.
                    let ext = (hi + MARKER.len()).min(hay.len());
                    memchr2(b'\n', b'\r', &hay[hi..ext]).map_or(ext, |i| hi + i)
                }
            };
            if let Some(p) = line_marker(&sifter.marker, &hay[lo..look])
                && lo + p < brk.unwrap_or(hi)
            {
                self.first = Some(self.first_marker(hay, base, lo + p));
            }
        }
        self.searched = base + brk.unwrap_or(hi) as u64;
    }
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

#[cfg(test)]
mod template_tests {
    use proptest::prelude::*;

    /// The printable ASCII bytes `is_template_byte` says no to: what a URL the
    /// shortcut decides is made of.
    fn plain() -> Vec<u8> {
        // Punctuation and a few letters and digits (`\\w`, `\\1`, `[a-z`): the
        // forms are made of these, and a small alphabet finds them.
        (0x21..0x7fu8)
            .filter(|&b| !super::is_template_byte(b))
            .filter(|b| !b.is_ascii_alphanumeric() || b"awdsZ1".contains(b))
            .collect()
    }

    /// `outlines_authority` as it was before its one-pass shortcut: the
    /// oracle it is held to.
    fn outlines_reference(url: &[u8]) -> bool {
        // Plain loops rather than `memmem`, whose set-up costs more than the
        // search in a host of a few dozen bytes; every URL pays for this.
        let contains = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
        let Some(p) = memchr::memchr_iter(b':', url).find(|&c| url[c + 1..].starts_with(b"//"))
        else {
            return false;
        };
        let rest = &url[p + 3..];
        let auth = &rest
            [..rest.iter().position(|b| matches!(b, b'/' | b'?' | b'#')).unwrap_or(rest.len())];
        if auth.first() == Some(&b'$') {
            return true;
        }
        let host = &auth[memchr::memrchr(b'@', auth).map_or(0, |i| i + 1)..];
        let elided = host == b".."
            || contains(host, b"...")
            || contains(host, b"[..]")
            || contains(host, "…".as_bytes());
        if elided || host.contains(&b'*') {
            return true;
        }
        let capital = |label: &[u8]| {
            label.contains(&b'_')
                && label.iter().any(u8::is_ascii_uppercase)
                && label.iter().all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        };
        if host.split(|&b| b == b'.' || b == b':').any(capital) {
            return true;
        }
        if let Some(b) = memchr::memchr(b'[', auth) {
            let inside = &auth[b + 1..];
            let first = inside.iter().find(|&&c| c != b':');
            if first.is_some_and(|c| {
                c.is_ascii_alphabetic() && !c.is_ascii_hexdigit() && !matches!(c, b'v' | b'V')
            }) {
                return true;
            }
        }
        // The port: after the last `:` outside brackets.
        let host_end = memchr::memrchr(b']', auth).map_or(0, |i| i + 1);
        match memchr::memrchr(b':', &auth[host_end..]) {
            Some(c) => {
                let port = &auth[host_end + c + 1..];
                let port = port.strip_suffix(b"]").unwrap_or(port);
                port.len() >= 2 && port.iter().all(u8::is_ascii_alphabetic)
            }
            None => false,
        }
    }

    /// The shapes of a link list take the plain path; the rest do not.
    #[test]
    fn plain_http_takes_the_common_shapes() {
        for u in [
            "https://github.com/owner/tool-1",
            "http://docs.example.org/x/1.html",
            "https://en.wikipedia.org/wiki/Uniform_Resource_Locator#History",
            "https://example.com?q=1&r=a,b;c=d:e@f/g?h",
            "http://a",
            "https://x-y.example/~user/it's!",
        ] {
            assert!(super::plain_http(u.as_bytes()), "{u}");
        }
        for u in [
            "HTTP://example.com/",
            "https://example.com:8080/",
            "https://user@example.com/",
            "https://example.com./",
            "https://1.2.3.4/",
            "https://-a.example/",
            "https://a-.example/",
            "https://a..example/",
            "https://a.1example/",
            "https://example.com/a%20b",
            "https://example.com/{id}",
            "https://example.com/a(b)",
            "https://example.com/a#b#c",
            "https://example.com/\u{e9}",
            "https://ex_ample.com/",
            "ftp://example.com/",
            "https://",
        ] {
            assert!(!super::plain_http(u.as_bytes()), "{u}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The one-pass shortcut in `outlines_authority` changes no verdict.
        #[test]
        fn the_outline_shortcut_agrees_with_the_searches(
            url in proptest::collection::vec(
                prop::sample::select(vec![
                    &b"."[..], b"..", b"_", b"*", b"[", b"]", b":", b"@", b"/", b"A", b"Z9",
                    b"a", b"1", b"v", b"$", "\u{2026}".as_bytes(), b"port", b"://",
                    b"?", b"#",
                ]),
                0..16,
            ),
            scheme in prop::sample::select(vec![&b"http://"[..], b"ftp://", b"x:"]),
        ) {
            let mut u = scheme.to_vec();
            u.extend(url.concat());
            prop_assert_eq!(super::outlines_authority(&u), outlines_reference(&u));
        }

        /// `plain_http` says yes only where the modern profile finds the URL
        /// clean and no template form is found: it may skip both.
        #[test]
        fn a_plain_http_url_is_clean_and_no_template(
            scheme in prop::sample::select(vec![
                &b"http://"[..], b"https://", b"HTTP://", b"http:/", b"https:", b"ftp://",
            ]),
            host in proptest::collection::vec(
                prop::sample::select(vec![
                    &b"a"[..], b"Zq", b"0", b"9", b"-", b".", b"_", b":", b"@", b"xn--", b"[",
                    b"8080", "\u{e9}".as_bytes(),
                ]),
                0..8,
            ),
            tail in proptest::collection::vec(0x20u8..0x7f, 0..14),
            plain_tail in proptest::collection::vec(
                prop::sample::select(
                    (0x21..0x7fu8)
                        .filter(|&b| super::PLAIN_TAIL[usize::from(b)] != 0 || b"#?%/".contains(&b))
                        .collect::<Vec<u8>>(),
                ),
                0..14,
            ),
        ) {
            let v = crate::rules::Validator::new(crate::diag::Grammar::Modern);
            for t in [&tail, &plain_tail] {
                let mut u = scheme.to_vec();
                u.extend(host.concat());
                u.extend_from_slice(t);
                if super::plain_http(&u) {
                    let mut diags = Vec::new();
                    v.diagnose(&u, &mut diags);
                    prop_assert!(v.is_valid(&u), "{}", String::from_utf8_lossy(&u));
                    prop_assert!(diags.is_empty(), "{}: {:?}", String::from_utf8_lossy(&u), diags);
                    prop_assert!(!super::is_template(&u), "{}", String::from_utf8_lossy(&u));
                }
            }
        }

        /// The table shortcut in `is_template` changes no verdict: no form
        /// is found in a URL made only of the bytes outside the table.
        #[test]
        fn the_shortcut_agrees_with_every_form(
            url in proptest::collection::vec(prop::sample::select(plain()), 0..30),
            scheme in prop::sample::select(vec![&b"http://"[..], b"ftp://", b"", b"mailto:"]),
        ) {
            let mut u = scheme.to_vec();
            u.extend_from_slice(&url);
            prop_assert_eq!(super::is_template(&u), super::template_forms(&u));
        }
    }
}
