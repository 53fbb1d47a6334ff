//! Man pages, as troff source (`ls.1`) and as `man` renders them to text.
//!
//! **Source.** troff hides text behind escapes (`\-` for a hyphen-minus,
//! `\:` and `\%` for break points, `\fB` for fonts) and request lines.
//! The reader undoes the escapes, takes `.UR url` (man) and `.Lk url`
//! (mdoc) as links whole, `.MT addr` and `.Mt addr` as `mailto:` links,
//! and marks `.nf`/`.fi`, `.EX`/`.EE` and mdoc's literal displays as code.
//! Comments are dropped; the arguments of macros (capitalised names:
//! `.B`, `.SH`, `.TH`, mdoc's `.Nm`) are prose, as a reader sees them;
//! roff requests (lower-case names: `.sp`, `.in`, `.ds`) print nothing a
//! reader reads and are dropped, and so are macro definitions and `.ig`.
//!
//! **Rendered.** groff puts a `.UR` link in `⟨...⟩`, breaks a long one
//! after a `/` or a `.` onto the next line (indented), and hyphenates words,
//! URLs included, with U+2010 at a line end. A reader rejoins all of that
//! without a second thought: the reader maps `⟨` and `⟩` to `<` and `>`
//! (an angle wrapper for the scanner), and drops a line break with its
//! indentation inside the brackets, and a line-end U+2010 (or soft hyphen
//! U+00AD) with its break after a URL's head. An ASCII `-` at a line end
//! stays: groff adds no hyphen of its own but U+2010, so that one was
//! written. Overstrike (`X\bX` bold, `_\bX` underline, as `man` writes
//! when formatting is kept) and SGR colour sequences are dropped first.

use std::borrow::Cow;

use super::{Doc, DocBuilder, Role, scheme_len};
use crate::scan::Kind;

/// `⟨`, U+27E8, as groff writes it around a URL.
const LANGLE: &[u8] = "\u{27e8}".as_bytes();
/// `⟩`, U+27E9.
const RANGLE: &[u8] = "\u{27e9}".as_bytes();
/// U+2010 HYPHEN: groff's hyphenation mark at a line end.
const HYPHEN: &[u8] = "\u{2010}".as_bytes();
/// U+00AD SOFT HYPHEN.
const SHY: &[u8] = "\u{ad}".as_bytes();
/// How far a `⟨` looks for its `⟩`: groff's link text is one URL, broken
/// over a few lines at most.
const BRACKET_REACH: usize = 4096;

/// Whether `head` is the start of a man page rendered to text: its first
/// non-blank line is a title line such as `LS(1)   User Commands   LS(1)`.
pub(super) fn is_rendered_man(head: &[u8]) -> bool {
    let Some(line) = head.split(|&b| b == b'\n').find(|l| !l.trim_ascii().is_empty()) else {
        return false;
    };
    let line = line.trim_ascii();
    let title = |w: &[u8]| {
        w.iter().position(|&b| b == b'(').is_some_and(|p| {
            p > 0 && w.ends_with(b")") && w.get(p + 1).is_some_and(|b| b.is_ascii_digit())
        })
    };
    let words: Vec<&[u8]> =
        line.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).collect();
    let framed = words.len() >= 2
        && title(words[0])
        && title(words[words.len() - 1])
        && words[0] == words[words.len() - 1];
    // A title too long for the width runs its three parts together
    // (`GCLOUD_..._REQUEGeneralMGCLOUD_..._DISMISS(1)`): then the line ends
    // in a title, and the page's first section, `NAME`, follows at once.
    let sections = head.split(|&b| b == b'\n').filter(|l| !l.trim_ascii().is_empty());
    let named = sections.take(3).skip(1).any(|l| l.trim_ascii_end() == b"NAME");
    framed || (words.last().is_some_and(|w| title(w)) && named)
}

/// The text of a rendered page with overstrike and SGR sequences gone, and
/// where each of its stretches is in the file.
struct Clean<'a> {
    bytes: Cow<'a, [u8]>,
    /// `(offset in bytes, offset in the file)`: a run of copied bytes
    /// starts at each; sorted by both.
    runs: Vec<(usize, usize)>,
}

