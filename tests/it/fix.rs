//! `lint --fix` and `--diff` (issue 18): each safe fix made where the URL
//! stands, every other byte left as it was (line endings included);
//! unsafe fixes only when asked; mail never rewritten; a second run
//! changes nothing; `--diff` prints what `--fix` writes.

use std::path::Path;
use std::process::{Command, Output};

fn urlsift(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_urlsift")).args(args).current_dir(dir).output().unwrap()
}

/// `(file name, content, fixed content)` for each safe code, in text,
/// Markdown and CRLF files (the grammar each needs is in `GRAMMAR`).
const MODERN: &[(&str, &str, &str)] = &[
    ("escape.txt", "a http://h.example/50%off b\n", "a http://h.example/50%25off b\n"),
    ("unsafe.txt", "see http://h.example/a|b^c now\n", "see http://h.example/a%7Cb%5Ec now\n"),
    ("host.txt", "x http://%E4%BE%8B.org/ y\n", "x http://xn--fsq.org/ y\n"),
    (
        "link.md",
        "# Title\n\nA [link](http://h.example/a%zz) and `http://code.example/%zz`.\n",
        "# Title\n\nA [link](http://h.example/a%25zz) and `http://code.example/%zz`.\n",
    ),
    (
        "crlf.txt",
        "one\r\nhttp://h.example/%q two\r\nthree",
        "one\r\nhttp://h.example/%25q two\r\nthree",
    ),
    // A wrapper broken in a Markdown paragraph: fixed in its runs.
    (
        "wrapped.md",
        "# T\n\nSee <URL:http://h.example/a\n  /%zz> now.\n",
        "# T\n\nSee <URL:http://h.example/a\n  /%25zz> now.\n",
    ),
];
const RFC3986: &[(&str, &str, &str)] = &[(
    "ascii.txt",
    "voir http://h.example/caf\u{e9} ici\n",
    "voir http://h.example/caf%C3%A9 ici\n",
)];
const RFC1738: &[(&str, &str, &str)] = &[
    // Two fixes on one URL, each checked again after the other.
    ("case.txt", "go HTTP://h.example:80/p now\n", "go http://h.example/p now\n"),
    ("empty-port.txt", "go http://h.example:/p now\n", "go http://h.example/p now\n"),
    ("tilde.md", "[home](http://h.example/~u)\n", "[home](http://h.example/%7Eu)\n"),
];

fn write(dir: &Path, files: &[(&str, &str, &str)]) {
    for (name, content, _) in files {
        std::fs::write(dir.join(name), content).unwrap();
    }
}

fn check(dir: &Path, files: &[(&str, &str, &str)], fixed: bool) {
    for (name, content, want) in files {
        let got = std::fs::read_to_string(dir.join(name)).unwrap();
        assert_eq!(got, if fixed { *want } else { *content }, "{name}");
    }
}

#[test]
fn each_safe_fix_is_made_in_place_and_a_second_run_changes_nothing() {
    for (files, grammar) in [(MODERN, "modern"), (RFC3986, "rfc3986"), (RFC1738, "rfc1738")] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, files);
        let o = urlsift(&["lint", "--fix", "--fail-on", "warning", "--grammar", grammar, "."], d);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}\n{}", String::from_utf8_lossy(&o.stdout));
        let n = files.len();
        let want = if n == 1 {
            "fixed 1 URL in 1 file".to_string()
        } else {
            format!("fixed {n} URLs in {n} files")
        };
        assert!(err.contains(&want), "{err}");
        check(d, files, true);
        // Idempotent: nothing left to fix, nothing written.
        let o = urlsift(&["lint", "--fix", "--grammar", grammar, "."], d);
        assert_eq!(o.status.code(), Some(0));
        assert!(!String::from_utf8_lossy(&o.stderr).contains("fixed"));
        check(d, files, true);
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(d).unwrap().count(), files.len());
    }
}

#[test]
fn diff_prints_what_fix_writes_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, MODERN);
    let o = urlsift(&["lint", "--diff", "."], d);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    check(d, MODERN, false);
    let diff = String::from_utf8(o.stdout).unwrap();
    assert!(diff.contains("--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,3 +1,3 @@\n one\r\n-http://h.example/%q two\r\n+http://h.example/%25q two\r\n three\n\\ No newline at end of file\n"), "{diff}");
    // The diff applies (where `patch` is installed) to give the fixed files.
    if Command::new("patch").arg("--version").output().is_ok() {
        std::fs::write(d.join("fix.diff"), &diff).unwrap();
        let p =
            Command::new("patch").args(["-p1", "-i", "fix.diff"]).current_dir(d).output().unwrap();
        assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stdout));
        check(d, MODERN, true);
    }
}

