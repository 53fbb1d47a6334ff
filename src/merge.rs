//! One finding per problem, not per byte: the validator reports every
//! offending byte on its own (46 `unsafe-character` on one playground URL),
//! which is right for a parser and wrong for a reader. [`merge`] folds the
//! diagnostics of one URL that share a code, a grammar and a severity into
//! one, listing every span and counting them in the message.
//!
//! It runs once per URL, after validation and before placing (in
//! `Sifter::finish` and `Sifter::check`), so every entry point (text,
//! documents, mail, `check`) reports the same way. It is linear in the
//! number of diagnostics: the groups are few (one per code at most), and a
//! message lists at most [`ITEMS`] distinct texts.

use crate::diag::{Code, Diagnostic, Grammar, Severity};

/// The most distinct offending texts a merged message names.
const ITEMS: usize = 8;

/// The longest offending text a merged message quotes, in characters.
const ITEM_CHARS: usize = 16;

/// Folds `diags` (one URL's, sorted by start) so that each code, grammar
/// and severity appears once; the result stays sorted by start. `url` is
/// the URL text the diagnostics' offsets point into.
pub(crate) fn merge(url: &[u8], diags: &mut Vec<Diagnostic>) {
    type Key = (Code, Option<Grammar>, Severity);
    let key = |d: &Diagnostic| -> Key { (d.code, d.grammar, d.severity) };
    if diags.len() < 2 {
        return;
    }
    // Most URLs with findings have a few of different codes: nothing to do,
    // and nothing allocated to find that out beyond the key list.
    let mut keys: Vec<Key> = Vec::new();
    let mut repeated = false;
    for d in diags.iter() {
        let k = key(d);
        if keys.contains(&k) {
            repeated = true;
        } else {
            keys.push(k);
        }
    }
    if !repeated {
        return;
    }
    let mut groups: Vec<Vec<Diagnostic>> = keys.iter().map(|_| Vec::new()).collect();
    for d in diags.drain(..) {
        let i = keys.iter().position(|k| *k == key(&d)).expect("every key was listed");
        groups[i].push(d);
    }
    diags.extend(groups.into_iter().map(|g| fold(url, g)));
    diags.sort_by_key(|d| (d.start, d.end));
}

/// One diagnostic for a group of the same code, grammar and severity.
fn fold(url: &[u8], mut group: Vec<Diagnostic>) -> Diagnostic {
    if group.len() == 1 {
        return group.pop().expect("one");
    }
    let fix = joint_fix(url, &group).or_else(|| group.iter().find_map(|d| d.fix.clone()));
    let message = message(url, &group);
    let mut members = group.into_iter();
    let mut d = members.next().expect("a group has members");
    for r in members {
        d.extra_spans.push((r.start, r.end));
        d.extra_spans.extend(r.extra_spans);
    }
    d.message = message;
    d.fix = fix;
    d
}

/// How a merged message names a code's findings, and whether the texts
/// they point at are worth listing (a `%` or a `-` is the same each time).
fn noun(code: Code) -> (&'static str, bool) {
    match code {
        Code::UnsafeCharacter => ("unencoded characters", true),
        Code::ReservedCharacter => ("reserved characters", true),
        Code::ControlCharacter => ("raw control characters", true),
        Code::NonAscii => ("runs of raw non-ASCII", true),
        Code::BadEscape => ("`%` not followed by two hex digits", false),
        Code::HyphenLineBreak => ("line breaks right after `-`", false),
        _ => ("", false),
    }
}

/// `3 unencoded characters: `~`, `{`, `}`; first: <the first message>`.
/// The first message keeps what only it says (where, and the hint that
/// another grammar allows it).
fn message(url: &[u8], group: &[Diagnostic]) -> String {
    let code = group[0].code;
    let (noun, list) = noun(code);
    let mut out = if noun.is_empty() {
        format!("{} `{code}` findings", group.len())
    } else {
        format!("{} {noun}", group.len())
    };
    if list {
        let mut items: Vec<&[u8]> = Vec::new();
        let mut more = false;
        for (s, e) in group.iter().flat_map(|d| d.spans()) {
            let text = &url[s.min(url.len())..e.min(url.len())];
            if items.contains(&text) {
                continue;
            }
            if items.len() == ITEMS {
                more = true;
                break;
            }
            items.push(text);
        }
        out.push_str(": ");
        let shown: Vec<String> = items.iter().map(|t| describe(t)).collect();
        out.push_str(&shown.join(", "));
        if more {
            out.push_str(", ...");
        }
    }
    out.push_str("; first: ");
    out.push_str(&group[0].message);
    // Quoted URL bytes: no control character may reach a terminal.
    if out.chars().any(char::is_control) {
        out = out
            .chars()
            .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.into() })
            .collect();
    }
    out
}

/// How offending text reads in a message: in backticks, with invisible
/// bytes named, long runs cut.
fn describe(text: &[u8]) -> String {
    match text {
        b" " => "space".to_string(),
        b"\t" => "TAB".to_string(),
        b"\n" => "LF".to_string(),
        b"\r" => "CR".to_string(),
        b"`" => "`` ` ``".to_string(),
        [b] if !(0x21..0x7f).contains(b) => format!("byte 0x{b:02X}"),
        _ => {
            let s = String::from_utf8_lossy(text);
            let mut shown: String = s
                .chars()
                .take(ITEM_CHARS)
                .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.into() })
                .collect();
            if s.chars().count() > ITEM_CHARS {
                shown.push_str("...");
            }
            format!("`{shown}`")
        }
    }
}

