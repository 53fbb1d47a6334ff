//! The RFC 1738 validator against the specification's own examples, a
//! table per scheme, every diagnostic code, and grammar-driven property
//! tests that hold the DFA verdict and the explaining parser to the same
//! answer.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use proptest::prelude::*;
use urlsift::diag::{Code, Grammar, Severity};
use urlsift::rules::{SchemeKind, Validation, Validator};

static RFC1738: LazyLock<Validator> = LazyLock::new(|| Validator::new(Grammar::Rfc1738));
static MODERN: LazyLock<Validator> = LazyLock::new(|| Validator::new(Grammar::Modern));
static RFC3986: LazyLock<Validator> = LazyLock::new(|| Validator::new(Grammar::Rfc3986));

fn validator(g: Grammar) -> &'static Validator {
    match g {
        Grammar::Rfc1738 => &RFC1738,
        Grammar::Modern => &MODERN,
        Grammar::Rfc3986 => &RFC3986,
    }
}

/// Renders a validation for failure messages.
fn render(url: &[u8], r: &Validation) -> String {
    let mut s = format!("{}\n", String::from_utf8_lossy(url));
    for d in &r.diagnostics {
        s.push_str(&format!(
            "  {}[{}] {}..{} {} fix={:?}\n",
            d.severity, d.code, d.start, d.end, d.message, d.fix
        ));
    }
    s
}

/// The fast verdict, the parser's verdict and `diagnose` all agree, and the
/// result is internally consistent (sorted, spans in bounds, grammar set).
fn consistent(v: &Validator, url: &[u8]) -> Validation {
    let r = v.validate(url);
    assert_eq!(v.is_valid(url), r.is_valid(), "DFA and parser disagree:\n{}", render(url, &r));
    let mut out = Vec::new();
    v.diagnose(url, &mut out);
    assert_eq!(out, r.diagnostics, "diagnose differs from validate:\n{}", render(url, &r));
    assert!(r.diagnostics.windows(2).all(|w| w[0].start <= w[1].start));
    assert!(r.components.windows(2).all(|w| w[0].start <= w[1].start));
    for d in &r.diagnostics {
        assert!(d.start <= d.end && d.end <= url.len(), "span out of bounds:\n{}", render(url, &r));
        assert_eq!(d.grammar, Some(v.grammar()));
        assert!(!d.message.is_empty());
    }
    for c in &r.components {
        assert!(c.start <= c.end && c.end <= url.len());
    }
    r
}

fn assert_valid(g: Grammar, url: &str) -> Validation {
    let r = consistent(validator(g), url.as_bytes());
    assert!(r.is_valid(), "expected valid under {g:?}:\n{}", render(url.as_bytes(), &r));
    r
}

fn assert_code(g: Grammar, url: &str, code: Code) -> Validation {
    let r = consistent(validator(g), url.as_bytes());
    assert!(
        r.diagnostics.iter().any(|d| d.code == code),
        "expected {code} under {g:?}:\n{}",
        render(url.as_bytes(), &r)
    );
    if validator(g).severity(code, r.kind) == Some(Severity::Error) {
        assert!(!r.is_valid());
    } else {
        assert!(r.is_valid(), "expected no error:\n{}", render(url.as_bytes(), &r));
    }
    r
}

// ---------------------------------------------------------------------------
// The seeds' own URLs.

/// Every URL the seeds quote as a working example, rejoined where the text
/// broke it across lines. Each must be valid under both grammars.
const SEED_URLS: &[&str] = &[
    // 001 (RFC 1738) and 004 (draft-ietf-uri-url-06): sections 3.x.
    "http://www.acl.lanl.gov/URI/archive/uri-archive.index.html",
    "ftp://@host.com/",
    "ftp://host.com/",
    "ftp://foo:@host.com/",
    "ftp://myname@host.dom/%2Fetc/motd",
    "ftp://myname@host.dom/etc/motd",
    "ftp://myname@host.dom//etc/motd",
    "news:*",
    "file://vms.host.edu/disk$user/my/notes/note12345.txt",
    "prospero://host.dom//pros/name",
    // Appendix examples.
    "ftp://info.cern.ch/pub/www/doc;type=d",
    "ftp://ds.internic.net/rfc",
    "http://ds.internic.net/instructions/overview.html#WARNING",
    // Reference lists.
    "ftp://ds.internic.net/rfc/rfc1436.txt;type=a",
    "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt",
    "ftp://ds.internic.net/rfc/rfc1630.txt",
    "ftp://info.cern.ch/pub/www/doc/http-spec.txt.Z",
    "ftp://ds.internic.net/rfc/rfc1123.txt",
    "ftp://ds.internic.net/rfc/rfc822.txt",
    "ftp://quake.think.com/pub/wais/doc/protspec.txt",
    "ftp://ds.internic.net/rfc/rfc1036.txt",
    "ftp://quake.think.com/pub/wais/doc/doc-ids.txt",
    "ftp://ds.internic.net/rfc/rfc977.txt",
    "ftp://ds.internic.net/internet-drafts/draft-ietf-uri-irl-fun-req-02.txt",
    "ftp://ds.internic.net/rfc/rfc1034.txt",
    "ftp://prospero.isi.edu/pub/prospero/doc/prospero-protocol.PS.Z",
    "ftp://ds.internic.net/rfc/rfc959.txt",
    "ftp://ds.internic.net/rfc/rfc1737.txt",
    "ftp://ds.internic.net/rfc/rfc1625.txt",
    "ftp://uu.psi.com/wp/nir.txt",
    "gopher://boombox.micro.umn.edu/11/gopher/gopher_protocol",
    "wais://quake.think.com/wais-discussion-archives?lynch",
    "ftp://ds.internic.net/internet-drafts/draft-ietf-uri-fun-req-00.txt",
    "ftp://ds.internic.net/rfc/rfc1635.txt",
    // 002 (1993 draft), `URL=<...>` references.
    "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol",
    "gopher://gopher.micro.umn.edu/00/Information%20About%20Gopher/About%20Gopher",
    "ftp://nnsc.nsf.net/rfc/rfc977.txt",
    "wais://quake.think.com/wais-discussion-archives?lynch",
    "ftp://nnsc.nsf.net/rfc/rfc1034.txt",
    "ftp://prospero.isi.edu/pub/prospero/oir.ps",
    "ftp://nnsc.nsf.net/rfc/rfc959.txt",
    "wais://nnsc.nsf.net/internet-drafts?yeong",
    // 003 (RFC 1630).
    "http://info.cern.ch/hypertext/WWW/Addressing/URL/URI_Overview.html",
    "http://info.cern.ch/albert/bertram/marie-claude",
    "http://info.cern.ch/albert/bertram/marie%2Dclaude",
    "http://info.cern.ch/albert/bertram%2Fmarie-claude",
    "http://www.my.work.com/",
    "http://www.my.uni.edu/info/matriculation/enroling.html",
    "http://info.my.org/AboutUs/Phonebook",
    "http://www.library.my.town.va.us/Catalogue/76523471236%2Fwen44--4.98",
    "http://www.my.org/462F4F2D4241522A314159265358979323846",
    "http://info.cern.ch:8000/imaginary/test",
    "http://www.myu.edu/org/admin/people#andy",
    "http://info.my.org/AboutUs/Index/Phonebook?dobbins",
    "ftp://boombbox.micro.umn.edu/pub/gopher/gopher_protocol",
    "gopher://gopher.micro.umn.edu/00/InformationAboutGopher/AboutGopher",
    "ftp://info.cern.ch/pub/www/doc/http-spec.txt",
    "ftp://quake.think.com/pub/wais/doc/protospec.txt",
    "urn:iana/dns/ch/cern/cn/techdoc/94/1642-3",
    // 000 (Spanish notes).
    "http://www.zator.com/Cpp/index.htp",
    "file://zator.host.com/private/Url.txt",
    "ftp://minombre@zator.dom/%2Fetc/xyz",
    "ftp://minombre@zator.dom/etc/xyz",
    "ftp://minombre@zator.dom//etc/xyz",
    "ftp://oak.oakland.edu/simtel/win3/eudora/eudrm144.zip",
    "mailto:support@zator.com",
    "gopher://gopher.creaf.com/",
    "news:alaska-software.news.3pp",
    "news:alaska-software.news.bugreport",
    "news:alaska-software.news.data-access",
    "telnet://well.sf.ca.us",
    // 004 3.4.x: gopher+ strings, set in a gopher URL.
    "gopher://host.dom/7sel%09search%09!+ABSTRACT",
    "gopher://host.dom/7sel%09search%09!+ABSTRACT%20+SMELL",
    "gopher://host.dom/1sel%09%09+application/postscript%20Es_ES",
    "gopher://host.dom/1sel%09%09+%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A",
];

