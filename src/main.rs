//! The `urlsift` binary: parses flags, builds the library's engine and
//! printers, runs, and turns the outcome into an exit code. No scanning
//! logic lives here.

mod baseline;
mod cli;
mod explain;

use std::io::{self, BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use clap::Parser;

use cli::{Cli, Command, FormatArg, GrammarArg, InputArg, LevelArg, LintArgs, ScanArgs, WhenArg};
use urlsift::config::{self, Config};
use urlsift::diag::{Code, Grammar, Severity};
use urlsift::doc::Format;
use urlsift::driver::{self, Context, Emit, Event, Input, RunOptions, WalkOptions};
use urlsift::extract::{Extracted, Options, Sifter};
use urlsift::mail::InputKind;
use urlsift::printer;

/// Writes a line to standard error, and carries on if it cannot: a
/// closed or full standard error (`2>/dev/full`) must not turn a run into
/// a panic, and what it would have said is not worth the results.
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(io::stderr().lock(), $($t)*);
    }};
}

/// Text from input (a file name, a reason quoting one) for standard
/// error or a text report: see `urlsift::escape`.
fn terminal(s: &str) -> std::borrow::Cow<'_, str> {
    urlsift::escape::str_for_terminal(s)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        // A closed pipe (`urlsift extract | head`) is the reader's choice,
        // not a failure.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            say!("urlsift: {}", terminal(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Extract(a) => {
            // SARIF counts columns in code points: from the excerpt.
            let sarif = a.scan.format == Some(FormatArg::Sarif);
            let mut s = Settings::resolve(&a.scan, None, sarif, true, false)?;
            if a.relative {
                s.local_links(&a.scan, true, true)?;
            }
            let unique = |json| Some(Collect::Unique(printer::Unique::new(a.scan.count, json)));
            let summary = match s.format {
                FormatArg::Text if a.unique => {
                    scan(&a.scan, &s, &printer::Keyed(&printer::UrlLines), unique(false))?
                }
                FormatArg::Json if a.unique => {
                    scan(&a.scan, &s, &printer::Keyed(&printer::ExtractJson), unique(true))?
                }
                _ if a.unique => anyhow::bail!("--unique works with text and JSON output"),
                FormatArg::Text => scan(&a.scan, &s, &printer::UrlLines, None)?,
                FormatArg::Json => scan(&a.scan, &s, &printer::ExtractJson, None)?,
                FormatArg::Sarif => {
                    scan(&a.scan, &s, &printer::Sarif { fail_on: s.fail_on }, None)?
                }
                FormatArg::Github => {
                    scan(&a.scan, &s, &printer::Github { fail_on: s.fail_on }, None)?
                }
            };
            Ok(match summary {
                s if s.errors > 0 => 2,
                s if s.urls > 0 => 0,
                _ => 1,
            })
        }
        Command::Lint(a) => {
            let excerpts = match a.excerpts {
                WhenArg::Never => false,
                WhenArg::Always => true,
                WhenArg::Auto => io::stdout().is_terminal(),
            };
            let sarif = a.scan.format == Some(FormatArg::Sarif);
            let mut s =
                Settings::resolve(&a.scan, a.fail_on, excerpts || sarif, false, a.include_code)?;
            let cfg_local = s.cfg_local_links;
            if !a.no_local_links && cfg_local != Some(false) {
                s.local_links(&a.scan, true, false)?;
            }
            s.skip = [&a.baseline, &a.write_baseline]
                .into_iter()
                .flatten()
                .filter_map(|p| file_id(p))
                .collect();
            let fail_on = s.fail_on;
            let base = LintRun {
                read: a.baseline.as_deref(),
                write: a.write_baseline.as_deref(),
                summary: a.summary
                    || (s.format == FormatArg::Text && !a.scan.count && io::stdout().is_terminal()),
            };
            let mut report = None;
            if a.online.online {
                let checker = checker(&a.online, &s.cfg_online)?;
                if a.scan.paths.iter().any(|p| p.as_os_str() == "-") {
                    anyhow::bail!(
                        "--online reads its inputs twice (find, then report): name files, not standard input"
                    );
                }
                scan(&a.scan, &s, &Submit(&checker), Some(Collect::Quiet))?;
                let r = finish_checks(checker);
                s.options.online = Some(std::sync::Arc::new(r.verdicts()));
                s.sifter = Sifter::try_new(s.options.clone()).map_err(anyhow::Error::msg)?;
                report = Some(r);
            }
            let stats = a.scan.stats;
            let said = |code| {
                if let (Some(r), true) = (&report, stats) {
                    for line in r.stats() {
                        say!("{line}");
                    }
                }
                code
            };
            if a.fix || a.diff {
                let code = fix_files(&a, &s)?;
                if a.diff || code == 2 {
                    return Ok(said(code));
                }
            }
            let code = match s.format {
                FormatArg::Text => {
                    let color = s.color;
                    lint(&a.scan, &s, &printer::LintText { fail_on, excerpts, color }, base)
                }
                FormatArg::Json => lint(&a.scan, &s, &printer::LintJson { fail_on }, base),
                FormatArg::Sarif => lint(&a.scan, &s, &printer::Sarif { fail_on }, base),
                FormatArg::Github => lint(&a.scan, &s, &printer::Github { fail_on }, base),
            };
            code.map(said)
        }
        Command::Check(a) => check(a),
        Command::Explain(a) => explain(&a.codes, a.json),
        Command::Lsp => Ok(urlsift::lsp::run()?),
        Command::Completions(a) => {
            // Generated from the same definition clap parses with, so it
            // cannot fall out of step with the flags.
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut out = io::stdout().lock();
            clap_complete::generate(a.shell, &mut cmd, "urlsift", &mut out);
            out.flush()?;
            Ok(0)
        }
        Command::Man(a) => {
            let cmd = <Cli as clap::CommandFactory>::command();
            let page = match a.command.as_deref() {
                None => cmd,
                Some(name) => {
                    // git's convention: one page per command, urlsift-lint(1).
                    let title = match name {
                        "extract" => "urlsift-extract",
                        "lint" => "urlsift-lint",
                        "check" => "urlsift-check",
                        _ => "urlsift-explain",
                    };
                    let sub = cmd.find_subcommand(name).expect("clap checked the name").clone();
                    sub.name(title).version(env!("CARGO_PKG_VERSION"))
                }
            };
            let mut out = io::stdout().lock();
            clap_mangen::Man::new(page).render(&mut out)?;
            out.flush()?;
            Ok(0)
        }
    }
}

