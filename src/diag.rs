//! Diagnostics: the stable codes urlsift reports, their default severity and
//! one-line documentation, and the [`Diagnostic`] value that carries one
//! finding about one URL.
//!
//! Codes are part of the public contract (configuration files and CI
//! pipelines name them), so a code is never renamed; new ones are added.

use std::fmt;

/// How serious a diagnostic is. Ordered: `Note < Warning < Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing, never wrong.
    Note,
    /// Legal but risky or ambiguous.
    Warning,
    /// Violates the grammar: the URL is not valid.
    Error,
}

impl Severity {
    /// The lower-case name used in JSON and text output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which reading of the URL syntax produced a diagnostic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Grammar {
    /// RFC 1738 as written (the default).
    #[default]
    Rfc1738,
    /// The generic syntax of RFC 3986 plus the scheme rules that still apply.
    Rfc3986,
}

impl Grammar {
    /// Every grammar, in the order `rejected_by` lists them: a new variant
    /// is added here too, and JSON's `rejected_by` and `--show` know it.
    pub const ALL: &'static [Grammar] = &[Grammar::Rfc1738, Grammar::Rfc3986];

    /// The name used on the command line and in output: `rfc1738` or `rfc3986`.
    pub fn as_str(self) -> &'static str {
        match self {
            Grammar::Rfc1738 => "rfc1738",
            Grammar::Rfc3986 => "rfc3986",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => $name:literal, $sev:ident, $doc:literal;)*) => {
        /// A stable diagnostic code. See [`Code::ALL`] for the catalogue.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $(#[doc = $doc] $variant,)*
        }

        impl Code {
            /// Every code, in catalogue order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The kebab-case name, e.g. `unclosed-wrapper`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// The severity used unless configuration overrides it.
            pub fn default_severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev,)* }
            }

            /// One line saying what the code means.
            pub fn summary(self) -> &'static str {
                match self { $(Code::$variant => $doc,)* }
            }

            /// Looks a code up by its kebab-case name.
            pub fn from_name(name: &str) -> Option<Code> {
                match name { $($name => Some(Code::$variant),)* _ => None }
            }
        }
    };
}

codes! {
    UnclosedWrapper => "unclosed-wrapper", Error,
        "A `<URL:` or `<scheme:` wrapper is not closed by `>` before the end of input, a blank line or the next `<`.";
    HyphenLineBreak => "hyphen-line-break", Warning,
        "A line break right after `-` inside a wrapper: the hyphen may be the typesetter's, not the URL's (RFC 1738 appendix).";
    EmptyUrl => "empty-url", Error,
        "The URL text is empty.";
    InvalidScheme => "invalid-scheme", Error,
        "No `scheme:` prefix, or the scheme holds characters other than letters, digits, `+`, `-` and `.` (RFC 1738 2.1).";
    UppercaseScheme => "uppercase-scheme", Note,
        "The scheme is written with upper-case letters; schemes are lower case, readers accept either (RFC 1738 2.1).";
    UnknownScheme => "unknown-scheme", Note,
        "A scheme RFC 1738 does not define: only the generic `scheme:*xchar` syntax was checked.";
    HistoricalScheme => "historical-scheme", Note,
        "A scheme from the pre-RFC 1738 drafts (`afs:`) that was never standardised.";
    ExperimentalScheme => "experimental-scheme", Note,
        "An `x-` scheme: experimental, meaningful only by mutual agreement (RFC 1738 4).";
    ReservedScheme => "reserved-scheme", Note,
        "A scheme name reserved for future definition (`urn:`, or one listed in RFC 1738 4); only the generic syntax was checked.";
    UnsafeCharacter => "unsafe-character", Error,
        "An unsafe character (space `<` `>` `\"` `{` `}` `|` `\\` `^` `~` `[` `]` `` ` ``) that must be %-encoded (RFC 1738 2.2).";
    NonAscii => "non-ascii", Error,
        "A raw byte outside US-ASCII (80-FF); only printable ASCII may appear, the rest is %-encoded (RFC 1738 2.2).";
    ControlCharacter => "control-character", Error,
        "A raw control byte (00-1F, 7F) that must be %-encoded (RFC 1738 2.2).";
    BadEscape => "bad-escape", Error,
        "A `%` not followed by two hex digits; a literal `%` is written `%25` (RFC 1738 2.2).";
    ReservedCharacter => "reserved-character", Error,
        "A reserved character (`;` `/` `?` `:` `@` `=` `&`) where the scheme gives it no meaning, so it must be %-encoded.";
    MissingSlashes => "missing-slashes", Error,
        "An Internet scheme without its `//` (as in `http:host`), or without the `/` its grammar requires after the host.";
    EmptyHost => "empty-host", Error,
        "The host is empty where the scheme requires one (RFC 1738 3.1).";
    BadHostname => "bad-hostname", Error,
        "The host is neither a domain name (letters, digits, `-`, dots between labels) nor a dotted-quad address (RFC 1738 3.1).";
    TopLabelDigit => "top-label-digit", Error,
        "The last label of a host name starts with a digit, and the host is not a dotted-quad address (RFC 1738 5, `toplabel`).";
    LabelHyphen => "label-hyphen", Error,
        "A host-name label starts or ends with `-` (RFC 1738 5, `domainlabel`).";
    IpOctetRange => "ip-octet-range", Error,
        "A dotted-quad host has a part above 255.";
    BadPort => "bad-port", Error,
        "The port after `:` is empty or not all decimal digits (RFC 1738 3.1).";
    PortRange => "port-range", Error,
        "The port is above 65535.";
    DefaultPort => "default-port", Note,
        "The port written is the scheme's default, so it is redundant.";
    LowPort => "low-port", Warning,
        "A port other than the scheme's default in the reserved range below 1024: the client may talk to the wrong protocol (RFC 1738 6).";
    PasswordPresent => "password-present", Warning,
        "The URL carries a non-empty password (RFC 1738 6: \"clearly unwise\").";
    UserinfoNotAllowed => "userinfo-not-allowed", Error,
        "A user name or password in a scheme that allows none (http, gopher, nntp, wais, prospero).";
    FtpTypecode => "ftp-typecode", Error,
        "An ftp `;type=` whose code is not one of `a`, `i`, `d` (either case) (RFC 1738 3.2.2).";
    GopherSelector => "gopher-selector", Error,
        "A raw TAB, CR or LF in a gopher path: selectors cannot hold them (RFC 1738 3.4).";
    NewsForm => "news-form", Error,
        "A news group or article that fits neither `group` (a letter, then letters, digits, `-.+_`) nor `article` (`unique@host`) (RFC 1738 3.6).";
    NntpArticle => "nntp-article", Error,
        "An nntp article number that is not all digits (RFC 1738 3.7).";
    TelnetPath => "telnet-path", Error,
        "Something after the host of a telnet URL other than one trailing `/` (RFC 1738 3.8).";
    WaisForm => "wais-form", Error,
        "A wais path that is none of `/database`, `/database?search`, `/database/wtype/wpath` (RFC 1738 3.9).";
    FileHost => "file-host", Error,
        "A file host with a user, password or port: only a host name, `localhost` or nothing may stand there (RFC 1738 3.10).";
    ProsperoField => "prospero-field", Error,
        "A prospero field that is not `;name=value`, or a `;` before the path (RFC 1738 3.11).";
    EncodedDelimiter => "encoded-delimiter", Warning,
        "An encoded CR, LF (or TAB) in an ftp, telnet or gopher URL that could inject a protocol command if decoded (RFC 1738 6).";
    MailtoAddress => "mailto-address", Error,
        "A mailto body that is not one RFC 822 addr-spec `local-part@domain` (RFC 1738 3.5).";
    MessageId => "message-id", Error,
        "A `mid:` or `cid:` body that is not `unique@domain` (RFC 1630, message and content identifiers).";
    BadFragment => "bad-fragment", Error,
        "A second `#` inside the fragment: `#` is legal only as the one fragment separator.";
    SchemeNotAllowed => "scheme-not-allowed", Error,
        "The scheme is denied by the `[schemes]` settings of urlsift.toml (or not in its allow list).";
    UrlTooLong => "url-too-long", Error,
        "A URL runs on past 1 MiB (1,048,576 bytes) of text: it is cut there and the rest is read as text (no real URL is that long; the bound keeps memory flat).";
}

