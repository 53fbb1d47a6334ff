//! The mail reader (`urlsift::mail`) against hand-written archives in
//! `tests/data/mail/`, a property test of quoted-printable recovery, the
//! part API (a file cut at message boundaries and read part by part gives
//! what one pass gives), and, when the shared corpus is present, the real
//! mailing-list archives.
//!
//! Expected positions are never taken from the library's own maps: each is
//! found by searching the fixture's bytes for a unique fragment of the
//! original text (or, for base64, by counting encoded characters), and
//! lines and columns are counted here from scratch.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use proptest::prelude::*;
use urlsift::diag::Grammar;
use urlsift::extract::{Options, Sifter};
use urlsift::mail::{
    InputKind, LocalIndex, MailProblem, MailStats, MailUrl, PartStats, detect, extract_mail,
    extract_mail_part, message_cuts, resolve_local,
};
use urlsift::span::{LineCursor, Position};

// RFC 1738, whose non-ASCII rule gives the decoded bytes findings whose
// positions these tests check (the default profile reads a charset-decoded
// `é` as IRI text, with nothing to report).
static SIFTER: LazyLock<Sifter> =
    LazyLock::new(|| Sifter::new(Options { grammar: Grammar::Rfc1738, ..Options::default() }));

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs the reader over `bytes`; URLs, problems, stats.
fn run(bytes: &[u8], kind: InputKind) -> (Vec<MailUrl>, Vec<MailProblem>, MailStats) {
    let (mut urls, mut problems) = (Vec::new(), Vec::new());
    let stats = extract_mail(&SIFTER, bytes, kind, |u| urls.push(u), |p| problems.push(p)).unwrap();
    (urls, problems, stats)
}

