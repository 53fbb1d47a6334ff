//! The command-line contract, through the built binary: output formats,
//! JSON field names, exit codes, and what happens with bad input. Outside
//! tools depend on these, so each is pinned here.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn urlsift(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urlsift"));
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run urlsift");
    let mut input = child.stdin.take().unwrap();
    // A run that fails on its arguments exits without reading its input;
    // the broken pipe that causes here is not what is under test.
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

#[test]
fn extract_prints_one_url_per_line_and_exits_0() {
    let o = urlsift(
        &["extract", "-"],
        Some(b"see <URL:ftp://a.example/x\n  y> and http://b.example/."),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "ftp://a.example/xy\nhttp://b.example/\n");
}

#[test]
fn extract_exits_1_when_nothing_is_found() {
    let o = urlsift(&["extract", "-"], Some(b"Note: nothing at 10:30."));
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}

#[test]
fn extract_json_has_the_contract_fields() {
    let input = b"x\n  <URL:http://a.example/long-\n   name.html> <URL:ftp://b.example/p;type=q>";
    let o = urlsift(&["extract", "--json", "-"], Some(input));
    assert_eq!(o.status.code(), Some(0), "invalid URLs do not change extract's exit code");
    let rows = json_lines(&o);
    assert_eq!(rows.len(), 2);
    let r = &rows[0];
    assert_eq!(r["path"], "-");
    assert_eq!(r["line"], 2);
    assert_eq!(r["column"], 8);
    assert_eq!(r["end_line"], 3);
    assert_eq!(r["end_column"], 12);
    assert_eq!(r["url"], "http://a.example/long-name.html");
    assert_eq!(r["kind"], "wrapped");
    assert_eq!(r["valid"], true);
    assert_eq!(r["alternatives"], serde_json::json!(["http://a.example/longname.html"]));
    // The default profile keeps the hyphen and says nothing more;
    // rfc1738 (and rfc3986) warn.
    assert_eq!(r["diagnostics"], serde_json::json!([]));
    let strict = urlsift(&["extract", "--json", "--grammar", "rfc1738", "-"], Some(input));
    let d = &json_lines(&strict)[0]["diagnostics"][0];
    assert_eq!(d["code"], "hyphen-line-break");
    assert_eq!(d["severity"], "warning");
    assert!(d["message"].as_str().unwrap().contains("longname"));
    let r = &rows[1];
    assert_eq!(r["valid"], false);
    assert_eq!(r["diagnostics"][0]["code"], "ftp-typecode");
    assert_eq!(r["diagnostics"][0]["severity"], "error");
}

#[test]
fn kinds_are_named_as_the_contract_says() {
    let input = b"<URL:http://a.example/> URL=<http://b.example/> <http://c.example/> \
                  URL:http://d.example/ http://e.example/";
    let o = urlsift(&["extract", "--json", "-"], Some(input));
    let kinds: Vec<String> =
        json_lines(&o).iter().map(|r| r["kind"].as_str().unwrap().to_string()).collect();
    assert_eq!(kinds, ["wrapped", "wrapped", "angle", "prefixed", "bare"]);
}

#[test]
fn lint_prints_path_line_column_severity_code_message() {
    let o =
        urlsift(&["lint", "-"], Some(b"ok http://a.example/\nbad <URL:http://b.example:99999/>\n"));
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.starts_with("-:2:27: error[port-range]: "), "{out}");
    assert_eq!(out.lines().count(), 1, "no excerpt when stdout is not a terminal: {out}");
}

