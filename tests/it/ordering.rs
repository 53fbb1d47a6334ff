//! `driver::run_stream` scans inputs on several threads while the source is
//! still listing them, and puts results back in source order: whole files,
//! parts of big files and problems of the source, interleaved. Whatever
//! the thread count, the events must come out in exactly the order of the
//! source, each file's pieces contiguous, and the totals must agree.

use std::path::PathBuf;

use urlsift::driver::{self, Event, Input, InputError, RunOptions, Walked};
use urlsift::extract::{Options, Sifter};
use urlsift::printer::ExtractJson;

/// What one run printed, as a list of `(name, output)` events, where a
/// problem is `("!name", reason)`.
fn events(source: &[Walked], threads: usize) -> (Vec<(String, Vec<u8>)>, driver::Summary) {
    let sifter = Sifter::new(Options::default());
    let opts = RunOptions { threads, part_size: 512, tally: true, ..RunOptions::default() };
    let mut got: Vec<(String, Vec<u8>)> = Vec::new();
    let mut open: Option<String> = None;
    let summary =
        driver::run_stream(source.iter().cloned(), &sifter, &ExtractJson, opts, |event| {
            match event {
                Event::File(input, r) => {
                    // Pieces of one file come together, nothing between.
                    if let Some(o) = &open {
                        assert_eq!(o, input.shown(), "another file inside a file's pieces");
                    }
                    match got.last_mut() {
                        Some((name, out)) if open.is_some() => {
                            assert_eq!(name, input.shown());
                            out.extend_from_slice(&r.out);
                        }
                        _ => got.push((input.shown().to_string(), r.out.clone())),
                    }
                    open = r.partial.then(|| input.shown().to_string());
                }
                Event::Problem(e) => {
                    assert!(open.is_none(), "a problem inside a file's pieces");
                    got.push((format!("!{}", e.path), e.reason.clone().into_bytes()));
                }
            }
            Ok(())
        })
        .expect("no output error");
    assert!(open.is_none(), "the last file's last piece never came");
    (got, summary)
}

#[test]
fn results_come_back_in_source_order_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let mut source: Vec<Walked> = Vec::new();
    let mut want_names = Vec::new();
    for i in 0..600 {
        if i % 97 == 13 {
            // A big file: with parts of 512 bytes, it is cut in ~40 parts.
            let text: String = (0..400)
                .map(|k| format!("line {k} of big {i}: <URL:http://b{i}.example/{k}\n  /x>\n"))
                .collect();
            let path = dir.path().join(format!("big{i}.txt"));
            std::fs::write(&path, text).unwrap();
            want_names.push(format!("big{i}"));
            source.push(Ok(Input::File { path, shown: format!("big{i}") }));
        } else if i % 50 == 7 {
            want_names.push(format!("!gone{i}"));
            source.push(Err(InputError {
                path: format!("gone{i}"),
                reason: "no such file or directory".into(),
                fatal: true,
            }));
        } else {
            let path = dir.path().join(format!("f{i}.txt"));
            let urls = i % 4;
            let text: String =
                (0..urls).map(|k| format!("see http://f{i}.example/{k}\n")).collect();
            std::fs::write(&path, text).unwrap();
            want_names.push(format!("f{i}"));
            source.push(Ok(Input::File { path: PathBuf::from(&path), shown: format!("f{i}") }));
        }
    }
    let (one, s1) = events(&source, 1);
    let names: Vec<&str> = one.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, want_names);
    // Every URL is counted once by scheme and once by kind.
    assert_eq!(s1.tally.kinds.values().sum::<u64>(), s1.urls);
    assert_eq!(s1.tally.schemes.values().sum::<u64>(), s1.urls);
    assert!(s1.tally.kinds.contains_key("wrapped") && s1.tally.kinds.contains_key("bare"));
    let problems = source.iter().filter(|w| w.is_err()).count() as u64;
    assert!(problems > 5);
    assert_eq!(s1.errors, problems, "the source's fatal problems are counted");
    for threads in [2, 3, 8] {
        let (many, s) = events(&source, threads);
        assert!(many == one, "{threads} threads: events differ from one thread");
        assert_eq!(
            (s.files, s.urls, s.errors, s.bytes),
            (s1.files, s1.urls, s1.errors, s1.bytes),
            "{threads} threads"
        );
        assert_eq!(s.tally, s1.tally, "{threads} threads: the --stats tally");
    }
}

/// An output error (a closed pipe) stops the run, on any thread count,
/// and is returned.
#[test]
fn an_output_error_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let inputs: Vec<Input> = (0..300)
        .map(|i| {
            let path = dir.path().join(format!("f{i}.txt"));
            std::fs::write(&path, format!("http://f{i}.example/\n")).unwrap();
            Input::File { path, shown: format!("f{i}") }
        })
        .collect();
    let sifter = Sifter::new(Options::default());
    for threads in [1, 2, 4] {
        let opts = RunOptions { threads, ..RunOptions::default() };
        let mut calls = 0;
        let r = driver::run(&inputs, &sifter, &ExtractJson, opts, |_, _| {
            calls += 1;
            if calls == 10 { Err(std::io::ErrorKind::BrokenPipe.into()) } else { Ok(()) }
        });
        assert_eq!(r.unwrap_err().kind(), std::io::ErrorKind::BrokenPipe, "{threads} threads");
        assert_eq!(calls, 10, "{threads} threads: written after the error");
    }
}