/// `lint` with one printer: its exit code. A reader that closes the pipe
/// early (`urlsift lint . | head -1`) has seen findings, and the exit code
/// still says so: 1 when a failing finding was found before the pipe
/// closed, 0 when none was (never 0 because of the pipe alone).
fn lint<E: Emit>(a: &ScanArgs, s: &Settings, emit: &E, base: LintRun<'_>) -> anyhow::Result<u8> {
    if let Some(path) = base.write {
        let recorder = baseline::Recorder::default();
        let summary = scan(a, s, &recorder, None)?;
        let all = recorder.findings.load(Ordering::Relaxed);
        let n = recorder.write(path).map_err(anyhow::Error::msg)?;
        say!(
            "urlsift: {all} findings recorded in {} ({n} entries: file, code and URL)",
            terminal(&path.display().to_string())
        );
        return Ok(if summary.errors > 0 { 2 } else { 0 });
    }
    // The baseline drops what it knows before anything is counted.
    let counting = Counting::new(emit);
    let known = match base.read {
        Some(path) => baseline::Known::load(&counting, path).map_err(anyhow::Error::msg)?,
        None => baseline::Known::none(&counting),
    };
    let result = scan(a, s, &known, None);
    let hidden = known.hidden.load(Ordering::Relaxed);
    if hidden > 0 {
        say!("urlsift: {hidden} findings known to the baseline not shown");
    }
    if base.summary
        && let Ok(summary) = &result
    {
        say!("{}", counting.summary(summary));
    }
    match result {
        Ok(summary) => Ok(match summary {
            s if s.errors > 0 => 2,
            s if s.failing > 0 => 1,
            _ => 0,
        }),
        Err(e) if is_broken_pipe(&e) => Ok(u8::from(counting.failing.load(Ordering::Relaxed) > 0)),
        Err(e) => Err(e),
    }
}

/// `lint --fix` and `--diff`, before `--fix` lints what is left: makes
/// or prints the fixes; the exit code of `--diff` (judged on what would
/// be left), or 2 when a file could not be fixed.
fn fix_files(a: &LintArgs, s: &Settings) -> anyhow::Result<u8> {
    let collect =
        printer::FixCollect { sifter: &s.sifter, fail_on: s.fail_on, unsafe_fixes: a.unsafe_fixes };
    let mut fixer = Fixer { diff: a.diff, ..Fixer::default() };
    let summary = scan(&a.scan, s, &collect, Some(Collect::Fix(&mut fixer)))?;
    let verb = if a.diff { "would fix" } else { "fixed" };
    if fixer.urls > 0 || fixer.not_in_place > 0 {
        let n = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        say!(
            "urlsift: {verb} {} in {}{}",
            n(fixer.urls, "URL"),
            n(fixer.files, "file"),
            if fixer.not_in_place > 0 {
                format!(
                    "; {} with fixes cannot be fixed where they stand (decoded, in mail, a record or a compressed file)",
                    n(fixer.not_in_place, "URL")
                )
            } else {
                String::new()
            }
        );
    }
    Ok(match summary {
        s if s.errors > 0 || fixer.failed > 0 => 2,
        s if s.failing > 0 => 1,
        _ => 0,
    })
}

