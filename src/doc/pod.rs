//! Perl's POD (perlpodspec): `.pod` files and the POD blocks of `.pm` and
//! `.pl` files.
//!
//! A POD block runs from a line that opens with `=command` to the
//! paragraph `=cut`; the Perl around it is code. Inside, a paragraph that
//! opens with a space or a tab is verbatim (code), `=begin FORMAT` ...
//! `=end` and `=for FORMAT` hold another format's data (code too, unless
//! the format is `:`-prefixed, which is POD), and the rest is text with
//! formatting codes: `X<...>`, or `X<< ... >>` with more brackets and
//! whitespace inside. A reader sees `B<bold>` as `bold`, so codes are
//! unwrapped; `C<...>` is code; `E<gt>` and friends are decoded; `X<...>`
//! (an index entry) and `Z<>` print nothing. `L<...>` names a POD page
//! (`L<File::Spec>`, `L<perlfunc/open>`) unless its target has a scheme
//! (perlpodspec: `\w+:[^:\s]\S*`): only then is it a link, taken whole.
//! Read as prose, `L<File::Spec>` is a `<scheme:...>` wrapper; it never is.

use std::ops::Range;

use super::{Doc, DocBuilder, Role, scheme_len};
use crate::scan::Kind;

/// Reads a POD file, or a Perl file with POD in it.
pub(super) fn read(src: &[u8]) -> Doc {
    let mut b = DocBuilder::new(src);
    let mut pos = 0;
    let mut in_pod = false;
    // Inside `=begin FORMAT` for a format other than POD.
    let mut data = false;
    let mut code: Option<usize> = None;
    while pos < src.len() {
        let eol = memchr::memchr(b'\n', &src[pos..]).map_or(src.len(), |k| pos + k + 1);
        if !in_pod {
            if is_command(&src[pos..eol]) {
                if let Some(s) = code.take() {
                    b.mark(s, Role::Code);
                }
                b.brk(pos);
                in_pod = true;
                continue;
            }
            if code.is_none() {
                code = Some(b.len());
            }
            b.copy(pos..eol);
            pos = eol;
            continue;
        }
        if src[pos..eol].trim_ascii().is_empty() {
            pos = eol;
            continue;
        }
        let end = paragraph_end(src, pos);
        let para = pos..end;
        pos = end;
        if src[para.start] == b'=' && is_command(&src[para.clone()]) {
            let name_end = src[para.clone()]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(para.end, |k| para.start + k);
            let name = &src[para.start + 1..name_end];
            let mut text = name_end;
            while text < para.end && src[text].is_ascii_whitespace() {
                text += 1;
            }
            let format = {
                let w = &src[text..para.end];
                &w[..w.iter().position(u8::is_ascii_whitespace).unwrap_or(w.len())]
            };
            match name {
                b"cut" => {
                    in_pod = false;
                    data = false;
                    // Perl resumes on the line after `=cut`.
                    let line_end = memchr::memchr(b'\n', &src[para.clone()])
                        .map_or(para.end, |k| para.start + k + 1);
                    pos = line_end;
                    b.brk(para.start);
                    continue;
                }
                b"begin" => data = !format.starts_with(b":"),
                b"end" => data = false,
                b"for" => {
                    let body = (text + format.len()).min(para.end)..para.end;
                    if format.starts_with(b":") {
                        inline(&mut b, body, false, false);
                    } else {
                        code_block(&mut b, body);
                    }
                }
                b"pod" | b"over" | b"back" | b"encoding" => {}
                _ => inline(&mut b, text..para.end, false, false),
            }
        } else if data || matches!(src[para.start], b' ' | b'\t') {
            code_block(&mut b, para.clone());
        } else {
            inline(&mut b, para.clone(), false, false);
        }
        b.brk(para.end.saturating_sub(1));
    }
    if let Some(s) = code {
        b.mark(s, Role::Code);
    }
    b.finish()
}

/// Whether `line` opens a POD command paragraph: `=` and a letter.
fn is_command(line: &[u8]) -> bool {
    line.first() == Some(&b'=') && line.get(1).is_some_and(u8::is_ascii_alphabetic)
}

