//! Hostile and broken input.
//!
//! 1. **Linear time, checked by the answer.** Each adversarial shape of
//!    `tests/support/adversarial.rs` runs at 4 MB, a size where quadratic
//!    work takes many minutes to hours, through `Sifter::extract` and the
//!    streaming `Sifter::extract_reader`; the test checks the output (how
//!    many URLs, which), never the time. Before that, an 8 KiB run checks
//!    that the output is at most proportional to the input, so a case that
//!    would need terabytes at 4 MB fails in a second instead. The timed
//!    ratios are in `benches/adversarial.rs`.
//! 2. **Hostile files, through the built binary.** Unreadable files,
//!    missing paths, dangling links, symlink loops, FIFOs, devices, empty
//!    and NUL files, files without a final line break, invalid UTF-8 in
//!    contents and in file names, and a 2 GB sparse file. For each: the run
//!    ends (every command has a deadline), a problem is one line on stderr
//!    naming the path and the reason, the other files are still scanned,
//!    exit code 2 if an input could not be read, and nothing panics.
//!
//! What urlsift does with a FIFO, decided here: one named on the command
//! line is read like any file, as `cat` and `grep` do (this is what makes
//! `urlsift extract <(zcat mail.gz)` work), so it waits for a writer like
//! they do; one met in a directory walk is skipped, silently, like every
//! entry that is not a regular file (devices and sockets too), so walking
//! a tree never blocks.

use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use urlsift::diag::Grammar;
use urlsift::extract::{Options, Scratch, Sifter};

#[path = "../support/adversarial.rs"]
mod adversarial;

// ------------------------------------------------------- adversarial shapes

/// The size each adversarial input runs at.
const SIZE: usize = 4 << 20;

fn run_case(name: &str, sifter: &Sifter) {
    let cases = adversarial::cases();
    let case = cases.iter().find(|c| c.name == name).expect("a case of that name");
    for size in [8 << 10, SIZE] {
        let input = (case.make)(size);
        let got = sifter.extract(&input);
        if let Err(e) = (case.check)(&input, &got) {
            panic!("{name} at {} bytes: {e}", input.len());
        }
        let out = adversarial::output_bytes(&got);
        assert!(
            out <= adversarial::OUTPUT_PER_BYTE * input.len(),
            "{name} at {} bytes: {out} bytes of output, over {} per input byte: memory grows \
             faster than the input",
            input.len(),
            adversarial::OUTPUT_PER_BYTE
        );
        // The streaming reader: the same URLs, in default and small windows.
        for window in [None, Some(4096)] {
            let mut scratch = window.map_or_else(Scratch::default, Scratch::with_window);
            let mut streamed = Vec::new();
            let stats = sifter
                .extract_reader(&input[..], &mut scratch, |e| streamed.push(e))
                .expect("a slice reads");
            assert_eq!(stats.bytes, input.len() as u64, "{name}: bytes");
            if streamed != got {
                panic!(
                    "{name} at {} bytes, window {window:?}: streaming found {} URLs, extract {}",
                    input.len(),
                    streamed.len(),
                    got.len()
                );
            }
        }
    }
}

