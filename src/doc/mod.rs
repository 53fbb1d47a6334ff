//! Documents as documents: a reader per format turns a file into the text
//! a person reads, with a map from every byte of that text back to the
//! file, so the scanner stays format-blind and every position stays exact.
//!
//! Read as plain prose, a documentation tree is mostly noise: a JSON
//! string's `\"` and `\n` escapes end up inside URLs, HTML's `&amp;` and
//! `&gt;` too, Markdown's `\(` escapes are reported as unsafe backslashes,
//! code examples are linted as if they were links, and POD's `L<...>`
//! looks like a `<scheme:...>` wrapper. A reader undoes what its format
//! does to text (escapes, entities, markup) and says what each stretch of
//! the result is ([`Role`]): prose to scan, code to scan but not to lint,
//! or a link the markup gives whole.
//!
//! The map is the same kind the mail reader keeps for quoted-printable
//! (the private `posmap` module): every output byte traces back to one input byte,
//! so a URL's line and column are those of its first byte in the file,
//! through entities, escapes and markup alike.
//!
//! ```
//! use urlsift::doc::{Format, extract_doc};
//! use urlsift::extract::{Options, Sifter};
//!
//! let sifter = Sifter::new(Options::default());
//! let html = b"<p>See <a href=\"http://example.org/?a=1&amp;b=2\">the page</a>.</p>";
//! let mut urls = Vec::new();
//! extract_doc(&sifter, Format::Html, html, true, |u| urls.push(u));
//! assert_eq!(urls[0].url, b"http://example.org/?a=1&b=2");
//! assert_eq!((urls[0].start.line, urls[0].start.column), (1, 17));
//! ```

use std::ops::Range;
use std::path::Path;

use crate::extract::{Extracted, Sifter};
use crate::posmap::{MapBuilder, PosMap, positions_of, relocate};
use crate::scan::{Found, Kind};

pub(crate) mod anchors;
mod html;
mod man;
mod markdown;
mod notebook;
mod pod;
mod rst;
mod strings;

/// The formats urlsift reads as documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Plain text: scanned as it is (mail and news are detected by content).
    Text,
    /// Markdown and CommonMark.
    Markdown,
    /// HTML and XHTML.
    Html,
    /// JSON: string escapes undone inside strings.
    Json,
    /// JavaScript and TypeScript: string escapes undone inside strings.
    Script,
    /// TOML, YAML and INI-like configuration: escapes undone in quoted
    /// strings.
    Config,
    /// Source code of other languages (Rust, Python, C, Go, shell, ...):
    /// escapes undone inside string literals.
    Source,
    /// reStructuredText.
    Rst,
    /// Perl's POD (`.pod`, and the POD blocks of `.pm` and `.pl` files).
    Pod,
    /// troff and man(7)/mdoc(7) source.
    Troff,
    /// A man page as `man` renders it to text (`⟨...⟩` around URLs, lines
    /// hyphenated with U+2010).
    Man,
    /// A Jupyter notebook: the cells' source, each read as its cell type.
    Notebook,
}

