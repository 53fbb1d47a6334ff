//! Round trip: write valid URLs into prose in every form the README
//! lists, break the bracketed ones across lines in every way the RFC 1738
//! appendix allows, and extraction must give back exactly those URLs, at
//! exactly the positions they were written at, and nothing else.
//!
//! The generator (below) makes URLs of every RFC 1738 scheme that the
//! validator passes with no diagnostic at all (checked on every case:
//! a URL the validator flags is a bug in the generator or the validator).
//! The text around them is prose without `:`, so any extra URL found is
//! the scanner's invention.
//!
//! Where breaks may go is what the README promises: inside `<URL:...>`
//! anywhere (even before the URL's first byte, and before the `>`); inside
//! `URL:<...>` anywhere after the scheme's `:`; inside `<scheme:...>` and
//! `URL=<scheme:...>` between the `:` and the `//` (one break: blanks, a
//! line break or both) or anywhere after the `//`, and for `mailto:`, `news:`, `mid:` and `cid:`
//! after the body's first byte (what follows `<scheme:` tells a URL from
//! `<Subject: x>`). A break is trailing blanks, LF, CRLF or a lone CR,
//! then indentation of spaces and tabs, and on a quoted line the opening
//! line's quote prefix (`> `, `>> `, `> > `); or blanks alone. A line
//! break right after a `-` must give the alternative without that hyphen
//! and one `hyphen-line-break` warning. Bare and prefixed URLs are never
//! broken.

use proptest::prelude::*;
use proptest::sample::Index;
use urlsift::diag::Code;
use urlsift::extract::Extracted;

use crate::invariants;

// ---------------------------------------------------------------- URLs

/// A string of 0..=`max` characters from `class` (a regex class body) and
/// a few escapes that no rule warns about (no `%0D`, `%0A`, `%09`).
fn run_of(class: &str, max: usize) -> BoxedStrategy<String> {
    proptest::string::string_regex(&format!("([{class}]|%7E|%2F|%20|%3a|%C3|%ff|%25){{0,{max}}}"))
        .expect("valid regex")
        .boxed()
}

/// `uchar` and the extra characters `extra` (RFC 1738 section 5); in bare
/// mode without `'` (which ends a bare URL) and `(` `)` (which are kept
/// only when balanced).
fn chars(extra: &str, bare: bool) -> String {
    let quoted = if bare { "" } else { "'()" };
    // `-` last, so that it is literal in the class.
    format!("a-zA-Z0-9$_.+!*,{quoted}{extra}-")
}

fn label() -> impl Strategy<Value = String> {
    "[a-z0-9]([a-z0-9-]{0,6}[a-z0-9])?"
}

fn host() -> impl Strategy<Value = String> {
    prop_oneof![
        5 => (prop::collection::vec(label(), 0..3), "[a-z]([a-z0-9-]{0,6}[a-z0-9])?")
            .prop_map(|(mut labels, top)| {
                labels.push(top);
                labels.join(".")
            }),
        1 => (0u8..=255, 0u8..=255, 0u8..=255, 0u8..=255)
            .prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}")),
    ]
}

/// `host[:port]`, the port never a default one nor below 1024.
fn hostport() -> impl Strategy<Value = String> {
    (host(), prop::option::of(1024u32..=65535)).prop_map(|(h, p)| match p {
        Some(p) if p != 1525 => format!("{h}:{p}"),
        _ => h,
    })
}

fn path(class: String, max_segments: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(run_of(&class, 8), 1..=max_segments).prop_map(|s| s.join("/"))
}

fn fragment(bare: bool) -> impl Strategy<Value = String> {
    prop::option::of(run_of(&chars(";/?:@&=", bare), 8))
        .prop_map(|f| f.map_or_else(String::new, |f| format!("#{f}")))
}

fn opt(s: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    prop::option::of(s).prop_map(Option::unwrap_or_default)
}