macro_rules! adversarial_tests {
    ($($(#[$attr:meta])* $test:ident => $name:literal;)*) => {$(
        $(#[$attr])*
        #[test]
        fn $test() {
            // The hyphen cases count `hyphen-line-break` findings, which
            // only the RFC profiles report.
            let grammar = if $name.starts_with("hyphen-breaks") {
                Grammar::Rfc1738
            } else {
                Grammar::default()
            };
            run_case($name, &Sifter::new(Options { grammar, ..Options::default() }));
        }
    )*};
}

adversarial_tests! {
    adversarial_url_openers => "url-openers";
    adversarial_url_openers_with_token => "url-openers-with-token";
    adversarial_one_long_line => "one-long-line";
    adversarial_open_parens => "open-parens";
    adversarial_balanced_parens => "balanced-parens";
    adversarial_close_paren_after_each => "close-paren-after-each";
    adversarial_rejected_schemes_in_one_token => "rejected-schemes-in-one-token";
    adversarial_percent_run_wrapped => "percent-run-wrapped";
    adversarial_percent_run_bare => "percent-run-bare";
    adversarial_hyphen_breaks => "hyphen-breaks";
    adversarial_hyphen_breaks_in_words => "hyphen-breaks-in-words";
    adversarial_colons => "colons";
    adversarial_url_labels => "url-labels";
    adversarial_angle_a_colon => "angle-a-colon";
    adversarial_unclosed_wrapper_paragraph => "unclosed-wrapper-paragraph";
}

/// With excerpts on (`lint` on a terminal, `--excerpts always`), each
/// finding keeps a copy of its source line: on one long line with many
/// findings that is the line times the findings. Checked at 32 KiB (where
/// it is 300 MB today) so that the failing test stays affordable.
#[test]
fn excerpts_stay_proportional_on_one_long_line() {
    let sifter = Sifter::new(Options { excerpts: true, ..Options::default() });
    let input = adversarial::repeat(b"<URL:a ", 32 << 10);
    let got = sifter.extract(&input);
    assert_eq!(got.len(), input.len() / 7);
    let out = adversarial::output_bytes(&got);
    assert!(
        out <= adversarial::OUTPUT_PER_BYTE * input.len(),
        "{out} bytes of output for {} of input",
        input.len()
    );
}

/// A reader of `head`, then `unit` repeated to `len` bytes, then `tail`,
/// made as it is read: a line of 64 MB without a file or 64 MB of memory.
struct Made {
    parts: Vec<(Vec<u8>, u64)>,
    part: usize,
    at: u64,
}

impl Made {
    fn new(head: &[u8], unit: &[u8], len: u64, tail: &[u8]) -> Made {
        let parts =
            vec![(head.to_vec(), 1), (unit.to_vec(), len / unit.len() as u64), (tail.to_vec(), 1)];
        Made { parts, part: 0, at: 0 }
    }

    fn len(&self) -> u64 {
        self.parts.iter().map(|(u, n)| u.len() as u64 * n).sum()
    }
}

impl Read for Made {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            let Some((unit, times)) = self.parts.get(self.part) else { break };
            let total = unit.len() as u64 * times;
            if self.at == total {
                self.part += 1;
                self.at = 0;
                continue;
            }
            let i = (self.at % unit.len() as u64) as usize;
            let k = (unit.len() - i).min(buf.len() - n);
            buf[n..n + k].copy_from_slice(&unit[i..i + k]);
            n += k;
            self.at += k as u64;
        }
        Ok(n)
    }
}

/// The most the read buffer may hold: the window, twice the longest URL
/// (`MAX_URL`) and what is kept around it, rounded up as `Vec` grows
/// (512 KiB for the plain long lines below, 2 MiB with the long URL).
const BUFFER_BOUND: usize = 4 << 20;