impl Format {
    /// Every format.
    pub const ALL: &'static [Format] = &[
        Format::Text,
        Format::Markdown,
        Format::Html,
        Format::Json,
        Format::Script,
        Format::Config,
        Format::Source,
        Format::Rst,
        Format::Pod,
        Format::Troff,
        Format::Man,
        Format::Notebook,
    ];

    /// The name used on the command line and in urlsift.toml.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Markdown => "markdown",
            Format::Html => "html",
            Format::Json => "json",
            Format::Script => "script",
            Format::Config => "config",
            Format::Source => "source",
            Format::Rst => "rst",
            Format::Pod => "pod",
            Format::Troff => "troff",
            Format::Man => "man",
            Format::Notebook => "notebook",
        }
    }

    /// Looks a format up by its name (see [`Format::as_str`]).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.as_str() == name)
    }

    /// The format a file extension names (without the dot, any case), if
    /// it names one.
    pub fn from_extension(ext: &str) -> Option<Format> {
        let ext = ext.to_ascii_lowercase();
        Some(match ext.as_str() {
            "md" | "markdown" | "mdown" | "mkd" | "mkdn" | "mdwn" | "mdx" => Format::Markdown,
            "html" | "htm" | "xhtml" | "shtml" => Format::Html,
            "json" | "jsonl" | "geojson" | "webmanifest" => Format::Json,
            "ipynb" => Format::Notebook,
            "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" => Format::Script,
            "toml" | "yaml" | "yml" | "ini" | "cfg" => Format::Config,
            "rs" | "py" | "pyi" | "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "go"
            | "java" | "kt" | "kts" | "scala" | "swift" | "rb" | "php" | "cs" | "sh" | "bash"
            | "zsh" | "lua" | "r" | "dart" | "m" | "mm" | "el" | "vim" | "tcl" | "hs" => {
                Format::Source
            }
            "rst" | "rest" => Format::Rst,
            "pod" | "pm" | "pl" => Format::Pod,
            "man" | "mdoc" | "roff" | "troff" | "nroff" | "ms" | "me" => Format::Troff,
            // man(1) sections: `ls.1`, `printf.3`, `perlfunc.1p`, `ssl.3ssl`.
            _ if ext.as_bytes()[..1].iter().all(|b| (b'1'..=b'9').contains(b))
                && !ext.is_empty()
                && ext.len() <= 6
                && ext.bytes().skip(1).all(|b| b.is_ascii_alphabetic()) =>
            {
                Format::Troff
            }
            _ => return None,
        })
    }

    /// The format of the file at `path`, from its extension, else from its
    /// first bytes (`head`): HTML by its doctype or `<html>`, a rendered
    /// man page by its title line (also under a troff extension).
    /// [`Format::Text`] when nothing says otherwise.
    pub fn of(path: Option<&Path>, head: &[u8], overrides: &[(String, Format)]) -> Format {
        if let Some(ext) = path.and_then(Path::extension).and_then(|e| e.to_str()) {
            if let Some((_, f)) = overrides.iter().find(|(e, _)| e.eq_ignore_ascii_case(ext)) {
                return *f;
            }
            // A page `man` rendered, saved under the source's name
            // (`ls.1`, `foo.man`): its title line says so, which troff
            // source (`.TH`, `.\"`) never starts with.
            if let Some(f) = Format::from_extension(ext) {
                if f == Format::Troff && man::is_rendered_man(head) {
                    return Format::Man;
                }
                return f;
            }
            // Sphinx publishes its sources as `name.rst.txt` (MyST's as
            // `name.md.txt`): the inner extension says the format.
            let inner = path.and_then(Path::file_stem).map(Path::new).and_then(Path::extension);
            let inner = inner.and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
            match inner.as_deref() {
                Some("rst") if ext.eq_ignore_ascii_case("txt") => return Format::Rst,
                Some("md") if ext.eq_ignore_ascii_case("txt") => return Format::Markdown,
                _ => {}
            }
        }
        Format::sniff(head).unwrap_or(Format::Text)
    }

    /// The format `head` (the first bytes of an input) shows, when it
    /// shows one: HTML, or a man page rendered to text.
    pub fn sniff(head: &[u8]) -> Option<Format> {
        let start = head.trim_ascii_start();
        let lower: Vec<u8> = start.iter().take(64).map(u8::to_ascii_lowercase).collect();
        if lower.starts_with(b"<!doctype html") || lower.starts_with(b"<html") {
            return Some(Format::Html);
        }
        man::is_rendered_man(head).then_some(Format::Man)
    }

    /// Whether this format is read by a document reader (else it is
    /// scanned as a stream, as plain text or mail).
    pub fn is_document(self) -> bool {
        self != Format::Text
    }
}

/// What a stretch of a document's text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Text a person reads: scanned and linted.
    Prose,
    /// Code: scanned, but its URLs are examples (`in_code`), linted only
    /// when asked.
    Code,
    /// The whole of one link, as the markup gives it (a Markdown link
    /// destination, an `href`): reported as a URL of this kind when it
    /// has a scheme, never cut by the scanner's rules for prose.
    Link(Kind),
}

