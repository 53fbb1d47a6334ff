//! RFC 1738 section 3.3, HTTP: `http://<host>:<port>/<path>?<searchpart>`,
//! no user name or password, default port 80; `https` is read the same way
//! with default port 443.
//!
//! Within the path and search part `/`, `;` and `?` are reserved: `/`
//! separates path segments, `?` starts the search part, and neither may
//! appear in the search part. RFC 3986 relaxes the search part (a query may
//! hold `/` and `?`) and lets `?` follow the host directly.

use crate::diag::{Code, Grammar};

use super::SchemeKind;
use super::authority::{self, Userinfo};
use super::ctx::{Class, Ctx, find, find2};

const HSEGMENT: Class = Class::text("path segment", |s| s.hsegment);
const SEARCH: Class = Class::text("search part", |s| s.search);

/// Checks the body `url[start..end]` (after `http:`) of an http or https
/// URL.
pub(crate) fn check(cx: &mut Ctx<'_>, kind: SchemeKind, start: usize, end: usize) {
    let Some(a) = authority::slashes(cx, kind, start, end) else {
        return;
    };
    // The host cannot hold `?`, so a `?` before any `/` ends the hostport in
    // either grammar; RFC 1738 then wants the `/` it left out.
    let ae = find2(cx.url, a, end, b'/', b'?').unwrap_or(end);
    authority::login(cx, kind, a, ae, Userinfo::Forbidden);
    if ae == end {
        return;
    }
    if cx.url[ae] == b'?' {
        if cx.grammar == Grammar::Rfc1738 {
            let fix = cx.replaced(ae, ae, "/");
            let msg = format!(
                "`?` right after the host: RFC 1738 needs a `/` before the search part{}",
                cx.hint(true)
            );
            cx.report(Code::ReservedCharacter, ae, ae + 1, msg);
            cx.fix(fix);
        }
        search(cx, ae + 1, end);
        return;
    }
    let q = find(cx.url, ae + 1, end, b'?');
    cx.segments(ae + 1, q.unwrap_or(end), &HSEGMENT);
    if let Some(q) = q {
        search(cx, q + 1, end);
    }
}

/// The search part: `search = *[ uchar | ";" | ":" | "@" | "&" | "=" ]`.
pub(crate) fn search(cx: &mut Ctx<'_>, start: usize, end: usize) {
    cx.component("search", start, end);
    cx.check_chars(start, end, &SEARCH);
}
