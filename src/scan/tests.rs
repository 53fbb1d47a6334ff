//! Scanner cases as one-liners: each found URL is shown as its kind and
//! text, so a case reads as input -> what a reader expects.

use super::*;

fn scan_all(hay: &[u8]) -> Vec<Found> {
    let mut out = Vec::new();
    assert_eq!(Scanner::new().scan(hay, 0, true, &mut out), Outcome::Done);
    out
}

fn urls(hay: &str) -> Vec<String> {
    scan_all(hay.as_bytes())
        .iter()
        .map(|f| {
            let t = String::from_utf8_lossy(&f.text);
            let mark = if f.closed { "" } else { "!" };
            format!("{}:{t}{mark}", &f.kind.as_str()[..1])
        })
        .collect()
}

#[test]
fn rfc1738_appendix_examples() {
    let hay = "Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;type=d> but you \
               can probably pick it up from <URL:ftp://ds.internic.net/rfc>.  Note the warning \
               in <URL:http://ds.internic.net/instructions/overview.html#WARNING>.";
    assert_eq!(
        urls(hay),
        [
            "w:ftp://info.cern.ch/pub/www/doc;type=d",
            "w:ftp://ds.internic.net/rfc",
            "w:http://ds.internic.net/instructions/overview.html#WARNING"
        ]
    );
}

#[test]
fn rfc1738_appendix_broken_over_lines() {
    let hay = "      Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;\n      \
               type=d> but you can probably pick it up from <URL:ftp://ds.in\n      \
               ternic.net/rfc>.  Note the warning in <URL:http://ds.internic.\n      \
               net/instructions/overview.html#WARNING>.\n";
    assert_eq!(
        urls(hay),
        [
            "w:ftp://info.cern.ch/pub/www/doc;type=d",
            "w:ftp://ds.internic.net/rfc",
            "w:http://ds.internic.net/instructions/overview.html#WARNING"
        ]
    );
}

#[test]
fn every_form() {
    assert_eq!(urls("a <URL: http://x.example/> b"), ["w:http://x.example/"]);
    assert_eq!(urls("a <url:http://x.example/> b"), ["w:http://x.example/"]);
    assert_eq!(urls("see URL=<ftp://x.example/y>."), ["w:ftp://x.example/y"]);
    assert_eq!(urls("see URL:<ftp://x.example/y>."), ["w:ftp://x.example/y"]);
    assert!(urls("Format: URL:<URL> or `<URL:...>`").is_empty());
    assert_eq!(urls("see <http://x.example/y>."), ["a:http://x.example/y"]);
    assert_eq!(urls("mail <mailto:a@x.example>"), ["a:mailto:a@x.example"]);
    assert_eq!(urls("see URL:http://x.example/y."), ["p:http://x.example/y"]);
    assert_eq!(urls("see http://x.example/y."), ["b:http://x.example/y"]);
    assert_eq!(
        urls("mailto:a@x.example, news:comp.x.y"),
        ["b:mailto:a@x.example", "b:news:comp.x.y"]
    );
    assert_eq!(
        urls("news:1234@x.example mid:a@b cid:c@d file:///etc"),
        ["b:news:1234@x.example", "b:mid:a@b", "b:cid:c@d", "b:file:///etc"]
    );
}

#[test]
fn words_with_colons_are_not_urls() {
    let hay = "Note: Subject: news: we shipped at 10:30, C:\\TEMP\\X and C://x, mailto: bob, \
               news:we <Subject: x> <a:b> http:// URL: see";
    assert!(urls(hay).is_empty(), "{:?}", urls(hay));
}

#[test]
fn bare_boundaries() {
    assert_eq!(urls("(see http://x.example/a)."), ["b:http://x.example/a"]);
    assert_eq!(urls("http://w.example/Foo_(bar)."), ["b:http://w.example/Foo_(bar)"]);
    assert_eq!(urls("[t](https://x.example/p)"), ["b:https://x.example/p"]);
    assert_eq!(
        urls("[http://a.example](http://b.example)"),
        ["b:http://a.example", "b:http://b.example"]
    );
    assert_eq!(urls("<a href=\"http://x.example/q?a=1\">"), ["b:http://x.example/q?a=1"]);
    assert_eq!(urls("`http://x.example/c`"), ["b:http://x.example/c"]);
    assert_eq!(urls("'http://x.example/c'!?"), ["b:http://x.example/c"]);
    assert_eq!(urls("“http://x.example/c”"), ["b:http://x.example/c"]);
    assert_eq!(urls("http://[::1]:80/x]"), ["b:http://[::1]:80/x"]);
    assert_eq!(urls("2.http://x.example"), ["b:http://x.example"]);
    assert_eq!(urls("http://x.example/a\nb"), ["b:http://x.example/a"]);
}

