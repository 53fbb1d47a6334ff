//! The POD, reStructuredText, troff and rendered man page readers: URLs
//! and their positions in fixtures written for the purpose and in real
//! files from a Debian system (tests/data/docs/README.md), and properties
//! of the position map on random documents.

use proptest::prelude::*;
use urlsift::doc::{Format, extract_doc, read};
use urlsift::extract::{Extracted, Options, Sifter};
use urlsift::scan::Kind;

fn data(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/data/docs/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn urls(format: Format, src: &[u8]) -> Vec<Extracted> {
    let sifter = Sifter::new(Options::default());
    let mut out = Vec::new();
    extract_doc(&sifter, format, src, true, |u| out.push(u));
    out
}

/// `src` at the URL's offset holds its first byte, or the start of the
/// escape that gave it (`\` in troff, `E<` in POD; a `mailto:` that the
/// markup implies starts at the address).
fn placed_in_file(src: &[u8], u: &Extracted) {
    let o = u.start.offset as usize;
    let want = match u.url.strip_prefix(b"mailto:") {
        Some(&[a, ..]) if src[o] != b'm' => a,
        _ => u.url[0],
    };
    assert!(
        src[o] == want || src[o] == b'\\' || src[o..].starts_with(b"E<"),
        "{:?} at {o}: file has {:?}",
        String::from_utf8_lossy(&u.url),
        String::from_utf8_lossy(&src[o..(o + 12).min(src.len())])
    );
    // Line and column agree with the offset.
    let before = &src[..o];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let column = (o - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1)) as u64 + 1;
    assert_eq!((u.start.line, u.start.column), (line, column));
}

/// A URL as a test expects it: text, line, column, kind, in code.
type Want = (&'static str, u64, u64, Kind, bool);

fn check(format: Format, path: &str, want: &[Want]) {
    let src = data(path);
    let got = urls(format, &src);
    for u in &got {
        placed_in_file(&src, u);
    }
    let got: Vec<(String, u64, u64, Kind, bool)> = got
        .iter()
        .map(|u| {
            let s = String::from_utf8_lossy(&u.url).into_owned();
            (s, u.start.line, u.start.column, u.kind, u.in_code)
        })
        .collect();
    let want: Vec<(String, u64, u64, Kind, bool)> =
        want.iter().map(|w| (w.0.to_string(), w.1, w.2, w.3, w.4)).collect();
    assert_eq!(got, want, "{path}");
}

#[test]
fn pod_links_codes_and_escapes() {
    use Kind::*;
    check(
        Format::Pod,
        "pod/links.pod",
        &[
            ("http://code.example/in-perl", 2, 10, Bare, true),
            ("https://example.org/home", 8, 9, Link, false),
            ("https://example.org/a?b=1&c=2", 8, 51, Link, false),
            ("http://example.org/a/b", 9, 12, Link, false),
            ("http://example.org/wrapped", 9, 50, Angle, false),
            ("http://code.example/c", 10, 9, Bare, true),
            ("http://code.example/cc", 10, 49, Bare, true),
            ("http://example.org/bare", 12, 1, Bare, false),
            ("http://code.example/verbatim", 14, 14, Bare, true),
            ("http://code.example/html", 18, 10, Bare, true),
            ("http://code.example/after-cut", 24, 10, Bare, true),
        ],
    );
}

#[test]
fn pod_page_names_are_never_urls() {
    let src = b"=pod\n\nSee L<File::Spec>, C<File::Find>, L<File::Spec/catfile>, \
        L<Spec|File::Spec>, F<File::Temp> and C<< File::Copy >>.\n";
    assert!(urls(Format::Pod, src).is_empty());
    // Read as prose it gives none either: `<File::Spec>` is a module path,
    // not a `file:` wrapper (POD in `#pod` comments of Perl source).
    assert!(urls(Format::Text, src).is_empty());
}

#[test]
fn pod_index_entries_and_numeric_escapes() {
    let src = b"=pod\n\nX<http://index.example/> L<Hi|http://example.org/E<0x61>>\n";
    let got = urls(Format::Pod, src);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].url, b"http://example.org/a");
    assert_eq!(got[0].start.offset, 36);
}