/// A URL of a random scheme, valid with no diagnostic at all.
fn url(bare: bool) -> BoxedStrategy<String> {
    let h = chars(";:@&=", bare);
    let f = chars("?:@&=", bare);
    let u = chars("", bare);
    let http = (
        prop_oneof!["http", "https"],
        hostport(),
        opt((path(h.clone(), 3), opt(run_of(&h, 8).prop_map(|s| format!("?{s}"))))
            .prop_map(|(p, q)| format!("/{p}{q}"))),
        fragment(bare),
    )
        .prop_map(|(s, hp, p, fr)| format!("{s}://{hp}{p}{fr}"));
    // A `?` in a user name is RFC 1738's alone (RFC 3986 ends the
    // authority there), so the generated URLs leave it out: they must be
    // clean in the default profile.
    let ftp = (
        opt(run_of(&chars(";&=", bare), 6).prop_map(|u| format!("{u}@"))),
        hostport(),
        opt((path(f.clone(), 3), opt("[aidAID]".prop_map(|t| format!(";type={t}"))))
            .prop_map(|(p, t)| format!("/{p}{t}"))),
    )
        .prop_map(|(user, hp, p)| format!("ftp://{user}{hp}{p}"));
    let gopher =
        (hostport(), opt(("[0-9a-zA-Z+]", run_of(&u, 10)).prop_map(|(t, s)| format!("/{t}{s}"))))
            .prop_map(|(hp, sel)| format!("gopher://{hp}{sel}"));
    let mailto = (
        prop_oneof!["mailto", "mid", "cid"],
        "[a-zA-Z0-9]([a-zA-Z0-9._+-]{0,8}[a-zA-Z0-9])?",
        host(),
    )
        .prop_map(|(s, local, h)| format!("{s}:{local}@{h}"));
    let news = prop_oneof![
        // A bare `news:` needs a dotted group, an article or `*` to be told
        // from prose ("news: we shipped"); the other forms take any group.
        (if bare {
            "[a-z][a-z0-9+_-]{0,6}\\.[a-z][a-z0-9.+_-]{0,8}[a-z0-9]"
        } else {
            "[a-zA-Z][a-zA-Z0-9.+_-]{0,12}"
        })
        .prop_map(|g| format!("news:{g}")),
        ("[a-zA-Z0-9$]{1,10}", host()).prop_map(|(id, h)| format!("news:{id}@{h}")),
        Just("news:*".to_string()),
    ];
    let nntp =
        (hostport(), "[a-z][a-z0-9.+_-]{0,12}", opt("[0-9]{1,6}".prop_map(|d| format!("/{d}"))))
            .prop_map(|(hp, g, n)| format!("nntp://{hp}/{g}{n}"));
    let telnet = (
        opt(run_of(&chars(";&=", bare), 6).prop_map(|u| format!("{u}@"))),
        hostport(),
        prop_oneof!["", "/"],
    )
        .prop_map(|(user, hp, slash)| format!("telnet://{user}{hp}{slash}"));
    let wais = (
        hostport(),
        run_of(&u, 8),
        prop_oneof![
            Just(String::new()),
            run_of(&h, 8).prop_map(|s| format!("?{s}")),
            (run_of(&u, 4), run_of(&u, 8)).prop_map(|(t, p)| format!("/{t}/{p}")),
        ],
    )
        .prop_map(|(hp, db, rest)| format!("wais://{hp}/{db}{rest}"));
    let file = (
        prop_oneof![Just(String::new()), Just("localhost".to_string()), host()],
        path(f.clone(), 3),
    )
        .prop_map(|(h, p)| format!("file://{h}/{p}"));
    let prospero = (
        hostport(),
        path(chars("?:@&=", bare), 3),
        prop::collection::vec(
            (run_of(&chars("?:@&", bare), 5), run_of(&chars("?:@&", bare), 5)),
            0..3,
        ),
    )
        .prop_map(|(hp, p, fields)| {
            let fields: String = fields.iter().map(|(n, v)| format!(";{n}={v}")).collect();
            format!("prospero://{hp}/{p}{fields}")
        });
    prop_oneof![
        4 => http, 2 => ftp, 1 => gopher, 2 => mailto, 1 => news, 1 => nntp, 1 => telnet,
        1 => wais, 1 => file, 1 => prospero,
    ]
    .prop_map(move |mut u| {
        // A bare URL never ends in sentence punctuation: that is trimmed.
        if bare && u.ends_with(['.', ',', ';', ':', '!', '?']) {
            u.push('z');
        }
        u
    })
    .boxed()
}

// ---------------------------------------------------------------- text

/// How a URL is written: (form, opener, closer, kind urlsift reports).
const FORMS: &[(&str, &str, &str, &str)] = &[
    ("<URL:", "<URL:", ">", "wrapped"),
    ("<URL:", "<url:", ">", "wrapped"),
    ("<URL: ", "<URL: ", ">", "wrapped"),
    ("<URL: ", "<Url:\t", ">", "wrapped"),
    ("URL=<", "URL=<", ">", "wrapped"),
    ("URL=<", "url=<", ">", "wrapped"),
    ("URL:<", "URL:<", ">", "wrapped"),
    ("<", "<", ">", "angle"),
    ("URL:", "URL:", "", "prefixed"),
    ("URL:", "url:", "", "prefixed"),
    ("bare", "", "", "bare"),
    ("bare", "(", ")", "bare"),
    ("bare", "\"", "\"", "bare"),
];