#[test]
fn seed_urls_are_valid() {
    for g in Grammar::ALL {
        for url in SEED_URLS {
            let r = assert_valid(g, url);
            assert_ne!(r.scheme, "");
        }
    }
}

/// Seed URLs that RFC 1738 itself rejects, and why: the older texts are
/// evidence of what real text holds, not of what is valid.
#[test]
fn seed_urls_that_break_rfc_1738() {
    // 002: a root dot after the host name; RFC 1738's `hostname` ends with
    // a `toplabel`, RFC 3986 3.2.2 allows the dot.
    assert_code(
        Grammar::Rfc1738,
        "ftp://info.cern.ch./pub/www/doc/http-spec.txt",
        Code::BadHostname,
    );
    assert_valid(Grammar::Modern, "ftp://info.cern.ch./pub/www/doc/http-spec.txt");
    // 000: a DOS drive letter where the host goes.
    let r = assert_code(Grammar::Rfc1738, "file://D:/Doc/Info/Internet/Index.htm", Code::FileHost);
    let fix = r.diagnostics.iter().find_map(|d| d.fix.clone()).expect("a fix");
    assert_eq!(fix, "file:///D:/Doc/Info/Internet/Index.htm");
    assert_valid(Grammar::Rfc1738, &fix);
    // 003 (RFC 1630 5.1): `%%3D` is a bare `%`.
    assert_code(
        Grammar::Rfc1738,
        "http://info.cern.ch/RDB/EMP?*%20where%20name%%3Ddobbins",
        Code::BadEscape,
    );
    // 003 (RFC 1630 3.2) calls these two illegal itself.
    assert_code(Grammar::Rfc1738, "fxqn:/us/va/reston/cnri/ietf/24/asdf%*.fred", Code::BadEscape);
    assert_code(Grammar::Rfc1738, "news:12345667123%asdghfh@info.cern.ch", Code::BadEscape);
}

// ---------------------------------------------------------------------------
// Per-scheme tables (RFC 1738 grammar unless noted).

/// Valid under RFC 1738 (and so under RFC 3986), with no error.
const VALID: &[&str] = &[
    // 3.2 ftp
    "ftp://host",
    "ftp://host/",
    "ftp://user@host:2121/dir/file;type=i",
    "ftp://host/;type=A",
    "ftp://a;b&c=d@host/",
    "ftp://host/a?b:c@d&e=f/%3Bx",
    "ftp://10.0.0.1/pub",
    "FTP://HOST.EXAMPLE/pub",
    // 3.3 http
    "http://host",
    "http://host/",
    "http://host:8080",
    "http://www.example.com/a/b.html",
    "http://www.example.com/a;b:c@d&e=f/?q;x:y@z&a=b",
    "http://3com.com/",
    "http://a-b.c-d.example/",
    "http://x/",
    "http://0.0.0.0/",
    "http://255.255.255.255:65535/",
    "http://host/#",
    "http://host/p#frag/with?reserved;chars:@&=",
    "https://secure.example.com/login?next=home",
    "https://host:8443/",
    // 3.4 gopher
    "gopher://host",
    "gopher://host/",
    "gopher://host/1",
    "gopher://host/11/dir/sub",
    "gopher://host:7070/7search%09query%20words",
    "gopher://host/%09",
    "gopher://host/0/file?with;reserved@chars",
    // 3.5 mailto
    "mailto:user@example.com",
    "mailto:first.last+tag@sub.example.com",
    "mailto:user%25relay@gateway.example",
    "mailto:user@host?subject=hello",
    // 3.6 news
    "news:comp.infosystems.www",
    "news:alt.fan+club_x-y",
    "news:123@host.example",
    "news:a/b?c:d;e&f=g@10.1.2.3",
    // 3.7 nntp
    "nntp://news.example.com/comp.lang.c",
    "nntp://news.example.com/comp.lang.c/12345",
    "nntp://news.example.com:1119/alt.test/1",
    // 3.8 telnet
    "telnet://host",
    "telnet://host/",
    "telnet://guest@host:2323/",
    "telnet://user:@host/",
    // 3.9 wais
    "wais://host/",
    "wais://host/db",
    "wais://host:2100/db?some;search:terms",
    "wais://host/db/TEXT/doc%2Fid",
    "wais://host///",
    // 3.10 file
    "file:///etc/passwd",
    "file:///",
    "file://localhost/etc/fstab",
    "file://host.example/dir/file",
    "file:////share/x",
    "file:///C:/dir/file",
    // 3.11 prospero
    "prospero://host/pros/name",
    "prospero://host:1526/pros/name;OBJECT-VERSION=3",
    "prospero://host/;a=b;c=d",
    "prospero://host/p;=",
    // RFC 1630 mid, cid
    "mid:960830.1639@XIson.com",
    "cid:foo4*foo1@bar.net",
    // generic
    "foo:",
    "foo:bar",
    "foo://",
    "foo:/a",
    "foo://user:pw@host:/p//q?r/s?#t",
    "foo://999.1.1.1/",
    "x-fax:+1-555-0100",
    "afs://transarc.com/usr/local",
    "urn:iana/dns/ch/cern/cn/techdoc/94/1642-3",
];

