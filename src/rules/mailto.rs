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

use crate::diag::Code;

use super::SchemeKind;
use super::check::{Class, Ctx, find};

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
