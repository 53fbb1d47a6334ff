//! The documentation promises: every diagnostic code is in README's table,
//! with the severity the code really has under each profile, and the
//! scheme exceptions to that table are spelled out beside it.

use urlsift::diag::{Code, Grammar, SCHEME_SEVERITIES};

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

#[test]
fn readme_documents_every_code_with_its_severity() {
    let readme = readme();
    for c in Code::ALL {
        let level = |g: Grammar| c.severity_in(g).map_or("off", |s| s.as_str());
        // Each row opens with its anchor, which SARIF's `helpUri` links to.
        let row = format!(
            "| <a id=\"code-{c}\"></a>`{}` | {} | {} | {} | {} | {} |",
            c.as_str(),
            level(Grammar::Modern),
            level(Grammar::Rfc3986),
            level(Grammar::Rfc1738),
            c.summary().replace('|', "\\|"),
            c.reason().replace('|', "\\|"),
        );
        assert!(readme.contains(&row), "README.md lacks the row for {c}: {row}");
    }
}

#[test]
fn readme_documents_the_scheme_exceptions() {
    let readme = readme().split_whitespace().collect::<Vec<_>>().join(" ");
    for (g, code, kinds, level) in SCHEME_SEVERITIES {
        assert_eq!(*g, Grammar::Modern, "the README names only modern's exceptions");
        let names: Vec<String> =
            kinds.iter().map(|k| format!("{k:?}").to_ascii_lowercase()).collect();
        let text = format!(
            "`{code}` is a {} for {}",
            level.map_or("off", |s| s.as_str()),
            names.join(", ")
        );
        assert!(readme.contains(&text), "README.md lacks: {text}");
    }
}