fn is_bare(form: &str) -> bool {
    matches!(form, "bare" | "URL:")
}

/// The first offset in `url` before which a break may go in `form`, and
/// whether the offset right after the scheme's colon is allowed too.
fn breakable(form: &str, url: &str) -> (usize, Option<usize>) {
    let colon = url.find(':').expect("a scheme");
    match form {
        "<URL:" | "<URL: " => (0, None),
        "URL:<" => (colon + 1, None),
        "<" | "URL=<" if url[colon + 1..].starts_with("//") => (colon + 3, Some(colon + 1)),
        "<" | "URL=<" => (colon + 2, None),
        _ => (usize::MAX, None),
    }
}

/// Prose: no `:` (so no URL), no `<` `>` `|` (so no wrapper or quote
/// prefix), maybe several lines.
fn prose() -> impl Strategy<Value = String> {
    "([a-zA-Z0-9 .,;!?()'\"-]{0,16}(\n|\r\n)?){0,3}"
}

fn inline_prose() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 .,;!?()'\"-]{0,16}"
}

/// One line break (or blank run) inside a wrapper.
#[derive(Clone, Debug)]
struct Gap {
    trailing: &'static str,
    eol: &'static str,
    indent: &'static str,
}

fn gap() -> impl Strategy<Value = Gap> {
    (
        prop::sample::select(&["", "", " ", "\t", "  "][..]),
        prop_oneof![4 => Just("\n"), 2 => Just("\r\n"), 1 => Just("\r"), 1 => Just("")],
        prop::sample::select(&["", "", " ", "   ", "\t", "\t ", "      "][..]),
    )
        .prop_map(|(trailing, eol, indent)| {
            // Without a line break, a gap is a run of blanks.
            let trailing = if eol.is_empty() && trailing.is_empty() { " " } else { trailing };
            Gap { trailing, eol, indent }
        })
}

/// One URL in its prose.
#[derive(Clone, Debug)]
struct Segment {
    url: String,
    form: usize,
    quote: Option<&'static str>,
    before: String,
    inline: String,
    /// What follows the closer: a separator, then prose.
    sep: &'static str,
    after: String,
    /// (where in the URL, which break), before the URL byte at that index.
    breaks: Vec<(Index, Gap)>,
    /// Also break right after a random hyphen of the URL, if it has one.
    hyphen: Option<(Index, Gap)>,
}

fn segment() -> impl Strategy<Value = Segment> {
    (0..FORMS.len()).prop_flat_map(|form| {
        let bare = is_bare(FORMS[form].0);
        (
            url(bare),
            prop_oneof![3 => Just(None), 1 => Just(Some("> ")), 1 => Just(Some(">> ")), 1 => Just(Some("> > "))],
            prose(),
            inline_prose(),
            prop_oneof![
                Just(""),
                Just(" "),
                Just("\n"),
                Just("\r\n"),
                Just(". "),
                Just(",\n"),
                Just("; "),
                Just("! "),
                Just("?\r\n")
            ],
            prose(),
            prop::collection::vec((any::<Index>(), gap()), 0..4),
            prop::option::of((any::<Index>(), gap().prop_filter("a line break", |g| !g.eol.is_empty()))),
        )
            .prop_map(move |(url, quote, before, inline, sep, after, breaks, hyphen)| Segment {
                url,
                form,
                quote,
                before,
                inline,
                sep,
                after,
                breaks,
                hyphen,
            })
    })
}

/// What the extractor must report for one planted URL.
#[derive(Debug, PartialEq, Eq)]
struct Want {
    url: String,
    kind: &'static str,
    start: (u64, u64, u64),
    end: (u64, u64, u64),
    alternatives: Vec<String>,
    codes: Vec<Code>,
}

