//! The readers of formats whose text lives in string literals: JSON,
//! JavaScript and TypeScript, configuration (TOML, YAML, INI) and the
//! source code of other languages.
//!
//! Read as prose, a string literal's escapes leak into URLs: the `\"` of
//! `"href=\"https://x/a\">"` ends up as `https://x/a\`, the `\n` of a JSON
//! string holding a Markdown line as `https://example.com/guide\n`. These
//! readers find the string literals, undo their escapes (each decoded byte
//! traced to the escape's first byte, so a URL that starts with one is
//! placed at its `\`), and say what the rest is:
//!
//! - JSON: only the strings (keys and values alike) are text; each is a
//!   stretch of its own, as no URL runs from one value into the next.
//!   `//` and `/* */` comments (JSONC) are prose too.
//! - Script and Source: string literals and comments are prose (that is
//!   where documentation links live); everything else is code.
//! - Config: everything is prose (keys, values, comments); escapes are
//!   undone inside double-quoted strings.
//!
//! Every reader is one forward pass with bounded look-back; a literal left
//! open ends at its line's end (or the file's end for the kinds that span
//! lines), so a stray quote cannot make the pass quadratic.

use std::ops::Range;

use memchr::{memchr, memchr2, memchr3, memmem};

use super::{Doc, DocBuilder, Role, html};

/// Appends the body `range` of a string literal in `b.src()` with its
/// backslash escapes undone: `\"`, `\'`, `\\`, `\/`, the control escapes
/// (`\n`, `\t`, ...), `\xHH`, `\uXXXX` (surrogate pairs joined), `\u{...}`,
/// `\UXXXXXXXX` and octal `\ooo`. A backslash before a line break joins
/// the lines (and, when `trim` as in TOML, eats the next line's leading
/// whitespace). An escape not understood is kept as it is.
pub(super) fn decode_escapes(b: &mut DocBuilder, range: Range<usize>, trim: bool) {
    let src = b.src();
    let (mut i, end) = (range.start, range.end);
    while i < end {
        let Some(k) = memchr(b'\\', &src[i..end]) else {
            b.copy(i..end);
            return;
        };
        b.copy(i..i + k);
        i = decode_one(b, i + k, end, trim);
    }
}

/// Decodes the escape whose backslash is at `e`, not reading past `end`;
/// returns the offset after it.
fn decode_one(b: &mut DocBuilder, e: usize, end: usize, trim: bool) -> usize {
    let src = b.src();
    if e + 1 >= end {
        b.copy(e..e + 1);
        return e + 1;
    }
    let c = src[e + 1];
    let simple = match c {
        b'n' => b'\n',
        b't' => b'\t',
        b'r' => b'\r',
        b'b' => 0x08,
        b'f' => 0x0c,
        b'v' => 0x0b,
        b'a' => 0x07,
        b'e' => 0x1b,
        b'"' | b'\'' | b'\\' | b'/' | b'`' | b'$' | b'?' => c,
        _ => 0,
    };
    if simple != 0 {
        b.decoded(&[simple], e);
        return e + 2;
    }
    let hex = |from: usize, len: usize| -> Option<u32> {
        let digits = src.get(from..from + len).filter(|_| from + len <= end)?;
        digits.iter().try_fold(0u32, |v, &d| Some(v * 16 + (d as char).to_digit(16)?))
    };
    let (cp, next) = match c {
        b'\n' | b'\r' => {
            // A line continuation: the break is not part of the string.
            let mut j = e + 2;
            if c == b'\r' && src.get(j) == Some(&b'\n') && j < end {
                j += 1;
            }
            if trim {
                while j < end && matches!(src[j], b' ' | b'\t' | b'\n' | b'\r') {
                    j += 1;
                }
            }
            return j;
        }
        b'x' => match hex(e + 2, 2) {
            Some(v) => (v, e + 4),
            None => (u32::MAX, e + 2),
        },
        b'U' => match hex(e + 2, 8) {
            Some(v) => (v, e + 10),
            None => (u32::MAX, e + 2),
        },
        b'u' if src.get(e + 2) == Some(&b'{') => {
            let close = src[e + 3..end.min(e + 11)].iter().position(|&d| d == b'}');
            match close.and_then(|n| (n > 0).then_some(n)).and_then(|n| Some((hex(e + 3, n)?, n))) {
                Some((v, n)) => (v, e + 4 + n),
                None => (u32::MAX, e + 2),
            }
        }
        b'u' => match hex(e + 2, 4) {
            Some(hi @ 0xD800..=0xDBFF) => {
                // A surrogate pair is one character, written as two escapes.
                let lo = (src.get(e + 6..e + 8) == Some(b"\\u"))
                    .then(|| hex(e + 8, 4))
                    .flatten()
                    .filter(|lo| (0xDC00..=0xDFFF).contains(lo));
                match lo {
                    Some(lo) => (0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), e + 12),
                    None => (0xFFFD, e + 6),
                }
            }
            Some(v) => (v, e + 6),
            None => (u32::MAX, e + 2),
        },
        b'0'..=b'7' => {
            let n =
                src[e + 1..end.min(e + 4)].iter().take_while(|d| (b'0'..=b'7').contains(d)).count();
            let v = src[e + 1..e + 1 + n].iter().fold(0u32, |v, &d| v * 8 + u32::from(d - b'0'));
            (v.min(0xFF), e + 1 + n)
        }
        _ => (u32::MAX, e + 2),
    };
    if cp == u32::MAX {
        // Not an escape this reader knows (`\d` of a regular expression):
        // kept as written, so the URL shows what the file says.
        b.copy(e..next.min(end));
        return next.min(end);
    }
    let ch = char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut buf = [0; 4];
    b.decoded(ch.encode_utf8(&mut buf).as_bytes(), e);
    next
}

