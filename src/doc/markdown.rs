//! The Markdown reader: link destinations as whole links, text with
//! backslash escapes and entities undone, code as code, inline HTML and
//! HTML blocks through the HTML reader.
//!
//! Parsing is `pulldown-cmark`'s, with its offset iterator: CommonMark's
//! rules for what is a link, a code span or an emphasis marker (delimiter
//! runs, link reference definitions, lazy continuation lines, nested
//! containers) take a full parser to get right, and a hand-written
//! approximation would misread exactly the cases that matter here (a `)`
//! in a destination, a `_` inside a URL, a fence inside a list). The
//! parser gives each event its range in the file; this reader takes the
//! bytes from the file itself and decodes them, so every decoded byte
//! keeps the place it came from. Bare URLs in text are the scanner's.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use super::html::{self, Out, Refs};
use super::{Doc, DocBuilder, Role};
use crate::scan::Kind;

/// Reads a Markdown file.
pub(super) fn read(src: &[u8]) -> Doc {
    let text = as_str(src);
    let parser = Parser::new_ext(&text, options());
    let mut defs: Vec<(Range<usize>, String)> = parser
        .reference_definitions()
        .iter()
        .map(|(_, d)| (d.span.clone(), d.dest.to_string()))
        .collect();
    defs.sort_by_key(|d| d.0.start);
    let mut md = Md {
        b: DocBuilder::new(src),
        html: html::Reader::default(),
        run: None,
        html_run: None,
        code_block: None,
        links: Vec::new(),
        scratch: Vec::new(),
    };
    let mut defs = defs.into_iter().peekable();
    let mut events = parser.into_offset_iter();
    let mut inner = Vec::new();
    while let Some((ev, range)) = events.next() {
        while let Some((span, dest)) = defs.next_if(|d| d.0.start <= range.start) {
            md.definition(span, &dest);
        }
        let Event::Start(
            Tag::Link { link_type, dest_url, .. } | Tag::Image { link_type, dest_url, .. },
        ) = &ev
        else {
            md.event(ev, range);
            continue;
        };
        if !md.links.is_empty() {
            md.event(ev, range);
            continue;
        }
        // An outermost link: look at its text first, to know whether it
        // only repeats the destination (`[http://x](http://x)`).
        inner.clear();
        let mut depth = 0u32;
        let mut end = None;
        for (e, r) in events.by_ref() {
            match &e {
                Event::Start(Tag::Link { .. } | Tag::Image { .. }) => depth += 1,
                Event::End(TagEnd::Link | TagEnd::Image) if depth == 0 => {
                    end = Some((e, r));
                    break;
                }
                Event::End(TagEnd::Link | TagEnd::Image) => depth -= 1,
                _ => {}
            }
            inner.push((e, r));
        }
        // An autolink's text is its destination, given as the link; an
        // email autolink's is text (it has no scheme to be a link by).
        let repeat = match link_type {
            LinkType::Autolink => true,
            LinkType::Email => false,
            _ => repeats(&inner, dest_url),
        };
        md.event(ev, range);
        for (e, r) in inner.drain(..) {
            if repeat {
                md.skip(r);
            } else {
                md.event(e, r);
            }
        }
        if let Some((e, r)) = end {
            md.event(e, r);
        }
    }
    md.flush();
    for (span, dest) in defs {
        md.definition(span, &dest);
    }
    md.b.finish()
}

/// The extensions a README is written with (GitHub's).
pub(super) fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
}

/// `src` as a `str` for the parser, byte for byte: each byte of invalid
/// UTF-8 becomes one control character, so every offset is the file's.
/// (The text itself is always taken from the file.)
pub(super) fn as_str(src: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(src) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            let mut out = String::with_capacity(src.len());
            for chunk in src.utf8_chunks() {
                out.push_str(chunk.valid());
                out.extend(chunk.invalid().iter().map(|_| '\u{1A}'));
            }
            Cow::Owned(out)
        }
    }
}

