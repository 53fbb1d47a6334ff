//! The HTML reader: text content with character references decoded,
//! URL-valued attributes as whole links, code elements as code, comments
//! dropped.
//!
//! It is a small tokenizer over bytes rather than an HTML parser crate:
//! the tokenizer crates (html5ever, html5gum) hand out decoded strings
//! without the byte each decoded character came from, and positions must
//! point into the file. What it takes from HTML5's tokenizer is what
//! changes which bytes are text: tags with quoted attribute values,
//! comments, raw-text elements (`<script>`, `<style>`) and character
//! references (the WHATWG table comes from the `htmlize` crate). It builds
//! no tree: a misnested or unclosed tag changes nothing but the tag.
//!
//! Hostile input must not make it quadratic nor swallow the file: every
//! search for a closing delimiter (`"`, `>`, `-->`, `</script`) that fails
//! is remembered for the rest of the range, and an unclosed one ends at
//! the next `>` (or the tag is text) instead of running to the end of the
//! file, unlike a browser.
//!
//! The Markdown reader feeds its inline HTML and HTML blocks through the
//! same [`Reader`], range by range, into its own [`DocBuilder`].

use std::ops::Range;

use memchr::memmem;

use super::{Doc, DocBuilder, Role, may_be_colon_ref, may_hold_url};
use crate::scan::Kind;

/// Reads an HTML file.
pub(super) fn read(src: &[u8]) -> Doc {
    let mut b = DocBuilder::new(src);
    Reader { alone: true, ..Reader::default() }.feed(&mut b, 0..src.len());
    b.finish()
}

/// Attributes whose value is a URL (HTML 4.01's `%URI` attributes and
/// HTML5's additions); `srcset` and `<meta http-equiv=refresh>` are read
/// apart.
const URL_ATTRS: &[&[u8]] = &[
    b"href",
    b"src",
    b"cite",
    b"action",
    b"formaction",
    b"data",
    b"poster",
    b"background",
    b"longdesc",
    b"manifest",
    b"codebase",
    b"usemap",
    b"profile",
    b"xlink:href",
];

/// Elements whose content is code: examples, not links.
const CODE: &[&[u8]] = &[b"pre", b"code", b"kbd", b"samp", b"listing", b"xmp", b"textarea"];

/// Raw-text elements: their content is not markup. `decode` says whether
/// character references are (RCDATA), `code` whether it is code.
struct RawText {
    name: &'static [u8],
    decode: bool,
    code: bool,
}

const RAW: &[RawText] = &[
    RawText { name: b"script", decode: false, code: true },
    RawText { name: b"style", decode: false, code: true },
    RawText { name: b"xmp", decode: false, code: true },
    RawText { name: b"textarea", decode: true, code: true },
    RawText { name: b"title", decode: true, code: false },
];

/// Where decoded text goes: the document, or a scratch buffer to compare.
pub(super) trait Out {
    /// Appends `src[range]` as it is.
    fn copy_from(&mut self, src: &[u8], range: Range<usize>);
    /// Appends `bytes`, decoded from the source bytes at `at`.
    fn put(&mut self, bytes: &[u8], at: usize);
}

impl Out for DocBuilder<'_> {
    fn copy_from(&mut self, _src: &[u8], range: Range<usize>) {
        self.copy(range);
    }
    fn put(&mut self, bytes: &[u8], at: usize) {
        self.decoded(bytes, at);
    }
}

impl Out for Vec<u8> {
    fn copy_from(&mut self, src: &[u8], range: Range<usize>) {
        self.extend_from_slice(&src[range]);
    }
    fn put(&mut self, bytes: &[u8], _at: usize) {
        self.extend_from_slice(bytes);
    }
}

/// Which rules for character references apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refs {
    /// CommonMark: the `;` is required, numbers are at most 7 decimal or 6
    /// hex digits.
    Markdown,
    /// HTML text: legacy names such as `&copy` work without the `;`.
    Text,
    /// HTML attribute values: as text, except that a legacy name followed
    /// by `=` or a letter or digit is not a reference (`?a=1&copy=2`).
    Attr,
}

/// The characters a reference stands for (at most two code points).
#[derive(Clone, Copy, Debug)]
pub(super) struct Decoded {
    buf: [u8; 8],
    len: usize,
}

impl Decoded {
    fn of(bytes: &[u8]) -> Decoded {
        let mut buf = [0; 8];
        let len = bytes.len().min(8);
        buf[..len].copy_from_slice(&bytes[..len]);
        Decoded { buf, len }
    }

    fn char(c: char) -> Decoded {
        let mut buf = [0; 8];
        let len = c.encode_utf8(&mut buf).len();
        Decoded { buf, len }
    }