/// The writer's side of `lint --fix`/`--diff`: one file's edits at a time.
#[derive(Default)]
struct Fixer {
    diff: bool,
    /// The current file's framed output so far.
    pending: Vec<u8>,
    files: u64,
    urls: u64,
    not_in_place: u64,
    failed: u64,
}

impl Fixer {
    /// Makes (or, with `--diff`, prints) the fixes of a file whose output
    /// is all in `pending`.
    fn file(&mut self, input: &Input, r: &driver::FileResult, out: &mut impl Write) {
        let (edits, urls, not_in_place) = printer::take_edits(&self.pending);
        self.pending.clear();
        self.not_in_place += not_in_place;
        let Input::File { path, .. } = input else { return };
        if edits.is_empty() || r.error.is_some() {
            return;
        }
        let shown = terminal(input.shown()).into_owned();
        let original = match std::fs::read(path) {
            Ok(o) => o,
            Err(e) => {
                say!("urlsift: {shown}: not fixed: {e}");
                self.failed += 1;
                return;
            }
        };
        let Some(fixed) = urlsift::fix::apply(&original, &edits) else {
            say!("urlsift: {shown}: changed on disk since it was read: not fixed");
            self.failed += 1;
            return;
        };
        if self.diff {
            let mut d = Vec::new();
            let name = input.shown();
            urlsift::fix::unified_diff(
                name.strip_prefix("./").unwrap_or(name),
                &original,
                &fixed,
                &mut d,
            );
            // The diff holds the file's own lines: escaped like any output
            // bound for a terminal, unless it goes to a file or a pipe.
            if io::stdout().is_terminal() {
                for l in d.split_inclusive(|&b| b == b'\n') {
                    let l = l.strip_suffix(b"\n").unwrap_or(l);
                    let _ = writeln!(out, "{}", terminal(&String::from_utf8_lossy(l)));
                }
            } else {
                let _ = out.write_all(&d);
            }
        } else if let Err(e) = urlsift::fix::write_if_unchanged(path, &original, &fixed) {
            say!("urlsift: {shown}: {e}");
            self.failed += 1;
            return;
        }
        self.files += 1;
        self.urls += urls;
    }
}

/// What `lint` does around the scan: `--baseline`, `--write-baseline`, `--summary`.
#[derive(Clone, Copy)]
struct LintRun<'a> {
    read: Option<&'a std::path::Path>,
    write: Option<&'a std::path::Path>,
    summary: bool,
}

/// An [`Emit`] that counts the failing URLs it was handed, so the count
/// survives an output error that ends the run early, and the findings it
/// passed on by severity, for the closing summary.
struct Counting<'a, E> {
    inner: &'a E,
    failing: AtomicU64,
    /// Findings passed on: errors, warnings, notes, and those with a fix.
    counts: [AtomicU64; 4],
}