/// One token of JSON, as far as a reader of its text cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// `{` or `[`.
    Open(u8),
    /// `}` or `]`.
    Close(u8),
    /// `:`.
    Colon,
    /// `,`.
    Comma,
    /// A string: the range of its body, between the quotes.
    Str(Range<usize>),
    /// A `//` or `/* */` comment (JSONC), whole.
    Comment(Range<usize>),
    /// Anything else: a number, `true`, or bytes that are not JSON.
    Other,
}

/// A JSON tokenizer that never fails: bytes that are not JSON become
/// [`Tok::Other`], a string left open ends at its line's end (JSON
/// strings hold no raw line breaks, so one stray quote cannot swallow a
/// file).
pub(super) struct JsonLexer<'a> {
    src: &'a [u8],
    pos: usize,
}

impl<'a> JsonLexer<'a> {
    /// A lexer at the start of `src`.
    pub(super) fn new(src: &'a [u8]) -> Self {
        JsonLexer { src, pos: 0 }
    }
}

impl Iterator for JsonLexer<'_> {
    type Item = Tok;

    fn next(&mut self) -> Option<Tok> {
        let src = self.src;
        let mut i = self.pos;
        while i < src.len() && src[i].is_ascii_whitespace() {
            i += 1;
        }
        let c = *src.get(i)?;
        let (tok, next) = match c {
            b'{' | b'[' => (Tok::Open(c), i + 1),
            b'}' | b']' => (Tok::Close(c), i + 1),
            b':' => (Tok::Colon, i + 1),
            b',' => (Tok::Comma, i + 1),
            b'"' => {
                let (body_end, after) = string_end(src, i + 1, b'"', true, false);
                (Tok::Str(i + 1..body_end), after)
            }
            b'/' if src.get(i + 1) == Some(&b'/') => {
                let e = memchr(b'\n', &src[i..]).map_or(src.len(), |k| i + k);
                (Tok::Comment(i..e), e)
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                let e = memmem::find(&src[i + 2..], b"*/").map_or(src.len(), |k| i + 4 + k);
                (Tok::Comment(i..e), e)
            }
            _ => {
                let n = src[i..]
                    .iter()
                    .position(|b| b.is_ascii_whitespace() || b"{}[]:,\"/".contains(b))
                    .unwrap_or(src.len() - i);
                (Tok::Other, i + n.max(1))
            }
        };
        self.pos = next;
        Some(tok)
    }
}

