//! `urlsift.toml`: per-project settings, found in the current directory or
//! an ancestor (or named with `--config`). Command-line flags win over the
//! file; the file wins over the defaults.
//!
//! ```toml
//! grammar = "rfc1738"          # "modern" (the default), "rfc3986" or "rfc1738"
//! fail-on = "warning"          # lint fails on this severity or worse
//! exclude = ["vendor/**"]      # path globs never scanned
//! ignore-urls = ["^http://localhost[:/]"]   # URLs matching a pattern are not reported
//! show = ["rfc1738"]           # also show, as notes, what only these grammars find
//! include-code = false         # lint URLs in documents' code blocks too
//! local-links = true           # lint documents' relative links on disk
//! root-dir = "site"            # where `/path` links lead (from this file)
//!
//! [severity]                   # per code: "off", "note", "warning" or "error"
//! default-port = "off"
//! low-port = "error"
//!
//! [schemes]
//! allow = ["http", "https", "ftp", "mailto"]   # anything else: scheme-not-allowed
//! deny = ["gopher"]                             # these: scheme-not-allowed
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
//!
//! [online]                     # `lint --online`, `check --online`
//! exclude = ["^https://twitter\\.com/"]   # URLs never checked
//! include = ["^http://127\\.0\\.0\\.1:8000/"]   # checked whatever else says
//! per-host = 2                 # checks at once on one server
//! max-concurrency = 128        # checks at once in all
//! timeout = 20                 # seconds per request
//! retries = 2                  # of a 429, 502-504 or a time-out
//! cache = ".urlsift-cache"     # from this file's directory
//! cache-age = "1d"             # s, m, h or d
//! check-fragments = false
//! nntp-server = "news.example.org"
//!
//! [[online.header]]            # sent to this host only, never printed
//! host = "api.github.com"      # or "*.example.org"
//! name = "Authorization"
//! value = "Bearer ${URLSIFT_GITHUB_TOKEN}"   # URLSIFT_* variables only
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
    /// `local-links`: check documents' relative links and `file:` URLs.
    pub local_links: Option<bool>,
    /// `root-dir`: the directory `/path` links are resolved against,
    /// relative to the config file's directory.
    pub root_dir: Option<PathBuf>,
    /// `[formats]`: extensions read as another format (`txt = "markdown"`).
    pub formats: Vec<(String, Format)>,
    /// `show`: grammars whose findings the profile lacks are shown as notes.
    pub show: Vec<Grammar>,
    /// `[[grammar-for]]`: `(glob, grammar)` in file order; the first glob
    /// that matches a file's path (from the config file's directory)
    /// chooses its grammar.
    pub grammar_for: Vec<(String, Grammar)>,
    /// `[online]`.
    pub online: Online,
}

/// `[online]`: the settings of online checks; absent keys are `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Online {
    /// `include`: URL patterns checked whatever else says.
    pub include: Vec<String>,
    /// `exclude`: URL patterns never checked.
    pub exclude: Vec<String>,
    /// `per-host`.
    pub per_host: Option<usize>,
    /// `max-concurrency`.
    pub max_concurrency: Option<usize>,
    /// `timeout`, in seconds.
    pub timeout: Option<u64>,
    /// `retries`.
    pub retries: Option<u32>,
    /// `cache`, relative to the config file's directory.
    pub cache: Option<PathBuf>,
    /// `cache-age`, in seconds.
    pub cache_age: Option<u64>,
    /// `check-fragments`.
    pub check_fragments: Option<bool>,
    /// `nntp-server`.
    pub nntp_server: Option<String>,
    /// `[[online.header]]`: `(host, name, value)`, the value as written
    /// (`${VAR}` not yet read: see [`expand_env`]).
    pub headers: Vec<(String, String, String)>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawOnline {
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    per_host: Option<usize>,
    max_concurrency: Option<usize>,
    timeout: Option<u64>,
    retries: Option<u32>,
    cache: Option<PathBuf>,
    cache_age: Option<String>,
    check_fragments: Option<bool>,
    nntp_server: Option<String>,
    #[serde(default)]
    header: Vec<RawHeader>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    host: String,
    name: String,
    value: String,
}