/// A stretch of a [`Doc`]'s text and its role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Where it is in the text.
    pub range: Range<usize>,
    /// What it is.
    pub role: Role,
}

/// A document read for scanning: its text, where each byte of it came
/// from, and what each stretch of it is.
#[derive(Clone, Debug, Default)]
pub struct Doc {
    /// The text to scan. Separate stretches of the file are kept apart by
    /// a blank line, which no URL, wrapped or bare, runs across.
    pub text: Vec<u8>,
    /// Maps every byte of `text` to the byte of the file it came from.
    pub(crate) map: PosMap,
    /// The stretches that are code or links, sorted and disjoint; the
    /// rest of the text is prose.
    pub regions: Vec<Region>,
}

impl Doc {
    /// The file offset that text byte `o` came from.
    pub fn source_of(&self, o: usize) -> usize {
        self.map.map(o)
    }

    /// The role of text byte `o`.
    pub fn role_at(&self, o: usize) -> Role {
        let i = self.regions.partition_point(|r| r.range.end <= o);
        match self.regions.get(i) {
            Some(r) if r.range.start <= o => r.role,
            _ => Role::Prose,
        }
    }
}

/// Builds a [`Doc`] as a reader walks its file: text and map in step.
#[derive(Debug)]
pub struct DocBuilder<'a> {
    src: &'a [u8],
    text: Vec<u8>,
    map: MapBuilder,
    regions: Vec<Region>,
}

impl<'a> DocBuilder<'a> {
    /// A builder for a document whose file bytes are `src`.
    pub fn new(src: &'a [u8]) -> Self {
        DocBuilder {
            src,
            text: Vec::with_capacity(src.len()),
            map: MapBuilder::new(),
            regions: Vec::new(),
        }
    }