/// Whether a link's text is only its destination again.
fn repeats(inner: &[(Event, Range<usize>)], dest: &str) -> bool {
    let mut rest = dest.as_bytes();
    for (e, _) in inner {
        let Event::Text(t) = e else { return false };
        match rest.strip_prefix(t.as_bytes()) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    !inner.is_empty() && rest.is_empty()
}

/// A link or image being read.
struct Link<'a> {
    link_type: LinkType,
    dest: CowStr<'a>,
    /// Its whole range: `[text](dest "title")`.
    range: Range<usize>,
    /// The end of its text read so far: the destination is after it.
    inner_end: usize,
}

/// The state of the walk over the parser's events.
struct Md<'s, 'a> {
    b: DocBuilder<'s>,
    html: html::Reader,
    /// Text events that follow each other in the file (the parser splits
    /// text at escapes and entities), decoded together when done.
    run: Option<Range<usize>>,
    /// Lines of an HTML block that follow each other in the file.
    html_run: Option<Range<usize>>,
    /// Where the code block being read starts in the text.
    code_block: Option<usize>,
    links: Vec<Link<'a>>,
    scratch: Vec<u8>,
}

impl<'a> Md<'_, 'a> {
    fn src(&self) -> &[u8] {
        self.b.src()
    }

    /// Appends the pending text and HTML.
    fn flush(&mut self) {
        self.flush_text();
        self.flush_html();
    }

    fn flush_text(&mut self) {
        if let Some(run) = self.run.take() {
            let s = self.b.len();
            let src = self.b.src();
            decode(&mut self.b, src, run);
            if self.html.in_code() {
                self.b.mark(s, Role::Code);
            }
        }
    }

    fn flush_html(&mut self) {
        if let Some(run) = self.html_run.take() {
            self.html.feed(&mut self.b, run);
        }
    }

    /// Passes over an event of a link's text that is not read.
    fn skip(&mut self, r: Range<usize>) {
        if let Some(f) = self.links.last_mut() {
            f.inner_end = f.inner_end.max(r.end);
        }
    }

    fn event(&mut self, ev: Event<'a>, r: Range<usize>) {
        if !matches!(ev, Event::End(TagEnd::Link | TagEnd::Image)) {
            self.skip(r.clone());
        }
        match ev {
            Event::Text(_) if self.code_block.is_some() => self.b.copy(r),
            // An autolink's text is its destination, appended at its end
            // (an image's alt text may hold one).
            Event::Text(_)
                if self.links.last().is_some_and(|l| l.link_type == LinkType::Autolink) => {}
            Event::Text(_) => {
                if let Some(run) = &mut self.run {
                    let src = self.b.src();
                    // Only an escape's backslash is left between the
                    // parts of one stretch of text.
                    if r.start == run.end || (r.start == run.end + 1 && src[run.end] == b'\\') {
                        run.end = r.end;
                        return;
                    }
                }
                self.flush();
                self.run = Some(r);
            }
            Event::Code(_) => {
                self.flush();
                let s = &self.src()[r.clone()];
                let ticks = s.iter().take_while(|&&b| b == b'`').count();
                let inner = r.start + ticks..r.end.saturating_sub(ticks).max(r.start + ticks);
                self.b.brk(r.start);
                let at = self.b.len();
                self.b.copy(inner);
                self.b.mark(at, Role::Code);
                self.b.brk(r.end);
            }
            Event::Html(_) => {
                self.flush_text();
                match &mut self.html_run {
                    Some(h) if h.end == r.start => h.end = r.end,
                    _ => {
                        self.flush_html();
                        self.html_run = Some(r);
                    }
                }
            }
            Event::InlineHtml(_) => {
                self.flush();
                self.html.feed(&mut self.b, r);
            }
            Event::SoftBreak => {
                // Keep the line break: a `<URL:...>` wrapper broken across
                // lines is rejoined by the scanner as in plain text.
                self.flush();
                let src = self.b.src();
                let nl = src[r.clone()].iter().position(|&b| b == b'\n' || b == b'\r');
                self.b.copy(nl.map_or(r.end, |k| r.start + k)..r.end);
            }
            Event::HardBreak => {
                self.flush();
                let src = self.b.src();
                let nl = src[r.clone()].iter().position(|&b| b == b'\n' || b == b'\r');
                if let Some(k) = nl {
                    self.b.copy(r.start + k..r.end);
                } else {
                    self.b.brk(r.start);
                }
            }
            Event::Start(Tag::CodeBlock(_)) => {
                self.flush();
                self.b.brk(r.start);
                self.code_block = Some(self.b.len());
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(s) = self.code_block.take() {
                    self.b.mark(s, Role::Code);
                }
                self.b.brk(r.end);
            }
            Event::Start(
                Tag::Link { link_type, dest_url, .. } | Tag::Image { link_type, dest_url, .. },
            ) => {
                self.flush();
                let text = r.start + 1 + usize::from(self.src()[r.start] == b'!');
                self.links.push(Link { link_type, dest: dest_url, range: r, inner_end: text });
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                self.flush();
                if let Some(link) = self.links.pop() {
                    self.destination(&link);
                }
                self.skip(r);
            }
            Event::Start(
                Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript,
            )
            | Event::End(
                TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Superscript
                | TagEnd::Subscript,
            ) => {
                // Emphasis markers are not text: what they surround reads
                // on with the text around it.
            }
            _ => {
                // The start or end of a block, a rule, a task marker, a
                // footnote reference: what follows is another stretch.
                self.flush();
                self.b.brk(r.start);
            }
        }
    }

    /// Appends the destination of `link` when the link gives it here (an
    /// inline link or image, an autolink; a reference-style link's is
    /// its definition's).
    fn destination(&mut self, link: &Link) {
        let src = self.src();
        let r = &link.range;
        match link.link_type {
            LinkType::Inline => {
                let from = link.inner_end.min(r.end);
                // `](` is a few bytes on: a `]` search beats building a
                // substring searcher per link.
                let hay = &src[from..r.end];
                let close = memchr::memchr_iter(b']', hay).find(|&k| hay.get(k + 1) == Some(&b'('));
                let Some(k) = close else { return };
                let at = skip_space(src, from + k + 2, r.end);
                let dest = dest_at(src, at, r.end);
                let after = dest.end + usize::from(src.get(dest.end) == Some(&b'>'));
                self.dest(dest, &link.dest);
                // The title, as text: `"..."` up to the closing `)`.
                self.title(after..r.end.saturating_sub(1).max(after));
            }
            LinkType::Autolink if r.len() >= 2 => {
                // No escapes or entities in an autolink: its bytes are the
                // URL. `<URL:...>` is RFC 1738's wrapper.
                let inner = r.start + 1..r.end - 1;
                let wrapped =
                    src[inner.clone()].get(..4).is_some_and(|p| p.eq_ignore_ascii_case(b"URL:"));
                if wrapped {
                    self.b.link_copy(inner.start + 4..inner.end, Kind::Wrapped);
                } else {
                    self.b.link_copy(inner, Kind::Link);
                }
            }
            _ => {}
        }
    }

    /// Appends the destination whose bytes are `raw` as a link, when it
    /// decodes to `want` (what the parser read): else its place is not
    /// known for sure, and it is left out rather than misplaced.
    fn dest(&mut self, raw: Range<usize>, want: &str) {
        let src = self.b.src();
        // Most destinations have nothing to decode: compared and copied
        // as they are, not decoded twice.
        let plain = memchr::memchr2(b'\\', b'&', &src[raw.clone()]).is_none();
        let decoded = if plain {
            &src[raw.clone()]
        } else {
            self.scratch.clear();
            decode(&mut self.scratch, src, raw.clone());
            &self.scratch[..]
        };
        if decoded != want.as_bytes() {
            return;
        }
        // `[Cow](alloc::borrow::Cow)` is rustdoc's intra-doc link, a path
        // (as C++'s and Perl's `a::b`), not a URL with scheme `alloc`.
        if super::scheme_len(decoded).is_some_and(|n| decoded.get(n + 1) == Some(&b':')) {
            return;
        }
        self.b.brk(raw.start);
        let s = self.b.len();
        if plain {
            self.b.copy(raw.clone());
        } else {
            decode(&mut self.b, src, raw.clone());
        }
        self.b.mark(s, Role::Link(Kind::Link));
        self.b.brk(raw.end);
    }

    /// Appends a link reference definition (`[label]: dest "title"`,
    /// `span` in the file): its destination as a link, its title as text.
    fn definition(&mut self, span: Range<usize>, want: &str) {
        self.flush();
        let src = self.b.src();
        let end = span.end.min(src.len());
        let Some(open) = memchr::memchr(b'[', &src[span.start..end]).map(|k| span.start + k) else {
            return;
        };
        let mut j = open + 1;
        while j < end && src[j] != b']' {
            j += if src[j] == b'\\' { 2 } else { 1 };
        }
        if j + 1 >= end || src[j + 1] != b':' {
            return;
        }
        let at = skip_space(src, j + 2, end);
        let dest = dest_at(src, at, end);
        let after = (dest.end + usize::from(src.get(dest.end) == Some(&b'>'))).min(end);
        self.dest(dest, want);
        self.title(after..end);
    }

    /// Appends a link's title (`"..."` with the space around it) as text.
    fn title(&mut self, range: Range<usize>) {
        let src = self.b.src();
        if src[range.clone()].trim_ascii().is_empty() {
            return;
        }
        self.b.brk(range.start);
        decode(&mut self.b, src, range.clone());
        self.b.brk(range.end);
    }
}