#[test]
fn rejoin_removes_whitespace_and_quote_prefixes() {
    assert_eq!(urls("<URL:http://x.example/a\r\n\t  /b>"), ["w:http://x.example/a/b"]);
    assert_eq!(urls("> see <URL:http://x.example/a\n> /b>"), ["w:http://x.example/a/b"]);
    assert_eq!(urls(">> see <URL:http://x.example/a\n> > /b>"), ["w:http://x.example/a/b"]);
    assert_eq!(urls("| see <URL:http://x.example/a\n|   /b>"), ["w:http://x.example/a/b"]);
    // Without a quote prefix on the opening line, a `>` is the closer.
    assert_eq!(urls("see <URL:http://x.example/a\n/b>"), ["w:http://x.example/a/b"]);
    assert_eq!(urls("a <URL:http://x.example/a\n>\n"), ["w:http://x.example/a"]);
    // ...and with one, a line of just the prefix is blank.
    assert_eq!(urls("> a <URL:http://x.example/a\n>\n> b"), ["w:http://x.example/a!"]);
    // A break between `scheme:` and `//` inside brackets.
    assert_eq!(urls("a <http:\n  //x.example/> b"), ["a:http://x.example/"]);
    assert_eq!(urls("a URL=<http:\n//x.example/> b"), ["w:http://x.example/"]);
}

#[test]
fn hyphen_breaks_are_recorded() {
    let f = scan_all(b"<URL:http://x.example/long-\n   name.html>");
    assert_eq!(f[0].text, b"http://x.example/long-name.html");
    assert_eq!(f[0].hyphen_breaks, [21]);
    let f = scan_all(b"<URL:http://x.example/a- \r\n b>");
    assert_eq!(f[0].hyphen_breaks, [18]);
    let f = scan_all(b"<URL:http://x.example/a-b\n c>");
    assert!(f[0].hyphen_breaks.is_empty());
}

#[test]
fn unclosed_wrappers_report_their_first_token_and_resume() {
    assert_eq!(
        urls("<URL:http://x.example/a\n\nhttp://y.example"),
        ["w:http://x.example/a!", "b:http://y.example"]
    );
    assert_eq!(
        urls("<URL:http://x.example/a <URL:http://y.example/>"),
        ["w:http://x.example/a!", "w:http://y.example/"]
    );
    assert_eq!(urls("<URL:http://x.example/a."), ["w:http://x.example/a!"]);
    assert_eq!(urls("<URL:\n\n<URL:> x"), Vec::<String>::new());
    assert_eq!(urls("> <URL:http://x.example/a\n>\n> b"), ["w:http://x.example/a!"]);
}

#[test]
fn pieces_map_text_back_to_source() {
    let hay = b"ab <URL:ftp://x.ex\n   ample/p>";
    let f = &scan_all(hay)[0];
    for (t, &b) in f.text.iter().enumerate() {
        assert_eq!(hay[f.source_of(t)], b);
    }
    assert_eq!(f.start(), 8);
    assert_eq!(f.last(), hay.len() - 2);
}

#[test]
fn windows_report_need_more_inside_a_wrapper() {
    let hay = b"x http://a.example y\n<URL:http://b.example/\n";
    let mut out = Vec::new();
    let o = Scanner::new().scan(hay, 0, false, &mut out);
    assert_eq!(o, Outcome::NeedMore(21));
    assert_eq!(out.len(), 1);
}

#[test]
fn many_unclosed_openers_stay_linear_and_lose_nothing() {
    let mut hay = "<URL:".repeat(100_000);
    hay.push_str("http://z.example/");
    assert_eq!(urls(&hay), ["w:http://z.example/!"]);
}

mod prefilter {
    //! The prefilter's contract: it reports every `:` (no false negatives)
    //! and nothing else, checked against the obvious oracle.
    use super::super::colon_mask;
    use proptest::prelude::*;

    fn naive(block: &[u8]) -> u64 {
        block.iter().enumerate().filter(|(_, b)| **b == b':').fold(0, |m, (i, _)| m | 1 << i)
    }

    proptest! {
        #[test]
        fn colon_mask_is_exact(block in proptest::collection::vec(
            prop_oneof![Just(b':'), Just(b'/'), Just(0xbau8), Just(b'\n'), any::<u8>()], 0..=64)) {
            prop_assert_eq!(colon_mask(&block), naive(&block));
        }
    }

    #[test]
    fn every_position_of_a_full_block() {
        for i in 0..64 {
            let mut b = [b'a'; 64];
            b[i] = b':';
            assert_eq!(colon_mask(&b), 1 << i);
            // 0xBA differs from ':' (0x3A) only in the top bit.
            b[i] = 0xba;
            assert_eq!(colon_mask(&b), 0);
        }
    }
}

