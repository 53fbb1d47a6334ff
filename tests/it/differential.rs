//! The RFC 3986 profiles against an independent RFC 3986/3987 parser,
//! `fluent-uri` (strict, well kept, and written from the RFC's ABNF, not
//! from browsers' leniency).
//!
//! - `rfc3986`: wherever fluent-uri accepts a URI, no error; wherever it
//!   rejects one, an error. No disagreement is expected at all.
//! - `modern`: wherever fluent-uri accepts an IRI, the only errors are the
//!   scheme and host-name rules the profile adds on purpose (each listed
//!   with its reason in [`MODERN_ADDS`]); where it rejects one the modern
//!   profile accepts, the reason is one of [`modern_allows`].
//!
//! Inputs: every URL extracted from `corpus/`, from `../shared/corpus` when
//! it is there (skipped, and said so, when it is not), and generated URLs.

use std::path::Path;
use std::sync::LazyLock;

use proptest::prelude::*;
use urlsift::diag::{Code, Grammar, Severity};
use urlsift::extract::{Options, Sifter};
use urlsift::rules::{Validation, Validator};

static RFC3986: LazyLock<Validator> = LazyLock::new(|| Validator::new(Grammar::Rfc3986));
static MODERN: LazyLock<Validator> = LazyLock::new(|| Validator::new(Grammar::Modern));

/// The errors the modern profile adds to RFC 3986 on purpose.
const MODERN_ADDS: &[(Code, &str)] = &[
    (Code::MissingSlashes, "RFC 1738 / RFC 9110 / RFC 8089: these schemes need `//` and a host"),
    (Code::EmptyHost, "RFC 9110 4.2.1 and RFC 1738 3.1: an http(s) or ftp host cannot be empty"),
    (
        Code::BadHostname,
        "host names are letters, digits, `-` and `_` (as DNS takes them), or a valid IDN",
    ),
    (Code::TopLabelDigit, "RFC 1738 5 `toplabel`; browsers read such a host as a bad IPv4 address"),
    (Code::LabelHyphen, "RFC 1123 2.1: no label starts or ends with `-`"),
    (Code::IpOctetRange, "a dotted quad above 255 is no address (RFC 3986 calls it a reg-name)"),
    (Code::PortRange, "TCP ports stop at 65535; RFC 3986's port is `*DIGIT`"),
    (
        Code::ReservedCharacter,
        "RFC 1738 scheme productions (gopher, ftp, wais, ...) are narrower than RFC 3986's path",
    ),
    (Code::UserinfoNotAllowed, "RFC 1738: no userinfo in gopher, nntp, wais, prospero"),
    (Code::FtpTypecode, "RFC 1738 3.2.2"),
    (Code::GopherSelector, "RFC 1738 3.4"),
    (Code::NewsForm, "RFC 1738 3.6, RFC 5538"),
    (Code::NntpArticle, "RFC 1738 3.7"),
    (Code::TelnetPath, "RFC 1738 3.8"),
    (Code::WaisForm, "RFC 1738 3.9"),
    (Code::FileHost, "RFC 1738 3.10, RFC 8089"),
    (Code::ProsperoField, "RFC 1738 3.11"),
    (Code::MailtoAddress, "RFC 1738 3.5, RFC 6068: the body is an addr-spec"),
    (Code::MessageId, "RFC 2392: the body is a msg-id"),
    (Code::BadPort, "RFC 1738 3.1: a port is digits"),
];

/// Why the modern profile accepts an IRI that fluent-uri rejects, if it is
/// one of the reasons the profile means to.
fn modern_allows(url: &str) -> Option<&'static str> {
    if url.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("file:")) {
        return Some(
            "a file URL is read as a path (`file://request.json`, `file:Documentation/x`)",
        );
    }
    let fragment = url.split_once('#').map(|(_, f)| f);
    if fragment.is_some_and(|f| f.contains('#')) {
        return Some("a `#` inside the fragment: browsers (WHATWG) take it as is");
    }
    // RFC 3986's authority has one port; a list of hosts with a port each
    // is how libpq, MongoDB and pydantic name a cluster.
    let authority = url.split_once("//").map(|(_, rest)| {
        let a = rest.split(['/', '?', '#']).next().unwrap_or("");
        a.rsplit('@').next().unwrap_or("")
    });
    if authority.is_some_and(|a| a.contains(',')) {
        return Some("a list of hosts, each with its own port (`h1:5432,h2:5433`)");
    }
    let after_query = url.find(['?', '#']).map(|i| &url[i..]);
    if after_query.is_some_and(|q| q.contains(['[', ']'])) {
        return Some("`[` or `]` in a query or fragment: browsers (WHATWG) take them as they are");
    }
    None
}

