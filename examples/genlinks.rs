//! Writes a link-dense Markdown list, the shape of the "awesome" lists
//! people extract links from (issue 15's second benchmark corpus):
//!
//! ```text
//! cargo run --release --example genlinks -- --size 150M --out /tmp/links.md
//! ```
//!
//! Most lines are list items with a Markdown link and a bare URL ending a
//! sentence, `- [name](https://github.com/o/r) - text, see
//! http://docs.example.org/x/1.html.`; headings and short paragraphs
//! without URLs come between. Every URL is valid under the default
//! profile, so `extract` must find exactly the number printed on standard
//! output (the bench script asserts it).

use std::io::{BufWriter, Write};
use std::process::ExitCode;

#[path = "support/size.rs"]
mod size;
use size::parse_size;

const USAGE: &str = "usage: genlinks --out FILE [--size SIZE] [--seed N]
  --size SIZE  approximate size in bytes; K, M, G suffixes (default 150M)
  --seed N     generator seed (default 1)
  prints the number of URLs written";

const WORDS: &[&str] = &[
    "fast",
    "simple",
    "library",
    "parser",
    "for",
    "the",
    "web",
    "and",
    "a",
    "tool",
    "framework",
    "minimal",
    "async",
    "client",
    "server",
    "with",
    "support",
    "written",
    "in",
    "Rust",
    "database",
    "command-line",
    "static",
    "site",
    "generator",
    "testing",
    "collection",
    "of",
];
const HOSTS: &[&str] =
    &["docs.example.org", "www.example.com", "example.net", "blog.example.io", "wiki.example.org"];

/// xorshift64*: deterministic, and no dependency for an example.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn word(&mut self) -> &'static str {
        WORDS[self.below(WORDS.len())]
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(n) => {
            println!("{n}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("genlinks: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<u64, String> {
    let mut size: usize = 150 << 20;
    let mut seed: u64 = 1;
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"));
        match flag.as_str() {
            "--size" => {
                let v = value()?;
                size = parse_size(&v)
                    .ok_or_else(|| format!("not a size: {v:?} (use e.g. 500K, 150M)"))?;
            }
            "--seed" => seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--out" => out = Some(value()?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            _ => return Err(format!("unknown argument {flag:?}\n{USAGE}")),
        }
    }
    let out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    let file = std::fs::File::create(&out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (mut written, mut urls, mut item) = (0usize, 0u64, 0u64);
    let mut line = String::new();
    while written < size {
        line.clear();
        match rng.below(20) {
            0 => line.push_str(&format!("\n## {} {}\n\n", rng.word(), rng.word())),
            1 => {
                for _ in 0..12 {
                    line.push_str(rng.word());
                    line.push(' ');
                }
                line.push_str("and more.\n");
            }
            _ => {
                item += 1;
                let (a, b) = (rng.word(), rng.word());
                let host = HOSTS[rng.below(HOSTS.len())];
                line.push_str(&format!(
                    "- [{a}-{b}](https://github.com/{a}{}/{b}-{item}) - {} {} {}, see http://{host}/{}/{item}.html.\n",
                    item % 97,
                    rng.word(),
                    rng.word(),
                    rng.word(),
                    rng.word(),
                ));
                urls += 2;
            }
        }
        w.write_all(line.as_bytes()).map_err(|e| format!("{out}: {e}"))?;
        written += line.len();
    }
    w.flush().map_err(|e| format!("{out}: {e}"))?;
    Ok(urls)
}
