//! Stress tests for the threads of `driver::run_stream`: more tasks than
//! `MAX_AHEAD` (4096) behind a slow file, more than `MAX_QUEUED` (65536)
//! tasks, long runs of problems of the source, output errors at the first
//! and the last event, panics in the callback, in the source and in the
//! printer, and the cuts of big text files (`cuts`, `line_before`).
//!
//! Every run happens on a thread of its own and must answer within
//! `LIMIT`: a deadlock fails the test instead of hanging it. The callbacks
//! never assert (a panic there is a test subject of its own): they record
//! what they saw, and the test compares it with the one-thread run.

use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, mpsc};
use std::time::Duration;

use urlsift::driver::{self, Context, Emit, Event, Input, InputError, RunOptions, Walked};
use urlsift::extract::{Extracted, Options, Sifter};
use urlsift::printer::ExtractJson;

const LIMIT: Duration = Duration::from_secs(60);

/// Parts so big that nothing is split.
const NO_PARTS: u64 = 1 << 40;

fn sifter() -> &'static Sifter {
    static S: OnceLock<Sifter> = OnceLock::new();
    S.get_or_init(|| Sifter::new(Options::default()))
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// Runs `f` on a thread of its own: `Err` with the panic message if it
/// panicked; a test failure if it does not end within `LIMIT`.
fn timed<T: Send + 'static>(
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = catch_unwind(AssertUnwindSafe(f)).map_err(|p| panic_text(&p));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(LIMIT) {
        Ok(r) => r,
        Err(_) => panic!("{what}: no answer in {LIMIT:?}: deadlock"),
    }
}

/// What one run did.
#[derive(Debug)]
struct Seen {
    /// `(name, output)` per file, pieces joined; a problem is `("!path", reason)`.
    events: Vec<(String, Vec<u8>)>,
    /// File errors (`FileResult::error`), in order.
    errors: Vec<(String, String)>,
    /// Calls of the callback.
    calls: usize,
    /// The biggest `out` handed over in one call.
    max_piece: usize,
    /// Order violations seen by the callback (pieces interleaved, calls
    /// after the error).
    violations: Vec<String>,
    /// `(files, bytes, urls, findings, errors)` of the summary, or the error.
    result: Result<(u64, u64, u64, u64, u64), io::ErrorKind>,
}