impl<'a> Clean<'a> {
    fn new(src: &'a [u8]) -> Self {
        if memchr::memchr2(0x08, 0x1b, src).is_none() {
            return Clean { bytes: Cow::Borrowed(src), runs: vec![(0, 0)] };
        }
        let mut bytes = Vec::with_capacity(src.len());
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let push = |bytes: &mut Vec<u8>, runs: &mut Vec<(usize, usize)>, r: &[u8], at| {
            if r.is_empty() {
                return;
            }
            let contiguous = runs.last().is_some_and(|&(c, s)| s + (bytes.len() - c) == at);
            if !contiguous {
                runs.push((bytes.len(), at));
            }
            bytes.extend_from_slice(r);
        };
        let mut from = 0;
        for i in memchr::memchr2_iter(0x08, 0x1b, src) {
            if i < from {
                continue;
            }
            push(&mut bytes, &mut runs, &src[from..i], from);
            from = i + 1;
            if src[i] == 0x08 {
                // The cell before the backspace is overprinted by the one
                // after: drop the earlier character (a whole UTF-8 one).
                let keep = bytes.len().saturating_sub(1);
                let mut cut = keep;
                while cut > 0 && bytes.len() - cut < 4 && (bytes[cut] & 0xc0) == 0x80 {
                    cut -= 1;
                }
                bytes.truncate(if bytes.is_empty() { 0 } else { cut });
                while runs.last().is_some_and(|&(c, _)| c >= bytes.len()) {
                    runs.pop();
                }
            } else if src.get(i + 1) == Some(&b'[') {
                // An SGR sequence: ESC [ parameters final-byte.
                let n = src[i + 2..]
                    .iter()
                    .take(32)
                    .position(|&b| !(b.is_ascii_digit() || b == b';'))
                    .map_or(0, |p| p + 3);
                if n > 0 && src[i + n - 1].is_ascii_alphabetic() {
                    from = i + n;
                }
            }
        }
        push(&mut bytes, &mut runs, &src[from..], from);
        if runs.is_empty() {
            runs.push((0, 0));
        }
        Clean { bytes: Cow::Owned(bytes), runs }
    }

    /// The file offset of clean byte `o`.
    fn src_of(&self, o: usize) -> usize {
        let i = self.runs.partition_point(|&(c, _)| c <= o).saturating_sub(1);
        let (c, s) = self.runs[i];
        s + (o - c)
    }

    /// Appends clean bytes `range` to `b`, run by run.
    fn copy(&self, b: &mut DocBuilder, mut range: std::ops::Range<usize>) {
        while range.start < range.end {
            let i = self.runs.partition_point(|&(c, _)| c <= range.start).saturating_sub(1);
            let run_end = self.runs.get(i + 1).map_or(usize::MAX, |&(c, _)| c);
            let end = range.end.min(run_end);
            let s = self.src_of(range.start);
            b.copy(s..s + (end - range.start));
            range.start = end;
        }
    }
}

/// Whether a hyphen or line break at `at` ends a line: the offset past the
/// line break and the next line's indentation, when the next line goes on
/// with text.
fn continues(t: &[u8], at: usize) -> Option<usize> {
    let mut j = at;
    if t.get(j) == Some(&b'\r') {
        j += 1;
    }
    if t.get(j) != Some(&b'\n') {
        return None;
    }
    j += 1;
    while t.get(j).is_some_and(|&b| b == b' ' || b == b'\t') {
        j += 1;
    }
    t.get(j).is_some_and(|b| !b.is_ascii_whitespace()).then_some(j)
}

/// The line-end hyphen (U+2010 or U+00AD) that ends `t[..at]`, if any: its
/// length.
fn hyphen_before(t: &[u8], at: usize) -> usize {
    if t[..at].ends_with(HYPHEN) {
        HYPHEN.len()
    } else if t[..at].ends_with(SHY) {
        SHY.len()
    } else {
        0
    }
}