/// A duration written `90`, `30s`, `10m`, `2h` or `1d`: seconds.
pub fn parse_duration(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.as_bytes().last()? {
        b's' => (&s[..s.len() - 1], 1),
        b'm' => (&s[..s.len() - 1], 60),
        b'h' => (&s[..s.len() - 1], 3600),
        b'd' => (&s[..s.len() - 1], 86400),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mul)
}

/// `${VAR}` in a header value replaced by the variable's value; an unset
/// variable is an error naming it (never the value). Only variables
/// named `URLSIFT_*` are read: a config file comes with the tree being
/// linted, and must not be able to send another secret of the
/// environment (a cloud key) to a host of its choosing.
pub fn expand_env(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('}').ok_or("an unclosed ${ in a header value")?;
        let name = &after[..end];
        if !name.starts_with("URLSIFT_") {
            return Err(format!(
                "${{{}}}: only variables named URLSIFT_* are read in a header value",
                crate::escape::str_for_terminal(name)
            ));
        }
        let v = std::env::var(name).map_err(|_| {
            format!("the environment variable {} is not set", crate::escape::str_for_terminal(name))
        })?;
        out.push_str(&v);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
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
    local_links: Option<bool>,
    root_dir: Option<PathBuf>,
    #[serde(default)]
    formats: toml::Table,
    #[serde(default)]
    show: Vec<toml::Spanned<String>>,
    #[serde(default)]
    grammar_for: Vec<RawGrammarFor>,
    #[serde(default)]
    online: RawOnline,
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

/// Finds `urlsift.toml` in `dir` or its nearest ancestor, looking no
/// higher than the repository root (the nearest directory holding
/// `.git`): a file planted in a shared parent directory must not change
/// every checkout below it. Whatever stands there under that name is
/// returned, so that [`load`] can refuse what is not a regular file
/// rather than the run ignoring it silently.
pub fn discover(dir: &Path) -> Option<PathBuf> {
    for d in dir.ancestors() {
        let p = d.join(FILE_NAME);
        if p.symlink_metadata().is_ok() {
            return Some(p);
        }
        if d.join(".git").symlink_metadata().is_ok() {
            return None;
        }
    }
    None
}

/// Reads and checks a discovered config file: like [`load`], and a
/// symbolic link is refused, since it may lead out of the tree (name the
/// file with `--config` to read it all the same).
pub fn load_discovered(path: &Path) -> Result<Config, String> {
    match path.symlink_metadata() {
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "{}: is a symbolic link, not read (name it with --config to use it)",
            shown(path)
        )),
        _ => load(path),
    }
}

/// Reads and checks a config file. The error message names the file and,
/// for syntax and key errors, the line and the key.
pub fn load(path: &Path) -> Result<Config, String> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return Err(format!("{}: is not a regular file", shown(path)));
        }
        Err(e) => return Err(format!("{}: cannot read: {e}", shown(path))),
        Ok(_) => {}
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", shown(path)))?;
    parse(&text, path)
}

/// A path for a message, escaped for the terminal.
fn shown(path: &Path) -> String {
    crate::escape::for_terminal(path.as_os_str().as_encoded_bytes()).into_owned()
}