/// Where the string literal whose body starts at `i` ends: the end of its
/// body and the offset after its closing quote `q`. A backslash guards
/// the next byte when `guard`; without `lines` the string ends at the
/// line's end if still open (a backslash before the break continues it).
fn string_end(src: &[u8], i: usize, q: u8, guard: bool, lines: bool) -> (usize, usize) {
    let mut j = i;
    loop {
        let hit =
            if lines { memchr2(q, b'\\', &src[j..]) } else { memchr3(q, b'\\', b'\n', &src[j..]) };
        let Some(k) = hit.map(|k| j + k) else { return (src.len(), src.len()) };
        match src[k] {
            b'\\' if guard => j = (k + 2).min(src.len()),
            b'\\' => j = k + 1,
            b'\n' => {
                let body = if k > i && src[k - 1] == b'\r' { k - 1 } else { k };
                return (body, k);
            }
            _ => return (k, k + 1),
        }
    }
}

/// Reads a JSON file (or JSON Lines, or JSONC): each string is a stretch
/// of prose with its escapes undone; comments are prose; the rest is
/// structure and numbers, which hold no text.
pub(super) fn read_json(src: &[u8]) -> Doc {
    let mut b = DocBuilder::new(src);
    json_into(&mut b);
    b.finish()
}

/// Appends the text of the JSON in `b.src()` to `b`.
fn json_into(b: &mut DocBuilder) {
    let src = b.src();
    for t in JsonLexer::new(src) {
        match t {
            Tok::Comment(r) => {
                b.brk(r.start);
                b.copy(r.clone());
                b.brk(r.end);
            }
            Tok::Str(r) if !r.is_empty() => {
                b.brk(r.start);
                if looks_html(&src[r.clone()]) {
                    nested(b, r.clone(), html::read);
                } else {
                    decode_escapes(b, r.clone(), false);
                }
                b.brk(r.end);
            }
            _ => {}
        }
    }
}

/// Appends the string body `body` read as another format: its escapes
/// undone, then the result read by `reader`, each byte traced through
/// both layers to the file.
fn nested(b: &mut DocBuilder, body: Range<usize>, reader: fn(&[u8]) -> Doc) {
    let mut inner = DocBuilder::new(b.src());
    decode_escapes(&mut inner, body, false);
    let inner = inner.finish();
    let doc = reader(&inner.text);
    b.append_over(&doc, &inner);
}

/// Whether a string literal's body (still escaped) is a piece of HTML:
/// it opens with a tag and closes one. rustdoc's `type.impl` scripts and
/// many JSON files carry rendered HTML, whose entities and attributes only
/// the HTML reader reads right. `<https://x>` alone is not HTML.
fn looks_html(body: &[u8]) -> bool {
    body.len() > 4
        && body[0] == b'<'
        && (body[1].is_ascii_alphabetic() || body[1] == b'!')
        && memmem::find(body, b"</").is_some()
}

/// What a backquote opens in a language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backquote {
    /// Nothing: it is code (shell command substitution, Kotlin names).
    Code,
    /// A JavaScript template literal: escapes undone, `${...}` kept, runs
    /// across lines.
    Template,
    /// A raw string that runs across lines (Go).
    Raw,
}

/// The lexical conventions of a programming language, as far as finding
/// its comments and string literals needs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Dialect {
    /// `#` starts a line comment (after a space or at a line's start).
    hash: bool,
    /// `//` starts a line comment and `/* */` is a block comment.
    slash: bool,
    /// `--` starts a line comment (Lua, Haskell, SQL).
    dash: bool,
    /// `"` strings may run across lines (Rust, shell, Ruby, PHP).
    dq_lines: bool,
    /// `'` opens only short character literals (`'a'`, `'\n'`): a longer
    /// run is a lifetime or an apostrophe, not a string (Rust, C, Go).
    char_quote: bool,
    /// `"""` and `'''` are strings that run across lines (Python, and the
    /// text blocks of Java, Kotlin, Swift, Scala).
    triple: bool,
    /// `r"..."`, `r#"..."#` and the like are raw strings (Python, Rust).
    raw_prefix: bool,
    /// What a backquote opens.
    backquote: Backquote,
    /// `/.../` can be a regular expression literal (JavaScript).
    regex: bool,
    /// A string passed to `JSON.parse(...)` is read as JSON in turn.
    json_parse: bool,
}