/// Whether `word` (one whitespace-free word of the page) opens with a URL:
/// a scheme, or a `//` after one, behind any opening punctuation.
fn is_url_head(word: &[u8]) -> bool {
    let mut w = word;
    loop {
        if let Some(rest) = w.strip_prefix(LANGLE) {
            w = rest;
        } else if let Some((&c, rest)) = w.split_first()
            && matches!(c, b'<' | b'(' | b'[' | b'{' | b'"' | b'\'')
        {
            w = rest;
        } else {
            break;
        }
    }
    scheme_len(w).is_some() || memchr::memmem::find(word, b"://").is_some()
}

/// Reads a man page rendered to text.
pub(super) fn read_rendered(src: &[u8]) -> Doc {
    let clean = Clean::new(src);
    let t: &[u8] = &clean.bytes;
    let mut b = DocBuilder::new(src);
    let utf8 =
        memchr::memmem::find(t, HYPHEN).is_some() || memchr::memmem::find(t, LANGLE).is_some();
    // `from`: clean bytes before it are in `b`. `tail`: where a URL that
    // was rejoined over a line end goes on, so a third line of it is
    // still known for a URL's.
    let (mut from, mut tail) = (0, usize::MAX);
    let mut i = 0;
    while let Some(k) = memchr::memchr2(b'\n', 0xe2, &t[i..]).map(|k| i + k) {
        i = k + 1;
        if t[k] == 0xe2 {
            if !t[k..].starts_with(LANGLE) {
                continue;
            }
            let Some(close) = bracket_close(t, k + LANGLE.len()) else { continue };
            clean.copy(&mut b, from..k);
            b.decoded(b"<", clean.src_of(k));
            bracket_body(&clean, &mut b, k + LANGLE.len()..close);
            b.decoded(b">", clean.src_of(close));
            from = close + RANGLE.len();
            i = from;
            continue;
        }
        // A line end: a hyphen before it inside a URL is groff's, and the
        // URL goes on after the next line's indentation.
        let end = if k > 0 && t[k - 1] == b'\r' { k - 1 } else { k };
        let mut h = hyphen_before(t, end);
        // In a page rendered for UTF-8, groff's hyphen is U+2010: an ASCII
        // one at a line end was written (`cgi-bin`), and stays.
        let kept = h == 0 && utf8 && end > 0 && t[end - 1] == b'-';
        // A shell line continuation right after URL text (`.../v1/project\`
        // then `s/my-project/...`): the shell joins the two lines, so the
        // URL goes on; not before an option (`-`) on the next line.
        let shell = h == 0 && end > 1 && t[end - 1] == b'\\' && !t[end - 2].is_ascii_whitespace();
        if shell {
            h = 1;
        }
        if h == 0 && !kept {
            continue;
        }
        let Some(next) = continues(t, end) else { continue };
        if shell && t[next] == b'-' {
            continue;
        }
        let line = &t[from.max(memchr::memrchr(b'\n', &t[..end]).map_or(0, |p| p + 1))..end - h];
        let word_at = memchr::memrchr3(b' ', b'\t', b'\n', line).map_or(0, |p| p + 1);
        let word = &line[word_at..];
        let word_start = end - h - word.len();
        if word_start == tail || is_url_head(word) {
            if kept {
                h = 0;
            }
            clean.copy(&mut b, from..end - h);
            from = next;
            tail = next;
            i = next;
        }
    }
    clean.copy(&mut b, from..t.len());
    b.finish()
}

/// The offset of the `⟩` closing a `⟨` whose text starts at `at`: on the
/// same or a following line, before a blank line or another `⟨`.
fn bracket_close(t: &[u8], at: usize) -> Option<usize> {
    let end = t.len().min(at + BRACKET_REACH);
    let mut j = at;
    while let Some(k) = memchr::memchr2(b'\n', 0xe2, &t[j..end]).map(|k| j + k) {
        j = k + 1;
        if t[k] == b'\n' {
            if t[j..end].iter().take_while(|&&b| b != b'\n').all(u8::is_ascii_whitespace) && j < end
            {
                return None;
            }
        } else if t[k..].starts_with(RANGLE) {
            return Some(k);
        } else if t[k..].starts_with(LANGLE) {
            return None;
        }
    }
    None
}

