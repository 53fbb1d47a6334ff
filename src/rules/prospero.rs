//! RFC 1738 section 3.11, PROSPERO:
//! `prospero://<host>:<port>/<hsoname>;<field>=<value>`, default port 1525,
//! no user name or password. The hsoname (`ppath`) is opaque and may hold
//! `/`; `;` is reserved in it and starts each `field=value` pair, which
//! may only follow the hsoname.

use crate::diag::Code;

use super::SchemeKind;
use super::authority::{self, Userinfo};
use super::chars::Sets;
use super::ctx::{Class, Ctx, find};

const PSEGMENT: Class = Class::text("hsoname", |s| s.psegment);
const FIELD: Class =
    Class { other: Code::ProsperoField, ..Class::text("prospero field", |s: &Sets| s.field) };

/// Checks the body `url[start..end]` (after `prospero:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
    let Some(a) = authority::slashes(cx, SchemeKind::Prospero, start, end) else {
        return;
    };
    let ae = authority::end_of(cx.url, cx.grammar, a, end);
    if let Some(semi) = find(cx.url, a, ae, b';') {
        let fix = cx.replaced(semi, semi, "/");
        cx.report(
            Code::ProsperoField,
            semi,
            semi + 1,
            "`;` before the path: fields follow `/hsoname`",
        );
        cx.fix(fix);
        authority::login(cx, SchemeKind::Prospero, a, semi, Userinfo::Forbidden);
        return;
    }
    authority::login(cx, SchemeKind::Prospero, a, ae, Userinfo::Forbidden);
    if authority::stray_query(cx, ae, end) {
        return;
    }
    if ae == end {
        let fix = cx.replaced(end, end, "/");
        cx.report(
            Code::MissingSlashes,
            end,
            end,
            "prospero URL needs `/` and an hsoname after the host",
        );
        cx.fix(fix);
        return;
    }
    let p = ae + 1;
    let semi = find(cx.url, p, end, b';').unwrap_or(end);
    cx.segments(p, semi, &PSEGMENT);
    let mut s = semi;
    while s < end {
        // `url[s]` is `;`.
        let fs = s + 1;
        let fe = find(cx.url, fs, end, b';').unwrap_or(end);
        match find(cx.url, fs, fe, b'=') {
            Some(eq) => {
                cx.component("fieldname", fs, eq);
                cx.check_chars(fs, eq, &FIELD);
                cx.component("fieldvalue", eq + 1, fe);
                cx.check_chars(eq + 1, fe, &FIELD);
            }
            None => {
                let msg = format!("prospero field {} has no `=value`", cx.show(fs, fe));
                cx.report(Code::ProsperoField, s, fe, msg);
            }
        }
        s = fe;
    }
}
