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

use crate::invariants;

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

/// Issue 5: a no-break space (U+00A0, UTF-8 `C2 A0`) right after a bare
/// URL became part of it. Decoded mail is full of them (`=C2=A0` in
/// quoted-printable, `&nbsp;` turned to text), and so is text from word
/// processors; the other Unicode spaces (U+2000 to U+200B, U+202F,
/// U+3000, U+FEFF, ...) end a bare URL too. Inside a wrapper they are not
/// the whitespace RFC 1738 means, so they stay URL text there (and get
/// `non-ascii`).
#[test]
fn r_unicode_space_ends_a_bare_url() {
    for (text, want) in [
        ("see http://a.example/x\u{a0}and more", "http://a.example/x"),
        ("see http://a.example/x.\u{a0}Next", "http://a.example/x"),
        ("URL:http://a.example/x\u{202f}", "http://a.example/x"),
        ("mailto:a@b.example\u{3000}", "mailto:a@b.example"),
        ("\u{feff}http://a.example/bom\u{feff}", "http://a.example/bom"),
        ("http://a.example/zw\u{200b}space", "http://a.example/zw"),
    ] {
        assert_eq!(
            urls(text.as_bytes()),
            [(
                want.to_string(),
                if text.starts_with("URL:") { Kind::Prefixed } else { Kind::Bare }
            )],
            "{}",
            invariants::show(text.as_bytes())
        );
    }
    let got = urls("<URL:http://a.example/x\u{a0}y>".as_bytes());
    assert_eq!(got, [("http://a.example/x\u{a0}y".to_string(), Kind::Wrapped)]);
}

/// Found by the adversarial inputs (`percent-run-*`): every `bad-escape`
/// carried the whole corrected URL as its fix, so 10 KB of `%` gave
/// 100 MB of fixes. Only the first `MAX_FIXES` diagnostics of a URL (in
/// URL order) carry one now, each still the whole URL with that one
/// problem repaired.
#[test]
fn r_fixes_are_capped_per_url() {
    use urlsift::diag::{Code, MAX_FIXES};
    let url = format!("http://a.example/{}", "x%".repeat(100));
    let v = invariants::engines().validators[0].validate(url.as_bytes());
    let bad: Vec<_> = v.diagnostics.iter().filter(|d| d.code == Code::BadEscape).collect();
    assert_eq!(bad.len(), 100);
    for (i, d) in bad.iter().enumerate() {
        if i < MAX_FIXES {
            let mut want = url.clone();
            want.replace_range(d.start..d.end, "%25");
            assert_eq!(d.fix.as_deref(), Some(want.as_str()), "fix #{i}");
        } else {
            assert_eq!(d.fix, None, "fix #{i}");
        }
    }
    // The same through extraction, with everything else checked.
    let text = format!("see {url} and <URL:{url}>");
    // Extraction makes the 100 one finding (issue 14); only 16 places
    // had a fix, so it carries the first place's: one copy of the URL.
    for u in invariants::check_extract(text.as_bytes()) {
        assert_eq!(u.findings.len(), 1);
        let d = &u.findings[0].diagnostic;
        assert_eq!(d.spans().count(), 100);
        assert_eq!(d.fix, bad[0].fix);
    }
}

/// Found by the adversarial inputs (`hyphen-breaks-in-words`): every
/// `hyphen-line-break` message quoted the whole alternative, so a wrapper
/// with a break on each of 20,000 lines gave 800 MB of messages. A long
/// alternative is quoted around the break only; `alternatives` still
/// holds it once, whole. The quote is defanged like any message.
#[test]
fn r_hyphen_messages_quote_around_the_break() {
    use urlsift::diag::Code;
    let mut text = b"<URL:http://a.example/".to_vec();
    for i in 0..200 {
        text.extend_from_slice(format!("w{i:03}-\n").as_bytes());
    }
    text.extend_from_slice(b"end>");
    // The finding is rfc1738's (and rfc3986's): modern leaves the reading
    // to `alternatives`.
    let got = invariants::check_extract_in(&text, urlsift::diag::Grammar::Rfc1738);
    let alt = &got[0].alternatives[0];
    assert_eq!(got[0].alternatives.len(), 1);
    assert!(alt.ends_with(b"w198w199end"), "{}", String::from_utf8_lossy(alt));
    // The 200 breaks are one finding (issue 14) that counts them and
    // quotes around the first.
    let breaks: Vec<_> =
        got[0].findings.iter().filter(|f| f.diagnostic.code == Code::HyphenLineBreak).collect();
    assert_eq!(breaks.len(), 1);
    assert_eq!(breaks[0].spans().count(), 200);
    let m = &breaks[0].diagnostic.message;
    assert!(m.len() < 360, "{m}");
    assert!(m.starts_with("200 line breaks right after `-`; first: "), "{m}");
    assert!(m.contains("w000w001"), "{m}");
    // A short alternative is still quoted whole (README's example).
    let got = invariants::check_extract_in(
        b"<URL:http://www.example.org/long-\n  name.html>",
        urlsift::diag::Grammar::Rfc1738,
    );
    assert!(
        got[0].findings[0].diagnostic.message.contains("`http://www.example.org/longname.html`"),
        "{}",
        got[0].findings[0].diagnostic.message
    );
    // Control bytes of the URL are shown escaped, as in every message.
    let got =
        invariants::check_extract_in(b"<URL:a\x1b[2J-\nb:x>", urlsift::diag::Grammar::Rfc1738);
    for f in &got[0].findings {
        assert!(!f.diagnostic.message.chars().any(char::is_control), "{:?}", f.diagnostic);
    }
}

/// Found by the `scan` fuzz target (10-minute run of 2026-11-22): after a
/// `URL:` label, a scheme of exactly 32 bytes (the longest taken) that
/// ends where a window of a long line ends was rejected instead of read on,
/// so the streamed scan lost the URL that one scan finds.
#[test]
fn r_longest_scheme_after_url_label_at_a_window_end() {
    let text = b"URL:hhhhhhhhhhhhhhhXXXXXXXXXXXXXXXXXXXXXXXXXXXX<\x10url:XXXXXXXXXXXXXXXXXXXXXXXXXXXXXmid:XXXzXXXXXXXX>> ";
    // check_extract also scans in pieces of every small size and compares.
    let got = urls(text);
    assert_eq!(
        got,
        [("XXXXXXXXXXXXXXXXXXXXXXXXXXXXXmid:XXXzXXXXXXXX".to_string(), Kind::Prefixed)]
    );
    invariants::check_pieces(text);
}

/// Found by the same 10-minute run, after the fix above: the same edge in
/// `URL:<scheme:`, whose scheme of exactly 32 bytes ended at a window end.
#[test]
fn r_longest_scheme_after_url_label_bracket_at_a_window_end() {
    let text = b"x URL:<B1t41ews.exaws.examp1e.cmp1e.com:URL:<1t41 and more";
    let got = urls(text);
    assert_eq!(got, [("B1t41ews.exaws.examp1e.cmp1e.com:URL".to_string(), Kind::Wrapped)]);
    invariants::check_pieces(text);
    let fuzzed = b"nnexamp1e.cmp1e.com:URL:<1t41ews.exaws.e\x08\x00\x00\x00\x00xammp1e.com:URL:<1t41ews.exaws.examp1e.cmp1e.com:URL:<1tp1e.cmp1e.co\x00\x00\x00\x00\x00\x00xammp1e.com:URL:<B1t41ews.exaws.examp1e.cmp1e.com:URL:<1tp1e.cmp1e.com:URL:<1t41";
    invariants::check_pieces(fuzzed);
}