/// Appends the text inside `⟨...⟩`: when it is one word broken over lines
/// (a URL), the breaks, their indentation and a line-end hyphen go; else
/// it is copied as it is.
fn bracket_body(clean: &Clean, b: &mut DocBuilder, body: std::ops::Range<usize>) {
    let t: &[u8] = &clean.bytes;
    let mut pieces = Vec::new();
    let mut from = body.start;
    let mut one_word = true;
    for k in memchr::memchr_iter(b'\n', &t[body.clone()]).map(|k| body.start + k) {
        let end = if k > from && t[k - 1] == b'\r' { k - 1 } else { k };
        let Some(next) = continues(t, end).filter(|&n| n <= body.end) else {
            one_word = false;
            break;
        };
        pieces.push(from..end - hyphen_before(t, end));
        from = next;
    }
    pieces.push(from..body.end);
    one_word = one_word && pieces.iter().all(|p| !t[p.clone()].iter().any(u8::is_ascii_whitespace));
    if !one_word {
        clean.copy(b, body);
        return;
    }
    for p in pieces {
        clean.copy(b, p);
    }
}

/// What a troff line is inside of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    /// Running text.
    Text,
    /// A macro definition or `.ig`: skipped up to its end line.
    Skip,
}

/// Reads troff source (man(7), mdoc(7), plain roff).
pub(super) fn read_troff(src: &[u8]) -> Doc {
    let mut r =
        Troff { b: DocBuilder::new(src), src, code: None, block: Block::Text, end: Vec::new() };
    let mut pos = 0;
    while pos < src.len() {
        let end = logical_line_end(src, pos);
        r.line(pos, end);
        if end < src.len() {
            r.b.copy(end..end + 1);
        }
        pos = end + 1;
    }
    if let Some(s) = r.code.take() {
        r.b.mark(s, Role::Code);
    }
    r.b.finish()
}

/// The end of the line that starts at `pos`: its newline (or the end of
/// the input), past escaped newlines (`\` at a line end continues it).
fn logical_line_end(src: &[u8], mut pos: usize) -> usize {
    loop {
        let Some(k) = memchr::memchr(b'\n', &src[pos..]).map(|k| pos + k) else {
            return src.len();
        };
        let slashes = src[..k].iter().rev().take_while(|&&b| b == b'\\').count();
        if slashes % 2 == 0 {
            return k;
        }
        pos = k + 1;
    }
}

struct Troff<'a> {
    b: DocBuilder<'a>,
    src: &'a [u8],
    /// Where the open code block (`.nf`, `.EX`, `.Bd -literal`) starts in
    /// the text.
    code: Option<usize>,
    block: Block,
    /// The name that ends a skipped block (`.` for `..`, unless named).
    end: Vec<u8>,
}