/// Skips spaces and tabs, and at most one line break with the next
/// line's indentation and block-quote markers.
fn skip_space(src: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && matches!(src[i], b' ' | b'\t') {
        i += 1;
    }
    if i < end && matches!(src[i], b'\n' | b'\r') {
        i += if src[i..end].starts_with(b"\r\n") { 2 } else { 1 };
        while i < end && matches!(src[i], b' ' | b'\t' | b'>') {
            i += 1;
        }
    }
    i
}

/// The bytes of the link destination at `i`: inside `<...>`, or up to
/// white space or an unbalanced `)`.
fn dest_at(src: &[u8], i: usize, end: usize) -> Range<usize> {
    let escaped = |j: usize| src[j] == b'\\' && j + 1 < end && src[j + 1].is_ascii_punctuation();
    if src.get(i) == Some(&b'<') && i < end {
        let mut j = i + 1;
        while j < end && !matches!(src[j], b'>' | b'\n' | b'<') {
            j += if escaped(j) { 2 } else { 1 };
        }
        return i + 1..j.min(end);
    }
    let mut depth = 0u32;
    let mut j = i;
    while j < end {
        match src[j] {
            _ if escaped(j) => {
                j += 2;
                continue;
            }
            b if b.is_ascii_whitespace() || b.is_ascii_control() => break,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            _ => {}
        }
        j += 1;
    }
    i..j.min(end)
}

/// Appends Markdown text `src[range]` with backslash escapes and entity
/// references undone; each decoded byte traces back to the `\` or `&`.
fn decode(out: &mut impl Out, src: &[u8], range: Range<usize>) {
    let mut i = range.start;
    let mut from = i;
    while let Some(k) = memchr::memchr2(b'\\', b'&', &src[i..range.end]) {
        let at = i + k;
        if src[at] == b'\\' {
            match src.get(at + 1) {
                Some(&p) if at + 1 < range.end && p.is_ascii_punctuation() => {
                    out.copy_from(src, from..at);
                    out.put(&[p], at);
                    i = at + 2;
                    from = i;
                }
                _ => i = at + 1,
            }
            continue;
        }
        match html::char_ref(src, at, range.end, Refs::Markdown) {
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

#[cfg(test)]
mod tests;