#[test]
fn lint_fail_on_and_severity_overrides() {
    // `default-port` is a note under rfc1738 (the modern profile leaves it off).
    let input: &[u8] = b"<URL:http://a.example:80/>\n";
    let o = urlsift(&["lint", "--grammar", "rfc1738", "-"], Some(input));
    assert_eq!(o.status.code(), Some(0), "a note does not fail by default");
    assert!(stdout(&o).contains("note[default-port]"));
    let o = urlsift(&["lint", "--grammar", "rfc1738", "--fail-on", "note", "-"], Some(input));
    assert_eq!(o.status.code(), Some(1));
    let o =
        urlsift(&["lint", "--fail-on", "note", "--severity", "default-port=off", "-"], Some(input));
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
    let o = urlsift(&["lint", "--severity", "default-port=error", "-"], Some(input));
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error[default-port]"));
    let o = urlsift(&["lint", "--severity", "no-such-code=off", "-"], Some(input));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn lint_excerpt_puts_a_caret_under_the_offending_bytes() {
    let o = urlsift(
        &["lint", "--grammar", "rfc1738", "--excerpts", "always", "-"],
        Some(b"\tsee <URL:http://x.example/~u/>\n"),
    );
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("-:1:28: error[unsafe-character]"), "{out}");
    assert_eq!(lines[1], "  | \tsee <URL:http://x.example/~u/>");
    assert_eq!(lines[2], format!("  | \t{}^", " ".repeat(26)));
}

#[test]
fn lint_json_has_one_object_per_finding() {
    let o = urlsift(&["lint", "--json", "-"], Some(b"<URL:http://u:p@a.example/>"));
    let rows = json_lines(&o);
    assert!(!rows.is_empty());
    for r in &rows {
        for k in ["path", "line", "column", "code", "severity", "message", "url"] {
            assert!(!r[k].is_null(), "{k} missing in {r}");
        }
    }
}

#[test]
fn check_validates_arguments_and_stdin() {
    let o = urlsift(&["check", "http://a.example/", "news:comp.x"], None);
    assert_eq!(o.status.code(), Some(0));
    let o = urlsift(&["check", "http://a.example/", "http://a b/"], None);
    assert_eq!(o.status.code(), Some(1));
    let o = urlsift(
        &["check", "--json", "-"],
        Some(b"ftp://a.example/x;type=z\r\nhttp://b.example/\n"),
    );
    assert_eq!(o.status.code(), Some(1));
    let rows = json_lines(&o);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["url"], "ftp://a.example/x;type=z");
    assert_eq!(rows[0]["valid"], false);
    assert_eq!(rows[0]["scheme"], "ftp");
    let d = &rows[0]["diagnostics"][0];
    assert_eq!(d["code"], "ftp-typecode");
    let (s, e) = (d["start"].as_u64().unwrap(), d["end"].as_u64().unwrap());
    assert!(s < e && e <= 24, "{d}");
    assert_eq!(rows[1]["valid"], true);
    assert_eq!(rows[1]["diagnostics"], serde_json::json!([]));
}

#[test]
fn check_without_urls_is_a_usage_error() {
    assert_eq!(urlsift(&["check"], None).status.code(), Some(2));
    assert_eq!(urlsift(&["extract", "--no-such-flag"], None).status.code(), Some(2));
}

#[test]
fn grammar_switch_changes_the_verdict_and_is_named() {
    let url = "http://a.example/~user/";
    // The default profile is modern, where `~` is unreserved (RFC 3986).
    assert_eq!(urlsift(&["check", url], None).status.code(), Some(0));
    assert_eq!(urlsift(&["check", "--grammar", "rfc1738", url], None).status.code(), Some(1));
    let o = urlsift(&["check", "--json", "--grammar", "rfc1738", url], None);
    let rows = json_lines(&o);
    let d = &rows[0]["diagnostics"][0];
    assert_eq!(d["grammar"], "rfc1738");
    assert!(d["message"].as_str().unwrap().contains("rfc3986"), "{d}");
    assert_eq!(urlsift(&["check", "--grammar", "rfc3986", url], None).status.code(), Some(0));
    let o = urlsift(&["check", "--json", "http://a.example:99999/"], None);
    assert_eq!(json_lines(&o)[0]["diagnostics"][0]["grammar"], "modern");
}

#[test]
fn explain_lists_every_code() {
    let o = urlsift(&["explain"], None);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for c in urlsift::diag::Code::ALL {
        assert!(out.contains(c.as_str()), "{c} missing");
    }
    assert_eq!(urlsift(&["explain", "nope"], None).status.code(), Some(2));
}

