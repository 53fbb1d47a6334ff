//! Big files are split into parts scanned in parallel (`driver::tasks`,
//! parts of `RunOptions::part_size`, 8 MiB by default). The answer must
//! not depend on it: every input here is run whole (one thread) and split
//! into tiny parts (two threads, parts of a few hundred bytes, so that
//! wrappers, CRLFs and long lines straddle the cuts), and the output must
//! be byte-identical, as the README promises for any thread count.

use std::path::Path;

use crate::testgen;
use testgen::{GenOptions, Style, generate};
use urlsift::driver::{self, Input, RunOptions};
use urlsift::extract::{Options, Sifter};
use urlsift::printer::ExtractJson;

/// The JSON output and the errors of one run over `path`.
fn run(path: &Path, threads: usize, part_size: u64) -> (String, Vec<String>) {
    let sifter = Sifter::new(Options::default());
    let input = Input::File { path: path.to_path_buf(), shown: "f".into() };
    let opts = RunOptions { threads, part_size, ..RunOptions::default() };
    let mut out = Vec::new();
    let mut errors = Vec::new();
    driver::run(&[input], &sifter, &ExtractJson, opts, |_, r| {
        out.extend_from_slice(&r.out);
        errors.extend(r.error.clone());
        Ok(())
    })
    .expect("no output error");
    (String::from_utf8(out).expect("JSON is UTF-8"), errors)
}

/// How many parts the driver cut `path` into.
fn parts_of(path: &Path, threads: usize, part_size: u64) -> u64 {
    let sifter = Sifter::new(Options::default());
    let input = Input::File { path: path.to_path_buf(), shown: "f".into() };
    let opts = RunOptions { threads, part_size, ..RunOptions::default() };
    let mut parts = 0;
    driver::run(&[input], &sifter, &ExtractJson, opts, |_, r| {
        parts += r.parts;
        Ok(())
    })
    .expect("no output error");
    parts
}

/// The tests below compare split runs with whole ones: they would pass
/// vacuously if nothing were ever split.
#[test]
fn big_files_are_cut_with_several_threads_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let (text, _) = generate(&GenOptions::new(5, 30_000, Style::Docs));
    std::fs::write(&path, &text).unwrap();
    let n = text.len() as u64;
    // Smaller than the head the driver sniffs, and bigger.
    for part in [300, 4096, 10_000] {
        let parts = parts_of(&path, 2, part);
        assert!(parts >= 2 && parts <= n.div_ceil(part), "parts of {part} bytes: {parts}");
        assert_eq!(parts_of(&path, 1, part), 0, "one thread reads whole");
    }
    assert_eq!(parts_of(&path, 2, n / 2 + 1), 0, "a file under two parts is read whole");
    // A small file, read whole by its head alone, is still cut.
    let small = dir.path().join("s");
    std::fs::write(&small, &text[..2000]).unwrap();
    assert!(parts_of(&small, 2, 100) >= 2);
}

fn same_whole_and_split(name: &str, text: &[u8]) {
    same_whole_and_split_in(name, text, &[64, 300, 4096]);
}

fn same_whole_and_split_in(name: &str, text: &[u8], parts: &[u64]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let whole = run(&path, 1, 0);
    assert!(whole.1.is_empty(), "{name}: {:?}", whole.1);
    for &part in parts {
        let split = run(&path, 2, part);
        if split != whole {
            let (w, s) = (whole.0.lines().count(), split.0.lines().count());
            let i =
                whole.0.lines().zip(split.0.lines()).position(|(a, b)| a != b).unwrap_or(w.min(s));
            panic!(
                "{name}, parts of {part} bytes: {s} URLs (errors {:?}), whole: {w}; first difference at #{i}:\n  whole: {:?}\n  split: {:?}",
                split.1,
                whole.0.lines().nth(i),
                split.0.lines().nth(i)
            );
        }
    }
}

#[test]
fn generated_text_is_the_same_whole_and_split() {
    for (seed, style) in [(1, Style::Rfc), (2, Style::Mail), (3, Style::Mixed), (4, Style::Docs)] {
        let (text, _) = generate(&GenOptions::new(seed, 30_000, style));
        same_whole_and_split(&format!("{}-{seed}.txt", style.as_str()), &text);
    }
}

