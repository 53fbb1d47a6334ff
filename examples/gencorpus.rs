//! Writes a generated corpus with planted URLs (see `tests/support/testgen.rs`) and
//! the list of what was planted, for benchmarking and for checking an
//! extractor by hand:
//!
//! ```text
//! cargo run --release --example gencorpus -- --seed 1 --size 10M --style mixed --out /tmp/x.txt
//! ```
//!
//! writes `/tmp/x.txt` and `/tmp/x.txt.planted.jsonl`, one JSON object per
//! planted URL: `url`, `kind`, `line`, `column`, `alternative` (`null`
//! unless the URL was broken after a hyphen), plus `offset` and `form`.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
// Shared with the tests and benches, not part of the library.
#[allow(dead_code)]
#[path = "../tests/support/testgen.rs"]
mod testgen;
use testgen::{GenOptions, Style, generate};

#[path = "support/size.rs"]
mod size;
use size::parse_size;

const USAGE: &str =
    "usage: gencorpus --out FILE [--seed N] [--size SIZE] [--style STYLE] [--density PCT]
  --seed N       generator seed (default 0)
  --size SIZE    approximate size in bytes; K, M, G suffixes (default 1M)
  --style STYLE  mail, news, rfc, docs or mixed (default mixed)
  --density PCT  URL density in percent of the style's rate; 0 = no URLs (default 100)
  --out FILE     the text; the planted list goes to FILE.planted.jsonl";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gencorpus: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<()> {
    let mut opts = GenOptions::new(0, 1 << 20, Style::Mixed);
    let mut out: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "-h" || flag == "--help" {
            println!("{USAGE}");
            return Ok(());
        }
        // Both `--flag value` and `--flag=value`.
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (flag.clone(), None),
        };
        let mut value = || -> Result<String> {
            inline.clone().or_else(|| args.next()).with_context(|| format!("{name} needs a value"))
        };
        match name.as_str() {
            "--seed" => opts.seed = value()?.parse().context("--seed")?,
            "--size" => {
                let v = value()?;
                opts.size = parse_size(&v)
                    .with_context(|| format!("not a size: {v:?} (use e.g. 500K, 10M)"))?;
            }
            "--style" => {
                let v = value()?;
                opts.style =
                    Style::from_name(&v).with_context(|| format!("unknown style {v:?}"))?;
            }
            "--density" => opts.density = value()?.parse().context("--density")?,
            "--out" => out = Some(PathBuf::from(value()?)),
            _ => bail!("unknown argument {flag:?}\n{USAGE}"),
        }
    }
    let Some(out) = out else { bail!("--out is required\n{USAGE}") };

    let (text, planted) = generate(&opts);
    std::fs::write(&out, &text).with_context(|| format!("writing {}", out.display()))?;
    let mut list_path = out.clone().into_os_string();
    list_path.push(".planted.jsonl");
    let list_path = PathBuf::from(list_path);
    let file = std::fs::File::create(&list_path)
        .with_context(|| format!("creating {}", list_path.display()))?;
    let mut w = BufWriter::new(file);
    for p in &planted {
        let row = serde_json::json!({
            "url": p.url,
            "kind": p.kind,
            "line": p.line,
            "column": p.column,
            "alternative": p.alternative,
            "offset": p.offset,
            "form": p.form,
        });
        serde_json::to_writer(&mut w, &row)?;
        w.write_all(b"\n")?;
    }
    w.flush().with_context(|| format!("writing {}", list_path.display()))?;
    eprintln!(
        "gencorpus: {} bytes, {} URLs -> {} and {}",
        text.len(),
        planted.len(),
        out.display(),
        list_path.display()
    );
    Ok(())
}