/// What the callback does on call `n` (1-based), besides recording.
type Hook = Arc<dyn Fn(usize, &Event<'_>) -> io::Result<()> + Send + Sync>;

fn no_hook() -> Hook {
    Arc::new(|_, _| Ok(()))
}

fn fail_at(k: usize) -> Hook {
    Arc::new(move |n, _| if n == k { Err(io::ErrorKind::BrokenPipe.into()) } else { Ok(()) })
}

fn run_with<E: Emit>(
    source: impl Iterator<Item = Walked> + Send,
    threads: usize,
    part_size: u64,
    emit: &E,
    hook: &Hook,
) -> Seen {
    let opts = RunOptions { threads, part_size, ..RunOptions::default() };
    let mut seen = Seen {
        events: Vec::new(),
        errors: Vec::new(),
        calls: 0,
        max_piece: 0,
        violations: Vec::new(),
        result: Ok((0, 0, 0, 0, 0)),
    };
    let mut open: Option<String> = None;
    let mut failed = false;
    let r = driver::run_stream(source, sifter(), emit, opts, |event| {
        seen.calls += 1;
        if failed {
            seen.violations.push(format!("call {} after the error", seen.calls));
        }
        match event {
            Event::File(input, r) => {
                seen.max_piece = seen.max_piece.max(r.out.len());
                if let Some(o) = &open
                    && o != input.shown()
                {
                    seen.violations.push(format!("{} inside the pieces of {o}", input.shown()));
                }
                match seen.events.last_mut() {
                    Some((_, out)) if open.is_some() => out.extend_from_slice(&r.out),
                    _ => seen.events.push((input.shown().to_string(), r.out.clone())),
                }
                if !r.partial
                    && let Some(e) = &r.error
                {
                    seen.errors.push((input.shown().to_string(), e.clone()));
                }
                open = r.partial.then(|| input.shown().to_string());
            }
            Event::Problem(e) => {
                if let Some(o) = &open {
                    seen.violations.push(format!("problem {} inside the pieces of {o}", e.path));
                }
                seen.events.push((format!("!{}", e.path), e.reason.clone().into_bytes()));
            }
        }
        let res = hook(seen.calls, &event);
        failed |= res.is_err();
        res
    });
    if r.is_ok() && open.is_some() {
        seen.violations.push("the last piece never came".into());
    }
    seen.result = r.map(|s| (s.files, s.bytes, s.urls, s.findings, s.errors)).map_err(|e| e.kind());
    seen
}

fn run_timed(what: &str, source: &[Walked], threads: usize, part_size: u64, hook: Hook) -> Seen {
    let source = source.to_vec();
    timed(what, move || run_with(source.into_iter(), threads, part_size, &ExtractJson, &hook))
        .unwrap_or_else(|p| panic!("{what}: panicked: {p}"))
}

/// The events and totals of every thread count equal those of one thread.
fn same_as_one_thread(name: &str, source: &[Walked], part_size: u64, threads: &[usize]) -> Seen {
    let one = run_timed(&format!("{name}, 1 thread"), source, 1, part_size, no_hook());
    assert!(one.violations.is_empty(), "{name}, 1 thread: {:?}", one.violations);
    assert!(one.result.is_ok(), "{name}, 1 thread: {:?}", one.result);
    for &t in threads {
        let what = format!("{name}, {t} threads");
        let many = run_timed(&what, source, t, part_size, no_hook());
        assert!(many.violations.is_empty(), "{what}: {:?}", many.violations);
        assert_eq!(many.events.len(), one.events.len(), "{what}: number of events");
        if let Some(i) = many.events.iter().zip(&one.events).position(|(a, b)| a != b) {
            panic!(
                "{what}: event #{i} differs: {:?} vs one thread {:?}",
                many.events[i].0, one.events[i].0
            );
        }
        assert_eq!(many.errors, one.errors, "{what}: file errors");
        assert_eq!(many.result, one.result, "{what}: totals");
    }
    one
}

fn file(path: &Path, shown: impl Into<String>) -> Walked {
    Ok(Input::File { path: path.to_path_buf(), shown: shown.into() })
}

fn problem(i: usize) -> Walked {
    Err(InputError {
        path: format!("gone{i}"),
        reason: "no such file or directory".into(),
        fatal: !i.is_multiple_of(3),
    })
}

/// `n` small files, some with URLs; the same few paths used many times
/// (a different name each) so that tens of thousands of inputs are cheap.
fn tiny_files(dir: &Path, n: usize, tag: &str) -> Vec<Walked> {
    let paths: Vec<PathBuf> = (0..7)
        .map(|k| {
            let p = dir.join(format!("tiny{k}.txt"));
            let text: String = (0..k).map(|j| format!("see http://t{k}.example/{j}\n")).collect();
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    (0..n).map(|i| file(&paths[i % 7], format!("{tag}{i}"))).collect()
}

/// A text file dense in URLs, about `mb` megabytes: slow to scan.
fn big_file(dir: &Path, name: &str, mb: usize) -> PathBuf {
    let path = dir.join(name);
    let mut text = String::with_capacity(mb << 20);
    let mut k = 0;
    while text.len() < mb << 20 {
        text.push_str(&format!(
            "line {k} see http://b.example/{k} and <URL:http://w{k}.example/a\n  /b> x\n"
        ));
        k += 1;
    }
    std::fs::write(&path, text).unwrap();
    path
}

// ---------------------------------------------------------------------------
// Ordering and liveness under load.

/// A slow file that is not split holds the output while the workers run up
/// to `MAX_AHEAD` tasks ahead and wait; 6000 tiny files follow, problems
/// among them.
#[test]
fn more_than_max_ahead_tiny_files_behind_a_slow_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut source = vec![file(&big_file(dir.path(), "big.txt", 3), "big")];
    for (i, w) in tiny_files(dir.path(), 6000, "t").into_iter().enumerate() {
        if i % 1000 == 999 {
            source.push(problem(i));
        }
        source.push(w);
    }
    same_as_one_thread("slow whole file first", &source, NO_PARTS, &[8, 3]);
}

/// The same with the slow file split into ~3000 parts (more parts than
/// threads, less than `MAX_AHEAD`) and a second split file in the middle.
#[test]
fn more_than_max_ahead_tiny_files_around_split_files() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_file(dir.path(), "big.txt", 2);
    let mut source = vec![file(&big, "big-first")];
    source.extend(tiny_files(dir.path(), 5000, "t"));
    source.push(file(&big, "big-middle"));
    source.push(problem(1));
    source.extend(tiny_files(dir.path(), 5000, "u"));
    same_as_one_thread("split files", &source, 700, &[8]);
}

/// More than `MAX_QUEUED` (65536) tasks behind a slow file: the walker
/// must wait for room and be woken again.
#[test]
fn more_than_max_queued_tasks_behind_a_slow_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut source = vec![file(&big_file(dir.path(), "big.txt", 2), "big")];
    source.extend(tiny_files(dir.path(), 70_000, "t"));
    source.push(problem(0));
    same_as_one_thread("70000 tasks", &source, NO_PARTS, &[4]);
    // And an output error at the very last event.
    let n = run_timed("70000 tasks, 4 threads", &source, 4, NO_PARTS, no_hook()).calls;
    let seen = run_timed("70000 tasks, error at the end", &source, 4, NO_PARTS, fail_at(n));
    assert_eq!(seen.result, Err(io::ErrorKind::BrokenPipe));
    assert_eq!(seen.calls, n);
}