/// (grammar, URL, code): each URL produces the code (an error unless the
/// code's default severity says otherwise).
const CASES: &[(Grammar, &str, Code)] = &[
    (Grammar::Rfc1738, "", Code::EmptyUrl),
    // scheme
    (Grammar::Rfc1738, "www.example.com", Code::InvalidScheme),
    (Grammar::Rfc1738, ":foo", Code::InvalidScheme),
    (Grammar::Rfc1738, "ht_tp://host/", Code::InvalidScheme),
    (Grammar::Rfc1738, "//host/path", Code::InvalidScheme),
    (Grammar::Modern, "1a:b", Code::InvalidScheme),
    (Grammar::Rfc1738, "HTTP://www.example.com/", Code::UppercaseScheme),
    (Grammar::Rfc1738, "Mailto:a@b", Code::UppercaseScheme),
    (Grammar::Rfc1738, "foo:bar", Code::UnknownScheme),
    (Grammar::Rfc1738, "foo://user@host:1/p?q#f", Code::UnknownScheme),
    (Grammar::Rfc1738, "afs://transarc.com/usr", Code::HistoricalScheme),
    (Grammar::Rfc1738, "x-fax:+1-555-0100", Code::ExperimentalScheme),
    (Grammar::Rfc1738, "urn:iana/dns/ch", Code::ReservedScheme),
    (Grammar::Rfc1738, "nfs://host/export", Code::ReservedScheme),
    // characters
    (Grammar::Rfc1738, "http://host/a b", Code::UnsafeCharacter),
    (Grammar::Rfc1738, "http://host/a<b>", Code::UnsafeCharacter),
    (Grammar::Rfc1738, "http://host/\"x\"", Code::UnsafeCharacter),
    (Grammar::Rfc1738, "http://host/~user/", Code::UnsafeCharacter),
    (Grammar::Rfc1738, "http://host/a{b}|c\\d^e[f]`g", Code::UnsafeCharacter),
    (Grammar::Rfc1738, "ftp://host/~ftp/pub", Code::UnsafeCharacter),
    (Grammar::Rfc1738, "foo:a b", Code::UnsafeCharacter),
    (Grammar::Modern, "http://host/a b", Code::UnsafeCharacter),
    (Grammar::Rfc1738, "http://host/caf\u{e9}", Code::NonAscii),
    (Grammar::Rfc1738, "http://h\u{f6}st/", Code::NonAscii),
    (Grammar::Rfc1738, "http://host/a\u{1}b", Code::ControlCharacter),
    (Grammar::Rfc1738, "http://host/a\u{7f}", Code::ControlCharacter),
    (Grammar::Rfc1738, "http://host/100%", Code::BadEscape),
    (Grammar::Rfc1738, "http://host/%zz", Code::BadEscape),
    (Grammar::Rfc1738, "mailto:user%relay@gateway", Code::BadEscape),
    (Grammar::Rfc1738, "http://host/a?b/c", Code::ReservedCharacter),
    (Grammar::Rfc1738, "http://host/a?b?c", Code::ReservedCharacter),
    (Grammar::Rfc1738, "http://host?q", Code::ReservedCharacter),
    (Grammar::Rfc1738, "ftp://host/a;b/c", Code::ReservedCharacter),
    (Grammar::Rfc1738, "ftp://us:er:pw@host/", Code::ReservedCharacter),
    (Grammar::Rfc1738, "ftp://a@b@host/", Code::ReservedCharacter),
    (Grammar::Rfc1738, "wais://host/db/t?x/y", Code::WaisForm),
    (Grammar::Modern, "ftp://a?b@host/", Code::ReservedCharacter),
    (Grammar::Modern, "gopher://host?x", Code::ReservedCharacter),
    // structure
    (Grammar::Rfc1738, "http:foo", Code::MissingSlashes),
    (Grammar::Rfc1738, "http:/foo", Code::MissingSlashes),
    (Grammar::Rfc1738, "file:/etc/passwd", Code::MissingSlashes),
    (Grammar::Rfc1738, "file://host", Code::MissingSlashes),
    (Grammar::Rfc1738, "prospero://host", Code::MissingSlashes),
    // hosts
    (Grammar::Rfc1738, "http://", Code::EmptyHost),
    (Grammar::Rfc1738, "http:///path", Code::EmptyHost),
    (Grammar::Rfc1738, "ftp://user@/", Code::EmptyHost),
    (Grammar::Rfc1738, "http://:80/", Code::EmptyHost),
    (Grammar::Rfc1738, "news:abc@", Code::EmptyHost),
    (Grammar::Rfc1738, "http://ho_st/", Code::BadHostname),
    (Grammar::Rfc1738, "http://a..b/", Code::BadHostname),
    (Grammar::Rfc1738, "http://.a/", Code::BadHostname),
    (Grammar::Rfc1738, "http://host.example./", Code::BadHostname),
    (Grammar::Rfc1738, "http://[::1]/", Code::BadHostname),
    (Grammar::Rfc1738, "http://ho%41st/", Code::BadHostname),
    (Grammar::Modern, "http://[::1:]/", Code::BadHostname),
    (Grammar::Modern, "http://[::1/", Code::BadHostname),
    (Grammar::Modern, "foo://[zz]/", Code::BadHostname),
    (Grammar::Modern, "foo://ho^st/", Code::UnsafeCharacter),
    (Grammar::Rfc1738, "http://www.example.123/", Code::TopLabelDigit),
    (Grammar::Rfc1738, "http://1.2.3/", Code::TopLabelDigit),
    (Grammar::Rfc1738, "http://1.2.3.4.5/", Code::TopLabelDigit),
    (Grammar::Modern, "http://1.2.3.4./", Code::TopLabelDigit),
    (Grammar::Rfc1738, "http://-a.example/", Code::LabelHyphen),
    (Grammar::Rfc1738, "http://a-.example/", Code::LabelHyphen),
    (Grammar::Rfc1738, "http://www.example-/", Code::LabelHyphen),
    (Grammar::Rfc1738, "http://256.1.1.1/", Code::IpOctetRange),
    (Grammar::Rfc1738, "ftp://10.0.0.999/", Code::IpOctetRange),
    (Grammar::Rfc1738, "news:x@1.1.1.300", Code::IpOctetRange),
    (Grammar::Rfc1738, "file://300.0.0.1/x", Code::IpOctetRange),
    (Grammar::Modern, "http://256.1.1.1/", Code::IpOctetRange),
    // ports
    (Grammar::Rfc1738, "http://host:abc/", Code::BadPort),
    (Grammar::Rfc1738, "http://host:/", Code::BadPort),
    (Grammar::Rfc1738, "http://host:80:80/", Code::BadPort),
    (Grammar::Rfc1738, "http://host:-1/", Code::BadPort),
    (Grammar::Modern, "foo://host:8x/", Code::BadPort),
    (Grammar::Rfc1738, "http://host:70000/", Code::PortRange),
    (Grammar::Rfc1738, "http://host:99999999999999999999/", Code::PortRange),
    (Grammar::Rfc1738, "http://host:80/", Code::DefaultPort),
    (Grammar::Rfc1738, "https://host:443/", Code::DefaultPort),
    (Grammar::Rfc1738, "ftp://host:21/", Code::DefaultPort),
    (Grammar::Rfc1738, "gopher://host:70/", Code::DefaultPort),
    (Grammar::Rfc1738, "nntp://host:119/g", Code::DefaultPort),
    (Grammar::Rfc1738, "telnet://host:23", Code::DefaultPort),
    (Grammar::Rfc1738, "wais://host:210/db", Code::DefaultPort),
    (Grammar::Rfc1738, "prospero://host:1525/p", Code::DefaultPort),
    (Grammar::Rfc1738, "http://host:080/", Code::DefaultPort),
    (Grammar::Rfc1738, "http://host:25/", Code::LowPort),
    (Grammar::Rfc1738, "gopher://host:25/", Code::LowPort),
    (Grammar::Rfc1738, "http://host:0/", Code::LowPort),
    // userinfo
    (Grammar::Rfc1738, "ftp://user:secret@host/", Code::PasswordPresent),
    (Grammar::Rfc1738, "telnet://user:secret@host/", Code::PasswordPresent),
    (Grammar::Modern, "ftp://user:se:cret@host/", Code::PasswordPresent),
    (Grammar::Rfc1738, "http://user@host/", Code::UserinfoNotAllowed),
    (Grammar::Rfc1738, "http://user:pw@host/", Code::UserinfoNotAllowed),
    (Grammar::Rfc1738, "https://@host/", Code::UserinfoNotAllowed),
    (Grammar::Rfc1738, "gopher://user@host/", Code::UserinfoNotAllowed),
    (Grammar::Rfc1738, "nntp://user@host/g", Code::UserinfoNotAllowed),
    (Grammar::Rfc1738, "wais://user@host/db", Code::UserinfoNotAllowed),
    (Grammar::Rfc1738, "prospero://user@host/p", Code::UserinfoNotAllowed),
    // schemes
    (Grammar::Rfc1738, "ftp://host/f;type=x", Code::FtpTypecode),
    (Grammar::Rfc1738, "ftp://host/f;type=", Code::FtpTypecode),
    (Grammar::Rfc1738, "ftp://host/f;type=ai", Code::FtpTypecode),
    (Grammar::Rfc1738, "ftp://host/f;TYPE=a", Code::FtpTypecode),
    (Grammar::Rfc1738, "ftp://host/f;type=a/g", Code::FtpTypecode),
    (Grammar::Rfc1738, "gopher://host/1a\tb", Code::GopherSelector),
    (Grammar::Rfc1738, "gopher://host/1a\r\nb", Code::GopherSelector),
    (Grammar::Rfc1738, "news:", Code::NewsForm),
    (Grammar::Rfc1738, "news:1comp.lang", Code::NewsForm),
    (Grammar::Rfc1738, "news:comp/lang", Code::NewsForm),
    (Grammar::Rfc1738, "news:comp.l%41ng", Code::NewsForm),
    (Grammar::Rfc1738, "news:@host", Code::NewsForm),
    (Grammar::Rfc1738, "news:**", Code::NewsForm),
    (Grammar::Rfc1738, "nntp://host", Code::NewsForm),
    (Grammar::Rfc1738, "nntp://host/", Code::NewsForm),
    (Grammar::Rfc1738, "nntp://host/9group/1", Code::NewsForm),
    (Grammar::Rfc1738, "nntp://host/comp.lang.c/12a", Code::NntpArticle),
    (Grammar::Rfc1738, "nntp://host/comp.lang.c/", Code::NntpArticle),
    (Grammar::Rfc1738, "nntp://host/comp.lang.c/1/2", Code::NntpArticle),
    (Grammar::Rfc1738, "telnet://host/x", Code::TelnetPath),
    (Grammar::Rfc1738, "telnet://host//", Code::TelnetPath),
    (Grammar::Rfc1738, "wais://host", Code::WaisForm),
    (Grammar::Rfc1738, "wais://host/db/type", Code::WaisForm),
    (Grammar::Rfc1738, "wais://host/db/t/p/x", Code::WaisForm),
    (Grammar::Rfc1738, "file://D:/Doc/x.htm", Code::FileHost),
    (Grammar::Rfc1738, "file://user@host/x", Code::FileHost),
    (Grammar::Rfc1738, "file://host:21/x", Code::FileHost),
    (Grammar::Rfc1738, "prospero://host/p;a", Code::ProsperoField),
    (Grammar::Rfc1738, "prospero://host;a=b", Code::ProsperoField),
    (Grammar::Rfc1738, "prospero://host/p;a=b=c", Code::ProsperoField),
    (Grammar::Rfc1738, "prospero://host/p;a/b=c", Code::ProsperoField),
    (Grammar::Rfc1738, "telnet://user%0D%0A@host/", Code::EncodedDelimiter),
    (Grammar::Rfc1738, "ftp://host/a%0db", Code::EncodedDelimiter),
    (Grammar::Rfc1738, "ftp://host/a%09b", Code::EncodedDelimiter),
    (Grammar::Rfc1738, "gopher://host/1a%0Ab", Code::EncodedDelimiter),
    (Grammar::Rfc1738, "mailto:", Code::MailtoAddress),
    (Grammar::Rfc1738, "mailto:postmaster", Code::MailtoAddress),
    (Grammar::Rfc1738, "mailto:a@b@c", Code::MailtoAddress),
    (Grammar::Rfc1738, "mailto:@b", Code::MailtoAddress),
    (Grammar::Rfc1738, "mailto:a@", Code::MailtoAddress),
    (Grammar::Rfc1738, "mid:", Code::MessageId),
    (Grammar::Rfc1738, "mid:foo", Code::MessageId),
    (Grammar::Rfc1738, "cid:@x", Code::MessageId),
    (Grammar::Rfc1738, "http://host/a#b#c", Code::BadFragment),
    (Grammar::Rfc3986, "http://host/a#b#c", Code::BadFragment),
    (Grammar::Modern, "https://%E4%BE%8B.com/", Code::EncodedHost),
];

