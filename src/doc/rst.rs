//! reStructuredText, as docutils reads it (the parts that hold URLs).
//!
//! - Links whole: embedded URIs (`` `text <url>`_ ``, `` `<url>`__ ``),
//!   hyperlink targets (`.. _name: url`, `.. __: url`, `__ url`), whose
//!   URI may go on over indented lines (docutils drops the whitespace),
//!   and the URI argument of `.. image::` and `.. figure::` and their
//!   `:target:` option.
//! - Code: inline literals (``` ``x`` ```), `:code:` and `:literal:` roles,
//!   literal blocks after a paragraph ending in `::`, doctest blocks, and
//!   the bodies of `code-block`, `code`, `sourcecode` and the like.
//!   Comments (`.. text`) are not prose either: code, so their URLs are
//!   kept but not linted.
//! - Backslash escapes are undone in text, and escaped whitespace goes.
//!   Bare URLs in text are the scanner's.

use std::ops::Range;

use super::{Doc, DocBuilder, Role};
use crate::scan::Kind;

/// Directives whose body is code (or another language).
const CODE_DIRECTIVES: &[&[u8]] = &[
    b"code-block",
    b"code",
    b"sourcecode",
    b"parsed-literal",
    b"doctest",
    b"testcode",
    b"testoutput",
    b"testsetup",
    b"ipython",
    b"math",
    b"raw",
    b"productionlist",
];

/// Reads a reStructuredText file.
pub(super) fn read(src: &[u8]) -> Doc {
    let mut r = Rst { b: DocBuilder::new(src), src };
    r.blocks();
    r.b.finish()
}

struct Rst<'a> {
    b: DocBuilder<'a>,
    src: &'a [u8],
}

/// One line: where it starts, where its text starts after the indentation,
/// where it ends (before its newline) and where the next one starts.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    text: usize,
    end: usize,
    next: usize,
}

impl Line {
    fn at(src: &[u8], start: usize) -> Line {
        let nl = memchr::memchr(b'\n', &src[start..]).map_or(src.len(), |k| start + k);
        let next = (nl + 1).min(src.len());
        let mut end = nl;
        if end > start && src[end - 1] == b'\r' {
            end -= 1;
        }
        let text = start + src[start..end].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        Line { start, text, end, next }
    }

    fn blank(&self) -> bool {
        self.text == self.end
    }

    fn indent(&self) -> usize {
        self.text - self.start
    }
}

impl<'a> Rst<'a> {
    fn blocks(&mut self) {
        let src = self.src;
        let mut pos = 0;
        // A literal block may follow (after a `::` paragraph or a code
        // directive): the indentation it must exceed.
        let mut literal_after: Option<usize> = None;
        while pos < src.len() {
            let line = Line::at(src, pos);
            if line.blank() {
                pos = line.next;
                continue;
            }
            if let Some(base) = literal_after.take()
                && line.indent() > base
            {
                pos = self.code_body(pos, base);
                continue;
            }
            let t = &src[line.text..line.end];
            if t.starts_with(b"..") && (t.len() == 2 || t[2] == b' ' || t[2] == b'\t') {
                let (next, lit) = self.explicit(line);
                pos = next;
                literal_after = lit;
                continue;
            }
            if let Some(rest) = t.strip_prefix(b"__ ") {
                let at = line.end - rest.len();
                pos = self.target(at, line);
                continue;
            }
            // A paragraph: lines up to a blank one or explicit markup (a
            // list item's lines are indented past its bullet, and a
            // reference may run over them).
            let mut end = line;
            let mut p = line.next;
            while p < src.len() {
                let l = Line::at(src, p);
                let t = &src[l.text..l.end];
                if l.blank() || t.starts_with(b".. ") || t.starts_with(b"__ ") {
                    break;
                }
                end = l;
                p = l.next;
            }
            let range = line.text..end.end;
            if t.starts_with(b">>>") {
                self.code(range);
            } else {
                self.inline(range.clone());
                self.b.brk(range.end);
                if src[range].trim_ascii_end().ends_with(b"::") {
                    literal_after = Some(line.indent());
                }
            }
            pos = p;
        }
    }

    /// Appends `range` as code, a stretch of its own.
    fn code(&mut self, range: Range<usize>) {
        self.b.brk(range.start);
        let s = self.b.len();
        self.b.copy(range.clone());
        self.b.mark(s, Role::Code);
        self.b.brk(range.end);
    }

    /// Appends the block from `pos` whose lines are blank or indented more
    /// than `base` as code; returns where it ends.
    fn code_body(&mut self, pos: usize, base: usize) -> usize {
        let (next, last) = self.indented_end(pos, base);
        if last > pos {
            self.code(pos..last);
        }
        next
    }

    /// Where the block from `pos` whose lines are blank or indented more
    /// than `base` ends: the next block's start, and the end of its last
    /// non-blank line (`pos` when it has none).
    fn indented_end(&self, pos: usize, base: usize) -> (usize, usize) {
        let src = self.src;
        let (mut p, mut last) = (pos, pos);
        while p < src.len() {
            let l = Line::at(src, p);
            if !l.blank() && l.indent() <= base {
                break;
            }
            if !l.blank() {
                last = l.end;
            }
            p = l.next;
        }
        (p, last)
    }

