//! RFC 1738 section 3.5, MAILTO: `mailto:<rfc822-addr-spec>`; and the
//! `mid:` and `cid:` schemes of RFC 1630, whose bodies have the same shape.
//!
//! `encoded822addr = 1*xchar` in the BNF, "further defined in RFC 822":
//! the prose says the body *is* an addr-spec, `local-part@domain`, so
//! exactly one unencoded `@` with text on both sides is required. No
//! character is reserved inside, and `%` (common in RFC 822 routing) must
//! be written `%25`. RFC 1630 describes a `mid:` body as a message-id
//! without its angle brackets, "the same as the format of addr-spec", and
//! `cid:` as the same for MIME content-ids.
//!
//! The modern profile reads mailto as RFC 6068 does: a comma-separated
//! list of addresses, then `?name=value&...` header fields, and an
//! address whose `@` is written `%40` (mail clients decode it).

use crate::diag::{Code, Grammar};

use super::SchemeKind;
use super::ctx::{Class, Ctx, find};

/// Checks the body `url[start..end]` of a mailto, mid or cid URL.
pub(crate) fn check(cx: &mut Ctx<'_>, kind: SchemeKind, start: usize, end: usize) {
    let (code, what) = match kind {
        SchemeKind::Mailto => (Code::MailtoAddress, "mailto address"),
        _ => (Code::MessageId, "message identifier"),
    };
    let class = Class { other: code, ..Class::text(what, |s| s.addr) };
    if start == end {
        cx.report(code, start, end, format!("empty {what}: expected local-part@domain"));
        return;
    }
    if kind == SchemeKind::Mailto && cx.grammar == Grammar::Modern {
        rfc6068(cx, start, end);
        return;
    }
    cx.component("addr", start, end);
    let Some(at) = find(cx.url, start, end, b'@') else {
        let msg = format!("{what} {} has no `@domain`", cx.show(start, end));
        cx.report(code, start, end, msg);
        cx.check_chars(start, end, &class);
        return;
    };
    if at == start {
        cx.report(code, at, at + 1, format!("{what} has nothing before `@`"));
    }
    if at + 1 == end {
        cx.report(code, at, at + 1, format!("{what} has nothing after `@`"));
    }
    cx.check_chars(start, at, &class);
    cx.check_chars(at + 1, end, &class);
}

/// An address of an RFC 6068 list: no `,` (it separates addresses) and no
/// `?` (it starts the header fields).
const ADDRESS: Class = Class {
    other: Code::MailtoAddress,
    ..Class::text("mailto address", |s| s.addr.without(b",?"))
};

/// The header fields after `?`: a query.
const HFIELDS: Class =
    Class { other: Code::MailtoAddress, ..Class::text("mailto header field", |s| s.query) };

/// The modern profile's mailto: RFC 6068's `[to] ["?" hfields]`, at least
/// one of them.
fn rfc6068(cx: &mut Ctx<'_>, start: usize, end: usize) {
    let q = find(cx.url, start, end, b'?').unwrap_or(end);
    if q < end {
        cx.component("headers", q + 1, end);
        cx.check_chars(q + 1, end, &HFIELDS);
    }
    if q == start {
        if q + 1 == end {
            cx.report(Code::MailtoAddress, start, end, "empty mailto: no address, no header field");
        }
        return;
    }
    let mut s = start;
    loop {
        let e = find(cx.url, s, q, b',').unwrap_or(q);
        address(cx, s, e);
        if e == q {
            break;
        }
        s = e + 1;
    }
}

/// One address `url[s..e]` of a mailto list: `local@domain`, the `@`
/// maybe written `%40`.
fn address(cx: &mut Ctx<'_>, s: usize, e: usize) {
    if s == e {
        cx.report(Code::MailtoAddress, s, s, "empty address in the mailto list");
        return;
    }
    cx.component("addr", s, e);
    let at = find(cx.url, s, e, b'@')
        .map(|at| (at, 1))
        .or_else(|| memchr::memmem::find(&cx.url[s..e], b"%40").map(|i| (s + i, 3)));
    let Some((at, n)) = at else {
        if let Some(w) = memchr::memmem::find(&cx.url[s..e], b" at ").map(|w| s + w) {
            // `xcb at lists.example.org`, spelled out against harvesters:
            // one problem, whose fix is the address.
            let fix = cx.replaced(w, w + 4, "@");
            let msg = format!(
                "mailto address {} is spelled out with ` at `: a mail client needs `@`",
                cx.show(s, e)
            );
            cx.report(Code::MailtoAddress, s, e, msg);
            cx.fix(fix);
            return;
        }
        let msg = format!("mailto address {} has no `@domain`", cx.show(s, e));
        cx.report(Code::MailtoAddress, s, e, msg);
        cx.check_chars(s, e, &ADDRESS);
        return;
    };
    if at == s {
        cx.report(Code::MailtoAddress, at, at + n, "mailto address has nothing before `@`");
    }
    if at + n == e {
        cx.report(Code::MailtoAddress, at, at + n, "mailto address has nothing after `@`");
    }
    cx.check_chars(s, at, &ADDRESS);
    cx.check_chars(at + n, e, &ADDRESS);
}
