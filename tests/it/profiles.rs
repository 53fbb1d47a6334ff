//! The severity table as behaviour: every code, under every profile, on
//! URLs that trigger it and URLs that must not (`tests/data/codes.toml`),
//! plus the few profile rules that are not a single code.

use std::collections::BTreeMap;

use serde::Deserialize;
use urlsift::diag::{Code, Diagnostic, Grammar, Severity};
use urlsift::extract::{Options, Sifter};
use urlsift::rules::Validator;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    code: String,
    url: Option<String>,
    text: Option<String>,
    #[serde(default)]
    deny: Vec<String>,
    modern: Option<String>,
    rfc3986: Option<String>,
    rfc1738: Option<String>,
    #[allow(dead_code)]
    why: Option<String>,
}

#[derive(Deserialize)]
struct Cases {
    case: Vec<Case>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../data/codes.toml");
    toml::from_str::<Cases>(text).expect("tests/data/codes.toml parses").case
}

impl Case {
    fn expected(&self, g: Grammar) -> Option<Severity> {
        let s = match g {
            Grammar::Modern => &self.modern,
            Grammar::Rfc3986 => &self.rfc3986,
            Grammar::Rfc1738 => &self.rfc1738,
        };
        match s.as_deref() {
            None | Some("-") => None,
            Some("note") => Some(Severity::Note),
            Some("warning") => Some(Severity::Warning),
            Some("error") => Some(Severity::Error),
            Some(other) => panic!("bad level {other:?}"),
        }
    }

    /// The diagnostics the case's input gets under `g`, and whether the
    /// input was judged valid.
    fn run(&self, g: Grammar) -> (Vec<Diagnostic>, bool) {
        match (&self.url, &self.text) {
            (Some(url), None) => {
                let v = Validator::new(g);
                let r = v.validate(url.as_bytes());
                assert_eq!(v.is_valid(url.as_bytes()), r.is_valid(), "{g:?} {url:?}");
                let mut out = Vec::new();
                v.diagnose(url.as_bytes(), &mut out);
                assert_eq!(out, r.diagnostics, "{g:?} {url:?}: diagnose differs from validate");
                let valid = r.is_valid();
                (r.diagnostics, valid)
            }
            (None, Some(text)) => {
                let sifter = Sifter::new(Options {
                    grammar: g,
                    deny_schemes: self.deny.clone(),
                    ..Options::default()
                });
                let urls = sifter.extract(text.as_bytes());
                let valid = urls.iter().all(|u| u.is_valid());
                let diags =
                    urls.into_iter().flat_map(|u| u.findings).map(|f| f.diagnostic).collect();
                (diags, valid)
            }
            _ => panic!("case for {} needs exactly one of url and text", self.code),
        }
    }
}