impl Dialect {
    const C_LIKE: Dialect = Dialect {
        hash: false,
        slash: true,
        dash: false,
        dq_lines: false,
        char_quote: true,
        triple: true,
        raw_prefix: false,
        backquote: Backquote::Code,
        regex: false,
        json_parse: false,
    };
    const RUST: Dialect =
        Dialect { dq_lines: true, triple: false, raw_prefix: true, ..Dialect::C_LIKE };
    const GO: Dialect = Dialect { triple: false, backquote: Backquote::Raw, ..Dialect::C_LIKE };
    const PHP: Dialect =
        Dialect { hash: true, dq_lines: true, char_quote: false, triple: false, ..Dialect::C_LIKE };
    const SCRIPT: Dialect = Dialect {
        char_quote: false,
        triple: false,
        backquote: Backquote::Template,
        regex: true,
        json_parse: true,
        ..Dialect::C_LIKE
    };
    /// Python, and the notebooks' code cells.
    pub(super) const PYTHON: Dialect = Dialect {
        hash: true,
        slash: false,
        char_quote: false,
        raw_prefix: true,
        ..Dialect::C_LIKE
    };
    /// Shell, Perl, Ruby, R, Tcl and the other `#`-comment languages.
    const SHELL: Dialect = Dialect {
        hash: true,
        slash: false,
        dq_lines: true,
        char_quote: false,
        triple: false,
        ..Dialect::C_LIKE
    };
    const DASH: Dialect =
        Dialect { slash: false, dash: true, char_quote: false, ..Dialect::C_LIKE };

    /// The dialect `src` is most likely written in, from its first lines:
    /// a `#!` line, the comment markers that open lines, and a few
    /// keywords that tell the languages apart.
    ///
    /// `read` is not told the file's extension, and the same extension
    /// list maps to [`super::Format::Source`] for a dozen languages; the
    /// content tells them apart well enough where it matters: whether `#`
    /// is a comment (Python, shell) or code (`#[derive]` in Rust,
    /// `#include` in C), whether `//` is one (C-like) or floor division
    /// (Python), whether `'` opens a string or a lifetime. It also works
    /// for standard input and `--format-of` overrides. A line comment the
    /// sniff gets wrong costs little: comments and strings are both prose.
    pub(super) fn sniff(src: &[u8]) -> Dialect {
        let head = &src[..src.len().min(64 * 1024)];
        let trimmed = head.trim_ascii_start();
        if trimmed.starts_with(b"<?php") {
            return Dialect::PHP;
        }
        if let Some(line) = head.strip_prefix(b"#!").filter(|_| is_shebang(head)) {
            let line = &line[..memchr(b'\n', line).unwrap_or(line.len())];
            let has = |w: &[u8]| memmem::find(line, w).is_some();
            return if has(b"python") {
                Dialect::PYTHON
            } else if has(b"node") || has(b"deno") || has(b"bun") {
                Dialect::SCRIPT
            } else {
                Dialect::SHELL
            };
        }
        let (mut slash, mut hash, mut dash, mut python, mut rust, mut go) = (0, 0, 0, 0, 0, 0);
        for line in head.split(|&b| b == b'\n') {
            let t = line.trim_ascii();
            let starts = |w: &[u8]| t.starts_with(w);
            if starts(b"//") || starts(b"/*") {
                slash += 1;
            } else if starts(b"#[") || starts(b"#![") {
                slash += 1;
                rust += 1;
            } else if [
                &b"#include"[..],
                b"#define",
                b"#if",
                b"#endif",
                b"#pragma",
                b"#import",
                b"#undef",
                b"#else",
                b"#elif",
            ]
            .iter()
            .any(|w| starts(w))
            {
                slash += 1;
            } else if starts(b"#") {
                hash += 1;
            } else if starts(b"--") {
                dash += 1;
            }
            if starts(b"def ")
                || starts(b"elif ")
                || (starts(b"from ") && memmem::find(t, b" import ").is_some())
                || (starts(b"import ") && !t.ends_with(b";") && !t.contains(&b'"'))
                || (starts(b"class ") && t.ends_with(b":"))
            {
                python += 1;
            }
            if starts(b"fn ")
                || starts(b"pub ")
                || starts(b"pub(")
                || starts(b"impl ")
                || starts(b"impl<")
                || (starts(b"use ") && memmem::find(t, b"::").is_some())
            {
                rust += 1;
            }
            if (starts(b"package ") && !t.ends_with(b";")) || starts(b"func ") {
                go += 1;
            }
        }
        if hash > slash && hash >= dash || slash == 0 && dash == 0 && python > 0 {
            return if python > 0 { Dialect::PYTHON } else { Dialect::SHELL };
        }
        if dash > slash {
            return Dialect::DASH;
        }
        if go > 0 && go >= rust {
            Dialect::GO
        } else if rust > 0 {
            Dialect::RUST
        } else {
            Dialect::C_LIKE
        }
    }
}

