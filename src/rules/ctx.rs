//! What every scheme's checker shares: the context that collects
//! diagnostics, components and fixes, and the character-run checker. Below
//! both the walk (`check`) and the scheme modules, so the imports run one
//! way: `check` dispatches to the schemes, and they all use this.

use crate::diag::{Code, Diagnostic, Grammar, MAX_FIXES};

use super::chars::{self, ByteSet, Sets};
use super::{Component, SchemeKind, Validator};

/// A production whose text is a run of allowed bytes (and maybe escapes).
pub(crate) struct Class {
    /// How messages name the text, e.g. "path segment".
    pub what: &'static str,
    /// The allowed unescaped bytes, from the grammar's [`Sets`].
    pub set: fn(&Sets) -> ByteSet,
    /// Whether `%` hex hex is allowed.
    pub escapes: bool,
    /// The code for a printable byte that is neither unsafe nor allowed
    /// (usually a reserved character the production does not admit).
    pub other: Code,
    /// Whether percent-encoding the byte is the fix. Not for host names,
    /// group names and the like, where an escape is no better.
    pub encode_fix: bool,
    /// The code for raw TAB, CR and LF, if it is more specific than
    /// `control-character` (gopher).
    pub raw_tab_crlf: Option<Code>,
}

impl Class {
    /// A `*uchar`-like class: escapes allowed, reserved characters outside
    /// the set are `reserved-character` and fixed by encoding.
    pub(crate) const fn text(what: &'static str, set: fn(&Sets) -> ByteSet) -> Class {
        Class {
            what,
            set,
            escapes: true,
            other: Code::ReservedCharacter,
            encode_fix: true,
            raw_tab_crlf: None,
        }
    }
}

/// The fragment, `*xchar`.
pub(crate) const FRAGMENT: Class = Class::text("fragment", |s| s.fragment);

/// Collects what the explaining parser finds about one URL.
pub(crate) struct Ctx<'a> {
    pub url: &'a [u8],
    pub grammar: Grammar,
    pub sets: &'static Sets,
    pub validator: &'a Validator,
    pub diags: Vec<Diagnostic>,
    pub comps: Vec<Component>,
    /// False when only diagnostics are wanted (`diagnose`).
    pub want_components: bool,
    /// The fixes, by index in `diags`: made into whole URLs only at the
    /// end, for the first [`MAX_FIXES`] in URL order.
    pub fixes: Vec<(usize, Edit)>,
    /// The URL's scheme, once read: some severities depend on it.
    pub kind: SchemeKind,
}

/// A mechanical fix: replace `start..end` of the URL by `with`.
pub(crate) struct Edit {
    start: usize,
    end: usize,
    with: String,
}

impl<'a> Ctx<'a> {
    /// Reports a finding; returns it so the caller can attach a fix.
    pub(crate) fn report(
        &mut self,
        code: Code,
        start: usize,
        end: usize,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        self.diags.push(Diagnostic::new(code, start, end, message).in_grammar(self.grammar));
        self.diags.last_mut().expect("just pushed")
    }

    /// Records a component.
    pub(crate) fn component(&mut self, name: &'static str, start: usize, end: usize) {
        if self.want_components {
            self.comps.push(Component { name, start, end });
        }
    }

    /// The fix that replaces `start..end` of the URL by `with`, the form
    /// every fix takes. Cheap: the whole URL is written out only for the
    /// fixes kept (see `sort_and_fix`).
    pub(crate) fn replaced(&self, start: usize, end: usize, with: &str) -> Edit {
        Edit { start, end, with: with.to_string() }
    }

    /// Attaches a fix to the diagnostic reported last.
    pub(crate) fn fix(&mut self, edit: Edit) {
        let last = self.diags.len().checked_sub(1).expect("a diagnostic was reported");
        self.fixes.push((last, edit));
    }

