//! Issue 4's user-facing pieces through the binary: urlsift.toml,
//! inline suppression, SARIF, GitHub annotations and `--count`.

use std::path::Path;
use std::process::{Command, Output};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_urlsift")).args(args).current_dir(dir).output().unwrap()
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
    dir
}

const DOC: &str = "a <URL:http://a.example:80/>\nb <URL:gopher://g.example/1x>\nc <URL:http://local.example/^me/>\n";

#[test]
fn config_file_is_found_in_an_ancestor_and_flags_win() {
    let t = tree(&[
        ("docs/a.txt", DOC),
        (
            "urlsift.toml",
            "fail-on = \"note\"\nignore-urls = [\"local\\\\.example\"]\n[severity]\ndefault-port = \"warning\"\n[schemes]\ndeny = [\"gopher\"]\n",
        ),
    ]);
    let docs = t.path().join("docs");
    let o = run_in(&docs, &["lint", "."]);
    let out = text(&o);
    assert!(out.contains("warning[default-port]"), "{out}");
    assert!(out.contains("error[scheme-not-allowed]"), "{out}");
    assert!(!out.contains("local.example") && !out.contains("unsafe-character"), "{out}");
    assert_eq!(o.status.code(), Some(1));
    // The command line wins over the file.
    let o = run_in(
        &docs,
        &[
            "lint",
            "--severity",
            "default-port=off",
            "--severity",
            "scheme-not-allowed=note",
            "--fail-on",
            "error",
            ".",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // --no-config reads nothing (`default-port` is a note under rfc1738
    // only).
    let o = run_in(&docs, &["lint", "--no-config", "--grammar", "rfc1738", "."]);
    let out = text(&o);
    assert!(out.contains("note[default-port]") && out.contains("unsafe-character"), "{out}");
    assert!(!out.contains("scheme-not-allowed"), "{out}");
}

#[test]
fn config_errors_name_file_line_and_key() {
    let t = tree(&[
        ("a.txt", DOC),
        ("urlsift.toml", "grammar = \"rfc1738\"\n[severity]\ndefualt-port = \"off\"\n"),
    ]);
    let o = run_in(t.path(), &["lint", "."]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("urlsift.toml:3: defualt-port"), "{err}");
    let o = run_in(t.path(), &["lint", "--config", "missing.toml", "."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.toml"));
}

#[test]
fn config_grammar_and_exclude() {
    let t = tree(&[
        ("a.txt", "<URL:http://x.example/~me/>\n"),
        ("vendor/b.txt", "<URL:http://x.example/~you/>\n"),
        ("urlsift.toml", "grammar = \"rfc3986\"\nexclude = [\"vendor/**\"]\n"),
    ]);
    let o = run_in(t.path(), &["lint", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = run_in(t.path(), &["extract", "."]);
    assert_eq!(text(&o), "http://x.example/~me/\n");
    let o = run_in(t.path(), &["lint", "--grammar", "rfc1738", "."]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn inline_markers_silence_findings() {
    let t = tree(&[(
        "a.md",
        "one <URL:http://a.example:80/> urlsift: ignore\n\
         <!-- urlsift: ignore[default-port] -->\n\
         two <URL:http://b.example:80/^x/>\n\
         three <URL:http://c.example:80/>\n\
         four <URL:http://d.example/> urlsift: ignore\n\
         five <URL:http://e.example:99999/>\n\
         # urlsift: ignore -- the example is meant\n\
         six <URL:http://f.example:99999/>\n",
    )]);
    let o = run_in(t.path(), &["lint", "--grammar", "rfc1738", "--fail-on", "note", "."]);
    let out = text(&o);
    assert!(!out.contains("a.md:1:"), "same-line marker: {out}");
    assert!(out.contains("a.md:3:") && out.contains("unsafe-character"), "{out}");
    assert!(
        !out.contains("a.md:3:30: note[default-port]"),
        "previous-line marker with a code: {out}"
    );
    assert!(out.contains("a.md:4:") && out.contains("default-port"), "{out}");
    // A marker after text covers its own line only (it used to hide the
    // next line's findings too); one that leads its line covers the next.
    assert!(out.contains("a.md:6:") && out.contains("port-range"), "trailing marker leaked: {out}");
    assert!(!out.contains("a.md:8:"), "leading marker: {out}");
}

/// Block and file markers, in plain text, Markdown (in comments) and on
/// standard input.
#[test]
fn block_and_file_markers_silence_findings() {
    let body = "a http://a.example:99999/\n\
                # urlsift: disable[port-range]\n\
                b http://b.example:99999/%zz\n\
                <!-- urlsift: enable -->\n\
                c http://c.example:99999/\n\
                urlsift: disabled is prose\n\
                d http://d.example:99999/\n\
                // urlsift: disable\n\
                e http://e.example:99999/%zz\n";
    let md =
        body.replace("# urlsift", "<!-- urlsift").replace("[port-range]\n", "[port-range] -->\n");
    let md = md.replace("// urlsift: disable\n", "<!-- urlsift: disable -->\n");
    let t = tree(&[
        ("a.txt", body),
        ("b.md", &md),
        ("c.txt", &format!("#!/bin/sh\n# urlsift: ignore-file\n{body}")),
        ("d.md", &format!("<!-- urlsift: ignore-file[port-range] -->\n\n{md}")),
    ]);
    let o = run_in(t.path(), &["lint", "--no-config", "."]);
    let out = text(&o);
    for f in ["a.txt", "b.md"] {
        for line in [1, 5, 7] {
            assert!(out.contains(&format!("{f}:{line}:")), "{f}:{line} reported: {out}");
        }
        // Line 3: the block silences `port-range` only.
        assert!(out.contains(&format!("{f}:3:")) && out.contains("bad-escape"), "{f}: {out}");
        assert!(!out.contains(&format!("{f}:3:20: error[port-range]")), "{f}: {out}");
        assert!(!out.contains(&format!("{f}:9:")), "{f}: an open block runs to the end: {out}");
    }
    assert!(!out.contains("c.txt"), "ignore-file: {out}");
    assert!(out.contains("d.md:"), "{out}");
    assert!(
        out.lines().filter(|l| l.starts_with("d.md")).all(|l| !l.contains("port-range")),
        "ignore-file with a code: {out}"
    );
    // Standard input reads them too.
    let o = run_stdin(&["lint", "--no-config", "-"], body.as_bytes());
    let out = text(&o);
    assert!(out.contains(":1:") && !out.contains(":9:") && out.contains(":7:"), "{out}");
}

#[test]
fn sarif_has_the_required_structure() {
    let t = tree(&[("a.txt", DOC)]);
    let o = run_in(
        t.path(),
        &["lint", "--no-config", "--grammar", "rfc1738", "--format", "sarif", "."],
    );
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("SARIF is one JSON document");
    assert_eq!(v["version"], "2.1.0");
    assert!(v["$schema"].as_str().unwrap().contains("sarif"));
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "urlsift");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), urlsift::diag::Code::ALL.len());
    for r in rules {
        assert!(r["id"].is_string() && r["shortDescription"]["text"].is_string());
        let id = r["id"].as_str().unwrap();
        assert!(!r["fullDescription"]["text"].as_str().unwrap().is_empty(), "{id}");
        for form in ["text", "markdown"] {
            let help = r["help"][form].as_str().unwrap_or_else(|| panic!("{id}: help.{form}"));
            assert!(help.contains(&format!("urlsift: ignore[{id}]")), "{id}: {help}");
            assert!(help.contains(&format!("urlsift explain {id}")), "{id}: {help}");
        }
        assert!(
            ["error", "warning", "note"]
                .contains(&r["defaultConfiguration"]["level"].as_str().unwrap())
        );
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{results:?}");
    for r in results {
        let rule = r["ruleId"].as_str().unwrap();
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], rule);
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().unwrap()));
        assert!(r["message"]["text"].is_string());
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "a.txt");
        let region = &loc["region"];
        assert!(region["startLine"].as_u64().unwrap() >= 1);
        assert!(region["startColumn"].as_u64().unwrap() >= 1);
        assert!(region["endColumn"].as_u64() > region["startColumn"].as_u64());
    }
    // No findings still gives a valid document.
    let t = tree(&[("ok.txt", "http://ok.example/\n")]);
    let o = run_in(t.path(), &["lint", "--format", "sarif", "."]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["runs"][0]["results"], serde_json::json!([]));
}

/// Every rule's `helpUri` is the README on the repository Cargo.toml names,
/// at an anchor that the README really has, in that code's row.
#[test]
fn sarif_help_uris_land_on_the_codes_rows_in_the_readme() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let t = tree(&[("a.txt", "http://ok.example/\n")]);
    let o = run_in(t.path(), &["lint", "--no-config", "--format", "sarif", "."]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), urlsift::diag::Code::ALL.len());
    let base = format!("{}/blob/main/README.md#", env!("CARGO_PKG_REPOSITORY"));
    assert!(base.starts_with("https://github.com/"), "{base}");
    for r in rules {
        let id = r["id"].as_str().unwrap();
        let uri = r["helpUri"].as_str().unwrap_or_else(|| panic!("{id}: no helpUri"));
        let anchor = uri.strip_prefix(&base).unwrap_or_else(|| panic!("{id}: {uri}"));
        let html = format!("<a id=\"{anchor}\"></a>");
        assert_eq!(
            readme.matches(&html).count(),
            1,
            "{id}: README.md lacks {html} (or repeats it)"
        );
        assert!(readme.contains(&format!("| {html}`{id}` |")), "{id}: {html} is not in its row");
    }
}