fn wrapper(lines: usize, close: bool) -> Vec<u8> {
    let mut text = b"before http://before.example/\n<URL:http://a.example/".to_vec();
    text.extend(b"y\n".repeat(lines));
    if close {
        text.push(b'>');
    }
    text.extend_from_slice(b" tail http://after.example/\n");
    text
}

#[test]
fn a_wrapper_across_a_cut() {
    same_whole_and_split("closed.txt", &wrapper(400, true));
    same_whole_and_split("unclosed.txt", &wrapper(400, false));
}

/// A block marker inside a wrapper that runs across a cut, past it: the
/// next part is scanned again from the wrapper's end, and the marker,
/// before that, must still count for the URL after the wrapper.
#[test]
fn a_block_marker_inside_a_wrapper_across_a_cut() {
    let mut text = b"before http://before.example/\n<URL:http://a.example/".to_vec();
    text.extend(b"y\n".repeat(300));
    text.extend_from_slice(b"urlsift: disable\n");
    text.extend(b"y\n".repeat(100));
    text.extend_from_slice(b"> http://b.example:99999/\n");
    same_whole_and_split("marker-in-wrapper.txt", &text);
}

/// The wrapper spans a cut and more than the 256 KiB read window, with
/// parts larger than the window. Regression: a 72 MB file of one `<URL:`
/// wrapper over 36 million lines made the rescan of the next part start
/// past its first read window and panic (`&hay[from..]` out of range).
#[test]
fn r_wrapper_longer_than_the_window_across_a_cut() {
    // 600 KB; parts of 280 000 and 400 000 bytes.
    same_whole_and_split_in("closed.txt", &wrapper(300_000, true), &[280_000]);
    same_whole_and_split_in("closed.txt", &wrapper(400_000, true), &[400_000]);
}

/// The same shapes with parts smaller than the window work.
#[test]
fn a_wrapper_longer_than_the_window_across_small_parts() {
    same_whole_and_split("unclosed.txt", &wrapper(200_000, false));
    same_whole_and_split("closed.txt", &wrapper(200_000, true));
}

/// Found by the `parts` fuzz target: `urlsift: ignore` on the line before a
/// URL silences it (README), but not when a part starts at the URL's line:
/// the part's scan cannot see the line before its start, so the URL's
/// findings come back (here `port-range`).
#[test]
fn r_marker_on_the_line_before_a_cut() {
    let text = b"urlsift: ignore\nhttp://a.example:99999/\nmore text here\n";
    same_whole_and_split_in("marker.txt", text, &[10]);
}

/// Markers on the line before a URL, with every kind of line break, and
/// cuts at many places: the same findings as one pass.
#[test]
fn markers_before_urls_with_cuts_everywhere() {
    let mut text = Vec::new();
    for i in 0..300 {
        let eol: &[u8] = [&b"\n"[..], b"\r\n", b"\r"][i % 3];
        match i % 4 {
            0 => text.extend_from_slice(b"urlsift: ignore"),
            1 => text.extend_from_slice(format!("http://m{i}.example:99999/").as_bytes()),
            2 => text.extend_from_slice(b"urlsift: ignore[port-range] and some words"),
            _ => text
                .extend_from_slice(format!("x <URL:http://w{i}.example:99999/\n  a>").as_bytes()),
        }
        text.extend_from_slice(eol);
    }
    same_whole_and_split_in("markers.txt", &text, &[7, 13, 31, 64, 200]);
}

/// The marker on the URL's own line works across cuts.
#[test]
fn marker_on_the_urls_line_across_a_cut() {
    let text = b"some text here\nhttp://a.example:99999/ urlsift: ignore\nmore text here\n";
    same_whole_and_split_in("marker.txt", text, &[10]);
}

// The two tests below are the first version of this file (commit 55d091e),
// restored: the rework above replaced the file by mistake.

