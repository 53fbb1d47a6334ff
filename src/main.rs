//! The `urlsift` binary: parses flags, builds the library's engine and
//! printers, runs, and turns the outcome into an exit code. No scanning
//! logic lives here.

mod cli;

use std::io::{self, BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

use cli::{Cli, Command, GrammarArg, LevelArg, ScanArgs, WhenArg};
use urlsift::diag::{Code, Grammar, Severity};
use urlsift::driver::{self, Emit, InputError, RunOptions, WalkOptions};
use urlsift::extract::{Options, Sifter};
use urlsift::printer;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        // A closed pipe (`urlsift extract | head`) is the reader's choice,
        // not a failure.
        Err(e)
            if e.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("urlsift: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Extract(a) => {
            let sifter = sifter(&a.scan, false)?;
            let summary = if a.scan.json {
                scan(&a.scan, &sifter, &printer::ExtractJson)?
            } else {
                scan(&a.scan, &sifter, &printer::UrlLines)?
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
            let sifter = sifter(&a.scan, excerpts)?;
            let fail_on = level(a.fail_on);
            let summary = if a.scan.json {
                scan(&a.scan, &sifter, &printer::LintJson { fail_on })?
            } else {
                scan(&a.scan, &sifter, &printer::LintText { fail_on, excerpts })?
            };
            Ok(match summary {
                s if s.errors > 0 => 2,
                s if s.failing > 0 => 1,
                _ => 0,
            })
        }
        Command::Check(a) => check(a),
        Command::Explain(a) => explain(&a.codes),
    }
}

fn grammar(g: GrammarArg) -> Grammar {
    match g {
        GrammarArg::Rfc1738 => Grammar::Rfc1738,
        GrammarArg::Rfc3986 => Grammar::Rfc3986,
    }
}

fn level(l: LevelArg) -> Severity {
    match l {
        LevelArg::Note => Severity::Note,
        LevelArg::Warning => Severity::Warning,
        LevelArg::Error => Severity::Error,
    }
}

fn sifter(a: &ScanArgs, excerpts: bool) -> anyhow::Result<Sifter> {
    let mut severities = Vec::new();
    for s in &a.severities {
        let (code, lvl) = s
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--severity wants CODE=LEVEL, got {s:?}"))?;
        let code = Code::from_name(code).ok_or_else(|| {
            anyhow::anyhow!("--severity: unknown code {code:?} (see `urlsift explain`)")
        })?;
        let lvl = match lvl {
            "off" => None,
            "note" => Some(Severity::Note),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => {
                anyhow::bail!("--severity: level must be off, note, warning or error, got {lvl:?}")
            }
        };
        severities.push((code, lvl));
    }
    Ok(Sifter::new(Options { grammar: grammar(a.grammar), severities, excerpts }))
}

fn scan<E: Emit>(a: &ScanArgs, sifter: &Sifter, emit: &E) -> anyhow::Result<driver::Summary> {
    let started = Instant::now();
    let walk = WalkOptions {
        hidden: a.hidden,
        no_ignore: a.no_ignore,
        follow: a.follow,
        max_filesize: a.max_filesize,
        globs: a.globs.clone(),
    };
    let mut errors: Vec<InputError> = Vec::new();
    let inputs = driver::collect_inputs(&a.paths, &walk, &mut errors);
    for e in &errors {
        eprintln!("urlsift: {e}");
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let opts = RunOptions { threads: a.threads, binary: a.binary };
    let mut summary = driver::run(&inputs, sifter, emit, opts, |input, r| {
        out.write_all(&r.out)?;
        if let Some(e) = &r.error {
            // Flush first so the message follows the file's own output.
            out.flush()?;
            eprintln!("urlsift: {}: {e}", input.shown());
        }
        Ok(())
    })?;
    out.flush()?;
    summary.errors += errors.iter().filter(|e| e.fatal).count() as u64;
    if a.stats {
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "files: {}  bytes: {}  urls: {}  failing: {}  binary skipped: {}  unreadable: {}  time: {:.3}s  {:.1} MB/s",
            summary.files,
            summary.bytes,
            summary.urls,
            summary.failing,
            summary.binary,
            summary.errors,
            secs,
            summary.bytes as f64 / 1e6 / secs.max(1e-9)
        );
    }
    Ok(summary)
}

fn check(a: cli::CheckArgs) -> anyhow::Result<u8> {
    let sifter = Sifter::new(Options { grammar: grammar(a.grammar), ..Options::default() });
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut all_valid = true;
    let mut one = |url: &[u8], out: &mut dyn Write| -> io::Result<()> {
        let v = sifter.check(url);
        all_valid &= v.is_valid();
        let text = String::from_utf8_lossy(url);
        if a.json {
            let mut buf = Vec::new();
            buf.extend_from_slice(b"{\"url\":");
            printer::json_str(&mut buf, &text);
            write!(buf, ",\"valid\":{},\"scheme\":", v.is_valid())?;
            printer::json_str(&mut buf, &v.scheme);
            buf.extend_from_slice(b",\"diagnostics\":[");
            for (i, d) in v.diagnostics.iter().enumerate() {
                if i > 0 {
                    buf.push(b',');
                }
                write!(
                    buf,
                    "{{\"code\":\"{}\",\"severity\":\"{}\",\"message\":",
                    d.code, d.severity
                )?;
                printer::json_str(&mut buf, &d.message);
                write!(buf, ",\"start\":{},\"end\":{}", d.start, d.end)?;
                if let Some(g) = d.grammar {
                    write!(buf, ",\"grammar\":\"{}\"", g.as_str())?;
                }
                if let Some(fix) = &d.fix {
                    buf.extend_from_slice(b",\"fix\":");
                    printer::json_str(&mut buf, fix);
                }
                buf.push(b'}');
            }
            buf.extend_from_slice(b"]}\n");
            out.write_all(&buf)?;
        } else if v.diagnostics.is_empty() {
            writeln!(out, "{text}: valid")?;
        } else {
            let verdict = if v.is_valid() { "valid" } else { "invalid" };
            writeln!(out, "{text}: {verdict}")?;
            for d in &v.diagnostics {
                writeln!(
                    out,
                    "  {}..{}: {}[{}]: {}",
                    d.start, d.end, d.severity, d.code, d.message
                )?;
            }
        }
        Ok(())
    };
    for u in &a.urls {
        if u == "-" {
            for line in io::stdin().lock().split(b'\n') {
                let mut line = line?;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if !line.is_empty() {
                    one(&line, &mut out)?;
                }
            }
        } else {
            one(u.as_bytes(), &mut out)?;
        }
    }
    out.flush()?;
    Ok(if all_valid { 0 } else { 1 })
}

fn explain(codes: &[String]) -> anyhow::Result<u8> {
    let selected: Vec<Code> = if codes.is_empty() {
        Code::ALL.to_vec()
    } else {
        codes
            .iter()
            .map(|c| Code::from_name(c).ok_or_else(|| anyhow::anyhow!("unknown code {c:?}")))
            .collect::<Result<_, _>>()?
    };
    let mut out = io::stdout().lock();
    for c in selected {
        writeln!(out, "{:<22} {:<8} {}", c.as_str(), c.default_severity().as_str(), c.summary())?;
    }
    Ok(0)
}
