//! The URL grammars as data: RFC 1738 section 5 transcribed one production
//! per row, the few refinements its prose demands, and the RFC 3986
//! overrides; assembled by name substitution and compiled into anchored
//! dense DFAs that answer "does the whole URL match?".
//!
//! Read [`RFC1738`] beside section 5 of the RFC: the rows keep its order
//! and names, and each right-hand side is that line with `[ x ]` written
//! `(?:x)?` (optional) or `(?:x)*` (repetition), `|` kept, quoted literals
//! unquoted, and a production used by name written `{name}`. A later row
//! with the same name replaces an earlier one; that is how [`REFINEMENTS`]
//! and [`RFC3986`] say exactly what they change.
//!
//! The whole tables are kept in one file, not spread over the per-scheme
//! modules, because the point of them is to be checked line by line
//! against one page of the RFC.

use std::collections::HashMap;

use regex_automata::MatchKind;
use regex_automata::dfa::{StartKind, dense};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;

use crate::diag::Grammar;

/// RFC 1738 section 5, verbatim in meaning, in the RFC's order.
///
/// Two transcription notes: `schemepart = *xchar | ip-schemepart` is written
/// `*xchar` because every ip-schemepart is also `*xchar`, and the character
/// productions at the end use regex classes for their alternatives of
/// single characters.
pub(crate) const RFC1738: &[(&str, &str)] = &[
    // ; The generic form of a URL is:
    ("genericurl", r"{scheme}:{schemepart}"),
    // ; the scheme is in lower case; interpreters should use case-ignore
    // (`Productions::expand` applies the case-ignore reading to `{scheme}`
    // and `url_pattern` to literal scheme names)
    ("otherurl", r"{genericurl}"),
    ("scheme", r"(?:{lowalpha}|{digit}|[+\-.])+"),
    ("schemepart", r"{xchar}*"),
    // ; URL schemeparts for ip based protocols:
    ("ip-schemepart", r"//{login}(?:/{urlpath})?"),
    ("login", r"(?:{user}(?::{password})?@)?{hostport}"),
    ("hostport", r"{host}(?::{port})?"),
    ("host", r"{hostname}|{hostnumber}"),
    ("hostname", r"(?:{domainlabel}\.)*{toplabel}"),
    ("domainlabel", r"{alphadigit}|{alphadigit}(?:{alphadigit}|-)*{alphadigit}"),
    ("toplabel", r"{alpha}|{alpha}(?:{alphadigit}|-)*{alphadigit}"),
    ("alphadigit", r"{alpha}|{digit}"),
    ("hostnumber", r"{digits}\.{digits}\.{digits}\.{digits}"),
    ("port", r"{digits}"),
    ("user", r"(?:{uchar}|[;?&=])*"),
    ("password", r"(?:{uchar}|[;?&=])*"),
    ("urlpath", r"{xchar}*"),
    // ; FTP (see also RFC959)
    ("ftpurl", r"ftp://{login}(?:/{fpath}(?:;type={ftptype})?)?"),
    ("fpath", r"{fsegment}(?:/{fsegment})*"),
    ("fsegment", r"(?:{uchar}|[?:@&=])*"),
    ("ftptype", r"[AIDaid]"),
    // ; FILE
    ("fileurl", r"file://(?:{host}|localhost)?/{fpath}"),
    // ; HTTP
    ("httpurl", r"http://{hostport}(?:/{hpath}(?:\?{search})?)?"),
    ("hpath", r"{hsegment}(?:/{hsegment})*"),
    ("hsegment", r"(?:{uchar}|[;:@&=])*"),
    ("search", r"(?:{uchar}|[;:@&=])*"),
    // ; GOPHER (see also RFC1436)
    (
        "gopherurl",
        r"gopher://{hostport}(?:/(?:{gtype}(?:{selector}(?:%09{search}(?:%09{gopher+_string})?)?)?)?)?",
    ),
    ("gtype", r"{xchar}"),
    ("selector", r"{xchar}*"),
    ("gopher+_string", r"{xchar}*"),
    // ; MAILTO (see also RFC822)
    ("mailtourl", r"mailto:{encoded822addr}"),
    ("encoded822addr", r"{xchar}+"),
    // ; NEWS (see also RFC1036)
    ("newsurl", r"news:{grouppart}"),
    ("grouppart", r"\*|{group}|{article}"),
    ("group", r"{alpha}(?:{alpha}|{digit}|[\-.+_])*"),
    ("article", r"(?:{uchar}|[;/?:&=])+@{host}"),
    // ; NNTP (see also RFC977)
    ("nntpurl", r"nntp://{hostport}/{group}(?:/{digits})?"),
    // ; TELNET
    ("telneturl", r"telnet://{login}/?"),
    // ; WAIS (see also RFC1625)
    ("waisurl", r"{waisdatabase}|{waisindex}|{waisdoc}"),
    ("waisdatabase", r"wais://{hostport}/{database}"),
    ("waisindex", r"wais://{hostport}/{database}\?{search}"),
    ("waisdoc", r"wais://{hostport}/{database}/{wtype}/{wpath}"),
    ("database", r"{uchar}*"),
    ("wtype", r"{uchar}*"),
    ("wpath", r"{uchar}*"),
    // ; PROSPERO
    ("prosperourl", r"prospero://{hostport}/{ppath}(?:{fieldspec})*"),
    ("ppath", r"{psegment}(?:/{psegment})*"),
    ("psegment", r"(?:{uchar}|[?:@&=])*"),
    ("fieldspec", r";{fieldname}={fieldvalue}"),
    ("fieldname", r"(?:{uchar}|[?:@&])*"),
    ("fieldvalue", r"(?:{uchar}|[?:@&])*"),
    // ; Miscellaneous definitions
    ("lowalpha", r"[a-z]"),
    ("hialpha", r"[A-Z]"),
    ("alpha", r"{lowalpha}|{hialpha}"),
    ("digit", r"[0-9]"),
    ("safe", r"[$\-_.+]"),
    ("extra", r"[!*'(),]"),
    ("national", r"[{}|\\^~\[\]`]"),
    ("punctuation", r#"[<>#%"]"#),
    ("reserved", r"[;/?:@&=]"),
    ("hex", r"{digit}|[A-Fa-f]"),
    ("escape", r"%{hex}{hex}"),
    ("unreserved", r"{alpha}|{digit}|{safe}|{extra}"),
    ("uchar", r"{unreserved}|{escape}"),
    ("xchar", r"{unreserved}|{reserved}|{escape}"),
    ("digits", r"{digit}+"),
];

/// What the prose of RFC 1738 (and the texts around it) adds to section 5,
/// in both grammars.
pub(crate) const REFINEMENTS: &[(&str, &str)] = &[
    // Appendix, and RFC 1630: a URL in context may carry `#fragment`; `#` is
    // legal only as that one separator, and the fragment is `*xchar`.
    ("fragment", r"{xchar}*"),
    // 3.5: the body "is (the encoding of an) addr-spec, as specified in
    // RFC 822", i.e. local-part "@" domain; `@` inside either side would
    // have to be encoded.
    ("encoded822addr", r"{addr-char}+@{addr-char}+"),
    ("addr-char", r"{unreserved}|[;/?:&=]|{escape}"),
    // Later practice (seed 000): https is http on port 443.
    ("httpsurl", r"https://{hostport}(?:/{hpath}(?:\?{search})?)?"),
    // RFC 1630, "Message-Id": the rest is an RFC 822 msg-id (or MIME
    // content-id) without its angle brackets, formatted like an addr-spec.
    ("midurl", r"mid:{encoded822addr}"),
    ("cidurl", r"cid:{encoded822addr}"),
];

/// RFC 3986 in place of RFC 1738, where it differs. The scheme rules above
/// still apply; what changes is the character repertoire, the host, and
/// the generic syntax used for schemes RFC 1738 does not define.
pub(crate) const RFC3986: &[(&str, &str)] = &[
    // 2.3: `~` is unreserved; everything else RFC 1738 called unreserved is
    // a sub-delim in RFC 3986, allowed in the same places.
    ("unreserved", r"{alpha}|{digit}|{safe}|{extra}|~"),
    // 3.2.1: userinfo cannot hold `?` (it would end the authority); a
    // password may hold `:`.
    ("user", r"(?:{uchar}|[;&=])*"),
    ("password", r"(?:{uchar}|[;&=:])*"),
    // 3.2.2: IP literals, and one trailing dot after a domain name.
    ("host", r"{hostname}\.?|{hostnumber}|{IP-literal}"),
    // 3.2.3: `port = *digit`, so `host:` with no digits is a valid,
    // if unnormalized, authority.
    ("port", r"{digit}*"),
    // 3.4: a query may hold `/` and `?`.
    ("search", r"(?:{uchar}|[;:@&=/?])*"),
    // 3.3: `http://host?query` has an empty path-abempty.
    ("httpurl", r"http://{hostport}(?:/{hpath})?(?:\?{search})?"),
    ("httpsurl", r"https://{hostport}(?:/{hpath})?(?:\?{search})?"),
    // 3.1: the scheme starts with a letter.
    ("scheme", r"{alpha}(?:{alpha}|{digit}|[+\-.])*"),
    // 3: the generic syntax, for every scheme not defined above.
    ("otherurl", r"{scheme}:{hier-part}(?:\?{query})?"),
    ("hier-part", r"//{authority}{path-abempty}|{path-absolute}|{path-rootless}|"),
    ("authority", r"(?:{userinfo}@)?{reg-host}(?::{digit}*)?"),
    ("userinfo", r"(?:{unreserved}|{escape}|{sub-delims}|:)*"),
    ("reg-host", r"{IP-literal}|{reg-name}"),
    ("reg-name", r"(?:{unreserved}|{escape}|{sub-delims})*"),
    ("path-abempty", r"(?:/{segment})*"),
    ("path-absolute", r"/(?:{segment-nz}(?:/{segment})*)?"),
    ("path-rootless", r"{segment-nz}(?:/{segment})*"),
    ("segment", r"{pchar}*"),
    ("segment-nz", r"{pchar}+"),
    ("pchar", r"{unreserved}|{escape}|{sub-delims}|[:@]"),
    ("query", r"(?:{pchar}|[/?])*"),
    ("sub-delims", r"[!$&'()*+,;=]"),
    // Appendix A, IP literals.
    ("IP-literal", r"\[(?:{IPv6address}|{IPvFuture})\]"),
    ("IPvFuture", r"v{hex}+\.(?:{unreserved}|{sub-delims}|:)+"),
    (
        "IPv6address",
        concat!(
            r"(?:{h16}:){6}{ls32}",
            r"|::(?:{h16}:){5}{ls32}",
            r"|(?:{h16})?::(?:{h16}:){4}{ls32}",
            r"|(?:(?:{h16}:){0,1}{h16})?::(?:{h16}:){3}{ls32}",
            r"|(?:(?:{h16}:){0,2}{h16})?::(?:{h16}:){2}{ls32}",
            r"|(?:(?:{h16}:){0,3}{h16})?::{h16}:{ls32}",
            r"|(?:(?:{h16}:){0,4}{h16})?::{ls32}",
            r"|(?:(?:{h16}:){0,5}{h16})?::{h16}",
            r"|(?:(?:{h16}:){0,6}{h16})?::",
        ),
    ),
    ("h16", r"{hex}{1,4}"),
    ("ls32", r"{h16}:{h16}|{IPv4address}"),
    ("IPv4address", r"{dec-octet}\.{dec-octet}\.{dec-octet}\.{dec-octet}"),
    ("dec-octet", r"25[0-5]|2[0-4]{digit}|1{digit}{digit}|[1-9]{digit}|{digit}"),
];

/// What the default profile ([`Grammar::Modern`]) changes on top of
/// [`RFC3986`], which it otherwise shares.
pub(crate) const MODERN: &[(&str, &str)] = &[
    // RFC 9110 4.2.4: userinfo in an http(s) URI is deprecated, not
    // invalid; the validator warns (`userinfo-not-allowed`).
    ("httpurl", r"http://{login}(?:/{hpath})?(?:\?{search})?"),
    ("httpsurl", r"https://{login}(?:/{hpath})?(?:\?{search})?"),
    // A list of hosts, each with its own port, is how libpq, MongoDB and
    // pydantic's `MultiHostUrl` name a cluster
    // (`postgresql://h1:5432,h2:5433/db`); WHATWG URL takes `,` in a host
    // too. Each host is judged on its own (see `authority::hosts`).
    ("login", r"(?:{user}(?::{password})?@)?{hostport}(?:,{hostport})*"),
    ("authority", r"(?:{userinfo}@)?(?:{reg-host}(?::{digit}*)?|{list-host}(?:,{list-host})+)"),
    // A member of a list: not empty, and without a `,` of its own (as
    // `authority::hosts` divides the list), or the grammar would accept
    // what the list reading does not (`a:1,,b`, `,a:1,b:2`). (Spelled out:
    // `unreserved` here takes in RFC 1738's `extra`, which holds `,`.)
    (
        "list-host",
        r"(?:{IP-literal}|(?:{alpha}|{digit}|{escape}|[\-._~!$&'()*+;=])+)(?::{digit}*)?|:{digit}*",
    ),
    // The WHATWG URL standard takes `#` inside a fragment as it is
    // (`https://matrix.to/#/#room:server`); browsers never split there.
    ("fragment", r"(?:{xchar}|[#\[\]])*"),
    // Browsers (WHATWG URL) take `[` and `]` in a query as they are too:
    // `?filter[lang][0]=Python`.
    // (http and wais; a gopher search travels to a gopher server, not a
    // browser, and keeps RFC 3986's.)
    ("search", r"(?:{uchar}|[;:@&=/?\[\]])*"),
    ("query", r"(?:{pchar}|[/?\[\]])*"),
    (
        "gopherurl",
        r"gopher://{hostport}(?:/(?:{gtype}(?:{selector}(?:%09{gopher-search}(?:%09{gopher+_string})?)?)?)?)?",
    ),
    ("gopher-search", r"(?:{uchar}|[;:@&=/?])*"),
    // A file URL is read as a path: RFC 8089 2's `file:/path` (a
    // `local-path`) and `file://host/path`, and the forms tools write for
    // a path relative to somewhere (the AWS CLI's `file://request.json`,
    // the Linux kernel's `<file:Documentation/...>`): whatever stands
    // after `file:` is judged as path characters only (see `file.rs`).
    ("fileurl", r"file:(?:/{fpath}|{fsegment-nz}(?:/{fsegment})*)"),
    ("fsegment-nz", r"(?:{uchar}|[?:@&=])+"),
    // DNS names hold `_` (`_dmarc.example.org`, SRV names, and hosts named
    // before RFC 1123 said otherwise): browsers and resolvers take them.
    ("domainlabel", r"(?:{alphadigit}|_)(?:(?:{alphadigit}|[\-_])*(?:{alphadigit}|_))?"),
    ("toplabel", r"(?:{alpha}|_)(?:(?:{alphadigit}|[\-_])*(?:{alphadigit}|_))?"),
    // RFC 6068: a list of addresses, then `?header=value&...` fields; mail
    // clients %-decode the address, so `mailto:x%40example.org` (the form
    // docutils writes to keep harvesters off) is an address too.
    ("mailtourl", r"mailto:(?:{mailto-to}(?:\?{query})?|\?(?:{pchar}|[/?\[\]])+)"),
    ("mailto-to", r"{mailto-addr}(?:,{mailto-addr})*"),
    ("mailto-addr", r"{mailto-char}+(?:@|%40){mailto-char}+"),
    ("mailto-char", r"{alpha}|{digit}|[$\-_.+!*'()~;/:&=]|{escape}"),
    // RFC 5538 2.1: a news URL may name its server, `news://server/group`
    // (or an article there, or the server alone with nothing after `/`).
    ("newsurl", r"news:(?://{hostport}/(?:{grouppart})?|{grouppart})"),
    // RFC 6874: an IPv6 literal may name its zone, `[fe80::1%25eth0]`.
    ("IP-literal", r"\[(?:{IPv6address}(?:%25(?:{unreserved}|{escape})+)?|{IPvFuture})\]"),
    ("IP-literal-chars", r"\[(?:{unreserved}|{sub-delims}|[:%])+\]"),
];

/// A superset of `IP-literal`: see [`Productions::url_pattern`].
pub(crate) const IP_LITERAL_CHARS: (&str, &str) =
    ("IP-literal-chars", r"\[(?:{unreserved}|{sub-delims}|:)+\]");

/// The productions RFC 3986's IP literal needs, available in both grammars
/// (RFC 1738 mode uses them to say "this would be fine under RFC 3986").
const IP_LITERAL_ONLY: &[&str] = &[
    "IP-literal",
    "IPvFuture",
    "IPv6address",
    "h16",
    "ls32",
    "IPv4address",
    "dec-octet",
    "sub-delims",
];

/// A grammar's productions by name, after overrides.
pub(crate) struct Productions {
    rules: HashMap<&'static str, &'static str>,
}

impl Productions {
    /// The productions of `grammar`: RFC 1738, then the refinements, then
    /// (for the RFC 3986 profiles) the overrides, then (for the modern
    /// profile) its own; later rows win. In RFC 1738 mode the IP-literal
    /// productions of RFC 3986 are present too (unused by any RFC 1738
    /// scheme, needed for hints).
    pub(crate) fn new(grammar: Grammar) -> Productions {
        let mut rules = HashMap::new();
        for (name, rhs) in RFC1738.iter().chain(REFINEMENTS).chain([&IP_LITERAL_CHARS]) {
            rules.insert(*name, *rhs);
        }
        for (name, rhs) in RFC3986 {
            if grammar != Grammar::Rfc1738 || IP_LITERAL_ONLY.contains(name) {
                rules.insert(*name, *rhs);
            }
        }
        if grammar == Grammar::Modern {
            for (name, rhs) in MODERN {
                rules.insert(*name, *rhs);
            }
        }
        Productions { rules }
    }

    /// The production `name` with every `{reference}` expanded, as a regex.
    ///
    /// # Panics
    /// On an unknown name or a cycle: both are bugs in the tables above,
    /// caught by the unit tests.
    pub(crate) fn expand(&self, name: &str) -> String {
        self.expand_in(name, &mut Vec::new(), false)
    }

    fn expand_in(&self, name: &str, stack: &mut Vec<String>, coarse_ip: bool) -> String {
        if coarse_ip && name == "IP-literal" {
            return self.expand_in("IP-literal-chars", stack, false);
        }
        assert!(!stack.iter().any(|n| n == name), "grammar cycle through {name}");
        let rhs = self.rules.get(name).unwrap_or_else(|| panic!("no production {name}"));
        stack.push(name.to_string());
        let mut out = String::with_capacity(rhs.len() * 2);
        let mut rest = *rhs;
        while let Some(open) = rest.find('{') {
            // `{` followed by a letter names a production; `{1,4}` is a
            // regex repetition and stays as written.
            let after = &rest[open + 1..];
            if !after.starts_with(|c: char| c.is_ascii_alphabetic()) || rest[..open].ends_with('\\')
            {
                out.push_str(&rest[..=open]);
                rest = after;
                continue;
            }
            let close = after.find('}').expect("unclosed {reference}");
            out.push_str(&rest[..open]);
            let mut inner = self.expand_in(&after[..close], stack, coarse_ip);
            // The scheme is read ignoring case (RFC 1738 2.1).
            if &after[..close] == "scheme" {
                inner = format!("(?i:{inner})");
            }
            out.push_str("(?:");
            out.push_str(&inner);
            out.push(')');
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        stack.pop();
        out
    }

    /// The regex for a whole URL of the scheme whose top production is
    /// `top` (e.g. `ftpurl`): the production, its literal scheme name read
    /// ignoring case, and an optional `#fragment`.
    ///
    /// An `IP-literal` is compiled here as [`IP_LITERAL_CHARS`], a bracketed
    /// run of the characters one may hold, and checked exactly by its own
    /// DFA afterwards (like the octet and port ranges). Inlined, its
    /// states would be copied into each of the eleven scheme DFAs, making
    /// them ten times larger and slower to build.
    pub(crate) fn url_pattern(&self, top: &str) -> String {
        let body = self.expand_in(top, &mut Vec::new(), true);
        let body = case_ignore_scheme_literals(&body);
        format!("(?:{body})(?:#(?:{}))?", self.expand("fragment"))
    }
}

/// Rewrites every literal scheme prefix such as `ftp://` or `news:` at the
/// start of an alternative into `(?i:ftp)://`: RFC 1738 2.1 asks readers to
/// accept upper case in scheme names.
fn case_ignore_scheme_literals(pattern: &str) -> String {
    const SCHEMES: &[&str] = &[
        "ftp:",
        "file:",
        "http:",
        "https:",
        "gopher:",
        "mailto:",
        "news:",
        "nntp:",
        "telnet:",
        "wais:",
        "prospero:",
        "mid:",
        "cid:",
    ];
    let mut out = String::with_capacity(pattern.len() + 16);
    let bytes = pattern.as_bytes();
    let mut i = 0;
    while i < pattern.len() {
        let at_alt_start =
            i == 0 || bytes[i - 1] == b'(' || bytes[i - 1] == b'|' || bytes[i - 1] == b':';
        let found = if at_alt_start {
            SCHEMES.iter().find(|s| pattern[i..].starts_with(**s))
        } else {
            None
        };
        match found {
            Some(s) => {
                out.push_str("(?i:");
                out.push_str(&s[..s.len() - 1]);
                out.push_str("):");
                i += s.len();
            }
            None => {
                let c = pattern[i..].chars().next().expect("in bounds");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// The top production of each scheme that has its own DFA, in the order
/// of the validator's engine table; `otherurl` is the generic one.
pub(crate) const URL_TOPS: [&str; 14] = [
    "ftpurl",
    "httpurl",
    "httpsurl",
    "gopherurl",
    "mailtourl",
    "newsurl",
    "nntpurl",
    "telneturl",
    "waisurl",
    "fileurl",
    "prosperourl",
    "midurl",
    "cidurl",
    "otherurl",
];

/// The patterns compiled into DFAs for one grammar, in the order the
/// build script stores them: one per entry of [`URL_TOPS`], then the exact
/// `IP-literal`. Plain RFC 3986 knows no scheme: every entry is its
/// generic syntax (stored once by the build script).
pub(crate) fn compiled_patterns(grammar: Grammar) -> Vec<String> {
    let p = Productions::new(grammar);
    let mut out: Vec<String> = URL_TOPS
        .iter()
        .map(|top| p.url_pattern(if grammar == Grammar::Rfc3986 { "otherurl" } else { top }))
        .collect();
    out.push(p.expand("IP-literal"));
    out
}

/// Compiles `pattern` (bytes, no Unicode) into the anchored dense DFA the
/// validator walks. The build script calls this for every pattern of
/// [`compiled_patterns`]; tests call it for single productions.
///
/// # Panics
/// If the pattern does not compile: the patterns come from the tables
/// above, so that is a bug caught by the unit tests.
pub(crate) fn compile(pattern: &str) -> dense::DFA<Vec<u32>> {
    dense::Builder::new()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .thompson(thompson::Config::new().utf8(false))
        .configure(
            // Whole-input matching needs every match, not the
            // leftmost-first one: under leftmost-first, `a|ab` stops at
            // `a` and never accepts "ab".
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Anchored)
                // Minimizing would save little memory and cost most of
                // the build time.
                .minimize(false)
                .accelerate(false),
        )
        .build(pattern)
        .unwrap_or_else(|e| panic!("grammar does not compile: {e}\n{pattern}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dfa::FullMatch;

    fn m(g: Grammar, name: &str, hay: &str) -> bool {
        let p = Productions::new(g);
        FullMatch::new(&format!("(?:{})", p.expand(name))).is_match(hay.as_bytes())
    }

    #[test]
    fn every_production_expands_and_compiles() {
        for g in Grammar::ALL {
            let p = Productions::new(g);
            for name in p.rules.keys() {
                let _ = dense::DFA::new(&p.expand(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }

    #[test]
    fn bnf_lines() {
        let g = Grammar::Rfc1738;
        // hostname = *[ domainlabel "." ] toplabel
        assert!(m(g, "hostname", "www.example.com"));
        assert!(m(g, "hostname", "a"));
        assert!(m(g, "hostname", "3com.com"));
        assert!(!m(g, "hostname", "www.example.3com"));
        assert!(!m(g, "hostname", "-a.com"));
        assert!(!m(g, "hostname", "a-.com"));
        assert!(!m(g, "hostname", "example.com."));
        // hostnumber = digits "." digits "." digits "." digits
        assert!(m(g, "hostnumber", "10.0.0.1"));
        assert!(!m(g, "hostnumber", "10.0.1"));
        // escape = "%" hex hex
        assert!(m(g, "xchar", "%2f"));
        assert!(!m(g, "xchar", "%2g"));
        // ftptype = "A" | "I" | "D" | "a" | "i" | "d"
        assert!(m(g, "ftptype", "D"));
        assert!(!m(g, "ftptype", "x"));
        // the scheme is read ignoring case
        assert!(m(g, "otherurl", "HTTP:"));
        assert!(m(g, "otherurl", "1a:b"));
        assert!(!m(Grammar::Rfc3986, "otherurl", "1a:b"));
        // RFC 3986 IPv6
        let g = Grammar::Rfc3986;
        assert!(m(g, "IPv6address", "::1"));
        assert!(m(g, "IPv6address", "2001:db8::7"));
        assert!(m(g, "IPv6address", "::ffff:10.0.0.1"));
        assert!(!m(g, "IPv6address", "1:2:3:4:5:6:7:8:9"));
        assert!(!m(g, "IPv6address", "::256.0.0.1"));
        assert!(m(g, "host", "example.com."));
    }

    #[test]
    fn url_patterns_read_scheme_ignoring_case() {
        let p = Productions::new(Grammar::Rfc1738);
        let d = FullMatch::new(&p.url_pattern("ftpurl"));
        assert!(d.is_match(b"FTP://host/x;type=a"));
        assert!(!d.is_match(b"ftp://host/x;TYPE=a"));
        let d = FullMatch::new(&p.url_pattern("waisurl"));
        assert!(d.is_match(b"WAIS://host/db/t/p"));
    }
}
