//! What every document reader must keep, whatever the bytes: no panic,
//! every URL placed inside the file on the byte its text starts with (or
//! the first byte of the escape or entity that encodes it), lines and
//! columns that agree with the offsets, URLs in file order, and nothing
//! quadratic on long runs of markup. Each reader has its own tests of what
//! it reads; these hold all of them, present and future, to the contract.

use proptest::prelude::*;
use urlsift::doc::{Format, extract_doc};
use urlsift::extract::{Extracted, Options, Sifter};

/// Where each line starts, counted the way urlsift counts (LF, CRLF and
/// a lone CR end a line).
fn line_starts(src: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    for (i, &b) in src.iter().enumerate() {
        if b == b'\n' || (b == b'\r' && src.get(i + 1) != Some(&b'\n')) {
            starts.push(i + 1);
        }
    }
    starts
}

/// Line and column of offset `o`.
fn line_col(starts: &[usize], o: usize) -> (u64, u64) {
    let i = starts.partition_point(|&s| s <= o) - 1;
    (i as u64 + 1, (o - starts[i]) as u64 + 1)
}

fn check(format: Format, src: &[u8]) -> Vec<Extracted> {
    let sifter = Sifter::new(Options::default());
    let mut urls = Vec::new();
    extract_doc(&sifter, format, src, true, |u| urls.push(u));
    let starts = line_starts(src);
    let line_col = |o| line_col(&starts, o);
    let mut prev = None;
    for u in &urls {
        let ctx =
            || format!("{format:?}: {:?} in {:?}", u.url_lossy(), String::from_utf8_lossy(src));
        let (s, e) = (u.start.offset as usize, u.end.offset as usize);
        assert!(s < src.len() && e < src.len(), "outside the file: {}", ctx());
        assert!(e >= s, "ends before it starts: {}", ctx());
        assert!(prev.is_none_or(|p| s >= p), "out of file order: {}", ctx());
        prev = Some(s);
        assert_eq!(line_col(s), (u.start.line, u.start.column), "start: {}", ctx());
        assert_eq!(line_col(e), (u.end.line, u.end.column), "end: {}", ctx());
        // The first byte of the URL is the file's byte there, or the
        // first byte of the escape or entity that encodes it (`\u0041`,
        // `&#104;`, POD's `E<...>`).
        let first = u.url[0];
        assert!(
            src[s].eq_ignore_ascii_case(&first) || matches!(src[s], b'\\' | b'&' | b'E'),
            "the file's byte at the start is {:?}: {}",
            src[s] as char,
            ctx()
        );
        for f in &u.findings {
            let fs = f.start.offset as usize;
            assert!(fs < src.len(), "finding outside the file: {}", ctx());
            assert_eq!(line_col(fs), (f.start.line, f.start.column), "finding: {}", ctx());
        }
    }
    urls
}

/// Pieces that exercise every reader: markup of each format, escapes,
/// entities, brackets, quotes, line breaks, URLs, non-ASCII and invalid
/// UTF-8.
const PIECES: &[&str] = &[
    "http://a.example/x",
    "https://b.example/p?q=1&amp;r=2",
    "<URL:ftp://c.example/f>",
    "mailto:a@b.example",
    " ",
    "\n",
    "\r\n",
    "\n\n",
    "\t",
    "    ",
    "<",
    ">",
    "&amp;",
    "&lt;",
    "&gt;",
    "&#39;",
    "&#x2F;",
    "&quot;",
    "\"",
    "'",
    "\\",
    "\\\"",
    "\\n",
    "\\/",
    "\\u0041",
    "\\u{41}",
    "`",
    "```",
    "~~~",
    "*",
    "_",
    "**",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "](",
    "[x](",
    "<a href=\"",
    "<a href='",
    "\">",
    "</a>",
    "<pre>",
    "</pre>",
    "<code>",
    "<script>",
    "</script>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "L<",
    "C<",
    "E<gt>",
    "|",
    "/",
    "=head1 ",
    "=cut",
    "=pod\n\n",
    "`x <",
    ">`_",
    ".. _t: ",
    "::",
    ".. code-block:: python\n",
    ".UR ",
    ".UE",
    "\\-",
    "\\&",
    "\\fB",
    ".\\\"",
    "\u{27e8}",
    "\u{27e9}",
    "\u{2010}\n",
    "\u{ad}",
    "{\"cells\":[",
    "{\"cell_type\":\"markdown\",\"source\":[",
    "\"]}",
    "]}",
    ",",
    "#",
    "//",
    "/*",
    "*/",
    "${x}",
    "%s",
    "é",
    "\u{ff09}",
    "\u{3002}",
    "\u{fffd}",
];

fn doc() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        8 => (0..PIECES.len()).prop_map(|i| PIECES[i].as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 1..4),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_reader_keeps_the_contract(src in doc()) {
        for &format in Format::ALL {
            check(format, &src);
        }
    }
}

/// Linear time, checked by finishing: each input is 2 MB of one thing a
/// reader might scan back and forth over (an unclosed tag, link, entity,
/// string, comment), a size where a quadratic reader takes hours, so the
/// suite never ends. The answer is checked too: a run of unclosed markup
/// holds no URL but the ones written in it.
#[test]
fn long_runs_of_markup_stay_linear() {
    let units =
        ["<a href=\"", "[x](", "&amp", "\\", "L<", "`", "<!--", "\"", "\u{27e8}", "{\"a\":\""];
    for unit in units {
        let src = unit.repeat((2 << 20) / unit.len());
        for &format in Format::ALL {
            assert!(check(format, src.as_bytes()).is_empty(), "{format:?} on {unit:?}");
        }
    }
    // And with a URL in each unit: every one is found, in order.
    let unit = "<a href=\"http://a.example/\">x</a> ";
    let src = unit.repeat((2 << 20) / unit.len());
    let n = src.len() / unit.len();
    assert_eq!(check(Format::Html, src.as_bytes()).len(), n);
}
