//! The URL validator: judges one URL string against a profile (see
//! [`Grammar`]: `modern`, `rfc3986` or `rfc1738`), knows nothing about
//! files or lines.
//!
//! What each profile reports, and how loudly, is the severity table of
//! [`crate::diag`]; the rules here report what they find and the table is
//! applied once, when the findings are sorted.
//!
//! Two layers do the work:
//!
//! 1. **Verdict.** Each scheme's grammar is written once as data (the
//!    private `grammar` module: rows that read like RFC 1738 section 5) and
//!    compiled into an anchored dense DFA when the crate is built (by
//!    `build.rs`; the private `dfa` module loads them). A URL is valid
//!    when its scheme's DFA matches the whole of it and a handful of
//!    semantic checks the grammar cannot express (port and IP octet ranges)
//!    pass; those checks reuse the split the DFA has already proved sound,
//!    so the clean path is one table walk plus a short scan of the
//!    authority.
//! 2. **Explanation.** When a URL is invalid, draws a note or warning, or the
//!    caller asks for components, a hand-written parser per scheme (one file
//!    per scheme, each opening with the RFC section it implements) walks it
//!    and reports precise diagnostics with byte spans and fixes. The
//!    private `check` module walks the URL (scheme, body, fragment) and
//!    dispatches to the scheme's file; what the scheme files share (the
//!    context that collects diagnostics, the character-run checker) is
//!    the private `ctx` module below them all, so imports run one way.
//!
//! The two layers are independent readings of the same grammar; the tests
//! hold them to the same verdict on generated, fixture and random input.

mod authority;
mod chars;
mod check;
mod ctx;
mod dfa;
mod file;
mod ftp;
mod gopher;
// build.rs compiles these tables; at run time the crate reads only the
// names of the compiled patterns, its tests the rest.
#[cfg_attr(not(test), allow(dead_code))]
mod grammar;
mod http;
mod iana;
mod idn;
mod mailto;
mod news;
mod nntp;
mod other;
mod prospero;
mod telnet;
mod wais;

use std::fmt;
use std::sync::OnceLock;

use crate::diag::{Code, Diagnostic, Grammar, Severity};

use dfa::FullMatch;

/// The scheme of a URL, as far as the validator distinguishes schemes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemeKind {
    /// `ftp:` (RFC 1738 3.2).
    Ftp,
    /// `http:` (RFC 1738 3.3).
    Http,
    /// `https:`: http with default port 443 (later practice).
    Https,
    /// `gopher:` (RFC 1738 3.4).
    Gopher,
    /// `mailto:` (RFC 1738 3.5).
    Mailto,
    /// `news:` (RFC 1738 3.6).
    News,
    /// `nntp:` (RFC 1738 3.7).
    Nntp,
    /// `telnet:` (RFC 1738 3.8).
    Telnet,
    /// `wais:` (RFC 1738 3.9).
    Wais,
    /// `file:` (RFC 1738 3.10).
    File,
    /// `prospero:` (RFC 1738 3.11).
    Prospero,
    /// `mid:` message identifiers (RFC 1630).
    Mid,
    /// `cid:` MIME content identifiers (RFC 1630).
    Cid,
    /// `afs:`, the Andrew File System scheme of the 1993 drafts (historical).
    Afs,
    /// `urn:`, reserved for Uniform Resource Names.
    Urn,
    /// An `x-` scheme, experimental by mutual agreement (RFC 1738 4).
    Experimental,
    /// Any other scheme, or none.
    Other,
}

impl SchemeKind {
    /// The kind of a scheme name, read ignoring case.
    pub fn from_name(name: &[u8]) -> SchemeKind {
        match name_key(name) {
            Some(key) => SchemeKind::from_key(key, name),
            None if is_experimental(name) => SchemeKind::Experimental,
            None => SchemeKind::Other,
        }
    }