#[test]
fn unsafe_fixes_only_when_asked_and_the_exit_code_is_judged_on_what_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = "a ftp://u:Xk39s@site.org/ b http://h.example/%zz c ftp://h.example/f;type=q\n";
    std::fs::write(d.join("f.txt"), text).unwrap();
    // The password is a warning (not failing), its fix unsafe; the
    // typecode has no fix: what is left fails.
    let o = urlsift(&["lint", "--fix", "f.txt"], d);
    assert_eq!(o.status.code(), Some(1));
    let left = String::from_utf8_lossy(&o.stdout);
    assert!(
        left.contains("f.txt:1:") && left.contains("ftp-typecode") && !left.contains("bad-escape"),
        "{left}"
    );
    let now = std::fs::read_to_string(d.join("f.txt")).unwrap();
    assert_eq!(now, text.replace("%zz", "%25zz"));
    let o = urlsift(&["lint", "--fix", "--unsafe-fixes", "f.txt"], d);
    assert_eq!(o.status.code(), Some(1));
    let now = std::fs::read_to_string(d.join("f.txt")).unwrap();
    assert_eq!(now, "a ftp://u@site.org/ b http://h.example/%25zz c ftp://h.example/f;type=q\n");
    // --diff judges the same way without writing.
    std::fs::write(d.join("g.txt"), "http://h.example/%zz\n").unwrap();
    let o = urlsift(&["lint", "--diff", "g.txt"], d);
    assert_eq!(o.status.code(), Some(0));
    let o = urlsift(&["lint", "g.txt"], d);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn mail_is_not_rewritten_and_rejoined_urls_are_fixed_in_their_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mbox = "From a@b Mon Jan  1 00:00:00 2001\nFrom: a@b\nMessage-ID: <1@b>\n\nsee http://h.example/%zz\n";
    std::fs::write(d.join("list.mbox"), mbox).unwrap();
    // Over three lines, in quoted mail text, and a bare URL a mailer
    // broke after `-`: each run is fixed on its own line.
    let wrapped = "See <URL:http://h.example/a\r\n  /%zz\r\n  /c|d> here\r\n\
                   > quoted <URL:http://q.example/x|\n> y> z\n\
                   bare http://b.example/a-\nb%zz\n";
    let want = "See <URL:http://h.example/a\r\n  /%25zz\r\n  /c%7Cd> here\r\n\
                > quoted <URL:http://q.example/x%7C\n> y> z\n\
                bare http://b.example/a-\nb%25zz\n";
    std::fs::write(d.join("wrapped.txt"), wrapped).unwrap();
    let o = urlsift(&["lint", "--fix", "."], d);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(d.join("list.mbox")).unwrap(), mbox);
    assert_eq!(std::fs::read_to_string(d.join("wrapped.txt")).unwrap(), want);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("fixed 3 URLs in 1 file; 1 URL with fixes cannot be fixed where they stand"),
        "{err}"
    );
    // And they read back as the fixed URLs.
    let o = urlsift(&["extract", "wrapped.txt"], d);
    let urls = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        urls,
        "http://h.example/a/%25zz/c%7Cd\nhttp://q.example/x%7Cy\nhttp://b.example/a-b%25zz\n"
    );
}

#[test]
fn after_fix_no_finding_with_a_safe_fix_is_left_and_the_rest_is_untouched() {
    // Many URLs with several defects each, between words and punctuation.
    let defects = ["%zz", "{x}", "caf\u{e9}", "a%q", "%", "|", "^", "50%off"];
    let mut text = String::new();
    for i in 0..400 {
        let a = defects[i % defects.len()];
        let b = defects[(i * 7 + 3) % defects.len()];
        text.push_str(&format!("w{i} (http://h{i}.example/{a}/p/{b}?q={i}) and, "));
        if i % 5 == 4 {
            text.push_str(if i % 2 == 0 { "\r\n" } else { "\n" });
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("many.txt"), &text).unwrap();
    let o = urlsift(&["lint", "--fix", "many.txt"], d);
    assert!(o.status.code() != Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let fixed = std::fs::read_to_string(d.join("many.txt")).unwrap();
    let o = urlsift(&["lint", "--json", "--fail-on", "note", "many.txt"], d);
    for l in String::from_utf8_lossy(&o.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let code = urlsift::diag::Code::from_name(v["code"].as_str().unwrap()).unwrap();
        assert!(
            v.get("fix").is_none()
                || urlsift::fix::safety(code) != Some(urlsift::fix::Safety::Safe),
            "a safe fix is left: {l}"
        );
    }
    // Outside the URLs, the text is the same: take the URLs out of both.
    let strip = |t: &str| -> String {
        t.split(['(', ')']).enumerate().filter(|(i, _)| i % 2 == 0).map(|(_, s)| s).collect()
    };
    assert_eq!(strip(&text), strip(&fixed));
    assert_eq!(text.matches('\n').count(), fixed.matches('\n').count());
    assert_eq!(text.matches("\r\n").count(), fixed.matches("\r\n").count());
}

#[test]
fn every_code_whose_example_has_a_fix_says_what_kind_it_is() {
    let o = urlsift(&["explain", "--json"], Path::new("."));
    let mut kinds = 0;
    for l in String::from_utf8(o.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let has_fix = v["example"].get("fix").is_some_and(|f| !f.is_null());
        if has_fix {
            assert_ne!(v["fix"], "none", "{}", v["code"]);
            kinds += 1;
        }
    }
    assert!(kinds >= 8, "{kinds}");
}