    /// The fixes as whole URLs, on the first [`MAX_FIXES`] diagnostics
    /// that have one once sorted; the diagnostics sorted by position, with
    /// the profile's severities (those it leaves off dropped). The rules
    /// report what they find whatever the profile; judging it is the
    /// table's business, in this one place.
    pub(crate) fn sort_and_fix(&mut self) {
        let mut edits: Vec<Option<Edit>> =
            std::iter::repeat_with(|| None).take(self.diags.len()).collect();
        for (i, e) in self.fixes.drain(..) {
            edits[i] = Some(e);
        }
        let mut both: Vec<(Diagnostic, Option<Edit>)> =
            std::mem::take(&mut self.diags).into_iter().zip(edits).collect();
        let (validator, kind) = (self.validator, self.kind);
        both.retain_mut(|(d, _)| match validator.severity(d.code, kind) {
            Some(s) => {
                d.severity = s;
                true
            }
            None => false,
        });
        both.sort_by_key(|(d, _)| (d.start, d.end));
        let mut left = MAX_FIXES;
        let url = self.url;
        self.diags = both
            .into_iter()
            .map(|(mut d, e)| {
                if let Some(e) = e.filter(|_| left > 0) {
                    left -= 1;
                    let mut out = String::with_capacity(url.len() + e.with.len());
                    out.push_str(&String::from_utf8_lossy(&url[..e.start]));
                    out.push_str(&e.with);
                    out.push_str(&String::from_utf8_lossy(&url[e.end..]));
                    d.fix = Some(out);
                }
                d
            })
            .collect();
    }

    /// The text of `start..end` for a message, shortened when long.
    pub(crate) fn show(&self, start: usize, end: usize) -> String {
        const MAX: usize = 40;
        let text = String::from_utf8_lossy(&self.url[start..end]);
        if text.chars().count() <= MAX {
            format!("`{text}`")
        } else {
            let head: String = text.chars().take(MAX).collect();
            format!("`{head}...`")
        }
    }