#[test]
fn unreadable_inputs_are_reported_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.txt");
    std::fs::write(&good, "http://a.example/\n").unwrap();
    let missing = dir.path().join("missing.txt");
    let o = urlsift(&["extract", missing.to_str().unwrap(), good.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "an input could not be read");
    assert_eq!(stdout(&o), "http://a.example/\n", "the readable file is still scanned");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("missing.txt") && err.contains("no such file"), "{err}");
}

#[test]
fn binary_files_are_skipped_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("blob.bin"), b"\0\0http://a.example/\0").unwrap();
    let d = dir.path().to_str().unwrap();
    assert_eq!(urlsift(&["extract", d], None).status.code(), Some(1));
    let o = urlsift(&["extract", "--binary", d], None);
    assert_eq!(stdout(&o), "http://a.example/\n");
}

#[test]
fn invalid_utf8_does_not_stop_or_shift_anything() {
    let o = urlsift(
        &["extract", "--json", "-"],
        Some(b"\xff\xfe caf\xe9 <URL:http://a.example/\xe9>\nhttp://b.example/"),
    );
    let rows = json_lines(&o);
    assert_eq!(rows.len(), 2);
    // Two invalid bytes, " caf", one Latin-1 byte, " <URL:": column 14.
    assert_eq!(rows[0]["column"], 14);
    assert_eq!(rows[0]["valid"], false);
    assert_eq!(rows[1]["line"], 2);
}

#[test]
fn directories_are_walked_in_path_order_respecting_ignore_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir(p.join("sub")).unwrap();
    std::fs::write(p.join("b.txt"), "http://b.example/\n").unwrap();
    std::fs::write(p.join("a.txt"), "http://a.example/\n").unwrap();
    std::fs::write(p.join("sub/c.txt"), "http://c.example/\n").unwrap();
    std::fs::write(p.join("skip.log"), "http://skip.example/\n").unwrap();
    std::fs::write(p.join(".ignore"), "*.log\n").unwrap();
    std::fs::write(p.join(".hidden.txt"), "http://hidden.example/\n").unwrap();
    let d = p.to_str().unwrap();
    let o = urlsift(&["extract", d], None);
    assert_eq!(stdout(&o), "http://a.example/\nhttp://b.example/\nhttp://c.example/\n");
    let o = urlsift(&["extract", "--no-ignore", "--hidden", "-g", "!*.txt", d], None);
    assert_eq!(stdout(&o), "http://skip.example/\n");
}

#[test]
fn output_is_identical_whatever_the_thread_count() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let c = corpus.to_str().unwrap();
    for cmd in [&["extract", "--json"][..], &["lint"][..]] {
        let one = urlsift(&[cmd, &["--threads", "1", c]].concat(), None);
        for n in ["2", "3", "8"] {
            let many = urlsift(&[cmd, &["--threads", n, c]].concat(), None);
            assert_eq!(one.stdout, many.stdout, "{cmd:?} --threads {n}");
            assert_eq!(one.status.code(), many.status.code());
        }
        assert!(!one.stdout.is_empty());
    }
}

#[test]
fn mail_input_adds_message_fields_and_reports_malformed_messages() {
    let mbox = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail/archive.mbox");
    let m = mbox.to_str().unwrap();
    let o = urlsift(&["extract", "--json", "--resolve-local", m], None);
    // A message skipped for want of a header block is content not read:
    // exit 2, the reason on stderr, everything else reported (issue 20;
    // this was exit 0 before).
    assert_eq!(o.status.code(), Some(2), "a skipped malformed message is content not read");
    let rows = json_lines(&o);
    assert!(rows.iter().all(|r| r["message_index"].is_u64() && r.get("part").is_some()));
    let header = rows.iter().find(|r| r["header"] == "List-Archive").expect("a header URL");
    assert_eq!(header["message_index"], 0);
    assert!(header["message_id"].is_string());
    let mid = rows.iter().find(|r| r["url"].as_str().unwrap().starts_with("mid:")).unwrap();
    assert_eq!(mid["resolved"]["message_index"], 0);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("archive.mbox: message 4 (line 110)"), "{err}");
    // --input text reads the same file as raw bytes: no message fields.
    let o = urlsift(&["extract", "--json", "--input", "text", m], None);
    assert!(json_lines(&o).iter().all(|r| r.get("message_index").is_none()));
}

