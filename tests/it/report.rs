//! How findings are reported (issue 14): one finding per problem with
//! every span listed, `rejected_by`, `--show`, and the grammar chosen per
//! glob. Library behaviour first, then the same through the binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use urlsift::diag::{Code, Grammar, Severity};
use urlsift::extract::{Extracted, Options, Sifter};
use urlsift::mail::{InputKind, extract_mail};

fn sifter(grammar: Grammar) -> Sifter {
    Sifter::new(Options { grammar, ..Options::default() })
}

fn one(sifter: &Sifter, text: &[u8]) -> Extracted {
    let mut urls = sifter.extract(text);
    assert_eq!(urls.len(), 1, "{urls:?}");
    urls.pop().unwrap()
}

/// `(line, column)` of every span of every finding of `code`.
fn span_places(u: &Extracted, code: Code) -> Vec<(u64, u64)> {
    u.findings
        .iter()
        .filter(|f| f.diagnostic.code == code)
        .flat_map(|f| f.spans().map(|(s, _)| (s.line, s.column)).collect::<Vec<_>>())
        .collect()
}

#[test]
fn one_finding_per_code_lists_every_span_in_the_source() {
    let u = one(&sifter(Grammar::Rfc1738), b"see http://h.example/~a/~b|c now");
    let unsafe_: Vec<_> =
        u.findings.iter().filter(|f| f.diagnostic.code == Code::UnsafeCharacter).collect();
    assert_eq!(unsafe_.len(), 1, "{:?}", u.findings);
    let d = &unsafe_[0].diagnostic;
    assert_eq!(d.spans().collect::<Vec<_>>(), [(17, 18), (20, 21), (22, 23)]);
    assert_eq!(span_places(&u, Code::UnsafeCharacter), [(1, 22), (1, 25), (1, 27)]);
    assert!(d.message.starts_with("3 unencoded characters: `~`, `|`; first: "), "{}", d.message);
    // Each span had a fix, so the fix corrects them all.
    assert_eq!(d.fix.as_deref(), Some("http://h.example/%7Ea/%7Eb%7Cc"));
}

#[test]
fn spans_of_a_rejoined_url_are_placed_on_their_own_lines() {
    let text = b"<URL:http://h.example/~a\n   /~b>";
    let u = one(&sifter(Grammar::Rfc1738), text);
    assert_eq!(span_places(&u, Code::UnsafeCharacter), [(1, 23), (2, 5)]);
    let f = &u.findings[0];
    for (s, e) in f.spans() {
        assert_eq!(text[s.offset as usize], b'~');
        assert_eq!(s, e, "one-byte spans start and end on the same byte");
    }
}

#[test]
fn spans_of_decoded_mail_point_at_the_escapes_in_the_file() {
    let msg = b"From: a@example.org\nContent-Type: text/plain\n\
                Content-Transfer-Encoding: quoted-printable\n\nhttp://h.example/=7Ea/=7Eb\n";
    let s = sifter(Grammar::Rfc1738);
    let mut urls = Vec::new();
    extract_mail(&s, &msg[..], InputKind::Message, |u| urls.push(u), |_| {}).unwrap();
    assert_eq!(urls.len(), 1);
    let u = &urls[0].url;
    assert_eq!(u.url, b"http://h.example/~a/~b");
    let f = &u.findings[0];
    assert_eq!(f.diagnostic.code, Code::UnsafeCharacter);
    let offsets: Vec<usize> = f.spans().map(|(s, _)| s.offset as usize).collect();
    assert_eq!(offsets.len(), 2);
    for o in offsets {
        assert_eq!(&msg[o..o + 3], b"=7E");
    }
    assert_eq!(span_places(u, Code::UnsafeCharacter), [(5, 18), (5, 23)]);
}

#[test]
fn check_merges_too() {
    let v = sifter(Grammar::Rfc1738).check(b"http://h/~a~b~");
    assert_eq!(v.diagnostics.len(), 1);
    assert_eq!(v.diagnostics[0].spans().count(), 3);
    assert!(v.diagnostics[0].message.starts_with("3 unencoded characters"));
}