/// Writes the segments and says what must be found.
fn build(segments: &[Segment]) -> (Vec<u8>, Vec<Want>) {
    let mut text = String::new();
    let mut placed = Vec::new();
    for (i, seg) in segments.iter().enumerate() {
        let (form, open, close, kind) = FORMS[seg.form];
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&seg.before);
        if !text.is_empty() && !text.ends_with(['\n', '\r']) {
            text.push('\n');
        }
        // Quote prefixes are for bracketed forms: a quoted bare URL is
        // just a bare URL, but keep the test about what it is about.
        let quote = if is_bare(form) { None } else { seg.quote };
        text.push_str(quote.unwrap_or(""));
        text.push_str(&seg.inline);
        if !text.is_empty() && !text.ends_with([' ', '\n', '\r']) {
            text.push(' ');
        }
        text.push_str(open);

        // The breaks, by position in the URL.
        let url = &seg.url;
        let mut gaps: Vec<(usize, Gap)> = Vec::new();
        if !is_bare(form) {
            let (first, extra) = breakable(form, url);
            let mut allowed: Vec<usize> = (first..=url.len()).collect();
            if let Some(x) = extra {
                allowed.insert(0, x);
            }
            for (ix, g) in &seg.breaks {
                let at = *ix.get(&allowed);
                // One gap per position.
                if !gaps.iter().any(|(p, _)| *p == at) {
                    gaps.push((at, g.clone()));
                }
            }
            if let Some((ix, g)) = &seg.hyphen {
                let hyphens: Vec<usize> = allowed
                    .iter()
                    .copied()
                    .filter(|&p| p > 0 && url.as_bytes()[p - 1] == b'-')
                    .collect();
                if !hyphens.is_empty() {
                    let at = *ix.get(&hyphens);
                    gaps.retain(|(p, _)| *p != at);
                    gaps.push((at, g.clone()));
                }
            }
            gaps.sort_by_key(|(p, _)| *p);
        }

        let mut offsets = Vec::with_capacity(url.len());
        let mut hyphen_breaks = Vec::new();
        let mut gi = 0;
        for (j, c) in url.char_indices() {
            while gi < gaps.len() && gaps[gi].0 == j {
                push_gap(&mut text, &gaps[gi].1, quote);
                if j > 0 && url.as_bytes()[j - 1] == b'-' && !gaps[gi].1.eol.is_empty() {
                    hyphen_breaks.push(j - 1);
                }
                gi += 1;
            }
            offsets.push(text.len());
            text.push(c);
        }
        if let Some((p, g)) = gaps.get(gi) {
            assert_eq!(*p, url.len());
            push_gap(&mut text, g, quote);
            if url.ends_with('-') && !g.eol.is_empty() {
                hyphen_breaks.push(url.len() - 1);
            }
        }
        text.push_str(close);
        // Prose right after a bare URL would be read as more URL.
        let sep =
            if seg.sep.is_empty() && is_bare(form) && close.is_empty() && !seg.after.is_empty() {
                " "
            } else {
                seg.sep
            };
        text.push_str(sep);
        // A bare URL that ends its line may be joined with the next line
        // (README, "Bare URLs"): prose there starts after a blank line, so
        // that the round trip stays about URLs written whole.
        let ends_line = sep.ends_with(['\n', '\r']) || (sep.is_empty() && seg.after.is_empty());
        if is_bare(form) && ends_line {
            text.push('\n');
        }
        text.push_str(&seg.after);
        placed.push((url.clone(), kind, offsets, hyphen_breaks));
    }

    let bytes = text.into_bytes();
    let starts = invariants::line_starts(&bytes);
    let pos = |at: usize| {
        let (l, c) = invariants::line_col(&starts, at);
        (at as u64, l, c)
    };
    let wants = placed
        .into_iter()
        .map(|(url, kind, offsets, hyphen_breaks)| {
            let alternatives = if hyphen_breaks.is_empty() {
                Vec::new()
            } else {
                vec![
                    url.char_indices()
                        .filter(|(j, _)| !hyphen_breaks.contains(j))
                        .map(|(_, c)| c)
                        .collect(),
                ]
            };
            Want {
                // A placeholder (`$0`) makes it a template, whatever its form.
                kind: if urlsift::extract::is_template(url.as_bytes()) { "template" } else { kind },
                start: pos(offsets[0]),
                end: pos(*offsets.last().expect("URLs are not empty")),
                // The default profile gives the hyphen-less reading in
                // `alternatives` only (the invariants check rfc1738's
                // findings on the same text).
                codes: Vec::new(),
                alternatives,
                url,
            }
        })
        .collect();
    (bytes, wants)
}

fn push_gap(text: &mut String, g: &Gap, quote: Option<&str>) {
    text.push_str(g.trailing);
    if !g.eol.is_empty() {
        text.push_str(g.eol);
        text.push_str(quote.unwrap_or(""));
        text.push_str(g.indent);
    }
}

fn got(e: &Extracted) -> Want {
    let p = |p: &urlsift::span::Position| (p.offset, p.line, p.column);
    Want {
        url: e.url_lossy().into_owned(),
        kind: e.kind.as_str(),
        start: p(&e.start),
        end: p(&e.end),
        alternatives: e
            .alternatives
            .iter()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
        // One code per place: a finding lists every place of its code.
        codes: e
            .findings
            .iter()
            .flat_map(|f| std::iter::repeat_n(f.diagnostic.code, f.spans().count()))
            .collect(),
    }
}