#[test]
fn github_annotations_and_counts() {
    let t = tree(&[("a,b.txt", DOC), ("c.txt", "http://ok.example/\n")]);
    let o = run_in(
        t.path(),
        &["lint", "--no-config", "--grammar", "rfc1738", "--format", "github", "."],
    );
    let out = text(&o);
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("::notice file=a%2Cb.txt,line=1,col=24,"), "{out}");
    assert!(out.contains("::error file=a%2Cb.txt,line=3,"), "{out}");
    let o = run_in(t.path(), &["lint", "--no-config", "--grammar", "rfc1738", "--count", "."]);
    assert_eq!(text(&o), "./a,b.txt:2\n");
    let o = run_in(t.path(), &["extract", "--count", "."]);
    assert_eq!(text(&o), "./a,b.txt:3\n./c.txt:1\n");
}

/// `--write-baseline` records today's findings; `--baseline` then fails
/// only on new ones, wherever the old ones moved to, and says how many it
/// left out.
#[test]
fn a_baseline_lets_old_findings_pass_and_new_ones_fail() {
    let t = tree(&[
        ("a.md", "old <http://a.example:99999/>\nfine <https://b.example/>\n"),
        ("b.txt", "old http://b.example:99999/\n"),
    ]);
    let o = run_in(t.path(), &["lint", "--write-baseline", "base.json", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text(&o).is_empty(), "prints no findings: {}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("2 findings recorded in base.json"), "{err}");
    let base = std::fs::read_to_string(t.path().join("base.json")).unwrap();
    assert!(base.contains("\"code\":\"port-range\"") && base.contains("a.md"), "{base}");

    // Same tree: nothing new, exit 0.
    let o = run_in(t.path(), &["lint", "--baseline", "base.json", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("2 findings known to the baseline"));

    // The old finding moves down a line, a new one arrives: only the new
    // one is reported.
    std::fs::write(
        t.path().join("a.md"),
        "moved\nold <http://a.example:99999/>\nnew <http://c.example:70000/>\n",
    )
    .unwrap();
    let o = run_in(t.path(), &["lint", "--baseline", "base.json", "."]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    assert!(out.contains("a.md:3:") && !out.contains("a.md:2:"), "{out}");

    // Without the baseline both fail; a broken baseline is an error.
    let o = run_in(t.path(), &["lint", "."]);
    assert!(text(&o).contains("a.md:2:") && text(&o).contains("a.md:3:"));
    std::fs::write(t.path().join("bad.json"), "{}").unwrap();
    let o = run_in(t.path(), &["lint", "--baseline", "bad.json", "."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.json"));
    let o = run_in(t.path(), &["lint", "--baseline", "missing.json", "."]);
    assert_eq!(o.status.code(), Some(2));
}

/// `--summary` closes a lint run with one line on standard error.
#[test]
fn lint_summary_counts_findings_by_severity() {
    let t = tree(&[
        ("a.md", "bad <http://a.example:99999/>\nuser <http://alice:Xk9p2q@b.example/>\n"),
        ("b.txt", "fine https://c.example/\n"),
    ]);
    let o = run_in(t.path(), &["lint", "--summary", "."]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("2 files and 3 URLs scanned: 3 findings (1 error, 2 warnings)"), "{err}");
    let o = run_in(t.path(), &["lint", "--summary", "b.txt"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 file and 1 URL scanned: no findings."));
    // Not asked for, and standard output is no terminal: no summary.
    let o = run_in(t.path(), &["lint", "."]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("scanned"));
}