/// Whether `src` opens with a `#!` interpreter line (not Rust's `#![...]`
/// inner attribute).
fn is_shebang(src: &[u8]) -> bool {
    src.starts_with(b"#!") && src.get(2) != Some(&b'[')
}

/// Reads JavaScript or TypeScript.
pub(super) fn read_script(src: &[u8]) -> Doc {
    read_code(src, Dialect::SCRIPT)
}

/// Reads the source code of a language told by [`Dialect::sniff`].
pub(super) fn read_source(src: &[u8]) -> Doc {
    read_code(src, Dialect::sniff(src))
}

/// Reads source code in dialect `d`: string literals (escapes undone) and
/// comments are prose, the rest is code.
pub(super) fn read_code(src: &[u8], d: Dialect) -> Doc {
    let mut r = CodeReader {
        b: DocBuilder::new(src),
        d,
        code_from: 0,
        quote_fail: 0,
        regex_fail: 0,
        open_end: None,
    };
    let mut i = 0;
    while i < src.len() {
        let next = match src[i] {
            b'"' | b'\'' | b'`' => r.string(i),
            b'/' => r.slash(i),
            b'#' => r.hash(i),
            b'-' if d.dash && src.get(i + 1) == Some(&b'-') => Some(r.line_comment(i)),
            _ => None,
        };
        i = next.unwrap_or(i + 1);
    }
    r.flush(src.len());
    r.b.finish()
}

/// The state of one pass of [`read_code`].
struct CodeReader<'a> {
    b: DocBuilder<'a>,
    d: Dialect,
    /// Where the code not yet appended starts.
    code_from: usize,
    /// A `'` before this offset opens no string: one at or after the last
    /// failed opener's position found no closing quote up to here. Every
    /// `'` in between was escaped in that look, so it would fail the same
    /// way; remembering it keeps a line of `\'\'\'...` linear.
    quote_fail: usize,
    /// The same for `/` as a regular expression's start.
    regex_fail: usize,
    /// The end of the string literal appended last, while its stretch is
    /// still open: a literal that follows with only white space or a `+`
    /// between (`'<http://x.example/a/'` then `'b.html>'` on the next line)
    /// is the same string to the program, and goes on in the same stretch.
    open_end: Option<usize>,
}

