//! RFC 1738 section 3.4, Gopher:
//! `gopher://<host>:<port>/<gophertype><selector>%09<search>%09<gopher+_string>`,
//! default port 70, no user name or password.
//!
//! The BNF makes the whole gopher path `*xchar` (its `selector = *xchar`
//! can absorb `%09` and anything after), and 3.4 confirms that no
//! character is reserved inside it; the parts are found by splitting at
//! the first two `%09`. What the grammar cannot say and the prose does:
//! selectors never hold TAB, CR or LF, so raw ones are `gopher-selector`
//! errors; the encoded `%09` separators are legitimate and draw nothing.

use crate::diag::Code;

use super::SchemeKind;
use super::authority::{self, Userinfo};
use super::chars;
use super::ctx::{Class, Ctx, find};

const GOPHER_PATH: Class =
    Class { raw_tab_crlf: Some(Code::GopherSelector), ..Class::text("path", |s| s.xchar) };

/// Checks the body `url[start..end]` (after `gopher:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
    let Some(a) = authority::slashes(cx, SchemeKind::Gopher, start, end) else {
        return;
    };
    let ae = authority::end_of(cx.url, cx.grammar, a, end);
    authority::login(cx, SchemeKind::Gopher, a, ae, Userinfo::Forbidden);
    if authority::stray_query(cx, ae, end) {
        return;
    }
    if ae + 1 >= end {
        return;
    }
    let p = ae + 1;
    cx.check_chars(p, end, &GOPHER_PATH);
    let gtype_end = if chars::is_escape(&cx.url[..end], p) { p + 3 } else { p + 1 };
    cx.component("gtype", p, gtype_end);
    let tab = |cx: &Ctx<'_>, from: usize| {
        let mut i = from;
        while let Some(t) = find(cx.url, i, end, b'%') {
            if cx.url[t..end].starts_with(b"%09") {
                return Some(t);
            }
            i = t + 1;
        }
        None
    };
    let sel_end = tab(cx, gtype_end).unwrap_or(end);
    if sel_end > gtype_end {
        cx.component("selector", gtype_end, sel_end);
    }
    if sel_end == end {
        return;
    }
    let search_end = tab(cx, sel_end + 3).unwrap_or(end);
    cx.component("gopher-search", sel_end + 3, search_end);
    if search_end < end {
        cx.component("gopher+", search_end + 3, end);
    }
}
