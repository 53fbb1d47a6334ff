//! Regression tests: each `r_<slug>` is the minimal input of a bug found
//! by the fuzzers (`fuzz/`), the round-trip properties
//! (`tests/roundtrip.rs`) or the hostile-input tests, replayed through the
//! same invariants the fuzz targets check (`tests/support/invariants.rs`)
//! plus the exact answer expected.
//!
//! A test marked `#[ignore = "bug: ..."]` documents a bug that is not fixed
//! yet: it fails today, and the fix un-ignores it.
//!
//! To add one from a fuzz crash: `fuzz/artifacts/<target>/crash-*` holds
//! the input; minimise it (`cargo fuzz tmin <target> <file>`), then write
//! the bytes here as a byte-string literal.

use std::io::Write;
use std::process::{Command, Stdio};

use urlsift::scan::Kind;

#[path = "support/invariants.rs"]
mod invariants;

/// The URLs of `text`, after every invariant has been checked.
fn urls(text: &[u8]) -> Vec<(String, Kind)> {
    invariants::check_extract(text).iter().map(|u| (u.url_lossy().into_owned(), u.kind)).collect()
}

/// Found by `tests/roundtrip.rs`: whitespace inside brackets is ignored
/// (README, "Wrappers"), and a line break right after the colon of
/// `<http:` is, but a blank there hides the URL: the scanner settles
/// colons followed by a space as prose before it looks for the `<`. Mail
/// with trailing blanks before its line breaks (format=flowed writes a
/// space before every soft break) gets `<http: \n//host/>`.
#[test]
#[ignore = "bug: a blank after the colon of `<http:` or `URL=<http:` hides the URL (`<http: //a.example/>`)"]
fn r_blank_after_angle_colon() {
    for (text, kind) in [
        (&b"<http: //a.example/>"[..], Kind::Angle),
        (b"<http:\t//a.example/>", Kind::Angle),
        (b"see <http: \n  //a.example/>", Kind::Angle),
        (b"see <http: \r\n//a.example/>", Kind::Angle),
        (b"URL=<http: //a.example/>", Kind::Wrapped),
    ] {
        assert_eq!(
            urls(text),
            [("http://a.example/".to_string(), kind)],
            "{}",
            invariants::show(text)
        );
    }
}

/// The line-break form of the same text works: a control for the above.
#[test]
fn r_line_break_after_angle_colon() {
    for text in
        [&b"<http:\n//a.example/>"[..], b"<http:\r\n  //a.example/>", b"> <http:\n> //a.example/>"]
    {
        assert_eq!(
            urls(text),
            [("http://a.example/".to_string(), Kind::Angle)],
            "{}",
            invariants::show(text)
        );
    }
}

/// Found by the `validate` fuzz target (input `"\n:\x1a\x1a"`): messages
/// quote URL text raw (`rules::check::Ctx::show`), so an LF, a CR or an
/// ESC in a URL ends up in `lint` output as is. An LF breaks the
/// one-line-per-finding format (`check` prints `LF in scheme \`\n\``); an
/// ESC sequence in a scanned file reaches the terminal of whoever lints it
/// (`<URL:a\x1b[2Jb:x>` clears the screen).
#[test]
fn r_control_bytes_in_messages() {
    let e = invariants::engines();
    for url in [&b"\n:\x1a\x1a"[..], b"a\x1b[2Jb:x", b"ht\x07tp://a.example/", b"a\rb:c"] {
        for v in &e.validators {
            for d in v.validate(url).diagnostics {
                assert!(
                    !d.message.chars().any(char::is_control),
                    "{:?} for {}: {:?}",
                    d.code,
                    invariants::show(url),
                    d.message
                );
            }
        }
    }
    // Through the binary: a file's bytes must not drive the terminal.
    let mut child = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(["lint", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run urlsift");
    child.stdin.take().unwrap().write_all(b"see <URL:a\x1b[2Jb:x> now\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        !out.stdout.contains(&0x1b),
        "ESC in lint output: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}
