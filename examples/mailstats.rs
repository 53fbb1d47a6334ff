//! Throughput and counts of the mail reader on real archives: for each
//! file (default: the mboxes in `../shared/corpus/mail`), the detected
//! kind, messages, parts, URLs, problems and MB/s. Run it in release mode:
//!
//! ```text
//! cargo run --release --example mailstats [-v] [--as=KIND] [FILE...]
//! ```
//!
//! `--as=text|mbox|mail|news` overrides detection (`--as=text` shows what
//! plain scanning finds, for comparison).
//! `-v` prints every problem and every URL with its message and part,
//! which is how a new archive is checked by eye.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::time::Instant;

use urlsift::extract::{Options, Sifter};
use urlsift::mail::{InputKind, detect_reader, extract_mail};

fn main() -> std::io::Result<()> {
    let mut verbose = false;
    let mut force = None;
    let mut files: Vec<PathBuf> = Vec::new();
    for arg in std::env::args().skip(1) {
        if arg == "-v" {
            verbose = true;
        } else if let Some(kind) = arg.strip_prefix("--as=") {
            force = Some(match kind {
                "text" => InputKind::Text,
                "mbox" => InputKind::Mbox,
                "mail" => InputKind::Message,
                "news" => InputKind::News,
                _ => panic!("--as=text|mbox|mail|news"),
            });
        } else {
            files.push(arg.into());
        }
    }
    if files.is_empty() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/mail");
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "mbox"))
            .collect();
        found.sort();
        files = found;
    }
    let sifter = Sifter::new(Options::default());
    let (mut total_bytes, mut total_secs) = (0u64, 0f64);
    for path in files {
        let (detected, reader) = detect_reader(BufReader::new(File::open(&path)?))?;
        let kind = force.unwrap_or(detected);
        let mut problems = 0u64;
        let mut invalid = 0u64;
        let mut in_headers = 0u64;
        let t = Instant::now();
        let stats = extract_mail(
            &sifter,
            reader,
            kind,
            |u| {
                invalid += u64::from(!u.url.is_valid());
                in_headers += u64::from(u.header.is_some());
                if verbose {
                    println!(
                        "  {}:{}:{} msg {} {} {} {}",
                        path.display(),
                        u.url.start.line,
                        u.url.start.column,
                        u.message_index,
                        u.header.as_deref().unwrap_or("-"),
                        u.part.as_deref().unwrap_or("-"),
                        u.url.url_lossy()
                    );
                }
            },
            |p| {
                problems += 1;
                if verbose {
                    println!(
                        "  problem: message {} line {}: {}",
                        p.message_index, p.line, p.reason
                    );
                }
            },
        )?;
        let secs = t.elapsed().as_secs_f64();
        total_bytes += stats.bytes;
        total_secs += secs;
        println!(
            "{}: {} | {} messages ({} malformed), {} text parts, {} skipped, {} qp, {} base64 | \
             {} URLs ({} in headers, {} invalid) | {} problems | {:.1} MB in {:.3} s = {:.0} MB/s",
            path.display(),
            kind.as_str(),
            stats.messages,
            stats.malformed,
            stats.text_parts,
            stats.skipped_parts,
            stats.decoded_qp,
            stats.decoded_base64,
            stats.urls,
            in_headers,
            invalid,
            problems,
            stats.bytes as f64 / 1e6,
            secs,
            stats.bytes as f64 / 1e6 / secs
        );
    }
    if total_secs > 0.0 {
        println!(
            "total: {:.1} MB at {:.0} MB/s",
            total_bytes as f64 / 1e6,
            total_bytes as f64 / 1e6 / total_secs
        );
    }
    Ok(())
}
