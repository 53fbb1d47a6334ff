//! The command line: flags as typed (clap derive), and nothing else. The
//! binary turns them into library options in `main.rs`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Find, rejoin and lint URLs in text (RFC 1738).
#[derive(Debug, Parser)]
#[command(name = "urlsift", version, about, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Shown under `urlsift extract --help` (and in its man page).
const EXTRACT_EXAMPLES: &str = "Examples:
  urlsift extract docs/                     every URL under docs/, one per line
  urlsift extract --json archive.mbox       JSON Lines: URL, kind, file, line, column
  urlsift extract -t md -g '!vendor/**' .   Markdown files only, vendor/ left out
  git show HEAD:README.md | urlsift extract -";

/// Shown under `urlsift lint --help`.
const LINT_EXAMPLES: &str = "Examples:
  urlsift lint .                            findings in the tree; exit 1 on any error
  urlsift lint --fail-on warning docs/      fail on warnings too
  urlsift lint --grammar rfc1738 rfc/       judge by RFC 1738 as written
  urlsift lint --format sarif . > urlsift.sarif
  urlsift lint --write-baseline .urlsift-baseline.json .
  urlsift lint --baseline .urlsift-baseline.json .   fail only on new findings
Silence one line with a comment holding `urlsift: ignore` or `urlsift: ignore[CODE,...]`;
a stretch with `urlsift: disable` ... `urlsift: enable`; a file with `urlsift: ignore-file`
in its first 8 KiB.";

/// Shown under `urlsift check --help`.
const CHECK_EXAMPLES: &str = "Examples:
  urlsift check 'http://example.com:99999/'
  urlsift check --json --grammar rfc1738 'ftp://host/a;type=x'
  sort -u urls.txt | urlsift check -";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print every URL found in the inputs (exit 0: found some, 1: none, 2: error).
    #[command(after_help = EXTRACT_EXAMPLES)]
    Extract(ExtractArgs),
    /// Report problems with the URLs found in the inputs (exit 0: clean, 1: findings at or above --fail-on, 2: error).
    #[command(after_help = LINT_EXAMPLES)]
    Lint(LintArgs),
    /// Validate URLs given as arguments, or one per line from standard input with `-` (exit 0: all valid, 1: some invalid, 2: usage error).
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// Describe diagnostic codes: all of them, or the ones named.
    Explain(ExplainArgs),
    /// Serve editors: a Language Server Protocol server on standard input and output (diagnostics, quick fixes, links, hovers; see the README's "Editor integration").
    Lsp,
    /// Print a shell completion script (for example `urlsift completions bash > /etc/bash_completion.d/urlsift`).
    Completions(CompletionsArgs),
    /// Print a manual page in roff: urlsift.1, or urlsift-COMMAND.1 with every flag of that command (`urlsift man lint | man -l -`).
    Man(ManArgs),
}

/// `man` flags.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (default: the overview, urlsift.1).
    #[arg(value_parser = ["extract", "lint", "check", "explain"])]
    pub command: Option<String>,
}