    /// The file's bytes.
    pub fn src(&self) -> &'a [u8] {
        self.src
    }

    /// The length of the text so far: where the next byte goes.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether no text was added yet.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Whether the text so far ends a stretch (is empty or ends in the
    /// blank line of a break): text appended now starts a stretch.
    pub fn at_break(&self) -> bool {
        matches!(self.text.as_slice(), [] | [.., b'\n', b'\n'])
    }

    /// Appends the file's bytes `range` as they are.
    pub fn copy(&mut self, range: Range<usize>) {
        self.map.copy(range.start, range.len());
        self.text.extend_from_slice(&self.src[range]);
    }

    /// Appends `bytes`, decoded from the file's bytes at `at` (an entity,
    /// an escape): each traces back to `at`, the first byte of what was
    /// decoded.
    pub fn decoded(&mut self, bytes: &[u8], at: usize) {
        self.map.point(at, bytes.len());
        self.text.extend_from_slice(bytes);
    }

    /// Ends the stretch of text: what follows is another stretch of the
    /// file, and no URL runs across (a blank line ends even a wrapper).
    /// `at` is the file offset the break is charged to (any: no URL holds
    /// it).
    pub fn brk(&mut self, at: usize) {
        let have = match self.text.as_slice() {
            [] | [.., b'\n', b'\n'] => return,
            [.., b'\n'] => 1,
            _ => 0,
        };
        self.decoded(&b"\n\n"[have..], at.min(self.src.len().saturating_sub(1)));
    }

    /// Marks the text from `start` (a [`DocBuilder::len`] taken before
    /// adding it) to here as `role`. Regions must be marked in order and
    /// not overlap; an empty one is ignored.
    pub fn mark(&mut self, start: usize, role: Role) {
        let end = self.text.len();
        if start >= end || role == Role::Prose {
            return;
        }
        debug_assert!(self.regions.last().is_none_or(|r| r.range.end <= start), "regions overlap");
        self.regions.push(Region { range: start..end, role });
    }

    /// Appends the file's bytes `range` as one link of kind `kind`: a
    /// stretch of its own, reported whole when it has a scheme.
    pub fn link_copy(&mut self, range: Range<usize>, kind: Kind) {
        self.brk(range.start);
        let start = self.len();
        self.copy(range.clone());
        self.mark(start, Role::Link(kind));
        self.brk(range.end);
    }

    /// Appends another document's text and regions, read from bytes that
    /// were themselves decoded from this file: `to_src` maps an offset of
    /// the bytes `doc` was read from to this file's offset. So readers
    /// compose: a notebook cell's Markdown, decoded from JSON strings, or
    /// the JSON inside a JavaScript string, keeps every byte traced to
    /// the file.
    pub fn append_mapped(&mut self, doc: &Doc, to_src: impl Fn(usize) -> usize) {
        let base = self.len();
        // Byte by byte: a run of `doc` may straddle runs of the map below
        // it; `MapBuilder::copy` merges what stays contiguous.
        for o in 0..doc.text.len() {
            self.map.copy(to_src(doc.map.map(o)), 1);
        }
        self.text.extend_from_slice(&doc.text);
        for r in &doc.regions {
            let range = base + r.range.start..base + r.range.end;
            debug_assert!(self.regions.last().is_none_or(|p| p.range.end <= range.start));
            self.regions.push(Region { range, role: r.role });
        }
    }

    /// Appends `doc`, read from the text of `under` (a document decoded
    /// from this file): [`DocBuilder::append_mapped`] with `under`'s map,
    /// composed run by run, so the cost is in the runs, not the bytes
    /// (a search index is one string of megabytes).
    pub fn append_over(&mut self, doc: &Doc, under: &Doc) {
        self.append_runs(doc, Some(under));
    }

    /// Appends `doc`, read from `under`'s text, or (without `under`)
    /// itself read from this file.
    fn append_runs(&mut self, doc: &Doc, under: Option<&Doc>) {
        let base = self.len();
        let Some(under) = under else {
            let runs: Vec<(usize, usize, bool)> = doc.map.runs_iter().collect();
            for (k, &(out, src, linear)) in runs.iter().enumerate() {
                let end = runs.get(k + 1).map_or(doc.text.len(), |r| r.0);
                if linear {
                    self.map.copy(src, end - out);
                } else {
                    self.map.point(src, end - out);
                }
            }
            self.text.extend_from_slice(&doc.text);
            self.regions.extend(
                doc.regions.iter().map(|r| Region {
                    range: base + r.range.start..base + r.range.end,
                    role: r.role,
                }),
            );
            return;
        };
        let outer: Vec<(usize, usize, bool)> = doc.map.runs_iter().collect();
        let inner: Vec<(usize, usize, bool)> = under.map.runs_iter().collect();
        // The run of `under` holding text offset `at`: readers read
        // forward, so a cursor moving ahead mostly finds it in a step.
        let mut cursor = 0;
        let mut locate = |at: usize| {
            if inner.get(cursor).is_none_or(|r| r.0 > at) {
                cursor = inner.partition_point(|r| r.0 <= at).saturating_sub(1);
            }
            while inner.get(cursor + 1).is_some_and(|r| r.0 <= at) {
                cursor += 1;
            }
            cursor
        };
        for (k, &(out, src, linear)) in outer.iter().enumerate() {
            let end = outer.get(k + 1).map_or(doc.text.len(), |r| r.0);
            if !linear {
                let (i_out, i_src, i_linear) = inner[locate(src)];
                self.map.point(if i_linear { i_src + (src - i_out) } else { i_src }, end - out);
                continue;
            }
            // `out..end` came from `src..src + len` of `under`'s text:
            // walk `under`'s runs over that stretch.
            let (mut at, stop) = (src, src + (end - out));
            let mut i = locate(at);
            while at < stop {
                let (i_out, i_src, i_linear) = inner[i];
                let i_end = inner.get(i + 1).map_or(under.text.len(), |r| r.0).min(stop);
                let n = i_end - at;
                if i_linear {
                    self.map.copy(i_src + (at - i_out), n);
                } else {
                    self.map.point(i_src, n);
                }
                at = i_end;
                i += 1;
            }
        }
        self.text.extend_from_slice(&doc.text);
        for r in &doc.regions {
            let range = base + r.range.start..base + r.range.end;
            debug_assert!(self.regions.last().is_none_or(|p| p.range.end <= range.start));
            self.regions.push(Region { range, role: r.role });
        }
    }

    /// The finished document.
    pub fn finish(self) -> Doc {
        debug_assert_eq!(self.map.produced(), self.text.len());
        Doc { text: self.text, map: self.map.finish(), regions: self.regions }
    }
}