    /// The kind for a [`name_key`] of `name`.
    #[inline]
    fn from_key(key: u64, name: &[u8]) -> SchemeKind {
        const FTP: u64 = pack(b"ftp");
        const HTTP: u64 = pack(b"http");
        const HTTPS: u64 = pack(b"https");
        const GOPHER: u64 = pack(b"gopher");
        const MAILTO: u64 = pack(b"mailto");
        const NEWS: u64 = pack(b"news");
        const NNTP: u64 = pack(b"nntp");
        const TELNET: u64 = pack(b"telnet");
        const WAIS: u64 = pack(b"wais");
        const FILE: u64 = pack(b"file");
        const PROSPERO: u64 = pack(b"prospero");
        const MID: u64 = pack(b"mid");
        const CID: u64 = pack(b"cid");
        const AFS: u64 = pack(b"afs");
        const URN: u64 = pack(b"urn");
        match key {
            FTP => SchemeKind::Ftp,
            HTTP => SchemeKind::Http,
            HTTPS => SchemeKind::Https,
            GOPHER => SchemeKind::Gopher,
            MAILTO => SchemeKind::Mailto,
            NEWS => SchemeKind::News,
            NNTP => SchemeKind::Nntp,
            TELNET => SchemeKind::Telnet,
            WAIS => SchemeKind::Wais,
            FILE => SchemeKind::File,
            PROSPERO => SchemeKind::Prospero,
            MID => SchemeKind::Mid,
            CID => SchemeKind::Cid,
            AFS => SchemeKind::Afs,
            URN => SchemeKind::Urn,
            _ if is_experimental(name) => SchemeKind::Experimental,
            _ => SchemeKind::Other,
        }
    }

    /// The default port of an Internet scheme (RFC 1738 3.2-3.11), if any.
    pub fn default_port(self) -> Option<u16> {
        match self {
            SchemeKind::Ftp => Some(21),
            SchemeKind::Http => Some(80),
            SchemeKind::Https => Some(443),
            SchemeKind::Gopher => Some(70),
            SchemeKind::Nntp => Some(119),
            SchemeKind::Telnet => Some(23),
            SchemeKind::Wais => Some(210),
            SchemeKind::Prospero => Some(1525),
            _ => None,
        }
    }

    /// The grammar's top production for this kind.
    fn top(self) -> &'static str {
        grammar::URL_TOPS[self.engine()]
    }

    /// Index of this kind's DFA in [`ENGINES`].
    fn engine(self) -> usize {
        match self {
            SchemeKind::Ftp => 0,
            SchemeKind::Http => 1,
            SchemeKind::Https => 2,
            SchemeKind::Gopher => 3,
            SchemeKind::Mailto => 4,
            SchemeKind::News => 5,
            SchemeKind::Nntp => 6,
            SchemeKind::Telnet => 7,
            SchemeKind::Wais => 8,
            SchemeKind::File => 9,
            SchemeKind::Prospero => 10,
            SchemeKind::Mid => 11,
            SchemeKind::Cid => 12,
            SchemeKind::Afs | SchemeKind::Urn | SchemeKind::Experimental | SchemeKind::Other => 13,
        }
    }

    /// Whether URLs of this kind start `scheme://` and an authority.
    fn has_authority(self) -> bool {
        matches!(
            self,
            SchemeKind::Ftp
                | SchemeKind::Http
                | SchemeKind::Https
                | SchemeKind::Gopher
                | SchemeKind::Nntp
                | SchemeKind::Telnet
                | SchemeKind::Wais
                | SchemeKind::File
                | SchemeKind::Prospero
        )
    }

    /// Whether every URL of this kind draws a note about its scheme.
    fn always_noted(self) -> bool {
        matches!(
            self,
            SchemeKind::Afs | SchemeKind::Urn | SchemeKind::Experimental | SchemeKind::Other
        )
    }
}