#[test]
fn unicode_spaces_end_bare_urls() {
    for sp in [
        "\u{a0}", "\u{85}", "\u{1680}", "\u{2000}", "\u{2007}", "\u{200a}", "\u{200b}", "\u{2028}",
        "\u{2029}", "\u{202f}", "\u{205f}", "\u{3000}", "\u{feff}",
    ] {
        let hay = format!("see http://x.example/a{sp}next");
        assert_eq!(urls(&hay), ["b:http://x.example/a"], "{sp:?}");
        // Sentence punctuation before it is trimmed as before any space.
        let hay = format!("see http://x.example/a.{sp}");
        assert_eq!(urls(&hay), ["b:http://x.example/a"], "{sp:?}");
    }
    assert_eq!(urls("URL:http://x.example/a\u{a0}b"), ["p:http://x.example/a"]);
    assert_eq!(
        urls("news:comp.x\u{a0}and mailto:a@b.example\u{3000}"),
        ["b:news:comp.x", "b:mailto:a@b.example"]
    );
    // Other non-ASCII stays in the URL (the validator reports it).
    assert_eq!(urls("http://x.example/caf\u{e9}\u{a0}"), ["b:http://x.example/caf\u{e9}"]);
    assert_eq!(urls("http://x.example/\u{2010}x"), ["b:http://x.example/\u{2010}x"]);
    // Invalid UTF-8 and a cut sequence at the end of input are not spaces.
    assert_eq!(scan_all(b"http://x.example/\xc2\xc2")[0].text, b"http://x.example/\xc2\xc2");
    assert_eq!(scan_all(b"http://x.example/\xe2\x80")[0].text, b"http://x.example/\xe2\x80");
}

#[test]
fn a_unicode_space_cut_by_the_window_end_needs_more() {
    let hay = b"see http://x.example/a\xe2\x80";
    let mut out = Vec::new();
    assert_eq!(Scanner::new().scan(hay, 0, false, &mut out), Outcome::NeedMore(4));
    assert!(out.is_empty());
}

#[test]
fn blanks_after_the_colon_of_a_bracketed_scheme() {
    assert_eq!(urls("<http: //x.example/>"), ["a:http://x.example/"]);
    assert_eq!(urls("<http:\t \t//x.example/>"), ["a:http://x.example/"]);
    assert_eq!(urls("> x <http: \n> //x.example/>"), ["a:http://x.example/"]);
    assert_eq!(urls("URL=<ftp:  //x.example/>"), ["w:ftp://x.example/"]);
    // Still prose: a word and a colon before a blank, with or without `<`.
    assert!(urls("Note: see <Subject: x> <mailto: a@b> <news: a.b> URL: http:x").is_empty());
    assert!(urls("Note: text").is_empty());
}

#[test]
fn windows_that_end_inside_a_line_need_more_for_what_crosses_the_end() {
    let need = |hay: &[u8]| {
        let mut out = Vec::new();
        let o = Scanner::new().scan(hay, 0, false, &mut out);
        (o, out.len())
    };
    // A bare URL, a scheme or its colon, `//` or `URL:` at the end.
    assert_eq!(need(b"a http://x.example/a http://y.ex"), (Outcome::NeedMore(21), 1));
    assert_eq!(need(b"a 2http:"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a http:/"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a <http:"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a URL=<http:"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a URL:ht"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a URL:<ht"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a news:ab,"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a news:*,"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a file:"), (Outcome::NeedMore(2), 0));
    // What the bytes at hand settle is settled.
    assert_eq!(need(b"a Note: x http:x "), (Outcome::Done, 0));
    assert_eq!(need(b"a news:* x"), (Outcome::Done, 1));
}

#[test]
fn a_resumed_scan_sees_what_one_scan_sees() {
    // A scheme cut by the window end: the next window's scan starts at
    // the cut but may reach back to where the last URL ended.
    let hay = b"see ht|tp://x.example/ <U|RL:a <|http: //y.example/>";
    let whole: Vec<u8> = hay.iter().copied().filter(|&b| b != b'|').collect();
    let cuts: Vec<usize> =
        hay.iter().enumerate().filter(|(_, b)| **b == b'|').map(|(i, _)| i).collect();
    let cuts: Vec<usize> = cuts.iter().enumerate().map(|(k, &c)| c - k).collect();
    let mut at = Resume { from: 0, floor: 0 };
    let mut out = Vec::new();
    for end in cuts.iter().copied().chain([whole.len()]) {
        let eof = end == whole.len();
        match Scanner::new().scan_from(&whole[..end], &mut at, eof, Lead::default(), &mut out) {
            Outcome::Done => assert_eq!(at.from, end),
            Outcome::NeedMore(_) => {}
        }
    }
    let texts: Vec<&[u8]> = out.iter().map(|f| &f.text[..]).collect();
    assert_eq!(texts, [&b"http://x.example/"[..], b"a", b"http://y.example/"]);
    assert_eq!(out, scan_all(&whole));
}

#[test]
fn a_window_inside_a_quoted_line_keeps_its_quote_prefix() {
    // `> > <URL:...` with the line's start dropped: the lead says there
    // were two quote characters in its leading run.
    let hay = b" <URL:http://x.example/a\n> > /b>";
    let mut out = Vec::new();
    let lead = Lead::default().after(b"> >");
    assert_eq!((lead.quotes, lead.open), (2, true));
    let mut at = Resume { from: 0, floor: 0 };
    Scanner::new().scan_from(hay, &mut at, true, lead, &mut out);
    assert_eq!(out[0].text, b"http://x.example/a/b");
    let lead = Lead::default().after(b"> x >");
    assert_eq!((lead.quotes, lead.open), (1, false));
    let lead = lead.after(b"a\n>");
    assert_eq!((lead.quotes, lead.open), (1, true));
}

