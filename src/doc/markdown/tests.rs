use super::*;
use crate::doc::{Format, extract_doc};
use crate::extract::{Extracted, Options, Sifter};
use memchr::memmem;

fn urls(src: &[u8]) -> Vec<Extracted> {
    let sifter = Sifter::new(Options::default());
    let mut out = Vec::new();
    extract_doc(&sifter, Format::Markdown, src, true, |u| out.push(u));
    out
}

/// Each URL as (text, kind, file offset, in code).
fn show(src: &[u8]) -> Vec<(String, &'static str, u64, bool)> {
    urls(src)
        .into_iter()
        .map(|u| {
            (
                String::from_utf8_lossy(&u.url).into_owned(),
                u.kind.as_str(),
                u.start.offset,
                u.in_code,
            )
        })
        .collect()
}

/// Where `needle` first occurs in `src`: the offset a URL must have.
fn at(src: &[u8], needle: &str) -> u64 {
    memmem::find(src, needle.as_bytes()).expect(needle) as u64
}

#[test]
fn escaped_destination_is_one_link_at_its_first_byte() {
    let src = b"See [wiki](https://en.wikipedia.org/wiki/V8_\\(JavaScript_engine\\)) now.";
    let got = urls(src);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].url, b"https://en.wikipedia.org/wiki/V8_(JavaScript_engine)");
    assert_eq!(got[0].kind, Kind::Link);
    assert_eq!((got[0].start.line, got[0].start.column), (1, 12));
    assert!(got[0].findings.is_empty(), "{:?}", got[0].findings);
    // The last byte is a decoded `)`: it maps to its escape's `\`.
    assert_eq!(got[0].end.offset as usize, memmem::rfind(src, b"\\)").unwrap());
}

#[test]
fn links_images_autolinks_and_definitions() {
    let src = b"# T\n\n[a](<http://a.example/x y> \"title http://t.example/\") ![i](http://i.example/p.png)\n<http://auto.example/> <URL:http://w.example/r> <me@example.org>\n[ref] and [again][ref]\n\n[ref]: http://ref.example/\\_x\n  \"the title\"\n";
    let got = show(src);
    let want = [
        ("http://a.example/x y", "link", at(src, "http://a."), false),
        ("http://i.example/p.png", "link", at(src, "http://i."), false),
        ("http://auto.example/", "link", at(src, "http://auto"), false),
        ("http://w.example/r", "wrapped", at(src, "http://w."), false),
        ("http://ref.example/_x", "link", at(src, "http://ref"), false),
    ];
    let want: Vec<_> = want.iter().map(|w| (w.0.to_string(), w.1, w.2, w.3)).collect();
    // Titles are prose: a URL in one is found as in text.
    let title: Vec<_> = got.iter().filter(|g| g.0 == "http://t.example/").collect();
    assert_eq!(title.len(), 1);
    let rest: Vec<_> = got.iter().filter(|g| g.0 != "http://t.example/").cloned().collect();
    assert_eq!(rest, want);
}

#[test]
fn intra_doc_paths_are_not_urls() {
    let src = b"A [`Cow`](alloc::borrow::Cow) and [`get`][Yoke::get] or [b].\n\n[Yoke::get]: Yoke::get\n[b]: std::sync::Arc\n";
    assert_eq!(show(src), []);
}

#[test]
fn link_text_that_repeats_the_destination_is_not_repeated() {
    let src = b"[https://same.example/](https://same.example/) [https://a.example/](https://b.example/)\n[![b](https://img.example/b.svg)](https://ci.example/)";
    let got: Vec<String> = show(src).into_iter().map(|g| g.0).collect();
    assert_eq!(
        got,
        [
            "https://same.example/",
            "https://a.example/",
            "https://b.example/",
            "https://img.example/b.svg",
            "https://ci.example/"
        ]
    );
}

#[test]
fn text_escapes_entities_and_emphasis() {
    let src = b"Go to **http://bold.example/** or _http://em.example/a_b_, \n&lt;http://ent.example/&gt; or http://x.example/a\\_b\\_c.";
    let got = show(src);
    assert_eq!(got[0], ("http://bold.example/".into(), "bare", at(src, "http://bold"), false));
    assert_eq!(got[1], ("http://em.example/a_b".into(), "bare", at(src, "http://em"), false));
    assert_eq!(got[2], ("http://ent.example/".into(), "angle", at(src, "http://ent"), false));
    assert_eq!(got[3], ("http://x.example/a_b_c".into(), "bare", at(src, "http://x."), false));
    assert_eq!(got.len(), 4);
}