#[test]
fn runs_of_problems_at_the_start_and_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_file(dir.path(), "big.txt", 1);
    let mut source: Vec<Walked> = (0..3000).map(problem).collect();
    source.push(file(&big, "big"));
    source.extend(tiny_files(dir.path(), 50, "t"));
    source.extend((3000..6000).map(problem));
    same_as_one_thread("problems around files", &source, 4096, &[2, 8, 64]);
}

#[test]
fn empty_source_and_only_problems() {
    same_as_one_thread("empty", &[], 0, &[2, 8, 64]);
    let only: Vec<Walked> = (0..5000).map(problem).collect();
    let one = same_as_one_thread("only problems", &only, 0, &[2, 8, 64]);
    assert_eq!(one.events.len(), 5000);
}

#[test]
fn more_threads_than_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_file(dir.path(), "big.txt", 1);
    let mut source = tiny_files(dir.path(), 3, "t");
    same_as_one_thread("64 threads, 3 files", &source, 0, &[64]);
    source.insert(1, file(&big, "big"));
    same_as_one_thread("64 threads, 3 files and a split one", &source, 9000, &[64]);
}

/// Many repetitions of a small mixed source: races that need a particular
/// interleaving get many chances.
#[test]
fn many_small_mixed_runs() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_file(dir.path(), "big.txt", 1);
    let mut source: Vec<Walked> = vec![problem(0)];
    source.push(file(&big, "big1"));
    source.extend(tiny_files(dir.path(), 20, "t"));
    source.push(problem(1));
    source.push(file(&big, "big2"));
    source.push(problem(2));
    let one = run_timed("mixed, 1 thread", &source, 1, 20_000, no_hook());
    for round in 0..12 {
        let threads = [2, 3, 5, 8][round % 4];
        let many = run_timed(&format!("mixed, round {round}"), &source, threads, 20_000, no_hook());
        assert!(many.violations.is_empty(), "round {round}: {:?}", many.violations);
        assert!(many.events == one.events, "round {round}, {threads} threads: events differ");
        assert_eq!(many.result, one.result, "round {round}");
    }
}

// ---------------------------------------------------------------------------
// Output errors.