#[test]
fn rst_references_targets_and_literals() {
    use Kind::*;
    check(
        Format::Rst,
        "rst/links.rst",
        &[
            ("https://example.org/docs_(v2)", 4, 16, Link, false),
            ("https://example.org/only", 4, 55, Link, false),
            ("https://example.org/a/b", 6, 8, Link, false),
            ("http://code.example/literal", 7, 12, Bare, true),
            ("http://code.example/role", 7, 53, Bare, true),
            ("http://example.org/a_b", 8, 56, Bare, false),
            ("https://example.org/target/continued", 10, 13, Link, false),
            ("https://example.org/img.png", 13, 12, Link, false),
            ("https://example.org/img-target", 14, 13, Link, false),
            ("http://example.org/alt", 15, 10, Bare, false),
            ("http://code.example/literal-block", 19, 5, Bare, true),
            ("http://code.example/code-block", 23, 12, Bare, true),
            ("http://code.example/comment", 25, 19, Bare, true),
            ("http://example.org/bare", 27, 6, Bare, false),
        ],
    );
}

#[test]
fn troff_escapes_links_and_displays() {
    use Kind::*;
    check(
        Format::Troff,
        "troff/links.1",
        &[
            ("https://example.org/man-page", 5, 5, Link, false),
            ("mailto:bug-foo@example.org", 9, 5, Link, false),
            ("http://example.org/~user/a-b", 11, 6, Bare, false),
            ("http://example.org/bold", 11, 46, Bare, false),
            ("http://code.example/nf", 13, 1, Bare, true),
            ("http://code.example/ex", 16, 6, Bare, true),
            ("https://example.org/lk", 18, 5, Link, false),
            ("mailto:user@example.org", 19, 5, Link, false),
            ("http://example.org/brackets", 24, 5, Angle, false),
        ],
    );
    // A blank address gets no `mailto:` (found by the map property test:
    // the prefix was charged to a space); a quoted one starts inside the
    // quotes.
    assert!(urls(Format::Troff, b".MT \" ").is_empty());
    let src = b".MT \"  a@b.example\"\n";
    let got = urls(Format::Troff, src);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].url, b"mailto:a@b.example");
    placed_in_file(src, &got[0]);
    assert_eq!(got[0].start.offset, 7);
}

#[test]
fn rendered_man_brackets_breaks_hyphens_and_overstrike() {
    use Kind::*;
    let src = data("man/links.txt");
    assert_eq!(Format::sniff(&src), Some(Format::Man));
    check(
        Format::Man,
        "man/links.txt",
        &[
            ("https://example.org/very/long/path/index.html", 4, 30, Angle, false),
            ("http://www.example.org/", 5, 34, Angle, false),
            ("http://user@example.com:8080/", 8, 17, Angle, false),
            ("https://www.kernel.org/doc/Documentation/networking/vrf.txt", 9, 27, Bare, false),
            ("file:/cgi-bin/", 10, 42, Angle, false),
            ("http://example.org/softly", 12, 16, Bare, false),
            ("http://example.org/overstrike", 14, 21, Bare, false),
            ("http://example.org/sgr", 14, 75, Bare, false),
            // A shell continuation inside a URL is joined, one before an
            // option is not.
            (
                "https://www.googleapis.com/networkconnectivity/v1/projects/my-project/locations/global/hubs/my-hub",
                17,
                19,
                Bare,
                false,
            ),
            ("https://x.example.org/a", 19, 18, Bare, false),
        ],
    );
    // The ends are exact too: the last byte of the broken URL is on the
    // next line, before the `⟩`.
    let got = urls(Format::Man, &src);
    assert_eq!((got[0].end.line, got[0].end.column), (5, 22));
    // groff's hyphen goes; the ASCII one, written by the author, stays
    // without a second reading.
    assert!(got[4].alternatives.is_empty(), "{:?}", got[4].alternatives);
}

