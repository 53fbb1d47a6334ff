//! The top-level walk of the explaining parser (scheme, body, fragment),
//! which dispatches to the per-scheme modules; what they share is in
//! `ctx`.

use crate::diag::{Code, Grammar};

use super::chars;
use super::ctx::{Ctx, FRAGMENT, find, has_encoded_delimiter};
use super::{SchemeKind, Validation, Validator};

/// Explains one URL: the slow path behind [`Validator::validate`] (and
/// [`Validator::diagnose`], which does not want the components).
pub(crate) fn explain(validator: &Validator, url: &[u8], want_components: bool) -> Validation {
    let grammar = validator.grammar;
    let mut cx = Ctx {
        url,
        grammar,
        sets: chars::sets_for(grammar),
        validator,
        diags: Vec::new(),
        comps: Vec::with_capacity(if want_components { 12 } else { 0 }),
        want_components,
        fixes: Vec::new(),
        kind: SchemeKind::Other,
    };
    let (scheme, kind) = walk(&mut cx);
    cx.sort_and_fix();
    cx.comps.sort_by_key(|c| (c.start, c.end));
    Validation { scheme, kind, components: cx.comps, diagnostics: cx.diags }
}

fn walk(cx: &mut Ctx<'_>) -> (String, SchemeKind) {
    let url = cx.url;
    if url.is_empty() {
        cx.report(Code::EmptyUrl, 0, 0, "empty URL");
        return (String::new(), SchemeKind::Other);
    }
    // `#` is legal only as the fragment separator, so the first one ends
    // the URL proper wherever it is.
    let body_end = find(url, 0, url.len(), b'#').unwrap_or(url.len());
    if body_end < url.len() {
        cx.component("fragment", body_end + 1, url.len());
        cx.check_chars(body_end + 1, url.len(), &FRAGMENT);
    }
    let Some(colon) = scheme(cx, body_end) else {
        return (String::new(), SchemeKind::Other);
    };
    let name = &url[..colon];
    let kind = SchemeKind::from_name(name);
    cx.kind = kind;
    let lower = String::from_utf8_lossy(name).to_ascii_lowercase();
    cx.component("scheme", 0, colon);
    if name.iter().any(u8::is_ascii_uppercase) {
        let fix = cx.replaced(0, colon, &lower);
        let msg =
            format!("upper-case scheme {}: schemes are written in lower case", cx.show(0, colon));
        cx.report(Code::UppercaseScheme, 0, colon, msg);
        cx.fix(fix);
    }
    scheme_note(cx, kind, &lower, colon);
    let start = colon + 1;
    // Plain RFC 3986 knows no scheme: every one gets the generic syntax.
    let rules = if cx.grammar == Grammar::Rfc3986 { SchemeKind::Other } else { kind };
    match rules {
        SchemeKind::Ftp => super::ftp::check(cx, start, body_end),
        SchemeKind::Http | SchemeKind::Https => super::http::check(cx, kind, start, body_end),
        SchemeKind::Gopher => super::gopher::check(cx, start, body_end),
        SchemeKind::Mailto => super::mailto::check(cx, kind, start, body_end),
        SchemeKind::Mid | SchemeKind::Cid => super::mailto::check(cx, kind, start, body_end),
        SchemeKind::News => super::news::check(cx, start, body_end),
        SchemeKind::Nntp => super::nntp::check(cx, start, body_end),
        SchemeKind::Telnet => super::telnet::check(cx, start, body_end),
        SchemeKind::Wais => super::wais::check(cx, start, body_end),
        SchemeKind::File => super::file::check(cx, start, body_end),
        SchemeKind::Prospero => super::prospero::check(cx, start, body_end),
        SchemeKind::Afs | SchemeKind::Urn | SchemeKind::Experimental | SchemeKind::Other => {
            super::other::check(cx, start, body_end)
        }
    }
    let mut at = start;
    while let Some(p) = has_encoded_delimiter(kind, url, at, body_end) {
        let msg = format!(
            "encoded {} in a {lower} URL could inject a protocol command if decoded",
            match url[p + 2] {
                b'9' => "TAB",
                b'a' | b'A' => "LF",
                _ => "CR",
            }
        );
        cx.report(Code::EncodedDelimiter, p, p + 3, msg);
        at = p + 3;
    }
    (lower, kind)
}

/// Checks the scheme and returns the index of its `:`.
fn scheme(cx: &mut Ctx<'_>, body_end: usize) -> Option<usize> {
    let url = cx.url;
    let Some(colon) = find(url, 0, body_end, b':') else {
        cx.report(Code::InvalidScheme, 0, body_end, "no `scheme:` at the start of the URL");
        return None;
    };
    if colon == 0 {
        cx.report(Code::InvalidScheme, 0, 1, "empty scheme before `:`");
        return None;
    }
    if let Some(bad) = url[..colon].iter().position(|&b| !chars::SCHEME.has(b)) {
        let msg = format!(
            "{} in scheme {}: schemes hold letters, digits, `+`, `-` and `.`",
            chars::describe(url[bad]),
            cx.show(0, colon)
        );
        cx.report(Code::InvalidScheme, bad, bad + 1, msg);
        return None;
    }
    if cx.grammar.is_3986() && !url[0].is_ascii_alphabetic() {
        let msg = format!("scheme {} must start with a letter", cx.show(0, colon));
        cx.report(Code::InvalidScheme, 0, 1, msg);
        return None;
    }
    Some(colon)
}

/// The note every URL of a kind without a full grammar gets.
fn scheme_note(cx: &mut Ctx<'_>, kind: SchemeKind, lower: &str, colon: usize) {
    /// RFC 1738 section 4: proposed, syntax not defined, names reserved.
    const RESERVED_1738: &[&str] = &["nfs", "tn3270", "mailserver", "z39.50"];
    // Outside RFC 1738 a scheme in the IANA registry is known: only its
    // generic syntax was ever going to be checked.
    if cx.grammar.is_3986() && super::iana::is_known(lower) {
        return;
    }
    let (code, msg) = match kind {
        SchemeKind::Afs => (
            Code::HistoricalScheme,
            "`afs:` is from the 1993 URL drafts and was never standardised; only the generic syntax was checked".to_string(),
        ),
        SchemeKind::Urn => (
            Code::ReservedScheme,
            "`urn:` is reserved for Uniform Resource Names; only the generic syntax was checked".to_string(),
        ),
        SchemeKind::Experimental => (
            Code::ExperimentalScheme,
            format!("`{lower}:` is an experimental scheme (RFC 1738 4); only the generic syntax was checked"),
        ),
        SchemeKind::Other if RESERVED_1738.contains(&lower) => (
            Code::ReservedScheme,
            format!("`{lower}:` is reserved by RFC 1738 section 4 with no syntax yet; only the generic syntax was checked"),
        ),
        SchemeKind::Other => (
            Code::UnknownScheme,
            format!("unknown scheme `{lower}:`; only the generic syntax was checked"),
        ),
        _ => return,
    };
    cx.report(code, 0, colon, msg);
}