#[test]
fn every_code_behaves_as_its_table_says_under_every_profile() {
    let mut failures = Vec::new();
    for case in cases() {
        let code = Code::from_name(&case.code).unwrap_or_else(|| panic!("no code {}", case.code));
        for g in Grammar::ALL {
            let (diags, valid) = case.run(g);
            let found: Vec<Severity> =
                diags.iter().filter(|d| d.code == code).map(|d| d.severity).collect();
            let want = case.expected(g);
            let input = case.url.as_ref().or(case.text.as_ref()).unwrap();
            match want {
                None if !found.is_empty() => {
                    failures.push(format!("{g:?} {input:?}: {code} must not be reported"))
                }
                Some(s) if found.is_empty() || found.iter().any(|f| *f != s) => {
                    failures.push(format!("{g:?} {input:?}: want {code} as {s}, got {found:?}"))
                }
                _ => {}
            }
            if want == Some(Severity::Error) {
                assert!(!valid, "{g:?} {input:?}: an error makes the URL invalid");
            }
            for d in &diags {
                if case.url.is_some() {
                    assert_eq!(d.grammar, Some(g), "{input:?}");
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The table is complete: each code has a case that triggers it under
/// every profile that reports it, and a case that must not trigger it.
#[test]
fn the_case_table_covers_every_code_and_profile() {
    let cases = cases();
    let mut triggered: BTreeMap<(Code, &'static str), bool> = BTreeMap::new();
    let mut negative: BTreeMap<Code, bool> = BTreeMap::new();
    for case in &cases {
        let code = Code::from_name(&case.code).unwrap();
        for g in Grammar::ALL {
            if case.expected(g).is_some() {
                triggered.insert((code, g.as_str()), true);
            } else {
                negative.insert(code, true);
            }
        }
    }
    for &code in Code::ALL {
        // Too long to write as data; tests/hostile.rs and the test below
        // cover it. The local-link codes need files (tests/local_links.rs),
        // the online ones a server (tests/online.rs).
        if matches!(code, Code::UrlTooLong | Code::LocalLinkMissing | Code::FragmentMissing)
            || code.is_online()
        {
            continue;
        }
        for g in Grammar::ALL {
            // A code a profile leaves off still needs to be shown absent,
            // which the negative cases do; a code a profile reports needs a
            // case that triggers it there, unless no input can (the scheme
            // rules in plain rfc3986).
            if code.severity_in(g).is_some()
                && !triggered.contains_key(&(code, g.as_str()))
                && !(g == Grammar::Rfc3986 && code == Code::EmptyUrl)
            {
                panic!("no case triggers {code} under {}", g.as_str());
            }
        }
        assert!(negative.contains_key(&code), "no case shows where {code} must not appear");
    }
}

#[test]
fn url_too_long_in_every_profile() {
    let mut text = b"see http://a.example/".to_vec();
    text.resize(text.len() + (1 << 20) + 10, b'a');
    for g in Grammar::ALL {
        let sifter = Sifter::new(Options { grammar: g, ..Options::default() });
        let urls = sifter.extract(&text);
        let codes: Vec<Code> =
            urls.iter().flat_map(|u| &u.findings).map(|f| f.diagnostic.code).collect();
        assert!(codes.contains(&Code::UrlTooLong), "{g:?}: {codes:?}");
    }
}

/// Configuration replaces the profile's judgement: a code the modern
/// profile leaves off is reported when turned on, and then still not for
/// the schemes the IANA registry knows.
#[test]
fn configuration_turns_profile_codes_on_and_off() {
    let on =
        Validator::with_severities(Grammar::Modern, &[(Code::UnknownScheme, Some(Severity::Note))]);
    let r = on.validate(b"foo:bar");
    assert!(r.diagnostics.iter().any(|d| d.code == Code::UnknownScheme), "{r:?}");
    for known in
        ["ws://a.example/", "ssh://git@a.example/x", "git+ssh://a.example/x", "s3://bucket/key"]
    {
        let r = on.validate(known.as_bytes());
        assert!(r.diagnostics.is_empty(), "{known}: {:?}", r.diagnostics);
    }
    let off = Validator::with_severities(Grammar::Rfc1738, &[(Code::UnsafeCharacter, None)]);
    assert!(off.is_valid(b"http://a.example/~u/"));
    assert!(off.validate(b"http://a.example/~u/").diagnostics.is_empty());
    // Turned on, low-port applies to every scheme, http too.
    let up = Validator::with_severities(Grammar::Modern, &[(Code::LowPort, Some(Severity::Error))]);
    assert!(!up.is_valid(b"http://a.example:81/"));
}

#[test]
fn idn_findings_suggest_the_a_label_never_percent_encoding() {
    let v = Validator::new(Grammar::Rfc3986);
    let r = v.validate("https://bücher.de/".as_bytes());
    let d = r.diagnostics.iter().find(|d| d.code == Code::NonAscii).expect("non-ascii");
    assert_eq!(d.fix.as_deref(), Some("https://xn--bcher-kva.de/"));
    assert!(d.message.contains("xn--bcher-kva.de") && !d.message.contains('%'), "{}", d.message);
    let v = Validator::new(Grammar::Modern);
    let r = v.validate(b"https://%E4%BE%8B.com/");
    let d = &r.diagnostics[0];
    assert_eq!((d.code, d.severity), (Code::EncodedHost, Severity::Note));
    assert_eq!(d.fix.as_deref(), Some("https://xn--fsq.com/"));
    assert!(v.validate("https://例.com/".as_bytes()).diagnostics.is_empty());
}

#[test]
fn the_default_profile_is_modern() {
    assert_eq!(Grammar::default(), Grammar::Modern);
    assert_eq!(Options::default().grammar, Grammar::Modern);
    for g in Grammar::ALL {
        assert_eq!(Grammar::from_name(g.as_str()), Some(g));
    }
}