/// Reads `src` as a document of format `format`.
pub fn read(format: Format, src: &[u8]) -> Doc {
    match format {
        Format::Markdown => markdown::read(src),
        Format::Html => html::read(src),
        Format::Text => {
            let mut b = DocBuilder::new(src);
            b.copy(0..src.len());
            b.finish()
        }
        Format::Json => strings::read_json(src),
        Format::Script => strings::read_script(src),
        Format::Config => strings::read_config(src),
        Format::Source => strings::read_source(src),
        Format::Notebook => notebook::read(src),
        Format::Pod => pod::read(src),
        Format::Rst => rst::read(src),
        Format::Troff => man::read_troff(src),
        Format::Man => man::read_rendered(src),
    }
}

/// The length of the scheme that `text` opens with (`http` in
/// `http://x`), if it opens with one: a letter, then letters, digits,
/// `+`, `-` and `.`, then `:`; one letter alone is a drive (`C:`).
pub(crate) fn scheme_len(text: &[u8]) -> Option<usize> {
    let n = text
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (n >= 2 && text[0].is_ascii_alphabetic() && text[n] == b':').then_some(n)
}

/// Whether `bytes`, with character references decoded when `refs`, may
/// hold a URL: every form of URL the scanner knows has a `:`, and a
/// link is reported only with its scheme's. A reference may stand for
/// the colon (`&colon;`, `&#58;`, `&#x3A;`): one that may is kept.
pub(crate) fn may_hold_url(bytes: &[u8], refs: bool) -> bool {
    if !refs {
        return memchr::memchr(b':', bytes).is_some();
    }
    memchr::memchr2_iter(b':', b'&', bytes)
        .any(|i| bytes[i] == b':' || may_be_colon_ref(&bytes[i..]))
}

/// Whether the `&` that `s` starts with may be a reference to `:`
/// (`&colon;`, `&#58;`, `&#x3A;`).
pub(crate) fn may_be_colon_ref(s: &[u8]) -> bool {
    matches!(s.get(1), Some(b'#' | b'c'))
}

/// Reads `src` as a document of format `format` and hands every URL to
/// `sink` in order, placed in `src` (file offsets, lines and columns).
/// URLs in code are handed over with `in_code` set when `keep_code`, and
/// dropped otherwise.
pub fn extract_doc(
    sifter: &Sifter,
    format: Format,
    src: &[u8],
    keep_code: bool,
    sink: impl FnMut(Extracted),
) -> u64 {
    extract_read(sifter, &read(format, src), src, keep_code, sink)
}

/// [`extract_doc`] of the file at `path` (`None`: standard input, which
/// has no directory): with [`Options::local_links`], its relative links
/// and `file:` URLs are resolved from the file's directory and checked
/// (see [`crate::links`]).
///
/// [`Options::local_links`]: crate::extract::Options::local_links
pub fn extract_doc_at(
    sifter: &Sifter,
    format: Format,
    src: &[u8],
    path: Option<&Path>,
    keep_code: bool,
    sink: impl FnMut(Extracted),
) -> u64 {
    let local = path.map(|p| (format, p));
    extract_read_at(sifter, &read(format, src), src, local, keep_code, sink)
}

/// [`extract_doc`] of `doc`, read from `src`.
fn extract_read(
    sifter: &Sifter,
    doc: &Doc,
    src: &[u8],
    keep_code: bool,
    sink: impl FnMut(Extracted),
) -> u64 {
    extract_read_at(sifter, doc, src, None, keep_code, sink)
}

