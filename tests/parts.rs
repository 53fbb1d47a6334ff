//! One big file scanned by several threads in parts: the output must be
//! byte-identical to a single-threaded scan, also when wrappers, CRLFs and
//! quoted continuation lines straddle the cuts (tiny parts put a cut inside
//! hundreds of broken wrappers).

use urlsift::driver::{self, Input, RunOptions};
use urlsift::extract::{Options, Sifter};
use urlsift::printer::ExtractJson;
use urlsift::testgen::{GenOptions, Style, generate};

fn run(path: &std::path::Path, threads: usize, part_size: u64) -> (Vec<u8>, u64) {
    // One engine for every run: compiling the grammar DFAs is the slow part
    // of a debug build.
    static SIFTER: std::sync::OnceLock<Sifter> = std::sync::OnceLock::new();
    let sifter = SIFTER.get_or_init(|| Sifter::new(Options::default()));
    let inputs = [Input::File { path: path.to_path_buf(), shown: "big.txt".into() }];
    let opts = RunOptions { threads, part_size, ..RunOptions::default() };
    let mut out = Vec::new();
    let summary = driver::run(&inputs, sifter, &ExtractJson, opts, |_, r| {
        assert!(r.error.is_none(), "{:?}", r.error);
        out.extend_from_slice(&r.out);
        Ok(())
    })
    .unwrap();
    (out, summary.urls)
}

#[test]
fn parts_give_the_same_output_as_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, style) in [(1, Style::Rfc), (3, Style::Mixed)] {
        let (text, planted) = generate(&GenOptions::new(seed, 150_000, style));
        let path = dir.path().join(format!("big-{seed}.txt"));
        std::fs::write(&path, &text).unwrap();
        let (whole, n) = run(&path, 1, 0);
        assert_eq!(n as usize, planted.len());
        for part in [997, 40_000] {
            for threads in [2, 3] {
                let (parts, m) = run(&path, threads, part);
                assert_eq!(m, n, "seed {seed} part {part} threads {threads}");
                assert!(
                    parts == whole,
                    "seed {seed} part {part} threads {threads}: output differs"
                );
            }
        }
    }
}

#[test]
fn a_wrapper_across_every_cut() {
    // Each line is one wrapper broken over three lines; with parts of one
    // line's length, every cut lands inside a wrapper.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!(
            "> see <URL:http://host{i}.example/long-\n>    path/{i}\r\n>  /end>.\n"
        ));
    }
    let path = dir.path().join("wrappers.txt");
    std::fs::write(&path, &text).unwrap();
    let (whole, n) = run(&path, 1, 0);
    assert_eq!(n, 2000);
    for part in [13, 40, 61, 100] {
        let (parts, m) = run(&path, 2, part);
        assert_eq!(m, 2000, "part {part}");
        assert!(parts == whole, "part {part}: output differs");
    }
}
