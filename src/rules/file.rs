//! RFC 1738 section 3.10, FILES: `file://<host>/<path>`, where the host is a
//! fully qualified domain name, `localhost`, or empty (both meaning "the
//! machine interpreting the URL"). There is no user, password or port, and
//! the `/` before the path is required; path segments are ftp's
//! `fsegment`s, with no `;type=`.
//!
//! The modern profile also takes RFC 8089's `file:/path`, with no
//! authority.
//!
//! A common slip, `file://D:/dir/file` (seed 000), puts a drive letter
//! where the host goes; the fix moves it into the path.

use crate::diag::{Code, Grammar};

use super::SchemeKind;
use super::authority::{self, Userinfo};
use super::check::Ctx;
use super::ftp::FSEGMENT;

/// Checks the body `url[start..end]` (after `file:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
    // RFC 8089 2: `file:/path`, with no authority at all, is a local path.
    if cx.grammar == Grammar::Modern
        && cx.url[start..end].starts_with(b"/")
        && !cx.url[start..end].starts_with(b"//")
    {
        cx.segments(start + 1, end, &FSEGMENT);
        return;
    }
    let Some(a) = authority::slashes(cx, SchemeKind::File, start, end) else {
        return;
    };
    let ae = authority::end_of(cx.url, cx.grammar, a, end);
    authority::login(cx, SchemeKind::File, a, ae, Userinfo::File);
    if authority::stray_query(cx, ae, end) {
        return;
    }
    if ae == end {
        let fix = cx.replaced(end, end, "/");
        cx.report(Code::MissingSlashes, end, end, "file URL needs a `/` and a path after the host");
        cx.fix(fix);
        return;
    }
    cx.segments(ae + 1, end, &FSEGMENT);
}