    /// The suffix saying a construct wrong under RFC 1738 is fine under
    /// RFC 3986; empty when it is not, or when already checking RFC 3986.
    pub(crate) fn hint(&self, ok_in_rfc3986: bool) -> &'static str {
        if ok_in_rfc3986 && self.grammar == Grammar::Rfc1738 {
            " (allowed by RFC 3986; use --grammar rfc3986)"
        } else {
            ""
        }
    }

    /// Whether `b` is allowed by `class` under the other grammar.
    fn ok_in_rfc3986(&self, class: &Class, b: u8) -> bool {
        (class.set)(&chars::RFC3986_SETS).has(b)
    }

    /// Checks that `start..end` holds only bytes `class` allows, reporting
    /// each offending byte (or run of non-ASCII bytes).
    pub(crate) fn check_chars(&mut self, start: usize, end: usize, class: &Class) {
        let set = (class.set)(self.sets);
        let mut i = start;
        while i < end {
            let b = self.url[i];
            if b == b'%' {
                if chars::is_escape(&self.url[..end], i) {
                    if !class.escapes {
                        let msg =
                            format!("escape {} not allowed in {}", self.show(i, i + 3), class.what);
                        self.report(class.other, i, i + 3, msg);
                    }
                    i += 3;
                } else {
                    let msg = format!(
                        "`%` not followed by two hex digits in {} (a literal `%` is written `%25`)",
                        class.what
                    );
                    let fix = self.replaced(i, i + 1, "%25");
                    self.report(Code::BadEscape, i, i + 1, msg);
                    self.fix(fix);
                    i += 1;
                }
                continue;
            }
            if set.has(b) {
                i += 1;
                continue;
            }
            if b >= 0x80 {
                let run_end = (i..end).find(|&j| self.url[j] < 0x80).unwrap_or(end);
                // The modern profile reads text as RFC 3987 IRIs: Unicode
                // letters in a path, query or fragment are how people
                // write (and browsers show) them. C1 controls and broken
                // UTF-8 are not characters of any IRI.
                if self.grammar == Grammar::Modern
                    && std::str::from_utf8(&self.url[i..run_end])
                        .is_ok_and(|s| s.chars().all(|c| c >= '\u{a0}'))
                {
                    i = run_end;
                    continue;
                }
                let mut enc = String::new();
                for &c in &self.url[i..run_end] {
                    chars::push_encoded(&mut enc, c);
                }
                let msg = format!(
                    "raw non-ASCII {} in {} must be %-encoded",
                    self.show(i, run_end),
                    class.what
                );
                let fix = class.encode_fix.then(|| self.replaced(i, run_end, &enc));
                self.report(Code::NonAscii, i, run_end, msg);
                if let Some(fix) = fix {
                    self.fix(fix);
                }
                i = run_end;
                continue;
            }
            let code = match b {
                b'\t' | b'\n' | b'\r' if class.raw_tab_crlf.is_some() => {
                    class.raw_tab_crlf.expect("checked")
                }
                0..0x20 | 0x7f => Code::ControlCharacter,
                b'#' => Code::BadFragment,
                // RFC 3986 2.3 made `~` unreserved: where it is still out
                // of place (a host name) it is the production's business.
                b'~' if self.grammar.is_3986() => class.other,
                _ if chars::UNSAFE.has(b) => Code::UnsafeCharacter,
                _ => class.other,
            };
            let hint = self.hint(self.ok_in_rfc3986(class, b));
            let what = chars::describe(b);
            let msg = match code {
                Code::BadFragment => {
                    "second `#` inside the fragment: `#` is only the fragment separator".to_string()
                }
                Code::ControlCharacter => {
                    format!("raw control character {what} in {} must be %-encoded", class.what)
                }
                Code::GopherSelector => format!(
                    "raw {what} in the gopher {}: selectors cannot hold TAB, CR or LF",
                    class.what
                ),
                Code::UnsafeCharacter => format!("unencoded {what} in {}{hint}", class.what),
                Code::ReservedCharacter => {
                    format!("reserved {what} not allowed in {}{hint}", class.what)
                }
                _ => format!("{what} not allowed in {}{hint}", class.what),
            };
            let fix = (class.encode_fix && code != Code::GopherSelector).then(|| {
                let mut enc = String::new();
                chars::push_encoded(&mut enc, b);
                self.replaced(i, i + 1, &enc)
            });
            self.report(code, i, i + 1, msg);
            if let Some(fix) = fix {
                self.fix(fix);
            }
            i += 1;
        }
    }

    /// Checks a `/`-separated path, each segment against `class`, recording
    /// the non-empty segments as `path-segment`.
    pub(crate) fn segments(&mut self, start: usize, end: usize, class: &Class) {
        let mut s = start;
        loop {
            let e = find(self.url, s, end, b'/').unwrap_or(end);
            self.check_chars(s, e, class);
            if e > s {
                self.component("path-segment", s, e);
            }
            if e == end {
                break;
            }
            s = e + 1;
        }
    }
}

/// The first `needle` in `url[start..end]`, as an index into `url`.
#[inline]
pub(crate) fn find(url: &[u8], start: usize, end: usize, needle: u8) -> Option<usize> {
    memchr::memchr(needle, &url[start..end]).map(|i| start + i)
}

/// The first of `a` or `b` in `url[start..end]`.
#[inline]
pub(crate) fn find2(url: &[u8], start: usize, end: usize, a: u8, b: u8) -> Option<usize> {
    memchr::memchr2(a, b, &url[start..end]).map(|i| start + i)
}

/// The escapes in `url[start..end]` that encode a protocol delimiter for
/// `kind`: CR and LF for ftp, telnet and gopher, and TAB for ftp and telnet
/// (in gopher, `%09` is the URL's own separator). Returns the first such
/// escape at or after `start`, looking no further than a `#` (the fragment
/// is never sent).
pub(crate) fn has_encoded_delimiter(
    kind: SchemeKind,
    url: &[u8],
    start: usize,
    end: usize,
) -> Option<usize> {
    let tab = match kind {
        SchemeKind::Ftp | SchemeKind::Telnet => true,
        SchemeKind::Gopher => false,
        _ => return None,
    };
    let mut i = start;
    while let Some(p) = find2(url, i, end, b'%', b'#') {
        if url[p] == b'#' {
            return None;
        }
        if p + 2 < end && url[p + 1] == b'0' {
            match url[p + 2] {
                b'a' | b'A' | b'd' | b'D' => return Some(p),
                b'9' if tab => return Some(p),
                _ => {}
            }
        }
        i = p + 1;
    }
    None
}