/// README: "Files are streamed in 256 KiB windows, so memory stays flat
/// whatever the file size", and a line without breaks is no exception:
/// the read buffer stays bounded (it held the whole line), and URLs after
/// a huge line, or at its end, get exact lines and columns.
#[test]
fn a_line_without_breaks_is_streamed_in_bounded_memory() {
    const LONG: u64 = 64 << 20;
    let sifter = Sifter::new(Options { excerpts: true, ..Options::default() });
    // (input, [(URL or "" for any, line, column)])
    type Want = Vec<(&'static str, u64, u64)>;
    let cases: Vec<(Made, Want)> = vec![
        // Letters only (`/dev/zero` read with --binary is the same shape).
        (
            Made::new(b"", b"a", LONG, b"\nsee http://after.example/x\n"),
            vec![("http://after.example/x", 2, 5)],
        ),
        (
            Made::new(b"", b"\0", LONG, b" http://nul.example/"),
            vec![("http://nul.example/", 1, LONG + 2)],
        ),
        // Words: a URL at the very end of the line, on the same line.
        (
            Made::new(b"http://first.example/ ", b"x ", LONG, b"<URL:http://last.example:80/>"),
            vec![("http://first.example/", 1, 1), ("http://last.example:80/", 1, 22 + LONG + 6)],
        ),
        // A 3 MiB bare URL inside the line: cut at MAX_URL, the rest read
        // as text, and the URLs after it placed exactly.
        (
            Made::new(
                b"go http://big.example/",
                b"b",
                3 << 20,
                b" then http://next.example/\r\nand http://line2.example/",
            ),
            vec![
                ("", 1, 4),
                ("http://next.example/", 1, 3 + 19 + (3 << 20) + 7),
                ("http://line2.example/", 2, 5),
            ],
        ),
    ];
    for (reader, want) in cases {
        let len = reader.len();
        let mut scratch = Scratch::default();
        let mut got = Vec::new();
        let stats = sifter.extract_reader(reader, &mut scratch, |e| got.push(e)).expect("reads");
        assert_eq!(stats.bytes, len);
        let shown: Vec<(String, u64, u64)> = got
            .iter()
            .map(|u| (u.url_lossy().chars().take(40).collect(), u.start.line, u.start.column))
            .collect();
        assert_eq!(got.len(), want.len(), "{shown:?}");
        for (u, (url, line, column)) in got.iter().zip(&want) {
            if !url.is_empty() {
                assert_eq!(u.url, url.as_bytes(), "{shown:?}");
            }
            assert_eq!((u.start.line, u.start.column), (*line, *column), "{shown:?}");
            // An excerpt of a long line is a window, with the finding in it.
            for f in &u.findings {
                let e = f.excerpt.as_ref().expect("excerpts were asked for");
                assert!(e.len() <= urlsift::extract::EXCERPT, "{} bytes of excerpt", e.len());
                assert!(f.start.column >= f.excerpt_column);
                assert!(((f.start.column - f.excerpt_column) as usize) < e.len());
            }
        }
        assert!(
            scratch.buffer_capacity() <= BUFFER_BOUND,
            "the read buffer grew to {} bytes on a {len}-byte line",
            scratch.buffer_capacity()
        );
    }
}

/// The 3 MiB URL of the test above, closer: cut at `MAX_URL` with
/// `url-too-long`, and the same through `extract` and the stream.
#[test]
fn a_url_longer_than_max_url_is_cut_and_reported() {
    use urlsift::diag::Code;
    use urlsift::scan::MAX_URL;
    let sifter = Sifter::new(Options::default());
    let mut text = b"go http://big.example/".to_vec();
    text.resize(text.len() + (3 << 20), b'b');
    text.extend_from_slice(b" then http://next.example/\n");
    let got = sifter.extract(&text);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].url.len(), MAX_URL);
    assert_eq!(&got[0].url[..22], b"http://big.example/bbb");
    let codes: Vec<Code> = got[0].findings.iter().map(|f| f.diagnostic.code).collect();
    assert_eq!(codes, [Code::UrlTooLong]);
    assert_eq!(got[0].findings[0].start.column, 3 + MAX_URL as u64);
    assert!(!got[0].is_valid());
    assert_eq!(got[1].url, b"http://next.example/");
    for window in [None, Some(4096)] {
        let mut scratch = window.map_or_else(Scratch::default, Scratch::with_window);
        let mut streamed = Vec::new();
        sifter.extract_reader(&text[..], &mut scratch, |e| streamed.push(e)).unwrap();
        assert!(streamed == got, "window {window:?}");
    }
}

/// Markers (README, "Silencing a finding") on a line longer than any
/// window: one at the start of the URL's line or on the line before
/// silences it however long the line; after the URL, only within
/// `MARKER_REACH` bytes of it.
#[test]
fn markers_work_on_lines_longer_than_a_window() {
    use urlsift::extract::MARKER_REACH;
    // `default-port` is reported under rfc1738 only.
    let sifter = Sifter::new(Options { grammar: Grammar::Rfc1738, ..Options::default() });
    let pad = |n: usize| " x".repeat(n / 2);
    let bad = "<URL:http://a.example:80/>";
    let near = pad(MARKER_REACH / 2);
    let far = pad(MARKER_REACH + 100);
    let big = pad(3 << 20);
    let cases: Vec<(String, bool)> = vec![
        (format!("urlsift: ignore{big}{bad}\n"), true),
        (format!("# urlsift: ignore[default-port]{big}\n{big}{bad}\n"), true),
        (format!("{big}{bad}{near} urlsift: ignore\n"), true),
        (format!("{big}{bad}{far} urlsift: ignore\n"), false),
        (format!("{big}{bad}{big}\n"), false),
    ];
    for (i, (text, silenced)) in cases.iter().enumerate() {
        let got = sifter.extract(text.as_bytes());
        assert_eq!(got.len(), 1, "case {i}");
        assert_eq!(got[0].findings.is_empty(), *silenced, "case {i}: {:?}", got[0].findings);
        for window in [None, Some(4096)] {
            let mut scratch = window.map_or_else(Scratch::default, Scratch::with_window);
            let mut streamed = Vec::new();
            sifter.extract_reader(text.as_bytes(), &mut scratch, |e| streamed.push(e)).unwrap();
            assert!(streamed == got, "case {i}, window {window:?}: {streamed:?}");
        }
    }
}