    /// The decoded bytes (UTF-8).
    pub(super) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// The character reference at `src[at]` (an `&`), read no further than
/// `end`: what it stands for and its length, or `None` when the `&` is
/// literal.
pub(super) fn char_ref(src: &[u8], at: usize, end: usize, refs: Refs) -> Option<(Decoded, usize)> {
    let s = &src[at..end];
    debug_assert_eq!(s.first(), Some(&b'&'));
    if s.get(1) == Some(&b'#') {
        return numeric_ref(s, refs);
    }
    // Every name is letters and digits; a reference is that run and a
    // `;`, or (HTML only) the longest legacy name the run starts with.
    let max = htmlize::ENTITY_MAX_LENGTH - 2;
    let run = s[1..].iter().take(max + 1).take_while(|b| b.is_ascii_alphanumeric()).count();
    if run == 0 {
        return None;
    }
    if run <= max
        && s.get(1 + run) == Some(&b';')
        && let Some(v) = htmlize::ENTITIES.get(&s[..run + 2])
    {
        return Some((Decoded::of(v), run + 2));
    }
    if refs == Refs::Markdown {
        return None;
    }
    let longest = run.min(htmlize::BARE_ENTITY_MAX_LENGTH - 1);
    for k in (1..=longest).rev() {
        if let Some(v) = htmlize::ENTITIES.get(&s[..k + 1]) {
            let next = s.get(k + 1).copied().unwrap_or(b' ');
            if refs == Refs::Attr && (next == b'=' || next.is_ascii_alphanumeric()) {
                return None;
            }
            return Some((Decoded::of(v), k + 1));
        }
    }
    None
}

/// `&#123;` or `&#x7B;` at the start of `s`.
fn numeric_ref(s: &[u8], refs: Refs) -> Option<(Decoded, usize)> {
    let hex = matches!(s.get(2), Some(b'x' | b'X'));
    let first = if hex { 3 } else { 2 };
    let digit = |b: &u8| if hex { b.is_ascii_hexdigit() } else { b.is_ascii_digit() };
    let n = s[first.min(s.len())..].iter().take_while(|b| digit(b)).count();
    let limit = match (refs, hex) {
        (Refs::Markdown, true) => 6,
        (Refs::Markdown, false) => 7,
        _ => usize::MAX,
    };
    if n == 0 || n > limit {
        return None;
    }
    let mut len = first + n;
    if s.get(len) == Some(&b';') {
        len += 1;
    } else if refs == Refs::Markdown {
        return None;
    }
    let radix = if hex { 16 } else { 10 };
    let value = s[first..first + n].iter().try_fold(0u32, |v, &b| {
        let d = (b as char).to_digit(radix)?;
        v.checked_mul(radix)?.checked_add(d).filter(|&v| v <= 0x10_FFFF)
    });
    let c = match value {
        // HTML maps the C1 range as Windows-1252 did (`&#150;` is a dash).
        Some(v @ 0x80..=0x9F) if refs != Refs::Markdown => {
            let byte = [v as u8];
            let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&byte);
            text.chars().next()
        }
        Some(0) | None => None,
        Some(v) => char::from_u32(v),
    };
    Some((Decoded::char(c.unwrap_or('\u{FFFD}')), len))
}

/// Appends `src[range]` to `out` with character references decoded.
/// `drop_newlines` leaves out tabs and line breaks, as a browser does
/// when it reads a URL from an attribute.
pub(super) fn decode_into(
    out: &mut impl Out,
    src: &[u8],
    range: Range<usize>,
    refs: Refs,
    drop_newlines: bool,
) {
    let mut i = range.start;
    let mut from = i;
    while i < range.end {
        let next = if drop_newlines {
            memchr::memchr3(b'&', b'\n', b'\t', &src[i..range.end])
                .into_iter()
                .chain(memchr::memchr(b'\r', &src[i..range.end]))
                .min()
        } else {
            memchr::memchr(b'&', &src[i..range.end])
        };
        let Some(k) = next else { break };
        let at = i + k;
        if src[at] != b'&' {
            out.copy_from(src, from..at);
            i = at + 1;
            from = i;
            continue;
        }
        match char_ref(src, at, range.end, refs) {
            Some((d, n)) => {
                out.copy_from(src, from..at);
                out.put(d.bytes(), at);
                i = at + n;
                from = i;
            }
            None => i = at + 1,
        }
    }
    out.copy_from(src, from..range.end);
}

/// Delimiters whose failed search is remembered (see [`Range_`]).
#[derive(Clone, Copy)]
enum Needle {
    Gt = 0,
    DoubleQuote,
    SingleQuote,
    CommentEnd,
    CdataEnd,
    EndTag,
}

/// One range of the file being read: its end, and from where each
/// delimiter is known to be absent, so no failed search is repeated.
struct Range_ {
    end: usize,
    absent: [usize; 6],
    absent_raw: [usize; RAW.len()],
}

impl Range_ {
    /// The first `needle` at or after `from`, before the end.
    fn find(&mut self, src: &[u8], needle: Needle, from: usize) -> Option<usize> {
        let slot = &mut self.absent[needle as usize];
        if from >= *slot || from >= self.end {
            return None;
        }
        let hay = &src[from..self.end];
        let found = match needle {
            Needle::Gt => memchr::memchr(b'>', hay),
            Needle::DoubleQuote => memchr::memchr(b'"', hay),
            Needle::SingleQuote => memchr::memchr(b'\'', hay),
            Needle::CommentEnd => memmem::find(hay, b"-->"),
            Needle::CdataEnd => memmem::find(hay, b"]]>"),
            Needle::EndTag => memmem::find(hay, b"</"),
        };
        if found.is_none() {
            *slot = from;
        }
        found.map(|k| from + k)
    }

    /// [`Range_::find`] for a one-byte needle that is mostly a few bytes
    /// on (the `>` of an end tag, the `"` that closes `class="n"`): looked
    /// for byte by byte first, which costs less than a call to `memchr`
    /// does to set up.
    fn find_near(&mut self, src: &[u8], needle: Needle, from: usize) -> Option<usize> {
        let byte = match needle {
            Needle::Gt => b'>',
            Needle::DoubleQuote => b'"',
            Needle::SingleQuote => b'\'',
            _ => return self.find(src, needle, from),
        };
        let near = (from + SHORT).min(self.end);
        if from < near
            && let Some(k) = src[from..near].iter().position(|&b| b == byte)
        {
            return Some(from + k);
        }
        self.find(src, needle, near.max(from))
    }