#[test]
fn urls_longer_than_max_url_are_cut() {
    let mut hay = b"x http://a.example/".to_vec();
    hay.resize(2 + MAX_URL + 10, b'a');
    hay.extend_from_slice(b" URL:http://b.example/");
    hay.resize(hay.len() + MAX_URL, b'b');
    let f = scan_all(&hay);
    assert_eq!(f.len(), 2);
    assert_eq!((f[0].text.len(), f[0].truncated, f[0].next), (MAX_URL, true, 2 + MAX_URL));
    assert_eq!((f[1].kind, f[1].text.len(), f[1].truncated), (Kind::Prefixed, MAX_URL, true));
    // Exactly MAX_URL bytes is not cut.
    let mut hay = b"http://a.example/".to_vec();
    hay.resize(MAX_URL, b'a');
    hay.push(b' ');
    let f = scan_all(&hay);
    assert_eq!((f[0].text.len(), f[0].truncated), (MAX_URL, false));
}

#[test]
fn wrappers_not_closed_within_max_url_are_unclosed() {
    let mut hay = b"<URL:http://a.example/x ".to_vec();
    hay.resize(MAX_URL + 10, b' ');
    hay.extend_from_slice(b"y>");
    let f = scan_all(&hay);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].text, b"http://a.example/x");
    assert!(!f[0].closed && f[0].overlong && !f[0].truncated);
    // Its first token alone runs into the cap: cut too.
    let mut hay = b"<http://a.example/".to_vec();
    hay.resize(MAX_URL + 10, b'%');
    hay.push(b'>');
    let f = scan_all(&hay);
    assert_eq!((f[0].text.len(), f[0].closed, f[0].truncated), (MAX_URL, false, true));
    // `<http:` and a megabyte of blanks is not a URL.
    let mut hay = b"<http:".to_vec();
    hay.resize(MAX_URL + 10, b' ');
    hay.extend_from_slice(b"//a.example/>");
    assert!(scan_all(&hay).is_empty());
}

#[test]
fn rejected_opaque_schemes_cost_one_pass() {
    // Each `news:` / `mailto:` here is rejected; one pass, not one per
    // candidate (a million candidates would take hours otherwise).
    for unit in ["news:x,", "mailto:x,", "news:1,news:a,", "news:*x,", "mid:a."] {
        let hay = unit.repeat(200_000);
        assert!(urls(&hay).is_empty(), "{unit}");
    }
    // ...and what the memo shortcuts still gives the same answers.
    assert_eq!(urls("news:x,news:*"), ["b:news:*"]);
    assert_eq!(urls("news:x,news:a.b"), ["b:news:x,news:a.b"]);
    assert_eq!(urls("news:1,news:a.b"), ["b:news:a.b"]);
    assert_eq!(urls("news:1,(news:a).x @"), Vec::<String>::new());
    assert_eq!(urls("mailto:x, mailto:y@z"), ["b:mailto:y@z"]);
    assert_eq!(urls("news:a)news:b.c"), ["b:news:b.c"]);
    assert_eq!(urls("news:*. news:*” news:*\u{a0}"), ["b:news:*", "b:news:*", "b:news:*"]);
    assert_eq!(urls("file:x,file:/y"), ["b:file:/y"]);
}