// ------------------------------------------------------------ hostile files

/// What a run of the binary gave.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs the binary with `args`; panics if it is still running after
/// `secs` seconds (then it is killed): a hang is a failure, not a wait.
fn urlsift_within<S: AsRef<OsStr>>(secs: u64, args: &[S]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run urlsift");
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let out = thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let err = thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let deadline = Instant::now() + Duration::from_secs(secs);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for urlsift") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let shown: Vec<_> =
                args.iter().map(|a| a.as_ref().to_string_lossy().into_owned()).collect();
            panic!("`urlsift {}` still running after {secs} s: it hangs", shown.join(" "));
        }
        thread::sleep(Duration::from_millis(20));
    };
    let run = Run {
        status,
        stdout: String::from_utf8_lossy(&out.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked") && !run.stderr.contains("internal error"),
        "urlsift panicked: {}",
        run.stderr
    );
    run
}

fn urlsift<S: AsRef<OsStr>>(args: &[S]) -> Run {
    urlsift_within(60, args)
}

/// A directory with a good file on each side (alphabetically) of whatever
/// the test adds, so that "the run continues" is visible.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a-good.txt"), "see http://a.example/first\n").unwrap();
    fs::write(dir.path().join("z-good.txt"), "and <URL:ftp://z.example/last>\n").unwrap();
    dir
}

const GOOD: [&str; 2] = ["http://a.example/first", "ftp://z.example/last"];

fn assert_good_files_scanned(r: &Run) {
    for url in GOOD {
        assert!(
            r.stdout.lines().any(|l| l == url),
            "{url} missing from output:\n{}\nstderr:\n{}",
            r.stdout,
            r.stderr
        );
    }
}

/// Exactly one line of stderr, naming `path` and saying `reason`.
fn assert_one_problem(r: &Run, path: &str, reason: &str) {
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "want one line on stderr, got:\n{}", r.stderr);
    assert!(lines[0].contains(path), "stderr does not name {path}: {}", lines[0]);
    assert!(
        lines[0].to_lowercase().contains(reason),
        "stderr does not say {reason:?}: {}",
        lines[0]
    );
}

fn p(path: &Path) -> String {
    path.to_str().expect("temporary paths are UTF-8").to_string()
}

/// Permission bits do not stop root. As root, the test runs the binary
/// as `nobody` through util-linux's `setpriv` when it is there, and skips
/// with a message when it is not.
#[test]
fn unreadable_file_is_reported_and_the_rest_scanned() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tree();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let secret = dir.path().join("m-secret.txt");
    fs::write(&secret, "http://m.example/secret\n").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    let mut wrapper: Vec<String> = Vec::new();
    if fs::File::open(&secret).is_ok() {
        // Root (or CAP_DAC_OVERRIDE) reads it anyway.
        let nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
        let works = Command::new(nobody[0])
            .args(&nobody[1..])
            .arg(env!("CARGO_BIN_EXE_urlsift"))
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !works {
            eprintln!("skipped: running as root, and cannot drop to nobody with setpriv");
            return;
        }
        wrapper = nobody.iter().map(|s| s.to_string()).collect();
    }
    let good = |f: &str| p(&dir.path().join(f));
    for args in [vec![p(dir.path())], vec![good("a-good.txt"), p(&secret), good("z-good.txt")]] {
        let r = match wrapper.split_first() {
            None => urlsift(&[&["extract".to_string()][..], &args].concat()),
            Some((first, rest)) => {
                let out = Command::new(first)
                    .args(rest)
                    .arg(env!("CARGO_BIN_EXE_urlsift"))
                    .arg("extract")
                    .args(&args)
                    .output()
                    .expect("run urlsift as nobody");
                Run {
                    status: out.status,
                    stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                }
            }
        };
        assert_good_files_scanned(&r);
        assert_one_problem(&r, &p(&secret), "permission denied");
        assert_eq!(r.status.code(), Some(2), "{}", r.stderr);
    }
}

