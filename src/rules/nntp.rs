//! RFC 1738 section 3.7, NNTP:
//! `nntp://<host>:<port>/<newsgroup-name>/<article-number>`, default port
//! 119, no user name or password; the article number is digits and may be
//! left out, the group may not.

use crate::diag::Code;

use super::SchemeKind;
use super::authority::{self, Userinfo};
use super::ctx::{Ctx, find};
use super::news;

/// Checks the body `url[start..end]` (after `nntp:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
    let Some(a) = authority::slashes(cx, SchemeKind::Nntp, start, end) else {
        return;
    };
    let ae = authority::end_of(cx.url, cx.grammar, a, end);
    authority::login(cx, SchemeKind::Nntp, a, ae, Userinfo::Forbidden);
    if authority::stray_query(cx, ae, end) {
        return;
    }
    if ae == end {
        cx.report(Code::NewsForm, end, end, "nntp URL needs `/group` after the host");
        return;
    }
    let g = ae + 1;
    let ge = find(cx.url, g, end, b'/').unwrap_or(end);
    news::group(cx, g, ge);
    if ge == end {
        return;
    }
    let (s, e) = (ge + 1, end);
    cx.component("article", s, e);
    if s == e {
        cx.report(Code::NntpArticle, ge, e, "empty article number after `/`");
    } else if !cx.url[s..e].iter().all(u8::is_ascii_digit) {
        let msg = format!("nntp article number {} is not all digits", cx.show(s, e));
        cx.report(Code::NntpArticle, s, e, msg);
    }
}