#[test]
fn type_filters_select_and_drop_files_of_a_walk() {
    let dir = tempfile::tempdir().unwrap();
    for (name, host) in [("a.md", "a"), ("b.txt", "b"), ("c.rs", "c")] {
        std::fs::write(dir.path().join(name), format!("http://{host}.example/\n")).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["extract"];
        all.extend_from_slice(args);
        all.push(d);
        let o = urlsift(&all, None);
        (o.status.code(), stdout(&o))
    };
    assert_eq!(run(&["-t", "md"]), (Some(0), "http://a.example/\n".into()));
    assert_eq!(
        run(&["--type", "md", "--type", "txt"]),
        (Some(0), "http://a.example/\nhttp://b.example/\n".into())
    );
    assert_eq!(run(&["-T", "md"]), (Some(0), "http://b.example/\nhttp://c.example/\n".into()));
    // A file named on the command line is scanned whatever its type.
    let o = urlsift(&["extract", "-t", "md", &format!("{d}/c.rs")], None);
    assert_eq!(stdout(&o), "http://c.example/\n");
    // An unknown type is a usage error, before anything is read.
    let o = urlsift(&["extract", "-t", "nosuch", d], None);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(2), ""));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nosuch"));
}

/// On a line longer than an excerpt, the excerpt is a window of it and the
/// caret still sits under the offending bytes.
#[test]
fn lint_excerpt_of_a_long_line_is_a_window_with_the_caret_in_place() {
    let line = format!("{}http://a.example:99999/ tail\n", "word ".repeat(100));
    let o = urlsift(&["lint", "--excerpts", "always", "-"], Some(line.as_bytes()));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("-:1:518: error[port-range]"), "{out}");
    let excerpt = lines[1].strip_prefix("  | ").expect("an excerpt line");
    assert!(excerpt.len() <= 256 && excerpt.contains("http://a.example:99999/"), "{out}");
    let caret = lines[2].strip_prefix("  | ").expect("a caret line");
    let at = caret.find('^').expect("a caret");
    assert_eq!(&excerpt[at..at + 5], "99999", "{out}");
}

/// `--stats` counts URLs by scheme and kind and findings by code, on
/// standard error, most frequent first.
#[test]
fn stats_count_urls_by_scheme_and_kind_and_findings_by_code() {
    let text = b"<URL:http://a.example/> http://b.example:99999/ HTTP://c.example/\n\
                 ftp://d.example/x;type=q <mailto:e@f.example>\n";
    // Pinned to rfc1738, the profile that remarks on upper-case schemes.
    let o = urlsift(&["lint", "--grammar", "rfc1738", "--stats", "-"], Some(text));
    let err = String::from_utf8_lossy(&o.stderr);
    let line = |what: &str| {
        err.lines()
            .find_map(|l| l.strip_prefix(what))
            .unwrap_or_else(|| panic!("no {what:?} line in:\n{err}"))
            .to_string()
    };
    assert_eq!(line("urls by scheme: "), "http 3  ftp 1  mailto 1");
    assert_eq!(line("urls by kind: "), "bare 3  angle 1  wrapped 1");
    assert_eq!(line("findings by code: "), "ftp-typecode 1  port-range 1  uppercase-scheme 1");
    assert!(line("files: ").starts_with("1  bytes: "), "{err}");
}