impl<'a, E> Counting<'a, E> {
    fn new(inner: &'a E) -> Counting<'a, E> {
        Counting { inner, failing: AtomicU64::new(0), counts: Default::default() }
    }

    /// The closing line: what was scanned, what was found.
    fn summary(&self, s: &driver::Summary) -> String {
        let [errors, warnings, notes, fixes] =
            self.counts.each_ref().map(|c| c.load(Ordering::Relaxed));
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let scanned = format!(
            "{} and {} scanned",
            plural(s.files, "file", "files"),
            plural(s.urls, "URL", "URLs")
        );
        let total = errors + warnings + notes;
        if total == 0 {
            return format!("{scanned}: no findings.");
        }
        let mut by = Vec::new();
        for (n, one, many) in [
            (errors, "error", "errors"),
            (warnings, "warning", "warnings"),
            (notes, "note", "notes"),
        ] {
            if n > 0 {
                by.push(plural(n, one, many));
            }
        }
        let fixes = match fixes {
            0 => String::new(),
            n => format!("; {n} with a suggested fix (`--json`: `fix`)"),
        };
        format!("{scanned}: {} ({}){fixes}.", plural(total, "finding", "findings"), by.join(", "))
    }
}

impl<E: Emit> Emit for Counting<'_, E> {
    fn emit(&self, input: &Input, url: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool {
        let failing = self.inner.emit(input, url, cx, out);
        if failing {
            self.failing.fetch_add(1, Ordering::Relaxed);
        }
        for f in &url.findings {
            let k = match f.diagnostic.severity {
                Severity::Error => 0,
                Severity::Warning => 1,
                Severity::Note => 2,
            };
            self.counts[k].fetch_add(1, Ordering::Relaxed);
            if f.diagnostic.fix.is_some() {
                self.counts[3].fetch_add(1, Ordering::Relaxed);
            }
        }
        failing
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

/// Flags, the config file and defaults, resolved in that order of
/// precedence.
struct Settings {
    sifter: Sifter,
    format: FormatArg,
    fail_on: Severity,
    color: bool,
    exclude: Vec<String>,
    extracting: bool,
    /// Report URLs in documents' code: always for `extract` (marked
    /// `in_code`), for `lint` only when asked.
    keep_code: bool,
    /// Files a walk passes over: the baseline (see `WalkOptions::skip`).
    skip: Vec<(u64, u64)>,
    /// The options the engine was built from, to build it again.
    options: Options,
    /// `local-links` and `root-dir` in urlsift.toml.
    cfg_local_links: Option<bool>,
    cfg_root_dir: Option<std::path::PathBuf>,
    /// `[online]` in urlsift.toml.
    cfg_online: config::Online,
}

impl Settings {
    /// Turns the local-link check (and with `list`, the listing of
    /// relative links) on: the engine is built again with it.
    fn local_links(&mut self, a: &ScanArgs, check: bool, list: bool) -> anyhow::Result<()> {
        self.options.local_links = urlsift::links::LinkOptions {
            check,
            list,
            root: a.root_dir.clone().or_else(|| self.cfg_root_dir.clone()),
        };
        self.sifter = Sifter::try_new(self.options.clone()).map_err(anyhow::Error::msg)?;
        Ok(())
    }
}

/// `(device, inode)` of the file at `p`, if it exists.
fn file_id(p: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

impl Settings {
    fn resolve(
        a: &ScanArgs,
        fail_on: Option<LevelArg>,
        excerpts: bool,
        extracting: bool,
        include_code: bool,
    ) -> anyhow::Result<Settings> {
        let cfg = if a.no_config {
            Config::default()
        } else if let Some(p) = &a.config {
            config::load(p).map_err(anyhow::Error::msg)?
        } else {
            match config::discover(&std::env::current_dir()?) {
                Some(p) => config::load_discovered(&p).map_err(anyhow::Error::msg)?,
                None => Config::default(),
            }
        };
        let mut severities = cfg.severities.clone();
        for s in &a.severities {
            let (code, lvl) = s
                .split_once('=')
                .ok_or_else(|| anyhow::anyhow!("--severity wants CODE=LEVEL, got {s:?}"))?;
            let code = Code::from_name(code)
                .ok_or_else(|| anyhow::anyhow!("--severity: {}", Code::unknown(code)))?;
            let lvl = config::parse_level(lvl).ok_or_else(|| {
                anyhow::anyhow!(
                    "--severity: level must be off, note, warning or error, got {lvl:?}"
                )
            })?;
            // Later entries win: the command line comes after the file.
            severities.retain(|(c, _)| *c != code);
            severities.push((code, lvl));
        }
        // `--grammar` is for every file; without it, `[[grammar-for]]`
        // chooses per file, relative to the config file's directory.
        let (grammar_for, glob_base) = match (&a.grammar, &cfg.path) {
            (None, Some(p)) => {
                let p = std::env::current_dir()?.join(p);
                (cfg.grammar_for.clone(), p.parent().map(|d| d.to_path_buf()))
            }
            _ => (Vec::new(), None),
        };
        let show = if a.show.is_empty() {
            cfg.show.clone()
        } else {
            a.show.iter().map(|&g| grammar(g)).collect()
        };
        let format = if a.json { FormatArg::Json } else { a.format.unwrap_or(FormatArg::Text) };
        let options = Options {
            grammar: a.grammar.map(grammar).or(cfg.grammar).unwrap_or_default(),
            show,
            grammar_for,
            glob_base,
            severities,
            excerpts,
            allow_schemes: cfg.allow_schemes.clone(),
            deny_schemes: cfg.deny_schemes.clone(),
            ignore_urls: cfg.ignore_urls.clone(),
            formats: formats_of(&a.format_of, &cfg.formats)?,
            rejected_by_findings_only: !(extracting && format == FormatArg::Json),
            local_links: Default::default(),
            online: None,
        };
        let sifter = Sifter::try_new(options.clone()).map_err(anyhow::Error::msg)?;
        let color = match a.color {
            WhenArg::Never => false,
            WhenArg::Always => true,
            WhenArg::Auto => io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        };
        Ok(Settings {
            sifter,
            format,
            fail_on: fail_on.map(level).or(cfg.fail_on).unwrap_or(Severity::Error),
            color,
            keep_code: extracting || include_code || cfg.include_code.unwrap_or(false),
            exclude: cfg.exclude,
            extracting,
            skip: Vec::new(),
            options,
            cfg_local_links: cfg.local_links,
            cfg_root_dir: cfg.root_dir,
            cfg_online: cfg.online,
        })
    }
}

/// `--format-of EXT=FORMAT` flags over the config's `[formats]`: later
/// entries win, and the command line comes after the file.
fn formats_of(flags: &[String], cfg: &[(String, Format)]) -> anyhow::Result<Vec<(String, Format)>> {
    let mut out: Vec<(String, Format)> = Vec::new();
    let mut add = |ext: &str, f: Format| {
        let ext = ext.trim_start_matches('.').to_string();
        out.retain(|(e, _)| !e.eq_ignore_ascii_case(&ext));
        out.push((ext, f));
    };
    for (e, f) in cfg {
        add(e, *f);
    }
    for flag in flags {
        let (ext, name) = flag
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--format-of wants EXT=FORMAT, got {flag:?}"))?;
        let f = Format::from_name(name).ok_or_else(|| {
            anyhow::anyhow!(
                "--format-of: {name:?} is not a format (use one of: {})",
                urlsift::config::format_names()
            )
        })?;
        add(ext, f);
    }
    Ok(out)
}

/// `(device, inode)` of standard output when it is a regular file, which
/// a walk must then not read (see `WalkOptions::output`).
fn output_file() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let m = std::fs::File::from(fd).metadata().ok()?;
    m.is_file().then(|| (m.dev(), m.ino()))
}

fn grammar(g: GrammarArg) -> Grammar {
    match g {
        GrammarArg::Rfc1738 => Grammar::Rfc1738,
        GrammarArg::Rfc3986 => Grammar::Rfc3986,
        GrammarArg::Modern => Grammar::Modern,
    }
}

fn level(l: LevelArg) -> Severity {
    match l {
        LevelArg::Note => Severity::Note,
        LevelArg::Warning => Severity::Warning,
        LevelArg::Error => Severity::Error,
    }
}

/// What the writer does with each file's output besides printing it.
enum Collect<'a> {
    /// `extract --unique`: the output of a [`printer::Keyed`] printer.
    Unique(printer::Unique),
    /// `lint --fix`/`--diff`: the output of [`printer::FixCollect`].
    Fix(&'a mut Fixer),
    /// `--online`'s first pass: `emit` hands the URLs to the checker and
    /// nothing is printed (the second pass reports problems and stats).
    Quiet,
}

/// Runs `extract` or `lint` over the inputs; with `collect`, `emit`'s
/// output is framed for it (see [`Collect`]).
fn scan<E: Emit>(
    a: &ScanArgs,
    s: &Settings,
    emit: &E,
    mut collect: Option<Collect<'_>>,
) -> anyhow::Result<driver::Summary> {
    let started = Instant::now();
    let mut globs = a.globs.clone();
    globs.extend(s.exclude.iter().map(|g| format!("!{g}")));
    let walk = WalkOptions {
        hidden: a.hidden,
        no_ignore: a.no_ignore,
        follow: a.follow,
        max_filesize: a.max_filesize,
        globs,
        types: a.types.clone(),
        types_not: a.types_not.clone(),
        output: output_file(),
        skip: s.skip.clone(),
    };
    walk.check().map_err(anyhow::Error::msg)?;
    let stdout = io::stdout();
    // Not locked: with several threads, whichever worker has the next
    // result in order writes it.
    let mut out = io::BufWriter::with_capacity(64 * 1024, stdout);
    let quiet = matches!(collect, Some(Collect::Quiet));
    let sarif = s.format == FormatArg::Sarif && !a.count && !quiet;
    if sarif {
        out.write_all(&printer::Sarif::header())?;
    }
    let mut first_result = true;
    let input = match a.input {
        InputArg::Auto => None,
        InputArg::Text => Some(InputKind::Text),
        InputArg::Mail => Some(InputKind::Message),
        InputArg::Mbox => Some(InputKind::Mbox),
        InputArg::News => Some(InputKind::News),
        InputArg::Warc | InputArg::Records => None,
    };
    let opts = RunOptions {
        threads: a.threads,
        binary: a.binary,
        input,
        warc: a.input == InputArg::Warc,
        records: a.input == InputArg::Records,
        resolve_local: a.resolve_local,
        no_decompress: a.no_decompress,
        max_ratio: a.max_ratio.unwrap_or(0),
        part_size: 0,
        tally: a.stats,
        keep_code: s.keep_code,
    };
    let mut progress = Progress::new(started);
    // Files numbered in output order, for `--unique`'s counts.
    let mut file_no = 0u64;
    let source = driver::walk_inputs(&a.paths, &walk);
    let summary = driver::run_stream(source, &s.sifter, emit, opts, |event| {
        if quiet {
            return Ok(());
        }
        let (input, r) = match event {
            Event::File(input, r) => (input, r),
            Event::Problem(e) => {
                out.flush()?;
                progress.clear();
                say!("urlsift: {}", terminal(&e.to_string()));
                return Ok(());
            }
        };
        if let Some(Collect::Unique(u)) = collect.as_mut() {
            u.feed(file_no, &r.out, &mut out)?;
        } else if let Some(Collect::Fix(f)) = collect.as_mut() {
            f.pending.extend_from_slice(&r.out);
            if !r.partial {
                f.file(input, r, &mut out);
            }
        } else if a.count {
            if !r.partial {
                let n = if matches!(emit_kind(s), EmitKind::Urls) { r.urls } else { r.findings };
                if n > 0 {
                    writeln!(out, "{}:{n}", terminal(input.shown()))?;
                }
            }
        } else if sarif {
            // One result per line; SARIF needs commas between them.
            for line in r.out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                if !first_result {
                    out.write_all(b",\n")?;
                }
                first_result = false;
                out.write_all(line)?;
            }
        } else {
            out.write_all(&r.out)?;
        }
        if r.partial {
            return Ok(());
        }
        file_no += 1;
        if !r.problems.is_empty() {
            out.flush()?;
            progress.clear();
            for p in &r.problems {
                say!("urlsift: {}: {}", terminal(input.shown()), terminal(p));
            }
        }
        if let Some(e) = &r.error {
            // Flush first so the message follows the file's own output.
            out.flush()?;
            progress.clear();
            say!("urlsift: {}: {}", terminal(input.shown()), terminal(e));
        } else if r.binary && named(&a.paths, input) {
            // Skipping quietly is right inside a tree, not for a file the
            // user asked for by name.
            out.flush()?;
            progress.clear();
            say!("urlsift: {}: binary file skipped (--binary scans it)", terminal(input.shown()));
        }
        progress.tick(r.bytes);
        Ok(())
    })?;
    if sarif {
        out.write_all(printer::Sarif::footer())?;
    }
    if let Some(Collect::Unique(u)) = collect {
        u.finish(&mut out)?;
    }
    out.flush()?;
    progress.clear();
    if a.stats && !quiet {
        let m = &summary.mail;
        if m.messages > 0 {
            say!(
                "messages: {}  malformed: {}  text parts: {}  skipped parts: {}  quoted-printable: {}  base64: {}",
                m.messages,
                m.malformed,
                m.text_parts,
                m.skipped_parts,
                m.decoded_qp,
                m.decoded_base64
            );
        }
        let t = &summary.tally;
        let schemes = t.schemes.iter().map(|(k, n)| (k.as_str(), *n));
        for (what, counts) in [
            ("urls by scheme", by_count(schemes)),
            ("urls by kind", by_count(t.kinds.iter().map(|(k, n)| (*k, *n)))),
            ("findings by code", by_count(t.codes.iter().map(|(k, n)| (*k, *n)))),
        ] {
            if !counts.is_empty() {
                say!("{what}: {counts}");
            }
        }
        let w = &summary.warc;
        if w.records > 0 {
            say!(
                "warc records: {}  scanned: {}  not text: {}  no document: {}  damaged: {}",
                w.records,
                w.scanned,
                w.not_text,
                w.other,
                w.damaged
            );
        }
        if summary.compressed_files > 0 {
            say!(
                "compressed files: {}  compressed bytes: {}  decompressed bytes: {}",
                summary.compressed_files,
                summary.compressed_bytes,
                summary.decompressed_bytes
            );
        }
        let secs = started.elapsed().as_secs_f64();
        say!(
            "files: {}  bytes: {}  urls: {}  findings: {}  failing urls: {}  binary skipped: {}  unreadable: {}  time: {:.3}s  {:.1} MB/s",
            summary.files,
            summary.bytes,
            summary.urls,
            summary.findings,
            summary.failing,
            summary.binary,
            summary.errors,
            secs,
            summary.bytes as f64 / 1e6 / secs.max(1e-9)
        );
    }
    Ok(summary)
}

/// `--online`'s first pass: every valid URL that is no template and no
/// relative link goes to the checker; nothing is printed.
struct Submit<'a>(&'a urlsift::online::Checker);

impl Emit for Submit<'_> {
    fn emit(&self, _: &Input, url: &Extracted, _: Context<'_>, _: &mut Vec<u8>) -> bool {
        if url.is_valid()
            && url.kind != urlsift::scan::Kind::Template
            && !url.is_relative()
            && let Ok(u) = std::str::from_utf8(&url.url)
        {
            self.0.submit(u);
        }
        false
    }
}