/// The position of byte `offset`, counted naively: every LF ends a line
/// (the fixtures have no lone CR, and a CR before an LF is the end of its
/// line's content, so columns agree with the library's CRLF rule).
fn pos(bytes: &[u8], offset: usize) -> Position {
    let before = &bytes[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    Position { offset: offset as u64, line, column: (offset - line_start) as u64 + 1 }
}

/// Offset of the one occurrence of `needle` in `bytes`.
fn find(bytes: &[u8], needle: &[u8]) -> usize {
    let hits: Vec<usize> = bytes
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(hits.len(), 1, "{:?} occurs {} times", String::from_utf8_lossy(needle), hits.len());
    hits[0]
}

/// Where a URL's first and last bytes are in the fixture.
enum Loc {
    /// The URL is written as it is, right after this unique context.
    After(&'static [u8]),
    /// Byte `k` of a unique fragment, for the first and the last byte.
    At((&'static [u8], usize), (&'static [u8], usize)),
    /// Offsets computed by the test itself.
    Offsets(usize, usize),
}

/// One expected URL.
struct Want {
    url: &'static str,
    msg: usize,
    id: Option<&'static str>,
    header: Option<&'static str>,
    part: Option<&'static str>,
    loc: Loc,
}

fn want(
    url: &'static str,
    msg: usize,
    id: Option<&'static str>,
    header: Option<&'static str>,
    part: Option<&'static str>,
    loc: Loc,
) -> Want {
    Want { url, msg, id, header, part, loc }
}

/// Compares what was found with what is wanted, field by field.
fn check(bytes: &[u8], got: &[MailUrl], wants: &[Want]) {
    let listed: Vec<String> = got.iter().map(|u| u.url.url_lossy().into_owned()).collect();
    assert_eq!(got.len(), wants.len(), "found: {listed:#?}");
    for (g, w) in got.iter().zip(wants) {
        assert_eq!(g.url.url_lossy(), w.url);
        let ctx = w.url;
        assert_eq!(g.message_index, w.msg, "{ctx}");
        assert_eq!(g.message_id.as_deref(), w.id, "{ctx}");
        assert_eq!(g.header.as_deref(), w.header, "{ctx}");
        assert_eq!(g.part.as_deref(), w.part, "{ctx}");
        let (start, end) = match w.loc {
            Loc::After(before) => {
                let mut needle = before.to_vec();
                needle.extend_from_slice(w.url.as_bytes());
                let s = find(bytes, &needle) + before.len();
                (s, s + w.url.len() - 1)
            }
            Loc::At((a, i), (b, j)) => (find(bytes, a) + i, find(bytes, b) + j),
            Loc::Offsets(s, e) => (s, e),
        };
        assert_eq!(g.url.start, pos(bytes, start), "start of {ctx}");
        assert_eq!(g.url.end, pos(bytes, end), "end of {ctx}");
        for f in &g.url.findings {
            assert!(f.start >= g.url.start && f.end <= g.url.end, "{ctx}: {f:?}");
        }
    }
}

const ALICE: Option<&str> = Some("move.1@example.org");
const BOB: Option<&str> = Some("b64.2@example.com");
const CAROL: Option<&str> = Some("alt.3@example.net");
const DAVE: Option<&str> = Some("reply.4@example.org");
const ERIK: Option<&str> = Some("latin.6@example.se");
const FRANK: Option<&str> = Some("fwd.7@example.org");

/// The decoded text of the base64 part in `archive.mbox`.
const B64_PLAIN: &str = "Thanks, Alice. Until the move is done, the mirror at\r\n\
    <URL:ftp://ftp.example.com/mirrors/url-list/1995/> keeps a copy of everything.\r\nBob\r\n";

/// File offsets of decoded bytes `first` and `last` of the base64 block
/// that follows `after`: byte `d` starts in encoded character
/// `4 * (d / 3) + d % 3`, counting only base64 characters.
fn base64_offsets(bytes: &[u8], after: &[u8], first: usize, last: usize) -> (usize, usize) {
    let start = find(bytes, after) + after.len();
    let chars: Vec<usize> = (start..bytes.len())
        .take_while(|&i| bytes[i] != b'-')
        .filter(|&i| bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'+' | b'/'))
        .collect();
    let at = |d: usize| chars[4 * (d / 3) + d % 3];
    (at(first), at(last))
}

#[test]
fn fixtures_are_detected() {
    assert_eq!(detect(&data("archive.mbox")), InputKind::Mbox);
    assert_eq!(detect(&data("article.news")), InputKind::News);
    assert_eq!(detect(&data("maildir.eml")), InputKind::Message);
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/docs/index.md");
    if let Ok(text) = std::fs::read(corpus) {
        assert_eq!(detect(&text), InputKind::Text);
    }
}

#[test]
fn archive_mbox() {
    let bytes = data("archive.mbox");
    let (urls, problems, stats) = run(&bytes, InputKind::Mbox);

    let url_start = B64_PLAIN.find("ftp://").unwrap();
    let b64_url = "ftp://ftp.example.com/mirrors/url-list/1995/";
    let (b64_s, b64_e) = base64_offsets(
        &bytes,
        b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n",
        url_start,
        url_start + b64_url.len() - 1,
    );
    let wants = [
        // Message 0: headers (an RFC 2047 word, a folded list, a folded
        // Archived-At), then a quoted-printable body: one URL cut by a
        // soft break, one cut right after a `=3D` and right before another.
        want(
            "http://www.example.org/move",
            0,
            ALICE,
            Some("Subject"),
            None,
            Loc::After(b"archive_move:_"),
        ),
        want(
            "http://lists.example.net/archive/url-list/",
            0,
            ALICE,
            Some("List-Archive"),
            None,
            Loc::After(b"List-Archive: <"),
        ),
        want(
            "ftp://ftp.example.net/pub/lists/url-list/",
            0,
            ALICE,
            Some("List-Archive"),
            None,
            Loc::After(b"\n <"),
        ),
        want(
            "mailto:url-list-request@example.net",
            0,
            ALICE,
            Some("List-Unsubscribe"),
            None,
            Loc::After(b"List-Unsubscribe: <"),
        ),
        want(
            "http://lists.example.net/archive/url-list/1995/0001.html",
            0,
            ALICE,
            Some("Archived-At"),
            None,
            Loc::At(
                (b"Archived-At: <http://lists.example.net/archive/url-list/1995/", 14),
                (b"0001.html>", 8),
            ),
        ),
        want(
            "http://lists.example.net/archive/url-list/1995/january/index-by-thread.html",
            0,
            ALICE,
            None,
            Some("1"),
            Loc::At(
                (b"at http://lists.example.net/archive/url-list/1995/jan=", 3),
                (b"thread.html and", 10),
            ),
        ),
        want(
            "http://lists.example.net/cgi-bin/search?list=url-list&words=hyphen&max=20",
            0,
            ALICE,
            None,
            Some("1"),
            Loc::At((b"\nhttp://lists.example.net/cgi-bin/search", 1), (b"=3D20 (cut", 4)),
        ),
        // Message 1: a base64 text part (the binary part after it is
        // skipped, URL and all), then a footer after the closing boundary.
        want(b64_url, 1, BOB, None, Some("1"), Loc::Offsets(b64_s, b64_e)),
        want(
            "http://lists.example.net/archive/url-list/",
            1,
            BOB,
            None,
            None,
            Loc::After(b"url-list archive: "),
        ),
        // Message 2: multipart/alternative, the same URL once per part.
        want(
            "http://www.example.net/style/guide.html",
            2,
            CAROL,
            None,
            Some("1"),
            Loc::After(b"is at "),
        ),
        want(
            "http://www.example.net/style/",
            2,
            CAROL,
            Some("Content-Base"),
            Some("2"),
            Loc::After(b"Content-Base: \""),
        ),
        want(
            "http://www.example.net/style/guide.html",
            2,
            CAROL,
            None,
            Some("2"),
            Loc::After(b"href=\""),
        ),
        // Message 3: a wrapper broken across quoted lines (and by a soft
        // break after a hyphen), then a `>From ` line of the mbox.
        want(
            "http://www.example.net/style/old-guide/chapter-one.html",
            3,
            DAVE,
            None,
            Some("1"),
            Loc::At((b"<URL:http://www.example.net/style/", 5), (b"one.html> if", 7)),
        ),
        want(
            "http://lists.example.net/archive/url-list/1995/0003.html",
            3,
            DAVE,
            None,
            Some("1"),
            Loc::After(b">From the archive: "),
        ),
        // Message 4 is malformed and skipped. Message 5: Latin-1, quoted-
        // printable `=E9` in one part, raw 8-bit bytes in the other.
        want(
            "http://www.example.se/caf\u{e9}/menu.html",
            5,
            ERIK,
            None,
            Some("1"),
            Loc::At((b"sur http", 4), (b"/menu.html (", 9)),
        ),
        want(
            "http://www.example.se/d\u{e9}j\u{e0}-vu.html",
            5,
            ERIK,
            None,
            Some("2"),
            Loc::At((b"vu: http", 4), (b"-vu.html et", 7)),
        ),
        want("http://www.example.se/ok.html", 5, ERIK, None, Some("2"), Loc::After(b"voil\xe0 ")),
        // Message 6: a `mid:` link to message 0, then an attached message:
        // its header is part 2, its multipart/alternative body 2.1 and 2.2.
        want("mid:move.1@example.org", 6, FRANK, None, Some("1"), Loc::After(b"answers\n")),
        want(
            "http://lists.example.net/archive/url-list/policy.html",
            6,
            FRANK,
            Some("Archived-At"),
            Some("2"),
            Loc::After(b"Archived-At: <"),
        ),
        want(
            "http://www.example.com/policy/rules.txt",
            6,
            FRANK,
            None,
            Some("2.1"),
            Loc::After(b"Rules: "),
        ),
        want(
            "http://www.example.com/policy/rules.txt",
            6,
            FRANK,
            None,
            Some("2.2"),
            Loc::After(b"<bold>"),
        ),
    ];
    check(&bytes, &urls, &wants);

    // The hyphen before the soft break was at no line break of the text.
    assert!(urls[12].url.alternatives.is_empty());
    // Non-ASCII findings point at the `=` of `=E9` and at the raw `0xE9`.
    let finding_at =
        |u: &MailUrl, offset: usize| u.url.findings.iter().any(|f| f.start == pos(&bytes, offset));
    assert!(!urls[14].url.is_valid());
    assert!(finding_at(&urls[14], find(&bytes, b"=E9/menu")));
    assert!(finding_at(&urls[15], find(&bytes, b"d\xe9j\xe0-vu") + 1));
    assert!(urls[16].url.is_valid());

    // The `mid:` link names message 0 of the same archive.
    let index = LocalIndex::build(&bytes[..], InputKind::Mbox).unwrap();
    assert_eq!(index.len(), 6);
    assert_eq!(resolve_local(&index, &urls[17]), Some(0));
    assert_eq!(resolve_local(&index, &urls[0]), None);

    let lost = find(&bytes, b"this message lost");
    assert_eq!(
        problems.iter().map(|p| (p.message_index, p.line)).collect::<Vec<_>>(),
        [(4, pos(&bytes, lost).line)]
    );
    assert_eq!(
        stats,
        MailStats {
            messages: 7,
            malformed: 1,
            text_parts: 10,
            skipped_parts: 1,
            decoded_qp: 4,
            decoded_base64: 1,
            bytes: bytes.len() as u64,
            urls: 21,
        }
    );
}

#[test]
fn news_article() {
    let bytes = data("article.news");
    let (urls, problems, stats) = run(&bytes, InputKind::News);
    let id = Some("faq.9@news.example.org");
    let wants = [
        want("http://www.example.org/henry/", 0, id, Some("X-URL"), None, Loc::After(b"X-URL: ")),
        want(
            "ftp://rtfm.example.edu/pub/usenet/news.answers/url-faq",
            0,
            id,
            None,
            Some("1"),
            Loc::After(b"<URL:"),
        ),
        want(
            "news:comp.infosystems.www.misc",
            0,
            id,
            None,
            Some("1"),
            Loc::After(b"continues in <URL:"),
        ),
        want("news:faq.1@news.example.org", 0, id, None, Some("1"), Loc::After(b"was <URL:")),
    ];
    check(&bytes, &urls, &wants);
    assert!(problems.is_empty());
    assert_eq!((stats.messages, stats.text_parts), (1, 1));
}

#[test]
fn crlf_maildir_message() {
    let bytes = data("maildir.eml");
    let (urls, problems, _) = run(&bytes, InputKind::Message);
    let id = Some("crlf.10@example.com");
    let wants = [
        want(
            "https://reports.example.com/1995/01/very-long-report-name-that-wraps.html",
            0,
            id,
            None,
            Some("1"),
            Loc::At((b"at https://reports.example.com/1995/01/very", 3), (b"wraps.html and", 9)),
        ),
        want(
            "https://reports.example.com/1995/01/summary.html",
            0,
            id,
            None,
            Some("1"),
            Loc::At((b"at https://reports.exa=", 3), (b"summary.html.", 11)),
        ),
    ];
    check(&bytes, &urls, &wants);
    assert!(problems.is_empty());
}

#[test]
fn rnews_batch() {
    let articles = [
        "Path: a.example!not-for-mail\nNewsgroups: comp.mail.misc\nMessage-ID: <r1@a.example>\n\
         \nSee <URL:ftp://ftp.a.example/pub/faq>.\n",
        "Path: b.example!not-for-mail\nNewsgroups: comp.mail.misc\nMessage-ID: <r2@b.example>\n\
         \nAnd http://www.b.example/faq.html too.\n",
    ];
    let batch: String = articles.iter().map(|a| format!("#! rnews {}\n{a}", a.len())).collect();
    let bytes = batch.as_bytes();
    assert_eq!(detect(bytes), InputKind::News);
    let (urls, problems, stats) = run(bytes, InputKind::News);
    let wants = [
        want(
            "ftp://ftp.a.example/pub/faq",
            0,
            Some("r1@a.example"),
            None,
            Some("1"),
            Loc::After(b"<URL:"),
        ),
        want(
            "http://www.b.example/faq.html",
            1,
            Some("r2@b.example"),
            None,
            Some("1"),
            Loc::After(b"And "),
        ),
    ];
    check(bytes, &urls, &wants);
    assert!(problems.is_empty());
    assert_eq!(stats.messages, 2);
}

/// A reader that hands out a few bytes per call.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.1.min(self.0.len()).min(out.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn streaming_in_tiny_reads_changes_nothing() {
    for (name, kind) in [
        ("archive.mbox", InputKind::Mbox),
        ("article.news", InputKind::News),
        ("maildir.eml", InputKind::Message),
    ] {
        let bytes = data(name);
        let (whole, _, _) = run(&bytes, kind);
        for step in [1, 5, 64] {
            let mut got = Vec::new();
            extract_mail(&SIFTER, Trickle(&bytes, step), kind, |u| got.push(u), |_| {}).unwrap();
            assert_eq!(got, whole, "{name} read {step} bytes at a time");
        }
    }
}

