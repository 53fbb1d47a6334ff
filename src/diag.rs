//! Diagnostics: the stable codes urlsift reports, their default severity and
//! one-line documentation, and the [`Diagnostic`] value that carries one
//! finding about one URL.
//!
//! Codes are part of the public contract (configuration files and CI
//! pipelines name them), so a code is never renamed; new ones are added.

use std::fmt;

use crate::rules::SchemeKind;

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

/// Which reading of the URL syntax judges a URL: a validator profile.
///
/// A profile is a grammar plus a severity table ([`Code::severity_in`]):
/// the same finding can be an error under RFC 1738 and nothing at all in
/// the default profile, because a later standard allows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Grammar {
    /// RFC 1738 as written: the strict reading of the seeds.
    Rfc1738,
    /// The generic syntax of RFC 3986 alone, for every scheme: no scheme
    /// knows more than `scheme:hier-part?query#fragment`.
    Rfc3986,
    /// The default: RFC 3986 syntax, the per-scheme rules of RFC 1738 that
    /// still hold for the schemes it defines, RFC 9110 for http(s), IP
    /// literals, IDN hosts, and the IANA scheme registry.
    #[default]
    Modern,
}

impl Grammar {
    /// Every profile, in the order of the severity table's columns
    /// (the default first).
    pub const ALL: [Grammar; 3] = [Grammar::Modern, Grammar::Rfc3986, Grammar::Rfc1738];

    /// The name used on the command line and in output: `modern`,
    /// `rfc3986` or `rfc1738`.
    pub fn as_str(self) -> &'static str {
        match self {
            Grammar::Rfc1738 => "rfc1738",
            Grammar::Rfc3986 => "rfc3986",
            Grammar::Modern => "modern",
        }
    }

    /// The profile named `name` (as [`Grammar::as_str`] spells it).
    pub fn from_name(name: &str) -> Option<Grammar> {
        Grammar::ALL.into_iter().find(|g| g.as_str() == name)
    }

    /// Whether the grammar reads URLs with RFC 3986's character classes,
    /// host forms and query (both profiles but `rfc1738`).
    pub(crate) fn is_3986(self) -> bool {
        self != Grammar::Rfc1738
    }

    /// The column of this profile in the severity table.
    const fn column(self) -> usize {
        match self {
            Grammar::Modern => 0,
            Grammar::Rfc3986 => 1,
            Grammar::Rfc1738 => 2,
        }
    }
}

/// `Off` in the severity table: not reported under that profile unless
/// configuration turns it on.
macro_rules! sev {
    (Off) => {
        None
    };
    ($s:ident) => {
        Some(Severity::$s)
    };
}