/// Valid only under RFC 3986.
const VALID_3986_ONLY: &[&str] = &[
    "http://host/~user/",
    "http://host/a?b/c?d",
    "http://host?q",
    "https://host?q=1",
    "http://[::1]:8080/",
    "https://[2001:db8::7]/x",
    "ftp://[v7.future]/",
    "http://host.example./",
    "ftp://info.cern.ch./pub",
    "ftp://user:pa:ss@host/",
    "mailto:~user@host",
    "http://host/#~frag",
    "foo://[::ffff:10.0.0.1]:80",
];

#[test]
fn valid_table() {
    for g in Grammar::ALL {
        for url in VALID {
            assert_valid(g, url);
        }
    }
    // RFC 1738 users may hold `?`; RFC 3986 would end the authority there.
    assert_valid(Grammar::Rfc1738, "ftp://a?b&c=d;e@host/");
    // RFC 1738 lets a scheme start with a digit; RFC 3986 does not.
    assert_valid(Grammar::Rfc1738, "1a:b");
    for url in VALID_3986_ONLY {
        assert_valid(Grammar::Modern, url);
        let r = consistent(&RFC1738, url.as_bytes());
        assert!(!r.is_valid(), "expected invalid under RFC 1738: {url}");
        // Every RFC 1738 error names RFC 3986 as the way out.
        assert!(
            r.diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .all(|d| d.message.contains("RFC 3986")),
            "{}",
            render(url.as_bytes(), &r)
        );
    }
}