#[test]
fn text_input_is_scanned_as_text() {
    let bytes = data("archive.mbox");
    let (urls, _, stats) = run(&bytes, InputKind::Text);
    assert_eq!(stats.messages, 0);
    assert!(urls.iter().all(|u| u.message_index == 0 && u.part.is_none()));
    // Undecoded, the soft-broken URL is read as plain text reads a URL
    // broken after `=`: joined with its tail, `=` kept, and the cut
    // reading as the alternative.
    let u = urls.iter().find(|u| u.url.url.ends_with(b"/1995/jan=uary/index-by-thread.html"));
    let u = &u.expect("the joined URL").url;
    assert_eq!(u.notes, ["line-break-joined"]);
    assert!(u.alternatives[0].ends_with(b"/1995/jan="));
}

// ---- quoted-printable recovery, as a property --------------------------

/// A valid http or ftp URL that a bare-URL reader ends exactly at its last
/// byte (every segment ends in a letter or digit), with `=` in queries so
/// that `=3D` escapes are common.
fn url() -> impl Strategy<Value = String> {
    let host = "[a-z][a-z0-9]{0,6}(\\.[a-z][a-z0-9-]{0,5}[a-z0-9]){0,2}\\.(com|org|net|edu)";
    let seg = "[a-zA-Z0-9_.-]{0,6}[a-zA-Z0-9]";
    let http = format!(
        "http://{host}(:[1-9][0-9]{{1,3}})?(/{seg}){{0,3}}/?(\\?[a-z]{{1,4}}=[a-z0-9]{{1,4}}(&[a-z]{{1,4}}=[a-z0-9]{{1,4}}){{0,2}})?"
    );
    let ftp = format!("ftp://{host}(/{seg}){{1,3}}(;type=[aid])?");
    let re = |r: &str| proptest::string::string_regex(r).expect("valid regex");
    prop_oneof![re(&http), re(&ftp)]
}