/// The URL with every span of the group corrected, when each member has a
/// fix and each fix is the URL with only its own span replaced (the rules
/// build them so; the check keeps a surprise from producing garbage).
/// `None` otherwise: past [`crate::diag::MAX_FIXES`] the rules give no
/// fix, and a fix for some spans only would read as a fix for all.
fn joint_fix(url: &[u8], group: &[Diagnostic]) -> Option<String> {
    let url = std::str::from_utf8(url).ok()?;
    let mut out = String::with_capacity(url.len() + 2 * group.len());
    let mut at = 0;
    for d in group {
        if !d.extra_spans.is_empty() || d.start < at || d.end > url.len() {
            return None;
        }
        let fix = d.fix.as_deref()?;
        let tail = url.len() - d.end;
        if fix.len() < d.start + tail
            || !fix.is_char_boundary(d.start)
            || !fix.is_char_boundary(fix.len() - tail)
            || fix[..d.start] != url[..d.start]
            || fix[fix.len() - tail..] != url[d.end..]
        {
            return None;
        }
        out.push_str(url.get(at..d.start)?);
        out.push_str(&fix[d.start..fix.len() - tail]);
        at = d.end;
    }
    out.push_str(url.get(at..)?);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unsafe_at(url: &str, i: usize) -> Diagnostic {
        let b = url.as_bytes()[i];
        let mut fix = url[..i].to_string();
        fix.push_str(&format!("%{b:02X}"));
        fix.push_str(&url[i + 1..]);
        Diagnostic::new(
            Code::UnsafeCharacter,
            i,
            i + 1,
            format!("unencoded `{}` in path", b as char),
        )
        .in_grammar(Grammar::Rfc1738)
        .with_fix(fix)
    }

    #[test]
    fn same_code_folds_into_one_with_every_span_and_a_joint_fix() {
        let url = "http://h/~a/{b}";
        let mut diags: Vec<Diagnostic> = [9, 12, 14].iter().map(|&i| unsafe_at(url, i)).collect();
        diags.push(Diagnostic::new(Code::DefaultPort, 7, 8, "x"));
        diags.sort_by_key(|d| (d.start, d.end));
        merge(url.as_bytes(), &mut diags);
        assert_eq!(diags.len(), 2);
        let d = &diags[1];
        assert_eq!(d.code, Code::UnsafeCharacter);
        assert_eq!(d.spans().collect::<Vec<_>>(), [(9, 10), (12, 13), (14, 15)]);
        assert_eq!(
            d.message,
            "3 unencoded characters: `~`, `{`, `}`; first: unencoded `~` in path"
        );
        assert_eq!(d.fix.as_deref(), Some("http://h/%7Ea/%7Bb%7D"));
    }

    #[test]
    fn without_every_fix_the_first_one_stays() {
        let url = "http://h/~a~";
        let mut diags = vec![unsafe_at(url, 9), unsafe_at(url, 11)];
        diags[1].fix = None;
        merge(url.as_bytes(), &mut diags);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].fix.as_deref(), Some("http://h/%7Ea~"));
    }

    #[test]
    fn grammars_and_severities_stay_apart() {
        let url = "http://h/~a~";
        let mut a = unsafe_at(url, 9);
        let mut b = unsafe_at(url, 11);
        b.grammar = Some(Grammar::Rfc3986);
        let mut diags = vec![a.clone(), b.clone()];
        merge(url.as_bytes(), &mut diags);
        assert_eq!(diags.len(), 2);
        b.grammar = a.grammar;
        a.severity = Severity::Note;
        let mut diags = vec![a, b];
        merge(url.as_bytes(), &mut diags);
        assert_eq!(diags.len(), 2);
    }

    #[test]
    fn messages_stay_short_and_defanged() {
        let mut url = String::from("http://h/");
        let mut diags = Vec::new();
        for c in 0u8..40 {
            let i = url.len();
            url.push(char::from(b'a' + c % 26));
            url.push('\x1b');
            diags.push(Diagnostic::new(Code::ControlCharacter, i + 1, i + 2, "raw ESC"));
        }
        diags.push(Diagnostic::new(Code::BadEscape, 3, 4, "%"));
        diags.push(Diagnostic::new(Code::BadEscape, 5, 6, "%"));
        diags.sort_by_key(|d| (d.start, d.end));
        merge(url.as_bytes(), &mut diags);
        assert_eq!(diags.len(), 2);
        let c = diags.iter().find(|d| d.code == Code::ControlCharacter).unwrap();
        assert_eq!(c.spans().count(), 40);
        assert_eq!(c.message, "40 raw control characters: byte 0x1B; first: raw ESC");
        let e = diags.iter().find(|d| d.code == Code::BadEscape).unwrap();
        assert_eq!(e.message, "2 `%` not followed by two hex digits; first: %");
        assert!(diags.iter().all(|d| !d.message.chars().any(char::is_control)));
    }

    #[test]
    fn distinct_items_are_capped() {
        let url = "http://h/{}|^[]`<>\"";
        let mut diags: Vec<Diagnostic> = (9..url.len()).map(|i| unsafe_at(url, i)).collect();
        merge(url.as_bytes(), &mut diags);
        assert_eq!(diags.len(), 1);
        assert!(
            diags[0].message.starts_with("10 unencoded characters: `{`, `}`"),
            "{}",
            diags[0].message
        );
        assert!(diags[0].message.contains(", ...; first:"), "{}", diags[0].message);
    }
}