    /// An explicit markup block (a line opening with `..`): returns where
    /// the next block starts, and the indentation a literal body must
    /// exceed when one may follow.
    fn explicit(&mut self, line: Line) -> (usize, Option<usize>) {
        let src = self.src;
        let body = (line.text + 2).min(line.end);
        let rest_at =
            body + src[body..line.end].iter().take_while(|b| b.is_ascii_whitespace()).count();
        let rest = &src[rest_at..line.end];
        if rest.starts_with(b"_") {
            // A hyperlink target: `_name: uri`, `` _`a name`: uri ``, `__: uri`.
            let name_end = if rest.starts_with(b"_`") {
                memchr::memchr(b'`', &rest[2..]).map(|k| k + 3)
            } else {
                Some(1)
            };
            let colon = name_end.and_then(|n| {
                let mut k = n;
                while k < rest.len() {
                    if rest[k] == b'\\' {
                        k += 2;
                        continue;
                    }
                    if rest[k] == b':' && rest.get(k + 1).is_none_or(|b| b.is_ascii_whitespace()) {
                        return Some(k);
                    }
                    k += 1;
                }
                None
            });
            if let Some(c) = colon {
                return (self.target(rest_at + c + 1, line), None);
            }
            return (line.next, None);
        }
        if rest.starts_with(b"[") {
            // A footnote or citation: its text, over its indented lines,
            // is prose.
            let (next, last) = self.indented_end(line.next, line.indent());
            let end = line.end.max(last);
            self.inline(rest_at..end);
            self.b.brk(end);
            return (next, None);
        }
        // A directive: `name:: args`, after an optional `|substitution|`.
        let mut d = rest;
        let mut d_at = rest_at;
        if d.starts_with(b"|")
            && let Some(k) = memchr::memchr(b'|', &d[1..])
        {
            let skip = k + 2;
            let ws = d[skip..].iter().take_while(|b| b.is_ascii_whitespace()).count();
            d = &d[skip + ws..];
            d_at += skip + ws;
        }
        let name_len = d
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.')));
        let dc = memchr::memmem::find(d, b"::");
        match dc {
            Some(k) if name_len.is_none_or(|n| n >= k) && k > 0 => {
                let name = &d[..k];
                let name = name.rsplit(|&b| b == b':').next().unwrap_or(name);
                let args = d_at + k + 2..line.end;
                if CODE_DIRECTIVES.contains(&name) {
                    return (self.code_body(line.next, line.indent()), None);
                }
                if name == b"image" || name == b"figure" {
                    self.link(args.clone());
                    return (self.options(line), None);
                }
                self.inline(args.clone());
                self.b.brk(args.end);
                (line.next, None)
            }
            _ => {
                // A comment: it and its indented body are no prose.
                let (next, last) = self.indented_end(line.next, line.indent());
                self.code(line.text..line.end.max(last));
                (next, None)
            }
        }
    }

    /// The option lines after an image or figure (`:target: uri` is a
    /// link); returns where they end.
    fn options(&mut self, line: Line) -> usize {
        let src = self.src;
        let mut p = line.next;
        while p < src.len() {
            let l = Line::at(src, p);
            if l.blank() || l.indent() <= line.indent() || src[l.text] != b':' {
                break;
            }
            let t = &src[l.text..l.end];
            if let Some(v) = t.strip_prefix(b":target:") {
                self.link(l.end - v.len()..l.end);
            } else {
                self.inline(l.text..l.end);
                self.b.brk(l.end);
            }
            p = l.next;
        }
        p
    }

    /// A target's URI from `at` on `line`, with the indented lines that go
    /// on with it; returns where the next block starts.
    fn target(&mut self, at: usize, line: Line) -> usize {
        let src = self.src;
        self.b.brk(at);
        let s = self.b.len();
        self.uri_piece(at..line.end);
        let mut p = line.next;
        while p < src.len() {
            let l = Line::at(src, p);
            if l.blank() || l.indent() <= line.indent() {
                break;
            }
            self.uri_piece(l.text..l.end);
            p = l.next;
        }
        self.b.mark(s, Role::Link(Kind::Link));
        self.b.brk(line.end);
        p
    }

    /// Appends a URI's `range` as one link.
    fn link(&mut self, range: Range<usize>) {
        self.b.brk(range.start);
        let s = self.b.len();
        self.uri_piece(range.clone());
        self.b.mark(s, Role::Link(Kind::Link));
        self.b.brk(range.end);
    }

    /// Appends a piece of a URI: whitespace dropped, escapes undone.
    fn uri_piece(&mut self, range: Range<usize>) {
        let src = self.src;
        let mut from = range.start;
        for (k, &c) in src[range.clone()].iter().enumerate() {
            let k = range.start + k;
            if k < from {
                continue;
            }
            if c.is_ascii_whitespace() || c == b'\\' {
                self.b.copy(from..k);
                from = k + 1;
                if c == b'\\' && k + 1 < range.end {
                    self.b.copy(k + 1..k + 2);
                    from = k + 2;
                }
            }
        }
        self.b.copy(from..range.end);
    }

