//! The readers of string-literal formats (JSON, JavaScript, TOML/YAML,
//! source code) and of Jupyter notebooks, on fixtures under
//! `tests/data/docs/`: which URLs come out, where they are in the file,
//! and whether they are code.

use proptest::prelude::*;
use urlsift::doc::{DocBuilder, Format, Role, extract_doc, read};
use urlsift::extract::{Extracted, Options, Sifter};
use urlsift::scan::Kind;

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/data/docs/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn urls(format: Format, src: &[u8]) -> Vec<Extracted> {
    let sifter = Sifter::new(Options::default());
    let mut out = Vec::new();
    extract_doc(&sifter, format, src, true, |u| out.push(u));
    out
}

/// Line and column of offset `o`, counted here rather than by the crate.
fn line_col(src: &[u8], o: usize) -> (u64, u64) {
    let line = src[..o].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let start = src[..o].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (line, (o - start) as u64 + 1)
}

/// Every URL starts at a byte of the file that is its first byte or the
/// backslash of the escape it was decoded from, and its line and column
/// are those of that byte.
fn check_placed(src: &[u8], got: &[Extracted]) {
    for u in got {
        let o = u.start.offset as usize;
        assert!(
            src[o] == u.url[0] || src[o] == b'\\',
            "{} placed at {:?}",
            String::from_utf8_lossy(&u.url),
            String::from_utf8_lossy(&src[o..(o + 10).min(src.len())])
        );
        assert_eq!((u.start.line, u.start.column), line_col(src, o));
    }
}

/// One expected URL: its text, a needle whose first byte (searched from
/// after the previous URL's start) is where it must be placed, and
/// whether it is code.
type Want<'a> = (&'a str, &'a str, bool);

fn check(format: Format, path: &str, want: &[Want]) {
    let src = fixture(path);
    let got = urls(format, &src);
    check_placed(&src, &got);
    let shown: Vec<String> =
        got.iter().map(|u| String::from_utf8_lossy(&u.url).into_owned()).collect();
    assert_eq!(got.len(), want.len(), "{path}: {shown:#?}");
    let mut from = 0;
    for (u, (url, needle, code)) in got.iter().zip(want) {
        let at = from
            + src[from..]
                .windows(needle.len())
                .position(|w| w == needle.as_bytes())
                .unwrap_or_else(|| panic!("{path}: needle {needle} not found"));
        assert_eq!(String::from_utf8_lossy(&u.url), *url, "{path}");
        assert_eq!(u.start.offset as usize, at, "{path}: {url}");
        assert_eq!(u.in_code, *code, "{path}: {url}");
        from = at + 1;
    }
}

#[test]
fn json_strings_are_decoded_and_kept_apart() {
    check(
        Format::Json,
        "json/escapes.json",
        &[
            ("https://x.example/a", "https://x", false),
            ("https://example.com/guide", "https://example.com/guide", false),
            ("http://example.com/x", "http:\\/", false),
            ("https://example.org/u", "\\u0068", false),
            ("https://example.net/p", "https://example.net", false),
            ("https://key.example/k", "https://key", false),
            ("https://comment.example/c", "https://comment", false),
            ("https://open.example/o", "https://open", false),
        ],
    );
    // A surrogate pair is one character, traced to its first escape.
    let src = br#"["\ud83d\ude00 x", "a\ud83d b"]"#;
    let doc = read(Format::Json, src);
    let s = String::from_utf8(doc.text.clone()).unwrap();
    assert!(s.contains("\u{1F600} x"), "{s:?}");
    assert!(s.contains("a\u{FFFD} b"), "{s:?}");
    let emoji = doc.text.iter().position(|&b| b == 0xF0).unwrap();
    assert_eq!(doc.source_of(emoji + 3), 2);
    assert!(!s.contains("x\na"), "strings run into each other: {s:?}");
}

#[test]
fn real_json() {
    check(
        Format::Json,
        "json/wadllib-root.json",
        &[
            // Every `/` of these is written `\/`.
            ("http://api.launchpad.dev/beta/people", "http:", false),
            ("http://api.launchpad.dev/beta/bugs", "http:", false),
        ],
    );
}

