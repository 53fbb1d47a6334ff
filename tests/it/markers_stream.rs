//! Block markers read by a streamed scan, which takes them from the colon
//! sweep (`Scanner::scan_noting`), against `extract`, which searches for
//! them: the same URLs and findings in windows of every size, with
//! markers next to URLs, inside wrappers, split across window edges and
//! in long lines cut into pieces.

use proptest::prelude::*;

use crate::invariants;

fn piece() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "urlsift: disable\n",
        "urlsift: enable\n",
        "# urlsift: disable[port-range]\n",
        "<!-- urlsift: disable[bad-escape] -->\n",
        "urlsift: enable ",
        "urlsift: disabled ",
        "urlsift:disable ",
        "urlsift: ",
        "xurlsift: disable ",
        "http://a.example:99999/%zz ",
        "http://b.example:99999/\n",
        "<URL:http://c.example:99999/ urlsift: disable>\n",
        "<URL:http://d.example/a%zz\n  urlsift: enable b>\n",
        "see <http://e.example:99999/> urlsift: ignore\n",
        "urlsift: disable http://f.example:99999/ urlsift: enable ",
        "Subject: urlsift: disable\n",
        "plain prose, no colon at all ",
        "\n",
        "\r\n",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn streamed_markers_are_the_searched_ones(
        pieces in proptest::collection::vec(piece(), 1..24),
        pad in 0usize..70,
    ) {
        // Padding moves every marker across the window edges.
        let mut text = " ".repeat(pad).into_bytes();
        for p in pieces {
            text.extend_from_slice(p.as_bytes());
        }
        invariants::check_extract(&text);
    }
}

/// A marker far along a line longer than the window, which is scanned in
/// pieces, and one in the context before a part's first line.
#[test]
fn markers_in_long_lines_and_in_context() {
    let mut text = "x".repeat(300_000).into_bytes();
    text.extend_from_slice(b" urlsift: disable http://a.example:99999/ urlsift: enable ");
    text.extend_from_slice(&"y".repeat(300_000).into_bytes());
    text.extend_from_slice(b" http://b.example:99999/\n");
    invariants::check_extract(&text);
}

/// What the property found when the sweep skipped the colons of a
/// wrapper it jumped over: the marker inside the wrapper went unread.
#[test]
fn a_marker_inside_a_wrapper_the_sweep_jumps() {
    let mut text = " ".repeat(28).into_bytes();
    text.extend_from_slice(b"<URL:http://c.example:99999/ urlsift: disable>\n");
    text.extend_from_slice(b"http://a.example:99999/%zz ");
    invariants::check_extract(&text);
}