    /// Whether `needle` is known to be absent from `from` on.
    fn absent(&self, needle: Needle, from: usize) -> bool {
        from >= self.absent[needle as usize] || from >= self.end
    }

    /// The `</name` that closes raw-text element `raw` (an index into
    /// [`RAW`]), searching from `from`.
    fn find_close(&mut self, src: &[u8], raw: usize, from: usize) -> Option<usize> {
        if from >= self.absent_raw[raw] {
            return None;
        }
        let name = RAW[raw].name;
        let mut p = from;
        while let Some(at) = self.find(src, Needle::EndTag, p) {
            let after = at + 2 + name.len();
            if after <= self.end
                && src[at + 2..after].eq_ignore_ascii_case(name)
                && src.get(after).is_none_or(|&b| b == b'>' || b == b'/' || is_space(b))
            {
                return Some(at);
            }
            p = at + 2;
        }
        self.absent_raw[raw] = from;
        None
    }
}

/// How far a short search looks byte by byte before it calls `memchr`.
const SHORT: usize = 24;

/// The first `<`, `:` or `&` in `hay`: the end of the text before a tag,
/// or what may make it hold a URL. The text between two tags is mostly a
/// few bytes (a word, a space, a line break).
fn find_text_end(hay: &[u8]) -> Option<usize> {
    let near = hay.len().min(SHORT);
    match hay[..near].iter().position(|&b| matches!(b, b'<' | b':' | b'&')) {
        Some(k) => Some(k),
        None => memchr::memchr3(b'<', b':', b'&', &hay[near..]).map(|k| near + k),
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0C')
}

/// One attribute of a tag: its name and its value's bytes.
#[derive(Clone, Debug)]
struct Attr {
    name: Range<usize>,
    value: Range<usize>,
}

/// Reads HTML into a [`DocBuilder`]. Keeps, across the ranges it is fed,
/// how deep in code elements the text is.
#[derive(Debug, Default)]
pub(super) struct Reader {
    /// The reader has the document to itself (an HTML file, not HTML in
    /// Markdown): nothing follows the text after its last tag.
    alone: bool,
    /// Keep the stretches that can hold no URL (to test that leaving
    /// them out changes nothing).
    keep_idle: bool,
    /// The pending text may hold a `:` (see [`Reader::feed`]).
    colon: bool,
    code: u32,
    attrs: Vec<Attr>,
    scratch: Vec<u8>,
    text: Vec<u8>,
}

impl Reader {
    /// Whether text here is inside a code element (`<code>`, `<pre>`...).
    pub(super) fn in_code(&self) -> bool {
        self.code > 0
    }

    /// Reads the file's bytes `range` as HTML, appending to `b`.
    pub(super) fn feed(&mut self, b: &mut DocBuilder, range: Range<usize>) {
        let src = b.src();
        let mut r = Range_ { end: range.end, absent: [usize::MAX; 6], absent_raw: [usize::MAX; 5] };
        let mut text = range.start;
        let mut i = range.start;
        // The text since `text` is found to hold a `:` (or a reference
        // that may stand for one) on the way to the next `<`, so no second
        // pass over it says whether it may hold a URL.
        self.colon = false;
        while let Some(k) = find_text_end(&src[i..r.end]) {
            let at = i + k;
            if src[at] != b'<' {
                self.colon |= src[at] == b':' || may_be_colon_ref(&src[at..r.end]);
                i = at + 1;
                continue;
            }
            match self.markup(b, &mut r, text, at) {
                Some(next) => {
                    text = next;
                    i = next;
                    self.colon = false;
                }
                None => i = at + 1,
            }
        }
        let end = text..r.end;
        if self.alone {
            self.text(b, end, Refs::Text, self.in_code());
        } else {
            // What follows may be the Markdown text around this HTML:
            // this text is not known to be a stretch of its own.
            self.text_open(b, end, Refs::Text, self.in_code());
        }
    }

    /// Reads the markup at `lt` (a `<`), after flushing the text from
    /// `text`. Returns where text resumes, or `None` when the `<` is text.
    fn markup(
        &mut self,
        b: &mut DocBuilder,
        r: &mut Range_,
        text: usize,
        lt: usize,
    ) -> Option<usize> {
        let src = b.src();
        let rest = &src[lt..r.end];
        let next = rest.get(1).copied().unwrap_or(b' ');
        let code = self.in_code();
        let end = if rest.starts_with(b"<!--") {
            self.text(b, text..lt, Refs::Text, code);
            self.comment(r, src, lt)
        } else if rest.starts_with(b"<![CDATA[") {
            self.text(b, text..lt, Refs::Text, code);
            b.brk(lt);
            let (body, end) = match r.find(src, Needle::CdataEnd, lt + 9) {
                Some(e) => (lt + 9..e, e + 3),
                None => {
                    let e = r.find(src, Needle::Gt, lt + 9).map_or(r.end, |g| g + 1);
                    (lt + 9..e, e)
                }
            };
            let s = b.len();
            b.copy(body);
            if code {
                b.mark(s, Role::Code);
            }
            end
        } else if next == b'!' || next == b'?' {
            // A doctype, processing instruction or bogus comment.
            self.text(b, text..lt, Refs::Text, code);
            r.find(src, Needle::Gt, lt + 2).map_or(r.end, |g| g + 1)
        } else if next == b'/' {
            let name_start = lt + 2;
            if !rest.get(2).is_some_and(u8::is_ascii_alphabetic) {
                // `</>` is dropped; `</3` is a bogus comment.
                self.text(b, text..lt, Refs::Text, code);
                r.find(src, Needle::Gt, lt + 2).map_or(r.end, |g| g + 1)
            } else {
                let end = r.find_near(src, Needle::Gt, name_start)?;
                self.text(b, text..lt, Refs::Text, code);
                let mut lower = [0; 16];
                let name = &src[tag_name(src, name_start, end)];
                if may_be_special(name) && is_code(lowercase(name, &mut lower)) {
                    self.code = self.code.saturating_sub(1);
                }
                end + 1
            }
        } else if next.is_ascii_alphabetic() {
            let tag = self.start_tag(src, r, lt)?;
            self.text(b, text..lt, Refs::Text, code);
            self.tag(b, r, lt, tag)
        } else {
            return None;
        };
        b.brk(lt);
        Some(end)
    }

    /// The end of the comment at `lt` (`<!--`): after its `-->`, or, when
    /// it is never closed, after the next `>`.
    fn comment(&mut self, r: &mut Range_, src: &[u8], lt: usize) -> usize {
        let body = lt + 4;
        if src[body..r.end].starts_with(b">") {
            return body + 1;
        }
        if src[body..r.end].starts_with(b"->") {
            return body + 2;
        }
        match r.find(src, Needle::CommentEnd, body) {
            Some(e) => e + 3,
            None => r.find(src, Needle::Gt, body).map_or(r.end, |g| g + 1),
        }
    }

    /// Reads the start tag at `lt` into `self.attrs`, appending nothing:
    /// `None` when it is no tag (no `>` follows: then `<` is text, as in
    /// `a<b`, and the rest of the file is not swallowed).
    fn start_tag(&mut self, src: &[u8], r: &mut Range_, lt: usize) -> Option<StartTag> {
        // Known to have no `>` after it: not a tag, and not read again
        // (a run of unclosed tags would be quadratic).
        if r.absent(Needle::Gt, lt + 1) {
            return None;
        }
        let end = r.end;
        let name = tag_name(src, lt + 1, end);
        let mut j = name.end;
        let mut self_closing = false;
        let mut closed = false;
        self.attrs.clear();
        loop {
            while j < end && (is_space(src[j]) || src[j] == b'/') {
                self_closing = src[j] == b'/';
                j += 1;
            }
            if j >= end {
                break;
            }
            if src[j] == b'>' {
                j += 1;
                closed = true;
                break;
            }
            self_closing = false;
            let n0 = j;
            j += 1;
            while j < end && !(is_space(src[j]) || matches!(src[j], b'/' | b'>' | b'=')) {
                j += 1;
            }
            let aname = n0..j;
            while j < end && is_space(src[j]) {
                j += 1;
            }
            if j >= end || src[j] != b'=' {
                self.attrs.push(Attr { name: aname, value: j..j });
                continue;
            }
            j += 1;
            while j < end && is_space(src[j]) {
                j += 1;
            }
            let value = match src.get(j).copied().filter(|_| j < end) {
                Some(q @ (b'"' | b'\'')) => {
                    let needle = if q == b'"' { Needle::DoubleQuote } else { Needle::SingleQuote };
                    match r.find_near(src, needle, j + 1) {
                        Some(close) => {
                            let v = j + 1..close;
                            j = close + 1;
                            v
                        }
                        None => {
                            // Unclosed: the value stops at the next `>`.
                            let g = r.find(src, Needle::Gt, j + 1).unwrap_or(end);
                            let v = j + 1..g;
                            j = g;
                            v
                        }
                    }
                }
                _ => {
                    let v0 = j;
                    while j < end && !(is_space(src[j]) || src[j] == b'>') {
                        j += 1;
                    }
                    v0..j
                }
            };
            self.attrs.push(Attr { name: aname, value });
        }
        // A tag read to the end of the range still is one when a `>`
        // follows its `<` (inside a quoted value): searched only then, as
        // a tag mostly ends at its own `>`.
        if !closed {
            r.find(src, Needle::Gt, lt + 1)?;
        }
        Some(StartTag { name, end: j, self_closing })
    }

    /// Appends what the start tag at `lt`, read by [`Reader::start_tag`],
    /// holds: its URL attributes, and the content of a raw-text element.
    /// Returns where text resumes.
    fn tag(&mut self, b: &mut DocBuilder, r: &mut Range_, lt: usize, tag: StartTag) -> usize {
        let src = b.src();
        let StartTag { name, end: j, self_closing } = tag;
        b.brk(lt);
        let href = self.links(b, name.clone());
        let mut lower = [0; 16];
        let tag = if may_be_special(&src[name.clone()]) {
            lowercase(&src[name], &mut lower)
        } else {
            &[]
        };
        if let Some(raw) = RAW.iter().position(|t| t.name == tag) {
            if self_closing {
                return j;
            }
            let Some(close) = r.find_close(src, raw, j) else { return j };
            let s = b.len();
            if !may_hold_url(&src[j..close], RAW[raw].decode) && !self.keep_idle {
                // A stretch of its own (a break before, one after): no
                // URL can be in it.
            } else if RAW[raw].decode {
                decode_into(b, src, j..close, Refs::Text, false);
            } else {
                b.copy(j..close);
            }
            if RAW[raw].code {
                b.mark(s, Role::Code);
            }
            b.brk(close);
            return close;
        }
        if !self_closing && is_code(tag) {
            self.code += 1;
        }
        if let Some(href) = href {
            return self.skip_repeated_href(src, r, j, href);
        }
        j
    }

    /// Appends the links the tag's attributes give, in order. Returns
    /// the value of the `href` of an `<a>` (its last, as it is read).
    fn links(&mut self, b: &mut DocBuilder, tag: Range<usize>) -> Option<Range<usize>> {
        let src = b.src();
        let refresh = src[tag.clone()].eq_ignore_ascii_case(b"meta")
            && self.attrs.iter().any(|a| {
                src[a.name.clone()].eq_ignore_ascii_case(b"http-equiv")
                    && src[a.value.clone()].trim_ascii().eq_ignore_ascii_case(b"refresh")
            });
        let is_a = src[tag].eq_ignore_ascii_case(b"a");
        let mut href = None;
        let mut lower = [0; 16];
        for a in &self.attrs {
            if !may_give_link(&src[a.name.clone()]) {
                continue;
            }
            let name = lowercase(&src[a.name.clone()], &mut lower);
            if is_url_attr(name) {
                link(b, a.value.clone());
                if is_a && name == b"href" {
                    href = Some(a.value.clone());
                }
            } else if name == b"srcset" {
                for url in srcset(src, a.value.clone()) {
                    link(b, url);
                }
            } else if refresh
                && name == b"content"
                && let Some(url) = refresh_url(src, a.value.clone())
            {
                link(b, url);
            }
        }
        href
    }

    /// After `<a href="X">` at `j`: when the link's text is X again (the
    /// common `<a href="http://x">http://x</a>`), skips it, so the URL is
    /// reported once, as the link. Returns where text resumes.
    fn skip_repeated_href(
        &mut self,
        src: &[u8],
        r: &Range_,
        j: usize,
        href: Range<usize>,
    ) -> usize {
        // Most links' text is a title, or more markup: told apart by the
        // first bytes that are not white space, unless either is a
        // reference (`&#104;ttp`), before anything is decoded.
        let first = |s: &[u8]| s.iter().copied().find(|b| !b.is_ascii_whitespace());
        let v0 = first(&src[href.clone()]);
        let t0 = first(&src[j..(j + href.len() * 10 + 64).min(r.end)]);
        match (v0, t0) {
            (None, _) | (_, None) | (_, Some(b'<')) => return j,
            (Some(v), Some(t)) if v != t && v != b'&' && t != b'&' => return j,
            _ => {}
        }
        self.scratch.clear();
        decode_into(&mut self.scratch, src, href, Refs::Attr, true);
        let want = self.scratch.trim_ascii();
        // The text can be no longer than the URL with every byte an
        // entity, plus some space: look no further.
        let reach = (j + want.len() * 10 + 64).min(r.end);
        let Some(lt) = memchr::memchr(b'<', &src[j..reach]).map(|k| j + k) else { return j };
        self.text.clear();
        decode_into(&mut self.text, src, j..lt, Refs::Text, false);
        if !want.is_empty() && self.text.trim_ascii() == want { lt } else { j }
    }

    /// Appends the text `range` with references decoded, as code when
    /// `code`, unless it can hold no URL: the caller ends the stretch
    /// after it (a break follows).
    fn text(&self, b: &mut DocBuilder, range: Range<usize>, refs: Refs, code: bool) {
        // Between two breaks, text with no `:` to be had is a stretch no
        // URL can be in: most of a page's text (a few words between two
        // tags) is neither copied nor mapped, nor scanned again.
        debug_assert!(self.colon || !may_hold_url(&b.src()[range.clone()], true));
        if !self.colon && b.at_break() && !self.keep_idle {
            return;
        }
        self.text_open(b, range, refs, code);
    }

    /// Appends the text `range` with references decoded, as code when
    /// `code`.
    fn text_open(&self, b: &mut DocBuilder, range: Range<usize>, refs: Refs, code: bool) {
        if range.is_empty() {
            return;
        }
        let s = b.len();
        decode_into(b, b.src(), range, refs, false);
        if code {
            b.mark(s, Role::Code);
        }
    }
}

/// A start tag read by [`Reader::start_tag`].
struct StartTag {
    name: Range<usize>,
    /// Where text resumes after it.
    end: usize,
    self_closing: bool,
}

/// `name` lowercased into `buf`, or empty when it is longer than any name
/// looked up (names are compared per tag and per attribute: a lowercase
/// copy and a `match` cost less than a case-blind compare with each).
fn lowercase<'b>(name: &[u8], buf: &'b mut [u8; 16]) -> &'b [u8] {
    let Some(to) = buf.get_mut(..name.len()) else { return &[] };
    for (d, s) in to.iter_mut().zip(name) {
        *d = s.to_ascii_lowercase();
    }
    to
}