impl CodeReader<'_> {
    /// Appends the code from `code_from` to `to`, marked as code and kept
    /// apart from the text around it; a run of white space alone is left
    /// unmarked so comments on consecutive lines stay one stretch.
    fn flush(&mut self, to: usize) {
        if let Some(end) = self.open_end.take() {
            self.b.brk(end);
        }
        let from = self.code_from;
        if from >= to {
            return;
        }
        let run = &self.b.src()[from..to];
        if run.iter().all(u8::is_ascii_whitespace) {
            self.b.copy(from..to);
        } else {
            self.b.brk(from);
            let s = self.b.len();
            self.b.copy(from..to);
            self.b.mark(s, Role::Code);
            self.b.brk(to);
        }
        self.code_from = to;
    }

    /// Appends the comment `from..to` as prose.
    fn comment(&mut self, from: usize, to: usize) -> usize {
        self.flush(from);
        self.b.copy(from..to);
        self.code_from = to;
        to
    }

    fn line_comment(&mut self, i: usize) -> usize {
        let src = self.b.src();
        let e = memchr(b'\n', &src[i..]).map_or(src.len(), |k| i + k);
        self.comment(i, e)
    }

    fn slash(&mut self, i: usize) -> Option<usize> {
        let src = self.b.src();
        match src.get(i + 1) {
            // `http://` in code (JSX text, a URL pasted outside quotes)
            // is a URL, not `http:` and a comment.
            Some(b'/')
                if self.d.slash
                    && !(i >= 2 && src[i - 1] == b':' && src[i - 2].is_ascii_alphabetic()) =>
            {
                return Some(self.line_comment(i));
            }
            Some(b'*') if self.d.slash => {
                let e = memmem::find(&src[i + 2..], b"*/").map_or(src.len(), |k| i + 4 + k);
                return Some(self.comment(i, e));
            }
            _ => {}
        }
        if !self.d.regex || i < self.regex_fail || !self.regex_allowed(i) {
            return None;
        }
        // A regular expression literal is code; skipping it whole keeps
        // the quotes and slashes inside it from opening strings.
        let mut j = i + 1;
        let mut class = false;
        while j < src.len() {
            match src[j] {
                b'\\' => j += 1,
                b'\n' => break,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => return Some(j + 1),
                _ => {}
            }
            j += 1;
        }
        self.regex_fail = j;
        None
    }

    /// Whether a `/` at `i` may start a regular expression: after an
    /// operator, an opening bracket or a keyword, not after a value.
    fn regex_allowed(&self, i: usize) -> bool {
        let src = self.b.src();
        let floor = self.code_from.max(i.saturating_sub(256));
        let Some(p) =
            src[floor..i].iter().rposition(|b| !b.is_ascii_whitespace()).map(|p| floor + p)
        else {
            return true;
        };
        let c = src[p];
        if b"(,=:[!&|?{};+-*%<>~^".contains(&c) {
            return true;
        }
        if !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$') {
            return false;
        }
        let w0 = src[floor..=p]
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$'))
            .map_or(floor, |k| floor + k + 1);
        matches!(
            &src[w0..=p],
            b"return"
                | b"typeof"
                | b"case"
                | b"do"
                | b"else"
                | b"in"
                | b"of"
                | b"void"
                | b"delete"
                | b"throw"
                | b"new"
                | b"yield"
                | b"await"
        )
    }

    fn hash(&mut self, i: usize) -> Option<usize> {
        let src = self.b.src();
        if i == 0 && is_shebang(src) {
            return Some(self.line_comment(i));
        }
        if !self.d.hash {
            return None;
        }
        // `$#`, `${#x}`, `a#b` and `https://x/#frag` are not comments.
        let prev = if i == 0 { b'\n' } else { src[i - 1] };
        if prev.is_ascii_alphanumeric() || b"$_{\\/:.&'\"".contains(&prev) {
            return None;
        }
        Some(self.line_comment(i))
    }

    /// The prefix letters before a quote at `i` (`r`, `b`, `f`, `br`, ...)
    /// and the `#`s of a Rust raw string: whether the string is raw, and
    /// how many `#`s close it.
    fn prefix(&self, i: usize) -> (bool, usize) {
        if !self.d.raw_prefix {
            return (false, 0);
        }
        let src = self.b.src();
        let hashes = src[..i].iter().rev().take_while(|&&b| b == b'#').count();
        let p = i - hashes;
        let letters = src[..p].iter().rev().take_while(|b| b"rRbBfFuUc".contains(b)).count();
        if letters == 0 || letters > 2 {
            return (false, 0);
        }
        let before = p - letters;
        if before > 0 && (src[before - 1].is_ascii_alphanumeric() || src[before - 1] == b'_') {
            return (false, 0);
        }
        let raw = src[before..p].iter().any(|b| matches!(b, b'r' | b'R'));
        (raw, if raw { hashes } else { 0 })
    }

    fn string(&mut self, i: usize) -> Option<usize> {
        let src = self.b.src();
        let q = src[i];
        let d = self.d;
        if q == b'`' {
            return match d.backquote {
                Backquote::Code => None,
                Backquote::Raw => {
                    let e = memchr(b'`', &src[i + 1..]).map_or(src.len(), |k| i + 1 + k);
                    Some(self.emit(i, i + 1..e, (e + 1).min(src.len()), true))
                }
                Backquote::Template => Some(self.template(i)),
            };
        }
        let (raw, hashes) = if q == b'"' { self.prefix(i) } else { (false, 0) };
        if hashes > 0 {
            let mut close = vec![b'"'];
            close.resize(hashes + 1, b'#');
            let (body, after) = memmem::find(&src[i + 1..], &close)
                .map_or((src.len(), src.len()), |k| (i + 1 + k, i + 1 + k + close.len()));
            return Some(self.emit(i, i + 1..body, after, true));
        }
        if d.triple && src.get(i + 1..i + 3) == Some(&[q, q][..]) {
            let mut j = i + 3;
            let (body, after) = loop {
                let Some(k) = memchr2(q, b'\\', &src[j..]).map(|k| j + k) else {
                    break (src.len(), src.len());
                };
                if src[k] == b'\\' {
                    j = (k + 2).min(src.len());
                } else if src[k..].starts_with(&[q, q, q]) {
                    break (k, k + 3);
                } else {
                    j = k + 1;
                }
            };
            return Some(self.emit(i, i + 3..body, after, raw));
        }
        if q == b'\'' {
            if i < self.quote_fail {
                return None;
            }
            let (body, after) = string_end(src, i + 1, q, true, false);
            let closed = after > body;
            if !closed || (d.char_quote && !char_literal(&src[i + 1..body])) {
                // An apostrophe, a lifetime (`'a`) or a Lisp quote.
                if !closed {
                    self.quote_fail = after;
                }
                return None;
            }
            return Some(self.emit(i, i + 1..body, after, false));
        }
        let (body, after) = string_end(src, i + 1, q, true, d.dq_lines);
        Some(self.emit(i, i + 1..body, after, raw))
    }

    /// Appends the string literal opened at `open` with body `body`,
    /// ending before `after`, as a stretch of prose.
    fn emit(&mut self, open: usize, body: Range<usize>, after: usize, raw: bool) -> usize {
        let json = self.d.json_parse && !raw && {
            let code = &self.b.src()[self.code_from..open];
            code.trim_ascii_end().ends_with(b"JSON.parse(")
        };
        let src = self.b.src();
        let between = &src[self.code_from.min(open)..open];
        // (Not when the next literal opens a URL of its own: `"it's" +
        // 'http://x'` is two texts to a reader.)
        let joined = self.open_end.is_some()
            && super::scheme_len(&src[body.clone()]).is_none()
            && between.iter().filter(|&&b| b == b'+').count() <= 1
            && between.iter().all(|&b| b == b'+' || b.is_ascii_whitespace());
        if joined {
            self.open_end = None;
        } else {
            self.flush(open);
            self.b.brk(open);
        }
        if json {
            // JSON in a string (rustdoc and mdBook search indexes).
            nested(&mut self.b, body.clone(), read_json);
        } else if raw {
            self.b.copy(body.clone());
        } else if looks_html(&self.b.src()[body.clone()]) {
            nested(&mut self.b, body.clone(), html::read);
        } else {
            decode_escapes(&mut self.b, body.clone(), false);
        }
        self.open_end = Some(body.end.min(after));
        self.code_from = after;
        after
    }

    /// Appends the template literal opened at `i`: its text with escapes
    /// undone, its `${...}` substitutions kept as written (so a URL with
    /// one is reported as a template).
    fn template(&mut self, i: usize) -> usize {
        let src = self.b.src();
        self.flush(i);
        self.b.brk(i);
        let (mut seg, mut j) = (i + 1, i + 1);
        let after = loop {
            let Some(k) = memchr3(b'`', b'\\', b'$', &src[j..]).map(|k| j + k) else {
                decode_escapes(&mut self.b, seg..src.len(), false);
                break src.len();
            };
            match src[k] {
                b'\\' => j = (k + 2).min(src.len()),
                b'$' if src.get(k + 1) == Some(&b'{') => {
                    decode_escapes(&mut self.b, seg..k, false);
                    let mut depth = 0usize;
                    let mut e = k + 2;
                    while let Some(m) = memchr2(b'{', b'}', &src[e..]).map(|m| e + m) {
                        e = m + 1;
                        if src[m] == b'{' {
                            depth += 1;
                        } else if depth == 0 {
                            break;
                        } else {
                            depth -= 1;
                        }
                    }
                    if e == k + 2 || src[e - 1] != b'}' {
                        e = src.len();
                    }
                    self.b.copy(k..e);
                    seg = e;
                    j = e;
                }
                b'$' => j = k + 1,
                _ => {
                    decode_escapes(&mut self.b, seg..k, false);
                    break k + 1;
                }
            }
        };
        self.b.brk(after.saturating_sub(1));
        self.code_from = after;
        after
    }
}