macro_rules! codes {
    ($($variant:ident => $name:literal, [$m:ident, $r3:ident, $r1:ident], $doc:literal, $why:literal;)*) => {
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

            /// The severity under `grammar` unless configuration overrides
            /// it; `None` when the profile does not report the code. A few
            /// codes depend on the scheme too: see [`SCHEME_SEVERITIES`].
            pub fn severity_in(self, grammar: Grammar) -> Option<Severity> {
                let row: [Option<Severity>; 3] = match self {
                    $(Code::$variant => [sev!($m), sev!($r3), sev!($r1)],)*
                };
                row[grammar.column()]
            }

            /// Why the severity table says what it says for this code.
            pub fn reason(self) -> &'static str {
                match self { $(Code::$variant => $why,)* }
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
    UnclosedWrapper => "unclosed-wrapper", [Error, Error, Error],
        "A `<URL:` or `<scheme:` wrapper is not closed by `>` before the end of input, a blank line or the next `<`.",
        "Found while reading text, before any grammar: the same in every profile.";
    HyphenLineBreak => "hyphen-line-break", [Off, Warning, Warning],
        "A line break right after `-` inside a wrapper: the hyphen may be the typesetter's, not the URL's (RFC 1738 appendix).",
        "Found while reading text; a warning in the RFC profiles because either reading may be the intended one. The modern profile keeps the hyphen, as the appendix reads it, and says nothing: the text is a 1990s archive nobody will rewrap, and `extract` still gives the other reading in `alternatives`.";
    EmptyUrl => "empty-url", [Error, Error, Error],
        "The URL text is empty.",
        "No grammar accepts an empty URL.";
    InvalidScheme => "invalid-scheme", [Error, Error, Error],
        "No `scheme:` prefix, or the scheme holds characters other than letters, digits, `+`, `-` and `.` (RFC 1738 2.1).",
        "Every grammar needs `scheme:`; RFC 3986 (both profiles that follow it) also needs a letter first.";
    UppercaseScheme => "uppercase-scheme", [Off, Off, Note],
        "The scheme is written with upper-case letters; schemes are lower case, readers accept either (RFC 1738 2.1).",
        "Readers must accept either case (RFC 1738 2.1, RFC 3986 3.1), so only the strict rfc1738 profile mentions it.";
    UnknownScheme => "unknown-scheme", [Off, Off, Note],
        "A scheme RFC 1738 does not define: only the generic `scheme:*xchar` syntax was checked.",
        "The modern profile knows the IANA URI scheme registry and checks every scheme with the generic syntax; an unregistered scheme is the author's business (turn it on to catch typos; registered schemes never get it). rfc3986 knows no scheme at all.";
    HistoricalScheme => "historical-scheme", [Off, Off, Note],
        "A scheme from the pre-RFC 1738 drafts (`afs:`) that was never standardised.",
        "A remark about the scheme, not a problem in the text: rfc1738 only.";
    ExperimentalScheme => "experimental-scheme", [Off, Off, Note],
        "An `x-` scheme: experimental, meaningful only by mutual agreement (RFC 1738 4).",
        "RFC 3986 and the IANA registry replaced `x-` names with provisional registration; a remark, rfc1738 only.";
    ReservedScheme => "reserved-scheme", [Off, Off, Note],
        "A scheme name reserved for future definition (`urn:`, or one listed in RFC 1738 4); only the generic syntax was checked.",
        "`urn:` is defined (RFC 8141) and the RFC 1738 section 4 names are history; rfc1738 only.";
    UnsafeCharacter => "unsafe-character", [Error, Error, Error],
        "An unsafe character (space `<` `>` `\"` `{` `}` `|` `\\` `^` `~` `[` `]` `` ` ``) that must be %-encoded (RFC 1738 2.2).",
        "An error in every profile; which characters are unsafe is the grammar's: RFC 3986 makes `~` unreserved.";
    NonAscii => "non-ascii", [Error, Error, Error],
        "A raw byte outside US-ASCII (80-FF); only printable ASCII may appear, the rest is %-encoded (RFC 1738 2.2).",
        "A URI is ASCII in every standard. A raw non-ASCII host is not this code in the modern profile: it is an IDN, checked with IDNA.";
    ControlCharacter => "control-character", [Error, Error, Error],
        "A raw control byte (00-1F, 7F) that must be %-encoded (RFC 1738 2.2).",
        "No standard allows raw control bytes.";
    BadEscape => "bad-escape", [Error, Error, Error],
        "A `%` not followed by two hex digits; a literal `%` is written `%25` (RFC 1738 2.2).",
        "Every standard reads `%` as the start of an escape.";
    ReservedCharacter => "reserved-character", [Error, Error, Error],
        "A reserved character (`;` `/` `?` `:` `@` `=` `&`) where the scheme gives it no meaning, so it must be %-encoded.",
        "An error where the profile's grammar gives the character no meaning; RFC 3986 allows `/` and `?` in a query and `?` right after the host.";
    MissingSlashes => "missing-slashes", [Error, Off, Error],
        "An Internet scheme without its `//` (as in `http:host`), or without the `/` its grammar requires after the host.",
        "A scheme rule (RFC 1738 3.x, RFC 9110 4.2 for http): plain rfc3986 accepts `http:foo` as a rootless path, and the modern profile reads any `file:` URL as a path.";
    EmptyHost => "empty-host", [Error, Off, Error],
        "The host is empty where the scheme requires one (RFC 1738 3.1).",
        "A scheme rule (RFC 1738 3.1, RFC 9110 4.2.1); RFC 3986 allows an empty reg-name.";
    BadHostname => "bad-hostname", [Error, Error, Error],
        "The host is neither a domain name (letters, digits, `-`, dots between labels) nor a dotted-quad address (RFC 1738 3.1).",
        "An error in every profile; hosts reserved for documentation (example.com, *.test, 192.0.2.0/24, ...) never get host findings outside rfc1738, and the modern profile takes `_` in a label as DNS does.";
    TopLabelDigit => "top-label-digit", [Error, Off, Error],
        "The last label of a host name starts with a digit, and the host is not a dotted-quad address (RFC 1738 5, `toplabel`).",
        "A host-name rule (RFC 1738 5; a WHATWG parser reads such a host as a bad IPv4 address); RFC 3986 reg-names have no labels.";
    LabelHyphen => "label-hyphen", [Error, Off, Error],
        "A host-name label starts or ends with `-` (RFC 1738 5, `domainlabel`).",
        "A host-name rule (RFC 1738 5, RFC 1123 2.1); RFC 3986 reg-names have no labels.";
    IpOctetRange => "ip-octet-range", [Error, Off, Error],
        "A dotted-quad host has a part above 255.",
        "An address rule; RFC 3986 reads `256.1.1.1` as a reg-name.";
    BadPort => "bad-port", [Error, Error, Error],
        "The port after `:` is empty or not all decimal digits (RFC 1738 3.1).",
        "Every grammar wants digits after the port `:`; RFC 3986 (both profiles that follow it) allows an empty port, `http://host:/`.";
    PortRange => "port-range", [Error, Off, Error],
        "The port is above 65535.",
        "TCP ports stop at 65535; RFC 3986's `port = *DIGIT` has no bound.";
    DefaultPort => "default-port", [Off, Off, Note],
        "The port written is the scheme's default, so it is redundant.",
        "Redundant, never wrong: a note under rfc1738 only; turn it on to keep links normalized.";
    LowPort => "low-port", [Off, Off, Warning],
        "A port other than the scheme's default in the reserved range below 1024: the client may talk to the wrong protocol (RFC 1738 6).",
        "RFC 1738 6 warns that a port below 1024 may make a client speak the wrong protocol. That is a client's concern when it follows untrusted URLs, not a fault in text: a gopher server on 901 or an http one on 81 is just where the service runs, so only rfc1738 reports it.";
    PasswordPresent => "password-present", [Warning, Warning, Warning],
        "The URL carries a non-empty password (RFC 1738 6: \"clearly unwise\").",
        "Unwise in every standard (RFC 1738 6, RFC 3986 3.2.1): the URL leaks the password wherever it is shown. The modern profile spares stand-ins that hold no secret (`user:pass`, `xxx`, `anonymous`), the examples of documentation.";
    UserinfoNotAllowed => "userinfo-not-allowed", [Error, Off, Error],
        "A user name or password in a scheme that allows none (http, gopher, nntp, wais, prospero).",
        "RFC 1738 gives http, gopher, nntp, wais and prospero no userinfo; RFC 9110 4.2.4 only deprecates it for http(s), so it is a warning there in the modern profile, and nothing for documentation's stand-ins (`http://user:pass@host/`). RFC 3986 allows userinfo in any authority.";
    FtpTypecode => "ftp-typecode", [Error, Off, Error],
        "An ftp `;type=` whose code is not one of `a`, `i`, `d` (either case) (RFC 1738 3.2.2).",
        "A scheme rule of RFC 1738 that still holds (modern keeps it); plain rfc3986 knows no scheme.";
    GopherSelector => "gopher-selector", [Error, Off, Error],
        "A raw TAB, CR or LF in a gopher path: selectors cannot hold them (RFC 1738 3.4).",
        "A scheme rule of RFC 1738 (and RFC 4266) that still holds; plain rfc3986 knows no scheme.";
    NewsForm => "news-form", [Error, Off, Error],
        "A news group or article that fits neither `group` (a letter, then letters, digits, `-.+_`) nor `article` (`unique@host`) (RFC 1738 3.6).",
        "A scheme rule of RFC 1738 (and RFC 5538) that still holds; plain rfc3986 knows no scheme.";
    NntpArticle => "nntp-article", [Error, Off, Error],
        "An nntp article number that is not all digits (RFC 1738 3.7).",
        "A scheme rule of RFC 1738 (and RFC 5538) that still holds; plain rfc3986 knows no scheme.";
    TelnetPath => "telnet-path", [Error, Off, Error],
        "Something after the host of a telnet URL other than one trailing `/` (RFC 1738 3.8).",
        "A scheme rule of RFC 1738 (and RFC 4248) that still holds; plain rfc3986 knows no scheme.";
    WaisForm => "wais-form", [Error, Off, Error],
        "A wais path that is none of `/database`, `/database?search`, `/database/wtype/wpath` (RFC 1738 3.9).",
        "A scheme rule of RFC 1738 (and RFC 4156) that still holds; plain rfc3986 knows no scheme.";
    FileHost => "file-host", [Off, Off, Error],
        "A file host with a user, password or port: only a host name, `localhost` or nothing may stand there (RFC 1738 3.10).",
        "A scheme rule of RFC 1738. The modern profile reads a file URL as a path (RFC 8089's forms, the AWS CLI's `file://request.json`, the Linux kernel's `<file:Documentation/...>`) and checks its characters only; plain rfc3986 knows no scheme.";
    ProsperoField => "prospero-field", [Error, Off, Error],
        "A prospero field that is not `;name=value`, or a `;` before the path (RFC 1738 3.11).",
        "A scheme rule of RFC 1738 (and RFC 4157) that still holds; plain rfc3986 knows no scheme.";
    EncodedDelimiter => "encoded-delimiter", [Warning, Warning, Warning],
        "An encoded CR, LF (or TAB) in an ftp, telnet or gopher URL that could inject a protocol command if decoded (RFC 1738 6).",
        "A security risk (RFC 1738 6) whatever the grammar, so every profile warns.";
    MailtoAddress => "mailto-address", [Error, Off, Error],
        "A mailto body that is not one RFC 822 addr-spec `local-part@domain` (RFC 1738 3.5; in the modern profile, RFC 6068's list of addresses and `?header=value` fields).",
        "A scheme rule (RFC 1738 3.5, RFC 6068) that still holds; the modern profile reads RFC 6068's form, whose address may write `@` as `%40`; plain rfc3986 knows no scheme.";
    MessageId => "message-id", [Error, Off, Error],
        "A `mid:` or `cid:` body that is not `unique@domain` (RFC 1630, message and content identifiers).",
        "A scheme rule (RFC 1630, RFC 2392); plain rfc3986 knows no scheme.";
    BadFragment => "bad-fragment", [Off, Error, Error],
        "A second `#` inside the fragment: `#` is legal only as the one fragment separator.",
        "RFC 3986 and RFC 1738 allow one `#`; browsers (the WHATWG URL standard) take `#` inside a fragment as is, and links like `https://matrix.to/#/#room:server` rely on it, so the modern profile says nothing.";
    SchemeNotAllowed => "scheme-not-allowed", [Error, Error, Error],
        "The scheme is denied by the `[schemes]` settings of urlsift.toml (or not in its allow list).",
        "Project configuration, the same in every profile.";
    UrlTooLong => "url-too-long", [Error, Error, Error],
        "A URL runs on past 1 MiB (1,048,576 bytes) of text: it is cut there and the rest is read as text (no real URL is that long; the bound keeps memory flat).",
        "A bound of the reader, the same in every profile.";
    EncodedHost => "encoded-host", [Note, Off, Off],
        "A host name written %-encoded (`%E4%BE%8B.example`): valid RFC 3986, but DNS and browsers use the IDNA A-label, which the note gives.",
        "Only the modern profile reads an encoded host as an internationalized name; plain rfc3986 allows pct-encoded reg-names, and rfc1738 reports the escapes as `bad-hostname`.";
    LocalLinkMissing => "local-link-missing", [Error, Error, Error],
        "A document's relative link or `file:` URL names a file that does not exist, or climbs out of the root directory (`--root-dir`).",
        "A broken link whatever the URL grammar: the same in every profile. Checked on disk, offline, for the links of Markdown, HTML and reST (`--no-local-links` or `local-links = false` turn it off).";
    FragmentMissing => "fragment-missing", [Warning, Warning, Warning],
        "The `#fragment` of a link names no heading (GitHub's slugs) or `id` in the Markdown or HTML file it leads to: a local file, or with `--online --check-fragments` a web page.",
        "A warning, not an error: the link still opens the right file, and a page's scripts may make anchors no file shows, so the file alone cannot prove it broken.";
    LinkNotFound => "link-not-found", [Error, Error, Error],
        "`--online`: the server says the target is not there (HTTP 404 or 410, FTP 550, a gopher error item, NNTP 411, 423 or 430).",
        "A dead link whatever the URL grammar: the same in every profile. Only with `--online`, which asks each distinct URL's server once.";
    LinkHttpStatus => "link-http-status", [Warning, Warning, Warning],
        "`--online`: the server answers with an HTTP error other than 404 or 410 (403, 500...), or 429, 502, 503 or 504 after its retries.",
        "A warning: many servers refuse robots (403) or fail for a while (5xx) while the page is there for a reader.";
    LinkTimeout => "link-timeout", [Warning, Warning, Warning],
        "`--online`: no answer within the time-out (`--online-timeout`), after the retries.",
        "A warning: a slow or overloaded server is not a dead link.";
    LinkDnsFailure => "link-dns-failure", [Error, Error, Error],
        "`--online`: the host name does not resolve.",
        "An error: a name that does not resolve is most often a domain given up; check the resolver if every link reports it.";
    LinkTlsFailure => "link-tls-failure", [Warning, Warning, Warning],
        "`--online`: the TLS handshake failed (an expired, self-signed or wrong-name certificate).",
        "A warning: a browser shows the reader an error page, but the site is still there.";
    LinkRefused => "link-refused", [Warning, Warning, Warning],
        "`--online`: the connection was refused: nothing listens on that port.",
        "A warning: a server down for the moment refuses too.";
    LinkProtocolError => "link-protocol-error", [Warning, Warning, Warning],
        "`--online`: the server answered, but not as its protocol should: a redirect loop or more than 10 redirects, an FTP login refused, a reply that is no reply.",
        "A warning: the link may work in a browser or with credentials urlsift does not have.";
    LinkRedirected => "link-redirected", [Note, Note, Note],
        "`--online`: the link leads elsewhere through redirects; when every redirect is permanent (301, 308), the fix is the URL they lead to.",
        "A note: the link works. A permanent redirect says the link should be updated, and `--fix` does it.";
}

impl Code {
    /// Whether the code is one of an online check's (`link-*`): a finding
    /// about the target, not the URL's syntax.
    pub fn is_online(self) -> bool {
        matches!(
            self,
            Code::LinkNotFound
                | Code::LinkHttpStatus
                | Code::LinkTimeout
                | Code::LinkDnsFailure
                | Code::LinkTlsFailure
                | Code::LinkRefused
                | Code::LinkProtocolError
                | Code::LinkRedirected
        )
    }

    /// The severity in the default profile ([`Grammar::Modern`]); for a code
    /// that profile does not report, the severity it has in the first
    /// profile of [`Grammar::ALL`] that does, which is also what it takes
    /// when configuration turns it on with no level of its own.
    pub fn default_severity(self) -> Severity {
        Grammar::ALL
            .into_iter()
            .find_map(|g| self.severity_in(g))
            .expect("every code is reported by some profile")
    }

    /// The severity of the code for a URL of `scheme` under `grammar`,
    /// before configuration: [`Code::severity_in`] unless
    /// [`SCHEME_SEVERITIES`] says otherwise for that scheme.
    pub fn severity_for(self, grammar: Grammar, scheme: SchemeKind) -> Option<Severity> {
        SCHEME_SEVERITIES
            .iter()
            .find(|(g, c, kinds, _)| *g == grammar && *c == self && kinds.contains(&scheme))
            .map_or_else(|| self.severity_in(grammar), |row| row.3)
    }
}

/// The exceptions to the severity table that depend on the scheme: profile,
/// code, the schemes it applies to, and the severity there (see each code's
/// [`Code::reason`]). Kept as data beside the table, not as branches in the
/// rules, so `explain` and the README can show the whole judgement.
pub const SCHEME_SEVERITIES: &[(Grammar, Code, &[SchemeKind], Option<Severity>)] = &[
    // RFC 9110 4.2.4: userinfo in http(s) is deprecated, not forbidden.
    (
        Grammar::Modern,
        Code::UserinfoNotAllowed,
        &[SchemeKind::Http, SchemeKind::Https],
        Some(Severity::Warning),
    ),
];

impl Code {
    /// The code a mistyped `name` most likely meant: the nearest by edit
    /// distance, if it is within a third of the name's length (at least
    /// 1), or the only code that starts with `name`. For "did you mean"
    /// in error messages.
    pub fn suggest(name: &str) -> Option<Code> {
        let name = name.trim().to_ascii_lowercase().replace('_', "-");
        let best = Code::ALL
            .iter()
            .map(|&c| (edit_distance(&name, c.as_str()), c))
            .min_by_key(|&(d, c)| (d, c.as_str()))?;
        if best.0 <= (name.len() / 3).max(1) {
            return Some(best.1);
        }
        let mut prefixed =
            Code::ALL.iter().filter(|c| !name.is_empty() && c.as_str().starts_with(&name));
        match (prefixed.next(), prefixed.next()) {
            (Some(&c), None) => Some(c),
            _ => None,
        }
    }

    /// `unknown code "x"`, with the suggestion if there is one.
    pub fn unknown(name: &str) -> String {
        match Code::suggest(name) {
            Some(c) => {
                format!("unknown code {name:?}: did you mean `{c}`? (see `urlsift explain`)")
            }
            None => format!("unknown code {name:?} (see `urlsift explain`)"),
        }
    }

    /// How to silence the code: `(where, what to write)` on a line, for a
    /// stretch of text, a file, a run, a repository (`urlsift explain`
    /// and SARIF's rule help).
    pub fn silence(self) -> [(&'static str, String); 5] {
        [
            ("on the line, or alone on the line before", format!("urlsift: ignore[{self}]")),
            ("for a stretch of text", format!("urlsift: disable[{self}] ... urlsift: enable")),
            ("for a file, in its first 8 KiB", format!("urlsift: ignore-file[{self}]")),
            ("for a run", format!("--severity {self}=off")),
            ("for a repository, in urlsift.toml", format!("[severity] {self} = \"off\"")),
        ]
    }

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

/// Levenshtein distance over bytes (code names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.as_bytes().iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let next = (diag + usize::from(x != y)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod suggest_tests {
    use super::Code;

    #[test]
    fn mistyped_codes_get_a_suggestion() {
        assert_eq!(Code::suggest("defualt-port"), Some(Code::DefaultPort));
        assert_eq!(Code::suggest("port_range"), Some(Code::PortRange));
        assert_eq!(Code::suggest("PASSWORD-PRESENT"), Some(Code::PasswordPresent));
        assert_eq!(Code::suggest("unclosed"), Some(Code::UnclosedWrapper));
        assert_eq!(Code::suggest("zzzzzzzz"), None);
        assert!(Code::unknown("defualt-port").contains("did you mean `default-port`?"));
        assert!(!Code::unknown("zzzzzzzz").contains("did you mean"));
    }
}

/// The most diagnostics of one URL that carry a [`Diagnostic::fix`].
pub const MAX_FIXES: usize = 16;

/// One finding about one URL.
///
/// `start..end` is a half-open byte range in the URL text (the rejoined
/// URL, not the source file); the caller maps it back to source positions.
///
/// ```
/// use urlsift::diag::{Code, Grammar, Severity};
/// use urlsift::rules::Validator;
///
/// let mut diags = Vec::new();
/// Validator::new(Grammar::Rfc1738).diagnose(b"http://h.example/a b", &mut diags);
/// let d = &diags[0];
/// assert_eq!(d.code, Code::from_name("unsafe-character").unwrap());
/// assert_eq!(d.severity, Severity::Error);
/// // A mechanical fix is the whole URL, corrected.
/// assert_eq!(d.fix.as_deref(), Some("http://h.example/a%20b"));
/// ```
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