/// Whether a tag named `name` may be one of [`RAW`] or [`CODE`]: by its
/// length and first letter, before it is lowercased to be looked up
/// (`span`, `a`, `div`, `li` are not).
fn may_be_special(name: &[u8]) -> bool {
    let yes = matches!(name.len(), 3..=8)
        && matches!(name[0].to_ascii_lowercase(), b'c' | b'k' | b'l' | b'p' | b's' | b't' | b'x');
    debug_assert!(
        yes || {
            let lower = name.to_ascii_lowercase();
            !CODE.contains(&&lower[..]) && !RAW.iter().any(|t| t.name == &lower[..])
        }
    );
    yes
}

/// Whether an attribute named `name` may be one that gives a link (one
/// of [`URL_ATTRS`], `srcset`, a refresh's `content`), by its length:
/// `class`, `id`, `title` and `style`, most attributes, are not
/// lowercased to be looked up.
fn may_give_link(name: &[u8]) -> bool {
    let yes = matches!(name.len(), 3 | 4 | 6 | 7 | 8 | 10);
    debug_assert!(
        yes || {
            let lower = name.to_ascii_lowercase();
            !is_url_attr(&lower) && lower != b"srcset" && lower != b"content"
        }
    );
    yes
}

/// Whether the attribute (lowercase name) is one of [`URL_ATTRS`].
fn is_url_attr(name: &[u8]) -> bool {
    let yes = matches!(
        name,
        b"href"
            | b"src"
            | b"cite"
            | b"action"
            | b"formaction"
            | b"data"
            | b"poster"
            | b"background"
            | b"longdesc"
            | b"manifest"
            | b"codebase"
            | b"usemap"
            | b"profile"
            | b"xlink:href"
    );
    debug_assert_eq!(yes, URL_ATTRS.contains(&name));
    yes
}