impl<'a> Troff<'a> {
    fn line(&mut self, pos: usize, end: usize) {
        let src = self.src;
        let line = &src[pos..end];
        if self.block == Block::Skip {
            // The end line is `..` (or `.NAME` when named), spaces allowed
            // after the dot (`.  .`).
            if let Some(rest) = line.strip_prefix(b".") {
                let rest = rest.trim_ascii_start();
                if rest.starts_with(&self.end)
                    && rest[self.end.len()..]
                        .first()
                        .is_none_or(|b| b.is_ascii_whitespace() || *b == b'\\')
                {
                    self.block = Block::Text;
                }
            }
            return;
        }
        if !matches!(line.first(), Some(b'.' | b'\'')) {
            self.decode(pos..end, false);
            return;
        }
        // A control line: its name, then its arguments.
        let mut n = pos + 1;
        while n < end && matches!(src[n], b' ' | b'\t') {
            n += 1;
        }
        // `.\"` (a comment) and `.\}` have no name.
        let name_end = if src.get(n) == Some(&b'\\') {
            n
        } else {
            src[n..end].iter().position(|&b| b == b' ' || b == b'\t').map_or(end, |p| n + p)
        };
        let name = &src[n..name_end];
        let mut a = name_end;
        while a < end && matches!(src[a], b' ' | b'\t') {
            a += 1;
        }
        let args = a..end;
        match name {
            b"" => {}
            b"de" | b"de1" | b"dei" | b"am" | b"am1" | b"ami" | b"ig" => {
                // Skipped to `..`, or to `.END` when named (`.ig END`,
                // `.de xx END`).
                let mut words =
                    src[args].split(|&b| b == b' ' || b == b'\t').filter(|w| !w.is_empty());
                let term = if name == b"ig" { words.next() } else { words.nth(1) };
                self.end = match term {
                    Some(t) if !t.starts_with(b"\\") => t.to_vec(),
                    _ => b".".to_vec(),
                };
                self.block = Block::Skip;
            }
            // pod2man's verbatim blocks are `.Vb`/`.Ve`.
            b"nf" | b"EX" | b"Vb" => self.open_code(pos),
            b"Bd" if args_have(&src[args.clone()], &[b"-literal", b"-unfilled"]) => {
                self.open_code(pos)
            }
            b"fi" | b"EE" | b"Ed" | b"Ve" => self.close_code(pos),
            b"Dl" if self.code.is_none() => {
                self.b.brk(pos);
                let s = self.b.len();
                self.decode(args, true);
                self.b.mark(s, Role::Code);
                self.b.brk(end);
            }
            b"UR" | b"Lk" | b"MT" | b"Mt" if self.code.is_none() => {
                let (first, rest) = first_arg(src, args);
                self.b.brk(pos);
                let s = self.b.len();
                // Charged to the address's first byte, inside quotes; an
                // empty or blank address (`.MT " `) gets no `mailto:`.
                let address = first.start + usize::from(src.get(first.start) == Some(&b'"'));
                let at = (address..first.end).find(|&i| !matches!(src[i], b' ' | b'\t' | b'"'));
                match (matches!(name, b"MT" | b"Mt"), at) {
                    (true, Some(at)) => {
                        self.b.decoded(b"mailto:", at);
                        self.decode(at..first.end, true);
                    }
                    _ => self.decode(first.clone(), true),
                }
                self.b.mark(s, Role::Link(Kind::Link));
                self.b.brk(first.end);
                self.decode(rest, true);
            }
            // roff requests print nothing a reader reads.
            _ if name[0].is_ascii_lowercase() => {}
            _ => self.decode(args, true),
        }
    }

    fn open_code(&mut self, at: usize) {
        if self.code.is_none() {
            self.b.brk(at);
            self.code = Some(self.b.len());
        }
    }

    fn close_code(&mut self, at: usize) {
        if let Some(s) = self.code.take() {
            self.b.mark(s, Role::Code);
            self.b.brk(at);
        }
    }

    /// Appends `range` with its escapes undone; with `quotes`, argument
    /// quotes (`"`) are syntax and dropped.
    fn decode(&mut self, range: std::ops::Range<usize>, quotes: bool) {
        let src = self.src;
        let end = range.end;
        let mut from = range.start;
        let mut i = range.start;
        loop {
            let found = if quotes {
                memchr::memchr2(b'\\', b'"', &src[i..end])
            } else {
                memchr::memchr(b'\\', &src[i..end])
            };
            let Some(k) = found.map(|k| i + k) else { break };
            self.b.copy(from..k);
            if src[k] == b'"' {
                // `""` inside a quoted argument is a quote.
                if src.get(k + 1) == Some(&b'"') && k + 1 < end {
                    self.b.copy(k..k + 1);
                    i = k + 2;
                } else {
                    i = k + 1;
                }
                from = i;
                continue;
            }
            let (out, len) = escape(&src[k..end]);
            if len == usize::MAX {
                // A comment: the rest of the line goes.
                from = end;
                break;
            }
            self.b.decoded(out, k);
            i = k + len;
            from = i;
        }
        self.b.copy(from..end);
    }
}

