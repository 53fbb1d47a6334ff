//! `urlsift explain`: the table of every code, or a page per code named:
//! what it means, which standard says so, how each profile treats it, an
//! example that triggers it (run live, so it cannot go stale) with its
//! corrected form, and how to silence it. `--json` gives the same to tools.

use std::io::Write;

use serde::{Deserialize, Serialize};
use urlsift::diag::{Code, Grammar, SCHEME_SEVERITIES, Severity};
use urlsift::extract::{Options, Sifter};
use urlsift::rules::Validator;

/// The table test's cases (tests/it/profiles.rs reads the same file): every
/// code with the inputs that trigger it under each profile.
const CASES: &str = include_str!("../tests/data/codes.toml");

#[derive(Deserialize)]
struct Case {
    code: String,
    url: Option<String>,
    text: Option<String>,
    #[serde(default)]
    deny: Vec<String>,
    modern: Option<String>,
    rfc3986: Option<String>,
    rfc1738: Option<String>,
}

#[derive(Deserialize)]
struct Cases {
    case: Vec<Case>,
}

impl Case {
    fn triggers_in(&self, g: Grammar) -> bool {
        let level = match g {
            Grammar::Modern => &self.modern,
            Grammar::Rfc3986 => &self.rfc3986,
            Grammar::Rfc1738 => &self.rfc1738,
        };
        level.as_deref().is_some_and(|l| l != "-")
    }
}

/// An input that gets the code, as urlsift reports it now.
#[derive(Serialize)]
struct Example {
    grammar: &'static str,
    /// `url` (validated) or `text` (read as a document).
    input: &'static str,
    value: String,
    message: String,
    fix: Option<String>,
}

/// What `explain --json` gives per code.
#[derive(Serialize)]
struct Page {
    code: &'static str,
    summary: &'static str,
    reason: &'static str,
    severity: [(&'static str, &'static str); 3],
    scheme_severities: Vec<(String, &'static str, String)>,
    example: Option<Example>,
    /// `safe` (applied by `lint --fix`), `unsafe` (with `--unsafe-fixes`)
    /// or `none`.
    fix: &'static str,
    silence: [String; 5],
}

fn level(l: Option<Severity>) -> &'static str {
    l.map_or("off", Severity::as_str)
}

/// The first case of `code` (in the most modern profile that reports it)
/// run now: its message and fix as a user would see them.
fn example(cases: &[Case], code: Code) -> Option<Example> {
    for g in Grammar::ALL {
        // The shortest input shows the point best.
        let mut mine: Vec<&Case> = cases
            .iter()
            .filter(|c| c.code == code.as_str() && c.deny.is_empty() && c.triggers_in(g))
            .collect();
        mine.sort_by_key(|c| c.url.as_ref().or(c.text.as_ref()).map_or(usize::MAX, String::len));
        for c in mine {
            let (input, value, diags) = match (&c.url, &c.text) {
                (Some(url), _) => {
                    ("url", url.clone(), Validator::new(g).validate(url.as_bytes()).diagnostics)
                }
                (None, Some(text)) => {
                    let sifter = Sifter::new(Options { grammar: g, ..Options::default() });
                    let diags = sifter
                        .extract(text.as_bytes())
                        .into_iter()
                        .flat_map(|u| u.findings)
                        .map(|f| f.diagnostic)
                        .collect();
                    ("text", text.clone(), diags)
                }
                (None, None) => continue,
            };
            if let Some(d) = diags.into_iter().find(|d| d.code == code) {
                return Some(Example {
                    grammar: g.as_str(),
                    input,
                    value,
                    message: d.message,
                    fix: d.fix,
                });
            }
        }
    }
    None
}

fn page(cases: &[Case], code: Code) -> Page {
    let severity = Grammar::ALL.map(|g| (g.as_str(), level(code.severity_in(g))));
    let scheme_severities = SCHEME_SEVERITIES
        .iter()
        .filter(|row| row.1 == code)
        .map(|(g, _, kinds, l)| {
            let names: Vec<String> =
                kinds.iter().map(|k| format!("{k:?}").to_ascii_lowercase()).collect();
            (g.as_str().to_string(), level(*l), names.join(", "))
        })
        .collect();
    let name = code.as_str();
    Page {
        code: name,
        summary: code.summary(),
        reason: code.reason(),
        severity,
        scheme_severities,
        example: example(cases, code),
        fix: urlsift::fix::safety(code).map_or("none", urlsift::fix::Safety::as_str),
        silence: code.silence().map(|(place, how)| format!("{place}: {how}")),
    }
}

/// Writes the table of `codes` (every code when none is named), or a page
/// per code named; JSON Lines with `json`.
pub fn run(named: &[Code], json: bool, out: &mut impl Write) -> std::io::Result<()> {
    let cases = toml::from_str::<Cases>(CASES).expect("tests/data/codes.toml parses").case;
    let codes: Vec<Code> = if named.is_empty() { Code::ALL.to_vec() } else { named.to_vec() };
    if json {
        for &c in &codes {
            let line = serde_json::to_string(&page(&cases, c)).expect("serializes");
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    if named.is_empty() {
        writeln!(out, "{:<22} {:<8} {:<8} {:<8} meaning", "code", "modern", "rfc3986", "rfc1738")?;
        for c in codes {
            let [m, r3, r1] = Grammar::ALL.map(|g| level(c.severity_in(g)));
            writeln!(out, "{:<22} {m:<8} {r3:<8} {r1:<8} {}", c.as_str(), c.summary())?;
        }
        writeln!(
            out,
            "\n`urlsift explain CODE` shows a page per code: why, an example, its fix, how to silence it."
        )?;
        return Ok(());
    }
    for (i, &c) in codes.iter().enumerate() {
        let p = page(&cases, c);
        if i > 0 {
            writeln!(out)?;
        }
        let esc = |s: &str| urlsift::escape::str_for_terminal(s).into_owned();
        writeln!(out, "{}\n\n  {}\n", p.code, p.summary)?;
        writeln!(out, "Severity: {}", p.severity.map(|(g, l)| format!("{l} in {g}")).join(", "))?;
        for (g, l, kinds) in &p.scheme_severities {
            writeln!(out, "  {g}: {l} for {kinds}")?;
        }
        writeln!(out, "Why: {}", p.reason)?;
        if let Some(e) = &p.example {
            writeln!(
                out,
                "\nExample ({}, --grammar {}):\n  {}",
                e.input,
                e.grammar,
                esc(&e.value)
            )?;
            writeln!(out, "  {}: {}", p.code, esc(&e.message))?;
            match &e.fix {
                Some(f) => writeln!(
                    out,
                    "  suggested fix: {} (mechanical: check it says what was meant)",
                    esc(f)
                )?,
                None => writeln!(out, "  no mechanical fix: the intended URL cannot be known")?,
            }
        }
        match p.fix {
            "safe" => writeln!(
                out,
                "Fix: safe, the URL names the same resource: `lint --fix` applies it"
            )?,
            "unsafe" => writeln!(
                out,
                "Fix: unsafe, it may change what the URL names: `lint --fix --unsafe-fixes` applies it"
            )?,
            _ => {}
        }
        writeln!(out, "\nTo silence it:")?;
        for s in &p.silence {
            writeln!(out, "  {s}")?;
        }
    }
    Ok(())
}