#[test]
fn missing_path_on_the_command_line_is_reported_and_the_rest_scanned() {
    let dir = tree();
    let gone = dir.path().join("m-gone.txt");
    let r = urlsift(&[
        "extract".to_string(),
        p(&dir.path().join("a-good.txt")),
        p(&gone),
        p(&dir.path().join("z-good.txt")),
    ]);
    assert_good_files_scanned(&r);
    assert_one_problem(&r, &p(&gone), "no such file");
    assert_eq!(r.status.code(), Some(2));
    // `lint` says the same and exits the same.
    let r = urlsift(&["lint".to_string(), p(&gone), p(&dir.path().join("a-good.txt"))]);
    assert_one_problem(&r, &p(&gone), "no such file");
    assert_eq!(r.status.code(), Some(2));
}

/// A file that vanishes between the walk and the open: a dangling symlink
/// is exactly that (listed, but nothing there), and deterministic.
#[test]
fn dangling_symlink_met_in_a_walk_with_follow_is_reported() {
    let dir = tree();
    let link = dir.path().join("m-dangling.txt");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
    // Without --follow a symlink is not walked at all.
    let r = urlsift(&["extract".to_string(), p(dir.path())]);
    assert_good_files_scanned(&r);
    assert_eq!(r.stderr, "");
    assert_eq!(r.status.code(), Some(0));
    let r = urlsift(&["extract".to_string(), "--follow".to_string(), p(dir.path())]);
    assert_good_files_scanned(&r);
    assert_one_problem(&r, "m-dangling.txt", "no such file");
    assert_eq!(r.status.code(), Some(2), "{}", r.stderr);
}

#[test]
fn symlink_loop_with_follow_terminates_and_is_reported() {
    let dir = tree();
    let sub = dir.path().join("m-sub");
    fs::create_dir(&sub).unwrap();
    fs::write(sub.join("inner.txt"), "http://inner.example/once\n").unwrap();
    std::os::unix::fs::symlink("..", sub.join("up")).unwrap();
    let r = urlsift_within(30, &["extract".to_string(), "--follow".to_string(), p(dir.path())]);
    assert_good_files_scanned(&r);
    let inner = r.stdout.lines().filter(|l| *l == "http://inner.example/once").count();
    assert_eq!(inner, 1, "the file inside the loop was read {inner} times:\n{}", r.stdout);
    assert_one_problem(&r, "up", "loop");
    // README: loops are reported and skipped; the input was read.
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo").arg(path).status().is_ok_and(|s| s.success())
}

#[test]
fn fifo_in_a_walked_tree_is_skipped_without_hanging() {
    let dir = tree();
    if !mkfifo(&dir.path().join("m-pipe")) {
        eprintln!("skipped: mkfifo unavailable");
        return;
    }
    let r = urlsift_within(30, &["extract".to_string(), p(dir.path())]);
    assert_good_files_scanned(&r);
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
}

/// Writes `data` into the FIFO at `path` once a reader has it open,
/// without ever blocking: opens non-blocking (which fails until there is a
/// reader) and retries up to a deadline. True if it wrote.
fn feed_fifo(path: PathBuf, data: &'static [u8]) -> thread::JoinHandle<bool> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    const O_NONBLOCK: i32 = 0o4000; // Linux
    thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            let opened = fs::OpenOptions::new().write(true).custom_flags(O_NONBLOCK).open(&path);
            if let Ok(mut f) = opened {
                f.write_all(data).unwrap();
                return true;
            }
            thread::sleep(Duration::from_millis(10));
        }
        false
    })
}

const FIFO_DATA: &[u8] = b"piped <URL:http://fifo.example/\n  data>\n";

/// A FIFO named on the command line is read like a file (see the module
/// docs): with a writer, its URLs are found. Without one urlsift waits,
/// as `cat` does; that case is not run here. One thread: with more, see
/// the ignored test below.
#[test]
fn fifo_named_on_the_command_line_is_read() {
    let dir = tree();
    let fifo = dir.path().join("m-pipe");
    if !mkfifo(&fifo) {
        eprintln!("skipped: mkfifo unavailable");
        return;
    }
    let writer = feed_fifo(fifo.clone(), FIFO_DATA);
    let r = urlsift_within(30, &["extract".to_string(), "-j1".to_string(), p(&fifo)]);
    assert!(writer.join().unwrap(), "urlsift never opened the FIFO");
    assert_eq!(r.stdout, "http://fifo.example/data\n");
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
}