/// Cases as `input => URLs found` (bare ones, text only).
fn check_table(cases: &[(&str, &[&str])]) {
    let mut bad = Vec::new();
    for (input, want) in cases {
        let got: Vec<String> = scan_all(input.as_bytes())
            .iter()
            .map(|f| String::from_utf8_lossy(&f.text).into_owned())
            .collect();
        if got != *want {
            bad.push(format!("{input:?}\n   got  {got:?}\n   want {want:?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn cjk_punctuation_ends_bare_urls() {
    let mut cases: Vec<(String, Vec<&str>)> = Vec::new();
    for p in [
        "）", "］", "｝", "，", "。", "、", "；", "：", "！", "？", "」", "』", "】", "〉", "》",
        "（", "「", "『", "【", "〈", "《", "〔", "〕", "〖", "〗", "〝", "〞", "＂", "＇", "＜",
        "＞", "．", "｡", "｢", "｣", "､", "｛", "［", "｟", "｠",
    ] {
        cases.push((format!("見てhttp://x.example/a{p}次の文"), vec!["http://x.example/a"]));
        cases.push((format!("（http://x.example/a/b{p}"), vec!["http://x.example/a/b"]));
    }
    let table: Vec<(&str, &[&str])> =
        cases.iter().map(|(i, w)| (i.as_str(), w.as_slice())).collect();
    check_table(&table);
    // Other CJK text stays (an IRI path); so does U+301C, a wave dash.
    check_table(&[
        ("http://x.example/日本語 x", &["http://x.example/日本語"]),
        ("http://x.example/a〜b x", &["http://x.example/a〜b"]),
        ("mailto:a@b.example。次 news:comp.x、y", &["mailto:a@b.example", "news:comp.x"]),
    ]);
}

#[test]
fn cjk_punctuation_cut_by_the_window_end_needs_more() {
    for hay in [
        &b"see http://x.example/a\xe3\x80"[..],
        b"see http://x.example/a\xef",
        b"see http://x.example/a\xef\xbc",
    ] {
        let mut out = Vec::new();
        assert_eq!(Scanner::new().scan(hay, 0, false, &mut out), Outcome::NeedMore(4), "{hay:?}");
    }
}

#[test]
fn apostrophes() {
    check_table(&[
        ("see http://x.example/it's-here now", &["http://x.example/it's-here"]),
        (
            "'http://x.example/a' and 'http://y.example/b'",
            &["http://x.example/a", "http://y.example/b"],
        ),
        ("'http://x.example/it's' x", &["http://x.example/it"]),
        ("see http://x.example/a' then", &["http://x.example/a"]),
        ("see http://x.example/a'.", &["http://x.example/a"]),
        ("see http://x.example/a'", &["http://x.example/a"]),
        ("href='http://x.example/a'>", &["http://x.example/a"]),
        ("it's at http://x.example/O'Reilly, ok", &["http://x.example/O'Reilly"]),
    ]);
}

#[test]
fn markdown_emphasis_around_bare_urls() {
    check_table(&[
        ("*http://x.example/a*", &["http://x.example/a"]),
        ("_http://x.example/a_", &["http://x.example/a"]),
        ("**http://x.example/a**", &["http://x.example/a"]),
        ("__http://x.example__", &["http://x.example"]),
        ("**http://x.example/a**.", &["http://x.example/a"]),
        ("*http://x.example/a.*", &["http://x.example/a"]),
        ("_http://x.example/a_b_ c", &["http://x.example/a_b"]),
        ("see http://x.example/a_b_ c", &["http://x.example/a_b_"]),
        ("see http://x.example/a* c", &["http://x.example/a*"]),
        ("*mailto:a@b.example*", &["mailto:a@b.example"]),
    ]);
}

#[test]
fn unmatched_closers_and_lone_openers() {
    check_table(&[
        ("{see http://x.example/a}", &["http://x.example/a"]),
        ("[see http://x.example/a] b", &["http://x.example/a"]),
        ("http://x.example/{id}/x}", &["http://x.example/{id}/x"]),
        ("http://x.example/a_(b) x", &["http://x.example/a_(b)"]),
        ("see http://x.example/a( x", &["http://x.example/a"]),
        ("see http://x.example/a[ x", &["http://x.example/a"]),
        ("see http://x.example/a{", &["http://x.example/a"]),
        ("see http://x.example/a(.", &["http://x.example/a"]),
        // A run of openers is not lone: `{{` opens a template.
        ("see http://x.example/{{ page }}", &["http://x.example/{{"]),
        ("see http://x.example/a(( x", &["http://x.example/a(("]),
        ("news:* } x", &["news:*"]),
    ]);
}

#[test]
fn glued_schemes() {
    check_table(&[
        ("EUR.https://x.example/a", &["https://x.example/a"]),
        ("websitehttps://x.example/a", &["https://x.example/a"]),
        ("Seehttp://x.example/a", &["http://x.example/a"]),
        ("Visitftp://x.example/a", &["ftp://x.example/a"]),
        ("xsftp://x.example/a", &["sftp://x.example/a"]),
        ("emailmailto:a@b.example", &["mailto:a@b.example"]),
        (
            "svn+ssh://x.example/a git+https://x.example/b",
            &["svn+ssh://x.example/a", "git+https://x.example/b"],
        ),
        ("news:comp.x snews://x.example/a", &["news:comp.x", "snews://x.example/a"]),
        ("shttp://x.example/a tftp://x.example/b", &["shttp://x.example/a", "tftp://x.example/b"]),
        (
            "myapp://x.example/a ws://x.example/ wss://x.example/",
            &["myapp://x.example/a", "ws://x.example/", "wss://x.example/"],
        ),
        (
            "HTTP://x.example/a SeeHTTPS://x.example/b",
            &["HTTP://x.example/a", "HTTPS://x.example/b"],
        ),
    ]);
    let f = scan_all(b"Seehttp://x.example/ http://y.example/");
    assert_eq!((f[0].glued, f[0].start(), f[1].glued), (true, 3, false));
}

fn joined(hay: &str) -> Vec<(String, Vec<usize>, bool)> {
    scan_all(hay.as_bytes())
        .iter()
        .map(|f| (String::from_utf8_lossy(&f.text).into_owned(), f.joins.clone(), f.join_sure))
        .collect()
}

#[test]
fn bare_urls_broken_at_the_margin_are_joined() {
    check_table(&[
        // Cut right after a delimiter, the tail alone on its line.
        ("see http://x.example/docs/\nindex.html\n", &["http://x.example/docs/index.html"]),
        ("see http://x.example/a?b=1&\nc=2 for it", &["http://x.example/a?b=1&c=2"]),
        ("see http://x.example/a-\nlong-name.\n", &["http://x.example/a-long-name"]),
        ("http://x.example/a.\nhtml\n", &["http://x.example/a.html"]),
        // A word alone after `/`, when the line was cut at the wrap width.
        (
            "Our project's long-standing documentation now lives at http://x.example/docs/\nintro\n",
            &["http://x.example/docs/intro"],
        ),
        ("http://x.example/a_\nb\r\n", &["http://x.example/a_b"]),
        ("http://x.example/a#\nsec\n", &["http://x.example/a#sec"]),
        ("http://x.example/a=\nb\n", &["http://x.example/a=b"]),
        // An escape cut in two.
        ("http://x.example/a?u=b%\n40c.example\n", &["http://x.example/a?u=b%40c.example"]),
        ("http://x.example/a?u=b%4\n0c.example\n", &["http://x.example/a?u=b%40c.example"]),
        // Quoted mail: same quote depth, the prefix is not URL text.
        ("> see http://x.example/docs/\n> index.html\n", &["http://x.example/docs/index.html"]),
        (
            "> > see http://x.example/docs/\n> >   index.html\n",
            &["http://x.example/docs/index.html"],
        ),
        // Three lines.
        ("http://x.example/aaaa/\nbbbb/\ncccc.html\n", &["http://x.example/aaaa/bbbb/cccc.html"]),
        // Emphasis and quotes still close it on the tail's line.
        ("*http://x.example/docs/\na/index.html* x", &["http://x.example/docs/a/index.html"]),
        ("'http://x.example/docs/\na/index.html' x", &["http://x.example/docs/a/index.html"]),
        ("'http://x.example/docs/\nit's' x", &["http://x.example/docs/"]),
    ]);
    assert_eq!(
        joined("see http://x.example/docs/\nindex.html\n"),
        [("http://x.example/docs/index.html".into(), vec![22], true)]
    );
    let f = scan_all(b"> see http://x.example/docs/\n>  index.html\n");
    assert_eq!(f[0].pieces[..], [Piece { text: 0, src: 6 }, Piece { text: 22, src: 32 }]);
    assert_eq!((f[0].unjoined, f[0].next), (22, 42));
}

#[test]
fn bare_urls_are_not_joined_without_strong_evidence() {
    check_table(&[
        // Not cut at a delimiter, short lines.
        ("see http://x.example/docs\nindex.html\n", &["http://x.example/docs"]),
        // A new sentence, a list item, a blank line, another quote depth.
        ("see http://x.example/docs/\nThe end.\n", &["http://x.example/docs/"]),
        ("see http://x.example/docs.\nthen more\n", &["http://x.example/docs"]),
        ("see http://x.example/docs.\nthanks\n", &["http://x.example/docs"]),
        ("see http://x.example/docs.\nThen\n", &["http://x.example/docs"]),
        ("see http://x.example/docs/\n- item\n", &["http://x.example/docs/"]),
        // An SDP field after a URL that ends a line (RFC 2326).
        (
            "a=control:rtsp://example.com/movie/\nm=video 0 RTP/AVP 31\n",
            &["rtsp://example.com/movie/"],
        ),
        // A YAML key (CPAN::Meta's `license: .../licenses/` then `meta-spec:`).
        (
            "  license: http://dev.perl.org/licenses/\nmeta-spec:\n",
            &["http://dev.perl.org/licenses/"],
        ),
        ("see http://x.example/docs/\n1. item\n", &["http://x.example/docs/"]),
        ("see http://x.example/docs/\n* item\n", &["http://x.example/docs/"]),
        ("see http://x.example/docs/\n# Title\n", &["http://x.example/docs/"]),
        ("see http://x.example/docs/\n\nindex.html\n", &["http://x.example/docs/"]),
        ("> see http://x.example/docs/\n> > index.html\n", &["http://x.example/docs/"]),
        ("> see http://x.example/docs/\nindex.html\n", &["http://x.example/docs/"]),
        // A word and more text after it: prose.
        ("see http://x.example/docs/\nand more\n", &["http://x.example/docs/"]),
        // The next line is a URL of its own.
        (
            "http://x.example/a/\nhttp://y.example/b/\n",
            &["http://x.example/a/", "http://y.example/b/"],
        ),
        (
            "http://x.example/a/\nmailto:a@b.example\n",
            &["http://x.example/a/", "mailto:a@b.example"],
        ),
        ("http://x.example/a/\n(see) x\n", &["http://x.example/a/"]),
        ("http://x.example/a/\n---\n", &["http://x.example/a/"]),
        // Something after the URL on its line.
        ("see http://x.example/docs/ x\nindex.html\n", &["http://x.example/docs/"]),
        // A word alone on the next line after `/` or a sentence's `.`, the
        // URL's line short (the manpages changelog, unzip's man page).
        (
            "    See also http://x.example/blog/ldd/\n    and\n    http://y.example/\n",
            &["http://x.example/blog/ldd/", "http://y.example/"],
        ),
        (
            "  as per http://x.example/b.cgi?bug=435648.\nmtk\n",
            &["http://x.example/b.cgi?bug=435648"],
        ),
        // (The line is 70 characters: the width does not make it a tail.)
        (
            "        as per http://bugs.x.example/cgi-bin/bugreport.cgi?bug=477402.\n    mtk\n",
            &["http://bugs.x.example/cgi-bin/bugreport.cgi?bug=477402"],
        ),
        ("  http://x.example/pub/infozip/\n  or\n", &["http://x.example/pub/infozip/"]),
        // ... and a little word, even when the line reached the margin.
        (
            "            See also http://www.x.example/blog/ldd-arbitrary-code-execution/\n            and\n",
            &["http://www.x.example/blog/ldd-arbitrary-code-execution/"],
        ),
        // Found in real mail and docs: a list number, a table cell.
        ("  https://x.example/cover/1/\n 2.b. [v11,0/6] Add\n", &["https://x.example/cover/1/"]),
        ("a  http://x.example/py3k/\ngit_   N/A\n", &["http://x.example/py3k/"]),
        ("see http://x.example/docs/\nindex.html for it\n", &["http://x.example/docs/"]),
        ("see 'http://x.example/docs/'\nindex.html\n", &["http://x.example/docs/"]),
        ("see http://x.example/docs/)\nindex.html\n", &["http://x.example/docs/"]),
    ]);
}

#[test]
fn a_cut_at_the_wrap_width_is_a_join_for_the_validator_to_settle() {
    // 72 characters, not at a delimiter: joined, but not sure.
    let line = format!("{}mailto:someone@", "x ".repeat(28));
    assert_eq!(line.len(), 71);
    let hay = format!("{line}x\nexample.org\n");
    let f = scan_all(hay.as_bytes());
    assert_eq!(f[0].text, b"mailto:someone@xexample.org");
    let hay = format!("a {line}\nexample.org\n");
    let f = scan_all(hay.as_bytes());
    assert_eq!(
        (&f[0].text[..], f[0].join_sure, f[0].unjoined),
        (&b"mailto:someone@example.org"[..], false, 15)
    );
    // As long as the line above (40 or more): the width too.
    let above = "y".repeat(45);
    let hay = format!("{above}\n{}mailto:someone@\nexample.org\n", "x ".repeat(15));
    assert_eq!(scan_all(hay.as_bytes())[0].text, b"mailto:someone@example.org");
    // Shorter than the line above, or the tail holds a colon: no join.
    let hay = format!("{above}\n{}mailto:someone@\nexample.org\n", "x ".repeat(10));
    assert_eq!(scan_all(hay.as_bytes())[0].text, b"mailto:someone@");
    let hay = format!("a {line}\nexample.org:80\n");
    assert_eq!(scan_all(hay.as_bytes())[0].text, b"mailto:someone@");
}

#[test]
fn a_join_needs_the_next_line() {
    let need = |hay: &[u8]| {
        let mut out = Vec::new();
        let o = Scanner::new().scan(hay, 0, false, &mut out);
        (o, out.len())
    };
    assert_eq!(need(b"a http://x.example/a/\n"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a http://x.example/a/\r"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a http://x.example/a/\n> "), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a http://x.example/a/\nindex.ht"), (Outcome::NeedMore(2), 0));
    assert_eq!(need(b"a http://x.example/a/\nindex x"), (Outcome::Done, 1));
    assert_eq!(need(b"a http://x.example/a/\n\n"), (Outcome::Done, 1));
}

#[test]
fn the_lead_measures_the_lines_before_the_window() {
    let lead = Lead::default().after(b"abc\r\nxy");
    assert_eq!((lead.column, lead.above), (2, 3));
    let lead = lead.after(b"z\n\xc3\xa9t\xc3\xa9");
    assert_eq!((lead.column, lead.above), (3, 3));
    let lead = lead.after(b"\n");
    assert_eq!((lead.column, lead.above), (0, 3));
}

#[test]
fn an_escape_left_undone_ends_a_bare_url() {
    assert_eq!(urls(r"'https://a.example\x07link\x1b'"), ["b:https://a.example"]);
    assert_eq!(urls(r#""https://a.example/p\n""#), ["b:https://a.example/p"]);
    assert_eq!(
        urls(r"http://a.example/\u2603 http://b.example/\u{1F600}"),
        ["b:http://a.example/", "b:http://b.example/"]
    );
    // Not an escape: the backslash stays (and is reported as unsafe).
    assert_eq!(urls(r"http://a.example/p\qx"), [r"b:http://a.example/p\qx"]);
    assert_eq!(urls(r"http://a.example/p\x4"), [r"b:http://a.example/p\x4"]);
    // A window that ends inside `\x0` cannot tell yet.
    let mut out = Vec::new();
    let hay = br"see http://a.example/p\x0";
    assert_eq!(Scanner::new().scan(hay, 0, false, &mut out), Outcome::NeedMore(4));
}

#[test]
fn a_spelled_out_mailto_is_taken_as_written() {
    assert_eq!(urls("<mailto:xcb at lists.example.org>"), ["a:mailto:xcb at lists.example.org"]);
    // The appendix's rule still joins a mailto broken over lines.
    assert_eq!(urls("<mailto:xcb@lists.\n  example.org>"), ["a:mailto:xcb@lists.example.org"]);
}

#[test]
fn a_comma_before_another_scheme_ends_a_bare_url() {
    assert_eq!(
        urls("ssl://a.example:61617,ssl://b.example:61617"),
        ["b:ssl://a.example:61617", "b:ssl://b.example:61617"]
    );
    assert_eq!(urls("http://a.example/?ids=1,2,x"), ["b:http://a.example/?ids=1,2,x"]);
    assert_eq!(urls("http://a.example/a,b:c"), ["b:http://a.example/a,b:c"]);
    let mut out = Vec::new();
    assert_eq!(
        Scanner::new().scan(b"see http://a.example/a,ht", 0, false, &mut out),
        Outcome::NeedMore(4)
    );
}

#[test]
fn a_module_path_in_angle_brackets_is_no_url() {
    assert!(urls("see L<File::Path> and <File::Temp::unlink0>").is_empty());
    assert_eq!(urls("<file:/etc/hosts>"), ["a:file:/etc/hosts"]);
}

#[test]
fn a_semicolon_after_a_web_host_ends_a_bare_url() {
    check_table(&[
        // curl's `--referer "URL;auto"`: `;auto` is curl's, not the URL's.
        (r#"--referer "https://fake.example;auto" -L"#, &["https://fake.example"]),
        ("see http://a.example:8080;then", &["http://a.example:8080"]),
        // userinfo may hold `;`, paths and queries may too.
        ("imap://u;AUTH=*@mail.example/", &["imap://u;AUTH=*@mail.example/"]),
        ("http://u;x@a.example/", &["http://u;x@a.example/"]),
        ("http://a.example/p;jsessionid=1", &["http://a.example/p;jsessionid=1"]),
        ("http://a.example?q=1;2", &["http://a.example?q=1;2"]),
        // other schemes' hosts are not DNS names: left as they are.
        ("ldap://a;b/", &["ldap://a;b/"]),
        // a wrapper says where the URL ends.
        ("<URL:https://fake.example;auto>", &["https://fake.example;auto"]),
    ]);
}

#[test]
fn a_placeholder_runs_to_its_closer() {
    check_table(&[
        ("MERGED=file://$(realpath merged/doc) next", &["file://$(realpath merged/doc)"]),
        (
            "`https://doc.rust-lang.org/${getVar(\"channel\")}/std/` x",
            &["https://doc.rust-lang.org/${getVar(\"channel\")}/std/"],
        ),
        // No closer on the line: an ordinary bracket, cut at the blank.
        ("see http://a.example/${x y\nz}", &["http://a.example/${x"]),
        ("see http://a.example/$(x y\nz)", &["http://a.example/$(x"]),
        // Without `$` a blank still ends the URL.
        ("http://a.example/(x y)", &["http://a.example/(x"]),
    ]);
}

#[test]
fn many_placeholder_openers_stay_linear() {
    // Openers with no closer: each search starts where the last one
    // stopped, and the URL is cut at MAX_URL like any other.
    let mut hay = b"http://a.example/".to_vec();
    for _ in 0..200_000 {
        hay.extend_from_slice(b"$(");
    }
    let found = scan_all(&hay);
    assert_eq!(found.len(), 1);
}

#[test]
fn a_percent_that_opens_no_escape_is_no_tail() {
    // PostScript's comments under a URL that ends a sentence (seen in
    // Debian's gdb and bzip2 manuals).
    let hay = b"% available with a FAQ at: http://scripts.sil.org/OFL.\n%%EndComments\n";
    assert_eq!(scan_all(hay)[0].text, b"http://scripts.sil.org/OFL");
    // A cut inside an escape still joins.
    let hay = b"see http://h.example/a%\n2Fb\n";
    assert_eq!(scan_all(hay)[0].text, b"http://h.example/a%2Fb");
    let hay = b"see http://h.example/a/\n%2Fb\n";
    assert_eq!(scan_all(hay)[0].text, b"http://h.example/a/%2Fb");
}

#[test]
fn an_alternation_of_schemes_is_no_url() {
    // JSON schemas' patterns (botocore), syntax lines.
    for hay in [&b"\"pattern\":\"(s3://|https://).*\""[..], b"use http://|https:// here"] {
        assert!(scan_all(hay).is_empty(), "{:?}", String::from_utf8_lossy(hay));
    }
    assert_eq!(scan_all(b"a http://h.example/a|b c")[0].text, b"http://h.example/a|b");
}