/// `urlsift lint --json . > out.json` inside the walked tree must not read
/// its own output as it writes it (it used to, without end: 72 GB in ten
/// minutes on a 3,000-file tree). The output file is skipped with a note,
/// whether the walk meets it or it is named.
#[test]
fn the_output_file_is_never_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "see http://a.example:99999/ now\n").unwrap();
    let out_path = dir.path().join("out.json");
    for args in [
        &["extract", "--json", "--no-config", "."][..],
        &["extract", "--json", "--no-config", ".", "out.json"],
    ] {
        let out = std::fs::File::create(&out_path).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_urlsift"))
            .args(args)
            .current_dir(dir.path())
            .stdout(out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let written = std::fs::read_to_string(&out_path).unwrap();
        assert_eq!(written.lines().count(), 1, "{written}");
        assert!(written.contains("a.txt\""), "{written}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("out.json: is the file the output goes to: not read"), "{err}");
    }
}

/// Exit codes tell the truth (issue 20): a closed pipe after findings is
/// still exit 1 for `lint`; a standard error that cannot be written is no
/// panic; content skipped (a MIME subtree nested too deep, a message with
/// no header block) is exit 2 with the reason, and the rest is reported.
#[test]
fn exit_codes_survive_closed_pipes_full_stderr_and_skipped_content() {
    let dir = tempfile::tempdir().unwrap();
    // Enough findings that the output outlives a reader who reads one line.
    let text: String =
        (0..20_000).map(|i| format!("bad http://a{i}.example:99999/ here\n")).collect();
    std::fs::write(dir.path().join("a.txt"), &text).unwrap();
    let bin = env!("CARGO_BIN_EXE_urlsift");
    let sh =
        format!("'{bin}' lint --no-config a.txt | head -n 1 >/dev/null; echo ${{PIPESTATUS[0]}}");
    let o = Command::new("bash").arg("-c").arg(&sh).current_dir(dir.path()).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "1",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let sh = format!(
        "'{bin}' extract --no-config a.txt | head -n 1 >/dev/null; echo ${{PIPESTATUS[0]}}"
    );
    let o = Command::new("bash").arg("-c").arg(&sh).current_dir(dir.path()).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "0");

    if Path::new("/dev/full").exists() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = Command::new(bin)
            .args(["lint", "--no-config", "--stats", "a.txt", "missing.txt"])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "a missing file is exit 2, and no panic (101)");
    }

    let mut mail = String::from("From a@b Mon Jan  2 10:00:00 1995\nMessage-ID: <1@x>\n");
    for i in 0..40 {
        mail += &format!("Content-Type: multipart/mixed; boundary=\"b{i}\"\n\n--b{i}\n");
    }
    mail += "Content-Type: text/plain\n\nhttp://deep.example/\n";
    mail += "\nFrom a@b Mon Jan  2 10:00:00 1995\nMessage-ID: <2@x>\n\nsee http://kept.example/\n";
    std::fs::write(dir.path().join("m.mbox"), mail).unwrap();
    let o = Command::new(bin)
        .args(["extract", "--no-config", "m.mbox"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "http://kept.example/\n");
    assert!(String::from_utf8_lossy(&o.stderr).contains("MIME nesting deeper than"));
}

/// Config hardening (issue 20): a bad `exclude` glob is an error with file,
/// line and key; a `urlsift.toml` that is a directory is an error, not
/// silence; discovery stops at the repository root; a discovered config
/// that is a symbolic link is refused; messages name keys, not values.
#[test]
fn config_files_are_checked_and_found_only_inside_the_repository() {
    let bin = env!("CARGO_BIN_EXE_urlsift");
    let run =
        |dir: &Path| Command::new(bin).args(["extract", "."]).current_dir(dir).output().unwrap();
    let top = tempfile::tempdir().unwrap();
    let repo = top.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::write(repo.join("sub/a.txt"), "http://a.example/\n").unwrap();

    // Above the repository: not read.
    std::fs::write(top.path().join("urlsift.toml"), "exclude = [\"**\"]\n").unwrap();
    let o = run(&repo.join("sub"));
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "http://a.example/\n"), "{o:?}");

    std::fs::write(repo.join("urlsift.toml"), "\n\nexclude = [\"a[\"]\n").unwrap();
    let o = run(&repo.join("sub"));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("urlsift.toml:3: exclude:"), "{err}");

    std::fs::write(repo.join("urlsift.toml"), "fail-on = \"\\u001b]0;pwned\\u0007\"\n").unwrap();
    let o = run(&repo);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("fail-on") && !err.contains("pwned"), "{err}");

    std::fs::remove_file(repo.join("urlsift.toml")).unwrap();
    std::fs::create_dir(repo.join("urlsift.toml")).unwrap();
    let o = run(&repo);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a regular file"));

    std::fs::remove_dir(repo.join("urlsift.toml")).unwrap();
    std::os::unix::fs::symlink(top.path().join("urlsift.toml"), repo.join("urlsift.toml")).unwrap();
    let o = run(&repo);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a symbolic link"));
}