/// A scheme name of at most eight bytes packed into an integer, lower-cased:
/// scheme characters other than letters already have bit 0x20 set, so
/// or-ing it in lower-cases letters and changes nothing else. `None` for a
/// longer name (no known scheme is).
#[inline]
fn name_key(name: &[u8]) -> Option<u64> {
    (name.len() <= 8).then(|| pack(name))
}

const fn pack(name: &[u8]) -> u64 {
    let mut k = 0u64;
    let mut i = 0;
    while i < name.len() {
        k = k << 8 | (name[i] | 0x20) as u64;
        i += 1;
    }
    k
}

fn is_experimental(name: &[u8]) -> bool {
    name.len() >= 2 && name[..2].eq_ignore_ascii_case(b"x-")
}

/// The kinds that have their own DFA, in [`SchemeKind::engine`] order.
const ENGINES: [SchemeKind; 14] = [
    SchemeKind::Ftp,
    SchemeKind::Http,
    SchemeKind::Https,
    SchemeKind::Gopher,
    SchemeKind::Mailto,
    SchemeKind::News,
    SchemeKind::Nntp,
    SchemeKind::Telnet,
    SchemeKind::Wais,
    SchemeKind::File,
    SchemeKind::Prospero,
    SchemeKind::Mid,
    SchemeKind::Cid,
    SchemeKind::Other,
];

/// One named part of a URL, as a half-open byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    /// The production it matched: `scheme`, `user`, `password`, `host`,
    /// `port`, `path-segment`, `search`, `fragment`, `typecode`, `gtype`,
    /// `selector`, `gopher-search`, `gopher+`, `group`, `article`,
    /// `database`, `wtype`, `wpath`, `fieldname`, `fieldvalue`, `addr`,
    /// `scheme-part` (the body of a scheme only checked generically).
    pub name: &'static str,
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// The full result of validating one URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validation {
    /// The scheme, lower-cased; empty if there is no valid one.
    pub scheme: String,
    /// What kind of scheme it is.
    pub kind: SchemeKind,
    /// The parts found, sorted by start.
    pub components: Vec<Component>,
    /// Every diagnostic, sorted by start.
    pub diagnostics: Vec<Diagnostic>,
}

impl Validation {
    /// True when no diagnostic has error severity.
    pub fn is_valid(&self) -> bool {
        !self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}

/// Messages quote URL bytes, and URLs come from untrusted files: a raw
/// LF would break the one-line-per-finding output, and an ESC sequence or
/// a bidi override would drive or mislead the terminal of whoever runs
/// `lint`. They are shown escaped instead (`\n`, `\x1b`, `\u{202e}`: see
/// [`crate::escape`]).
pub(crate) fn defang(d: &mut Diagnostic) {
    if let std::borrow::Cow::Owned(safe) = crate::escape::str_for_terminal(&d.message) {
        d.message = safe;
    }
}

/// What the fast path concluded about a URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// At least one error.
    Invalid,
    /// Valid, and nothing at all to report.
    Clean,
    /// Valid, but a note or warning applies.
    Noted,
}