#[test]
fn script_strings_comments_templates_and_code() {
    check(
        Format::Script,
        "script/escapes.js",
        &[
            ("https://example.com/docs/js", "https://example.com/docs", false),
            ("https://api.example.com/v1/", "https://api", false),
            ("https://x.example/a", "https://x", false),
            ("http://${host}:${port}/path", "http://${", false),
            // The regular expression's quotes open no string.
            ("http://regex.example/", "http://regex", false),
            ("http://after.example/", "http://after", false),
            // JSON in a string: both layers of escapes undone.
            ("https://json.example/p", "https:\\\\/", false),
            ("https://block.example/b", "https://block", false),
            ("http://single.example/q", "http://single", false),
            ("http://bare.code.example/x", "http://bare", true),
            ("https://template.example/tA", "https://template", false),
        ],
    );
    let src = fixture("script/escapes.js");
    let got = urls(Format::Script, &src);
    assert_eq!(got[3].kind, Kind::Template);
    assert_eq!((got[10].start.line, got[10].start.column), (13, 1));
    // The `\u0041` is part of the URL: its last byte is the escape's `\`.
    assert_eq!((got[10].end.line, got[10].end.column), (13, 27));
}

#[test]
fn real_scripts() {
    check(
        Format::Script,
        "script/rust-book-searchindex-excerpt.js",
        &[
            (
                "https://doc.rust-lang.org/stable/book/",
                "https://doc.rust-lang.org/stable/book/",
                false,
            ),
            ("https://rust-book.cs.brown.edu", "https://rust-book", false),
        ],
    );
    let mdn = "https://developer.mozilla.org/en-US/docs/Web/JavaScript/Guide/Regular_Expressions#escaping";
    check(Format::Script, "script/sphinx-searchtools.js", &[(mdn, mdn, false)]);
}

#[test]
fn source_in_several_languages() {
    check(
        Format::Source,
        "source/escapes.py",
        &[
            ("https://example.com/py/docs", "https://example.com/py", false),
            ("https://docs.python.org/3/library/os.html", "https://docs", false),
            ("https://example.com/a", "https://example.com/a", false),
            // A raw string keeps its backslash.
            ("https://example.com/raw\\d", "https://example.com/raw", false),
            ("https://example.com/{name}/x", "https://example.com/{", false),
            // `//` is floor division in Python: the string after it is one.
            ("http://after.floor.example/", "http://after", false),
            ("https://single.example/s", "https://single", false),
            ("http://triple.example/t", "http://triple", false),
            ("http://code.example/c", "http://code", true),
        ],
    );
    check(
        Format::Source,
        "source/escapes.rs",
        &[
            ("https://docs.rs/escapes", "https://docs.rs", false),
            ("https://attr.example/a", "https://attr", false),
            // Lifetimes open no strings; `\u{41}` is decoded.
            ("https://rust.example/A", "https://rust", false),
            ("https://raw.example/r\\/x", "https://raw", false),
            ("https://multi.example/m", "https://multi", false),
            ("https://after.char.example/", "https://after", false),
            ("http://x", "http://x", false),
            ("http://code.example/c", "http://code", true),
        ],
    );
    // Adjacent literals (implicit, or joined by `+`) are one string; a
    // comma or a literal that opens a URL of its own is not a join.
    check(
        Format::Source,
        "source/concat.py",
        &[
            (
                "http://docs.example.org/datapipeline/latest/DeveloperGuide/dp-writing-pipeline-definition.html",
                "http://docs",
                false,
            ),
            ("https://plus.example/a/b.html", "https://plus", false),
            ("https://first.example/", "https://first", false),
            ("http://single.example/q", "http://single", false),
        ],
    );
    check(
        Format::Source,
        "source/escapes.c",
        &[
            ("https://example.com/c", "https://example.com/c", false),
            ("https://define.example/dA", "https://define", false),
            ("https://puts.example/p", "https://puts", false),
            ("https://eol.example/e", "https://eol", false),
        ],
    );
    check(
        Format::Source,
        "source/escapes.sh",
        &[
            ("https://example.com/install.sh", "https://example.com/install", false),
            ("https://get.example.com/", "https://get", true),
            ("https://docs.example.com/sh", "https://docs", false),
            // `#` after `/` starts no comment.
            ("http://code.example/#frag", "http://code", true),
        ],
    );
}

