//! RFC 1738 section 3.2, FTP:
//! `ftp://<user>:<password>@<host>:<port>/<cwd1>/.../<cwdN>/<name>;type=<typecode>`,
//! default port 21.
//!
//! Within a name or CWD component `/` and `;` are reserved and must be
//! encoded (3.2.2), so the only `;` allowed is the one starting the optional
//! `;type=` suffix, whose code is one of `a`, `i`, `d` in either case.

use crate::diag::Code;

use super::SchemeKind;
use super::authority::{self, Userinfo};
use super::ctx::{Class, Ctx, find};

/// `fsegment = *[ uchar | "?" | ":" | "@" | "&" | "=" ]`, shared with file.
pub(crate) const FSEGMENT: Class = Class::text("path segment", |s| s.fsegment);

/// Checks the body `url[start..end]` (after `ftp:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
    let Some(a) = authority::slashes(cx, SchemeKind::Ftp, start, end) else {
        return;
    };
    let ae = authority::end_of(cx.url, cx.grammar, a, end);
    authority::login(cx, SchemeKind::Ftp, a, ae, Userinfo::Allowed);
    if authority::stray_query(cx, ae, end) {
        return;
    }
    if ae == end {
        return;
    }
    let path_end = typecode(cx, ae + 1, end).unwrap_or(end);
    cx.segments(ae + 1, path_end, &FSEGMENT);
}

/// Checks a `;type=X` suffix of the path `url[start..end]`; returns where
/// the path proper ends if there is one.
fn typecode(cx: &mut Ctx<'_>, start: usize, end: usize) -> Option<usize> {
    let url = cx.url;
    let semi = memchr::memrchr(b';', &url[start..end]).map(|i| start + i)?;
    let rest = &url[semi + 1..end];
    if rest.len() < 5 || !rest[..5].eq_ignore_ascii_case(b"type=") {
        // Any other `;` is an unencoded reserved character: the segment
        // check reports it.
        return None;
    }
    let code_start = semi + 6;
    if &rest[..5] != b"type=" {
        let msg = format!("{} must be written `;type=` in lower case", cx.show(semi, code_start));
        let fix = cx.replaced(semi, code_start, ";type=");
        cx.report(Code::FtpTypecode, semi, code_start, msg);
        cx.fix(fix);
    }
    let code = &url[code_start..end];
    if code.len() == 1 && b"AIDaid".contains(&code[0]) {
        cx.component("typecode", code_start, end);
    } else if find(url, code_start, end, b'/').is_some() {
        let msg =
            format!("`;type=` must end the path, but {} follows it", cx.show(code_start, end));
        cx.report(Code::FtpTypecode, semi, end, msg);
    } else {
        let msg = format!("ftp typecode {} is not one of a, i, d", cx.show(code_start, end));
        cx.report(Code::FtpTypecode, code_start.min(end), end, msg);
    }
    Some(semi)
}