/// Validates URLs against one grammar. Immutable once built: share it by
/// reference across threads.
///
/// ```
/// use urlsift::diag::{Grammar, Severity};
/// use urlsift::rules::Validator;
///
/// let v = Validator::new(Grammar::Modern);
/// assert!(v.is_valid(b"https://example.org/a?b=c#d"));
/// let found = v.validate(b"http://example.org:99999/%zz");
/// assert_eq!(found.scheme, "http");
/// let codes: Vec<String> = found.diagnostics.iter().map(|d| d.code.to_string()).collect();
/// assert_eq!(codes, ["port-range", "bad-escape"]);
/// assert!(found.diagnostics.iter().all(|d| d.severity == Severity::Error));
/// // Byte ranges in the URL: the port.
/// assert_eq!((found.diagnostics[0].start, found.diagnostics[0].end), (19, 24));
/// ```
pub struct Validator {
    grammar: Grammar,
    /// One DFA per entry of [`ENGINES`], loaded the first time a URL of
    /// that kind is checked: most inputs only ever meet http(s), ftp and
    /// mailto, and a load validates the whole table.
    engines: Vec<OnceLock<Engine>>,
    /// RFC 3986 `IP-literal`, in every grammar so RFC 1738 mode can say
    /// when a bracketed host would be fine under RFC 3986 (loaded lazily too).
    ip_literal: OnceLock<FullMatch>,
    /// Configuration's severities, which replace the profile's table
    /// (for every scheme) for the codes they name; later entries win.
    overrides: Vec<(Code, Option<Severity>)>,
    /// Whether any scheme note can be reported: when none can (the
    /// default outside rfc1738), the fast path need not look for them.
    scheme_notes: bool,
    /// Whether `uppercase-scheme` can be reported.
    upper_note: bool,
    /// Whether configuration makes an error of a code the profile does
    /// not: then a URL the fast path finds valid but noted may be invalid.
    escalated: bool,
}

/// A scheme's compiled grammar.
struct Engine {
    dfa: FullMatch,
    /// The state after reading the scheme name: the dispatch has already
    /// matched the name (ignoring case, as the DFA does), so the walk can
    /// start at the `:`. `None` for the generic DFA.
    after_scheme: Option<dfa::StateID>,
}

impl Validator {
    /// A validator for `grammar` with the profile's own severities. Cheap:
    /// each scheme's DFA is loaded on first use.
    pub fn new(grammar: Grammar) -> Validator {
        Validator::with_severities(grammar, &[])
    }

    /// A validator for `grammar` whose severities for the codes in
    /// `overrides` (`None` = off) replace the profile's, for every scheme:
    /// a code a profile leaves off (say `unknown-scheme` in `modern`) is
    /// reported when configuration turns it on.
    pub fn with_severities(grammar: Grammar, overrides: &[(Code, Option<Severity>)]) -> Validator {
        let mut v = Validator {
            grammar,
            engines: ENGINES.iter().map(|_| OnceLock::new()).collect(),
            ip_literal: OnceLock::new(),
            overrides: overrides.to_vec(),
            scheme_notes: false,
            upper_note: false,
            escalated: overrides.iter().any(|(c, l)| {
                *l == Some(Severity::Error) && c.severity_in(grammar) != Some(Severity::Error)
            }),
        };
        // Any scheme: the scheme exceptions do not touch these codes.
        let on = |v: &Validator, c: Code| v.severity(c, SchemeKind::Other).is_some();
        v.scheme_notes = [
            Code::UnknownScheme,
            Code::HistoricalScheme,
            Code::ExperimentalScheme,
            Code::ReservedScheme,
        ]
        .into_iter()
        .any(|c| on(&v, c));
        v.upper_note = on(&v, Code::UppercaseScheme);
        v
    }

    /// The severity `code` has for a URL of `kind` here: configuration's,
    /// else the profile's ([`Code::severity_for`]); `None` when it is off.
    pub fn severity(&self, code: Code, kind: SchemeKind) -> Option<Severity> {
        match self.overrides.iter().rev().find(|(c, _)| *c == code) {
            Some(&(_, level)) => level,
            None => code.severity_for(self.grammar, kind),
        }
    }

    fn engine(&self, i: usize) -> &Engine {
        self.engines[i].get_or_init(|| {
            let kind = ENGINES[i];
            let dfa = dfa::precompiled(self.grammar, i);
            let after_scheme =
                kind.top().strip_suffix("url").filter(|_| !kind.always_noted()).map(|name| {
                    dfa.state_after(name.as_bytes()).expect("the DFA reads its own scheme")
                });
            Engine { dfa, after_scheme }
        })
    }