/// Nothing from the input reaches a terminal raw (issue 20): every C0 and
/// C1 control, DEL and the bidi controls, in URLs and in a file name,
/// through every output format but JSON and SARIF (which encode them), on
/// standard output and standard error.
#[test]
fn no_raw_control_character_reaches_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    // NUL aside: it makes the file binary (skipped); `--binary` reads it
    // in the second round.
    let mut controls: Vec<char> = (1u8..0x20).chain([0x7f]).map(char::from).collect();
    controls.extend(('\u{80}'..='\u{9f}').chain(['\u{202e}', '\u{2066}', '\u{200f}', '\u{feff}']));
    let mut text = String::new();
    for c in &controls {
        // In a wrapper, where everything up to `>` is the URL's.
        text += &format!("<URL:http://a.example/x{c}y:99999> and http://b{c}.example/\n");
    }
    let name = "evil\x1b]0;title\x07\u{202e}.txt";
    std::fs::write(dir.path().join(name), &text).unwrap();
    let bin = env!("CARGO_BIN_EXE_urlsift");
    let formats: &[&[&str]] = &[
        &["extract"],
        &["extract", "--count"],
        &["lint"],
        &["lint", "--excerpts", "always"],
        &["lint", "--excerpts", "always", "--color", "always"],
        &["lint", "--format", "github"],
        &["lint", "--count"],
        &["lint", "--stats"],
    ];
    for args in formats {
        let o = Command::new(bin)
            .args(*args)
            .args(["--no-config", ".", "missing\x1bfile"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(o.stdout.len() > 30, "{args:?}: the file was not read: {o:?}");
        for (what, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            let s = String::from_utf8_lossy(bytes);
            // Colour is ours: drop our own SGR sequences before looking.
            let s = s.replace("\x1b[0m", "").replace("\x1b[1m", "").replace("\x1b[35m", "");
            let s =
                ["\x1b[1;31m", "\x1b[1;33m", "\x1b[1;36m"].iter().fold(s, |s, c| s.replace(c, ""));
            // A tab in an excerpt lines the carets up; it drives nothing.
            let excerpt = args.contains(&"--excerpts");
            let bad = s
                .chars()
                .find(|&c| c != '\n' && !(excerpt && c == '\t') && urlsift::escape::is_unsafe(c));
            assert!(bad.is_none(), "{args:?} {what}: raw {bad:?} in {s}");
        }
    }
}

/// The long flags `urlsift COMMAND --help` lists.
fn long_flags(command: &str) -> Vec<String> {
    let help = String::from_utf8(urlsift(&[command, "--help"], None).stdout).unwrap();
    let mut flags: Vec<String> = help
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()).to_string())
        .filter(|w| w.chars().skip(2).all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

/// Completions and manual pages are generated from the flags clap parses,
/// so every flag of every command is in them.
#[test]
fn completions_and_man_pages_know_every_flag() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = urlsift(&["completions", shell], None);
        assert!(o.status.success(), "{shell}");
        let script = String::from_utf8(o.stdout).unwrap();
        for command in ["extract", "lint", "check", "explain"] {
            for flag in long_flags(command) {
                let bare = flag.trim_start_matches("--");
                assert!(script.contains(bare), "{shell} completion lacks {command} {flag}");
            }
        }
    }
    let overview = String::from_utf8(urlsift(&["man"], None).stdout).unwrap();
    assert!(overview.starts_with(".ie") && overview.contains(".TH urlsift 1"), "{overview}");
    for command in ["extract", "lint", "check", "explain"] {
        assert!(overview.contains(command), "overview lacks {command}");
        let o = urlsift(&["man", command], None);
        assert!(o.status.success());
        let page = String::from_utf8(o.stdout).unwrap();
        assert!(page.contains(&format!(".TH urlsift-{command} 1")), "{page}");
        let flags = long_flags(command);
        // The help was read right: it names `--help`, and lint has dozens.
        assert!(flags.iter().any(|f| f == "--help"), "{command}: {flags:?}");
        assert!(command != "lint" || flags.len() > 20, "{command}: {flags:?}");
        for flag in flags {
            // roff escapes each `-` of a flag as `\-`.
            let roff = flag.replace('-', "\\-");
            assert!(page.contains(&roff), "urlsift-{command}.1 lacks {flag}");
        }
    }
}