#[test]
fn wrappers_broken_across_lines_rejoin() {
    let src = b"> See <URL:http://w.example/a/\n> b/c> for more.\n";
    let got = urls(src);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].url, b"http://w.example/a/b/c");
    assert_eq!(got[0].kind, Kind::Wrapped);
    assert_eq!((got[0].start.line, got[0].start.column), (1, 12));
    assert_eq!((got[0].end.line, got[0].end.column), (2, 5));
}

#[test]
fn code_is_code_and_html_is_read_as_html() {
    let src = b"Use `curl http://span.example/` here.\n\n```sh\ncurl http://fence.example/\n```\n\n    http://indent.example/\n\n<div>\n<a href=\"http://h.example/?a=1&amp;b=2\">x</a>\n<!-- http://comment.example/ -->\n</div>\n\nInline <a href=\"http://i.example/\">i</a> and <code>http://c.example/</code> then http://after.example/\n";
    let got = show(src);
    let want = [
        ("http://span.example/", "bare", at(src, "http://span"), true),
        ("http://fence.example/", "bare", at(src, "http://fence"), true),
        ("http://indent.example/", "bare", at(src, "http://indent"), true),
        ("http://h.example/?a=1&b=2", "link", at(src, "http://h."), false),
        ("http://i.example/", "link", at(src, "http://i."), false),
        ("http://c.example/", "bare", at(src, "http://c."), true),
        ("http://after.example/", "bare", at(src, "http://after"), false),
    ];
    let want: Vec<_> = want.iter().map(|w| (w.0.to_string(), w.1, w.2, w.3)).collect();
    assert_eq!(got, want);
    // Without --include-code, code URLs are dropped.
    let sifter = Sifter::new(Options::default());
    let mut n = 0;
    extract_doc(&sifter, Format::Markdown, src, false, |u| {
        assert!(!u.in_code);
        n += 1;
    });
    assert_eq!(n, 3);
}

#[test]
fn tables_and_lists_keep_cells_apart() {
    let src = b"| a | b |\n|---|---|\n| http://t.example/ | <URL:http://u.example/ |\n| x> | y |\n\n- http://l.example/\n- next\n";
    let got = show(src);
    assert_eq!(got[0], ("http://t.example/".into(), "bare", at(src, "http://t."), false));
    // The wrapper is not closed in its cell: it does not run into the
    // next row.
    assert!(got.iter().all(|g| !g.0.contains("x>")), "{got:?}");
    assert!(got.iter().any(|g| g.0 == "http://l.example/"));
}

#[test]
fn invalid_utf8_keeps_offsets() {
    let src = b"caf\xe9 [x](http://x.example/\xff) and http://y.example/ \xc3";
    let got = show(src);
    assert_eq!(
        got.last().unwrap(),
        &("http://y.example/".into(), "bare", at(src, "http://y."), false)
    );
    assert_eq!(got[0].2, at(src, "http://x."));
}

#[test]
fn text_decoding_matches_the_parser() {
    // The reader decodes text from the file itself; it must read it as
    // the parser did.
    let src = "a\\\\b \\\\*c* &amp; &#x68; &copy; &notanentity; \\q \\* x&#0;y &#1234567; &#12345678;\n\n| a\\|b | c |\n|--|--|\n";
    let parser = Parser::new_ext(src, options());
    let mut run: Option<(Range<usize>, String)> = None;
    let mut runs = Vec::new();
    for (e, r) in parser.into_offset_iter() {
        match e {
            Event::Text(t) => match &mut run {
                Some((rr, s)) if r.start == rr.end || r.start == rr.end + 1 => {
                    rr.end = r.end;
                    s.push_str(&t);
                }
                _ => {
                    runs.extend(run.take());
                    run = Some((r, t.to_string()));
                }
            },
            _ => runs.extend(run.take()),
        }
    }
    runs.extend(run);
    assert!(runs.len() >= 3);
    for (r, want) in runs {
        let mut got = Vec::new();
        decode(&mut got, src.as_bytes(), r.clone());
        assert_eq!(String::from_utf8_lossy(&got), want, "{:?}", &src[r]);
    }
}

#[test]
fn hostile_input_stays_linear() {
    let n = 200_000;
    for unit in [&b"[a]("[..], b"![", b"<a href=\"", b"`", b"\\(", b"&amp", b"> ", b"- ", b"[x]: <"]
    {
        let src = unit.repeat(n / unit.len());
        let t = std::time::Instant::now();
        let _ = read(&src);
        assert!(t.elapsed().as_secs_f64() < 3.0, "{}", String::from_utf8_lossy(unit));
    }
}