#[test]
fn rust_inner_attribute_is_not_a_shebang() {
    // Found in fluent-uri's src/imp.rs: read as a shell script, its
    // lifetimes opened strings and its `#[doc]` lines were comments.
    check(Format::Source, "source/inner-attribute.rs", &[("http://a.example/", "http://a", false)]);
    let doc = read(Format::Source, &fixture("source/inner-attribute.rs"));
    let text = String::from_utf8_lossy(&doc.text);
    for code in ["#![allow", "fn make_ref<'i, 'o>(x: &'i str)"] {
        assert_eq!(doc.role_at(text.find(code).unwrap()), Role::Code, "{code}");
    }
}

#[test]
fn real_source() {
    check(
        Format::Source,
        "source/colorsys.py",
        &[
            ("http://en.wikipedia.org/wiki/YIQ", "http://en.wikipedia.org/wiki/YIQ", false),
            (
                "http://en.wikipedia.org/wiki/HLS_color_space",
                "http://en.wikipedia.org/wiki/HLS",
                false,
            ),
            (
                "http://en.wikipedia.org/wiki/HSV_color_space",
                "http://en.wikipedia.org/wiki/HSV",
                false,
            ),
        ],
    );
    let bitap = "https://en.wikipedia.org/wiki/Bitap_algorithm";
    check(Format::Source, "source/memchr-shiftor.rs", &[(bitap, bitap, false)]);
    // Its code is code, its comments prose.
    let src = fixture("source/memchr-shiftor.rs");
    let doc = read(Format::Source, &src);
    let at = |needle: &[u8]| doc.text.windows(needle.len()).position(|w| w == needle).unwrap();
    assert_eq!(doc.role_at(at(b"pub struct Finder")), Role::Code);
    assert_eq!(doc.role_at(at(b"Bitap")), Role::Prose);
}

#[test]
fn config_files() {
    check(
        Format::Config,
        "config/escapes.toml",
        &[
            ("https://comment.example/c", "https://comment", false),
            ("https://example.com/tomlA", "https://example.com/toml", false),
            ("https://literal.example/l", "https://literal", false),
            // A line-ending backslash in a multi-line string eats the
            // break and the next line's indentation.
            ("https://multi.example/mcontinued", "https://multi", false),
        ],
    );
    check(
        Format::Config,
        "config/escapes.yaml",
        &[
            ("https://plain.example/y", "https://plain", false),
            ("https://quoted.example/q", "https://quoted", false),
            // Quotes inside a plain value are characters, not a string.
            ("https://notquote.example/n\\/x", "https://notquote", false),
            ("https://single.example/it", "https://single", false),
        ],
    );
    let doc = read(Format::Config, &fixture("config/escapes.yaml"));
    assert!(String::from_utf8_lossy(&doc.text).contains("'https://single.example/it's'"));
    check(
        Format::Config,
        "config/log-publish.yml",
        &[(
            "https://release-plz.dev/docs/github/quickstart#concurrency",
            "https://release-plz",
            false,
        )],
    );
    check(
        Format::Config,
        "config/tempfile-Cargo.toml",
        &[
            ("https://stebalien.com/projects/tempfile-rs/", "https://stebalien", false),
            ("https://docs.rs/tempfile", "https://docs.rs", false),
            ("https://github.com/Stebalien/tempfile", "https://github.com", false),
        ],
    );
}

#[test]
fn notebook_cells_outputs_and_positions() {
    check(
        Format::Notebook,
        "notebook/guide.ipynb",
        &[
            ("https://example.com/docs", "https://example.com/docs", false),
            ("https://example.com/guide", "https://example.com/guide", false),
            ("https://example.com/q", "https://example.com/q", false),
            // Outputs are transcripts: code. Errors, HTML renderings and
            // metadata are not read.
            ("https://files.example.com/data.csv", "https://files", true),
            ("https://plain.example/p", "https://plain", true),
            ("https://example.com/data-docs", "https://example.com/data-docs", false),
            ("https://files.example.com/data.csv", "https://files", false),
            ("https://raw.example/r", "https://raw", false),
        ],
    );
    let src = fixture("notebook/guide.ipynb");
    let got = urls(Format::Notebook, &src);
    assert_eq!((got[1].start.line, got[1].start.column), (8, 51));
    assert_eq!((got[6].start.line, got[6].start.column), (42, 14));
    // Cells are stretches of their own: the Markdown cell's last line and
    // the code cell's output do not touch.
    let doc = read(Format::Notebook, &src);
    let text = String::from_utf8_lossy(&doc.text);
    assert!(text.contains("https://example.com/q\n\n"), "{text}");
    // The code cell's code is code.
    let at = text.find("df = load").unwrap();
    assert_eq!(doc.role_at(at), Role::Code);
}

