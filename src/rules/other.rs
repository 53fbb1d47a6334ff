//! Schemes RFC 1738 does not define (and `afs:`, `urn:`, `x-...`): under
//! RFC 1738 the generic `scheme ":" *xchar` (section 5, `otherurl`); under
//! RFC 3986 its generic syntax (section 3): an optional `//authority`, a
//! path, a `?query`.

use crate::diag::{Code, Grammar};

use super::authority;
use super::chars::Sets;
use super::ctx::{Class, Ctx, find, find2};
use super::{Validator, Verdict};

const SCHEMEPART: Class = Class::text("scheme-specific part", |s| s.xchar);
const SEGMENT: Class = Class::text("path segment", |s| s.pchar);
const QUERY: Class = Class::text("query", |s| s.query);
const USERINFO: Class = Class::text("userinfo", |s| s.userinfo);
const REG_NAME: Class = Class {
    other: Code::BadHostname,
    encode_fix: false,
    ..Class::text("host", |s: &Sets| s.regname)
};

/// The fast path's check of an RFC 3986 URL the generic DFA accepted: a
/// bracketed host must be an exact IP literal; a password draws a warning.
pub(crate) fn quick(v: &Validator, url: &[u8], start: usize) -> Verdict {
    let end = memchr::memchr(b'#', url).unwrap_or(url.len());
    if !url[start..end].starts_with(b"//") {
        return Verdict::Clean;
    }
    let ae = find2(url, start + 2, end, b'/', b'?').unwrap_or(end);
    let sp = authority::split(url, start + 2, ae);
    // A reg-name takes in any dotted quad, so only IP literals need a look.
    let hosts_start = sp.at.map_or(start + 2, |at| at + 1);
    for (s, e) in authority::hosts(url, v.grammar, hosts_start, ae) {
        let (hs, he) =
            if (s, e) == (hosts_start, ae) { sp.host } else { authority::split(url, s, e).host };
        let host = &url[hs..he];
        if host.first() == Some(&b'[') && !v.ip_literal().is_match(host) {
            return Verdict::Invalid;
        }
    }
    if sp.at.zip(sp.password_colon).is_some_and(|(at, c)| at > c + 1) {
        Verdict::Noted
    } else {
        Verdict::Clean
    }
}

/// Checks the body `url[start..end]` (after `scheme:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
    if cx.grammar == Grammar::Rfc1738 {
        if end > start {
            cx.component("scheme-part", start, end);
        }
        // `//[v6]/...` is wrong only for its brackets, which RFC 3986
        // allows around an IP literal: say so once instead of twice.
        if let Some((hs, he)) = ip_literal_host(cx, start, end) {
            cx.check_chars(start, hs, &SCHEMEPART);
            authority::host(cx, hs, he);
            cx.check_chars(he, end, &SCHEMEPART);
        } else {
            cx.check_chars(start, end, &SCHEMEPART);
        }
        return;
    }
    let q = find(cx.url, start, end, b'?');
    let path_end = q.unwrap_or(end);
    let mut p = start;
    if cx.url[start..path_end].starts_with(b"//") {
        let a = start + 2;
        let ae = find2(cx.url, a, path_end, b'/', b'?').unwrap_or(path_end);
        generic_authority(cx, a, ae);
        p = ae;
    }
    // path-abempty, path-absolute, path-rootless and path-empty all come
    // down to pchar segments separated by `/` once `//` has been taken.
    if p < path_end {
        let first = if cx.url[p] == b'/' { p + 1 } else { p };
        cx.segments(first, path_end, &SEGMENT);
    }
    if let Some(q) = q {
        cx.component("search", q + 1, end);
        cx.check_chars(q + 1, end, &QUERY);
    }
}