/// RFC 5538's news URLs with a server: read by the modern profile, refused
/// by RFC 1738's (which has no server in a news URL), with the same
/// verdict from the DFA and the parser.
#[test]
fn news_urls_may_name_their_server_in_the_modern_profile() {
    for url in [
        "news://news.example.com/comp.lang.rust",
        "news://news.example.com:119/comp.lang.rust",
        "news://news.example.com/",
        "news://news.example.com/*",
        "news://[2001:db8::1]/comp.lang.rust",
        "news://news.example.com/comp.lang.rust#top",
    ] {
        assert_valid(Grammar::Modern, url);
        let r = consistent(&RFC1738, url.as_bytes());
        assert!(!r.is_valid(), "expected invalid under RFC 1738: {url}");
    }
    // RFC 1738 reads this one as an article: `//news.example.com/1234.abc`
    // is all `uchar` and `/`, before `@host`.
    assert_valid(Grammar::Modern, "news://news.example.com/1234.abc@host.example");
    assert_valid(Grammar::Rfc1738, "news://256.1.1.1/1234.abc@host.example");
    assert_code(Grammar::Modern, "news://news.example.com", Code::NewsForm);
    assert_code(Grammar::Modern, "news://news.example.com/1comp", Code::NewsForm);
    assert_code(Grammar::Modern, "news://256.1.1.1/comp.lang", Code::IpOctetRange);
    assert_code(Grammar::Modern, "news://news.example.com/a@256.1.1.1", Code::IpOctetRange);
    assert_code(Grammar::Modern, "news://news.example.com:x/comp", Code::BadPort);
    assert_code(Grammar::Modern, "news:///comp.lang", Code::EmptyHost);
    assert!(!consistent(&MODERN, b"news://u@news.example.com/comp").is_valid());
    assert!(!consistent(&MODERN, b"news://news.example.com?q/comp").is_valid());
}

#[test]
fn invalid_table() {
    for (g, url, code) in CASES {
        assert_code(*g, url, *code);
    }
}

#[test]
fn every_code_is_produced_by_some_case() {
    let seen: BTreeSet<Code> = CASES.iter().map(|c| c.2).collect();
    // Produced outside the validator: by extraction, by the
    // configuration's scheme lists (tests/formats.rs covers that one), and
    // by the local-link check (tests/local_links.rs).
    let extraction = [
        Code::UnclosedWrapper,
        Code::HyphenLineBreak,
        Code::SchemeNotAllowed,
        Code::UrlTooLong,
        Code::LocalLinkMissing,
        Code::FragmentMissing,
    ];
    for code in Code::ALL {
        // Online codes come from a server (tests/online.rs).
        if !extraction.contains(code) && !code.is_online() {
            assert!(seen.contains(code), "no test case produces {code}");
        }
    }
}