/// `completions` flags.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Flags shared by `extract` and `lint`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Files or directories to scan; `-` is standard input. Default: `.`.
    pub paths: Vec<PathBuf>,
    /// Walk hidden files and directories too.
    #[arg(long, help_heading = "Input")]
    pub hidden: bool,
    /// Do not respect .gitignore, .ignore and git exclude files.
    #[arg(long, help_heading = "Input")]
    pub no_ignore: bool,
    /// Follow symbolic links (loops are reported and skipped).
    #[arg(short = 'L', long, help_heading = "Input")]
    pub follow: bool,
    /// Include files matching GLOB, or exclude them with `!GLOB`; repeatable.
    #[arg(short = 'g', long = "glob", value_name = "GLOB", help_heading = "Input")]
    pub globs: Vec<String>,
    /// Walk only files of this type (ripgrep's type names: md, txt, html, ...); repeatable.
    #[arg(short = 't', long = "type", value_name = "TYPE", help_heading = "Input")]
    pub types: Vec<String>,
    /// Do not walk files of this type; repeatable.
    #[arg(short = 'T', long = "type-not", value_name = "TYPE", help_heading = "Input")]
    pub types_not: Vec<String>,
    /// Skip files larger than this (bytes; K, M, G suffixes allowed).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Input")]
    pub max_filesize: Option<u64>,
    /// Scan files that look binary (contain NUL) instead of skipping them.
    #[arg(long, help_heading = "Input")]
    pub binary: bool,
    /// Read gzip, bzip2, xz and zstd files as the bytes they are, instead of decompressing them (told by their first bytes).
    #[arg(long, help_heading = "Input")]
    pub no_decompress: bool,
    /// Stop a compressed file that expands more than N times its size, as a decompression bomb [default: 1000].
    #[arg(long, value_name = "N", help_heading = "Input")]
    pub max_ratio: Option<u64>,
    /// How to read inputs: auto detects mbox, mail and news by content; text reads raw bytes.
    #[arg(long, value_enum, default_value_t = InputArg::Auto, help_heading = "Input")]
    pub input: InputArg,
    /// Read files with extension EXT as FORMAT (markdown, html, json, script, config, source, rst, pod, troff, man, notebook, text); repeatable.
    #[arg(long = "format-of", value_name = "EXT=FORMAT", help_heading = "Input")]
    pub format_of: Vec<String>,
    /// Output JSON Lines (the same as `--format json`).
    #[arg(long, conflicts_with = "format", help_heading = "Output")]
    pub json: bool,
    /// Output format: text (default), json (JSON Lines), sarif (SARIF 2.1.0), github (workflow annotations).
    #[arg(long, value_enum, help_heading = "Output")]
    pub format: Option<FormatArg>,
    /// Print only a count per file (URLs for extract, findings for lint).
    #[arg(short = 'c', long, help_heading = "Output")]
    pub count: bool,
    /// Colour in text output: auto means when standard output is a terminal and NO_COLOR is unset.
    #[arg(long, value_enum, default_value_t = WhenArg::Auto, help_heading = "Output")]
    pub color: WhenArg,
    /// Print a summary (files, bytes, URLs, time, MB/s) on standard error.
    #[arg(long, help_heading = "Output")]
    pub stats: bool,
    /// URL grammar to validate against, for every file [default: modern, or `grammar` and `[[grammar-for]]` in urlsift.toml].
    #[arg(long, value_enum, help_heading = "Validation")]
    pub grammar: Option<GrammarArg>,
    /// Also show, as notes, the findings only this grammar gives (e.g. `--show rfc1738`: every RFC 1738 violation); repeatable [default: `show` in urlsift.toml].
    #[arg(long, value_enum, value_name = "GRAMMAR", help_heading = "Validation")]
    pub show: Vec<GrammarArg>,
    /// Read settings from this file instead of the urlsift.toml found in the current directory or an ancestor.
    #[arg(long, value_name = "PATH", conflicts_with = "no_config", help_heading = "Validation")]
    pub config: Option<PathBuf>,
    /// Read no urlsift.toml.
    #[arg(long, help_heading = "Validation")]
    pub no_config: bool,
    /// Turn a code off or change its severity: CODE=off|note|warning|error; repeatable.
    #[arg(long = "severity", value_name = "CODE=LEVEL", help_heading = "Validation")]
    pub severities: Vec<String>,
    /// Resolve news: and mid: URLs naming a message of the same mail or news file (adds `resolved` to JSON).
    #[arg(long, help_heading = "Validation")]
    pub resolve_local: bool,
    /// The directory absolute links of documents (`/guide/`) lead into, and that no relative link may climb out of [default: `root-dir` in urlsift.toml, else none: absolute links are not checked].
    #[arg(long, value_name = "DIR", help_heading = "Validation")]
    pub root_dir: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(
        short = 'j',
        long,
        value_name = "N",
        default_value_t = 0,
        hide_default_value = true,
        help_heading = "Performance"
    )]
    pub threads: usize,
}

/// `--input` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputArg {
    /// Detect mbox, single messages and news articles by their first bytes.
    Auto,
    /// Raw text.
    Text,
    /// One RFC 822/MIME message (an .eml file, a Maildir entry).
    Mail,
    /// An mbox mailbox.
    Mbox,
    /// A Usenet article or news spool file.
    News,
    /// A WARC or WET web archive (detected by its `WARC/1.0` or
    /// `WARC/1.1` first line under auto): each record's payload is read as
    /// its own document.
    Warc,
    /// JSON Lines of documents, `{"id": ..., "text": ...}` or `{"id": ..., "base64": ...}`: each record read as its own text (or mail), its URLs given with its `id`.
    Records,
}