/// The online checker, from the flags over urlsift.toml's `[online]`.
fn checker(o: &cli::OnlineArgs, cfg: &config::Online) -> anyhow::Result<urlsift::online::Checker> {
    let mut s = urlsift::online::Settings::default();
    if let Some(n) = o.per_host.map(|n| n as usize).or(cfg.per_host) {
        s.per_host = n.max(1);
    }
    if let Some(n) = o.max_concurrency.map(|n| n as usize).or(cfg.max_concurrency) {
        s.concurrency = n.clamp(1, 4096);
    }
    if let Some(t) = o.online_timeout.or(cfg.timeout) {
        s.timeout = std::time::Duration::from_secs(t.max(1));
    }
    if let Some(r) = o.retries.or(cfg.retries) {
        s.retries = r;
    }
    s.include = cfg.include.iter().chain(&o.online_include).cloned().collect();
    s.exclude = cfg.exclude.iter().chain(&o.online_exclude).cloned().collect();
    s.fragments = o.check_fragments || cfg.check_fragments.unwrap_or(false);
    if let Some(n) = o.nntp_server.clone().or_else(|| cfg.nntp_server.clone()) {
        s.nntp_server = Some(n);
    }
    if !o.no_cache {
        s.cache = Some(
            o.cache_file
                .clone()
                .or_else(|| cfg.cache.clone())
                .unwrap_or_else(|| ".urlsift-cache".into()),
        );
    }
    let age = match &o.max_cache_age {
        Some(a) => Some(config::parse_duration(a).ok_or_else(|| {
            anyhow::anyhow!("--max-cache-age: not a duration (use e.g. 90, 30s, 10m, 2h, 1d)")
        })?),
        None => cfg.cache_age,
    };
    if let Some(a) = age {
        s.cache_age = std::time::Duration::from_secs(a);
    }
    for (host, name, value) in &cfg.headers {
        let value = config::expand_env(value)
            .map_err(|e| anyhow::anyhow!("[online] header {}: {e}", terminal(name)))?;
        s.headers.push(urlsift::online::Header { host: host.clone(), name: name.clone(), value });
    }
    urlsift::online::Checker::new(s).map_err(|e| anyhow::anyhow!("--online: {e}"))
}