/// Once a write has failed, no thread writes again, however the threads
/// race: the flag that stops them is set under the lock every write
/// takes. (Set after that lock was released, it let another worker write
/// a finished part in between, about one run in ten of the test below.)
#[test]
fn nothing_is_written_after_an_output_error() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_file(dir.path(), "big.txt", 1);
    let source: Vec<Walked> =
        [file(&big, "big")].into_iter().chain(tiny_files(dir.path(), 50, "t")).collect();
    for round in 0..40 {
        for k in [1, 2] {
            let what = format!("round {round}, error at call {k}");
            let seen = run_timed(&what, &source, 4, 5000, fail_at(k));
            assert_eq!(seen.result, Err(io::ErrorKind::BrokenPipe), "{what}");
            assert!(seen.violations.is_empty(), "{what}: {:?}", seen.violations);
            assert_eq!(seen.calls, k, "{what}: calls");
        }
    }
}

/// An output error at the first and the second event, and at the first
/// and the final event of the last input: returned, nothing written after
/// it, and what came before it is what one thread writes.
///
/// The last input's events are named by what they are, not counted: how
/// a file's output is cut into pieces depends on timing (a file streams
/// only once its turn has come), so the number of calls varies from run
/// to run.
#[test]
fn output_errors_at_the_first_and_the_last_event() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_file(dir.path(), "big.txt", 1);
    let tiny = tiny_files(dir.path(), 300, "t");
    let file_first: Vec<Walked> =
        [file(&big, "big")].into_iter().chain(tiny.iter().cloned()).chain([problem(9)]).collect();
    let problem_first: Vec<Walked> =
        [problem(1)].into_iter().chain(tiny.iter().cloned()).chain([file(&big, "big")]).collect();
    let is_last = |e: &Event<'_>, last: &str, final_only: bool| match e {
        Event::File(i, r) => i.shown() == last && !(final_only && r.partial),
        Event::Problem(p) => p.path == last,
    };
    for (name, source, last) in
        [("file first", &file_first, "gone9"), ("problem first", &problem_first, "big")]
    {
        for part_size in [NO_PARTS, 5000] {
            let one = run_timed(name, source, 1, part_size, no_hook());
            for threads in [1, 3] {
                let at_last = |final_only: bool| -> Hook {
                    Arc::new(move |_, e| {
                        if is_last(e, last, final_only) {
                            Err(io::ErrorKind::BrokenPipe.into())
                        } else {
                            Ok(())
                        }
                    })
                };
                let hooks = [
                    ("call 1", fail_at(1), Some(1)),
                    ("call 2", fail_at(2), Some(2)),
                    ("the last input's first event", at_last(false), None),
                    ("the last input's final event", at_last(true), None),
                ];
                for (at, hook, calls) in hooks {
                    let what =
                        format!("{name}, parts {part_size}, error at {at}, {threads} threads");
                    let seen = run_timed(&what, source, threads, part_size, hook);
                    assert_eq!(seen.result, Err(io::ErrorKind::BrokenPipe), "{what}");
                    if let Some(k) = calls {
                        assert_eq!(seen.calls, k, "{what}: calls");
                    }
                    assert!(seen.violations.is_empty(), "{what}: {:?}", seen.violations);
                    // Same events up to the failing one (its output may be a
                    // partial piece of the file).
                    let m = seen.events.len();
                    assert!(seen.events[..m - 1] == one.events[..m - 1], "{what}: events differ");
                    if calls.is_none() {
                        assert_eq!(m, one.events.len(), "{what}: the error came early");
                    }
                }
            }
        }
    }
}