#[test]
fn a_url_bad_in_every_byte_stays_linear() {
    let mut url = b"http://h.example/".to_vec();
    url.extend(std::iter::repeat_n(b'^', 20_000));
    let u = one(&sifter(Grammar::Rfc1738), &url);
    assert_eq!(u.findings.len(), 1);
    let f = &u.findings[0];
    assert_eq!(f.spans().count(), 20_000);
    assert!(f.diagnostic.message.len() < 200, "{}", f.diagnostic.message);
    // Past MAX_FIXES spans have no fix: the first span's fix stays, one
    // copy of the URL, not one per span.
    let fix = f.diagnostic.fix.as_deref().unwrap();
    assert_eq!(fix.len(), url.len() + 2);
}

#[test]
fn rejected_by_names_each_grammar_that_rejects() {
    for g in [Grammar::Rfc1738, Grammar::Rfc3986] {
        let s = sifter(g);
        let urls = s.extract(b"http://h.example/~user/ http://h.example/a|b http://h.example/ok");
        let got: Vec<&[Grammar]> = urls.iter().map(|u| u.rejected_by.as_slice()).collect();
        // In `Grammar::ALL` order; `|` is unsafe in every grammar.
        let all = [Grammar::Modern, Grammar::Rfc3986, Grammar::Rfc1738];
        assert_eq!(got, [&[Grammar::Rfc1738][..], &all, &[]]);
        assert_eq!(s.rejected_by(b"http://h.example/~user/"), [Grammar::Rfc1738]);
    }
}

#[test]
fn show_adds_what_only_the_other_grammar_finds_as_notes() {
    let text = b"http://h.example/~user/a|b";
    let plain = one(&sifter(Grammar::Rfc3986), text);
    assert_eq!(span_places(&plain, Code::UnsafeCharacter), [(1, 25)]);
    let s = Sifter::new(Options {
        grammar: Grammar::Rfc3986,
        show: vec![Grammar::Rfc1738],
        ..Options::default()
    });
    let u = one(&s, text);
    let notes: Vec<_> =
        u.findings.iter().filter(|f| f.diagnostic.grammar == Some(Grammar::Rfc1738)).collect();
    assert_eq!(notes.len(), 1, "{:?}", u.findings);
    assert_eq!(notes[0].diagnostic.severity, Severity::Note);
    assert_eq!(notes[0].diagnostic.code, Code::UnsafeCharacter);
    // Only the `~`: RFC 3986 already reports the `|`.
    assert_eq!(notes[0].spans().map(|(s, _)| s.column).collect::<Vec<_>>(), [18]);
    let own: Vec<_> =
        u.findings.iter().filter(|f| f.diagnostic.grammar == Some(Grammar::Rfc3986)).collect();
    assert_eq!(own.len(), 1);
    assert_eq!(own[0].diagnostic.severity, Severity::Error);
    // A code turned off stays off, shown or not; notes never fail.
    let s = Sifter::new(Options {
        grammar: Grammar::Rfc3986,
        show: vec![Grammar::Rfc1738],
        severities: vec![(Code::UnsafeCharacter, None)],
        ..Options::default()
    });
    assert!(one(&s, text).findings.is_empty());
    let s = Sifter::new(Options {
        grammar: Grammar::Rfc3986,
        show: vec![Grammar::Rfc1738],
        ..Options::default()
    });
    assert!(one(&s, b"http://h.example/~user/").is_valid());
}