/// Parses config text; `path` is only used in messages.
pub fn parse(text: &str, path: &Path) -> Result<Config, String> {
    let at = |span: Option<std::ops::Range<usize>>| {
        span.map(|s| format!(":{}", text[..s.start].matches('\n').count() + 1)).unwrap_or_default()
    };
    let raw: Raw = toml::from_str(text).map_err(|e| {
        let msg = crate::escape::str_for_terminal(e.message().trim_end()).into_owned();
        format!("{}{}: {msg}", shown(path), at(e.span()))
    })?;
    // Values are checked here rather than by serde so the message can say
    // which key holds the bad value; toml spans locate it in the file.
    let locate = |key: &str| {
        text.lines()
            .position(|l| l.trim_start().starts_with(key))
            .map(|i| format!(":{}", i + 1))
            .unwrap_or_default()
    };
    // Messages name the key, never the value (a config may hold what is
    // not for a CI log), and keys are escaped: TOML keys may hold any
    // character.
    let bad = |key: &str, msg: String| {
        let k = crate::escape::str_for_terminal(key);
        format!("{}{}: {k}: {msg}", shown(path), locate(key))
    };
    let mut cfg = Config { path: Some(path.to_path_buf()), ..Config::default() };
    if let Some(g) = raw.grammar {
        cfg.grammar =
            Some(parse_grammar(&g).ok_or_else(|| {
                bad("grammar", format!("not a grammar (use {})", grammar_names()))
            })?);
    }
    if let Some(f) = raw.fail_on {
        cfg.fail_on = Some(parse_severity(&f).ok_or_else(|| {
            bad("fail-on", "not a severity (use note, warning or error)".to_string())
        })?);
    }
    for (code, level) in &raw.severity {
        let c = Code::from_name(code).ok_or_else(|| {
            let hint =
                Code::suggest(code).map(|c| format!(": did you mean `{c}`?")).unwrap_or_default();
            bad(code, format!("unknown diagnostic code{hint} (see `urlsift explain`)"))
        })?;
        let lvl = level.as_str().and_then(parse_level).ok_or_else(|| {
            bad(code, "not one of \"off\", \"note\", \"warning\", \"error\"".to_string())
        })?;
        cfg.severities.push((c, lvl));
    }
    for (key, list) in [("allow", &raw.schemes.allow), ("deny", &raw.schemes.deny)] {
        if list.iter().any(|s| s.is_empty() || !s.bytes().all(is_scheme_byte)) {
            return Err(bad(key, "holds a value that is not a scheme name".to_string()));
        }
    }
    cfg.allow_schemes = raw.schemes.allow.iter().map(|s| s.to_ascii_lowercase()).collect();
    cfg.deny_schemes = raw.schemes.deny.iter().map(|s| s.to_ascii_lowercase()).collect();
    for p in &raw.ignore_urls {
        regex_automata::meta::Regex::new(p)
            .map_err(|_| bad("ignore-urls", "holds a pattern that is not a valid regex".into()))?;
    }
    for (ext, format) in &raw.formats {
        let f = format
            .as_str()
            .and_then(Format::from_name)
            .ok_or_else(|| bad(ext, format!("not a format (use one of: {})", format_names())))?;
        cfg.formats.push((ext.trim_start_matches('.').to_string(), f));
    }
    let mut globs = ignore::overrides::OverrideBuilder::new(".");
    for g in &raw.exclude {
        globs
            .add(&format!("!{g}"))
            .map_err(|_| bad("exclude", "holds a glob that is not valid".to_string()))?;
    }
    // Values in lists and table arrays carry their own spans: the line of
    // the bad one, not the first line that names the key.
    let bad_at = |span: std::ops::Range<usize>, key: &str, msg: String| {
        format!(
            "{}{}: {}: {msg}",
            shown(path),
            at(Some(span)),
            crate::escape::str_for_terminal(key)
        )
    };
    let grammar_of = |g: &toml::Spanned<String>, key: &str| {
        parse_grammar(g.get_ref()).ok_or_else(|| {
            bad_at(g.span(), key, format!("not a grammar (use {})", grammar_names()))
        })
    };
    for g in &raw.show {
        cfg.show.push(grammar_of(g, "show")?);
    }
    for t in &raw.grammar_for {
        let glob = t.glob.get_ref();
        globset::Glob::new(glob).map_err(|e| {
            bad_at(t.glob.span(), "grammar-for.glob", format!("not a valid glob: {}", e.kind()))
        })?;
        cfg.grammar_for.push((glob.clone(), grammar_of(&t.grammar, "grammar-for.grammar")?));
    }
    cfg.include_code = raw.include_code;
    cfg.local_links = raw.local_links;
    // Relative to the file, as `[[grammar-for]]` globs are.
    cfg.root_dir = raw.root_dir.map(|d| path.parent().unwrap_or(Path::new("")).join(d));
    cfg.exclude = raw.exclude;
    cfg.ignore_urls = raw.ignore_urls;
    let o = raw.online;
    for (key, list) in [("include", &o.include), ("exclude", &o.exclude)] {
        for p in list {
            regex_automata::meta::Regex::new(p)
                .map_err(|_| bad(key, "holds a pattern that is not a valid regex".into()))?;
        }
    }
    let cache_age = match &o.cache_age {
        Some(a) => Some(parse_duration(a).ok_or_else(|| {
            bad("cache-age", "not a duration (use e.g. 90, 30s, 10m, 2h, 1d)".into())
        })?),
        None => None,
    };
    for h in &o.header {
        if h.name.is_empty() || !h.name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
            return Err(bad("name", "not a header name".into()));
        }
    }
    cfg.online = Online {
        include: o.include,
        exclude: o.exclude,
        per_host: o.per_host,
        max_concurrency: o.max_concurrency,
        timeout: o.timeout,
        retries: o.retries,
        cache: match o.cache {
            // In the config file's tree: a config that comes with a tree
            // must not name a file elsewhere to write.
            Some(c)
                if c.is_absolute()
                    || c.components().any(|p| matches!(p, std::path::Component::ParentDir)) =>
            {
                return Err(bad("cache", "must be a relative path without `..`".into()));
            }
            Some(c) => Some(path.parent().unwrap_or(Path::new("")).join(c)),
            None => None,
        },
        cache_age,
        check_fragments: o.check_fragments,
        nntp_server: o.nntp_server,
        headers: o.header.into_iter().map(|h| (h.host, h.name, h.value)).collect(),
    };
    Ok(cfg)
}