/// Waits for the checks, with a progress line on a terminal.
fn finish_checks(checker: urlsift::online::Checker) -> urlsift::online::Report {
    let done = std::sync::atomic::AtomicBool::new(false);
    let report = std::thread::scope(|sc| {
        if io::stderr().is_terminal() {
            sc.spawn(|| {
                let mut shown = false;
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    let (all, answered) = checker.progress();
                    eprint!("\rurlsift: online: {answered} of {all} URLs checked ");
                    shown = true;
                }
                if shown {
                    eprint!("\r\x1b[K");
                }
            });
        }
        let r = checker.finish();
        done.store(true, Ordering::Relaxed);
        r
    });
    if let Some(p) = &report.cache_problem {
        say!("urlsift: the online cache was not written: {}", terminal(p));
    }
    report
}

/// `name count` pairs, most frequent first (ties by name), for `--stats`.
fn by_count<'a>(counts: impl Iterator<Item = (&'a str, u64)>) -> String {
    let mut v: Vec<(&str, u64)> = counts.collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let shown: Vec<String> = v.iter().map(|(k, n)| format!("{k} {n}")).collect();
    shown.join("  ")
}

/// True when `input` is a file the user named, not one found in a walk.
fn named(paths: &[std::path::PathBuf], input: &Input) -> bool {
    match input {
        Input::File { path, .. } => paths.iter().any(|p| p == path),
        Input::Stdin => true,
    }
}