#[test]
fn grammar_for_chooses_by_glob_first_match_wins() {
    let s = Sifter::new(Options {
        grammar: Grammar::Rfc3986,
        grammar_for: vec![
            ("rfc/**".into(), Grammar::Rfc1738),
            ("*.txt".into(), Grammar::Rfc1738),
            ("rfc/modern/**".into(), Grammar::Rfc3986),
        ],
        ..Options::default()
    });
    let g = |p: &str| s.for_path(Path::new(p)).validator().grammar();
    assert_eq!(g("rfc/rfc1738.md"), Grammar::Rfc1738);
    assert_eq!(g("./rfc/a/b.md"), Grammar::Rfc1738);
    assert_eq!(g("rfc/modern/x.md"), Grammar::Rfc1738, "the first match wins");
    assert_eq!(g("docs/rfc/x.md"), Grammar::Rfc3986, "a glob with `/` is anchored");
    assert_eq!(g("docs/deep/notes.txt"), Grammar::Rfc1738, "a name glob matches at any depth");
    assert_eq!(g("README.md"), Grammar::Rfc3986);
    let under = s.for_path(Path::new("rfc/x.md"));
    assert!(!one(under, b"http://h.example/~u").is_valid());
    assert!(one(&s, b"http://h.example/~u").is_valid());
    let bad = Sifter::try_new(Options {
        grammar_for: vec![("a/[".into(), Grammar::Rfc1738)],
        ..Options::default()
    });
    assert!(bad.unwrap_err().contains("a/["));
}

// Through the binary.

fn urlsift(args: &[&str], stdin: Option<&[u8]>, dir: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urlsift"));
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn().expect("run urlsift");
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin.unwrap_or_default());
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    stdout(o).lines().map(|l| serde_json::from_str(l).expect(l)).collect()
}

const TWO: &[u8] = b"x\n  see http://h.example/~a/~b ok\n";

#[test]
fn lint_json_has_spans_and_rejected_by() {
    let o =
        urlsift(&["lint", "--json", "--no-config", "--grammar", "rfc1738", "-"], Some(TWO), None);
    assert_eq!(o.status.code(), Some(1));
    let rows = json_lines(&o);
    assert_eq!(rows.len(), 1, "one finding for two bytes");
    let r = &rows[0];
    assert_eq!(r["code"], "unsafe-character");
    assert_eq!((r["line"].as_u64(), r["column"].as_u64()), (Some(2), Some(24)));
    assert_eq!((r["start"].as_u64(), r["end"].as_u64()), (Some(17), Some(18)));
    assert_eq!(
        r["spans"],
        serde_json::json!([
            {"start": 17, "end": 18, "line": 2, "column": 24},
            {"start": 20, "end": 21, "line": 2, "column": 27}
        ])
    );
    assert_eq!(r["rejected_by"], serde_json::json!(["rfc1738"]));
    assert_eq!(r["fix"], "http://h.example/%7Ea/%7Eb");
    assert!(r["message"].as_str().unwrap().starts_with("2 unencoded characters: `~`"));
}

#[test]
fn extract_json_and_check_json_have_them_too() {
    let o = urlsift(
        &["extract", "--json", "--no-config", "--grammar", "rfc1738", "-"],
        Some(TWO),
        None,
    );
    let rows = json_lines(&o);
    assert_eq!(rows[0]["rejected_by"], serde_json::json!(["rfc1738"]));
    let d = &rows[0]["diagnostics"];
    assert_eq!(d.as_array().unwrap().len(), 1);
    assert_eq!(
        d[0]["spans"][1],
        serde_json::json!({"start": 20, "end": 21, "line": 2, "column": 27})
    );
    assert_eq!((d[0]["line"].as_u64(), d[0]["column"].as_u64()), (Some(2), Some(24)));

    let o = urlsift(
        &["check", "--json", "--grammar", "rfc1738", "http://h.example/~a/~b", "http://h.example/"],
        None,
        None,
    );
    let rows = json_lines(&o);
    assert_eq!(rows[0]["rejected_by"], serde_json::json!(["rfc1738"]));
    assert_eq!(
        rows[0]["diagnostics"][0]["spans"],
        serde_json::json!([{"start": 17, "end": 18}, {"start": 20, "end": 21}])
    );
    assert_eq!(rows[1]["rejected_by"], serde_json::json!([]));
}