/// Whether the words of `args` include one of `want`.
fn args_have(args: &[u8], want: &[&[u8]]) -> bool {
    args.split(|&b| b == b' ' || b == b'\t').any(|w| want.contains(&w))
}

/// The first argument of a macro (quoted or not) and the rest of the line.
fn first_arg(
    src: &[u8],
    args: std::ops::Range<usize>,
) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    let s = &src[args.clone()];
    let n = if s.first() == Some(&b'"') {
        s[1..].iter().position(|&b| b == b'"').map_or(s.len(), |p| p + 2)
    } else {
        s.iter().position(|&b| b == b' ' || b == b'\t').unwrap_or(s.len())
    };
    (args.start..args.start + n, args.start + n..args.end)
}

/// Undoes the escape that `s` opens with (`s[0]` is `\`): what it prints
/// and how many bytes it takes; `usize::MAX` for a comment (`\"`, `\#`),
/// which takes the rest of the line.
fn escape(s: &[u8]) -> (&'static [u8], usize) {
    let Some(&c) = s.get(1) else { return (b"", 1) };
    match c {
        b'"' | b'#' => (b"", usize::MAX),
        b'\n' => (b"", 2),
        b'-' => (b"-", 2),
        b'e' | b'E' | b'\\' => (b"\\", 2),
        b'.' => (b".", 2),
        b' ' | b'~' | b'0' => (b" ", 2),
        b't' => (b"\t", 2),
        b'_' => (b"_", 2),
        b'\'' => ("\u{b4}".as_bytes(), 2),
        b'`' => (b"`", 2),
        // Zero-width: break points, non-printing, motions, colours.
        b'&' | b':' | b'%' | b'c' | b'/' | b',' | b')' | b'|' | b'^' | b'{' | b'}' | b'a'
        | b'd' | b'u' | b'r' | b'p' | b'z' => (b"", 2),
        b'(' => {
            let n = s.len().min(4);
            (special(&s[2..n]), n)
        }
        b'[' => match s[2..].iter().take(64).position(|&b| b == b']') {
            Some(p) => (special(&s[2..2 + p]), p + 3),
            None => (b"", 2),
        },
        b'*' => {
            let (name, len) = name_arg(&s[2..]);
            (string(name), 2 + len)
        }
        b'f' | b'F' | b'n' | b'm' | b'M' | b'g' | b'k' | b'V' | b'Y' | b'$' | b'O' => {
            // `\n+x` and `\n-x` step the register.
            let skip = usize::from(c == b'n' && matches!(s.get(2), Some(b'+' | b'-')));
            let (_, len) = name_arg(&s[2 + skip..]);
            (b"", 2 + skip + len)
        }
        b's' => {
            let mut j = 2;
            if matches!(s.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            match s.get(j) {
                Some(b'(') => (b"", (j + 3).min(s.len())),
                Some(b'[' | b'\'') => {
                    let close = if s[j] == b'[' { b']' } else { b'\'' };
                    let p = s[j + 1..].iter().take(16).position(|&b| b == close);
                    (b"", p.map_or(j + 1, |p| j + p + 2))
                }
                Some(d) if d.is_ascii_digit() => {
                    let two =
                        matches!(d, b'1'..=b'3') && s.get(j + 1).is_some_and(u8::is_ascii_digit);
                    (b"", j + 1 + usize::from(two))
                }
                _ => (b"", j),
            }
        }
        b'h' | b'v' | b'w' | b'o' | b'b' | b'x' | b'X' | b'D' | b'l' | b'L' | b'Z' | b'A'
        | b'B' | b'R' | b'S' | b'H' | b'N' | b'C' => {
            let Some(&d) = s.get(2) else { return (b"", 2) };
            let Some(p) = s[3..].iter().take(4096).position(|&b| b == d) else { return (b"", 3) };
            let arg = &s[3..3 + p];
            let out = match c {
                b'C' => special(arg),
                b'N' => numbered(arg),
                _ => b"",
            };
            (out, p + 4)
        }
        // An unknown escape prints its character.
        _ => (ascii(c), 2),
    }
}

/// The name after `\*`, `\f`, `\n` and the like: one character, `(xx` or
/// `[name]`; and the bytes it takes.
fn name_arg(s: &[u8]) -> (&[u8], usize) {
    match s.first() {
        None => (b"", 0),
        Some(b'(') => {
            let n = s.len().min(3);
            (&s[1..n], n)
        }
        Some(b'[') => match s.iter().take(64).position(|&b| b == b']') {
            Some(p) => (&s[1..p], p + 1),
            None => (b"", 1),
        },
        Some(_) => (&s[..1], 1),
    }
}

/// The one-byte string of an ASCII character; others print nothing here
/// (their bytes are copied by the caller's next run).
fn ascii(c: u8) -> &'static [u8] {
    const ALL: [u8; 128] = {
        let mut a = [0u8; 128];
        let mut i = 0;
        while i < 128 {
            a[i] = i as u8;
            i += 1;
        }
        a
    };
    if c.is_ascii() { &ALL[c as usize..c as usize + 1] } else { b"" }
}

