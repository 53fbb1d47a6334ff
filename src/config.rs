//! `urlsift.toml`: per-project settings, found in the current directory or
//! an ancestor (or named with `--config`). Command-line flags win over the
//! file; the file wins over the defaults.
//!
//! ```toml
//! grammar = "rfc3986"          # or "rfc1738" (the default)
//! fail-on = "warning"          # lint fails on this severity or worse
//! exclude = ["vendor/**"]      # path globs never scanned
//! ignore-urls = ["^http://localhost[:/]"]   # URLs matching a pattern are not reported
//! show = ["rfc1738"]           # also show, as notes, what only these grammars find
//!
//! [severity]                   # per code: "off", "note", "warning" or "error"
//! default-port = "off"
//! low-port = "error"
//!
//! [schemes]
//! allow = ["http", "https", "ftp", "mailto"]   # anything else: scheme-not-allowed
//! deny = ["gopher"]                             # these: scheme-not-allowed
//!
//! include-code = false         # lint URLs in documents' code blocks too
//!
//! [formats]                    # extensions read as another format
//! txt = "markdown"
//!
//! [[grammar-for]]              # files matching the glob use this grammar
//! glob = "rfc/**"              # (relative to this file's directory;
//! grammar = "rfc1738"          #  without `/`, a file name at any depth)
//!
//! [[grammar-for]]              # the first table whose glob matches wins
//! glob = "*.md"
//! grammar = "rfc3986"
//! ```
//!
//! `grammar` is the grammar for every file no `[[grammar-for]]` glob
//! matches; `--grammar` on the command line is the grammar for every file.
//!
//! Unknown keys and bad values are errors that name the file, the line and
//! the key, so a typo never silently does nothing.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::diag::{Code, Grammar, Severity};
use crate::doc::Format;

