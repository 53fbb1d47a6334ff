//! Recall against generated text: for several seeds and every style of
//! `tests/support/testgen.rs`, the extractor must report exactly the planted URLs
//! (same text, kind, first-byte position and hyphen-less alternative, in
//! order, nothing extra), each valid, with no diagnostic other than the
//! `hyphen-line-break` warning of a URL broken after a hyphen. The same
//! answer must come out of every path: `Sifter::extract`, streaming through
//! `Sifter::extract_reader` in tiny windows (so wrappers straddle window
//! edges), and the `urlsift extract --json` binary with one and two threads.

use std::path::Path;
use std::process::Command;

use crate::testgen;
use serde_json::Value;
use testgen::{GenOptions, Planted, Style, generate};
use urlsift::diag::{Code, Grammar};
use urlsift::extract::{Extracted, Options, Scratch, Sifter};

/// Seeds and sizes: about 2.4 MB in all, enough for a few thousand URLs of
/// every form while staying quick in a debug build.
const SEEDS: [u64; 3] = [1, 2, 0x5eed_cafe];
const SIZE: usize = 160_000;

fn corpora() -> Vec<(String, Vec<u8>, Vec<Planted>)> {
    let mut out = Vec::new();
    for seed in SEEDS {
        for style in Style::ALL {
            let (text, planted) = generate(&GenOptions::new(seed, SIZE, style));
            out.push((format!("{}-{seed}.txt", style.as_str()), text, planted));
        }
    }
    out
}

/// One URL reduced to what the planted list states.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    url: String,
    kind: String,
    line: u64,
    column: u64,
    alternative: Option<String>,
}

impl From<&Planted> for Seen {
    fn from(p: &Planted) -> Seen {
        Seen {
            url: p.url.clone(),
            kind: p.kind.to_string(),
            line: p.line,
            column: p.column,
            alternative: p.alternative.clone(),
        }
    }
}

impl From<&Extracted> for Seen {
    fn from(e: &Extracted) -> Seen {
        assert!(e.alternatives.len() <= 1, "{e:?}");
        Seen {
            url: e.url_lossy().into_owned(),
            kind: e.kind.as_str().to_string(),
            line: e.start.line,
            column: e.start.column,
            alternative: e.alternatives.first().map(|a| String::from_utf8_lossy(a).into_owned()),
        }
    }
}

/// Asserts `got` equals the planted list, and on failure shows the first
/// difference with the source lines around it, which is what one needs to
/// turn it into a minimal scanner case.
fn assert_same(name: &str, text: &[u8], planted: &[Planted], got: &[Seen]) {
    let want: Vec<Seen> = planted.iter().map(Seen::from).collect();
    if want == got {
        return;
    }
    let i = want.iter().zip(got).position(|(w, g)| w != g).unwrap_or(want.len().min(got.len()));
    let line = want.get(i).or(got.get(i)).map_or(1, |s| s.line) as usize;
    let context: String = String::from_utf8_lossy(text)
        .split_inclusive('\n')
        .enumerate()
        .skip(line.saturating_sub(3))
        .take(6)
        .map(|(n, l)| format!("{:>6} | {}", n + 1, l.escape_debug()))
        .collect::<Vec<_>>()
        .join("\n");
    panic!(
        "{name}: {} planted, {} found; first difference at #{i} ({})\n  want: {:?}\n  \
         got:  {:?}\n{context}",
        want.len(),
        got.len(),
        planted.get(i).map_or("-", |p| p.form),
        want.get(i),
        got.get(i),
    );
}