/// The same with the default threads, among other inputs. With more than
/// one thread, each input is opened once by the worker that decides
/// whether to cut it, and read through that same open file: a second open
/// of a FIFO would meet no writer (once lost this way, the data left
/// `mkfifo p; echo http://x.example/ > p & urlsift extract other.txt p`
/// waiting forever). A FIFO cannot `pread`: its reads fall back to `read`.
#[test]
fn fifo_among_other_inputs_is_read_with_threads() {
    let dir = tree();
    let fifo = dir.path().join("m-pipe");
    if !mkfifo(&fifo) {
        eprintln!("skipped: mkfifo unavailable");
        return;
    }
    let writer = feed_fifo(fifo.clone(), FIFO_DATA);
    let args = [
        "extract".to_string(),
        p(&dir.path().join("a-good.txt")),
        p(&fifo),
        p(&dir.path().join("z-good.txt")),
    ];
    let r = urlsift_within(30, &args);
    assert!(writer.join().unwrap(), "urlsift never opened the FIFO");
    assert_good_files_scanned(&r);
    assert!(r.stdout.lines().any(|l| l == "http://fifo.example/data"), "{}", r.stdout);
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
}

#[test]
fn devices_named_or_walked_do_not_hang() {
    // /dev/null: an empty input.
    let r = urlsift(&["extract", "/dev/null"]);
    assert_eq!((r.status.code(), r.stdout.as_str(), r.stderr.as_str()), (Some(1), "", ""));
    // /dev/zero: endless NULs, so binary: skipped after the first 8 KiB.
    let r = urlsift_within(30, &["extract", "/dev/zero"]);
    assert_eq!(r.status.code(), Some(1), "{}", r.stderr);
    // A device node in a walked tree is not a regular file: skipped.
    let dir = tree();
    let made = Command::new("mknod")
        .arg(dir.path().join("m-zero"))
        .args(["c", "1", "5"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let r = urlsift_within(30, &["extract".to_string(), "--binary".to_string(), p(dir.path())]);
        assert_good_files_scanned(&r);
        assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
    } else {
        eprintln!("skipped the walked device: mknod needs root");
    }
}

#[test]
fn empty_file_has_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("empty.txt");
    fs::write(&f, "").unwrap();
    for cmd in ["extract", "lint"] {
        let r = urlsift(&[cmd.to_string(), p(&f)]);
        assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""), "{cmd}");
        assert_eq!(r.status.code(), Some(if cmd == "extract" { 1 } else { 0 }), "{cmd}");
    }
}

#[test]
fn nul_file_is_skipped_unless_binary() {
    let dir = tree();
    let f = dir.path().join("m-nul.bin");
    let mut bytes = vec![0u8; 10_000];
    bytes.extend_from_slice(b"\nhttp://nul.example/after\n");
    fs::write(&f, &bytes).unwrap();
    let r = urlsift(&["extract".to_string(), p(dir.path())]);
    assert_good_files_scanned(&r);
    assert!(!r.stdout.contains("nul.example"), "{}", r.stdout);
    assert_eq!(r.status.code(), Some(0), "a skipped binary file is not an unreadable one");
    let r = urlsift(&["extract".to_string(), "--binary".to_string(), p(dir.path())]);
    assert_good_files_scanned(&r);
    assert!(r.stdout.lines().any(|l| l == "http://nul.example/after"), "{}", r.stdout);
    // Only NULs: nothing, even with --binary.
    fs::write(&f, vec![0u8; 100_000]).unwrap();
    let r = urlsift(&["extract".to_string(), "--binary".to_string(), p(&f)]);
    assert_eq!((r.status.code(), r.stdout.as_str()), (Some(1), ""));
}

/// The brief for this suite asks for a one-line message for every input
/// that is not scanned; a binary file named on the command line is skipped
/// without a word today (only `--stats` counts it), so a user who names
/// one file sees "no URL" and exit 1 with no reason given.
#[test]
fn binary_file_named_on_the_command_line_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("nul.bin");
    fs::write(&f, b"\0\0\0 http://nul.example/\n").unwrap();
    let r = urlsift(&["extract".to_string(), p(&f)]);
    assert_one_problem(&r, &p(&f), "binary");
}