/// The settings a `urlsift.toml` may hold. Absent keys are `None`/empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Where the settings came from, if a file.
    pub path: Option<PathBuf>,
    /// `grammar`.
    pub grammar: Option<Grammar>,
    /// `fail-on`.
    pub fail_on: Option<Severity>,
    /// `[severity]`: per-code level, `None` = off.
    pub severities: Vec<(Code, Option<Severity>)>,
    /// `[schemes] allow`: when non-empty, only these schemes pass.
    pub allow_schemes: Vec<String>,
    /// `[schemes] deny`.
    pub deny_schemes: Vec<String>,
    /// `exclude`: path globs never scanned.
    pub exclude: Vec<String>,
    /// `ignore-urls`: regular expressions; a URL matching one is dropped.
    pub ignore_urls: Vec<String>,
    /// `include-code`: lint the URLs in documents' code too.
    pub include_code: Option<bool>,
    /// `[formats]`: extensions read as another format (`txt = "markdown"`).
    pub formats: Vec<(String, Format)>,
    /// `show`: grammars whose findings the profile lacks are shown as notes.
    pub show: Vec<Grammar>,
    /// `[[grammar-for]]`: `(glob, grammar)` in file order; the first glob
    /// that matches a file's path (from the config file's directory)
    /// chooses its grammar.
    pub grammar_for: Vec<(String, Grammar)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Raw {
    grammar: Option<String>,
    fail_on: Option<String>,
    #[serde(default)]
    severity: toml::Table,
    #[serde(default)]
    schemes: RawSchemes,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    ignore_urls: Vec<String>,
    include_code: Option<bool>,
    #[serde(default)]
    formats: toml::Table,
    #[serde(default)]
    show: Vec<toml::Spanned<String>>,
    #[serde(default)]
    grammar_for: Vec<RawGrammarFor>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrammarFor {
    glob: toml::Spanned<String>,
    grammar: toml::Spanned<String>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchemes {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// The file name looked for.
pub const FILE_NAME: &str = "urlsift.toml";

/// Finds `urlsift.toml` in `dir` or its nearest ancestor.
pub fn discover(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().map(|d| d.join(FILE_NAME)).find(|p| p.is_file())
}

/// Reads and checks a config file. The error message names the file and,
/// for syntax and key errors, the line and the key.
pub fn load(path: &Path) -> Result<Config, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse(&text, path)
}

/// Parses config text; `path` is only used in messages.
pub fn parse(text: &str, path: &Path) -> Result<Config, String> {
    let at = |span: Option<std::ops::Range<usize>>| {
        span.map(|s| format!(":{}", text[..s.start].matches('\n').count() + 1)).unwrap_or_default()
    };
    let raw: Raw = toml::from_str(text)
        .map_err(|e| format!("{}{}: {}", path.display(), at(e.span()), e.message().trim_end()))?;
    // Values are checked here rather than by serde so the message can say
    // which key holds the bad value; toml spans locate it in the file.
    let locate = |key: &str| {
        text.lines()
            .position(|l| l.trim_start().starts_with(key))
            .map(|i| format!(":{}", i + 1))
            .unwrap_or_default()
    };
    let bad = |key: &str, msg: String| format!("{}{}: {key}: {msg}", path.display(), locate(key));
    let mut cfg = Config { path: Some(path.to_path_buf()), ..Config::default() };
    if let Some(g) = raw.grammar {
        cfg.grammar = Some(parse_grammar(&g).ok_or_else(|| {
            bad("grammar", format!("{g:?} is not a grammar (use {})", grammar_names()))
        })?);
    }
    if let Some(f) = raw.fail_on {
        cfg.fail_on = Some(parse_severity(&f).ok_or_else(|| {
            bad("fail-on", format!("{f:?} is not a severity (use note, warning or error)"))
        })?);
    }
    for (code, level) in &raw.severity {
        let c = Code::from_name(code)
            .ok_or_else(|| bad(code, "unknown diagnostic code (see `urlsift explain`)".into()))?;
        let lvl = level.as_str().and_then(parse_level).ok_or_else(|| {
            bad(code, format!("{level} is not one of \"off\", \"note\", \"warning\", \"error\""))
        })?;
        cfg.severities.push((c, lvl));
    }
    for (key, list) in [("allow", &raw.schemes.allow), ("deny", &raw.schemes.deny)] {
        if let Some(s) = list.iter().find(|s| s.is_empty() || !s.bytes().all(is_scheme_byte)) {
            return Err(bad(key, format!("{s:?} is not a scheme name")));
        }
    }
    cfg.allow_schemes = raw.schemes.allow.iter().map(|s| s.to_ascii_lowercase()).collect();
    cfg.deny_schemes = raw.schemes.deny.iter().map(|s| s.to_ascii_lowercase()).collect();
    for p in &raw.ignore_urls {
        regex_automata::meta::Regex::new(p)
            .map_err(|e| bad("ignore-urls", format!("bad pattern {p:?}: {e}")))?;
    }
    for (ext, format) in &raw.formats {
        let f = format.as_str().and_then(Format::from_name).ok_or_else(|| {
            bad(ext, format!("{format} is not a format (use one of: {})", format_names()))
        })?;
        cfg.formats.push((ext.trim_start_matches('.').to_string(), f));
    }
    // Values in lists and table arrays carry their own spans: the line of
    // the bad one, not the first line that names the key.
    let bad_at = |span: std::ops::Range<usize>, key: &str, msg: String| {
        format!("{}{}: {key}: {msg}", path.display(), at(Some(span)))
    };
    let grammar_of = |g: &toml::Spanned<String>, key: &str| {
        parse_grammar(g.get_ref()).ok_or_else(|| {
            bad_at(
                g.span(),
                key,
                format!("{:?} is not a grammar (use {})", g.get_ref(), grammar_names()),
            )
        })
    };
    for g in &raw.show {
        cfg.show.push(grammar_of(g, "show")?);
    }
    for t in &raw.grammar_for {
        let glob = t.glob.get_ref();
        globset::Glob::new(glob).map_err(|e| {
            bad_at(t.glob.span(), "grammar-for.glob", format!("bad glob {glob:?}: {}", e.kind()))
        })?;
        cfg.grammar_for.push((glob.clone(), grammar_of(&t.grammar, "grammar-for.grammar")?));
    }
    cfg.include_code = raw.include_code;
    cfg.exclude = raw.exclude;
    cfg.ignore_urls = raw.ignore_urls;
    Ok(cfg)
}

/// The format names, for messages.
pub fn format_names() -> String {
    Format::ALL.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ")
}

fn is_scheme_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
}

/// A grammar by its name (see [`Grammar::as_str`]): `rfc1738`, `rfc3986`.
pub fn parse_grammar(s: &str) -> Option<Grammar> {
    Grammar::ALL.iter().copied().find(|g| g.as_str() == s)
}

/// The grammar names, for messages: `"rfc1738" or "rfc3986"`.
fn grammar_names() -> String {
    let names: Vec<String> = Grammar::ALL.iter().map(|g| format!("{:?}", g.as_str())).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// `note`, `warning` or `error`.
pub fn parse_severity(s: &str) -> Option<Severity> {
    match s {
        "note" => Some(Severity::Note),
        "warning" => Some(Severity::Warning),
        "error" => Some(Severity::Error),
        _ => None,
    }
}

/// A severity or `off` (`Some(None)`).
pub fn parse_level(s: &str) -> Option<Option<Severity>> {
    if s == "off" { Some(None) } else { parse_severity(s).map(Some) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Config, String> {
        parse(text, Path::new("urlsift.toml"))
    }

    #[test]
    fn a_full_file() {
        let c = p(r#"
grammar = "rfc3986"
fail-on = "warning"
exclude = ["vendor/**"]
ignore-urls = ["^http://localhost"]

[severity]
default-port = "off"
low-port = "error"

[schemes]
allow = ["http", "HTTPS"]
deny = ["gopher"]
"#)
        .unwrap();
        assert_eq!(c.grammar, Some(Grammar::Rfc3986));
        assert_eq!(c.fail_on, Some(Severity::Warning));
        assert!(c.severities.contains(&(Code::DefaultPort, None)));
        assert!(c.severities.contains(&(Code::LowPort, Some(Severity::Error))));
        assert_eq!(c.allow_schemes, ["http", "https"]);
        assert_eq!(c.deny_schemes, ["gopher"]);
        assert_eq!(c.exclude, ["vendor/**"]);
        assert_eq!(c.ignore_urls, ["^http://localhost"]);
    }

    #[test]
    fn show_and_grammar_for() {
        let c = p(r#"
grammar = "rfc3986"
show = ["rfc1738"]

[[grammar-for]]
glob = "rfc/**"
grammar = "rfc1738"

[[grammar-for]]
glob = "*.md"
grammar = "rfc3986"
"#)
        .unwrap();
        assert_eq!(c.grammar, Some(Grammar::Rfc3986));
        assert_eq!(c.show, [Grammar::Rfc1738]);
        assert_eq!(
            c.grammar_for,
            [("rfc/**".to_string(), Grammar::Rfc1738), ("*.md".to_string(), Grammar::Rfc3986)]
        );
        // Each bad value is named at its own line, not the key's first.
        let e = p("show = [\"rfc1738\",\n  \"rfc2396\"]\n").unwrap_err();
        assert!(e.starts_with("urlsift.toml:2: show: \"rfc2396\" is not a grammar"), "{e}");
        let two = "[[grammar-for]]\nglob = \"a/**\"\ngrammar = \"rfc1738\"\n\n[[grammar-for]]\n";
        let e = p(&format!("{two}glob = \"b/[\"\ngrammar = \"rfc1738\"\n")).unwrap_err();
        assert!(e.starts_with("urlsift.toml:6: grammar-for.glob: bad glob \"b/[\""), "{e}");
        let e = p(&format!("{two}glob = \"b/**\"\ngrammar = \"rfc9\"\n")).unwrap_err();
        assert!(e.starts_with("urlsift.toml:7: grammar-for.grammar:"), "{e}");
        let e = p("[[grammar-for]]\nglob = \"a\"\n").unwrap_err();
        assert!(e.contains("grammar"), "{e}");
        let e = p("[[grammar-for]]\nglob = \"a\"\ngrammar = \"rfc1738\"\nshow = 1\n").unwrap_err();
        assert!(e.starts_with("urlsift.toml:4:") && e.contains("show"), "{e}");
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let e = p("grammar = \"rfc1738\"\nfail_on = \"error\"\n").unwrap_err();
        assert!(e.starts_with("urlsift.toml:2:") && e.contains("fail_on"), "{e}");
        let e = p("\n\ngrammar = \"rfc9999\"\n").unwrap_err();
        assert!(e.starts_with("urlsift.toml:3: grammar:"), "{e}");
        let e = p("[severity]\nno-such-code = \"off\"\n").unwrap_err();
        assert!(e.starts_with("urlsift.toml:2: no-such-code:"), "{e}");
        let e = p("[severity]\ndefault-port = \"loud\"\n").unwrap_err();
        assert!(e.contains("default-port"), "{e}");
        let e = p("ignore-urls = [\"(\"]\n").unwrap_err();
        assert!(e.starts_with("urlsift.toml:1: ignore-urls:"), "{e}");
        let e = p("grammar = [\n").unwrap_err();
        assert!(e.starts_with("urlsift.toml:"), "{e}");
    }
}
