//! The Markdown and HTML readers on files: fixtures written for the
//! purpose and real ones collected from this machine's documentation
//! (origins and licences in tests/data/docs/README.md), each with the URLs
//! it must give and where; and a property test of the position map.
//!
//! Each `NAME.md` or `NAME.html` under `tests/data/docs/{markdown,html}/`
//! has a `NAME.urls` beside it, one URL a line:
//! `LINE:COLUMN KIND[ code] URL`. `URLSIFT_BLESS=1` rewrites them (read
//! the diff before committing one).

use std::path::Path;

use proptest::prelude::*;
use urlsift::doc::{Format, extract_doc, read};
use urlsift::extract::{Extracted, Options, Sifter};

fn extract(format: Format, src: &[u8]) -> Vec<Extracted> {
    let sifter = Sifter::new(Options::default());
    let mut out = Vec::new();
    extract_doc(&sifter, format, src, true, |u| out.push(u));
    out
}

/// The first bytes of a URL's text in the file: the URL itself, or an
/// escape or entity that decodes to its first byte.
fn starts_url(src: &[u8], url: &Extracted) -> bool {
    let at = &src[url.start.offset as usize..];
    at.starts_with(&url.url[..1]) || at.starts_with(b"&") || at.starts_with(b"\\")
}

fn check_dir(dir: &str, format: Format, ext: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/docs").join(dir);
    let bless = std::env::var_os("URLSIFT_BLESS").is_some();
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "fixtures missing in {}", root.display());
    for path in files {
        let src = std::fs::read(&path).unwrap();
        let urls = extract(format, &src);
        let mut got = String::new();
        for u in &urls {
            assert!(
                starts_url(&src, u),
                "{}: {:?} placed at {}",
                path.display(),
                u.url,
                u.start.offset
            );
            let lines = src[..u.start.offset as usize].iter().filter(|&&b| b == b'\n').count() + 1;
            assert_eq!(u.start.line, lines as u64, "{}", path.display());
            got.push_str(&format!(
                "{}:{} {}{} {}\n",
                u.start.line,
                u.start.column,
                u.kind.as_str(),
                if u.in_code { " code" } else { "" },
                String::from_utf8_lossy(&u.url)
            ));
        }
        let want_path = path.with_extension("urls");
        if bless {
            std::fs::write(&want_path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&want_path).unwrap_or_default();
        assert_eq!(got, want, "{}", path.display());
    }
}

#[test]
fn markdown_fixtures_give_their_urls() {
    check_dir("markdown", Format::Markdown, "md");
}

#[test]
fn html_fixtures_give_their_urls() {
    check_dir("html", Format::Html, "html");
}

/// Pieces that Markdown and HTML give meaning to, to build inputs from.
const PIECES: &[&str] = &[
    "http://a.example/x",
    "ftp://f.example/a_b(c)",
    "[",
    "](",
    ")",
    "]: ",
    "![",
    "<",
    ">",
    "<URL:",
    "<http://auto.example/>",
    "&amp;",
    "&#x68;",
    "&copy",
    "&",
    "\\",
    "\\(",
    "\\_",
    "*",
    "**",
    "_",
    "`",
    "```\n",
    "    ",
    "\n",
    "\n\n",
    " ",
    "# ",
    "> ",
    "- ",
    "|",
    "|---|\n",
    "\"",
    "'",
    "=",
    "<a href=\"",
    "<img srcset='",
    "<!--",
    "-->",
    "<pre>",
    "</pre>",
    "<script>",
    "</script>",
    "<code>",
    "</code>",
    "x",
    "é",
    "\u{ff09}",
];

fn input() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        20 => (0..PIECES.len()).prop_map(|i| PIECES[i].as_bytes().to_vec()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Copied bytes keep their order, and every URL is placed at its own
    /// first byte or at the escape or entity that gives it.
    #[test]
    fn maps_are_monotonic_and_urls_start_where_placed(src in input()) {
        for format in [Format::Markdown, Format::Html] {
            let doc = read(format, &src);
            let mut last = 0;
            for (i, &t) in doc.text.iter().enumerate() {
                let s = doc.source_of(i);
                prop_assert!(s < src.len().max(1));
                // Copied bytes (not line breaks, which breaks between
                // stretches add anywhere): never backwards.
                if t != b'\n' && src.get(s) == Some(&t) && !matches!(t, b'&' | b'\\') {
                    prop_assert!(s >= last, "{:?}: text byte {} maps back to {} after {}", format, i, s, last);
                    last = s;
                }
            }
            for u in extract(format, &src) {
                prop_assert!(starts_url(&src, &u), "{:?}: {:?} at {}", format, u.url, u.start.offset);
            }
        }
    }
}
