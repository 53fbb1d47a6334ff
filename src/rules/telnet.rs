//! RFC 1738 section 3.8, TELNET: `telnet://<user>:<password>@<host>:<port>/`,
//! default port 23; user and password are optional (and advisory), the
//! trailing `/` is optional, and nothing may follow it.

use crate::diag::Code;

use super::SchemeKind;
use super::authority::{self, Userinfo};
use super::ctx::Ctx;

/// Checks the body `url[start..end]` (after `telnet:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
    let Some(a) = authority::slashes(cx, SchemeKind::Telnet, start, end) else {
        return;
    };
    let ae = authority::end_of(cx.url, cx.grammar, a, end);
    authority::login(cx, SchemeKind::Telnet, a, ae, Userinfo::Allowed);
    if authority::stray_query(cx, ae, end) {
        return;
    }
    if ae + 1 < end {
        let fix = cx.replaced(ae + 1, end, "");
        let msg =
            format!("telnet URLs have no path, but {} follows the host", cx.show(ae + 1, end));
        cx.report(Code::TelnetPath, ae + 1, end, msg);
        cx.fix(fix);
    }
}