/// [`extract_read`], with the local links of the file `local` names (its
/// format and path) checked.
fn extract_read_at(
    sifter: &Sifter,
    doc: &Doc,
    src: &[u8],
    local: Option<(Format, &Path)>,
    keep_code: bool,
    mut sink: impl FnMut(Extracted),
) -> u64 {
    let text = &doc.text;
    let links = |found: &mut Vec<Found>| {
        // The markup gives links whole: what the scanner read inside one
        // is dropped, and the link taken as it is.
        found.retain(|f| !matches!(doc.role_at(f.start()), Role::Link(_)));
        for r in &doc.regions {
            let Role::Link(kind) = r.role else { continue };
            let s = &text[r.range.clone()];
            let lead = s.len() - s.trim_ascii_start().len();
            let trail = s.len() - s.trim_ascii_end().len();
            let (start, end) = (r.range.start + lead, r.range.end - trail);
            if start >= end {
                continue;
            }
            let link = &text[start..end];
            let Some(n) = scheme_len(link) else { continue };
            // A generator that links every URL-looking word turns "URLs
            // start with http://" into a link to `http://`: a mention of
            // the scheme, not a link anyone meant.
            if !matches!(&link[n + 1..], b"" | b"/" | b"//") {
                let mut f = Found::single(kind, text, start, end);
                f.trigger = start;
                found.push(f);
            }
        }
    };
    let mut urls = sifter.extract_edited(text, false, links);
    urls.retain_mut(|url| {
        url.in_code = doc.role_at(url.start.offset as usize) == Role::Code;
        !url.in_code || keep_code
    });
    if let Some((format, path)) = local {
        local_links(sifter, doc, src, format, path, &mut urls);
    }
    // Only the offsets reported get a line and column: the text offsets
    // of every place reported, mapped in one walk over the map, placed in
    // one walk over the file.
    let mut offsets = Vec::with_capacity(urls.len() * 2);
    for url in &urls {
        offsets.extend([url.start.offset as usize, url.end.offset as usize]);
        offsets.extend(url.pieces.iter().map(|p| p.1 as usize));
        for f in &url.findings {
            offsets.extend([f.start.offset as usize, f.end.offset as usize]);
            for (s, e) in &f.extra_spans {
                offsets.extend([s.offset as usize, e.offset as usize]);
            }
        }
    }
    offsets.sort_unstable();
    offsets.dedup();
    let places = positions_of(src, &doc.map.map_sorted(&offsets));
    let place = |o: usize| places[offsets.binary_search(&o).expect("every offset is placed")];
    for url in &mut urls {
        relocate(url, &|o| o, src, 0, &place);
    }
    // A reader may emit a stretch out of file order (a Markdown reference
    // definition read before the text that uses it): output is in file
    // order all the same, and the block markers are read in that order.
    urls.sort_by_key(|u| u.start.offset);
    let mut blocks = sifter.blocks_of(src);
    for url in &mut urls {
        if !url.findings.is_empty() {
            let (line, before) = line_and_before(src, url.start.offset as usize);
            sifter.silence(line, before, &mut url.findings);
            for silence in blocks(url.start.offset).into_iter().flatten() {
                url.findings.retain(|f| !silence.covers(f.diagnostic.code));
            }
        }
    }
    let n = urls.len() as u64;
    urls.into_iter().for_each(&mut sink);
    n
}

/// Whether the links of `format` may be relative links to files: those of
/// HTML, Markdown and reST (a POD `L<...>` names a module, a man page's
/// `.UR` a URL).
fn has_local_links(format: Format) -> bool {
    matches!(format, Format::Markdown | Format::Html | Format::Rst | Format::Notebook)
}