enum EmitKind {
    Urls,
    Findings,
}

/// What `--count` counts: URLs for `extract` in text or JSON form, findings
/// otherwise.
fn emit_kind(s: &Settings) -> EmitKind {
    if s.extracting && matches!(s.format, FormatArg::Text | FormatArg::Json) {
        EmitKind::Urls
    } else {
        EmitKind::Findings
    }
}

/// A progress line on standard error for long runs, only when standard
/// error is a terminal (never in pipes or CI logs), redrawn at most ten
/// times a second.
struct Progress {
    on: bool,
    started: Instant,
    last: Instant,
    files: u64,
    bytes: u64,
    shown: bool,
}

impl Progress {
    fn new(started: Instant) -> Progress {
        Progress {
            on: io::stderr().is_terminal(),
            started,
            last: started,
            files: 0,
            bytes: 0,
            shown: false,
        }
    }

    fn tick(&mut self, bytes: u64) {
        self.files += 1;
        self.bytes += bytes;
        if !self.on {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.started).as_secs_f64() < 1.0
            || now.duration_since(self.last).as_millis() < 100
        {
            return;
        }
        self.last = now;
        let secs = now.duration_since(self.started).as_secs_f64();
        eprint!(
            "\r\x1b[Kfiles: {}  {:.1} MB  {:.1} MB/s",
            self.files,
            self.bytes as f64 / 1e6,
            self.bytes as f64 / 1e6 / secs
        );
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[K");
            self.shown = false;
        }
    }
}