/// A special character by its groff name (`em`, `aq`, `u2010`).
fn special(name: &[u8]) -> &'static [u8] {
    let s: &str = match name {
        b"em" => "\u{2014}",
        b"en" => "\u{2013}",
        b"aq" => "'",
        b"dq" => "\"",
        b"lq" => "\u{201c}",
        b"rq" => "\u{201d}",
        b"oq" => "\u{2018}",
        b"cq" => "\u{2019}",
        b"ga" => "`",
        b"ti" | b"asciitilde" => "~",
        b"ha" | b"asciicircum" => "^",
        b"rs" => "\\",
        b"sl" => "/",
        b"bu" => "\u{2022}",
        b"co" => "\u{a9}",
        b"rg" => "\u{ae}",
        b"tm" => "\u{2122}",
        b"hy" | b"mi" | b"u2010" | b"u2212" => "-",
        b"pl" => "+",
        b"eq" => "=",
        b"ba" | b"or" => "|",
        b"at" => "@",
        b"sh" => "#",
        b"Do" => "$",
        b"lB" => "[",
        b"rB" => "]",
        b"lC" => "{",
        b"rC" => "}",
        // groff's link brackets: read as an angle wrapper.
        b"la" | b"u27E8" | b"u27e8" => "<",
        b"ra" | b"u27E9" | b"u27e9" => ">",
        b"Fo" => "\u{ab}",
        b"Fc" => "\u{bb}",
        b"de" => "\u{b0}",
        b"mu" => "\u{d7}",
        b"**" => "*",
        b"ul" | b"ru" => "_",
        b"sc" => "\u{a7}",
        b"->" => "\u{2192}",
        b"<-" => "\u{2190}",
        b"<=" => "\u{2264}",
        b">=" => "\u{2265}",
        _ => "",
    };
    s.as_bytes()
}

/// A predefined string (`\*(lq`, `\*R`).
fn string(name: &[u8]) -> &'static [u8] {
    match name {
        b"lq" | b"Lq" => "\u{201c}".as_bytes(),
        b"rq" | b"Rq" => "\u{201d}".as_bytes(),
        b"R" => "\u{ae}".as_bytes(),
        // pod2man's strings.
        b"Aq" => b"'",
        b"L\"" | b"R\"" => b"\"",
        b"C+" => b"C++",
        b"Tm" => "\u{2122}".as_bytes(),
        _ => b"",
    }
}

/// `\N'45'`: the character with that code, when it is ASCII.
fn numbered(arg: &[u8]) -> &'static [u8] {
    std::str::from_utf8(arg).ok().and_then(|s| s.parse::<u8>().ok()).map_or(b"", ascii)
}
