//! RFC 1738 section 3.6, NEWS: `news:<newsgroup-name>`, `news:<message-id>`
//! or `news:*`.
//!
//! An `@` tells an article (`unique@host`, the Message-ID without its angle
//! brackets) from a group; a group starts with a letter and holds letters,
//! digits and `-.+_` only, with no escapes. The group check is shared with
//! nntp (3.7).

use crate::diag::Code;

use super::authority;
use super::chars::{self, Sets};
use super::ctx::{Class, Ctx, find};
use super::{Validator, Verdict};

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
pub(crate) fn quick(v: &Validator, url: &[u8], start: usize) -> Verdict {
    let end = memchr::memchr(b'#', url).unwrap_or(url.len());
    match find(url, start, end, b'@') {
        Some(at) if !authority::host_ok(v, &url[at + 1..end]) => Verdict::Invalid,
        _ => Verdict::Clean,
    }
}

/// Checks the body `url[start..end]` (after `news:`).
pub(crate) fn check(cx: &mut Ctx<'_>, start: usize, end: usize) {
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