/// Each URL of `check`'s arguments, `-` read from standard input, one per
/// line (CR LF or LF; empty lines skipped).
fn each_url(urls: &[String], mut f: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
    for u in urls {
        if u == "-" {
            for line in io::stdin().lock().split(b'\n') {
                let mut line = line?;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if !line.is_empty() {
                    f(&line)?;
                }
            }
        } else {
            f(u.as_bytes())?;
        }
    }
    Ok(())
}

fn check(a: cli::CheckArgs) -> anyhow::Result<u8> {
    let mut options = Options { grammar: grammar(a.grammar), ..Options::default() };
    // Online, every URL is known before the first is printed: the
    // checks run side by side.
    let mut report = None;
    let listed = if a.online.online {
        let mut all = Vec::new();
        each_url(&a.urls, |u| {
            all.push(u.to_vec());
            Ok(())
        })?;
        let cfg = match config::discover(&std::env::current_dir()?) {
            Some(p) => config::load_discovered(&p).map_err(anyhow::Error::msg)?,
            None => Config::default(),
        };
        let checker = checker(&a.online, &cfg.online)?;
        let plain = Sifter::new(options.clone());
        for u in &all {
            if plain.check(u).is_valid()
                && let Ok(u) = std::str::from_utf8(u)
            {
                checker.submit(u);
            }
        }
        let r = finish_checks(checker);
        options.online = Some(std::sync::Arc::new(r.verdicts()));
        report = Some(r);
        Some(all)
    } else {
        None
    };
    let sifter = Sifter::new(options);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut all_valid = true;
    let outcome = |url: &[u8]| {
        report.as_ref().map(|r| {
            std::str::from_utf8(url).ok().and_then(|u| r.outcomes.get(u)).map_or(
                "not-checked (invalid)".to_string(),
                |o| match o {
                    urlsift::online::Outcome::Skipped(why) => format!("not-checked ({why})"),
                    o => o.kind().to_string(),
                },
            )
        })
    };
    let mut one = |url: &[u8], out: &mut dyn Write| -> io::Result<()> {
        let v = sifter.check(url);
        all_valid &= v.is_valid();
        let text = terminal(&String::from_utf8_lossy(url)).into_owned();
        let online = outcome(url);
        if a.json {
            let mut buf = Vec::new();
            printer::check_json(&mut buf, &sifter, url);
            if let Some(o) = &online {
                // One more field: what the server said.
                buf.pop();
                buf.extend_from_slice(b",\"online\":");
                printer::json_str(&mut buf, o);
                buf.push(b'}');
            }
            buf.push(b'\n');
            out.write_all(&buf)?;
        } else {
            let syntax_ok =
                v.diagnostics.iter().all(|d| d.severity != Severity::Error || d.code.is_online());
            let verdict = if syntax_ok { "valid" } else { "invalid" };
            match &online {
                Some(o) => writeln!(out, "{text}: {verdict}, online: {}", terminal(o))?,
                None => writeln!(out, "{text}: {verdict}")?,
            }
            for d in &v.diagnostics {
                let spans: Vec<String> = d.spans().map(|(s, e)| format!("{s}..{e}")).collect();
                writeln!(out, "  {}: {}[{}]: {}", spans.join(","), d.severity, d.code, d.message)?;
            }
        }
        Ok(())
    };
    match listed {
        Some(all) => {
            for u in &all {
                one(u, &mut out)?;
            }
        }
        None => each_url(&a.urls, |u| one(u, &mut out))?,
    }
    out.flush()?;
    if let Some(r) = &report {
        for line in r.stats() {
            say!("{line}");
        }
    }
    Ok(if all_valid { 0 } else { 1 })
}

fn explain(codes: &[String], json: bool) -> anyhow::Result<u8> {
    let named = codes
        .iter()
        .map(|c| Code::from_name(c).ok_or_else(|| anyhow::anyhow!("{}", Code::unknown(c))))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = io::stdout().lock();
    explain::run(&named, json, &mut out)?;
    out.flush()?;
    Ok(0)
}
