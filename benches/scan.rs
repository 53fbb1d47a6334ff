//! Throughput of `Sifter::extract` (scan, rejoin, validate, place) in
//! bytes per second, on generated text of several URL densities and, when
//! it is there, on the shared corpus of real mail, news, RFCs and docs.
//!
//! Every case checks its answer on every iteration (the planted count for
//! generated text, the count of a first run for the corpus), so a change
//! that makes extraction fast by making it wrong fails instead of looking
//! like a win.
//!
//! `cargo bench --bench scan` for numbers; `cargo bench --bench scan --
//! --quick` for a rough run in seconds.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use urlsift::extract::{Options, Sifter};
// Shared with the tests and benches, not part of the library.
#[allow(dead_code)]
#[path = "../tests/support/testgen.rs"]
mod testgen;
use testgen::{GenOptions, Style, generate};

/// Large enough that per-call overhead vanishes and the input leaves L2,
/// small enough to generate in well under a second.
const GENERATED: usize = 4 << 20;

/// The real-text case reads at most this much of `../shared/corpus`.
const CORPUS_LIMIT: u64 = 50 << 20;

fn generated(c: &mut Criterion) {
    let sifter = Sifter::new(Options::default());
    let cases = [
        // Headers, prose and decoy colons, no URL: the prefilter's floor.
        ("none", GenOptions { density: 0, ..GenOptions::new(1, GENERATED, Style::Mail) }),
        // Mail and news: a URL every few paragraphs.
        ("sparse", GenOptions::new(1, GENERATED, Style::Mail)),
        // Markdown docs: several URLs per paragraph, mostly bare.
        ("dense", GenOptions::new(1, GENERATED, Style::Docs)),
        // RFC reference lists: wrappers, most broken across lines.
        ("wrapped", GenOptions::new(1, GENERATED, Style::Rfc)),
    ];
    let mut group = c.benchmark_group("extract");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, opts) in cases {
        let (text, planted) = generate(&opts);
        let want = planted.len();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let n = sifter.extract(black_box(&text)).len();
                assert_eq!(n, want, "{name}: wrong number of URLs");
                n
            })
        });
    }
    group.finish();
}

fn corpus(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let Some(text) = read_corpus(&root, CORPUS_LIMIT) else {
        eprintln!("extract/corpus: skipped, {} is missing or empty", root.display());
        return;
    };
    let sifter = Sifter::new(Options::default());
    let want = sifter.extract(&text).len();
    assert!(want > 0, "no URL in {} bytes of corpus", text.len());
    let mut group = c.benchmark_group("extract");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("corpus", |b| {
        b.iter(|| {
            let n = sifter.extract(black_box(&text)).len();
            assert_eq!(n, want, "corpus: the answer changed between runs");
            n
        })
    });
    group.finish();
}

/// Up to `limit` bytes of the files under `root`, taken in turn from each
/// top-level directory (so mail, news, RFCs and docs all get a share) in
/// sorted order, so the input is the same on every run. Files are joined
/// by a blank line, which ends any wrapper left open by the file before.
fn read_corpus(root: &Path, limit: u64) -> Option<Vec<u8>> {
    let mut tops: Vec<PathBuf> =
        std::fs::read_dir(root).ok()?.flatten().map(|e| e.path()).collect();
    tops.sort();
    let mut lists: Vec<std::vec::IntoIter<PathBuf>> = tops
        .iter()
        .map(|t| {
            let mut files = Vec::new();
            walk(t, &mut files);
            files.sort();
            files.into_iter()
        })
        .collect();
    let mut text = Vec::new();
    let mut more = true;
    while more && (text.len() as u64) < limit {
        more = false;
        for list in &mut lists {
            let Some(path) = list.next() else { continue };
            more = true;
            if let Ok(bytes) = std::fs::read(&path) {
                text.extend_from_slice(&bytes);
                text.extend_from_slice(b"\n\n");
            }
            if text.len() as u64 >= limit {
                break;
            }
        }
    }
    (!text.is_empty()).then_some(text)
}

/// Every regular file under `path` (or `path` itself).
fn walk(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_path_buf());
    } else if let Ok(entries) = std::fs::read_dir(path) {
        for e in entries.flatten() {
            walk(&e.path(), out);
        }
    }
}

criterion_group!(benches, generated, corpus);
criterion_main!(benches);
