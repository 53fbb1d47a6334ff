//! The binary gives byte for byte the same JSON (`extract --json`, `lint
//! --json`) and exit code whether a big mail message is held whole or read
//! without being held: from its file (one inside an mbox, a file cut into
//! parts for two threads) or from the spool of standard input. The size
//! from which a message is not held is lowered with URLSIFT_BIG_MESSAGE so
//! that small inputs take that path (and raised so that nothing does).
//! Plain text on standard input gives what the same file gives.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Messages of this size or more are not held, in the streaming runs.
const LOW: &str = "100000";
/// No message is that big: every one is held.
const HIGH: &str = "1000000000000";

const ENV: &str = "From a@example.org Thu Jan  1 00:00:00 1970";

/// URL-dense quoted-printable lines with `>From ` quoting and findings.
fn body(n: usize, nl: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            "Go to http://www.example.org/x{i}.html or <URL:ftp://ftp.example.net/{nl}  \
             pub/f{i}.txt> caf=E9 http://b.example/a%zz{i}{nl}\
             >From http://q.example:99999/{i} quoted{nl}>>From http://b.example/{i}%{nl}\
             From the start http://a.example/{i}=3D={nl}?q=3D{i}{nl}"
        ));
    }
    s
}

fn small(i: usize) -> String {
    format!(
        "{ENV}\nSubject: small {i} http://subj.example:99999/\nMessage-ID: <{i}@x>\n\n\
         hello http://small.example/{i}/%zz\n>From http://sq.example/%\nsee news:m@x\n\n"
    )
}

/// One message with a big quoted-printable part (over a mebibyte, as a
/// streamed part is) among small parts, CRLF line breaks.
fn multipart(with_envelope: bool) -> String {
    format!(
        "{env}From: a@example.org\r\nSubject: see http://subj.example:99999/\r\n\
         Message-ID: <m@x>\r\nContent-Type: multipart/mixed; boundary=\"zz\"\r\n\r\n\
         preamble http://pre.example/%zz\r\n>From http://preq.example/%\r\n--zz\r\n\
         Content-Type: text/plain\r\n\r\nsmall http://small.example:99999/\r\n--zz\r\n\
         Content-Type: text/html; charset=iso-8859-1\r\n\
         Content-Transfer-Encoding: quoted-printable\r\n\r\n{qp}\r\n--zz\r\n\
         Content-Type: image/png\r\n\r\n{zeros}\r\n--zz--\r\n\
         epilogue http://epi.example:1/%\r\n\r\n",
        env = if with_envelope { format!("{ENV}\r\n") } else { String::new() },
        qp = body(5_000, "\r\n"),
        zeros = "A".repeat(300_000),
    )
}

fn mbox() -> String {
    let leaf = format!(
        "{ENV}\nFrom: b@example.org\nContent-Type: text/plain\n\
         Content-Transfer-Encoding: quoted-printable\n\n{}\n",
        body(3_000, "\n")
    );
    let quoted_head =
        format!("{ENV}\nSubject: q\n>From http://hq.example/%\n\n{}\n", body(3_000, "\n"));
    let mut out = small(0) + &multipart(true) + &small(1) + &leaf + &small(2) + &quoted_head;
    out += &small(3);
    out
}

struct Out {
    code: Option<i32>,
    stdout: Vec<u8>,
}

fn urlsift(args: &[&str], big: &str, stdin: Option<&[u8]>) -> Out {
    let mut child = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(args)
        .env("URLSIFT_BIG_MESSAGE", big)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run urlsift");
    let feeder = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        std::thread::spawn(move || pipe.write_all(&bytes))
    });
    let out = child.wait_with_output().expect("wait for urlsift");
    if let Some(f) = feeder {
        f.join().unwrap().unwrap();
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("internal error"), "{stderr}");
    Out { code: out.status.code(), stdout: out.stdout }
}