#[test]
fn file_without_a_final_line_break() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[u8], &[&str])] = &[
        (b"at the end http://a.example/z", &["http://a.example/z"]),
        (b"at the end http://a.example/z.", &["http://a.example/z"]),
        (b"see <URL:http://a.example/x\n  y>", &["http://a.example/xy"]),
        // An unclosed wrapper at the end of input: its first token.
        (b"see <URL:http://a.example/x\n  y", &["http://a.example/x"]),
        (b"see <URL:http://a.example/hy-\n  phen", &["http://a.example/hy-"]),
        (b"crlf\r\nhttp://a.example/c\r", &["http://a.example/c"]),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let f = dir.path().join(format!("case{i}.txt"));
        fs::write(&f, text).unwrap();
        let r = urlsift(&["extract".to_string(), p(&f)]);
        let got: Vec<&str> = r.stdout.lines().collect();
        assert_eq!(&got, want, "{:?}", String::from_utf8_lossy(text));
        assert_eq!(r.status.code(), Some(0));
    }
}

#[test]
fn invalid_utf8_contents_keep_json_valid() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("latin1.txt");
    fs::write(
        &f,
        b"caf\xe9 <URL:http://a.example/\xe9t\xe9> and http://b.example/\xff\xfe.\n\xff\n",
    )
    .unwrap();
    let r = urlsift(&["extract".to_string(), "--json".to_string(), p(&f)]);
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
    let rows: Vec<serde_json::Value> =
        r.stdout.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    let urls: Vec<&str> = rows.iter().map(|v| v["url"].as_str().unwrap()).collect();
    // README: invalid UTF-8 in a URL is shown as U+FFFD.
    assert_eq!(urls, ["http://a.example/\u{fffd}t\u{fffd}", "http://b.example/\u{fffd}\u{fffd}"]);
    assert!(rows.iter().all(|v| v["valid"] == false), "raw bytes are not valid in a URL");
    // `lint --json` too.
    let r = urlsift(&["lint".to_string(), "--json".to_string(), p(&f)]);
    assert_eq!(r.status.code(), Some(1));
    for l in r.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(l).expect("each line is JSON");
        assert_eq!(v["code"], "non-ascii", "{l}");
    }
}

fn non_utf8_tree() -> Option<(tempfile::TempDir, [PathBuf; 2])> {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    // Two Latin-1 names that differ only in a byte that is not UTF-8.
    let names = [
        dir.path().join(OsStr::from_bytes(b"caf\xe9.txt")),
        dir.path().join(OsStr::from_bytes(b"caf\xe8.txt")),
    ];
    for (i, n) in names.iter().enumerate() {
        if fs::write(n, format!("http://n{i}.example/\n")).is_err() {
            eprintln!("skipped: this file system refuses names that are not UTF-8");
            return None;
        }
    }
    Some((dir, names))
}

/// Whatever the path looks like, the JSON stays JSON and each URL is
/// attributed to its own file.
#[test]
fn non_utf8_file_names_keep_json_valid() {
    let Some((dir, _)) = non_utf8_tree() else { return };
    let r = urlsift(&["extract".to_string(), "--json".to_string(), p(dir.path())]);
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
    let rows: Vec<serde_json::Value> =
        r.stdout.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    assert_eq!(rows.len(), 2, "{}", r.stdout);
    for v in &rows {
        assert!(v["path"].as_str().unwrap().contains("caf"), "{v}");
    }
    let r = urlsift(&["lint".to_string(), "--json".to_string(), p(dir.path())]);
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
}