/// One line of text around a URL, quoted-printable encoded with some
/// characters escaped at random and soft breaks inserted at random, even
/// inside escapes. Returns the encoded line and, for the URL's first and
/// last bytes, their offsets in it (an escape's `=`).
fn encode(
    line: &str,
    first: usize,
    last: usize,
    escapes: &[bool],
    breaks: &[bool],
    eol: &str,
) -> (String, usize, usize) {
    let mut encoded = String::new();
    let mut unit_at = Vec::new();
    for (i, c) in line.bytes().enumerate() {
        unit_at.push(encoded.len());
        if c == b'=' || escapes[i % escapes.len()] {
            encoded.push_str(&format!("={c:02X}"));
        } else {
            encoded.push(c as char);
        }
    }
    let soft = format!("={eol}");
    let mut out = String::new();
    let mut shift_at = Vec::new();
    for (p, ch) in encoded.chars().enumerate() {
        if breaks[p % breaks.len()] {
            out.push_str(&soft);
        }
        shift_at.push(out.len());
        out.push(ch);
    }
    (out, shift_at[unit_at[first]], shift_at[unit_at[last]])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn quoted_printable_urls_are_recovered_in_place(
        url in url(),
        wrapped in any::<bool>(),
        crlf in any::<bool>(),
        escapes in proptest::collection::vec(proptest::bool::weighted(0.15), 1..40),
        breaks in proptest::collection::vec(proptest::bool::weighted(0.2), 1..60),
    ) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let (open, close) = if wrapped { ("<URL:", ">") } else { ("", "") };
        let line = format!("See {open}{url}{close} for details.");
        let first = 4 + open.len();
        let last = first + url.len() - 1;
        let (body, s, e) = encode(&line, first, last, &escapes, &breaks, eol);
        let head = format!(
            "From q@example.org Mon Jan  2 10:00:00 1995{eol}Subject: qp{eol}\
             Content-Transfer-Encoding: quoted-printable{eol}{eol}"
        );
        let message = format!("{head}{body}{eol}");
        let bytes = message.as_bytes();
        let (urls, problems, _) = run(bytes, InputKind::Mbox);
        prop_assert!(problems.is_empty());
        prop_assert_eq!(urls.len(), 1, "{}", message);
        let got = &urls[0].url;
        prop_assert_eq!(got.url_lossy(), url.as_str());
        prop_assert_eq!(got.start, pos(bytes, head.len() + s), "{}", message);
        prop_assert_eq!(got.end, pos(bytes, head.len() + e), "{}", message);
    }
}

/// Pieces that mail is made of, to build hostile inputs from.
const PIECES: &[&[u8]] = &[
    b"From a@b.example Mon Jan  2 10:00:00 1995\n",
    b"Subject: x\n",
    b"Message-ID: <m@x.example>\n",
    b"Content-Type: multipart/mixed; boundary=b\n",
    b"Content-Type: multipart/digest; boundary=\"b\"\n",
    b"Content-Type: text/plain; charset=shift_jis\n",
    b"Content-Type: text/plain; charset=utf-16le\n",
    b"Content-Type: text/plain; charset=iso-8859-1\n",
    b"Content-Type: message/rfc822\n",
    b"Content-Type: image/gif\n",
    b"Content-Transfer-Encoding: base64\n",
    b"Content-Transfer-Encoding: quoted-printable\n",
    b"\n",
    b"\r\n",
    b"\r",
    b" folded\n",
    b"--b\n",
    b"--b--\n",
    b"=",
    b"=\n",
    b"=3D",
    b"=?utf-16?B?",
    b"=?iso-8859-1?Q?a=E9_",
    b"?=",
    b"http://a.example/p",
    b"<URL:",
    b">",
    b"> ",
    b">From x\n",
    b"\x82",
    b"\xe9",
    b"aHR0cDovL2EuZXhhbXBsZS8=",
    b"#! rnews 40\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Whatever the input, the reader neither panics nor reports a
    /// position outside it, and positions never go backwards.
    #[test]
    fn hostile_input_is_survived(picks in proptest::collection::vec(0..PIECES.len(), 0..80)) {
        let bytes: Vec<u8> = picks.iter().flat_map(|&i| PIECES[i].iter().copied()).collect();
        for kind in [InputKind::Mbox, InputKind::Message, InputKind::News] {
            let (urls, _, stats) = run(&bytes, kind);
            prop_assert_eq!(stats.bytes, bytes.len() as u64);
            let mut last = 0;
            for u in &urls {
                prop_assert!(u.url.start.offset >= last);
                prop_assert!(u.url.start <= u.url.end);
                prop_assert!((u.url.end.offset as usize) < bytes.len());
                // Lone CRs count as line breaks here: ask the line cursor.
                let cursor = |o: u64| LineCursor::new().advance(&bytes, 0, o);
                prop_assert_eq!(u.url.start, cursor(u.url.start.offset));
                prop_assert_eq!(u.url.end, cursor(u.url.end.offset));
                last = u.url.start.offset;
            }
        }
    }
}

