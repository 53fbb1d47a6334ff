//! RFC 1738 section 3.6, NEWS: `news:<newsgroup-name>`, `news:<message-id>`
//! or `news:*`; under the modern profile also RFC 5538's
//! `news://<server>/` before any of them (or alone).
//!
//! An `@` tells an article (`unique@host`, the Message-ID without its angle
//! brackets) from a group; a group starts with a letter and holds letters,
//! digits and `-.+_` only, with no escapes. The group check is shared with
//! nntp (3.7).

use crate::diag::{Code, Grammar};

use super::authority::{self, Userinfo};
use super::chars::{self, Sets};
use super::ctx::{Class, Ctx, find};
use super::{SchemeKind, Validator, Verdict};

const GROUP: Class = Class {
    what: "newsgroup name",
    set: |_: &Sets| chars::GROUP,
    escapes: false,
    other: Code::NewsForm,
    encode_fix: false,
    raw_tab_crlf: None,
};
const ARTICLE: Class = Class::text("article identifier", |s| s.article);

/// The fast path's check of a news URL the DFA accepted: an article's host
/// must not be a dotted quad with a part above 255, nor a bracketed host
/// that is not an exact IP literal.
pub(crate) fn quick(v: &Validator, url: &[u8], mut start: usize) -> Verdict {
    let mut verdict = Verdict::Clean;
    // (RFC 1738 reads `news://h/a@b` as an article, as `check` does.)
    if v.grammar == Grammar::Modern && url[start..].starts_with(b"//") {
        // RFC 5538's server (the DFA took it: the modern profile), judged
        // as any authority; what follows its `/` is read as without it.
        verdict = authority::quick(v, SchemeKind::News, url, start + 2);
        if verdict == Verdict::Invalid {
            return verdict;
        }
        start = memchr::memchr(b'/', &url[start + 2..]).map_or(url.len(), |k| start + 2 + k + 1);
    }
    let end = memchr::memchr(b'#', url).unwrap_or(url.len()).max(start);
    match find(url, start, end, b'@') {
        Some(at) if !authority::host_ok(v, &url[at + 1..end]) => Verdict::Invalid,
        _ => verdict,
    }
}

/// Checks the body `url[start..end]` (after `news:`).
pub(crate) fn check(cx: &mut Ctx<'_>, mut start: usize, end: usize) {
    if cx.grammar == Grammar::Modern && cx.url[start..end].starts_with(b"//") {
        let a = start + 2;
        let ae = authority::end_of(cx.url, cx.grammar, a, end);
        authority::login(cx, SchemeKind::News, a, ae, Userinfo::Forbidden);
        if authority::stray_query(cx, ae, end) {
            return;
        }
        if ae == end {
            cx.report(Code::NewsForm, end, end, "news URL with a server needs `/` after it");
            return;
        }
        // `news://server/` names the server alone.
        if ae + 1 == end {
            return;
        }
        start = ae + 1;
    }
    if start == end {
        cx.report(
            Code::NewsForm,
            start,
            end,
            "empty news URL: expected a group, an article or `*`",
        );
        return;
    }
    if &cx.url[start..end] == b"*" {
        cx.component("group", start, end);
        return;
    }
    let Some(at) = find(cx.url, start, end, b'@') else {
        group(cx, start, end);
        return;
    };
    cx.component("article", start, end);
    if at == start {
        cx.report(Code::NewsForm, at, at + 1, "article has nothing before `@`");
    }
    cx.check_chars(start, at, &ARTICLE);
    if at + 1 == end {
        cx.report(Code::EmptyHost, end, end, "article has no host after `@`");
    } else {
        authority::host(cx, at + 1, end);
    }
}

/// `group = alpha *[ alpha | digit | "-" | "." | "+" | "_" ]`
pub(crate) fn group(cx: &mut Ctx<'_>, start: usize, end: usize) {
    cx.component("group", start, end);
    if start == end {
        cx.report(Code::NewsForm, start, end, "empty newsgroup name");
        return;
    }
    let first = cx.url[start];
    if first.is_ascii_alphabetic() {
        cx.check_chars(start, end, &GROUP);
    } else if chars::GROUP.has(first) {
        let msg = format!(
            "newsgroup name {} must start with a letter (an article needs `@host`)",
            cx.show(start, end)
        );
        cx.report(Code::NewsForm, start, start + 1, msg);
        cx.check_chars(start + 1, end, &GROUP);
    } else {
        cx.check_chars(start, end, &GROUP);
    }
}