/// The span of an exact RFC 3986 IP literal host in a `//authority`
/// body, if there is one.
fn ip_literal_host(cx: &Ctx<'_>, start: usize, end: usize) -> Option<(usize, usize)> {
    if !cx.url[start..end].starts_with(b"//") {
        return None;
    }
    let ae = find2(cx.url, start + 2, end, b'/', b'?').unwrap_or(end);
    let (hs, he) = authority::split(cx.url, start + 2, ae).host;
    let host = &cx.url[hs..he];
    (host.first() == Some(&b'[') && cx.validator.ip_literal().is_match(host)).then_some((hs, he))
}

/// A reg-name host: pct-encoded is allowed (RFC 3986 3.2.2); a raw
/// non-ASCII name is an IDN in the modern profile and one `non-ascii`
/// error (with the IDNA A-label as its fix, never %-encoding) in plain
/// rfc3986. (Hosts reserved for documentation need no exception: the
/// generic syntax has no host-name rules to spare them.)
fn reg_name(cx: &mut Ctx<'_>, hs: usize, he: usize) {
    let url = cx.url;
    if url[hs..he].is_ascii() {
        // Escapes are the generic syntax's own business here: a reg-name
        // of an unknown scheme need not be a DNS name.
        cx.check_chars(hs, he, &REG_NAME);
        return;
    }
    if cx.grammar == Grammar::Modern && super::idn::modern_host(cx, hs, he) {
        return;
    }
    {
        let first = (hs..he).find(|&i| url[i] >= 0x80).expect("not ASCII");
        let last = (hs..he).rfind(|&i| url[i] >= 0x80).expect("not ASCII") + 1;
        let label = super::idn::a_label(&url[hs..he]);
        let msg = match &label {
            Some(a) => format!(
                "raw non-ASCII {} in host: RFC 3986 hosts are ASCII; the IDNA form is `{a}`",
                cx.show(first, last)
            ),
            None => format!(
                "raw non-ASCII {} in host: RFC 3986 hosts are ASCII, and this is no valid IDN",
                cx.show(first, last)
            ),
        };
        let fix = label.map(|a| cx.replaced(hs, he, &a));
        cx.report(Code::NonAscii, first, last, msg);
        if let Some(fix) = fix {
            cx.fix(fix);
        }
    }
    // The ASCII stretches still have to be reg-name characters.
    let mut s = hs;
    while s < he {
        let e = (s..he).find(|&i| url[i] >= 0x80).unwrap_or(he);
        cx.check_chars(s, e, &REG_NAME);
        s = (e..he).find(|&i| url[i] < 0x80).unwrap_or(he);
    }
}

/// RFC 3986 3.2: `[ userinfo "@" ] host [ ":" port ]`, where the host is an
/// IP literal or a reg-name (which takes in dotted quads) and the port is
/// `*DIGIT`.
fn generic_authority(cx: &mut Ctx<'_>, a: usize, ae: usize) {
    let sp = authority::split(cx.url, a, ae);
    if let Some(at) = sp.at {
        cx.component("userinfo", a, at);
        cx.check_chars(a, at, &USERINFO);
        if let Some(c) = sp.password_colon {
            authority::password(cx, a, c, at);
        }
    }
    let hosts_start = sp.at.map_or(a, |at| at + 1);
    for (s, e) in authority::hosts(cx.url, cx.grammar, hosts_start, ae) {
        let sp = if (s, e) == (hosts_start, ae) { sp } else { authority::split(cx.url, s, e) };
        let (hs, he) = sp.host;
        if hs < he {
            if cx.url[hs] == b'[' {
                authority::host(cx, hs, he);
            } else {
                cx.component("host", hs, he);
                reg_name(cx, hs, he);
            }
        }
        if let Some(c) = sp.port_colon {
            cx.component("port", c + 1, e);
            if let Some(bad) = cx.url[c + 1..e].iter().position(|b| !b.is_ascii_digit()) {
                let msg = format!("port {} is not a decimal number", cx.show(c + 1, e));
                cx.report(Code::BadPort, c + 1 + bad, e, msg);
            }
        }
    }
}
