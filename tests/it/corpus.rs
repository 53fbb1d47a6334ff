//! The bundled sample corpus against its hand-checked expectations in
//! `corpus/EXPECTED.md`: every URL, in order, with its kind, the position
//! of its first and last byte, its hyphen-less alternative and the
//! extraction diagnostics. The expectations were computed independently of
//! urlsift (see that file), so this is an oracle, not a snapshot.

use std::path::Path;

use urlsift::diag::{Code, Grammar};
use urlsift::extract::{Options, Sifter};

#[derive(Debug)]
struct Row {
    line: u64,
    col: u64,
    kind: String,
    url: Vec<u8>,
    last: (u64, u64),
    notes: String,
}

/// `\xE9` in EXPECTED.md stands for one raw byte.
fn unescape(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"\\x") && i + 4 <= b.len() {
            out.push(u8::from_str_radix(&s[i + 2..i + 4], 16).unwrap());
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn expected() -> Vec<(String, Vec<Row>)> {
    let text = std::fs::read_to_string("corpus/EXPECTED.md").unwrap();
    let mut files: Vec<(String, Vec<Row>)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("## `") {
            let name = rest.split('`').next().unwrap().to_string();
            files.push((name, Vec::new()));
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | # | line | col | kind | `URL` | last | notes |
        if cells.len() < 8 || cells[1].parse::<u32>().is_err() || cells[3].parse::<u64>().is_err() {
            continue;
        }
        if !matches!(cells[4], "wrapped" | "angle" | "prefixed" | "bare") {
            continue;
        }
        let (l, c) = cells[6].split_once(':').unwrap();
        let row = Row {
            line: cells[2].parse().unwrap(),
            col: cells[3].parse().unwrap(),
            kind: cells[4].to_string(),
            url: unescape(cells[5].trim_matches('`')),
            last: (l.parse().unwrap(), c.parse().unwrap()),
            notes: cells[7..].join("|"),
        };
        files.last_mut().expect("a table under a file heading").1.push(row);
    }
    files
}

#[test]
fn sample_corpus_matches_expected_md() {
    // EXPECTED.md's INVALID notes are RFC 1738's verdicts.
    let sifter = Sifter::new(Options { grammar: Grammar::Rfc1738, ..Options::default() });
    let files = expected();
    assert!(files.len() >= 9, "EXPECTED.md lists {} files", files.len());
    let mut total = 0;
    for (name, rows) in &files {
        let hay = std::fs::read(Path::new("corpus").join(name)).unwrap();
        let got = sifter.extract(&hay);
        let show: Vec<String> = got.iter().map(|u| u.url_lossy().into_owned()).collect();
        assert_eq!(got.len(), rows.len(), "{name}: got {show:#?}");
        for (u, r) in got.iter().zip(rows) {
            let ctx = format!("{name}: {}", u.url_lossy());
            assert_eq!(u.url, r.url, "{ctx}");
            assert_eq!(u.kind.as_str(), r.kind, "{ctx}");
            assert_eq!((u.start.line, u.start.column), (r.line, r.col), "{ctx}: start");
            assert_eq!((u.end.line, u.end.column), r.last, "{ctx}: last byte");
            let hyphen = u.findings.iter().any(|f| f.diagnostic.code == Code::HyphenLineBreak);
            assert_eq!(hyphen, r.notes.contains("HYPHEN AT LINE BREAK"), "{ctx}: hyphen");
            if hyphen {
                let alt = r.notes.split("alternative `").nth(1).unwrap().split('`').next().unwrap();
                assert_eq!(u.alternatives, [alt.as_bytes().to_vec()], "{ctx}");
            } else {
                assert!(u.alternatives.is_empty(), "{ctx}");
            }
            let unclosed = u.findings.iter().any(|f| f.diagnostic.code == Code::UnclosedWrapper);
            assert_eq!(unclosed, r.notes.contains("UNCLOSED"), "{ctx}: unclosed");
            // What EXPECTED.md calls INVALID must be invalid; what it leaves
            // unmarked must be valid.
            if r.notes.contains("INVALID") || r.notes.contains("UNCLOSED") {
                assert!(!u.is_valid(), "{ctx}: should be invalid");
            } else {
                assert!(u.is_valid(), "{ctx}: should be valid, got {:?}", u.findings);
            }
            total += 1;
        }
    }
    assert_eq!(total, 91);
}

#[test]
fn streaming_in_small_windows_gives_the_same_answer() {
    // extract_reader works in windows; tiny windows force wrappers, CRLFs
    // and long lines across window edges.
    // Short reads as well, as pipes give.
    struct Trickle<'a>(&'a [u8], usize);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(self.0.len()).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let sifter = Sifter::new(Options::default());
    for (name, _) in expected() {
        let hay = std::fs::read(Path::new("corpus").join(&name)).unwrap();
        let whole = sifter.extract(&hay);
        for step in [1, 3, 7, 64] {
            let mut got = Vec::new();
            let mut scratch = urlsift::extract::Scratch::with_window(step);
            sifter.extract_reader(Trickle(&hay, step), &mut scratch, |u| got.push(u)).unwrap();
            assert_eq!(got, whole, "{name} read {step} bytes at a time");
        }
    }
}
