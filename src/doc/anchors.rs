//! The anchors a document offers to `#fragment` links: GitHub's heading
//! slugs and explicit `id`s for Markdown, `id` and `<a name>` for HTML.
//!
//! Lenient on purpose: a false "fragment missing" sends a writer hunting
//! for a breakage that is not there, so anything that may be an anchor
//! counts as one (an `id` in a script's string too).

use std::collections::{HashMap, HashSet};

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::Format;
use super::html::{Refs, decode_into};

/// The fragments a document can be linked to.
#[derive(Debug, Default)]
pub struct Anchors {
    ids: HashSet<Vec<u8>>,
    /// Markdown: GitHub lowers the case of slugs and finds a fragment
    /// whatever its case; HTML fragments match exactly, as in a browser.
    fold_case: bool,
}

impl Anchors {
    /// The anchors of a document of `format` whose bytes are `src`;
    /// `None` for a format whose anchors are not known (then no fragment
    /// into it is judged).
    pub fn of(format: Format, src: &[u8]) -> Option<Anchors> {
        match format {
            Format::Markdown => Some(markdown(src)),
            // A redirect page (rustdoc leaves one at every old path)
            // hands the fragment on to the page it sends to.
            Format::Html if is_redirect(src) => None,
            Format::Html => {
                let mut a = Anchors::default();
                html_ids(src, &mut a.ids);
                Some(a)
            }
            _ => None,
        }
    }

    /// Whether `fragment` (percent-decoded, without its `#`) names one of
    /// the anchors.
    pub fn has(&self, fragment: &[u8]) -> bool {
        // HTML's "top of the document", and a text fragment
        // (`#:~:text=`) are no anchors a document declares.
        if fragment.is_empty()
            || fragment.eq_ignore_ascii_case(b"top")
            || fragment.starts_with(b":~:")
        {
            return true;
        }
        if self.ids.contains(fragment) {
            return true;
        }
        if !self.fold_case {
            return false;
        }
        // GitHub prefixes its ids with `user-content-` and takes the
        // fragment either way.
        let f = fragment.strip_prefix(b"user-content-").unwrap_or(fragment);
        let lower = String::from_utf8_lossy(f).to_lowercase();
        self.ids.contains(lower.as_bytes())
    }

    /// How many anchors there are.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// Whether the HTML `src` is a redirect: a `<meta http-equiv="refresh">`
/// in its head.
fn is_redirect(src: &[u8]) -> bool {
    let head = &src[..src.len().min(2048)];
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    memchr::memmem::find_iter(&lower, b"http-equiv").any(|i| {
        let rest = &lower[i + 10..];
        let rest = &rest[..rest.len().min(24)];
        memchr::memmem::find(rest, b"refresh").is_some()
    })
}

/// GitHub's slug of a heading's text (github-slugger): lower case, every
/// character but letters, digits, `-`, `_` and spaces dropped, spaces
/// made `-`.
pub fn slug(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if c == ' ' {
            s.push('-');
        } else if c.is_alphanumeric() || c == '-' || c == '_' {
            s.push(c);
        }
    }
    s
}

/// Heading slugs with GitHub's numbering of repeats (`a`, `a-1`, `a-2`),
/// and the `id`s of the Markdown's HTML.
fn markdown(src: &[u8]) -> Anchors {
    let text = super::markdown::as_str(src);
    let mut ids = HashSet::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut add = |ids: &mut HashSet<Vec<u8>>, base: String| {
        let mut slug = base.clone();
        while seen.contains_key(&slug) {
            let n = seen.get_mut(&base).expect("the base is seen before its repeats");
            *n += 1;
            slug = format!("{base}-{n}");
        }
        seen.insert(slug.clone(), 0);
        ids.insert(slug.into_bytes());
    };
    let mut heading: Option<String> = None;
    for event in Parser::new_ext(&text, super::markdown::options()) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let Some(h) = heading.take() else { continue };
                let h = h.trim();
                // mdBook, Pandoc and kramdown take `{#id}` after a
                // heading as its id; GitHub does not: both are anchors.
                if let Some(open) = h.rfind("{#").filter(|_| h.ends_with('}')) {
                    let id = &h[open + 2..h.len() - 1];
                    if !id.is_empty() && !id.contains(char::is_whitespace) {
                        ids.insert(id.as_bytes().to_vec());
                        let rest = h[..open].trim_end();
                        ids.insert(slug(rest).into_bytes());
                    }
                }
                add(&mut ids, slug(h));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => html_ids(h.as_bytes(), &mut ids),
            _ => {}
        }
    }
    Anchors { ids, fold_case: true }
}

