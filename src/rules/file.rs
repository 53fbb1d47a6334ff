//! RFC 1738 section 3.10, FILES: `file://<host>/<path>`, where the host is a
//! fully qualified domain name, `localhost`, or empty (both meaning "the
//! machine interpreting the URL"). There is no user, password or port, and
//! the `/` before the path is required; path segments are ftp's
//! `fsegment`s, with no `;type=`.
//!
//! The modern profile reads whatever follows `file:` as a path, and
//! checks only its characters: RFC 8089's `file:/path` and
//! `file://host/path`, and the forms tools write for a path relative to
//! somewhere, the AWS CLI's `file://request.json` and `file://~/x.json`,
//! the Linux kernel's `<file:Documentation/...>`. A host in a file URL
//! names the machine that reads it, never one that is contacted, so the
//! host and login rules of RFC 1738 find nothing a maintainer would fix
//! there.
//!
//! A common slip, `file://D:/dir/file` (seed 000), puts a drive letter
//! where the host goes; the fix moves it into the path.

use crate::diag::{Code, Grammar};

use super::SchemeKind;
use super::authority::{self, Userinfo};
use super::ctx::Ctx;
use super::ftp::FSEGMENT;

/// Checks the body `url[start..end]` (after `file:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
    if cx.grammar == Grammar::Modern && start < end {
        cx.segments(start, end, &FSEGMENT);
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