// ---- the real archives, when present ----------------------------------

fn corpus_mboxes() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/mail");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mbox"))
        .collect();
    files.sort();
    Some(files)
}

/// Every message of the real archives parses (no problem at all), URLs
/// come out in file order, and each starts where its text (or, when
/// decoding was needed, an `=` escape or a base64 character) is.
#[test]
fn real_archives_parse_cleanly() {
    let Some(files) = corpus_mboxes() else {
        println!("skipped: ../shared/corpus/mail is absent");
        return;
    };
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(detect(&bytes), InputKind::Mbox, "{}", path.display());
        let (urls, problems, stats) = run(&bytes, InputKind::Mbox);
        assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
        assert_eq!(stats.malformed, 0);
        let mut last = 0;
        for u in &urls {
            let start = u.url.start.offset as usize;
            assert!(start >= last, "{}: out of order at {start}", path.display());
            last = start;
            assert_eq!(u.url.start, pos_fast(&bytes, start));
            let b = bytes[start];
            assert!(
                b == u.url.url[0]
                    || b == b'='
                    || b.is_ascii_alphanumeric()
                    || b == b'+'
                    || b == b'/',
                "{}: {} does not start at {:?}",
                path.display(),
                u.url.url_lossy(),
                b as char
            );
        }
        println!(
            "{}: {} messages, {} URLs ({} in headers), {} text parts, {} qp, {} base64",
            path.file_name().unwrap().to_string_lossy(),
            stats.messages,
            stats.urls,
            urls.iter().filter(|u| u.header.is_some()).count(),
            stats.text_parts,
            stats.decoded_qp,
            stats.decoded_base64
        );
    }
}

/// `pos` with a line count that does not rescan the file for every URL.
fn pos_fast(bytes: &[u8], offset: usize) -> Position {
    static LINES: std::sync::Mutex<Option<(usize, usize, Vec<usize>)>> =
        std::sync::Mutex::new(None);
    let mut guard = LINES.lock().unwrap();
    let key = (bytes.as_ptr() as usize, bytes.len());
    if guard.as_ref().is_none_or(|(p, l, _)| (*p, *l) != key) {
        let starts = std::iter::once(0)
            .chain(bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1))
            .collect();
        *guard = Some((key.0, key.1, starts));
    }
    let starts = &guard.as_ref().unwrap().2;
    let line = starts.partition_point(|&s| s <= offset);
    let column = offset - starts[line - 1] + 1;
    Position { offset: offset as u64, line: line as u64, column: column as u64 }
}

/// Found by `hostile_input_is_survived`: an rnews byte count that ends in
/// the middle of a line starts the next message mid-line, and its columns
/// must count from the line's real start.
#[test]
fn rnews_message_starting_mid_line_has_true_columns() {
    let bytes: &[u8] = b"#! rnews 40\nMessage-ID: <m@x.example>\nSubject: x\n\
        http://a.example/phttp://a.example/pFrom a@b.example Mon Jan  2 10:00:00 1995\n";
    let (urls, _, _) = run(bytes, InputKind::News);
    assert!(!urls.is_empty());
    for u in &urls {
        let want = LineCursor::new().advance(bytes, 0, u.url.start.offset);
        assert_eq!(u.url.start, want, "{}", u.url.url_lossy());
    }
}

// ---- parts: cut at message boundaries, read apart, joined -------------

/// Everything one pass (or the joined parts) reports.
#[derive(Debug, PartialEq)]
struct Outcome {
    urls: Vec<MailUrl>,
    problems: Vec<MailProblem>,
    stats: MailStats,
    resolved: Vec<Option<usize>>,
}

fn whole(bytes: &[u8], kind: InputKind) -> Outcome {
    let (urls, problems, stats) = run(bytes, kind);
    let index = LocalIndex::build(bytes, kind).unwrap();
    let resolved = urls.iter().map(|u| resolve_local(&index, u)).collect();
    Outcome { urls, problems, stats, resolved }
}