/// Whether the element (lowercase name) is one of [`CODE`].
fn is_code(name: &[u8]) -> bool {
    let yes =
        matches!(name, b"pre" | b"code" | b"kbd" | b"samp" | b"listing" | b"xmp" | b"textarea");
    debug_assert_eq!(yes, CODE.contains(&name));
    yes
}

/// The name of the tag whose name starts at `at`.
fn tag_name(src: &[u8], at: usize, end: usize) -> Range<usize> {
    let n = src[at..end].iter().take_while(|&&b| !(is_space(b) || b == b'/' || b == b'>')).count();
    at..at + n
}

/// Appends the attribute value `value` as one link, references decoded.
/// A `javascript:` value is a script run on click, not a link to
/// anywhere: it is left out (the Rust reference has hundreds of
/// `href="javascript:void(0)"`).
fn link(b: &mut DocBuilder, value: Range<usize>) {
    let v = b.src()[value.clone()].trim_ascii_start();
    if v.len() >= 11 && v[..11].eq_ignore_ascii_case(b"javascript:") {
        return;
    }
    // A relative link (`#top`, `../os.html`) is kept too: never reported
    // as a URL (it has no scheme), it is what the local-link check reads.
    b.brk(value.start);
    let s = b.len();
    decode_into(b, b.src(), value.clone(), Refs::Attr, true);
    b.mark(s, Role::Link(Kind::Link));
    b.brk(value.end);
}