#[test]
fn components_and_kinds() {
    let r = assert_valid(Grammar::Rfc1738, "FTP://user:pw@host.dom:2121/a/b;type=d#top");
    assert_eq!(r.scheme, "ftp");
    assert_eq!(r.kind, SchemeKind::Ftp);
    let url = "FTP://user:pw@host.dom:2121/a/b;type=d#top";
    let parts: Vec<(&str, &str)> =
        r.components.iter().map(|c| (c.name, &url[c.start..c.end])).collect();
    assert_eq!(
        parts,
        [
            ("scheme", "FTP"),
            ("user", "user"),
            ("password", "pw"),
            ("host", "host.dom"),
            ("port", "2121"),
            ("path-segment", "a"),
            ("path-segment", "b"),
            ("typecode", "d"),
            ("fragment", "top"),
        ]
    );
    let url = "gopher://host/7sel%09a b%09+";
    let r = RFC1738.validate(url.as_bytes());
    let names: Vec<&str> = r.components.iter().map(|c| c.name).collect();
    assert_eq!(names, ["scheme", "host", "gtype", "selector", "gopher-search", "gopher+"]);
    let url = "wais://host/db/TEXT/id";
    let r = RFC1738.validate(url.as_bytes());
    let names: Vec<&str> = r.components.iter().map(|c| c.name).collect();
    assert_eq!(names, ["scheme", "host", "database", "wtype", "wpath"]);
    let url = "prospero://host/p;n=v";
    let r = RFC1738.validate(url.as_bytes());
    let names: Vec<&str> = r.components.iter().map(|c| c.name).collect();
    assert_eq!(names, ["scheme", "host", "path-segment", "fieldname", "fieldvalue"]);
    for (url, kind) in [
        ("https://h/", SchemeKind::Https),
        ("mid:a@b", SchemeKind::Mid),
        ("cid:a@b", SchemeKind::Cid),
        ("afs://cell/x", SchemeKind::Afs),
        ("URN:x", SchemeKind::Urn),
        ("x-y:z", SchemeKind::Experimental),
        ("zz:z", SchemeKind::Other),
        ("mailto:a@b", SchemeKind::Mailto),
        ("news:a", SchemeKind::News),
        ("nntp://h/g", SchemeKind::Nntp),
        ("telnet://h", SchemeKind::Telnet),
        ("file:///x", SchemeKind::File),
        ("http://h", SchemeKind::Http),
    ] {
        assert_eq!(RFC1738.validate(url.as_bytes()).kind, kind, "{url}");
    }
    let r = RFC1738.validate(b"no scheme");
    assert_eq!((r.scheme.as_str(), r.kind), ("", SchemeKind::Other));
}

#[test]
fn fixes_are_mechanical_and_repair() {
    for (url, code, fixed) in [
        ("http://host/a b", Code::UnsafeCharacter, "http://host/a%20b"),
        ("http://host/~u", Code::UnsafeCharacter, "http://host/%7Eu"),
        ("http://host/100%", Code::BadEscape, "http://host/100%25"),
        ("http://host:80/x", Code::DefaultPort, "http://host/x"),
        ("HTTP://host/", Code::UppercaseScheme, "http://host/"),
        ("http://host?q", Code::ReservedCharacter, "http://host/?q"),
        ("http:host/x", Code::MissingSlashes, "http://host/x"),
        ("file:/etc/x", Code::MissingSlashes, "file:///etc/x"),
        ("http://u:p@host/", Code::UserinfoNotAllowed, "http://host/"),
        ("ftp://u:p@host/", Code::PasswordPresent, "ftp://u@host/"),
        ("telnet://host/x#f", Code::TelnetPath, "telnet://host/#f"),
        ("http://h/caf\u{e9}", Code::NonAscii, "http://h/caf%C3%A9"),
        ("wais://host", Code::WaisForm, "wais://host/"),
    ] {
        let r = RFC1738.validate(url.as_bytes());
        let d = r.diagnostics.iter().find(|d| d.code == code).unwrap_or_else(|| panic!("{url}"));
        assert_eq!(d.fix.as_deref(), Some(fixed), "{url}");
        assert_eq!(d.grammar, Some(Grammar::Rfc1738));
    }
}

#[test]
fn messages_name_the_offending_text_and_span() {
    let url = "http://host/a?b/c";
    let r = RFC1738.validate(url.as_bytes());
    let d = &r.diagnostics[0];
    assert_eq!((d.code, &url[d.start..d.end]), (Code::ReservedCharacter, "/"));
    assert!(d.message.contains("`/`"), "{}", d.message);
    assert!(d.message.contains("use --grammar rfc3986"), "{}", d.message);
    let url = "http://host/~u";
    let d = &RFC1738.validate(url.as_bytes()).diagnostics[0];
    assert_eq!(
        d.message,
        "unencoded `~` in path segment (allowed by RFC 3986; use --grammar rfc3986)"
    );
    // A space is wrong under both grammars: no hint.
    let d = &RFC1738.validate(b"http://host/a b").diagnostics[0];
    assert!(!d.message.contains("RFC 3986"), "{}", d.message);
}