/// Cuts `bytes` (written to a file) with `message_cuts`, reads every part
/// on its own from a reader positioned at its start, and joins the parts
/// as the driver must: shifted by the lines and messages before them, the
/// local index appended part by part. Also gives the cuts.
fn by_parts(bytes: &[u8], kind: InputKind, part: u64) -> (Outcome, Vec<u64>) {
    use std::io::{Seek, SeekFrom, Write};
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(bytes).unwrap();
    let size = bytes.len() as u64;
    let cuts = message_cuts(&file, kind, size, part).unwrap();
    let (mut urls, mut problems) = (Vec::new(), Vec::new());
    let mut stats = MailStats::default();
    let (mut lines, mut messages) = (0, 0);
    let mut index = LocalIndex::new();
    for w in cuts.windows(2) {
        let (start, end) = (w[0], w[1]);
        let mut reader = file.try_clone().unwrap();
        reader.seek(SeekFrom::Start(start)).unwrap();
        let (mut u, mut p) = (Vec::new(), Vec::new());
        let got: PartStats =
            extract_mail_part(&SIFTER, &reader, kind, start, end, |x| u.push(x), |x| p.push(x))
                .unwrap();
        assert_eq!(got.mail.bytes, end - start);
        reader.seek(SeekFrom::Start(start)).unwrap();
        let (idx, n) = LocalIndex::build_part(&reader, kind, start, end).unwrap();
        assert_eq!(n, got.mail.messages, "the index and the reader agree on messages");
        index.append(&idx, messages as usize);
        for mut x in u {
            x.shift(lines, messages);
            urls.push(x);
        }
        for mut x in p {
            x.shift(lines, messages);
            problems.push(x);
        }
        stats += got.mail;
        lines += got.lines;
        messages += got.mail.messages;
    }
    // Line breaks as the library counts them: LF, CR, CRLF once.
    let breaks = bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\r' || (b == b'\n' && (i == 0 || bytes[i - 1] != b'\r')))
        .count();
    assert_eq!(lines, breaks as u64, "the parts' lines add up to the file's");
    let resolved = urls.iter().map(|u| resolve_local(&index, u)).collect();
    (Outcome { urls, problems, stats, resolved }, cuts)
}

/// Fails at the first URL that differs, not with two lists of hundreds.
fn assert_same(got: &Outcome, want: &Outcome, ctx: &str) {
    for (i, (g, w)) in got.urls.iter().zip(&want.urls).enumerate() {
        let (gu, wu) = (g.url.url_lossy(), w.url.url_lossy());
        assert_eq!(
            g, w,
            "{ctx}: URL #{i}, {gu} at {:?}, wanted {wu} at {:?}",
            g.url.start, w.url.start
        );
    }
    assert_eq!(got.urls.len(), want.urls.len(), "{ctx}: URLs");
    assert_eq!(got.problems, want.problems, "{ctx}: problems");
    assert_eq!(got.stats, want.stats, "{ctx}: stats");
    assert_eq!(got.resolved, want.resolved, "{ctx}: resolved");
}

#[test]
fn fixtures_read_by_parts_are_read_whole() {
    for (name, kind, messages) in [
        ("archive.mbox", InputKind::Mbox, 7),
        ("article.news", InputKind::News, 1),
        ("maildir.eml", InputKind::Message, 1),
    ] {
        let bytes = data(name);
        let want = whole(&bytes, kind);
        assert_eq!(want.stats.messages, messages);
        assert!(!want.urls.is_empty());
        for part in [1, 2, 100, 700, 2000, 1 << 20] {
            let (got, cuts) = by_parts(&bytes, kind, part);
            assert_same(&got, &want, &format!("{name}, parts of {part}"));
            if part == 1 {
                // A cut at every message: nothing is left for luck.
                assert_eq!(cuts.len() as u64, messages + 1, "{name}: {cuts:?}");
            }
        }
    }
}

