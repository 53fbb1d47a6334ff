//! RFC 1738 section 3.9, WAIS: `wais://<host>:<port>/<database>`,
//! `.../<database>?<search>` or `.../<database>/<wtype>/<wpath>`, default
//! port 210, no user name or password. Database, wtype and wpath are
//! `*uchar`, so `/` and `?` inside them must be encoded; the search part is
//! http's.

use crate::diag::Code;

use super::SchemeKind;
use super::authority::{self, Userinfo};
use super::ctx::{Class, Ctx, find};
use super::http;

const DATABASE: Class = Class::text("database", |s| s.uchar);
const WTYPE: Class = Class::text("wtype", |s| s.uchar);
const WPATH: Class = Class::text("wpath", |s| s.uchar);

/// Checks the body `url[start..end]` (after `wais:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
    let Some(a) = authority::slashes(cx, SchemeKind::Wais, start, end) else {
        return;
    };
    let ae = authority::end_of(cx.url, cx.grammar, a, end);
    authority::login(cx, SchemeKind::Wais, a, ae, Userinfo::Forbidden);
    if authority::stray_query(cx, ae, end) {
        return;
    }
    if ae == end {
        let fix = cx.replaced(end, end, "/");
        cx.report(Code::WaisForm, end, end, "wais URL needs `/database` after the host");
        cx.fix(fix);
        return;
    }
    let p = ae + 1;
    if let Some(q) = find(cx.url, p, end, b'?') {
        if find(cx.url, p, q, b'/').is_some() {
            let msg = format!(
                "{} before `?`: the search form is `/database?search`, with no wtype or wpath",
                cx.show(p, q)
            );
            cx.report(Code::WaisForm, p, q, msg);
        } else {
            cx.component("database", p, q);
            cx.check_chars(p, q, &DATABASE);
        }
        http::search(cx, q + 1, end);
        return;
    }
    let parts: Vec<(usize, usize)> = {
        let mut v = Vec::new();
        let mut s = p;
        loop {
            let e = find(cx.url, s, end, b'/').unwrap_or(end);
            v.push((s, e));
            if e == end {
                break v;
            }
            s = e + 1;
        }
    };
    match parts.as_slice() {
        [(s, e)] => {
            cx.component("database", *s, *e);
            cx.check_chars(*s, *e, &DATABASE);
        }
        [(ds, de), (ts, te), (ps, pe)] => {
            cx.component("database", *ds, *de);
            cx.check_chars(*ds, *de, &DATABASE);
            cx.component("wtype", *ts, *te);
            cx.check_chars(*ts, *te, &WTYPE);
            cx.component("wpath", *ps, *pe);
            cx.check_chars(*ps, *pe, &WPATH);
        }
        _ => {
            let msg = format!(
                "wais path {} has {} parts; expected `database` or `database/wtype/wpath` (encode `/` inside a part as %2F)",
                cx.show(p, end),
                parts.len()
            );
            cx.report(Code::WaisForm, p, end, msg);
        }
    }
}