fn config() -> ProptestConfig {
    // `PROPTEST_CASES=20000 cargo test --release --test roundtrip` for a
    // long run.
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512);
    ProptestConfig { cases, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    /// The generator's URLs are valid with nothing to say: otherwise the
    /// round trip below would be testing the wrong thing.
    #[test]
    fn generated_urls_are_clean(bare in any::<bool>(), u in url(false), b in url(true)) {
        let u = if bare { b } else { u };
        let v = invariants::engines().validators[0].validate(u.as_bytes());
        prop_assert!(v.diagnostics.is_empty(), "{u}: {:?}", v.diagnostics);
    }

    /// Every URL comes back as written, where written, and nothing else.
    #[test]
    fn extraction_returns_exactly_the_urls_written(segments in prop::collection::vec(segment(), 1..4)) {
        let (text, wants) = build(&segments);
        // All the input-independent invariants, streaming included.
        let found = invariants::check_extract(&text);
        let gots: Vec<Want> = found.iter().map(got).collect();
        prop_assert_eq!(&gots, &wants, "in {}", invariants::show(&text));
    }
}

/// A few fixed cases of the generator's shapes, so that a reader sees what
/// the property writes (and a failure there is easy to read).
#[test]
fn examples() {
    let cases: &[(&[u8], &str, (u64, u64))] = &[
        (b"see <URL:\n  http://a.example/x>", "http://a.example/x", (2, 3)),
        (b"> see <URL:http://a.example/lo-\r\n>    ng> ok", "http://a.example/lo-ng", (1, 12)),
        (b"x <http:\n  //a.example/>", "http://a.example/", (1, 4)),
        (b"x URL=<mailto:a\r@b.example>", "mailto:a@b.example", (1, 8)),
        (b"x URL:<news:\n\tcomp.x>", "news:comp.x", (1, 8)),
        (b">> x <URL:ftp://h.example/\n>>   p;type=a>", "ftp://h.example/p;type=a", (1, 11)),
    ];
    for (text, url, (line, column)) in cases {
        let found = invariants::check_extract(text);
        assert_eq!(found.len(), 1, "{}", invariants::show(text));
        assert_eq!(found[0].url, url.as_bytes(), "{}", invariants::show(text));
        assert_eq!((found[0].start.line, found[0].start.column), (*line, *column));
    }
}

/// The property above only proves something if its generator reaches every
/// shape: count them over a deterministic sample.
#[test]
fn generator_reaches_every_shape() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let strategy = prop::collection::vec(segment(), 1..4);
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..2000 {
        let segments = strategy.new_tree(&mut runner).expect("a value").current();
        let (text, wants) = build(&segments);
        let mut see =
            |what: &str, yes: bool| *seen.entry(what.to_owned()).or_default() += usize::from(yes);
        see("crlf", text.windows(2).any(|w| w == b"\r\n"));
        see("lone cr", text.windows(2).any(|w| w[0] == b'\r' && w[1] != b'\n'));
        see("tab", text.contains(&b'\t'));
        for (seg, want) in segments.iter().zip(&wants) {
            let form = FORMS[seg.form].0;
            see(form, true);
            see(want.url.split(':').next().expect("a scheme"), true);
            see("broken", want.start.1 != want.end.1);
            see("hyphen break", !want.alternatives.is_empty());
            see(
                "two hyphen breaks",
                want.alternatives.first().is_some_and(|a| want.url.len() >= a.len() + 2),
            );
            see(
                "quoted and broken",
                seg.quote.is_some() && want.start.1 != want.end.1 && !is_bare(form),
            );
            see("fragment", want.url.contains('#'));
            see("escape", want.url.contains('%'));
            see(
                "ip host",
                want.url.split(['/', '@', ':']).any(|p| {
                    p.split('.').count() == 4 && p.split('.').all(|o| o.parse::<u8>().is_ok())
                }),
            );
        }
    }
    for what in [
        "crlf",
        "lone cr",
        "tab",
        "<URL:",
        "<URL: ",
        "URL=<",
        "URL:<",
        "<",
        "URL:",
        "bare",
        "http",
        "https",
        "ftp",
        "gopher",
        "mailto",
        "mid",
        "cid",
        "news",
        "nntp",
        "telnet",
        "wais",
        "file",
        "prospero",
        "broken",
        "hyphen break",
        "two hyphen breaks",
        "quoted and broken",
        "fragment",
        "escape",
        "ip host",
    ] {
        let n = seen.get(what).copied().unwrap_or(0);
        assert!(n >= 10, "only {n} cases of {what:?} in 2000: {seen:?}");
    }
}