/// A tiny base64 encoder, so that the generated archive needs no crate.
fn base64(data: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for (k, c) in data.chunks(3).enumerate() {
        if k > 0 && k % 19 == 0 {
            out.push('\n');
        }
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for j in 0..4 {
            if j <= c.len() {
                out.push(ABC[(n >> (18 - 6 * j)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out.push('\n');
    out
}

/// An mbox of `n` messages of every shape the reader handles, with the
/// offset where each message starts: plain and wrapped URLs, folded
/// headers, quoted-printable soft breaks through URLs, base64 parts in
/// multiparts, CRLF messages, `>From ` quoting, and lines that look like
/// separators but are not (an unquoted `From ` body line after a blank
/// line without a time, an envelope-like line with no blank line before
/// it), an empty message and one without a header block.
fn generated_mbox(n: usize) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for i in 0..n {
        starts.push(out.len() as u64);
        let env =
            format!("From user{i}@example.org Mon Jan  {} 10:{:02}:00 1995\n", 1 + i % 9, i % 60);
        let id = format!("Message-ID: <m{i}@example.org>\n");
        let head = format!(
            "From: User {i} <user{i}@example.org>\nSubject: message {i}\n{id}\
             List-Archive: <http://lists.example.net/archive/\n 1995/{i}.html>\n"
        );
        let msg = if i == n / 2 {
            format!("{env}this message has no header block, see http://lost.example/{i}\n\n")
        } else if i == n / 3 {
            format!("{env}\n")
        } else {
            match i % 6 {
                0 => format!(
                    "{env}{head}\nSee http://www.example.com/{i}/index.html and\n\
                     <URL:ftp://ftp.example.com/pub/\n  {i}/README> and news:m{}@example.org.\n\n",
                    i / 2
                ),
                1 => format!(
                    "{env}{head}Content-Transfer-Encoding: quoted-printable\n\n\
                     The list is at http://lists.example.net/cgi-bin/search?n=3D{i}&wor=\n\
                     ds=3Dhyphen&max=\n=3D20 now, mid:m{}@example.org too.\n\n",
                    i.saturating_sub(7)
                ),
                2 => {
                    let text = format!(
                        "Thanks.\r\nThe mirror <URL:http://mirror.example.org/{i}/> has it.\r\n"
                    );
                    format!(
                        "{env}{head}MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b{i}\"\n\n\
                         preamble http://pre.example/{i}\n--b{i}\n\
                         Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n{}\
                         --b{i}\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n{}\
                         --b{i}--\n\n",
                        base64(text.as_bytes()),
                        base64(b"http://not.scanned.example/\x00\x01")
                    )
                }
                3 => format!(
                    "{env}{head}\nQuoted:\n>From user{i}@example.org Mon Jan  2 10:00:00 1995\n\
                     >>From the archive: http://quoted.example/{i}\n\n\
                     From all of us, thanks. http://thanks.example/{i}\n\
                     Forwarded:\nFrom user{i}@example.org Mon Jan  2 10:00:00 1995\n\
                     http://after.example/{i}\n\n"
                ),
                4 => format!("{env}{head}\nCRLF body http://crlf.example/{i}\n\n")
                    .replace('\n', "\r\n"),
                _ => {
                    format!("{env}{head}\n>From me: <URL:http://www.example.org/a-\n  b/{i}>\n\n\n")
                }
            }
        };
        out.extend_from_slice(msg.as_bytes());
    }
    (out, starts)
}

#[test]
fn generated_mbox_read_by_parts_is_read_whole() {
    let (bytes, starts) = generated_mbox(300);
    assert_eq!(detect(&bytes), InputKind::Mbox);
    let want = whole(&bytes, InputKind::Mbox);
    // The fixture does exercise what it claims to.
    assert_eq!(want.stats.messages, 300);
    assert_eq!(want.stats.malformed, 2);
    assert_eq!(want.problems.len(), 2);
    assert!(want.stats.decoded_qp > 0 && want.stats.decoded_base64 > 0);
    assert!(want.stats.skipped_parts > 0);
    assert!(want.resolved.iter().filter(|r| r.is_some()).count() > 50);
    assert!(want.urls.iter().any(|u| u.url.url == b"http://after.example/3"));
    assert!(want.urls.iter().any(|u| u.url.start.line != u.url.end.line));
    assert!(want.urls.iter().any(|u| !u.url.findings.is_empty()));
    for part in [1, 50, 1000, 4096, 30_000, 1 << 20] {
        let (got, cuts) = by_parts(&bytes, InputKind::Mbox, part);
        assert_same(&got, &want, &format!("parts of {part}"));
        // Every cut is a message start.
        for c in &cuts[1..cuts.len() - 1] {
            assert!(starts.binary_search(c).is_ok(), "parts of {part}: cut {c} inside a message");
        }
        if part == 1 {
            // ... and with tiny parts, every message start is a cut.
            let mut all = starts.clone();
            all.push(bytes.len() as u64);
            assert_eq!(cuts, all);
        }
    }
}

#[test]
fn cuts_never_fall_inside_a_message() {
    // Each line here that starts with `From ` is no separator: no blank
    // line before, no time in it, or quoted.
    let traps = "From: x@example.org\nSubject: traps\n\nbody\n\
        From x@example.org Mon Jan  2 10:00:00 1995\n\n\
        From all of us, thanks.\n\n\
        >From x@example.org Mon Jan  2 10:00:00 1995\n\n\
        From  x@example.org Mon Jan  2 10:00:00 1995\n\n\
        \rFrom x@example.org Mon Jan  2 10:00:00 1995\n\n\
        From x@example.org Mon Jan  2 10h00\n\n";
    let mut bytes = Vec::new();
    let mut starts = Vec::new();
    for i in 0..40 {
        starts.push(bytes.len() as u64);
        bytes.extend_from_slice(
            format!("From {i}@example.org Mon Jan  2 10:00:00 1995\n").as_bytes(),
        );
        bytes.extend_from_slice(traps.as_bytes());
    }
    let mut file = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut file, &bytes).unwrap();
    let size = bytes.len() as u64;
    let mut want = starts.clone();
    want.push(size);
    assert_eq!(message_cuts(&file, InputKind::Mbox, size, 1).unwrap(), want);
    for part in [3, 17, 100, 333, 1000] {
        let cuts = message_cuts(&file, InputKind::Mbox, size, part).unwrap();
        assert!(cuts.len() > 2, "parts of {part}: {cuts:?}");
        assert!(cuts.windows(2).all(|w| w[0] < w[1]));
        assert!(cuts.iter().all(|c| want.binary_search(c).is_ok()), "parts of {part}: {cuts:?}");
    }
    assert_eq!(whole(&bytes, InputKind::Mbox).stats.messages, 40);
}

/// An rnews batch of `n` articles with the offset of each; one article
/// quotes a whole batch (whose counts add up), and some counts end in the
/// middle of a line.
fn generated_rnews(n: usize) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for i in 0..n {
        starts.push(out.len() as u64);
        let mut art = format!(
            "Path: news.example.org!not-for-mail\nNewsgroups: comp.mail.misc\n\
             Message-ID: <r{i}@example.org>\n\nSee http://news.example.org/{i} and news:r{}@example.org\n",
            i / 3
        );
        if i % 10 == 4 {
            let inner = "Path: q\nMessage-ID: <q@example.org>\n\nhttp://quoted.example/\n";
            art += &format!("A batch looks like this:\n#! rnews {}\n{inner}", inner.len());
        }
        if i % 7 == 2 {
            art += "no final line break, http://mid.example/";
        }
        out.extend_from_slice(format!("#! rnews {}\n{art}", art.len()).as_bytes());
    }
    (out, starts)
}

#[test]
fn generated_rnews_batch_read_by_parts_is_read_whole() {
    let (bytes, starts) = generated_rnews(120);
    assert_eq!(detect(&bytes), InputKind::News);
    let want = whole(&bytes, InputKind::News);
    assert_eq!(want.stats.messages, 120);
    assert!(want.problems.is_empty());
    for part in [1, 300, 5000, 1 << 20] {
        let (got, cuts) = by_parts(&bytes, InputKind::News, part);
        assert_same(&got, &want, &format!("parts of {part}"));
        for c in &cuts[1..cuts.len() - 1] {
            assert!(starts.binary_search(c).is_ok(), "parts of {part}: cut {c} inside an article");
            assert_eq!(bytes[*c as usize - 1], b'\n', "cut {c} mid-line");
        }
        if part == 1 {
            // Every article that starts a line, and no other.
            let lined: Vec<u64> = starts
                .iter()
                .copied()
                .filter(|&s| s > 0 && bytes[s as usize - 1] == b'\n')
                .collect();
            assert!(lined.len() < starts.len() - 1);
            assert_eq!(cuts[1..cuts.len() - 1], lined[..]);
        }
    }
    // The same file forced as a single message is split alike.
    let (got, _) = by_parts(&bytes, InputKind::Message, 1);
    assert_same(&got, &whole(&bytes, InputKind::Message), "read as mail");
}

/// Byte soup made of the pieces that decide where messages start and how
/// they are read.
fn soup() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        "From a@b Mon Jan  2 10:00:00 1995\n",
        "From a@b Mon Jan  2 10:00:00 1995\r\n",
        "From all of us\n",
        "From ",
        "\n",
        "\n\n",
        "\r\n",
        "\r",
        ">",
        "Subject: s\n",
        "Message-ID: <x@y.example>\n",
        "Content-Transfer-Encoding: quoted-printable\n",
        "http://h.example/p ",
        "<URL:http://w.example/\n x>",
        "news:x@y.example ",
        "=\n",
        "=3D",
        "#! rnews 12\n",
        "#! rnews 40\n",
        "text ",
    ]);
    prop::collection::vec(pieces, 0..120).prop_map(|v| v.concat().into_bytes())
}