/// The end of the paragraph starting at `pos`: the start of the first
/// blank (or all-whitespace) line after it, or the end of the input.
fn paragraph_end(src: &[u8], pos: usize) -> usize {
    let mut at = pos;
    while let Some(k) = memchr::memchr(b'\n', &src[at..]).map(|k| at + k + 1) {
        let next = memchr::memchr(b'\n', &src[k..]).map_or(src.len(), |e| k + e);
        if src[k..next].trim_ascii().is_empty() {
            return k;
        }
        at = k;
    }
    src.len()
}

/// Appends `range` as code.
fn code_block(b: &mut DocBuilder, range: Range<usize>) {
    b.brk(range.start);
    let s = b.len();
    b.copy(range.clone());
    b.mark(s, Role::Code);
    b.brk(range.end.saturating_sub(1));
}

/// An open formatting code.
struct Open {
    /// How many `<` opened it.
    brackets: usize,
    /// Where its code region starts (the outermost `C<...>`).
    code: Option<usize>,
    /// It prints nothing (`X<...>`, `Z<>`).
    silent: bool,
}

/// How many `<` open the code whose letter is at `i`, and where its text
/// starts: `X<`, or `X<<` and more when whitespace follows (else it is
/// `X<` and a literal `<`).
fn opening(src: &[u8], i: usize, end: usize) -> (usize, usize) {
    let n = src[i + 1..end].iter().take_while(|&&b| b == b'<').count();
    let after = i + 1 + n;
    if n > 1 && src.get(after).is_some_and(|b| b.is_ascii_whitespace()) && after < end {
        let text = after + src[after..end].iter().take_while(|b| b.is_ascii_whitespace()).count();
        (n, text)
    } else {
        (1, i + 2)
    }
}

/// Whether the code on top of a stack with `brackets` closes at `i`, and
/// where its closing ends.
fn closing(src: &[u8], i: usize, end: usize, brackets: usize) -> Option<usize> {
    if brackets == 1 {
        return (src[i] == b'>').then_some(i + 1);
    }
    if !src[i].is_ascii_whitespace() {
        return None;
    }
    let gt = i + src[i..end].iter().take_while(|b| b.is_ascii_whitespace()).count();
    let n = src[gt..end].iter().take(brackets).take_while(|&&b| b == b'>').count();
    (n == brackets).then_some(gt + n)
}

/// Whether a formatting code opens at `i`.
fn opens(src: &[u8], i: usize, end: usize) -> bool {
    src[i].is_ascii_uppercase() && i + 1 < end && src[i + 1] == b'<'
}

/// The end of the code whose text starts at `text` with `brackets`: where
/// its text ends and where its closing ends (the end of the paragraph
/// when it is never closed).
fn code_end(src: &[u8], text: usize, brackets: usize, end: usize) -> (usize, usize) {
    let mut stack = vec![brackets];
    let mut i = text;
    while i < end {
        let top = *stack.last().unwrap_or(&1);
        if let Some(after) = closing(src, i, end, top) {
            stack.pop();
            if stack.is_empty() {
                return (i, after);
            }
            i = after;
        } else if opens(src, i, end) {
            let (n, t) = opening(src, i, end);
            stack.push(n);
            i = t;
        } else {
            i += 1;
        }
    }
    (end, end)
}