#[test]
fn lint_text_marks_every_span_on_the_line() {
    let o = urlsift(
        &["lint", "--no-config", "--grammar", "rfc1738", "--excerpts", "always", "-"],
        Some(b"\tsee http://h.example/~a/~b|c\n"),
        None,
    );
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("-:1:23: error[unsafe-character]: 3 unencoded characters"),
        "{out}"
    );
    assert_eq!(lines[1], "  | \tsee http://h.example/~a/~b|c");
    assert_eq!(lines[2], "  | \t                     ^  ^ ^");
}

#[test]
fn sarif_lists_related_locations_in_code_points() {
    // `é` is two bytes and one code point: columns after it are one less
    // than byte columns.
    let input = "caf\u{e9} http://h.example/~a/~b\n".as_bytes();
    let o = urlsift(
        &["lint", "--format", "sarif", "--no-config", "--grammar", "rfc1738", "-"],
        Some(input),
        None,
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run = &doc["runs"][0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    let r = &results[0];
    let region = &r["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startColumn"].as_u64(), region["endColumn"].as_u64()),
        (Some(23), Some(24))
    );
    let related = r["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 1);
    assert_eq!(related[0]["id"], 1);
    let region = &related[0]["physicalLocation"]["region"];
    assert_eq!((region["startLine"].as_u64(), region["startColumn"].as_u64()), (Some(1), Some(26)));
    // The byte columns stay in the other formats.
    let o =
        urlsift(&["lint", "--json", "--no-config", "--grammar", "rfc1738", "-"], Some(input), None);
    assert_eq!(json_lines(&o)[0]["column"], 24);
}

/// A span that ends on a character of several bytes ends one code point
/// after it: `endColumn` counts the character once, not once per byte.
#[test]
fn sarif_end_column_after_a_multibyte_character() {
    // `é` is code point 28 of the line (bytes 28 and 29); `€` (three
    // bytes) is code point 30.
    for (input, start, end) in [
        ("a <URL:http://a.example/caf\u{e9}>\n", 28, 29),
        ("a <URL:http://a.example/caf\u{e9}\u{20ac}>\n", 28, 30),
    ] {
        let o = urlsift(
            &["lint", "--format", "sarif", "--no-config", "--grammar", "rfc1738", "-"],
            Some(input.as_bytes()),
            None,
        );
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let results = doc["runs"][0]["results"].as_array().unwrap();
        let r = results.iter().find(|r| r["ruleId"] == "non-ascii").expect("a non-ascii finding");
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            (region["startColumn"].as_u64(), region["endColumn"].as_u64()),
            (Some(start), Some(end)),
            "{input:?}"
        );
    }
}

#[test]
fn show_flag_reports_rfc1738_findings_as_notes() {
    let input = b"http://h.example/~user/\n";
    let base = ["lint", "--json", "--no-config", "--grammar", "rfc3986", "-"];
    let o = urlsift(&base, Some(input), None);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
    let o = urlsift(&[&base[..5], &["--show", "rfc1738", "-"]].concat(), Some(input), None);
    assert_eq!(o.status.code(), Some(0), "notes do not fail the run");
    let rows = json_lines(&o);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["severity"], "note");
    assert_eq!(rows[0]["grammar"], "rfc1738");
    assert_eq!(rows[0]["code"], "unsafe-character");
    assert_eq!(rows[0]["rejected_by"], serde_json::json!(["rfc1738"]));
}