#[test]
fn real_pod_from_perl() {
    let src = data("pod/JustPod.pm");
    let got = urls(Format::Pod, &src);
    for u in &got {
        placed_in_file(&src, u);
        assert!(!u.url.to_ascii_lowercase().starts_with(b"file:"));
    }
    let list: Vec<(&[u8], u64, u64)> =
        got.iter().map(|u| (&u.url[..], u.start.line, u.start.column)).collect();
    assert!(list.contains(&(&b"https://github.com/theory/pod-simple/"[..], 328, 3)), "{list:?}");
    assert!(list.contains(&(&b"mailto:pod-people@perl.org"[..], 324, 3)), "{list:?}");
    // A typo in the file (`L<mailto:<bug-...>`): reported as written.
    let typo = got.iter().find(|u| u.url.starts_with(b"mailto:<")).expect("the typo");
    assert!(!typo.findings.is_empty());
}

#[test]
fn real_rst_from_a_pep() {
    let src = data("rst/pep-0258.rst");
    let got = urls(Format::Rst, &src);
    for u in &got {
        placed_in_file(&src, u);
    }
    // A target whose URI is on the next line.
    let vms = got.iter().find(|u| u.url.starts_with(b"http://www.openvms.compaq.com")).unwrap();
    assert_eq!(
        vms.url,
        b"http://www.openvms.compaq.com:8000/73final/5841/841pro_027.html#error_cond_severity"
    );
    assert_eq!((vms.start.line, vms.start.column, vms.kind), (960, 4, Kind::Link));
    assert!(got.iter().all(|u| !u.url.ends_with(b"`_")));
}

#[test]
fn real_troff_pages() {
    for path in ["troff/troff.1", "troff/choom.1"] {
        let src = data(path);
        let got = urls(Format::Troff, &src);
        assert!(!got.is_empty(), "{path}");
        for u in &got {
            placed_in_file(&src, u);
            assert!(!u.url.contains(&b'\\'), "{path}: {:?}", String::from_utf8_lossy(&u.url));
        }
    }
    let src = data("troff/troff.1");
    let got = urls(Format::Troff, &src);
    let w = got.iter().find(|u| u.url == b"mailto:wl@gnu.org").expect("the .MT address");
    assert_eq!((w.start.line, w.start.column, w.kind), (613, 5, Kind::Link));
}

#[test]
fn real_rendered_pages() {
    for path in ["man/groff.1.txt", "man/groff.1.overstrike.txt", "man/uri.7.txt"] {
        let src = data(path);
        assert_eq!(Format::sniff(&src), Some(Format::Man), "{path}");
        let got = urls(Format::Man, &src);
        for u in &got {
            placed_in_file(&src, u);
            let s = String::from_utf8_lossy(&u.url);
            assert!(!s.contains(['\u{27e9}', '\u{2010}', '\u{ad}', '\x08']), "{path}: {s}");
        }
        if path.starts_with("man/groff") {
            let grap = got.iter().find(|u| u.url.starts_with(b"http://www.lunabase")).unwrap();
            assert_eq!(grap.url, b"http://www.lunabase.org/~faber/Vault/software/grap/");
            assert_eq!((grap.start.line, grap.end.line), (697, 698));
        }
    }
    let src = data("man/uri.7.txt");
    let got = urls(Format::Man, &src);
    let fred = got.iter().find(|u| u.url.starts_with(b"http://fred")).unwrap();
    assert_eq!(fred.url, b"http://fred:fredpassword@example.com:8080/");
}