/// After an output error the run stops: a file being scanned is not read
/// to its end first (with standard input that end may never come:
/// `yes http://a.example/ | urlsift extract - | head -1` never ends).
/// One thread: the error comes with the first piece of the big input.
/// Two threads: it comes with a small file while a worker scans the big
/// one. The big input is a named pipe fed 64 MiB by a thread that counts
/// what the run took: how far it read, not how long it took, so that a
/// loaded machine cannot fail the test.
#[test]
fn an_output_error_stops_the_scan_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let chunk = std::fs::read(big_file(dir.path(), "chunk.txt", 1)).unwrap();
    const CHUNKS: usize = 64;
    let small = dir.path().join("small.txt");
    std::fs::write(&small, "see http://s.example/\n".repeat(2000)).unwrap();
    let small = file(&small, "small");
    for threads in [1, 2] {
        let fifo = dir.path().join(format!("big{threads}.fifo"));
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", fifo.display());
        let (path, data) = (fifo.clone(), chunk.clone());
        // Writes until the reader is gone (EPIPE: Rust ignores SIGPIPE).
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut w = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            let mut written = 0usize;
            for _ in 0..CHUNKS {
                match w.write_all(&data) {
                    Ok(()) => written += data.len(),
                    Err(_) => break,
                }
            }
            written
        });
        let source = if threads == 1 {
            vec![file(&fifo, "big")]
        } else {
            vec![small.clone(), file(&fifo, "big")]
        };
        let seen = run_timed("error", &source, threads, NO_PARTS, fail_at(1));
        assert_eq!(seen.result, Err(io::ErrorKind::BrokenPipe), "{threads} threads");
        // A writer still waiting for a reader (the run never opened the
        // pipe) is let go: open the read end and close it again, without
        // waiting for a writer (O_NONBLOCK, Linux's value: libc is not a
        // dependency for one constant).
        {
            use std::os::unix::fs::OpenOptionsExt;
            drop(std::fs::OpenOptions::new().read(true).custom_flags(0o4000).open(&fifo));
        }
        let written = writer.join().unwrap();
        assert!(
            written < CHUNKS * chunk.len() / 2,
            "{threads} threads: the run went on after the error and read {written} of {} bytes",
            CHUNKS * chunk.len()
        );
    }
}

// ---------------------------------------------------------------------------
// Panics.

fn boom_hook(on_problem: bool, at_call: usize) -> Hook {
    Arc::new(move |n, e| {
        let hit = if on_problem { matches!(e, Event::Problem(_)) } else { n == at_call };
        if hit {
            panic!("callback boom");
        }
        Ok(())
    })
}

/// The callback panics while the walking thread writes (a problem of the
/// source is written by the thread that walks). The panic must come back
/// out of `run_stream`, not hang it.
#[test]
fn a_panic_in_the_callback_on_the_walking_thread_is_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let mut source = vec![problem(1)];
    source.extend(tiny_files(dir.path(), 10, "t"));
    for threads in [1, 2] {
        let src = source.clone();
        let hook = boom_hook(true, 0);
        let r = timed(&format!("panic on a problem, {threads} threads"), move || {
            run_with(src.into_iter(), threads, 0, &ExtractJson, &hook)
        });
        assert!(r.is_err(), "{threads} threads: no panic");
    }
}

/// The source itself panics (a bug in a walker): the panic must come back
/// out of `run_stream`, not hang it.
#[test]
fn a_panic_in_the_source_is_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let source = tiny_files(dir.path(), 10, "t");
    for threads in [1, 2] {
        let src = source.clone();
        let r = timed(&format!("panicking source, {threads} threads"), move || {
            let it = src.into_iter().enumerate().map(|(i, w)| {
                if i == 5 {
                    panic!("source boom");
                }
                w
            });
            run_with(it, threads, 0, &ExtractJson, &no_hook())
        });
        assert!(r.is_err(), "{threads} threads: no panic");
    }
}

/// The callback panics on a worker thread when it writes the slow first
/// file, after the workers ran `MAX_AHEAD` tasks ahead and wait for the
/// output to move on. The panic must come back out of `run_stream`.
#[test]
fn a_panic_in_the_callback_behind_a_slow_file_is_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let mut source = vec![file(&big_file(dir.path(), "big.txt", 6), "big")];
    source.extend(tiny_files(dir.path(), 6000, "t"));
    let hook = boom_hook(false, 1);
    let r = timed("panic behind a slow file", move || {
        run_with(source.into_iter(), 8, NO_PARTS, &ExtractJson, &hook)
    });
    // (The message that comes back is "a scoped thread panicked".)
    assert!(r.is_err(), "no panic");
}