#[test]
fn config_show_and_grammar_for() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("rfc")).unwrap();
    std::fs::create_dir_all(d.join("docs")).unwrap();
    std::fs::write(d.join("rfc/old.txt"), "http://h.example/~a\n").unwrap();
    std::fs::write(d.join("docs/new.txt"), "http://h.example/~b\n").unwrap();
    std::fs::write(
        d.join("urlsift.toml"),
        "grammar = \"rfc3986\"\n\n[[grammar-for]]\nglob = \"rfc/**\"\ngrammar = \"rfc1738\"\n",
    )
    .unwrap();
    let o = urlsift(&["lint", "--json", "-j1", "."], None, Some(d));
    let rows = json_lines(&o);
    let paths: Vec<&str> = rows.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["./rfc/old.txt"], "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(1));
    // From a subdirectory the globs still mean paths from the config's.
    let o = urlsift(&["lint", "--json", "old.txt"], None, Some(&d.join("rfc")));
    assert_eq!(json_lines(&o).len(), 1);
    // `--grammar` on the command line is for every file.
    let o = urlsift(&["lint", "--json", "--grammar", "rfc3986", "."], None, Some(d));
    assert!(o.stdout.is_empty());
    // `show` in the file.
    std::fs::write(d.join("urlsift.toml"), "grammar = \"rfc3986\"\nshow = [\"rfc1738\"]\n")
        .unwrap();
    let o = urlsift(&["lint", "--json", "-j1", "."], None, Some(d));
    let rows = json_lines(&o);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["severity"] == "note" && r["grammar"] == "rfc1738"));
    assert_eq!(o.status.code(), Some(0));
    // Errors name the file, the line and the key.
    std::fs::write(
        d.join("urlsift.toml"),
        "[[grammar-for]]\nglob = \"a/**\"\ngrammar = \"rfc1738\"\n\n[[grammar-for]]\nglob = \"b/**\"\ngrammar = \"rfc2396\"\n",
    )
    .unwrap();
    let o = urlsift(&["lint", "."], None, Some(d));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    // Keys, not values (issue 20): the message does not echo the value.
    assert!(err.contains("urlsift.toml:7: grammar-for.grammar: not a grammar"), "{err}");
    assert!(!err.contains("rfc2396"), "{err}");
}

/// The JSON of one run over `path` (`part_size` 0: read whole).
fn run_parts(path: &Path, threads: usize, part_size: u64) -> String {
    use urlsift::driver::{self, Input, RunOptions};
    let sifter = sifter(Grammar::Rfc1738);
    let input = Input::File { path: path.to_path_buf(), shown: "f".into() };
    let opts = RunOptions { threads, part_size, ..RunOptions::default() };
    let mut out = Vec::new();
    driver::run(&[input], &sifter, &urlsift::printer::ExtractJson, opts, |_, r| {
        out.extend_from_slice(&r.out);
        assert!(r.error.is_none(), "{:?}", r.error);
        Ok(())
    })
    .expect("no output error");
    String::from_utf8(out).unwrap()
}

#[test]
fn spans_are_on_the_file_lines_when_a_file_is_cut_into_parts() {
    let dir = tempfile::tempdir().unwrap();
    let text = "pad line\nsee http://h.example/~a/~b here\n".repeat(200);
    let mbox: String = (0..100)
        .map(|i| {
            format!("From a@b Mon Jan  1 00:00:00 1996\nSubject: {i}\n\nhttp://h.example/~a/~b\n\n")
        })
        .collect();
    for (name, text) in [("m.mbox", mbox), ("t.txt", text)] {
        let path = dir.path().join(name);
        std::fs::write(&path, &text).unwrap();
        let whole = run_parts(&path, 1, 0);
        assert!(whole.contains("\"spans\":[{"), "{name}");
        let last: serde_json::Value = serde_json::from_str(whole.lines().last().unwrap()).unwrap();
        let spans = &last["diagnostics"][0]["spans"];
        assert_eq!(spans[0]["line"], spans[1]["line"], "{name}");
        assert_eq!(spans[1]["line"], last["line"], "{name}");
        let split = run_parts(&path, 2, 500);
        let diff = whole.lines().zip(split.lines()).position(|(a, b)| a != b);
        assert_eq!(diff, None, "{name}: first difference at line {diff:?} of the JSON");
        assert_eq!(split.lines().count(), whole.lines().count(), "{name}");
    }
}