    pub(crate) fn ip_literal(&self) -> &FullMatch {
        self.ip_literal.get_or_init(|| dfa::precompiled(self.grammar, grammar::URL_TOPS.len()))
    }

    /// The grammar this validator checks against.
    pub fn grammar(&self) -> Grammar {
        self.grammar
    }

    /// True when the URL has no error-severity diagnostic; agrees with
    /// `validate(url).is_valid()` but runs only the DFA and the semantic
    /// range checks.
    pub fn is_valid(&self, url: &[u8]) -> bool {
        match self.verdict(url) {
            // Outside RFC 1738 a few things the DFAs reject are fine or only
            // noted (IDN and %-encoded hosts, hosts reserved for
            // documentation, codes turned off): the parser decides. Only
            // URLs the DFA rejects pay for it.
            Verdict::Invalid if self.grammar.is_3986() || !self.overrides.is_empty() => {
                check::explain(self, url, false).is_valid()
            }
            Verdict::Noted if self.escalated => check::explain(self, url, false).is_valid(),
            v => v != Verdict::Invalid,
        }
    }

    /// Validates `url` fully: scheme, components with spans, and every
    /// diagnostic (errors, warnings, notes) sorted by start.
    pub fn validate(&self, url: &[u8]) -> Validation {
        let mut v = check::explain(self, url, true);
        v.diagnostics.iter_mut().for_each(defang);
        v
    }

    /// Appends the URL's diagnostics to `out`. A URL with nothing to report
    /// costs one DFA walk and allocates nothing.
    pub fn diagnose(&self, url: &[u8], out: &mut Vec<Diagnostic>) {
        if self.verdict(url) != Verdict::Clean {
            let mut diags = check::explain(self, url, false).diagnostics;
            diags.iter_mut().for_each(defang);
            out.extend(diags);
        }
    }

    /// The fast path: DFA, then the semantic checks on the split the DFA
    /// has proved sound.
    #[inline]
    fn verdict(&self, url: &[u8]) -> Verdict {
        // One pass over the scheme: its end, its kind's key, its case.
        let mut key = 0u64;
        let mut upper = false;
        let mut colon = 0;
        loop {
            let Some(&b) = url.get(colon) else {
                return Verdict::Invalid;
            };
            if b == b':' && colon > 0 {
                break;
            }
            if !chars::SCHEME.has(b) {
                return Verdict::Invalid;
            }
            upper |= b.is_ascii_uppercase();
            key = key << 8 | u64::from(b | 0x20);
            colon += 1;
        }
        let kind = if colon <= 8 {
            SchemeKind::from_key(key, &url[..colon])
        } else {
            SchemeKind::from_name(&url[..colon])
        };
        // Plain RFC 3986 reads every scheme with the generic syntax.
        let engine_kind = if self.grammar == Grammar::Rfc3986 { SchemeKind::Other } else { kind };
        let engine = self.engine(engine_kind.engine());
        let matched = match engine.after_scheme {
            Some(sid) => engine.dfa.is_match_from(sid, &url[colon..]),
            None => engine.dfa.is_match(url),
        };
        if !matched {
            return Verdict::Invalid;
        }
        let mut verdict = Verdict::Clean;
        if (kind.always_noted() && self.scheme_notes) || (upper && self.upper_note) {
            verdict = Verdict::Noted;
        }
        // (The modern profile reads a file URL as a path: see `file.rs`.)
        let path_only = kind == SchemeKind::File && self.grammar == Grammar::Modern;
        let semantic =
            if engine_kind.has_authority() && !path_only && url[colon + 1..].starts_with(b"//") {
                authority::quick(self, kind, url, colon + 3)
            } else if engine_kind == SchemeKind::News {
                news::quick(self, url, colon + 1)
            } else if engine_kind.engine() == SchemeKind::Other.engine() && self.grammar.is_3986() {
                other::quick(self, url, colon + 1)
            } else {
                Verdict::Clean
            };
        match semantic {
            Verdict::Invalid => return Verdict::Invalid,
            Verdict::Noted => verdict = Verdict::Noted,
            Verdict::Clean => {}
        }
        if ctx::has_encoded_delimiter(kind, url, colon + 1, url.len()).is_some() {
            verdict = Verdict::Noted;
        }
        verdict
    }
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The DFAs' tables are not worth printing.
        f.debug_struct("Validator").field("grammar", &self.grammar).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validator_is_send_sync() {
        fn assert_traits<T: Send + Sync>() {}
        assert_traits::<Validator>();
        assert_traits::<Validation>();
    }