/// The file name in JSON must be lossless: two files whose names differ in
/// a non-UTF-8 byte must not be shown the same. Today `driver::show` uses
/// `to_string_lossy`, so `caf\xe9.txt` and `caf\xe8.txt` both become
/// `caf\u{FFFD}.txt` and a consumer cannot tell them apart or open them.
/// The fix should pick and document (README, JSON fields) an escaped form;
/// this test asks only that the names stay distinct and free of U+FFFD.
#[test]
fn non_utf8_file_names_are_shown_losslessly() {
    let Some((dir, _)) = non_utf8_tree() else { return };
    let r = urlsift(&["extract".to_string(), "--json".to_string(), p(dir.path())]);
    let paths: Vec<String> = r
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["path"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(paths.len(), 2);
    assert_ne!(paths[0], paths[1], "two files, one name");
    assert!(paths.iter().all(|p| !p.contains('\u{fffd}')), "{paths:?}");
    // README: each byte that is not UTF-8 is shown `\xHH`, and
    // `path_base64` holds the exact name.
    let dir_name = p(dir.path());
    let mut want = [format!("{dir_name}/caf\\xE8.txt"), format!("{dir_name}/caf\\xE9.txt")];
    want.sort();
    assert_eq!(paths, want);
    let raw: Vec<String> = r
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["path_base64"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    // "<dir>/caf\xe8.txt" in base64 ends with the encoding of its last
    // bytes; decode by hand rather than trust the encoder under test.
    for (got, last) in raw.iter().zip([0xe8u8, 0xe9]) {
        let mut name = dir.path().as_os_str().as_encoded_bytes().to_vec();
        name.extend_from_slice(b"/caf");
        name.push(last);
        name.extend_from_slice(b".txt");
        assert_eq!(decode_base64(got), name);
    }
}

fn decode_base64(s: &str) -> Vec<u8> {
    let abc = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in s.bytes().filter(|&c| c != b'=') {
        bits = bits << 6 | abc.iter().position(|&a| a == c).expect("base64 alphabet") as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    out
}

/// A missing path that is not UTF-8 is still named on stderr, and the run
/// goes on.
#[test]
fn missing_non_utf8_path_is_reported() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tree();
    let gone = dir.path().join(OsStr::from_bytes(b"gone-\xff.txt"));
    let args = [
        std::ffi::OsString::from("extract"),
        dir.path().join("a-good.txt").into_os_string(),
        gone.into_os_string(),
    ];
    let r = urlsift(&args);
    assert!(r.stdout.lines().any(|l| l == GOOD[0]), "{}", r.stdout);
    assert_one_problem(&r, "gone-", "no such file");
    assert_eq!(r.status.code(), Some(2));
}

/// 2 GB of NULs, sparse: binary, so skipped after the first 8 KiB (quickly,
/// whatever the size); `--max-filesize` skips it without reading at all.
#[test]
fn huge_sparse_file_is_skipped_quickly() {
    let dir = tree();
    let f = dir.path().join("m-sparse.bin");
    let file = fs::File::create(&f).unwrap();
    if file.set_len(2 << 30).is_err() {
        eprintln!("skipped: cannot make a 2 GB sparse file here");
        return;
    }
    drop(file);
    let started = Instant::now();
    let r = urlsift_within(60, &["extract".to_string(), p(dir.path())]);
    assert_good_files_scanned(&r);
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}: it read the file",
        started.elapsed()
    );
    let r = urlsift_within(
        60,
        &["extract".to_string(), "--max-filesize".to_string(), "1M".to_string(), p(dir.path())],
    );
    assert_good_files_scanned(&r);
}

/// README: "Files are streamed in 256 KiB windows, so memory stays flat
/// whatever the file size." The input is, but the output is not: the
/// driver renders all of one file's output into one buffer
/// (`FileResult::out`) before writing it, so memory grows with the file's
/// output (`extract --json` on a 200 MB text: 317 MB peak RSS, about the
/// size of the JSON; 41 MB for plain `extract`). Here: 8 MB of input give
/// 3.3 MB of output, handed to the writer in one piece.
#[test]
fn output_of_one_big_file_is_written_in_bounded_pieces() {
    use urlsift::driver::{self, Input, RunOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    fs::write(
        &path,
        adversarial::repeat(b"many words of prose and then http://a.example/x\n", 8 << 20),
    )
    .unwrap();
    let sifter = Sifter::new(Options::default());
    let input = Input::File { path, shown: "big.txt".into() };
    let opts = RunOptions { threads: 1, ..RunOptions::default() };
    let (mut total, mut largest) = (0, 0);
    driver::run(&[input], &sifter, &urlsift::printer::UrlLines, opts, |_, r| {
        total += r.out.len();
        largest = largest.max(r.out.len());
        Ok(())
    })
    .unwrap();
    assert!(total > 3 << 20, "only {total} bytes of output");
    assert!(largest <= 1 << 20, "{largest} of {total} bytes of output handed over at once");
}