/// `--help` groups the flags by purpose and ends with examples.
#[test]
fn help_groups_flags_and_shows_examples() {
    for command in ["extract", "lint"] {
        let help = String::from_utf8(urlsift(&[command, "--help"], None).stdout).unwrap();
        let at = |h: &str| {
            help.find(&format!("\n{h}:\n")).unwrap_or_else(|| panic!("{command}: no {h}"))
        };
        assert!(at("Input") < at("Output") && at("Output") < at("Validation"), "{help}");
        assert!(at("Validation") < at("Performance") && at("Performance") < at("Examples"));
        let input = &help[at("Input")..at("Output")];
        assert!(input.contains("--glob") && !input.contains("--json"), "{input}");
    }
    let help = String::from_utf8(urlsift(&["lint", "--help"], None).stdout).unwrap();
    assert!(help.contains("--baseline .urlsift-baseline.json"), "{help}");
}

/// `explain CODE` is a page: meaning, severities, why, a live example with
/// its fix, and the three ways to silence it; `--json` gives the same.
#[test]
fn explain_pages_show_a_live_example_and_how_to_silence() {
    let page = stdout(&urlsift(&["explain", "default-port"], None));
    assert!(page.contains("Severity: off in modern, off in rfc3986, note in rfc1738"), "{page}");
    assert!(
        page.contains("http://a.example:80/") && page.contains("suggested fix: http://a.example/")
    );
    assert!(
        page.contains("urlsift: ignore[default-port]")
            && page.contains("--severity default-port=off")
    );
    let o = urlsift(&["explain", "--json"], None);
    let pages = json_lines(&o);
    assert_eq!(pages.len(), urlsift::diag::Code::ALL.len());
    // Every code but those that need a configuration, a huge input,
    // files on disk or a server has an example, and running it again
    // gives that code.
    let without: Vec<&str> = pages
        .iter()
        .filter(|p| p["example"].is_null())
        .map(|p| p["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        without,
        [
            "scheme-not-allowed",
            "url-too-long",
            "local-link-missing",
            "fragment-missing",
            "link-not-found",
            "link-http-status",
            "link-timeout",
            "link-dns-failure",
            "link-tls-failure",
            "link-refused",
            "link-protocol-error",
            "link-redirected"
        ],
        "{without:?}"
    );
    for p in pages.iter().filter(|p| p["example"]["input"] == "url") {
        let e = &p["example"];
        let o = urlsift(
            &[
                "check",
                "--json",
                "--grammar",
                e["grammar"].as_str().unwrap(),
                e["value"].as_str().unwrap(),
            ],
            None,
        );
        let codes: Vec<String> = json_lines(&o)[0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect();
        assert!(codes.iter().any(|c| c == &p["code"]), "{}: {codes:?}", p["code"]);
    }
}
