//! Documents through the binary: the format is chosen by extension,
//! `--format-of` or urlsift.toml; URLs in code are reported by `extract`
//! with `in_code` and passed over by `lint` unless asked; templates are
//! reported and not judged. The readers themselves are tested in
//! `src/doc/` and in one `tests/docs_*.rs` file per reader.

use std::path::Path;
use std::process::{Command, Output};

fn urlsift(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_urlsift")).args(args).current_dir(dir).output().unwrap()
}

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).expect(l)).collect()
}

/// A Markdown file whose only bad URL is in a code block.
const MD: &str = "# Title\n\nSee http://a.example/ok.\n\n```\ncurl http://b.example:99999/\n```\n";

#[test]
fn code_urls_are_extracted_with_in_code_and_not_linted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), MD).unwrap();
    let o = urlsift(&["extract", "--json", "--no-config", "a.md"], dir.path());
    let rows = json_lines(&o);
    let urls: Vec<(&str, bool)> = rows
        .iter()
        .map(|r| (r["url"].as_str().unwrap(), r["in_code"].as_bool().unwrap()))
        .collect();
    assert_eq!(urls, [("http://a.example/ok", false), ("http://b.example:99999/", true)]);
    assert_eq!(rows[1]["line"], 6);
    assert_eq!(rows[1]["column"], 6);
    assert!(rows.iter().all(|r| r["notes"].is_array()));

    let o = urlsift(&["lint", "--no-config", "a.md"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    let o = urlsift(&["lint", "--no-config", "--include-code", "a.md"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("a.md:6:"));
}

#[test]
fn include_code_and_formats_come_from_the_config_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), MD).unwrap();
    // Read as plain text, the code block is prose: linted.
    let o = urlsift(&["lint", "--no-config", "notes.txt"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    // Read as Markdown, it is code: not linted.
    let o =
        urlsift(&["lint", "--no-config", "--format-of", "txt=markdown", "notes.txt"], dir.path());
    assert_eq!(o.status.code(), Some(0));
    std::fs::write(dir.path().join("urlsift.toml"), "[formats]\ntxt = \"markdown\"\n").unwrap();
    let o = urlsift(&["lint", "notes.txt"], dir.path());
    assert_eq!(o.status.code(), Some(0));
    std::fs::write(
        dir.path().join("urlsift.toml"),
        "include-code = true\n[formats]\ntxt = \"markdown\"\n",
    )
    .unwrap();
    let o = urlsift(&["lint", "notes.txt"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    // The command line's format wins over the file's.
    let o = urlsift(&["extract", "--json", "--format-of", "txt=text", "notes.txt"], dir.path());
    assert!(json_lines(&o).iter().all(|r| r["in_code"] == false));
}

#[test]
fn bad_formats_are_usage_errors_that_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let o = urlsift(&["extract", "--no-config", "--format-of", "txt=latex", "."], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"latex\" is not a format"));
    let o = urlsift(&["extract", "--no-config", "--format-of", "txt", "."], dir.path());
    assert_eq!(o.status.code(), Some(2));
    std::fs::write(dir.path().join("urlsift.toml"), "[formats]\nmd = \"nope\"\n").unwrap();
    let o = urlsift(&["extract", "."], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("urlsift.toml:2") && err.contains("md"), "{err}");
}

#[test]
fn templates_are_reported_but_not_judged() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.txt"),
        "GET https://api.example.com/repos/{owner}/{repo}\nor http://${host}:${port}/x\n",
    )
    .unwrap();
    let o = urlsift(&["extract", "--json", "--no-config", "a.txt"], dir.path());
    let rows = json_lines(&o);
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter().all(|r| r["kind"] == "template" && r["diagnostics"] == serde_json::json!([]))
    );
    let o = urlsift(&["lint", "--no-config", "a.txt"], dir.path());
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_document_is_read_whole_and_a_read_as_text_forced_input_is_not() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), MD).unwrap();
    // `--input text` reads every file as raw text: the code block is prose.
    let o = urlsift(&["extract", "--json", "--no-config", "--input", "text", "a.md"], dir.path());
    assert!(json_lines(&o).iter().all(|r| r["in_code"] == false));
    assert_eq!(json_lines(&o).len(), 2);
}