    /// Appends text with its escapes undone (`\*` is `*`; `\ ` is nothing).
    fn escaped(&mut self, range: Range<usize>) {
        let src = self.src;
        let mut from = range.start;
        let mut i = range.start;
        while let Some(k) = memchr::memchr(b'\\', &src[i..range.end]).map(|k| i + k) {
            self.b.copy(from..k);
            from = k + 1;
            if src.get(k + 1).is_some_and(|b| b.is_ascii_whitespace()) && k + 1 < range.end {
                from = k + 2;
            }
            i = (k + 2).min(range.end);
        }
        self.b.copy(from..range.end);
    }

    /// Appends a paragraph's text: inline literals as code, references
    /// with embedded URIs as links, escapes undone.
    fn inline(&mut self, range: Range<usize>) {
        let src = self.src;
        let end = range.end;
        let mut from = range.start;
        let mut i = range.start;
        // A failed search for a closing mark fails from every later point.
        let (mut no_literal_end, mut no_backquote) = (false, false);
        while let Some(k) = memchr::memchr2(b'\\', b'`', &src[i..end]).map(|k| i + k) {
            if src[k] == b'\\' {
                self.escaped(from..(k + 2).min(end));
                i = (k + 2).min(end);
                from = i;
                continue;
            }
            let start_ok = k == range.start
                || src[k - 1].is_ascii_whitespace()
                || matches!(
                    src[k - 1],
                    b'(' | b'[' | b'{' | b'<' | b'\'' | b'"' | b'-' | b'/' | b':'
                );
            if src[k..end].starts_with(b"``") {
                let close = if no_literal_end || !start_ok {
                    None
                } else {
                    let mut j = k + 2;
                    loop {
                        match memchr::memmem::find(&src[j..end], b"``").map(|c| j + c) {
                            Some(c) if c > k + 2 && !src[c - 1].is_ascii_whitespace() => {
                                break Some(c);
                            }
                            Some(c) => j = c + 1,
                            None => break None,
                        }
                    }
                };
                match close {
                    Some(c) => {
                        self.escaped(from..k);
                        self.code(k + 2..c);
                        i = c + 2;
                        // ```` ``x``` ````: the closing is the last pair.
                        while i < end && src[i] == b'`' {
                            i += 1;
                        }
                        from = i;
                    }
                    None => {
                        no_literal_end |= start_ok;
                        i = k + 2;
                    }
                }
                continue;
            }
            let close = if no_backquote {
                None
            } else {
                memchr::memchr(b'`', &src[k + 1..end]).map(|c| k + 1 + c)
            };
            let Some(c) = close.filter(|&c| c > k + 1 && start_ok) else {
                no_backquote |= close.is_none();
                i = k + 1;
                continue;
            };
            let suffix = src[c + 1..end].iter().take(2).take_while(|&&b| b == b'_').count();
            let role = role_before(&src[range.start..k]);
            let last = role.map(|r| r.rsplit(|&c| c == b':').next().unwrap_or(r));
            let code = matches!(last, Some(b"code" | b"literal" | b"samp" | b"kbd" | b"command"));
            if let Some(r) = role {
                // The role's `:name:` is markup.
                self.escaped(from..(k - r.len() - 2).max(from));
            } else {
                self.escaped(from..k);
            }
            let text = k + 1..c;
            if code {
                self.code(text);
            } else if let Some(lt) = embedded(&src[text.clone()]) {
                // Only a hyperlink reference (`_` after it) embeds a URI; a
                // role's `<target>` (Sphinx's `:ref:`, `:term:`) is a name,
                // and so is a target ending in `_`. Neither is shown.
                let lt = text.start + lt;
                self.escaped(text.start..lt);
                let uri = lt + 1..c - 1;
                if suffix > 0 && role.is_none() && !src[uri.clone()].ends_with(b"_") {
                    self.link(uri);
                }
            } else {
                self.escaped(text);
            }
            i = c + 1 + if role.is_none() { suffix } else { 0 };
            from = i;
        }
        self.escaped(from..end);
    }
}

/// The role written just before an interpreted text (`py:func` in
/// ``:py:func:`x` ``), if any.
fn role_before(before: &[u8]) -> Option<&[u8]> {
    let b = before.strip_suffix(b":")?;
    let start = b
        .iter()
        .rposition(|&c| {
            !(c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b':' | b'+'))
        })
        .map_or(0, |p| p + 1);
    let name = b[start..].strip_prefix(b":")?;
    (!name.is_empty()).then_some(name)
}

/// Where the embedded `<uri>` of a reference's text starts (its `<`), when
/// the text ends with one.
fn embedded(text: &[u8]) -> Option<usize> {
    if !text.ends_with(b">") {
        return None;
    }
    let lt = memchr::memrchr(b'<', text)?;
    (lt == 0 || text[lt - 1].is_ascii_whitespace()).then_some(lt)
}