fn errors(r: &Validation) -> Vec<Code> {
    r.diagnostics.iter().filter(|d| d.severity == Severity::Error).map(|d| d.code).collect()
}

/// Compares one URL; returns a description of an unexplained disagreement.
fn compare(url: &str) -> Option<String> {
    let uri_ok = fluent_uri::Uri::parse(url).is_ok();
    let r = RFC3986.validate(url.as_bytes());
    if uri_ok != r.is_valid() {
        return Some(format!(
            "rfc3986 {url:?}: fluent-uri {} but urlsift says {:?}",
            if uri_ok { "accepts" } else { "rejects" },
            r.diagnostics.iter().map(|d| (d.code, d.message.as_str())).collect::<Vec<_>>()
        ));
    }
    let iri_ok = fluent_uri::Iri::parse(url).is_ok();
    let m = MODERN.validate(url.as_bytes());
    if iri_ok {
        let unexplained: Vec<Code> =
            errors(&m).into_iter().filter(|c| !MODERN_ADDS.iter().any(|(a, _)| a == c)).collect();
        if !unexplained.is_empty() {
            return Some(format!("modern {url:?}: IRI, yet errors {unexplained:?}"));
        }
    } else if m.is_valid() && modern_allows(url).is_none() {
        return Some(format!("modern {url:?}: not an IRI, yet valid"));
    }
    None
}

/// Every URL extracted from the files under `dir` (the first 256 KiB of
/// each, to keep a debug-build test quick on a large corpus).
fn urls_under(dir: &Path, out: &mut Vec<String>) {
    let sifter = Sifter::new(Options::default());
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(mut bytes) = std::fs::read(&p) {
                bytes.truncate(256 << 10);
                for u in sifter.extract(&bytes) {
                    if let Ok(s) = String::from_utf8(u.url) {
                        out.push(s);
                    }
                }
            }
        }
    }
}

#[test]
fn corpus_urls_agree_with_fluent_uri() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut urls = Vec::new();
    urls_under(&root.join("corpus"), &mut urls);
    // `../shared/corpus` beside the main checkout; a worktree sits one
    // level deeper.
    let shared = ["../shared/corpus", "../../shared/corpus"]
        .map(|p| root.join(p))
        .into_iter()
        .find(|p| p.is_dir());
    match shared {
        Some(shared) => urls_under(&shared, &mut urls),
        None => eprintln!("../shared/corpus is absent: only corpus/ was compared"),
    }
    urls.sort();
    urls.dedup();
    assert!(urls.len() > 50, "too few URLs: {}", urls.len());
    let bad: Vec<String> = urls.iter().filter_map(|u| compare(u)).collect();
    assert!(bad.is_empty(), "{} of {} URLs disagree:\n{}", bad.len(), urls.len(), bad.join("\n"));
}

/// Hand-picked URLs from issue 14 and the corners of RFC 3986.
#[test]
fn known_corners_agree_with_fluent_uri() {
    for url in [
        "https://user@github.com/rust-lang/rust",
        "https://%E4%BE%8B.example/",
        "https://matrix.to/#/#room:server",
        "http://[::1]:8080/",
        "http://[v7.future]/",
        "http://[::1/",
        "http://a.example:99999/",
        "foo://a@b@c/",
        "ws://echo.example.com/",
        "http://host?q/a?b",
        "https://a.example/~u/",
        "http://256.1.1.1/",
        "https://bücher.de/",
        "mailto:postmaster",
        "1a:b",
        "http://a b/",
        "postgresql://h1.example:5432,h2.example:5433/db",
    ] {
        assert_eq!(compare(url), None);
    }
}

/// URL-like strings from RFC 3986's alphabet and a few outsiders.
fn generated() -> impl Strategy<Value = String> {
    let prefix = proptest::sample::select(vec![
        "http://",
        "https://",
        "ftp://",
        "foo:",
        "foo://",
        "ws://",
        "mailto:",
        "news:",
        "file://",
        "file:/",
        "gopher://",
        "telnet://",
        "urn:",
        "x:",
        "ssh://u@",
    ]);
    let body = proptest::collection::vec(
        proptest::sample::select(vec![
            "a", "Z", "0", "9", ".", "-", "_", "~", "%", "%41", "%e4", ":", "/", "?", "#", "@",
            "[", "]", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", " ", "<", "\"", "é",
            "::1", "v1.x", "255", "256",
        ]),
        0..16,
    );
    (prefix, body).prop_map(|(p, b)| format!("{p}{}", b.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn generated_urls_agree_with_fluent_uri(url in generated()) {
        prop_assert_eq!(compare(&url), None);
    }
}