impl Code {
    /// A bit of its own, for sets of codes in a `u64`.
    pub(crate) fn bit(self) -> u64 {
        const _: () = assert!(Code::ALL.len() <= 64, "codes no longer fit in a u64 set");
        1 << (self as u32)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The most diagnostics of one URL that carry a [`Diagnostic::fix`].
pub const MAX_FIXES: usize = 16;

/// One finding about one URL.
///
/// `start..end` is a half-open byte range in the URL text (the rejoined
/// URL, not the source file); the caller maps it back to source positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// The severity (the code's default unless configuration changed it).
    pub severity: Severity,
    /// One line naming the offending text.
    pub message: String,
    /// First byte of the offending text in the URL.
    pub start: usize,
    /// One past the last byte of the offending text in the URL.
    pub end: usize,
    /// A mechanical fix: the whole URL with this one problem corrected,
    /// when the correction is mechanical. A diagnostic with
    /// [`Diagnostic::extra_spans`] carries the URL with every span
    /// corrected when each of them had a fix, else the fix of the first
    /// span that had one.
    ///
    /// Only the first [`MAX_FIXES`] diagnostics of a URL that have one (in
    /// URL order) carry it: each fix is a copy of the URL, so a URL with a
    /// problem in every byte (a run of bad `%` escapes) would otherwise
    /// make output quadratic in its length. Past that many problems the
    /// URL is far from valid anyway, and each fix repairs only its own.
    pub fix: Option<String>,
    /// The grammar that produced it; `None` for extraction diagnostics.
    pub grammar: Option<Grammar>,
    /// More offending text of the same kind, after `start..end`: when one
    /// URL has the same problem in several places, the [`Sifter`] reports
    /// one diagnostic listing them all (see [`Diagnostic::spans`]).
    /// Half-open byte ranges in the URL text, sorted.
    ///
    /// [`Sifter`]: crate::extract::Sifter
    pub extra_spans: Vec<(usize, usize)>,
}

impl Diagnostic {
    /// Attaches a mechanical fix (the whole corrected URL; see
    /// [`Diagnostic::fix`]).
    pub fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    /// Records the grammar that produced the diagnostic.
    pub fn in_grammar(mut self, grammar: Grammar) -> Self {
        self.grammar = Some(grammar);
        self
    }

    /// A diagnostic with the code's default severity and no fix.
    pub fn new(code: Code, start: usize, end: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.default_severity(),
            message: message.into(),
            start,
            end,
            fix: None,
            grammar: None,
            extra_spans: Vec::new(),
        }
    }

    /// Every offending span: `start..end`, then [`Diagnostic::extra_spans`].
    pub fn spans(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        std::iter::once((self.start, self.end)).chain(self.extra_spans.iter().copied())
    }
}