/// Appends POD text `range` with its formatting codes undone. `in_code`:
/// inside a `C<...>` already (no region of its own); `in_link`: inside an
/// `L<...>` (an `L` there is not a link: POD does not nest them).
fn inline(b: &mut DocBuilder, range: Range<usize>, mut in_code: bool, in_link: bool) {
    let src = b.src();
    let end = range.end;
    let mut stack: Vec<Open> = Vec::new();
    let mut silent = 0usize;
    let mut from = range.start;
    let mut i = range.start;
    let flush = |b: &mut DocBuilder, r: Range<usize>, silent: usize| {
        if silent == 0 {
            b.copy(r);
        }
    };
    while i < end {
        if let Some(top) = stack.last()
            && let Some(after) = closing(src, i, end, top.brackets)
        {
            flush(b, from..i, silent);
            let top = stack.pop().expect("a top");
            if top.silent {
                silent -= 1;
            }
            if let Some(s) = top.code {
                b.mark(s, Role::Code);
                b.brk(i);
                in_code = false;
            }
            i = after;
            from = i;
            continue;
        }
        if !opens(src, i, end) {
            i += 1;
            continue;
        }
        let letter = src[i];
        let (n, text) = opening(src, i, end);
        if letter == b'E' && n == 1 {
            let close = src[text..end].iter().take(16).position(|&b| b == b'>').map(|k| text + k);
            if let Some(close) = close {
                let mut buf = [0u8; 4];
                if let Some(out) = entity(&src[text..close], &mut buf) {
                    flush(b, from..i, silent);
                    if silent == 0 {
                        b.decoded(out, i);
                    }
                    i = close + 1;
                    from = i;
                    continue;
                }
            }
            i += 1;
            continue;
        }
        flush(b, from..i, silent);
        if letter == b'L' && !in_link && silent == 0 {
            let (text_end, after) = code_end(src, text, n, end);
            link(b, text..text_end, in_code);
            i = after;
            from = i;
            continue;
        }
        let code = (letter == b'C' && !in_code && silent == 0).then(|| {
            b.brk(i);
            b.len()
        });
        in_code |= code.is_some();
        let quiet = matches!(letter, b'X' | b'Z');
        silent += usize::from(quiet);
        stack.push(Open { brackets: n, code, silent: quiet });
        i = text;
        from = i;
    }
    flush(b, from..end, silent);
    // Codes left open end with the paragraph.
    while let Some(top) = stack.pop() {
        if let Some(s) = top.code {
            b.mark(s, Role::Code);
            b.brk(end.saturating_sub(1));
        }
    }
}

/// Appends the text of `L<...>`: a link whole when its target has a
/// scheme, else the text a reader sees.
fn link(b: &mut DocBuilder, text: Range<usize>, in_code: bool) {
    let src = b.src();
    let bar = memchr::memchr(b'|', &src[text.clone()]).map(|k| text.start + k);
    let target = bar.map_or(text.start, |k| k + 1)..text.end;
    let t = src[target.clone()].trim_ascii();
    let is_url = !in_code
        && scheme_len(t).is_some_and(|n| t.get(n + 1).is_some_and(|&c| c != b':'))
        && !t.iter().any(u8::is_ascii_whitespace);
    if let Some(bar) = bar {
        inline(b, text.start..bar, in_code, true);
        if !is_url {
            return;
        }
    } else if !is_url {
        inline(b, text, in_code, true);
        return;
    }
    b.brk(target.start);
    let s = b.len();
    inline(b, target.clone(), false, true);
    b.mark(s, Role::Link(Kind::Link));
    b.brk(target.end);
}

/// The text of `E<name>`: `lt`, `gt`, `verbar`, `sol` and a few more
/// HTML names, or a number (decimal, `0x` hex, `0` octal).
fn entity<'b>(name: &[u8], buf: &'b mut [u8; 4]) -> Option<&'b [u8]> {
    let c = match name {
        b"lt" => '<',
        b"gt" => '>',
        b"verbar" => '|',
        b"sol" => '/',
        b"quot" => '"',
        b"amp" => '&',
        b"apos" => '\'',
        b"nbsp" => '\u{a0}',
        b"shy" => '\u{ad}',
        b"copy" => '\u{a9}',
        b"reg" => '\u{ae}',
        b"laquo" => '\u{ab}',
        b"raquo" => '\u{bb}',
        b"eacute" => '\u{e9}',
        b"auml" => '\u{e4}',
        b"ouml" => '\u{f6}',
        b"uuml" => '\u{fc}',
        _ => {
            let s = std::str::from_utf8(name).ok()?;
            let n = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                u32::from_str_radix(h, 16).ok()?
            } else if s.len() > 1 && s.starts_with('0') {
                u32::from_str_radix(&s[1..], 8).ok()?
            } else {
                s.parse().ok()?
            };
            char::from_u32(n)?
        }
    };
    Some(c.encode_utf8(buf).as_bytes())
}