/// `extract` flags.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Shared flags.
    #[command(flatten)]
    pub scan: ScanArgs,
    /// Also list documents' relative links (Markdown, HTML, reST), checked on disk; JSON gives where each leads (`local_path`).
    #[arg(long, help_heading = "Output")]
    pub relative: bool,
    /// Print each distinct URL once, at its first place; with --count, at the end, with how many times it occurs and in how many files and documents (a file, a mail message, a WARC record).
    #[arg(long, help_heading = "Output")]
    pub unique: bool,
}

/// `lint` flags.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Shared flags.
    #[command(flatten)]
    pub scan: ScanArgs,
    /// Fail (exit 1) on findings of this severity or worse [default: error, or `fail-on` in urlsift.toml].
    #[arg(long, value_enum, help_heading = "Validation")]
    pub fail_on: Option<LevelArg>,
    /// Show the source line and a caret under each finding: auto means
    /// when standard output is a terminal.
    #[arg(long, value_enum, default_value_t = WhenArg::Auto, help_heading = "Output")]
    pub excerpts: WhenArg,
    /// Fix in place what has a safe fix (see `explain`), then report what is left; files are replaced through a temporary file, never when they changed since they were read; mail, compressed files and decoded or rejoined URLs are not rewritten.
    #[arg(long, conflicts_with_all = ["diff", "baseline", "write_baseline"], help_heading = "Fixing")]
    pub fix: bool,
    /// Print the fixes --fix would make as a unified diff, and write nothing (exit code judged on what would be left).
    #[arg(long, conflicts_with_all = ["baseline", "write_baseline"], help_heading = "Fixing")]
    pub diff: bool,
    /// With --fix or --diff: also apply the fixes that may change what a URL names (encoding a reserved character, adding slashes, dropping a password).
    #[arg(long, help_heading = "Fixing")]
    pub unsafe_fixes: bool,
    /// Lint the URLs in documents' code too (Markdown code spans and blocks, HTML <pre> and <code>, POD C<...>, source outside string literals) [default: off, or `include-code` in urlsift.toml].
    #[arg(long, help_heading = "Validation")]
    pub include_code: bool,
    /// Do not check documents' relative links and file: URLs on disk (local-link-missing, fragment-missing) [default: checked, or `local-links` in urlsift.toml].
    #[arg(long, help_heading = "Validation")]
    pub no_local_links: bool,
    /// Print a closing line on standard error (files, URLs, findings by severity, how many have a suggested fix) [default: when the output is text on a terminal].
    #[arg(long, help_heading = "Output")]
    pub summary: bool,
    /// Do not report the findings recorded in FILE by --write-baseline (same file, code and URL: lines may move), so that a tree with old findings fails only on new ones.
    #[arg(long, value_name = "FILE", help_heading = "Validation")]
    pub baseline: Option<std::path::PathBuf>,
    /// Record every finding in FILE as the baseline, print none, and exit 0 (or 2 on a file error).
    #[arg(long, value_name = "FILE", conflicts_with = "baseline", help_heading = "Validation")]
    pub write_baseline: Option<std::path::PathBuf>,
    /// Online checks (boxed: most runs have none).
    #[command(flatten)]
    pub online: Box<OnlineArgs>,
}

