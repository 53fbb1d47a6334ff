//! Local links (issue 21, offline): a fixture tree of Markdown, HTML and
//! reST with good and broken relative links, renamed headings, HTML
//! anchors, `file:` URLs, links that climb out of the root, symbolic
//! links, and links in code; what `lint` reports on it, exactly where, in
//! every output format, whatever the thread count.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn urlsift_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urlsift"));
    cmd.current_dir(dir).args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
    cmd.stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run urlsift");
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin.unwrap_or_default());
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

const INDEX_MD: &str = "\
# Project docs

## Getting Started

## Getting Started

Read the [guide](guide.md#install-it) and the [second start](#getting-started-1),
then the [renamed part](guide.md#old-heading) and [gone](old-guide.md).
A [page](site/page.html#intro), its [lost anchor](site/page.html#outro), and
the [built page](guide.html#usage) of guide.md. ![logo](img/logo%20v2.png)
[Up and out](../outside.md) and [root link](/guide.md) and [top](#).
[case](Guide.md) [query](guide.md?plain=1) [mail](mailto:a@example.com)
[web](https://example.com/missing.md) [link to dir](site/) [file](file:guide.md)
[bad file](file:nothere.txt) [via symlink](linked.md#usage) [dangling](dangling.md)
[as written](site/page.html#impl-From%3CT%3E) [decoded](site/page.html#caf%C3%A9)
[source lines](site/other.html#10-20) [GitHub lines](guide.md#L3-L5)

Code: `[not a link](code-span.md)` and

```
[nor this](code-block.md)
<a href=\"code-block.html\">x</a>
```

<a href=\"site/page.html#intro\">ok</a> <img src=\"img/missing.png\">
";

const GUIDE_MD: &str = "\
# Guide

## Install it

## Usage {#usage}

Back to the [index](index.md#project-docs) and [its start](index.md#getting-started).
";

const PAGE_HTML: &str = "\
<!DOCTYPE html>
<html><body>
<h1 id=\"intro\">Intro</h1>
<a name=\"legacy\"></a>
<h2 id=\"impl-From%3CT%3E\">From</h2> <h2 id=\"café\">Café</h2>
<p><a href=\"../index.md\">home</a> <a href=\"#legacy\">here</a> <a href=\"#nowhere\">x</a>
<a href=\"../guide.md#install-it\">g</a> <a href=\"other.html\">o</a></p>
<pre>&lt;a href=\"in-pre-text.html\"&gt;</pre>
<!-- <a href=\"commented.html\">c</a> -->
<script>var u = '<a href=\"in-script.html\">';</script>
</body></html>
";

const NOTES_RST: &str = "\
Notes
=====

See `the guide <guide.md>`_ and `a lost one <lost.rst>`_.

.. image:: img/logo%20v2.png

.. _target: missing-target.html

.. _alias: target_
";

/// The fixture, under a fresh directory: `docs/` and a file outside it.
fn tree() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("docs");
    std::fs::create_dir_all(d.join("site")).unwrap();
    std::fs::create_dir_all(d.join("img")).unwrap();
    std::fs::write(d.join("index.md"), INDEX_MD).unwrap();
    std::fs::write(d.join("guide.md"), GUIDE_MD).unwrap();
    std::fs::write(d.join("site/page.html"), PAGE_HTML).unwrap();
    std::fs::write(d.join("site/other.html"), "<p>x</p>").unwrap();
    std::fs::write(d.join("notes.rst"), NOTES_RST).unwrap();
    std::fs::write(d.join("img/logo v2.png"), b"png").unwrap();
    std::fs::write(t.path().join("outside.md"), "# Outside\n").unwrap();
    std::os::unix::fs::symlink("guide.md", d.join("linked.md")).unwrap();
    std::os::unix::fs::symlink("nothing-here.md", d.join("dangling.md")).unwrap();
    t
}

/// `file:line:column` of the first byte of `needle` in `text`, which must
/// hold it once.
fn at(file: &str, text: &str, needle: &str) -> String {
    let o = text.find(needle).unwrap_or_else(|| panic!("{needle} not in {file}"));
    assert_eq!(text.matches(needle).count(), 1, "{needle} is not unique in {file}");
    let line = text[..o].matches('\n').count() + 1;
    let col = o - text[..o].rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{file}:{line}:{col}")
}

/// What `lint` must report on the fixture, in output order: the place
/// of each destination's first byte, and the code.
fn expected() -> Vec<(String, &'static str)> {
    let md = |n| at("docs/index.md", INDEX_MD, n);
    let html = |n| at("docs/site/page.html", PAGE_HTML, n);
    let rst = |n| at("docs/notes.rst", NOTES_RST, n);
    vec![
        (md("guide.md#old-heading"), "fragment-missing"),
        (md("old-guide.md"), "local-link-missing"),
        (md("site/page.html#outro"), "fragment-missing"),
        (md("Guide.md"), "local-link-missing"),
        (md("file:nothere.txt"), "local-link-missing"),
        (md("dangling.md"), "local-link-missing"),
        (md("img/missing.png"), "local-link-missing"),
        (rst("lost.rst"), "local-link-missing"),
        (rst("missing-target.html"), "local-link-missing"),
        (html("#nowhere"), "fragment-missing"),
    ]
}

/// `(place, code)` of each line of `lint`'s text output.
fn reported(out: &str) -> Vec<(String, String)> {
    out.lines()
        .map(|l| {
            let (place, rest) = l.split_once(": ").unwrap();
            let code = &rest[rest.find('[').unwrap() + 1..rest.find(']').unwrap()];
            (place.to_string(), code.to_string())
        })
        .collect()
}

fn sorted(mut v: Vec<(String, String)>) -> Vec<(String, String)> {
    v.sort();
    v
}

#[test]
fn broken_links_are_reported_at_the_first_byte_of_their_destination() {
    let t = tree();
    let o = urlsift_in(t.path(), &["lint", "--no-config", "-j1", "docs"], None);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let want: Vec<(String, String)> =
        expected().into_iter().map(|(p, c)| (p, c.to_string())).collect();
    assert_eq!(sorted(reported(&out)), sorted(want), "{out}");
}

#[test]
fn messages_say_where_the_link_leads_and_why() {
    let t = tree();
    let out = stdout(&urlsift_in(t.path(), &["lint", "--no-config", "docs"], None));
    for want in [
        "`old-guide.md` leads to docs/old-guide.md, which does not exist",
        "`Guide.md` leads to docs/Guide.md, which does not exist (did you mean `guide.md`?)",
        "`guide.md#old-heading`: docs/guide.md has no heading or anchor `old-heading`",
        "`dangling.md` leads to docs/dangling.md, which does not exist",
    ] {
        assert!(out.contains(want), "{want}\n{out}");
    }
    // No root directory: a link may climb out of the tree, and the file it
    // names is there.
    assert!(!out.contains("outside.md"), "{out}");
}

#[test]
fn the_root_directory_anchors_absolute_links_and_stops_climbing() {
    let t = tree();
    let out =
        stdout(&urlsift_in(t.path(), &["lint", "--no-config", "--root-dir", "docs", "docs"], None));
    // `/guide.md` is docs/guide.md; `../outside.md` leaves docs/.
    assert!(!out.contains("`/guide.md`"), "{out}");
    let climb = "`../outside.md` climbs out of the root directory (to outside.md)";
    assert!(out.contains(climb), "{out}");
    // With the root one level up, `/guide.md` is missing there, and
    // `../outside.md` stays inside.
    let out =
        stdout(&urlsift_in(t.path(), &["lint", "--no-config", "--root-dir", ".", "docs"], None));
    assert!(out.contains("`/guide.md` leads to guide.md, which does not exist"), "{out}");
    assert!(!out.contains("outside.md"), "{out}");
    // The config file sets it too, relative to itself.
    std::fs::write(t.path().join("urlsift.toml"), "root-dir = \"docs\"\n").unwrap();
    let out = stdout(&urlsift_in(t.path(), &["lint", "docs"], None));
    assert!(!out.contains("`/guide.md`"), "{out}");
    assert!(out.contains("climbs out of the root directory"), "{out}");
}

#[test]
fn links_in_code_and_comments_are_not_checked() {
    let t = tree();
    let out = stdout(&urlsift_in(t.path(), &["lint", "--no-config", "docs"], None));
    for not in [
        "code-span",
        "code-block",
        "in-pre-text",
        "commented",
        "in-script",
        "mailto",
        "example.com",
    ] {
        assert!(!out.contains(not), "{not}\n{out}");
    }
    // Even when the URLs of code are linted.
    let out =
        stdout(&urlsift_in(t.path(), &["lint", "--no-config", "--include-code", "docs"], None));
    assert!(!out.contains("code-span") && !out.contains("code-block"), "{out}");
}

#[test]
fn the_check_can_be_turned_off_and_its_codes_silenced() {
    let t = tree();
    let o = urlsift_in(t.path(), &["lint", "--no-config", "--no-local-links", "docs"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    std::fs::write(t.path().join("urlsift.toml"), "local-links = false\n").unwrap();
    let o = urlsift_in(t.path(), &["lint", "docs"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    std::fs::remove_file(t.path().join("urlsift.toml")).unwrap();
    let o = urlsift_in(
        t.path(),
        &["lint", "--no-config", "--severity", "fragment-missing=off", "docs"],
        None,
    );
    let out = stdout(&o);
    assert!(!out.contains("fragment-missing") && out.contains("local-link-missing"), "{out}");
    // A marker on the line silences the code there, as for any finding.
    let md = "[a](gone.md) <!-- urlsift: ignore[local-link-missing] -->\n[b](gone2.md)\n";
    std::fs::write(t.path().join("docs/marked.md"), md).unwrap();
    let out = stdout(&urlsift_in(t.path(), &["lint", "--no-config", "docs/marked.md"], None));
    assert_eq!(
        reported(&out),
        [("docs/marked.md:2:5".to_string(), "local-link-missing".to_string())]
    );
}

#[test]
fn standard_input_has_no_directory() {
    let t = tree();
    let html = b"<!DOCTYPE html><a href=\"missing.html\">x</a> <a href=\"#nowhere\">y</a>";
    let o = urlsift_in(t.path(), &["lint", "--no-config", "-"], Some(html));
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
}

#[test]
fn every_output_format_carries_the_codes() {
    let t = tree();
    let run = |f: &str| {
        stdout(&urlsift_in(t.path(), &["lint", "--no-config", "--format", f, "docs"], None))
    };
    let json = run("json");
    let rows: Vec<serde_json::Value> =
        json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), expected().len());
    let missing = rows.iter().find(|r| r["url"] == "old-guide.md").unwrap();
    assert_eq!(missing["code"], "local-link-missing");
    assert_eq!(missing["severity"], "error");
    assert_eq!(missing["kind"], "link");
    assert_eq!(missing["local_path"], "docs/old-guide.md");
    let place = |r: &serde_json::Value| format!("docs/index.md:{}:{}", r["line"], r["column"]);
    assert_eq!(place(missing), at("docs/index.md", INDEX_MD, "old-guide.md"));
    let frag = rows.iter().find(|r| r["url"] == "site/page.html#outro").unwrap();
    assert_eq!(
        (frag["code"].as_str(), frag["severity"].as_str()),
        (Some("fragment-missing"), Some("warning"))
    );

    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), expected().len());
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    for code in ["local-link-missing", "fragment-missing"] {
        let i = rules.iter().position(|r| r["id"] == code).unwrap();
        let r = results.iter().find(|r| r["ruleId"] == code).unwrap();
        assert_eq!(r["ruleIndex"].as_u64(), Some(i as u64));
    }
    let gone = results
        .iter()
        .find(|r| r["message"]["text"].as_str().unwrap().contains("old-guide.md` leads"))
        .unwrap();
    let region = &gone["locations"][0]["physicalLocation"]["region"];
    let place = format!("docs/index.md:{}:{}", region["startLine"], region["startColumn"]);
    assert_eq!(place, at("docs/index.md", INDEX_MD, "old-guide.md"));

    let gh = run("github");
    assert_eq!(gh.lines().count(), expected().len());
    let (line, col) = {
        let p = at("docs/index.md", INDEX_MD, "old-guide.md");
        let mut it = p.rsplitn(3, ':');
        let col = it.next().unwrap().to_string();
        (it.next().unwrap().to_string(), col)
    };
    let head = format!("::error file=docs/index.md,line={line},col={col},");
    assert!(
        gh.lines().any(|l| l.starts_with(&head) && l.contains("title=local-link-missing::")),
        "{gh}"
    );
    assert!(gh.contains("::warning file=docs/site/page.html,"));
}

#[test]
fn output_is_the_same_whatever_the_thread_count() {
    let t = tree();
    let run = |j: &str| {
        urlsift_in(t.path(), &["lint", "--no-config", "--format", "json", "-j", j, "docs"], None)
            .stdout
    };
    let one = run("1");
    assert!(!one.is_empty());
    for j in ["2", "4", "8"] {
        assert_eq!(run(j), one, "-j {j}");
    }
}

#[test]
fn extract_lists_relative_links_only_when_asked() {
    let t = tree();
    let plain = stdout(&urlsift_in(t.path(), &["extract", "--no-config", "docs/guide.md"], None));
    assert!(plain.is_empty(), "{plain}");
    let o = urlsift_in(t.path(), &["extract", "--no-config", "--relative", "docs/guide.md"], None);
    // Relative links are no URLs: extract found none.
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "index.md#project-docs\tdocs/index.md\nindex.md#getting-started\tdocs/index.md\n"
    );
    let o = urlsift_in(
        t.path(),
        &["extract", "--no-config", "--relative", "--json", "docs/index.md"],
        None,
    );
    let rows: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let row = |u: &str| rows.iter().find(|r| r["url"] == u).unwrap_or_else(|| panic!("{u}"));
    assert_eq!(row("img/logo%20v2.png")["local_path"], "docs/img/logo v2.png");
    assert_eq!(row("guide.md#install-it")["diagnostics"], serde_json::json!([]));
    assert_eq!(row("old-guide.md")["diagnostics"][0]["code"], "local-link-missing");
    assert_eq!(row("/guide.md")["local_path"], serde_json::Value::Null);
    assert_eq!(row("file:guide.md")["local_path"], "docs/guide.md");
    // The URLs keep their fields and have no `local_path`.
    assert!(row("https://example.com/missing.md").get("local_path").is_none());
    assert!(rows.iter().all(|r| r["url"] != "#" && r["url"] != "code-span.md"));
}