#[test]
fn verbatim_says_whether_the_url_is_the_files_own_bytes() {
    let s = sifter(Grammar::Rfc1738);
    assert!(one(&s, b"see http://h.example/~a now").verbatim);
    assert!(one(&s, b"see <URL:http://h.example/~a> now").verbatim);
    // Rejoined: the text skips the line break and the indentation.
    assert!(!one(&s, b"<URL:http://h.example/~a\n   /~b>").verbatim);
    assert!(!one(&s, b"<URL: http://h.example/ ~a>").verbatim);
    // Decoded: `=7E` in the file is `~` in the URL.
    let msg = b"From: a@example.org\nContent-Transfer-Encoding: quoted-printable\n\n\
                http://h.example/=7Ea and http://h.example/~b\n";
    let mut urls = Vec::new();
    extract_mail(&s, &msg[..], InputKind::Message, |u| urls.push(u), |_| {}).unwrap();
    let verbatim: Vec<bool> = urls.iter().map(|u| u.url.verbatim).collect();
    assert_eq!(verbatim, [false, true]);
}

/// The text of `line` (1-based) from code point column `start` to before
/// `end`, as a SARIF viewer reads a region.
fn region_text(file: &str, line: u64, start: u64, end: u64) -> String {
    let line = file.lines().nth(line as usize - 1).unwrap();
    line.chars().skip(start as usize - 1).take((end - start) as usize).collect()
}

/// SARIF `fixes` replace exactly the URL's characters, and are given only
/// where the URL is the file's own bytes: not for a URL rejoined across a
/// line, decoded from an entity or quoted-printable, or placed on a long
/// line where its column in code points is not known.
#[test]
fn sarif_fixes_replace_exactly_the_url_and_only_its_own_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!("{} http://long.example:80/\n", "\u{e9}".repeat(300));
    let files: [(&str, &str); 4] = [
        (
            "a.txt",
            "caf\u{e9} \u{1f600} see http://a.example:80/x and <URL:http://b.example:80/>.\n\
             <URL:http://c.example:80/y\n   z/>\n",
        ),
        ("long.txt", &long),
        (
            "p.html",
            "<p>\u{e9} <a href=\"http://d.example:80/?a=1&amp;b=2\">d</a> \
             <a href=\"http://e.example:80/\">e</a></p>\n",
        ),
        (
            "m.eml",
            "From: a@example.org\nContent-Transfer-Encoding: quoted-printable\n\n\
             see http://f.example:80/?a=3D1 and http://g.example:80/x\n",
        ),
    ];
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    let o = urlsift(
        &["lint", "--format", "sarif", "--no-config", "--grammar", "rfc1738", "."],
        None,
        Some(dir.path()),
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut fixed = Vec::new();
    let mut unfixed = Vec::new();
    for r in doc["runs"][0]["results"].as_array().unwrap() {
        let message = r["message"]["text"].as_str().unwrap();
        let url = &message[message.rfind(" (").unwrap() + 2..message.len() - 1];
        let Some(fixes) = r["fixes"].as_array() else {
            unfixed.push(url.to_string());
            continue;
        };
        assert_eq!(fixes.len(), 1, "{r}");
        let change = &fixes[0]["artifactChanges"][0];
        let uri = change["artifactLocation"]["uri"].as_str().unwrap();
        assert_eq!(uri, r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]);
        let file = std::fs::read_to_string(dir.path().join(uri)).unwrap();
        let rep = &change["replacements"][0];
        let region = &rep["deletedRegion"];
        let n = |k: &str| region[k].as_u64().unwrap();
        assert_eq!(n("startLine"), n("endLine"), "{r}");
        let deleted = region_text(&file, n("startLine"), n("startColumn"), n("endColumn"));
        assert_eq!(deleted, url, "{r}");
        let inserted = rep["insertedContent"]["text"].as_str().unwrap();
        assert_eq!(inserted, url.replacen(":80/", "/", 1), "{r}");
        fixed.push(url.to_string());
    }
    fixed.sort();
    unfixed.sort();
    let want_fixed = [
        "http://a.example:80/x",
        "http://b.example:80/",
        "http://e.example:80/",
        "http://g.example:80/x",
    ];
    assert_eq!(fixed, want_fixed);
    let want_unfixed = [
        "http://c.example:80/yz/",
        "http://d.example:80/?a=1&b=2",
        "http://f.example:80/?a=1",
        "http://long.example:80/",
    ];
    assert_eq!(unfixed, want_unfixed);
}