#[test]
fn empty_password_is_not_a_warning() {
    let r = assert_valid(Grammar::Rfc1738, "ftp://foo:@host.com/");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn clean_urls_have_no_diagnostics_at_all() {
    for url in [
        "http://www.example.com/a/b.html",
        "ftp://ds.internic.net/rfc/rfc959.txt",
        "http://info.cern.ch:8000/imaginary/test",
        "gopher://host/1sel%09search",
        "news:comp.infosystems.www",
    ] {
        let mut out = Vec::new();
        RFC1738.diagnose(url.as_bytes(), &mut out);
        assert!(out.is_empty(), "{url}: {out:?}");
    }
}

// ---------------------------------------------------------------------------
// Agreement between the DFA and the parser on perturbed fixtures.

#[test]
fn dfa_agrees_with_parser_on_every_single_edit_of_the_fixtures() {
    const INSERTS: &[u8] = b" %:/?#@;=&.~-_[]+\"<\tZ9\x80";
    let fixtures: Vec<&str> = SEED_URLS
        .iter()
        .chain(VALID)
        .chain(VALID_3986_ONLY)
        .copied()
        .chain(CASES.iter().map(|c| c.1))
        .collect();
    for g in Grammar::ALL {
        let v = validator(g);
        for url in &fixtures {
            let url = url.as_bytes();
            consistent(v, url);
            for i in 0..=url.len() {
                let mut cut = url.to_vec();
                if i < url.len() {
                    cut.remove(i);
                    consistent(v, &cut);
                }
                for &b in INSERTS {
                    let mut m = url.to_vec();
                    m.insert(i, b);
                    consistent(v, &m);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Property tests: URLs generated from the grammar.

/// A grammar-generated URL with one free-text slot to mutate, and where its
/// host name ends (to make its top label start with a digit).
#[derive(Clone, Debug)]
struct Gen {
    url: String,
    /// Byte range of a component whose text may be anything `*uchar`
    /// allows, so inserting an unsafe character there has one reading.
    slot: (usize, usize),
    /// End of the host name, when the host is a name or dotted quad.
    host_end: Option<usize>,
}

fn hex() -> impl Strategy<Value = String> {
    (0u8..=255).prop_map(|b| format!("%{b:02X}"))
}

fn text(chars: &'static str, max: usize) -> impl Strategy<Value = String> {
    let one = prop_oneof![
        4 => proptest::sample::select(chars.as_bytes().to_vec()).prop_map(|b| (b as char).to_string()),
        1 => hex(),
    ];
    proptest::collection::vec(one, 0..max).prop_map(|v| v.concat())
}

const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const UCHAR: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789$-_.+!*'(),";
const UCHAR_NO_DOT: &str = "abcdefghijklmnopqrstuvwxyz0123456789$_+!*'(),";

fn label(first: &'static str) -> impl Strategy<Value = String> {
    (
        proptest::sample::select(first.as_bytes().to_vec()),
        proptest::collection::vec(proptest::sample::select(b"abcxyz019-".to_vec()), 0..6),
        proptest::sample::select(ALNUM.as_bytes().to_vec()),
    )
        .prop_map(|(a, mid, z)| {
            let mut s = String::new();
            s.push(a as char);
            if !mid.is_empty() {
                s.extend(mid.iter().map(|&b| b as char));
                s.push(z as char);
            }
            s
        })
}

fn host() -> impl Strategy<Value = String> {
    prop_oneof![
        (proptest::collection::vec(label(ALNUM), 0..3), label("abcdefghijklmnopqrstuvwxyzQZ"))
            .prop_map(|(mut v, top)| {
                v.push(top);
                v.join(".")
            }),
        (0u8..=255, 0u8..=255, 0u8..=255, 0u8..=255)
            .prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}")),
    ]
}

fn port() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), (0u32..=65535).prop_map(|p| format!(":{p}"))]
}

/// `scheme://` + login (if `userinfo`) + hostport, and where the host ends.
fn authority(scheme: &'static str, userinfo: bool) -> impl Strategy<Value = (String, usize)> {
    let user = if userinfo {
        prop_oneof![
            Just(String::new()),
            (text(UCHAR, 6), proptest::option::of(text(UCHAR, 6))).prop_map(|(u, p)| match p {
                Some(p) => format!("{u}:{p}@"),
                None => format!("{u}@"),
            })
        ]
        .boxed()
    } else {
        Just(String::new()).boxed()
    };
    (user, host(), port()).prop_map(move |(u, h, p)| {
        let head = format!("{scheme}://{u}{h}");
        let host_end = head.len();
        (format!("{head}{p}"), host_end)
    })
}

fn with_slot(before: String, slot: String, after: String, host_end: Option<usize>) -> Gen {
    let start = before.len();
    let url = format!("{before}{slot}{after}");
    Gen { slot: (start, start + slot.len()), url, host_end }
}

fn generated() -> impl Strategy<Value = Gen> {
    let http = (
        proptest::sample::select(vec!["http", "https"]),
        proptest::collection::vec(text("abc;:@&=$-_.+!*'(),", 5), 0..3),
        text(UCHAR, 6),
        proptest::option::of(text("abc;:@&=", 5)),
    )
        .prop_flat_map(|(scheme, segs, slot, search)| {
            authority(scheme, false).prop_map(move |(a, he)| {
                let mut before = format!("{a}/");
                for s in &segs {
                    before.push_str(s);
                    before.push('/');
                }
                let after = search.as_ref().map(|q| format!("?{q}")).unwrap_or_default();
                with_slot(before, slot.clone(), after, Some(he))
            })
        });
    let ftp = (text(UCHAR, 6), proptest::option::of(proptest::sample::select(b"AIDaid".to_vec())))
        .prop_flat_map(|(slot, t)| {
            authority("ftp", true).prop_map(move |(a, he)| {
                let after = t.map(|t| format!(";type={}", t as char)).unwrap_or_default();
                with_slot(format!("{a}/pub/"), slot.clone(), after, Some(he))
            })
        });
    let gopher = (
        proptest::sample::select(b"0179h".to_vec()),
        text(UCHAR, 6),
        proptest::option::of((text("ab/?;:", 4), proptest::option::of(text("+!$ab", 4)))),
    )
        .prop_flat_map(|(t, slot, rest)| {
            authority("gopher", false).prop_map(move |(a, he)| {
                let after = match &rest {
                    None => String::new(),
                    Some((s, None)) => format!("%09{s}"),
                    Some((s, Some(p))) => format!("%09{s}%09{p}"),
                };
                with_slot(format!("{a}/{}", t as char), slot.clone(), after, Some(he))
            })
        });
    // No `,`: it separates the addresses of an RFC 6068 list (the modern
    // reading), and RFC 822's atext has none either.
    let mailto = (text("abcdefghijklmnopqrstuvwxyz0123456789$_+!*'()", 6), host())
        .prop_map(|(local, h)| with_slot("mailto:x".to_string(), local, format!("@{h}"), None));
    let mid = (proptest::sample::select(vec!["mid", "cid"]), text(UCHAR_NO_DOT, 6), host())
        .prop_map(|(s, local, h)| with_slot(format!("{s}:x"), local, format!("@{h}"), None));
    let news_article = (text(UCHAR, 6), host()).prop_map(|(local, h)| {
        let before = "news:a".to_string();
        let he = before.len() + local.len() + 1 + h.len();
        with_slot(before, local, format!("@{h}"), Some(he))
    });
    let news_group = proptest::collection::vec(label("abcdefgh"), 1..4)
        .prop_map(|v| with_slot("news:".to_string(), v.join("."), String::new(), None));
    let nntp =
        (proptest::collection::vec(label("abcxyz"), 1..3), proptest::option::of(0u32..99999))
            .prop_flat_map(|(g, n)| {
                authority("nntp", false).prop_map(move |(a, he)| {
                    let after = n.map(|n| format!("/{n}")).unwrap_or_default();
                    with_slot(format!("{a}/"), g.join("."), after, Some(he))
                })
            });
    let telnet = (text(UCHAR, 6), proptest::bool::ANY).prop_flat_map(|(user, slash)| {
        authority("telnet", false).prop_map(move |(a, he)| {
            // The user is the slot: put it in front of the host.
            let rest = &a["telnet://".len()..];
            let after = format!("@{rest}{}", if slash { "/" } else { "" });
            with_slot(
                "telnet://u".to_string(),
                user.clone(),
                after,
                Some(10 + user.len() + 1 + he - 9),
            )
        })
    });
    let wais = (
        text(UCHAR, 6),
        proptest::option::of(prop_oneof![
            text("abc;:@&=", 5).prop_map(|s| format!("?{s}")),
            (text(UCHAR, 4), text(UCHAR, 6)).prop_map(|(t, p)| format!("/{t}/{p}")),
        ]),
    )
        .prop_flat_map(|(db, rest)| {
            authority("wais", false).prop_map(move |(a, he)| {
                with_slot(format!("{a}/"), db.clone(), rest.clone().unwrap_or_default(), Some(he))
            })
        });
    let file = (proptest::option::of(host()), text(UCHAR, 6)).prop_map(|(h, slot)| {
        let h = h.unwrap_or_default();
        let he = (!h.is_empty()).then_some(7 + h.len());
        with_slot(format!("file://{h}/dir/"), slot, String::new(), he)
    });
    let prospero =
        (text(UCHAR, 6), proptest::collection::vec((text("ab?:@&", 4), text("ab?:@&", 4)), 0..3))
            .prop_flat_map(|(slot, fields)| {
                authority("prospero", false).prop_map(move |(a, he)| {
                    let after: String = fields.iter().map(|(n, v)| format!(";{n}={v}")).collect();
                    with_slot(format!("{a}//pros/"), slot.clone(), after, Some(he))
                })
            });
    let other = (proptest::sample::select(vec!["foo", "x-bar", "urn", "afs"]), text(UCHAR, 8))
        .prop_map(|(s, slot)| with_slot(format!("{s}:"), slot, String::new(), None));
    let fragment = proptest::option::of(text("ab/?;:@&=", 5));
    (
        prop_oneof![
            http,
            ftp,
            gopher,
            mailto,
            mid,
            news_article,
            news_group,
            nntp,
            telnet,
            wais,
            file,
            prospero,
            other
        ],
        fragment,
    )
        .prop_map(|(mut g, f)| {
            if let Some(f) = f {
                g.url.push('#');
                g.url.push_str(&f);
            }
            g
        })
}

#[derive(Clone, Debug)]
enum Mutation {
    Insert(&'static str, Code),
    TopLabelDigit,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::Insert(" ", Code::UnsafeCharacter)),
        Just(Mutation::Insert("<", Code::UnsafeCharacter)),
        Just(Mutation::Insert("\"", Code::UnsafeCharacter)),
        Just(Mutation::Insert("%z", Code::BadEscape)),
        Just(Mutation::Insert("%", Code::BadEscape)),
        Just(Mutation::TopLabelDigit),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_urls_are_valid(g in generated()) {
        for grammar in Grammar::ALL {
            let v = validator(grammar);
            let r = consistent(v, g.url.as_bytes());
            prop_assert!(r.is_valid(), "{}", render(g.url.as_bytes(), &r));
        }
    }

    #[test]
    fn one_unsafe_mutation_is_reported(g in generated(), m in mutation(), at in 0usize..64) {
        let (url, code) = match m {
            Mutation::Insert(s, code) => {
                let (a, b) = g.slot;
                let i = a + at % (b - a + 1);
                // `%` right before two hex digits would be an escape.
                let next = &g.url.as_bytes()[i..];
                if s == "%" && next.len() >= 2 && next[..2].iter().all(u8::is_ascii_hexdigit) {
                    return Ok(());
                }
                let mut u = g.url.clone();
                u.insert_str(i, s);
                (u, code)
            }
            Mutation::TopLabelDigit => {
                let Some(he) = g.host_end else { return Ok(()) };
                let mut u = g.url.clone();
                u.insert_str(he, ".9z");
                (u, Code::TopLabelDigit)
            }
        };
        for grammar in [Grammar::Rfc1738, Grammar::Modern] {
            // The modern profile reads a file URL as a path: no host rules.
            if code == Code::TopLabelDigit && grammar == Grammar::Modern && url.starts_with("file:") {
                continue;
            }
            let r = consistent(validator(grammar), url.as_bytes());
            prop_assert!(!r.is_valid());
            prop_assert!(
                r.diagnostics.iter().any(|d| d.code == code),
                "expected {code}:\n{}",
                render(url.as_bytes(), &r)
            );
        }
    }

    #[test]
    fn dfa_agrees_with_parser_on_random_text(
        prefix in proptest::sample::select(vec![
            "", "http://", "https://", "ftp://", "gopher://", "mailto:", "news:", "nntp://",
            "telnet://", "wais://", "file://", "prospero://", "mid:", "cid:", "foo:", "foo://",
            "HTTP://a", "ftp://u:p@h", "http://[", "file:///", "news:a@",
        ]),
        body in proptest::collection::vec(
            proptest::sample::select(
                b"aZ09.-_~%:/?#@;=&[]+!*'(),$ \"<>\t\r\n\x00\x7f\x80\xffAFvx".to_vec()
            ),
            0..24,
        ),
    ) {
        let mut url = prefix.as_bytes().to_vec();
        url.extend(body);
        for grammar in Grammar::ALL {
            consistent(validator(grammar), &url);
        }
    }

    #[test]
    fn dfa_agrees_with_parser_on_random_bytes(url in proptest::collection::vec(any::<u8>(), 0..32)) {
        for grammar in Grammar::ALL {
            consistent(validator(grammar), &url);
        }
    }
}