/// Whether `body` is what a character literal holds: one character, or
/// one escape (`\n`, `\'`, `\u{1F600}`). A lifetime pair such as the
/// `'a>(x: &'` of `fn f<'a>(x: &'a str)` is not.
fn char_literal(body: &[u8]) -> bool {
    match body {
        [b'\\', rest @ ..] => !rest.is_empty() && rest.len() <= 9,
        _ => std::str::from_utf8(body).is_ok_and(|s| s.chars().count() == 1),
    }
}

/// Reads TOML, YAML or INI: all of it is prose (keys, values and
/// comments alike), with escapes undone inside double-quoted strings.
/// A quote opens a string only where a value starts (after `=`, `:`, `-`,
/// `[`, `{`, `,` or at a line's start): in YAML's `say "hi"` or INI's
/// `it's` it is a character of a plain value. `#` (after a space) and
/// `;` (opening a line) start comments, whose quotes open nothing.
pub(super) fn read_config(src: &[u8]) -> Doc {
    let mut b = DocBuilder::new(src);
    let (mut from, mut i) = (0, 0);
    while i < src.len() {
        let c = src[i];
        let lead = || {
            let line = memchr::memrchr(b'\n', &src[i.saturating_sub(256)..i])
                .map_or(i.saturating_sub(256), |k| i.saturating_sub(256) + k + 1);
            src[line..i].iter().rposition(|b| !matches!(b, b' ' | b'\t')).map(|p| src[line + p])
        };
        match c {
            b'#' if i == 0 || matches!(src[i - 1], b' ' | b'\t' | b'\n' | b'\r') => {
                i = memchr(b'\n', &src[i..]).map_or(src.len(), |k| i + k);
            }
            b';' if lead().is_none() => {
                i = memchr(b'\n', &src[i..]).map_or(src.len(), |k| i + k);
            }
            b'"' | b'\'' if lead().is_none_or(|p| b"=:-[{,?".contains(&p)) => {
                let triple = src.get(i + 1..i + 3) == Some(&[c, c][..]);
                let open = if triple { i + 3 } else { i + 1 };
                let (body, after) = if triple {
                    memmem::find(&src[open..], &[c, c, c])
                        .map_or((src.len(), src.len()), |k| (open + k, open + k + 3))
                } else if c == b'\'' {
                    quoted_single(src, open)
                } else {
                    string_end(src, open, c, true, false)
                };
                if c == b'"' {
                    b.copy(from..open);
                    decode_escapes(&mut b, open..body, triple);
                    from = body;
                } else if !triple {
                    // YAML writes a quote inside single quotes twice.
                    b.copy(from..open);
                    let mut j = open;
                    while let Some(k) = memmem::find(&src[j..body], b"''") {
                        b.copy(j..j + k + 1);
                        j += k + 2;
                    }
                    b.copy(j..body);
                    from = body;
                }
                i = after.max(i + 1);
            }
            _ => i += 1,
        }
    }
    b.copy(from..src.len());
    b.finish()
}

/// The end of a single-quoted YAML or TOML string whose body starts at
/// `i`: `''` inside is a quote, the line's end closes it if still open.
fn quoted_single(src: &[u8], mut i: usize) -> (usize, usize) {
    loop {
        let Some(k) = memchr2(b'\'', b'\n', &src[i..]).map(|k| i + k) else {
            return (src.len(), src.len());
        };
        if src[k] == b'\n' {
            return (k, k);
        }
        if src.get(k + 1) == Some(&b'\'') {
            i = k + 2;
        } else {
            return (k, k + 1);
        }
    }
}