/// Checks the relative links and `file:` URLs of `doc` (the file `path`,
/// of `format`): a finding on a `file:` URL is added to it; a relative
/// link is added to `urls` when it has findings or links are listed, at
/// its text offsets (placed in the file with the URLs).
fn local_links(
    sifter: &Sifter,
    doc: &Doc,
    src: &[u8],
    format: Format,
    path: &Path,
    urls: &mut Vec<Extracted>,
) {
    use crate::diag::{Code, Diagnostic};
    use crate::escape::for_terminal;
    use crate::extract::Finding;
    use crate::links::{Hint, Local, Outcome};
    use crate::span::Position;

    let Some((resolver, check, list)) = sifter.local_links() else { return };
    if !has_local_links(format) {
        return;
    }
    let text = &doc.text;
    let document = resolver.document(path);
    for r in &doc.regions {
        if !matches!(r.role, Role::Link(_)) {
            continue;
        }
        let s = &text[r.range.clone()];
        let start = r.range.start + (s.len() - s.trim_ascii_start().len());
        let end = r.range.end - (s.len() - s.trim_ascii_end().len());
        if start >= end {
            continue;
        }
        let dest = &text[start..end];
        // A reST target ending in `_` names another target, not a URI.
        if format == Format::Rst && dest.ends_with(b"_") {
            continue;
        }
        let shown = |p: &Path| for_terminal(p.as_os_str().as_encoded_bytes()).into_owned();
        let quoted = for_terminal(dest);
        let (to, diag) = match resolver.check_in(&document, format, src, dest) {
            Outcome::NotLocal => continue,
            Outcome::Unresolved => (None, None),
            Outcome::Found(p) => (Some(p), None),
            Outcome::Missing(p, hint) => {
                let hint = hint.map(|h| match h {
                    Hint::Case(n) => format!(" (did you mean `{}`?)", for_terminal(n.as_bytes())),
                    Hint::Compressed(n) => {
                        format!(" (only `{}` is there)", for_terminal(n.as_bytes()))
                    }
                });
                let m = format!(
                    "`{quoted}` leads to {}, which does not exist{}",
                    shown(&p),
                    hint.unwrap_or_default()
                );
                (Some(p), Some((Code::LocalLinkMissing, m)))
            }
            Outcome::OutsideRoot(p) => {
                let m = format!("`{quoted}` climbs out of the root directory (to {})", shown(&p));
                (Some(p), Some((Code::LocalLinkMissing, m)))
            }
            Outcome::FragmentMissing(p, f) => {
                let m = format!(
                    "`{quoted}`: {} has no heading or anchor `{}`",
                    shown(&p),
                    for_terminal(f.as_bytes())
                );
                (Some(p), Some((Code::FragmentMissing, m)))
            }
        };
        let mut diags: Vec<Diagnostic> = diag
            .filter(|_| check)
            .map(|(code, m)| Diagnostic::new(code, 0, dest.len(), m))
            .into_iter()
            .collect();
        sifter.apply_severities(&mut diags);
        // Text offsets for now: placed in the file with the URLs.
        let at = |o: usize| Position { offset: o as u64, line: 0, column: 0 };
        let findings: Vec<Finding> = diags
            .into_iter()
            .map(|diagnostic| Finding {
                diagnostic,
                start: at(start),
                end: at(end - 1),
                excerpt: sifter.excerpts().then(Vec::new),
                excerpt_column: 1,
                extra_spans: Vec::new(),
            })
            .collect();
        let local = Some(Local { path: to });
        if scheme_len(dest).is_some() {
            // A `file:` URL: found as a URL already, where the link is.
            if let Some(u) = urls.iter_mut().find(|u| u.start.offset == start as u64) {
                u.local = local;
                u.findings.extend(findings);
            }
            continue;
        }
        if findings.is_empty() && !list {
            continue;
        }
        urls.push(Extracted {
            url: dest.to_vec(),
            kind: Kind::Link,
            start: at(start),
            end: at(end - 1),
            alternatives: Vec::new(),
            findings,
            in_code: false,
            notes: Vec::new(),
            verbatim: true,
            pieces: Vec::new(),
            rejected_by: Vec::new(),
            local,
        });
    }
}

/// The line of `src` holding offset `o`, and the line before it (empty
/// for the first line).
fn line_and_before(src: &[u8], o: usize) -> (&[u8], &[u8]) {
    let start = memchr::memrchr(b'\n', &src[..o]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &src[o..]).map_or(src.len(), |i| o + i);
    let before = match start.checked_sub(1) {
        Some(nl) => &src[memchr::memrchr(b'\n', &src[..nl]).map_or(0, |i| i + 1)..nl],
        None => &src[..0],
    };
    (&src[start..end], before)
}

#[cfg(test)]
mod tests;