/// Adds to `ids` the value of every `id` attribute of the HTML `src`, and
/// of `name` on an `<a>`, references decoded. Comments are skipped, and
/// so are scripts and styles.
fn html_ids(src: &[u8], ids: &mut HashSet<Vec<u8>>) {
    let n = src.len();
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'<', &src[i..]) {
        let lt = i + k;
        if src[lt..].starts_with(b"<!--") {
            i = memchr::memmem::find(&src[lt + 4..], b"-->").map_or(n, |e| lt + 4 + e + 3);
            continue;
        }
        if !src.get(lt + 1).is_some_and(u8::is_ascii_alphabetic) {
            i = lt + 1;
            continue;
        }
        let mut j = lt + 1;
        while j < n && !(src[j].is_ascii_whitespace() || src[j] == b'/' || src[j] == b'>') {
            j += 1;
        }
        let tag = lt + 1..j;
        loop {
            while j < n && (src[j].is_ascii_whitespace() || src[j] == b'/') {
                j += 1;
            }
            if j >= n || src[j] == b'>' || src[j] == b'<' {
                break;
            }
            let name_at = j;
            while j < n && !(src[j].is_ascii_whitespace() || matches!(src[j], b'=' | b'>' | b'/')) {
                j += 1;
            }
            let name = name_at..j;
            while j < n && src[j].is_ascii_whitespace() {
                j += 1;
            }
            if src.get(j) != Some(&b'=') {
                continue;
            }
            j += 1;
            while j < n && src[j].is_ascii_whitespace() {
                j += 1;
            }
            let value = match src.get(j) {
                Some(&q @ (b'"' | b'\'')) => {
                    let end = memchr::memchr(q, &src[j + 1..]).map_or(n, |e| j + 1 + e);
                    let v = j + 1..end;
                    j = (end + 1).min(n);
                    v
                }
                _ => {
                    let at = j;
                    while j < n && !(src[j].is_ascii_whitespace() || src[j] == b'>') {
                        j += 1;
                    }
                    at..j
                }
            };
            let name = &src[name];
            if name.eq_ignore_ascii_case(b"id")
                || (name.eq_ignore_ascii_case(b"name")
                    && src[tag.clone()].eq_ignore_ascii_case(b"a"))
            {
                let mut v = Vec::new();
                decode_into(&mut v, src, value, Refs::Attr, false);
                ids.insert(v);
            }
        }
        let tag = &src[tag];
        let raw = [&b"script"[..], b"style"].into_iter().find(|t| tag.eq_ignore_ascii_case(t));
        i = match raw {
            // Their text is no markup: the next tag is their end tag.
            Some(t) => find_end_tag(src, j, t),
            None => j.min(n),
        };
    }
}

/// Where the end tag `</name` is, at or after `from` (any case).
fn find_end_tag(src: &[u8], from: usize, name: &[u8]) -> usize {
    let mut i = from.min(src.len());
    while let Some(k) = memchr::memmem::find(&src[i..], b"</") {
        let at = i + k;
        if src.get(at + 2..at + 2 + name.len()).is_some_and(|t| t.eq_ignore_ascii_case(name)) {
            return at;
        }
        i = at + 2;
    }
    src.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(src: &str) -> Anchors {
        Anchors::of(Format::Markdown, src.as_bytes()).unwrap()
    }

    #[test]
    fn github_slugs() {
        assert_eq!(slug("Install & Run (fast!)"), "install--run-fast");
        assert_eq!(slug("The `foo_bar` function"), "the-foo_bar-function");
        assert_eq!(slug("Ünïcödé Tëxt"), "ünïcödé-tëxt");
        assert_eq!(slug("v1.2.3"), "v123");
    }

    #[test]
    fn markdown_headings_repeats_and_html_ids() {
        let a = md("# Intro\n\n## Setup\n\n## Setup\n\nSetup\n-----\n\n## Setup-1\n\n\
             <a name=\"legacy\"></a>\n\n## With `code` and [a link](x.md)\n\n\
             ## Custom {#my-id}\n\n```\n# not a heading\n```\n");
        for f in [
            "intro",
            "setup",
            "setup-1",
            "setup-2",
            "setup-1-1",
            "legacy",
            "with-code-and-a-link",
            "my-id",
            "custom",
            "Intro",
            "user-content-intro",
        ] {
            assert!(a.has(f.as_bytes()), "{f}");
        }
        assert!(!a.has(b"not-a-heading"));
        assert!(!a.has(b"setup-3"));
    }

    #[test]
    fn html_ids_and_names() {
        let src = b"<html><body><h1 id=\"a&amp;b\">x</h1><a name=top2></a>\
            <!-- <p id=\"commented\"> --><meta name=\"viewport\">\
            <script>var s = '<p id=\"in-script\">';</script><P ID='Upper'>";
        let a = Anchors::of(Format::Html, src).unwrap();
        assert!(a.has(b"a&b"));
        assert!(a.has(b"top2"));
        assert!(a.has(b"Upper"));
        assert!(!a.has(b"upper"), "HTML fragments match exactly");
        assert!(!a.has(b"commented"));
        assert!(!a.has(b"viewport"), "name only names an <a>");
        assert!(!a.has(b"in-script"));
        assert!(a.has(b"top"), "#top is the top of any page");
        assert!(Anchors::of(Format::Rst, b"x").is_none());
        let redirect = b"<html><head><meta http-equiv=\"refresh\" content=\"0;URL=a.html\">";
        assert!(Anchors::of(Format::Html, redirect).is_none(), "a redirect passes fragments on");
    }
}