#[test]
fn every_planted_url_is_found_and_nothing_else() {
    // rfc1738 reports the hyphen breaks the default profile leaves to
    // `alternatives`, so each planted one is seen as a finding.
    let sifter = Sifter::new(Options { grammar: Grammar::Rfc1738, ..Options::default() });
    let mut total = 0;
    for (name, text, planted) in corpora() {
        let found = sifter.extract(&text);
        let got: Vec<Seen> = found.iter().map(Seen::from).collect();
        assert_same(&name, &text, &planted, &got);
        for (e, p) in found.iter().zip(&planted) {
            assert!(e.is_valid(), "{name}: planted URL judged invalid: {e:#?}");
            let codes: Vec<Code> = e.findings.iter().map(|f| f.diagnostic.code).collect();
            let expected: &[Code] =
                if p.alternative.is_some() { &[Code::HyphenLineBreak] } else { &[] };
            assert_eq!(codes, expected, "{name}: {e:#?}");
        }
        total += planted.len();
    }
    assert!(total > 1000, "only {total} URLs planted: the test lost its teeth");
}

#[test]
fn streaming_in_small_windows_matches_extract() {
    let sifter = Sifter::new(Options::default());
    // Smaller inputs here: a 7-byte window makes one scan call per line.
    for (seed, style) in [(11, Style::Rfc), (12, Style::Mail), (13, Style::Mixed)] {
        let (text, planted) = generate(&GenOptions::new(seed, 40_000, style));
        let whole = sifter.extract(&text);
        assert_eq!(whole.len(), planted.len());
        for window in [7, 100, 4096] {
            let mut scratch = Scratch::with_window(window);
            let mut streamed = Vec::new();
            let stats = sifter
                .extract_reader(&text[..], &mut scratch, |e| streamed.push(e))
                .expect("reading a slice cannot fail");
            assert_eq!(stats.bytes, text.len() as u64);
            assert_eq!(stats.urls, whole.len() as u64);
            if let Some(i) = (0..whole.len()).find(|&i| streamed.get(i) != Some(&whole[i])) {
                panic!(
                    "{style:?} seed {seed}, window {window}: #{i} differs\n  extract: {:?}\n  \
                     stream:  {:?}",
                    whole[i],
                    streamed.get(i)
                );
            }
            assert_eq!(streamed.len(), whole.len(), "{style:?} seed {seed}, window {window}");
        }
    }
}

/// Runs `urlsift extract --json --threads N dir` and returns its output.
fn run_extract(dir: &Path, threads: &str) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(["extract", "--json", "--threads", threads])
        .arg(dir)
        .output()
        .expect("run urlsift");
    assert!(
        out.status.code() == Some(0),
        "urlsift extract exited {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn binary_output_is_the_planted_list_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, style) in Style::ALL.into_iter().enumerate() {
        let (text, planted) = generate(&GenOptions::new(100 + i as u64, 60_000, style));
        let name = format!("{}.txt", style.as_str());
        std::fs::write(dir.path().join(&name), &text).unwrap();
        files.push((name, text, planted));
    }
    let one = run_extract(dir.path(), "1");
    let two = run_extract(dir.path(), "2");
    assert!(one == two, "output differs between --threads 1 and --threads 2");

    // Group the JSON lines by file, keeping their order.
    let mut by_file: Vec<(String, Vec<Seen>)> = Vec::new();
    for line in String::from_utf8(one).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let path = v["path"].as_str().unwrap();
        let name = Path::new(path).file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(v["valid"], Value::Bool(true), "{line}");
        let alternatives = v["alternatives"].as_array().unwrap();
        assert!(alternatives.len() <= 1, "{line}");
        let seen = Seen {
            url: v["url"].as_str().unwrap().to_string(),
            kind: v["kind"].as_str().unwrap().to_string(),
            line: v["line"].as_u64().unwrap(),
            column: v["column"].as_u64().unwrap(),
            alternative: alternatives.first().map(|a| a.as_str().unwrap().to_string()),
        };
        match by_file.last_mut() {
            Some((n, list)) if *n == name => list.push(seen),
            _ => by_file.push((name, vec![seen])),
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let names: Vec<&str> = by_file.iter().map(|f| f.0.as_str()).collect();
    let want: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, want, "files missing, repeated or out of order");
    for ((name, text, planted), (_, got)) in files.iter().zip(&by_file) {
        assert_same(name, text, planted, got);
    }
}
