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