fn run_counted(path: &Path, threads: usize, part_size: u64) -> (Vec<u8>, u64) {
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
        let (whole, n) = run_counted(&path, 1, 0);
        assert_eq!(n as usize, planted.len());
        for part in [997, 40_000] {
            for threads in [2, 3] {
                let (parts, m) = run_counted(&path, threads, part);
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
    let (whole, n) = run_counted(&path, 1, 0);
    assert_eq!(n, 2000);
    for part in [13, 40, 61, 100] {
        let (parts, m) = run_counted(&path, 2, part);
        assert_eq!(m, 2000, "part {part}");
        assert!(parts == whole, "part {part}: output differs");
    }
}

/// Big mail files are cut between messages (`mail::message_cuts`) and the
/// parts read by several threads: the output, the problems and the mail
/// counts must be what one pass gives, `--resolve-local` included.
#[test]
fn mailboxes_cut_between_messages_give_the_same_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut mbox = Vec::new();
    for i in 0..40 {
        for fixture in ["tests/data/mail/archive.mbox", "corpus/mail/list-excerpt.mbox"] {
            let text = std::fs::read(fixture).unwrap();
            // Distinct message ids, so that `mid:move.1@...` resolves to
            // the message of its own copy.
            let text = String::from_utf8_lossy(&text)
                .replace("move.1@example.org", &format!("move.1.{i}@example.org"));
            mbox.extend_from_slice(text.as_bytes());
            if !mbox.ends_with(b"\n\n") {
                mbox.extend_from_slice(b"\n");
            }
        }
    }
    let path = dir.path().join("big.mbox");
    std::fs::write(&path, &mbox).unwrap();
    let sifter = Sifter::new(Options::default());
    let run = |threads, part_size, resolve_local| {
        let input = Input::File { path: path.clone(), shown: "big.mbox".into() };
        let opts = RunOptions { threads, part_size, resolve_local, ..RunOptions::default() };
        let (mut out, mut problems) = (Vec::new(), Vec::new());
        let summary = driver::run(&[input], &sifter, &ExtractJson, opts, |_, r| {
            assert!(r.error.is_none(), "{:?}", r.error);
            out.extend_from_slice(&r.out);
            problems.extend(r.problems.iter().cloned());
            Ok(())
        })
        .unwrap();
        (String::from_utf8(out).unwrap(), problems, summary.mail, summary.urls)
    };
    for resolve_local in [false, true] {
        let whole = run(1, 0, resolve_local);
        assert!(whole.3 > 100, "{} URLs", whole.3);
        assert!(whole.2.messages >= 80 && whole.2.messages % 40 == 0, "{:?}", whole.2);
        if resolve_local {
            assert!(whole.0.contains("\"resolved\":{"), "nothing resolved");
        }
        for part in [300, 2000, 9000] {
            for threads in [2, 3] {
                let split = run(threads, part, resolve_local);
                assert_eq!(split.2, whole.2, "part {part} threads {threads}: mail counts");
                assert_eq!(split.1, whole.1, "part {part} threads {threads}: problems");
                assert!(split.0 == whole.0, "part {part} threads {threads}: output differs");
            }
        }
    }
}

/// `urlsift: disable` ... `urlsift: enable` blocks and an `ignore-file`
/// marker in the head, with cuts everywhere: a part that starts inside a
/// block must know it (the driver reads the markers of the parts before
/// it), and the output is the same as one pass.
#[test]
fn blocks_and_the_file_marker_across_cuts() {
    let mut text = Vec::new();
    for i in 0..400 {
        match i % 50 {
            3 => text.extend_from_slice(b"# urlsift: disable\n"),
            17 => text.extend_from_slice(b"<!-- urlsift: enable -->\n"),
            23 => text.extend_from_slice(b"urlsift: disable[port-range]\n"),
            31 => text.extend_from_slice(b"urlsift: enable\n"),
            // Prose that is no marker.
            40 => text.extend_from_slice(b"urlsift: disabled here, urlsift: enabler\n"),
            _ => {}
        }
        let url = format!("see http://m{i}.example:99999/%zz and more\n");
        text.extend_from_slice(url.as_bytes());
    }
    let whole = {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.txt");
        std::fs::write(&path, &text).unwrap();
        run(&path, 1, 0).0
    };
    // Not vacuous: the blocks silence some findings, not all.
    let (ports, escapes) =
        (whole.matches("port-range").count(), whole.matches("bad-escape").count());
    assert!(ports > 0 && escapes > ports && escapes < 400, "{ports} {escapes}");
    same_whole_and_split_in("blocks.txt", &text, &[7, 64, 300, 1100, 2000, 5000]);

    let mut head = b"<!-- urlsift: ignore-file[port-range] -->\n".to_vec();
    head.extend_from_slice(&text);
    same_whole_and_split_in("file.txt", &head, &[64, 1100, 5000]);
}