/// A printer that panics on one URL.
struct Boom;

impl Emit for Boom {
    fn emit(&self, input: &Input, url: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool {
        if url.url.ends_with(b"/boom") {
            panic!("printer boom");
        }
        ExtractJson.emit(input, url, cx, out)
    }
}

/// A printer panic is caught per file (an "internal error" for that file,
/// the run goes on) with one thread and for whole files; a split file must
/// not behave differently (its URLs are printed by the writing thread).
#[test]
fn a_printer_panic_in_a_split_file_is_caught_like_in_a_whole_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    let mut text: String = (0..2000).map(|k| format!("see http://a.example/{k}\n")).collect();
    text.push_str("and http://a.example/boom\n");
    text.extend((0..2000).map(|k| format!("see http://c.example/{k}\n")));
    std::fs::write(&path, text).unwrap();
    let tiny = tiny_files(dir.path(), 5, "t");
    let source: Vec<Walked> =
        tiny.iter().cloned().chain([file(&path, "big")]).chain(tiny.iter().cloned()).collect();
    let seen = |threads: usize, part_size: u64| {
        let src = source.clone();
        timed(&format!("printer panic, {threads} threads, parts {part_size}"), move || {
            run_with(src.into_iter(), threads, part_size, &Boom, &no_hook())
        })
    };
    let one = seen(1, 0).expect("one thread: the panic is caught");
    assert!(
        one.errors.iter().any(|(n, e)| n == "big" && e.contains("printer boom")),
        "{:?}",
        one.errors
    );
    assert_eq!(one.events.len(), 11);
    let whole = seen(2, NO_PARTS).expect("whole file on 2 threads: the panic is caught");
    assert_eq!(whole.errors, one.errors);
    let split = seen(2, 4096).expect("split file on 2 threads: the panic is caught");
    assert!(
        split.errors.iter().any(|(n, e)| n == "big" && e.contains("printer boom")),
        "{:?}",
        split.errors
    );
    assert_eq!(split.events.len(), 11, "every input is written");
}

// ---------------------------------------------------------------------------
// Memory: a big file's output in pieces.

/// `run_stream` hands a big file's output over in pieces (of about 256
/// KiB) "so that a big file's output is never held whole". A file that is
/// not split (here: parts bigger than the file; in the CLI: any file under
/// 64 MiB, standard input, a file with no line break in reach) is held
/// whole by a worker when there are several threads.
#[test]
fn a_big_unsplit_file_is_handed_over_in_pieces_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let source = vec![file(&big_file(dir.path(), "big.txt", 2), "big")];
    let one = run_timed("pieces, 1 thread", &source, 1, NO_PARTS, no_hook());
    let two = run_timed("pieces, 2 threads", &source, 2, NO_PARTS, no_hook());
    let total = one.events[0].1.len();
    assert!(total > 4 << 20, "output {total}");
    assert!(two.events == one.events);
    assert!(one.max_piece < 1 << 20, "1 thread: a piece of {}", one.max_piece);
    assert!(two.max_piece < 1 << 20, "2 threads: a piece of {} (all of {total})", two.max_piece);
}

// ---------------------------------------------------------------------------
// Cuts.

/// A cut that falls on the end of the file: the last line is longer than
/// half a part and ends with the file's last byte. `cuts` then lists the
/// file size twice, `tasks` makes an empty last part, and two parts say
/// `last`: the file is written twice (a second, empty `Event::File`) and
/// counted twice.
/// Parts are queued only as earlier ones are written (at most as many in
/// flight as threads, the file at the head of the output always served):
/// several big files, text and mail, cut into hundreds of parts each and
/// read by up to 32 threads, with small files between them, give the
/// events of one thread and never hang (a worker waiting for a part slot
/// while the part that frees it waits for a worker deadlocked once).
#[test]
fn many_big_files_in_tiny_parts_on_many_threads() {
    let dir = tempfile::tempdir().unwrap();
    let mbox = dir.path().join("big.mbox");
    let mut text = String::new();
    for k in 0..3000 {
        text.push_str(&format!(
            "From a@b Thu Jan  1 00:00:00 1970\nSubject: {k}\nMessage-ID: <{k}@x>\n\n\
             see http://m.example/{k} and news:{}@x\n\n",
            k + 1
        ));
    }
    std::fs::write(&mbox, text).unwrap();
    let mut source = Vec::new();
    for b in 0..3 {
        source.push(file(&big_file(dir.path(), &format!("big{b}.txt"), 1), format!("big{b}")));
        source.extend(tiny_files(dir.path(), 20, &format!("t{b}-")));
        source.push(file(&mbox, format!("mbox{b}")));
    }
    for part in [4096, 50_000] {
        same_as_one_thread(&format!("big files, parts {part}"), &source, part, &[2, 8, 32]);
    }
}