/// The format names, for messages.
pub fn format_names() -> String {
    Format::ALL.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ")
}

fn is_scheme_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
}

/// `modern`, `rfc3986` or `rfc1738`.
pub fn parse_grammar(s: &str) -> Option<Grammar> {
    Grammar::from_name(s)
}

/// The grammar names, for messages: `"modern", "rfc3986" or "rfc1738"`.
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
    fn online_settings_are_read_and_checked() {
        let c = p("[online]\nper-host = 4\ncache-age = \"12h\"\nexclude = [\"^https://x\"]\ncache = \"c\"\n\
                   [[online.header]]\nhost = \"api.example.org\"\nname = \"Authorization\"\nvalue = \"t ${X}\"\n")
        .unwrap();
        assert_eq!(c.online.per_host, Some(4));
        assert_eq!(c.online.cache_age, Some(12 * 3600));
        assert_eq!(c.online.exclude, ["^https://x"]);
        assert_eq!(c.online.cache.as_deref(), Some(Path::new("c")));
        assert_eq!(
            c.online.headers,
            [("api.example.org".into(), "Authorization".into(), "t ${X}".into())]
        );
        assert!(p("[online]\ncache-age = \"soon\"\n").unwrap_err().contains("cache-age"));
        assert!(p("[online]\nexclude = [\"(\"]\n").unwrap_err().contains("exclude"));
        assert!(p("[online]\nretry = 2\n").is_err());
        assert!(p("[online]\ncache = \"/home/u/.bashrc\"\n").unwrap_err().contains("cache"));
        assert!(p("[online]\ncache = \"../x\"\n").unwrap_err().contains("cache"));
        assert!(expand_env("Bearer ${HOME}").unwrap_err().contains("URLSIFT_"));
        assert_eq!(parse_duration("90"), Some(90));
        assert_eq!(parse_duration("2d"), Some(172_800));
        assert_eq!(parse_duration("x"), None);
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
        // Keys, not values (issue 20): the message does not echo "rfc2396".
        assert!(e.starts_with("urlsift.toml:2: show: not a grammar"), "{e}");
        assert!(!e.contains("rfc2396"), "{e}");
        let two = "[[grammar-for]]\nglob = \"a/**\"\ngrammar = \"rfc1738\"\n\n[[grammar-for]]\n";
        let e = p(&format!("{two}glob = \"b/[\"\ngrammar = \"rfc1738\"\n")).unwrap_err();
        assert!(e.starts_with("urlsift.toml:6: grammar-for.glob: not a valid glob"), "{e}");
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
        for g in Grammar::ALL {
            assert_eq!(p(&format!("grammar = \"{}\"\n", g.as_str())).unwrap().grammar, Some(g));
        }
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