/// The runs of `args` on `file` and on its bytes as standard input, held
/// and streamed, give the same output (the stdin runs name `-`).
fn same_either_way(file: &Path, args: &[&str]) {
    let bytes = std::fs::read(file).unwrap();
    let name = file.to_str().unwrap();
    let mut with_file: Vec<&str> = args.to_vec();
    with_file.push(name);
    let mut with_stdin: Vec<&str> = args.to_vec();
    with_stdin.push("-");
    let held = urlsift(&with_file, HIGH, None);
    assert!(held.stdout.len() > 100_000, "{args:?}: {} bytes out", held.stdout.len());
    let as_stdin = String::from_utf8(held.stdout.clone())
        .unwrap()
        .replace(&format!("\"path\":{}", serde_json::to_string(name).unwrap()), "\"path\":\"-\"");
    for big in [LOW, HIGH] {
        let got = urlsift(&with_file, big, None);
        assert_eq!(got.code, held.code, "{args:?} {big}");
        assert!(got.stdout == held.stdout, "{args:?} URLSIFT_BIG_MESSAGE={big}: output differs");
        let got = urlsift(&with_stdin, big, Some(&bytes));
        assert_eq!(got.code, held.code, "{args:?} stdin {big}");
        assert!(got.stdout == as_stdin.as_bytes(), "{args:?} stdin {big}: output differs");
    }
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn big_messages_of_an_mbox_and_of_stdin_read_as_held_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mbox = write(dir.path(), "box.mbox", &mbox());
    let eml = write(dir.path(), "one.eml", &multipart(false));
    for file in [&mbox, &eml] {
        same_either_way(file, &["extract", "--json"]);
        same_either_way(file, &["lint", "--json", "-j2"]);
    }
}

/// SARIF `fixes` need the URL's bytes in the file (`Extracted::verbatim`):
/// the big-message reader checks them there as the usual one does.
#[test]
fn sarif_fixes_of_big_messages_are_those_of_held_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mbox = write(dir.path(), "box.mbox", &mbox());
    let eml = write(dir.path(), "one.eml", &multipart(false));
    for file in [&mbox, &eml] {
        let args = ["lint", "--format", "sarif", file.to_str().unwrap()];
        let held = urlsift(&args, HIGH, None);
        let fixes = String::from_utf8_lossy(&held.stdout).matches("\"fixes\"").count();
        assert!(fixes > 1000, "{file:?}: {fixes} fixes");
        let got = urlsift(&args, LOW, None);
        assert_eq!(got.code, held.code, "{file:?}");
        assert!(got.stdout == held.stdout, "{file:?}: output differs");
    }
}

/// `--resolve-local` finds the id of a message it does not hold (read
/// from the head of its stretch of the file).
#[test]
fn local_references_to_a_big_message_resolve_as_held() {
    let dir = tempfile::tempdir().unwrap();
    let mbox = write(dir.path(), "box.mbox", &mbox());
    let args = ["extract", "--json", "--resolve-local", mbox.to_str().unwrap()];
    let held = urlsift(&args, HIGH, None);
    let got = urlsift(&args, LOW, None);
    let resolved = String::from_utf8_lossy(&held.stdout).matches("\"resolved\"").count();
    assert_eq!(resolved, 4, "each small message cites the big one");
    assert!(got.stdout == held.stdout, "output differs");
}

/// A file big enough to be cut into parts for two threads (16 MiB),
/// with a big message in a part after the first.
#[test]
fn big_message_in_a_part_of_a_cut_mbox_reads_as_held() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 12 << 20 {
        text += &small(i);
        i += 1;
    }
    text += &mbox();
    while text.len() < 18 << 20 {
        text += &small(i);
        i += 1;
    }
    let file = write(dir.path(), "cut.mbox", &text);
    let name = file.to_str().unwrap();
    let args = ["extract", "--json", "-j2", name];
    let held = urlsift(&args, HIGH, None);
    let got = urlsift(&args, LOW, None);
    assert_eq!((got.code, held.code), (Some(0), Some(0)));
    assert!(held.stdout.len() > 1 << 20);
    assert!(got.stdout == held.stdout, "output differs");
}

#[test]
fn plain_text_on_stdin_reads_as_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = body(20_000, "\n");
    let file = write(dir.path(), "notes.txt", &text);
    same_either_way(&file, &["extract", "--json"]);
    same_either_way(&file, &["lint", "--json"]);
}

/// A big file read as a message (`--input mail`) that opens with no
/// header block is the usual reader's problem (exit 2), not a panic of
/// the big-message reader.
#[test]
fn big_message_without_a_header_block_is_reported_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "no header here http://a.example/\n".to_string() + &"x http://b.example/\n".repeat(20_000);
    let file = write(dir.path(), "nohead.txt", &text);
    let args = ["extract", "--json", "--input", "mail", file.to_str().unwrap()];
    let held = urlsift(&args, HIGH, None);
    let got = urlsift(&args, LOW, None);
    assert_eq!((got.code, held.code), (Some(2), Some(2)));
    assert!(got.stdout == held.stdout, "output differs");
}
