//! Hosts outside the RFC 1738 host-name grammar that later standards
//! allow: internationalized domain names (IDNA, RFC 5890, read with
//! Unicode's UTS 46 as browsers do) and %-encoded names (RFC 3986 3.2.2
//! `reg-name`); and the names and addresses reserved for documentation,
//! which never draw host findings outside the rfc1738 profile.
//!
//! The A-label conversion is the `idna` crate's (the one the `url` crate
//! and Servo use): UTS 46 mapping, normalization, Bidi and context rules
//! are a large table-driven standard, not something to hand-write.

use std::net::{Ipv4Addr, Ipv6Addr};

use idna::AsciiDenyList;

use crate::diag::Code;

use super::chars;
use super::ctx::Ctx;

/// The host's A-label form (`xn--...`), lower-cased, as a browser would
/// send it; `None` when `host` (decoded bytes) is not a valid IDN. The
/// STD3 deny list holds the ASCII part to the host-name rule (letters,
/// digits, `-`) the modern profile applies to ASCII hosts too.
pub(crate) fn a_label(host: &[u8]) -> Option<String> {
    idna::domain_to_ascii_cow(host, AsciiDenyList::STD3).ok().map(|c| c.into_owned())
}

/// `host` with its `%` hex hex escapes decoded; `None` on a `%` that does
/// not start one.
fn decode(host: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(host.len());
    let mut i = 0;
    while i < host.len() {
        if host[i] == b'%' {
            if !chars::is_escape(host, i) {
                return None;
            }
            let hex = |b: u8| (b as char).to_digit(16).expect("checked hex") as u8;
            out.push(hex(host[i + 1]) << 4 | hex(host[i + 2]));
            i += 3;
        } else {
            out.push(host[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The modern profile's reading of a host that holds raw non-ASCII bytes
/// or escapes: fine when it is a valid IDN (a raw one draws nothing: it is
/// how people write such names in text; an encoded one draws the
/// `encoded-host` note with the A-label as its fix), else `bad-hostname`.
/// Returns false, reporting nothing, for any other host (the caller's
/// ordinary checks then run) and for a broken escape (they explain it).
pub(crate) fn modern_host(cx: &mut Ctx<'_>, hs: usize, he: usize) -> bool {
    let text = &cx.url[hs..he];
    // An IP literal's `%25` introduces an RFC 6874 zone, not a name.
    if text.first() == Some(&b'[') {
        return false;
    }
    let escaped = memchr::memchr(b'%', text).is_some();
    if !escaped && text.is_ascii() {
        return false;
    }
    let Some(decoded) = decode(text) else {
        return false;
    };
    match a_label(&decoded) {
        Some(ascii) if escaped => {
            let msg = format!(
                "host {} is %-encoded; DNS and browsers use the IDNA form `{ascii}`",
                cx.show(hs, he)
            );
            let fix = cx.replaced(hs, he, &ascii);
            cx.report(Code::EncodedHost, hs, he, msg);
            cx.fix(fix);
        }
        Some(_) => {}
        None => {
            let msg = format!(
                "host {} is not a valid internationalized domain name (IDNA, UTS 46)",
                cx.show(hs, he)
            );
            cx.report(Code::BadHostname, hs, he, msg);
        }
    }
    true
}

/// Whether `host` (as written in the URL, brackets included for an IP
/// literal) is reserved for documentation and examples: `example.com`,
/// `.net`, `.org` and their subdomains (RFC 2606 3), the `.example`,
/// `.test`, `.invalid` and `.localhost` names (RFC 2606 2, RFC 6761),
/// `localhost`, the RFC 5737 IPv4 blocks 192.0.2.0/24, 198.51.100.0/24
/// and 203.0.113.0/24, and the RFC 3849 IPv6 prefix 2001:db8::/32.
pub(crate) fn is_documentation_host(host: &[u8]) -> bool {
    if let Some(inner) = host.strip_prefix(b"[").and_then(|h| h.strip_suffix(b"]")) {
        return std::str::from_utf8(inner)
            .ok()
            .and_then(|s| s.parse::<Ipv6Addr>().ok())
            .is_some_and(|a| a.segments()[..2] == [0x2001, 0x0db8]);
    }
    if let Some(a) = std::str::from_utf8(host).ok().and_then(|s| s.parse::<Ipv4Addr>().ok()) {
        let [a, b, c, _] = a.octets();
        return matches!((a, b, c), (192, 0, 2) | (198, 51, 100) | (203, 0, 113));
    }
    let name = host.strip_suffix(b".").unwrap_or(host);
    let ends_with = |suffix: &[u8]| {
        name.len() >= suffix.len()
            && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
            && (name.len() == suffix.len() || name[name.len() - suffix.len() - 1] == b'.')
    };
    const NAMES: &[&[u8]] = &[
        b"example.com",
        b"example.net",
        b"example.org",
        b"example",
        b"test",
        b"invalid",
        b"localhost",
    ];
    NAMES.iter().any(|n| ends_with(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documentation_hosts() {
        for h in [
            "example.com",
            "www.Example.COM.",
            "a.b.example.net",
            "example.org",
            "host.example",
            "foo.test",
            "x.invalid",
            "localhost",
            "app.localhost",
            "192.0.2.1",
            "198.51.100.255",
            "203.0.113.7",
            "[2001:db8::1]",
            "[2001:DB8:ffff::]",
        ] {
            assert!(is_documentation_host(h.as_bytes()), "{h}");
        }
        for h in [
            "notexample.com",
            "example.co",
            "examplecom",
            "testing",
            "192.0.3.1",
            "198.51.101.1",
            "[2001:db9::1]",
            "[::1]",
            "10.0.0.1",
            "",
        ] {
            assert!(!is_documentation_host(h.as_bytes()), "{h}");
        }
    }

    #[test]
    fn idna_labels() {
        assert_eq!(a_label("bücher.de".as_bytes()).as_deref(), Some("xn--bcher-kva.de"));
        assert_eq!(a_label("例え.テスト".as_bytes()).as_deref(), Some("xn--r8jz45g.xn--zckzah"));
        assert_eq!(decode(b"%E4%BE%8B.example").as_deref(), Some("例.example".as_bytes()));
        assert_eq!(decode(b"a%4"), None);
        assert_eq!(a_label(b"a b.com"), None);
        assert_eq!(a_label(b"\xff.com"), None);
    }
}