#[test]
fn nbformat_3_and_string_sources() {
    let src = br#"{"worksheets": [{"cells": [
 {"cell_type": "code", "input": ["x = 1 # http://v3.example/c\n"], "outputs": []},
 {"cell_type": "markdown", "source": "one string http://v3.example/m"}
]}], "nbformat": 3}"#;
    let got = urls(Format::Notebook, src);
    check_placed(src, &got);
    let shown: Vec<_> = got.iter().map(|u| String::from_utf8_lossy(&u.url).into_owned()).collect();
    assert_eq!(shown, ["http://v3.example/c", "http://v3.example/m"]);
    assert_eq!(got[0].start.line, 2);
    assert!(!got[0].in_code);
}

#[test]
fn hostile_inputs_stay_linear() {
    let n = 1 << 20;
    let cases: Vec<(Format, Vec<u8>)> = vec![
        (Format::Script, b"'\\".repeat(n)),
        (Format::Script, b"x = / ".repeat(n / 4)),
        (Format::Source, b"'a ".repeat(n / 2)),
        (Format::Source, [&b"#!/bin/sh\n"[..], &b"\"\\".repeat(n)].concat()),
        (Format::Json, b"[".repeat(n)),
        (Format::Notebook, b"{\"cells\":[".repeat(n / 8)),
        (Format::Config, b"a: \"".repeat(n / 4)),
        (Format::Script, b"`${".repeat(n / 3)),
    ];
    for (f, src) in cases {
        let t = std::time::Instant::now();
        let doc = read(f, &src);
        assert!(doc.text.len() <= 3 * src.len() + 2);
        assert!(t.elapsed().as_secs() < 5, "{f:?} took {:?}", t.elapsed());
    }
}

/// Pieces that make the readers' states: quotes, escapes, comments,
/// brackets, URLs.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "\"",
        "'",
        "`",
        "\\",
        "\\n",
        "\\\"",
        "\\u0068",
        "\\ud83d\\ude00",
        "\\x41",
        "\\u{41}",
        "\\/",
        "http://a.example/",
        "https://b.example/p?q=1",
        "#",
        "//",
        "/*",
        "*/",
        "\n",
        " ",
        "${",
        "}",
        "{",
        "[",
        "]",
        ":",
        ",",
        "x",
        "r#\"",
        "\"\"\"",
        "'''",
        "é",
        "\u{0}",
        "\r\n",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn maps_are_monotonic_and_urls_placed(pieces in prop::collection::vec(piece(), 0..40)) {
        let src: Vec<u8> = pieces.concat().into_bytes();
        for f in [Format::Json, Format::Script, Format::Config, Format::Source, Format::Notebook] {
            let doc = read(f, &src);
            // Readers read forward: the map never goes back.
            for o in 1..doc.text.len() {
                prop_assert!(doc.source_of(o - 1) <= doc.source_of(o), "{:?} at {}", f, o);
            }
            // A copied byte is the file's byte.
            for o in 0..doc.text.len() {
                prop_assert!(doc.source_of(o) < src.len().max(1));
            }
            let got = urls(f, &src);
            for u in &got {
                let o = u.start.offset as usize;
                prop_assert!(src[o] == u.url[0] || src[o] == b'\\', "{:?} {:?}", f, u);
                prop_assert_eq!((u.start.line, u.start.column), line_col(&src, o));
            }
        }
    }

    #[test]
    fn composing_run_by_run_equals_byte_by_byte(pieces in prop::collection::vec(piece(), 0..40)) {
        // The JSON inside a JavaScript string, read through both layers.
        let src: Vec<u8> = [&b"x = JSON.parse('"[..], pieces.concat().as_bytes(), b"')"].concat();
        let under = read(Format::Script, &src);
        let doc = read(Format::Json, &under.text);
        let mut a = DocBuilder::new(&src);
        a.append_mapped(&doc, |o| under.source_of(o));
        let mut b = DocBuilder::new(&src);
        b.append_over(&doc, &under);
        let (a, b) = (a.finish(), b.finish());
        prop_assert_eq!(&a.text, &b.text);
        prop_assert_eq!(&a.regions, &b.regions);
        for o in 0..a.text.len() {
            prop_assert_eq!(a.source_of(o), b.source_of(o), "at {}", o);
        }
    }
}