/// An rnews batch of soup articles, most counts right, some a little off
/// (so that articles start mid-line, or the chain breaks).
fn batch() -> impl Strategy<Value = Vec<u8>> {
    let article = prop::collection::vec(soup(), 1..3).prop_map(|v| v.concat());
    let off = prop::sample::select(vec![0i64, 0, 0, 0, 0, 0, -1, 1, -3]);
    prop::collection::vec((article, off), 0..12).prop_map(|v| {
        let mut out = Vec::new();
        for (a, off) in v {
            let n = (a.len() as i64 + off).max(0);
            out.extend_from_slice(format!("#! rnews {n}\n").as_bytes());
            out.extend_from_slice(&a);
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Whatever the bytes, parts joined are the one pass.
    #[test]
    fn any_input_read_by_parts_is_read_whole(
        bytes in soup(),
        kind in prop::sample::select(vec![InputKind::Mbox, InputKind::News, InputKind::Message]),
        part in 1u64..200,
    ) {
        let want = whole(&bytes, kind);
        let (got, _) = by_parts(&bytes, kind, part);
        assert_same(&got, &want, &format!("{kind:?}, parts of {part}"));
    }

    /// The same for rnews batches, whose cuts follow the byte counts.
    #[test]
    fn any_batch_read_by_parts_is_read_whole(
        bytes in batch(),
        kind in prop::sample::select(vec![InputKind::News, InputKind::Message]),
        part in 1u64..400,
    ) {
        let want = whole(&bytes, kind);
        let (got, _) = by_parts(&bytes, kind, part);
        assert_same(&got, &want, &format!("{kind:?}, parts of {part}"));
    }
}

#[test]
fn text_is_not_cut_into_messages() {
    let bytes = data("archive.mbox");
    let (out, cuts) = {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, &bytes).unwrap();
        let cuts = message_cuts(&file, InputKind::Text, bytes.len() as u64, 1).unwrap();
        let out = extract_mail_part(&SIFTER, &bytes[..], InputKind::Text, 0, 10, |_| {}, |_| {});
        (out, cuts)
    };
    assert_eq!(cuts, [0, bytes.len() as u64]);
    assert_eq!(out.unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
}

/// The real archives, when present, cut in parts of 1 MiB (about 30 cuts
/// per file) and in parts of 64 KiB for the first few megabytes.
#[test]
fn real_archives_read_by_parts_are_read_whole() {
    let Some(files) = corpus_mboxes() else {
        println!("skipped: ../shared/corpus/mail is absent");
        return;
    };
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let want = whole(&bytes, InputKind::Mbox);
        let (got, cuts) = by_parts(&bytes, InputKind::Mbox, 1 << 20);
        assert!(cuts.len() as u64 > bytes.len() as u64 / (2 << 20), "{name}: {} cuts", cuts.len());
        assert_same(&got, &want, &name);
        let head = &bytes[..bytes.len().min(4 << 20)];
        let (got, cuts) = by_parts(head, InputKind::Mbox, 64 << 10);
        assert!(cuts.len() > 20, "{name}: {} cuts", cuts.len());
        assert_same(&got, &whole(head, InputKind::Mbox), &format!("{name}, head"));
    }
}

/// A header field is read up to 256 KiB (issue 20: a 100 MB header line
/// took 1.5 GB): what is past that is reported as not read, and the rest
/// of the message is read as usual.
#[test]
fn a_huge_header_field_is_read_up_to_its_cap() {
    let mut msg = b"From: a@b.example\nX-Long: http://first.example/ ".to_vec();
    while msg.len() < 1 << 20 {
        msg.extend_from_slice(b"word ");
    }
    msg.extend_from_slice(b"http://last.example/\nSubject: x\n\nbody http://body.example/\n");
    let (urls, problems, _) = run(&msg, InputKind::Message);
    let got: Vec<&[u8]> = urls.iter().map(|u| &u.url.url[..]).collect();
    assert_eq!(got, [&b"http://first.example/"[..], b"http://body.example/"]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].skipped && problems[0].reason.contains("X-Long"), "{problems:?}");
    assert_eq!(problems[0].line, 2);
}