/// The URLs of a `srcset` value: `a.png 1x, b.png 2x` (each URL ends at
/// white space; one that ends in commas has no descriptor).
fn srcset(src: &[u8], value: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    let end = value.end;
    let mut i = value.start;
    std::iter::from_fn(move || {
        while i < end && (is_space(src[i]) || src[i] == b',') {
            i += 1;
        }
        if i >= end {
            return None;
        }
        let start = i;
        while i < end && !is_space(src[i]) {
            i += 1;
        }
        let mut url_end = i;
        let bare = src[start..url_end].ends_with(b",");
        while url_end > start && src[url_end - 1] == b',' {
            url_end -= 1;
        }
        if !bare {
            // Skip the descriptors, up to the comma that ends them
            // (outside parentheses).
            let mut depth = 0u32;
            while i < end {
                match src[i] {
                    b'(' => depth += 1,
                    b')' => depth = depth.saturating_sub(1),
                    b',' if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
        }
        Some(start..url_end)
    })
}

/// The URL in a `<meta http-equiv=refresh>` content value such as
/// `0; url='http://x/'`.
fn refresh_url(src: &[u8], value: Range<usize>) -> Option<Range<usize>> {
    let v = &src[value.clone()];
    let mut i = v.iter().take_while(|&&b| is_space(b)).count();
    i += v[i..].iter().take_while(|&&b| b.is_ascii_digit() || b == b'.').count();
    i += v[i..].iter().take_while(|&&b| is_space(b)).count();
    if !matches!(v.get(i), Some(b';' | b',')) {
        return None;
    }
    i += 1;
    i += v[i..].iter().take_while(|&&b| is_space(b)).count();
    let j = i + v[i..].iter().take_while(|&&b| is_space(b)).count();
    if v.len() >= j + 3 && v[j..j + 3].eq_ignore_ascii_case(b"url") {
        let mut k = j + 3;
        k += v[k..].iter().take_while(|&&b| is_space(b)).count();
        if v.get(k) == Some(&b'=') {
            i = k + 1 + v[k + 1..].iter().take_while(|&&b| is_space(b)).count();
        }
    }
    let mut end = v.len();
    if let Some(&q @ (b'"' | b'\'')) = v.get(i) {
        i += 1;
        end = v[i..].iter().position(|&b| b == q).map_or(end, |p| i + p);
    }
    let end = i + v[i..end].trim_ascii_end().len();
    (i < end).then(|| value.start + i..value.start + end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{Format, extract_doc};
    use crate::extract::{Extracted, Options, Sifter};

    fn urls(src: &[u8]) -> Vec<Extracted> {
        let sifter = Sifter::new(Options::default());
        let mut out = Vec::new();
        extract_doc(&sifter, Format::Html, src, true, |u| out.push(u));
        out
    }

    fn show(src: &[u8]) -> Vec<(String, &'static str, u64, bool)> {
        urls(src)
            .into_iter()
            .map(|u| {
                (
                    String::from_utf8_lossy(&u.url).into_owned(),
                    u.kind.as_str(),
                    u.start.offset,
                    u.in_code,
                )
            })
            .collect()
    }

    #[test]
    fn references_decode_as_html_reads_them() {
        let one = |s: &[u8], refs| {
            char_ref(s, 0, s.len(), refs)
                .map(|(d, n)| (String::from_utf8_lossy(d.bytes()).into_owned(), n))
        };
        assert_eq!(one(b"&amp;b", Refs::Attr), Some(("&".into(), 5)));
        assert_eq!(one(b"&lt;", Refs::Markdown), Some(("<".into(), 4)));
        assert_eq!(one(b"&lt", Refs::Markdown), None);
        assert_eq!(one(b"&lt x", Refs::Text), Some(("<".into(), 3)));
        assert_eq!(one(b"&copy=2", Refs::Attr), None);
        assert_eq!(one(b"&copy=2", Refs::Text), Some(("\u{a9}".into(), 5)));
        assert_eq!(one(b"&notin;", Refs::Text), Some(("\u{2209}".into(), 7)));
        assert_eq!(one(b"&notit;", Refs::Text), Some(("\u{ac}".into(), 4)));
        assert_eq!(one(b"&#x68;", Refs::Markdown), Some(("h".into(), 6)));
        assert_eq!(one(b"&#104", Refs::Text), Some(("h".into(), 5)));
        assert_eq!(one(b"&#104", Refs::Markdown), None);
        assert_eq!(one(b"&#150;", Refs::Text), Some(("\u{2013}".into(), 6)));
        assert_eq!(one(b"&#0;", Refs::Text), Some(("\u{FFFD}".into(), 4)));
        assert_eq!(one(b"&#99999999999;", Refs::Text), Some(("\u{FFFD}".into(), 14)));
        assert_eq!(one(b"&#12345678;", Refs::Markdown), None);
        assert_eq!(one(b"&bogus;", Refs::Text), None);
        assert_eq!(one(b"& x", Refs::Text), None);
        assert_eq!(one(b"&#;", Refs::Text), None);
        for (name, value) in htmlize::ENTITIES.entries() {
            assert!(value.len() <= 8, "{}", String::from_utf8_lossy(name));
        }
    }

    /// Where `needle` first occurs in `src`: the offset a URL must have.
    fn at(src: &[u8], needle: &str) -> u64 {
        memmem::find(src, needle.as_bytes()).expect(needle) as u64
    }

    #[test]
    fn attributes_give_whole_links_with_references_decoded() {
        let src = b"<p>See <a href=\"http://example.org/?a=1&amp;b=2\">the page</a>.</p>";
        assert_eq!(show(src), [("http://example.org/?a=1&b=2".into(), "link", 16, false)]);
        let src = b"<A HREF='tel:+1-555-0100'>call</A> <img src=mailto:x@example.org alt=x>";
        let got = show(src);
        assert_eq!(got[0], ("tel:+1-555-0100".into(), "link", at(src, "tel:"), false));
        assert_eq!(got[1], ("mailto:x@example.org".into(), "link", at(src, "mailto:"), false));
        assert!(show(b"<a href=\" JavaScript:void(0)\">x</a>").is_empty());
        let src = b"<form action=\"https://f.example/go?x=&quot;1&quot;\"></form>";
        assert_eq!(show(src)[0].0, "https://f.example/go?x=\"1\"");
        // A URL broken across lines in the value is one URL, as a browser
        // reads it: line breaks and tabs are left out.
        let src = b"<a href=\"http://x.example/a\n  b\">t</a>";
        assert_eq!(show(src)[0].0, "http://x.example/a  b");
        // An entity that starts the value places the URL at its `&`.
        let src = b"<a href=\"&#104;ttp://e.example/\">e</a>";
        assert_eq!(show(src)[0], ("http://e.example/".into(), "link", at(src, "&#104;"), false));
        // Sphinx links a scheme named in prose ("URLs start with
        // http://"): a mention, not a link.
        assert!(show(b"<a href=\"http://\">http://</a> <a href=\"ftp:\">ftp:</a>").is_empty());
    }

    #[test]
    fn srcset_and_refresh() {
        let src = b"<img srcset=\"http://i.example/a.png 1x, http://i.example/b,c.png 2x,http://i.example/d.png\">";
        let got: Vec<(String, u64)> = show(src).into_iter().map(|u| (u.0, u.2)).collect();
        let want: Vec<(String, u64)> =
            ["http://i.example/a.png", "http://i.example/b,c.png", "http://i.example/d.png"]
                .iter()
                .map(|u| (u.to_string(), at(src, u)))
                .collect();
        assert_eq!(got, want);
        let src = b"<meta http-equiv=\"Refresh\" content=\"0; URL='http://r.example/next'\">";
        let got = show(src);
        assert_eq!(got, [("http://r.example/next".into(), "link", at(src, "http://r"), false)]);
        assert_eq!(refresh_url(b"5;url=http://r.example/", 0..23), Some(6..23));
        assert_eq!(refresh_url(b"5", 0..1), None);
        // Without http-equiv=refresh, content is not a link.
        assert!(show(b"<meta name=\"x\" content=\"0; url=http://r.example/\">").is_empty());
    }

    #[test]
    fn text_is_decoded_and_code_is_marked() {
        let src = b"<p>&lt;http://example.org&gt; and &quot;ftps://f.example/&quot;</p>\n<pre>http://p.example/</pre> <code>x http://c.example/</code> after http://a.example/";
        let got = show(src);
        assert_eq!(
            got[0],
            ("http://example.org".into(), "angle", at(src, "http://example.org"), false)
        );
        assert_eq!(got[1], ("ftps://f.example/".into(), "bare", at(src, "ftps:"), false));
        assert_eq!(got[2], ("http://p.example/".into(), "bare", at(src, "http://p."), true));
        assert_eq!(got[3], ("http://c.example/".into(), "bare", at(src, "http://c."), true));
        assert_eq!(got[4], ("http://a.example/".into(), "bare", at(src, "http://a."), false));
        assert_eq!(got.len(), 5);
    }

    #[test]
    fn raw_text_comments_and_repeats() {
        let src = b"<script>var u = \"http://s.example/&amp;\";</script><style>a{background:url(http://st.example/)}</style><!-- http://comment.example/ --><title>T &amp; http://t.example/</title><a href=\"http://d.example/\"> http://d.example/ </a>";
        let got = show(src);
        // Script is not decoded: `&amp;` is the script's own text (the `;` is
        // trailing punctuation to the scanner).
        assert_eq!(got[0], ("http://s.example/&amp".into(), "bare", at(src, "http://s."), true));
        assert_eq!(got[1].0, "http://st.example/");
        assert!(got[1].3);
        assert_eq!(got[2], ("http://t.example/".into(), "bare", at(src, "http://t."), false));
        // The link's text repeats its href: reported once, as the link.
        assert_eq!(got[3], ("http://d.example/".into(), "link", at(src, "http://d."), false));
        assert_eq!(got.len(), 4);
    }

    #[test]
    fn unclosed_markup_does_not_swallow_the_file() {
        for src in [
            &b"<a href=\"x>http://a.example/ <b>http://b.example/"[..],
            b"<!-- never closed> http://b.example/",
            b"<script> x http://b.example/",
            b"a<b http://b.example/",
            b"<p title='unclosed http://b.example/",
        ] {
            let got = show(src);
            assert!(
                got.iter().any(|u| u.0 == "http://b.example/"),
                "{}: {got:?}",
                String::from_utf8_lossy(src)
            );
        }
    }

    /// The document as read with every stretch kept, even those that can
    /// hold no URL.
    fn read_keeping_all(src: &[u8]) -> Doc {
        let mut b = DocBuilder::new(src);
        Reader { alone: true, keep_idle: true, ..Reader::default() }.feed(&mut b, 0..src.len());
        b.finish()
    }

    /// What is extracted from `src` read as it is, and with every stretch
    /// kept.
    fn both(src: &[u8]) -> (Vec<Extracted>, Vec<Extracted>) {
        let sifter = Sifter::new(Options::default());
        let (mut fast, mut all) = (Vec::new(), Vec::new());
        crate::doc::extract_read(&sifter, &read(src), src, true, |u| fast.push(u));
        crate::doc::extract_read(&sifter, &read_keeping_all(src), src, true, |u| all.push(u));
        (fast, all)
    }

    #[test]
    fn stretches_that_can_hold_no_url_are_left_out() {
        let src = b"<p>plain words</p><p class=\"x\">see http://x.example/ now</p>\
            <a href=\"#top\">top</a><p>http&#58;//y.example/ &amp; more</p>\
            <script>var a = 1;</script><p>a &colon; b</p>";
        let doc = read(src);
        let text = String::from_utf8_lossy(&doc.text);
        for gone in ["plain", "var a"] {
            assert!(!text.contains(gone), "{gone} in {text:?}");
        }
        // A reference that may stand for the colon keeps its stretch; a
        // relative link is kept for the local-link check.
        for kept in ["see http://x.example/ now", "http://y.example/ & more", "a : b", "#top"] {
            assert!(text.contains(kept), "{kept} not in {text:?}");
        }
        assert!(read_keeping_all(src).text.len() > doc.text.len() + 20);
        let (fast, all) = both(src);
        assert_eq!(fast, all);
        let got: Vec<(&[u8], u64)> = fast.iter().map(|u| (&u.url[..], u.start.offset)).collect();
        assert_eq!(
            got,
            [
                (&b"http://x.example/"[..], at(src, "http://x")),
                (&b"http://y.example/"[..], at(src, "http&#58;//y"))
            ]
        );
    }

    #[test]
    fn leaving_out_idle_stretches_changes_nothing() {
        use proptest::prelude::*;
        let pieces = vec![
            "<p>",
            "</p>",
            "<a href=\"",
            "<a href='",
            "\">",
            "'>",
            "</a>",
            "<code>",
            "</code>",
            "<pre>",
            "</pre>",
            "<!--",
            "-->",
            "<script>",
            "</script>",
            "<title>",
            "</title>",
            "<br/>",
            "<![CDATA[",
            "]]>",
            "<",
            ">",
            "\"",
            "'",
            "=",
            " ",
            "\n",
            "\n\n",
            "word",
            "http://a.example/",
            "x.example/p",
            ":",
            "&#58;",
            "&colon;",
            "&amp;",
            "&lt;",
            "&",
            "<URL:",
            "mailto:u@h.example",
            "/",
            "-",
            "#top",
            "&#x3A;",
            "\t",
        ];
        let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
            cases: 2000,
            ..Default::default()
        });
        let strategy = proptest::collection::vec(proptest::sample::select(pieces), 0..60);
        runner
            .run(&strategy, |parts| {
                let src = parts.concat();
                let (fast, all) = both(src.as_bytes());
                prop_assert_eq!(fast, all, "{:?}", src);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn hostile_input_stays_linear() {
        // Each of these would be quadratic if a failed search were
        // repeated from every `<`.
        let n = 200_000;
        for unit in [&b"<a title=\"x "[..], b"<!--", b"<script></x>", b"<a ", b"<p a='"] {
            let src = unit.repeat(n / unit.len());
            let t = std::time::Instant::now();
            let _ = read(&src);
            assert!(t.elapsed().as_secs_f64() < 2.0, "{}", String::from_utf8_lossy(unit));
        }
    }
}