#[test]
fn a_cut_on_the_end_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    let mut text = b"http://a.example/\n".to_vec();
    text.extend(std::iter::repeat_n(b'x', 200 - text.len() - 1));
    text.push(b'\n');
    assert_eq!(text.len(), 200);
    std::fs::write(&path, &text).unwrap();
    let source = vec![file(&path, "f"), problem(1)];
    same_as_one_thread("cut at the end", &source, 100, &[2]);
}

/// Generated-ish text with many part sizes: every run has the events and
/// totals of one thread (catches an empty or duplicated last part).
#[test]
fn many_part_sizes_give_the_events_of_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    let mut text = String::new();
    for i in 0..300 {
        let eol = ["\n", "\r\n", "\r"][i % 3];
        text.push_str(&format!("line {i} http://m{i}.example/{}{eol}", "y".repeat(i % 53)));
    }
    // A last line longer than half of most parts, ended by the last byte.
    text.push_str(&format!("last http://z.example/{}\n", "z".repeat(150)));
    std::fs::write(&path, &text).unwrap();
    let source = vec![file(&path, "f")];
    let one = run_timed("part sizes, 1 thread", &source, 1, 0, no_hook());
    let mut bad = Vec::new();
    for part in (7..400).step_by(3) {
        let two = run_timed(&format!("parts of {part}"), &source, 2, part, no_hook());
        if two.events != one.events || two.result != one.result {
            bad.push((part, two.events.len(), two.result.map(|r| r.0)));
        }
    }
    assert!(bad.is_empty(), "part sizes with other events or totals: {bad:?}");
}

/// `line_before` reads `CONTEXT` (64 KiB) before the cut. When the line
/// before the cut starts exactly at the start of that window (the line
/// with its break is exactly 64 KiB), no break is found in the window and
/// the line is taken for too long: its `urlsift: ignore` marker is lost.
#[test]
fn a_marker_on_a_line_of_exactly_the_context_before_a_cut() {
    let dir = tempfile::tempdir().unwrap();
    let mut bad = Vec::new();
    for (eol, len) in [("\n", 65536), ("\r\n", 65536), ("\n", 65535), ("\r\n", 65535)] {
        let path = dir.path().join("marker.txt");
        // "x\n", then the marker line (with its break, `len` bytes), then
        // the URL line: the cut (parts of 40000) falls at its start.
        let mut text = String::from("x\n");
        let mut marker = String::from("urlsift: ignore");
        marker.push_str(&" ".repeat(len - marker.len() - eol.len()));
        text.push_str(&marker);
        text.push_str(eol);
        let cut = text.len();
        text.push_str("http://a.example:99999/\n");
        while text.len() < 200_000 {
            text.push_str("filler line\n");
        }
        std::fs::write(&path, &text).unwrap();
        assert_eq!(text.as_bytes()[cut - 1], b'\n');
        let source = vec![file(&path, "m")];
        let one = run_timed("marker, 1 thread", &source, 1, 0, no_hook());
        let two = run_timed("marker, split", &source, 2, 40_000, no_hook());
        if one.events != two.events {
            bad.push(format!("{len} bytes ending {eol:?}"));
        }
    }
    assert!(bad.is_empty(), "split output differs from whole for marker lines of {bad:?}");
}