    #[test]
    fn dfas_stay_small() {
        for g in Grammar::ALL {
            let v = Validator::new(g);
            let total: usize = (0..ENGINES.len()).map(|i| v.engine(i).dfa.memory_usage()).sum();
            assert!(total < 4 << 20, "{g:?}: {total} bytes");
        }
    }

    /// Outside rfc1738 the DFAs are stricter than the parser in a few
    /// documented places, and `is_valid` then asks the parser; this holds
    /// the fast verdict to exactly those places, so the clean path stays
    /// the whole story everywhere else.
    #[test]
    fn the_fast_path_defers_only_in_its_documented_cases() {
        use proptest::prelude::*;
        // The host of an authority, or of a news article (`unique@host`).
        let deferred = |url: &[u8]| {
            let text = String::from_utf8_lossy(url);
            let host = match text.split_once("//") {
                Some((_, a)) => a.split(['/', '?', '#']).next().unwrap_or(""),
                None if text.starts_with("news:") => text.split('#').next().unwrap_or(""),
                None => return !url.is_ascii(),
            };
            let host = host.rsplit('@').next().unwrap_or("");
            let name = host.split(':').next().unwrap_or("");
            !url.is_ascii()
                || host.contains('%')
                || idn::is_documentation_host(host.as_bytes())
                || idn::is_documentation_host(name.as_bytes())
        };
        let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
            cases: 3000,
            ..Default::default()
        });
        let strategy = (
            proptest::sample::select(vec![
                "http://",
                "https://",
                "ftp://",
                "gopher://",
                "news:",
                "mailto:",
                "file://",
                "file:/",
                "foo://",
                "ws://u:p@",
                "telnet://",
                "nntp://",
            ]),
            proptest::collection::vec(
                proptest::sample::select(vec![
                    "a",
                    "b.example",
                    ".com",
                    "-",
                    "_",
                    "~",
                    "%",
                    "%e4",
                    "%41",
                    ":",
                    ":80",
                    "/",
                    "?",
                    "#",
                    "@",
                    "[",
                    "]",
                    "[::1]",
                    ";type=a",
                    "é",
                    "ü",
                    " ",
                    "192.0.2.1",
                    "9",
                ]),
                0..10,
            ),
        );
        for g in [Grammar::Modern, Grammar::Rfc3986] {
            let v = Validator::new(g);
            runner
                .run(&strategy, |(prefix, body)| {
                    let url = format!("{prefix}{}", body.concat());
                    let fast = v.verdict(url.as_bytes()) != Verdict::Invalid;
                    let full = check::explain(&v, url.as_bytes(), false).is_valid();
                    prop_assert!(
                        fast == full || (!fast && deferred(url.as_bytes())),
                        "{g:?} {url}: fast {fast}, parser {full}"
                    );
                    Ok(())
                })
                .unwrap();
        }
    }

    #[test]
    fn kinds() {
        assert_eq!(SchemeKind::from_name(b"HTTP"), SchemeKind::Http);
        assert_eq!(SchemeKind::from_name(b"x-foo-bar-baz"), SchemeKind::Experimental);
        assert_eq!(SchemeKind::from_name(b"X-a"), SchemeKind::Experimental);
        assert_eq!(SchemeKind::from_name(b"gopher+"), SchemeKind::Other);
    }
}