/// Pieces of markup of each format, for random documents.
fn pieces(format: Format) -> Vec<&'static str> {
    let common = vec![
        "http://a.example/x",
        "https://b.example/",
        " ",
        "\n",
        "\n\n",
        "   ",
        "text",
        "/",
        "-",
        ".",
        "<",
        ">",
        "`",
        "\\",
        "|",
        ":",
        "_",
    ];
    let own: &[&str] = match format {
        Format::Pod => &[
            "=head1 ",
            "=cut\n",
            "=pod\n",
            "=begin html\n",
            "=end html\n",
            "=for comment ",
            "L<",
            "C<",
            "C<< ",
            " >>",
            "E<gt>",
            "E<lt>",
            "E<sol>",
            "E<0x41>",
            "X<",
            "B<",
            "Z<>",
            "|",
        ],
        Format::Rst => &[
            ".. _t: ",
            ".. image:: ",
            ".. code-block:: py\n",
            "::\n\n",
            "``",
            "`x <",
            ">`_",
            ">`__",
            ":code:`",
            ":ref:`",
            "\\ ",
            "__ ",
            ".. [1] ",
            "    ",
        ],
        Format::Troff => &[
            ".UR ",
            ".UE\n",
            ".MT ",
            ".Lk ",
            ".nf\n",
            ".fi\n",
            ".EX\n",
            ".EE\n",
            ".de X\n",
            "..\n",
            ".\\\" c",
            "\\-",
            "\\:",
            "\\fB",
            "\\fR",
            "\\(em",
            "\\(la",
            "\\(ra",
            "\\[u2010]",
            "\\e",
            "\\h'3'",
            "\\s-1",
            "\\*(lq",
            ".B ",
            ".sp\n",
            "\"",
        ],
        _ => &[
            "\u{27e8}",
            "\u{27e9}",
            "\u{2010}\n",
            "\u{ad}\n",
            "\u{2010}",
            "\x08",
            "_\x08",
            "\x1b[1m",
            "\x1b[0m",
            "       ",
            "-\n       ",
        ],
    };
    let mut v = common;
    v.extend_from_slice(own);
    v
}

fn document() -> impl Strategy<Value = (Format, Vec<u8>)> {
    prop_oneof![Just(Format::Pod), Just(Format::Rst), Just(Format::Troff), Just(Format::Man)]
        .prop_flat_map(|f| {
            let p = pieces(f);
            let n = p.len();
            (Just(f), prop::collection::vec(0..n, 0..60)).prop_map(move |(f, ix)| {
                let p = pieces(f);
                (f, ix.into_iter().flat_map(|i| p[i].bytes()).collect())
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// The map only goes forward (over all but the blank lines that part
    /// stretches, which are charged anywhere), stays in the file, and
    /// every URL is placed at its first byte or its escape's.
    #[test]
    fn maps_are_monotonic_and_urls_placed((format, src) in document()) {
        let doc = read(format, &src);
        let mut last = 0;
        for o in 0..doc.text.len() {
            let s = doc.source_of(o);
            prop_assert!(s < src.len());
            if doc.text[o] != b'\n' {
                prop_assert!(s >= last, "{format:?}: byte {o} from {s} after {last}");
                last = s;
            }
        }
        for u in urls(format, &src) {
            placed_in_file(&src, &u);
        }
    }

    /// Any bytes at all: no panic, the map stays in the file.
    #[test]
    fn arbitrary_bytes_read(src in prop::collection::vec(any::<u8>(), 0..300), f in 0usize..4) {
        let format = [Format::Pod, Format::Rst, Format::Troff, Format::Man][f];
        let doc = read(format, &src);
        for o in 0..doc.text.len() {
            prop_assert!(doc.source_of(o) < src.len());
        }
        let _ = urls(format, &src);
    }
}

#[test]
fn hostile_inputs_stay_linear() {
    let n = 1 << 20;
    let cases: Vec<(Format, Vec<u8>)> = vec![
        (Format::Pod, [&b"=pod\n\n"[..], &b"L<".repeat(n / 2)].concat()),
        (Format::Pod, [&b"=pod\n\n"[..], &b"C<< ".repeat(n / 4)].concat()),
        (Format::Rst, b"`a ".repeat(n / 3)),
        (Format::Rst, b"``a ".repeat(n / 4)),
        (Format::Troff, b"\\h'".repeat(n / 3)),
        (Format::Man, "\u{27e8}x ".repeat(n / 5).into_bytes()),
        (Format::Man, "http://a.example/\u{2010}\n".repeat(n / 20).into_bytes()),
        (Format::Man, b"x\x08".repeat(n / 2)),
    ];
    for (format, src) in cases {
        let t = std::time::Instant::now();
        let _ = urls(format, &src);
        assert!(t.elapsed().as_secs() < 10, "{format:?} took {:?}", t.elapsed());
    }
}