/// `--online` and its settings (`lint`, `check`); each but `--online`
/// wins over the `[online]` table of urlsift.toml.
#[derive(Clone, Debug, Args)]
pub struct OnlineArgs {
    /// Check that each distinct URL's target is there, once, and report link-not-found, link-http-status, link-redirected... at every place it occurs: http(s) (HEAD, then GET), ftp, gopher, telnet, news and nntp. Nothing touches the network without it.
    #[arg(long, help_heading = "Online")]
    pub online: bool,
    /// Checks at once on one server (host and port) [default: 2, or `per-host` under [online]].
    #[arg(long, value_name = "N", requires = "online", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Online")]
    pub per_host: Option<u32>,
    /// Checks at once in all [default: 128, or `max-concurrency`].
    #[arg(long, value_name = "N", requires = "online", value_parser = clap::value_parser!(u32).range(1..4097), help_heading = "Online")]
    pub max_concurrency: Option<u32>,
    /// Seconds one request may take [default: 20, or `timeout`].
    #[arg(long, value_name = "SECS", requires = "online", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Online")]
    pub online_timeout: Option<u64>,
    /// Retries of a transient answer: 429, 502, 503, 504 or a time-out [default: 2, or `retries`].
    #[arg(long, value_name = "N", requires = "online", help_heading = "Online")]
    pub retries: Option<u32>,
    /// Check the URLs matching REGEX even when excluded or on an example, local or private host (repeatable; adds to `include`).
    #[arg(long, value_name = "REGEX", requires = "online", help_heading = "Online")]
    pub online_include: Vec<String>,
    /// Do not check the URLs matching REGEX (repeatable; adds to `exclude`).
    #[arg(long, value_name = "REGEX", requires = "online", help_heading = "Online")]
    pub online_exclude: Vec<String>,
    /// For an http(s) URL with a #fragment whose page is HTML, read the page and report fragment-missing when no element has that id or name.
    #[arg(long, requires = "online", help_heading = "Online")]
    pub check_fragments: bool,
    /// Neither read nor write the cache of results.
    #[arg(long, requires = "online", help_heading = "Online")]
    pub no_cache: bool,
    /// The cache of results [default: .urlsift-cache in the working directory, or `cache`].
    #[arg(long, value_name = "FILE", requires = "online", help_heading = "Online")]
    pub cache_file: Option<std::path::PathBuf>,
    /// How old a cached result may be: 90, 30s, 10m, 2h, 1d [default: 1d, or `cache-age`].
    #[arg(long, value_name = "AGE", requires = "online", help_heading = "Online")]
    pub max_cache_age: Option<String>,
    /// The server asked about news: URLs, HOST[:PORT] [default: `nntp-server`, or $NNTPSERVER].
    #[arg(long, value_name = "HOST", requires = "online", help_heading = "Online")]
    pub nntp_server: Option<String>,
}

/// `check` flags.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// URLs to validate; `-` reads one per line from standard input.
    #[arg(required = true)]
    pub urls: Vec<String>,
    /// Output JSON Lines.
    #[arg(long, help_heading = "Output")]
    pub json: bool,
    /// URL grammar to validate against.
    #[arg(long, value_enum, default_value_t = GrammarArg::Modern, help_heading = "Validation")]
    pub grammar: GrammarArg,
    /// Online checks (boxed: most runs have none).
    #[command(flatten)]
    pub online: Box<OnlineArgs>,
}

/// `explain` flags.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Codes to describe, a page each (default: a table of all).
    pub codes: Vec<String>,
    /// Output JSON Lines, one object per code (every code when none is named).
    #[arg(long)]
    pub json: bool,
}

/// `--grammar` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GrammarArg {
    /// RFC 3986 syntax, the RFC 1738 scheme rules that still hold, RFC 9110 for http(s), IDN hosts, the IANA schemes.
    Modern,
    /// RFC 1738 as written.
    Rfc1738,
    /// The generic syntax of RFC 3986 alone, for every scheme.
    Rfc3986,
}

/// `--format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// One URL per line (extract) or one finding per line (lint).
    Text,
    /// JSON Lines.
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
}

/// Severity levels on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LevelArg {
    /// Notes and worse.
    Note,
    /// Warnings and errors.
    Warning,
    /// Errors only.
    Error,
}

/// Three-way switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WhenArg {
    /// Never.
    Never,
    /// When standard output is a terminal.
    Auto,
    /// Always.
    Always,
}

fn parse_size(s: &str) -> Result<u64, String> {
    let (num, mul) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1u64 << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mul))
        .ok_or_else(|| format!("not a size: {s:?} (use e.g. 500K, 10M)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("10"), Ok(10));
        assert_eq!(parse_size("2K"), Ok(2048));
        assert_eq!(parse_size("1m"), Ok(1 << 20));
        assert!(parse_size("x").is_err());
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
