//! A deterministic generator of mail-, news-, RFC- and docs-shaped text with
//! URLs planted in it, and the list of what was planted: the oracle for the
//! recall tests (`tests/nothing_lost.rs`) and the input of the benchmarks
//! (`benches/scan.rs`, `examples/gencorpus.rs`).
//!
//! The same [`GenOptions`] give the same bytes on every platform: the only
//! source of randomness is a splitmix64 generator seeded from
//! [`GenOptions::seed`], and nothing depends on hashing, time or the
//! platform.
//!
//! # What is planted
//!
//! Every planted URL is valid under RFC 1738 (lower-case schemes `http`,
//! `ftp`, `gopher`, `news`, `nntp`, `telnet`, `wais`, `file`, `prospero`,
//! `mailto`; host names of letters, digits and `-`; paths of letters,
//! digits and `-_.`; `%7E` and `%2F` escapes; ftp `;type=`; fragments only
//! inside brackets), so validating it adds no diagnostic, and none ends in
//! a byte a bare-URL reader would trim (it ends in a letter, digit, `/` or
//! `*`). It is written in one of these forms ([`Planted::form`]):
//!
//! | form | kind | example |
//! |---|---|---|
//! | `<URL:` | wrapped | `<URL:ftp://ds.example.net/rfc>`, also `<url:` |
//! | `<URL: ` | wrapped | `<URL: http://www.example.org/>` (space or tab) |
//! | `URL=<` | wrapped | `URL=<ftp://ftp.example.org/pub>` (1993 draft) |
//! | `URL:<` | wrapped | `URL:<http://www.example.org/>` |
//! | `<` | angle | `<http://www.example.org/>`, Markdown autolinks |
//! | `URL:` | prefixed | `URL:http://www.example.org/` |
//! | `bare` | bare | in prose, then `.` `,` `;` `:` `?` `!`, a space or end of line |
//! | `bare()` `bare""` `bare''` `bare“”` | bare | in parentheses or quotes |
//! | `bare[]()` `bare-code` | bare | a Markdown link `[text](url)`, a code span |
//!
//! Bracketed (wrapped and angle) URLs are often broken across lines at
//! random points: LF or CRLF, trailing blanks before the break, indentation
//! of spaces and tabs after it, the paragraph's quote prefix (`> `, `>> `)
//! repeated on every continuation line, up to three breaks, blanks inserted
//! without a break, and at most one break right after a `-` (then
//! [`Planted::alternative`] is the URL without that hyphen). Bare and
//! prefixed URLs are never broken.
//!
//! Breaks never fall between the URL and its `>`, nor inside the opener.
//! Where they may fall depends on how the scanner recognises the form (see
//! [`first_break`]): after `<URL:` anywhere, even before the URL's first
//! byte; after `URL:<` anywhere after the scheme's `:` (the scheme tells
//! `URL:<scheme:...>` from a placeholder such as `URL:<URL>`); in
//! `<scheme:` and `URL=<scheme:` only after the `//` (or the first byte of
//! a `mailto:`, `news:` or `file:` body), since what follows the colon is
//! what tells a URL from `<Subject: x>`.
//!
//! # Decoys
//!
//! The prose is full of colons that are not URLs and must not be reported:
//! `Note:`, `news: we shipped`, `10:30:00`, `C:\TEMP`, `C://x`,
//! `ds.internic.net:/rfc/`, `<Subject: x>`, `<a:b>`, `localhost:8080`,
//! `std::io::Read`, `mailto: bob`, `http://` alone, mail and news headers.
//! With [`GenOptions::density`] 0 the text holds decoys only.

/// The shape of the generated text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// Mail messages: headers, attributions, `> ` and `>> ` quoted replies,
    /// signatures; some messages use CRLF line ends. URLs are sparse.
    Mail,
    /// News articles: `Path:`, `Newsgroups:`, `Xref:` headers, `In article
    /// <...> writes:` and quoted text.
    News,
    /// RFC pages: indented paragraphs, numbered sections, page headers and
    /// footers, reference lists whose wrapped URLs are broken across lines.
    Rfc,
    /// Markdown documentation: headings, lists, block quotes, code spans and
    /// fenced code, `[text](url)` links and `<url>` autolinks. URLs are
    /// dense.
    Docs,
    /// Documents of all four styles, picked at random.
    Mixed,
}

impl Style {
    /// Every style, `Mixed` last.
    pub const ALL: [Style; 5] = [Style::Mail, Style::News, Style::Rfc, Style::Docs, Style::Mixed];

    /// The lower-case name, as accepted by [`Style::from_name`].
    pub fn as_str(self) -> &'static str {
        match self {
            Style::Mail => "mail",
            Style::News => "news",
            Style::Rfc => "rfc",
            Style::Docs => "docs",
            Style::Mixed => "mixed",
        }
    }

    /// Looks a style up by name, ignoring case.
    pub fn from_name(name: &str) -> Option<Style> {
        Style::ALL.into_iter().find(|s| s.as_str().eq_ignore_ascii_case(name))
    }
}

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// Seeds the generator: the same options give the same bytes.
    pub seed: u64,
    /// Approximate size in bytes: generation stops at the first paragraph
    /// boundary at or after this many bytes (0 gives empty text).
    pub size: usize,
    /// The shape of the text.
    pub style: Style,
    /// How many URLs, in percent of the style's natural rate: 0 gives prose
    /// and decoys only, 100 the default, 300 three times as many.
    pub density: u32,
}

impl GenOptions {
    /// Options with the default density.
    pub fn new(seed: u64, size: usize, style: Style) -> GenOptions {
        GenOptions { seed, size, style, density: 100 }
    }
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions::new(0, 64 << 10, Style::Mixed)
    }
}

/// One planted URL, as a correct extractor reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planted {
    /// The URL, with the whitespace and quote prefixes of its line breaks
    /// removed (the hyphen of a hyphen break kept).
    pub url: String,
    /// `"wrapped"`, `"angle"`, `"prefixed"` or `"bare"`, as urlsift names
    /// the kinds.
    pub kind: &'static str,
    /// 1-based line of the URL's first byte (LF and CRLF end a line).
    pub line: u64,
    /// 1-based byte column of the URL's first byte (after `<URL:` and any
    /// blank after it).
    pub column: u64,
    /// Byte offset of the URL's first byte.
    pub offset: u64,
    /// How it was written: see the table in the module docs.
    pub form: &'static str,
    /// For a URL broken right after a `-`, the URL without that hyphen.
    pub alternative: Option<String>,
}

/// Generates text and the URLs planted in it, in order of their offsets.
pub fn generate(opts: &GenOptions) -> (Vec<u8>, Vec<Planted>) {
    let mut g = Gen::new(opts);
    while !g.full() {
        let style = match opts.style {
            Style::Mixed => g.rng.pick(&[Style::Mail, Style::News, Style::Rfc, Style::Docs]),
            s => s,
        };
        g.style = style;
        g.eol = "\n";
        match style {
            Style::Mail => g.mail(),
            Style::News => g.news(),
            Style::Rfc => g.rfc(),
            Style::Docs | Style::Mixed => g.docs(),
        }
    }
    (g.buf, g.planted)
}

/// The first offset in `url` before which a line break or blank may go
/// when the URL is written in `form` (0: even before its first byte).
///
/// The scanner finds every URL by a colon and confirms it by the bytes
/// around it, which therefore have to be on the opening line: `<URL:`
/// confirms itself; `URL:<` needs `scheme:` right after the `<`;
/// `<scheme:` and `URL=<scheme:` need the `//` after the colon, or for
/// `mailto:`, `news:` and `file:` one byte of body.
pub fn first_break(form: &str, url: &str) -> usize {
    let colon = url.find(':').unwrap_or(0);
    match form {
        "<" | "URL=<" => {
            let slashes = if url[colon + 1..].starts_with("//") { 2 } else { 0 };
            colon + 2 + slashes
        }
        "URL:<" => colon + 1,
        _ => 0,
    }
}

/// The kind urlsift reports for a URL written in `form`.
fn kind_of(form: &str) -> &'static str {
    match form {
        "<URL:" | "<URL: " | "URL=<" | "URL:<" => "wrapped",
        "<" => "angle",
        "URL:" => "prefixed",
        _ => "bare",
    }
}

/// splitmix64 (Steele, Lea and Flood, 2014): tiny, fast, good enough for
/// test data, and identical everywhere because it is only integer ops.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift rather than `%` so
    /// that small ranges are not biased towards low values.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `p` per mille.
    fn permille(&mut self, p: u32) -> bool {
        self.below(1000) < p as usize
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }

    /// Picks from `(weight, value)` pairs.
    fn weighted<T: Copy>(&mut self, xs: &[(u32, T)]) -> T {
        let total: u32 = xs.iter().map(|x| x.0).sum();
        let mut r = self.below(total as usize) as u32;
        for &(w, v) in xs {
            if r < w {
                return v;
            }
            r -= w;
        }
        xs[xs.len() - 1].1
    }
}

/// What goes between two bytes of a bracketed URL.
#[derive(Clone, Debug)]
enum Gap {
    /// Blanks without a line break.
    Blank(&'static str),
    /// Blanks, a line break, then the continuation prefix and indentation.
    Break { trailing: &'static str, eol: &'static str, indent: &'static str },
}

/// The generator's state: the text so far, where the current line starts,
/// and the current paragraph's layout.
struct Gen<'a> {
    opts: &'a GenOptions,
    rng: Rng,
    buf: Vec<u8>,
    planted: Vec<Planted>,
    /// 1-based number of the line being written.
    line: u64,
    /// Offset of the first byte of that line.
    line_start: usize,
    /// The current document's style and line end.
    style: Style,
    eol: &'static str,
    /// Prefix of the current paragraph's continuation lines.
    rest: String,
    width: usize,
    /// The current line holds a word after its prefix.
    has_text: bool,
    /// The next word starts a new line (a bare URL at the end of a line).
    force_break: bool,
}

impl<'a> Gen<'a> {
    fn new(opts: &'a GenOptions) -> Gen<'a> {
        Gen {
            opts,
            rng: Rng(opts.seed ^ 0x7572_6c73_6966_7400),
            buf: Vec::with_capacity(opts.size + 4096),
            planted: Vec::new(),
            line: 1,
            line_start: 0,
            style: Style::Mail,
            eol: "\n",
            rest: String::new(),
            width: 72,
            has_text: false,
            force_break: false,
        }
    }

    fn full(&self) -> bool {
        self.buf.len() >= self.opts.size
    }

    // ---- layout -------------------------------------------------------

    /// Appends text that holds no line break.
    fn put(&mut self, s: &str) {
        debug_assert!(!s.contains(['\n', '\r']), "{s:?}");
        self.buf.extend_from_slice(s.as_bytes());
    }

    fn end_line(&mut self, eol: &'static str) {
        self.buf.extend_from_slice(eol.as_bytes());
        self.line += 1;
        self.line_start = self.buf.len();
    }

    /// A whole line outside any paragraph (headers, headings, code).
    fn line(&mut self, s: &str) {
        self.put(s);
        self.end_line(self.eol);
    }

    /// The blank line (or quoted blank line `>`) that separates paragraphs,
    /// except at the start of the text.
    fn sep(&mut self, blank: &str) {
        if !self.buf.is_empty() {
            self.line(blank);
        }
    }

    /// Starts a paragraph whose first line begins with `first` and every
    /// other line with `rest`.
    fn begin(&mut self, first: &str, rest: &str, width: usize) {
        self.put(first);
        self.rest.clear();
        self.rest.push_str(rest);
        self.width = width;
        self.has_text = false;
        self.force_break = false;
    }

    fn newline(&mut self) {
        self.end_line(self.eol);
        let rest = std::mem::take(&mut self.rest);
        self.put(&rest);
        self.rest = rest;
        self.has_text = false;
        self.force_break = false;
    }

    fn end(&mut self) {
        self.end_line(self.eol);
    }

    /// Makes room for a word of `len` bytes: a new line if it does not fit,
    /// else a space after the previous word.
    fn room(&mut self, len: usize) {
        if self.has_text && (self.force_break || self.column() + 1 + len > self.width) {
            self.newline();
        }
        if self.has_text {
            self.put(" ");
        }
    }

    fn column(&self) -> usize {
        self.buf.len() - self.line_start
    }

    fn word(&mut self, w: &str) {
        self.room(w.len());
        self.put(w);
        self.has_text = true;
    }

    fn words(&mut self, s: &str) {
        for w in s.split(' ').filter(|w| !w.is_empty()) {
            self.word(w);
        }
    }

    /// Writes `before`, the URL with `gaps` (sorted by offset) and `after`
    /// as one word, and records the URL as written in `form`.
    fn token(
        &mut self,
        before: &str,
        url: &str,
        after: &str,
        gaps: &[(usize, Gap)],
        form: &'static str,
        alternative: Option<String>,
    ) {
        let first = gaps.first().map_or(url.len() + after.len(), |g| g.0);
        self.room(before.len() + first);
        self.put(before);
        let mut gaps = gaps.iter().peekable();
        if let Some((_, gap)) = gaps.next_if(|g| g.0 == 0) {
            self.gap(gap);
        }
        self.planted.push(Planted {
            url: url.to_string(),
            kind: kind_of(form),
            line: self.line,
            column: self.column() as u64 + 1,
            offset: self.buf.len() as u64,
            form,
            alternative,
        });
        let mut done = 0;
        for (at, gap) in gaps {
            self.put(&url[done..*at]);
            done = *at;
            self.gap(gap);
        }
        self.put(&url[done..]);
        self.put(after);
        self.has_text = true;
    }

    fn gap(&mut self, gap: &Gap) {
        match gap {
            Gap::Blank(b) => self.put(b),
            Gap::Break { trailing, eol, indent } => {
                self.put(trailing);
                self.end_line(eol);
                let rest = std::mem::take(&mut self.rest);
                self.put(&rest);
                self.rest = rest;
                self.put(indent);
            }
        }
    }

    // ---- URLs ---------------------------------------------------------

    /// How many sentences in a thousand carry a URL.
    fn url_rate(&self, per_mille: u32) -> u32 {
        (per_mille * self.opts.density / 100).min(1000)
    }

    fn host(&mut self) -> String {
        if self.rng.permille(40) {
            let net = self.rng.pick(&["192.0.2", "198.51.100", "203.0.113"]);
            return format!("{net}.{}", self.rng.range(1, 254));
        }
        let sub = self.rng.pick(HOST_SUBS);
        let mid = self.rng.pick(HOST_MIDS);
        let top = self.rng.pick(TOP_LABELS);
        if self.rng.permille(200) {
            let dept = self.rng.pick(&["cs", "lcs", "ai", "math", "phys", "cc", "it-dept"]);
            format!("{sub}.{dept}.{mid}.{top}")
        } else {
            format!("{sub}.{mid}.{top}")
        }
    }

    /// `n` path segments joined by `/`, the last one maybe a file name.
    fn path(&mut self, max: usize) -> String {
        let n = self.rng.range(0, max);
        let mut p = String::new();
        for i in 0..n {
            if i > 0 {
                p.push('/');
            }
            if i + 1 == n && self.rng.permille(500) {
                p.push_str(self.rng.pick(FILES));
            } else if self.rng.permille(60) {
                p.push_str("%7E");
                p.push_str(self.rng.pick(USERS));
            } else {
                p.push_str(self.rng.pick(SEGMENTS));
            }
        }
        p
    }

    /// A valid URL of a random scheme; `fragment` allows a `#fragment`.
    fn url(&mut self, fragment: bool) -> String {
        let scheme = self.rng.weighted(&[
            (35, "http"),
            (20, "ftp"),
            (6, "gopher"),
            (6, "news"),
            (4, "nntp"),
            (4, "telnet"),
            (4, "wais"),
            (5, "file"),
            (3, "prospero"),
            (8, "mailto"),
        ]);
        let host = self.host();
        let mut u = match scheme {
            "http" => {
                let mut u = format!("http://{host}");
                if self.rng.permille(850) {
                    u.push('/');
                    u.push_str(&self.path(4));
                    if self.rng.permille(120) {
                        let a = self.rng.pick(SEGMENTS);
                        let b = self.rng.pick(USERS);
                        if self.rng.permille(500) {
                            u.push_str(&format!("?{a}+{b}"));
                        } else {
                            u.push_str(&format!("?q={a}&who={b}"));
                        }
                    }
                }
                u
            }
            "ftp" => {
                let user = if self.rng.permille(100) { "anonymous@" } else { "" };
                let mut u = format!("ftp://{user}{host}/");
                if self.rng.permille(150) {
                    u.push_str("%2F");
                }
                u.push_str(&self.path(4));
                if u.ends_with('/') {
                    // `;type=` needs a segment before it to read naturally.
                    u.push_str(self.rng.pick(SEGMENTS));
                }
                if self.rng.permille(250) {
                    u.push_str(";type=");
                    u.push(self.rng.pick(&['a', 'i', 'd']));
                }
                u
            }
            "gopher" => match self.rng.below(4) {
                0 => format!("gopher://{host}/"),
                1 => format!("gopher://{host}/1/{}", self.path(3)),
                2 => format!("gopher://{host}/0/{}", self.rng.pick(FILES)),
                _ => format!("gopher://{host}/7/search%09{}", self.rng.pick(SEGMENTS)),
            },
            "news" => {
                if self.rng.permille(600) {
                    format!("news:{}", self.rng.pick(GROUPS))
                } else if self.rng.permille(950) {
                    format!("news:{}@{host}", self.message_id_local())
                } else {
                    "news:*".to_string()
                }
            }
            "nntp" => {
                let g = self.rng.pick(GROUPS);
                if self.rng.permille(700) {
                    format!("nntp://{host}/{g}/{}", self.rng.range(1, 99_999))
                } else {
                    format!("nntp://{host}/{g}")
                }
            }
            "telnet" => {
                let user = if self.rng.permille(300) { "guest@" } else { "" };
                let slash = if self.rng.permille(500) { "/" } else { "" };
                format!("telnet://{user}{host}{slash}")
            }
            "wais" => {
                let db = self.rng.pick(SEGMENTS);
                match self.rng.below(3) {
                    0 => format!("wais://{host}/{db}"),
                    1 => format!("wais://{host}/{db}?{}", self.rng.pick(SEGMENTS)),
                    _ => format!("wais://{host}/{db}/TEXT/{}", self.rng.pick(FILES)),
                }
            }
            "file" => {
                let h = self.rng.pick(&["", "localhost", "ftp.example.org"]);
                let mut p = self.path(4);
                if p.is_empty() {
                    p.push_str(self.rng.pick(FILES));
                }
                format!("file://{h}/{p}")
            }
            "prospero" => {
                let mut u = format!("prospero://{host}/{}", self.rng.pick(SEGMENTS));
                let p = self.path(2);
                if !p.is_empty() {
                    u.push('/');
                    u.push_str(&p);
                }
                if self.rng.permille(400) {
                    u.push_str(";version=2");
                }
                u
            }
            _ => format!("mailto:{}@{host}", self.rng.pick(USERS)),
        };
        if fragment && scheme == "http" && self.rng.permille(150) {
            u.push('#');
            u.push_str(self.rng.pick(&["WARNING", "section-3", "toc", "top", "s2.1", "faq-7"]));
        }
        u
    }

    fn message_id_local(&mut self) -> String {
        format!(
            "{}{}{}.{:06}.{}",
            self.rng.range(1993, 1996),
            self.rng.pick(MONTHS),
            self.rng.range(1, 28),
            self.rng.below(240_000),
            self.rng.range(100, 99_999)
        )
    }

    /// Chooses where a bracketed URL written in `form` is broken, if at
    /// all, and returns the gaps and the hyphen-less alternative.
    fn gaps(
        &mut self,
        url: &str,
        form: &str,
        break_rate: u32,
    ) -> (Vec<(usize, Gap)>, Option<String>) {
        let mut gaps: Vec<(usize, Gap)> = Vec::new();
        let mut alternative = None;
        let lo = first_break(form, url);
        let b = url.as_bytes();
        if lo == 0 && self.rng.permille(break_rate / 8) {
            // `<URL:` at the end of a line, the URL on the next.
            let gap = self.line_break();
            gaps.push((0, gap));
        }
        let lo = lo.max(1);
        if lo >= b.len() {
            return (gaps, None);
        }
        let taken = |gaps: &[(usize, Gap)], p: usize| gaps.iter().any(|g| g.0 == p);
        if self.rng.permille(break_rate) {
            // At most one break after a hyphen, where text follows it.
            let hyphens: Vec<usize> = (lo..b.len()).filter(|&p| b[p - 1] == b'-').collect();
            if !hyphens.is_empty() && self.rng.permille(300) {
                let p = self.rng.pick(&hyphens);
                let gap = self.line_break();
                gaps.push((p, gap));
                alternative = Some(format!("{}{}", &url[..p - 1], &url[p..]));
            }
            // Every other break avoids standing right after a hyphen, or
            // it would be a second ambiguous break.
            let n = self.rng.weighted(&[(60, 1), (30, 2), (10, 3)]);
            for _ in 0..n {
                let p = self.rng.range(lo, b.len() - 1);
                if b[p - 1] != b'-' && !taken(&gaps, p) {
                    let gap = self.line_break();
                    gaps.push((p, gap));
                }
            }
        }
        if self.rng.permille(60) {
            let p = self.rng.range(lo, b.len() - 1);
            if !taken(&gaps, p) {
                gaps.push((p, Gap::Blank(self.rng.pick(&[" ", "  ", "\t", " \t"]))));
            }
        }
        gaps.sort_by_key(|g| g.0);
        (gaps, alternative)
    }

    fn line_break(&mut self) -> Gap {
        let trailing = self.rng.weighted(&[(85, ""), (10, " "), (5, "\t")]);
        // Mostly the document's own line end, sometimes the other one:
        // both are breaks, and a mixed file must read the same.
        let eol = if self.rng.permille(150) {
            if self.eol == "\n" { "\r\n" } else { "\n" }
        } else {
            self.eol
        };
        let indent = self.rng.weighted(&[
            (30, ""),
            (15, " "),
            (15, "  "),
            (10, "    "),
            (10, "\t"),
            (5, "\t "),
            (5, " \t"),
            (10, "      "),
        ]);
        Gap::Break { trailing, eol, indent }
    }

    /// Writes a planted URL in a form suited to the current style, followed
    /// by `tail` (sentence punctuation or nothing).
    fn plant(&mut self, tail: &str) {
        let form = match self.style {
            Style::Rfc => self.rng.weighted(&[
                (45, "<URL:"),
                (5, "<URL: "),
                (15, "URL=<"),
                (10, "URL:<"),
                (10, "<"),
                (5, "URL:"),
                (10, "bare"),
            ]),
            Style::Docs => self.rng.weighted(&[
                (10, "<URL:"),
                (25, "<"),
                (5, "URL:"),
                (20, "bare"),
                (15, "bare[]()"),
                (10, "bare-code"),
                (5, "bare()"),
                (5, "bare\"\""),
                (5, "bare“”"),
            ]),
            _ => self.rng.weighted(&[
                (20, "<URL:"),
                (5, "<URL: "),
                (5, "URL=<"),
                (5, "URL:<"),
                (20, "<"),
                (5, "URL:"),
                (25, "bare"),
                (7, "bare()"),
                (4, "bare\"\""),
                (2, "bare''"),
                (2, "bare“”"),
            ]),
        };
        let break_rate = match self.style {
            Style::Rfc => 600,
            Style::Docs => 150,
            _ => 300,
        };
        let bracketed = matches!(form, "<URL:" | "<URL: " | "URL=<" | "URL:<" | "<");
        let url = self.url(bracketed);
        if !bracketed {
            let (before, after) = match form {
                "URL:" => ("URL:", ""),
                "bare()" => ("(", ")"),
                "bare\"\"" => ("\"", "\""),
                "bare''" => ("'", "'"),
                "bare“”" => ("“", "”"),
                "bare-code" => ("`", "`"),
                "bare[]()" => {
                    let text = self.rng.pick(LINK_TEXTS);
                    self.words(text.0);
                    (text.1, ")")
                }
                _ => ("", ""),
            };
            self.token(before, &url, &format!("{after}{tail}"), &[], form, None);
            // A bare URL at the end of a line, with nothing after it.
            if tail.is_empty() && self.rng.permille(200) {
                self.force_break = true;
            }
            return;
        }
        let before = match form {
            "<URL:" if self.rng.permille(100) => "<url:",
            "<URL: " => self.rng.pick(&["<URL: ", "<URL:\t", "<URL:  "]),
            other => other,
        };
        let (gaps, alternative) = self.gaps(&url, form, break_rate);
        self.token(before, &url, &format!(">{tail}"), &gaps, form, alternative);
    }

    // ---- prose --------------------------------------------------------

    /// One sentence; with probability `rate` per mille it carries a URL
    /// (sometimes two, as in the RFC 1738 appendix), otherwise it may be a
    /// decoy.
    fn sentence(&mut self, rate: u32, decoys: &[&str]) {
        if self.rng.permille(rate) {
            let intro = self.rng.pick(INTROS);
            self.words(intro);
            let tail = self.rng.weighted(&[
                (50, "."),
                (10, ","),
                (5, ";"),
                (5, ":"),
                (5, "?"),
                (3, "!"),
                (22, ""),
            ]);
            self.plant(tail);
            match tail {
                "." | "?" | "!" => {}
                "," if self.rng.permille(300) => {
                    self.words("but you can probably pick it up from");
                    self.plant(".");
                }
                _ => {
                    let clause = self.rng.pick(CLAUSES);
                    self.words(clause);
                }
            }
        } else if self.rng.permille(120) {
            let d = self.rng.pick(decoys);
            self.words(d);
        } else {
            let s = self.rng.pick(SUBJECTS);
            let v = self.rng.pick(VERBS);
            let o = self.rng.pick(OBJECTS);
            let t = self.rng.pick(TAILS);
            self.words(&format!("{s} {v} {o}{t}."));
        }
    }

    /// A paragraph of 1-5 sentences between `first`/`rest` prefixes.
    fn para(&mut self, first: &str, rest: &str, rate: u32, decoys: &[&str]) {
        self.begin(first, rest, 72);
        for _ in 0..self.rng.range(1, 5) {
            self.sentence(rate, decoys);
        }
        self.end();
    }

    fn date(&mut self) -> String {
        format!(
            "{}, {} {} {} {:02}:{:02}:{:02} {}",
            self.rng.pick(&["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]),
            self.rng.range(1, 28),
            self.rng.pick(MONTHS),
            self.rng.range(1993, 1996),
            self.rng.below(24),
            self.rng.below(60),
            self.rng.below(60),
            self.rng.pick(&["-0500", "+0100", "GMT", "-0800", "+0000"])
        )
    }

    fn person(&mut self) -> (&'static str, String) {
        let (name, user) = self.rng.pick(PEOPLE);
        let host = self.rng.pick(&["example.org", "cs.example.edu", "mail.example.com"]);
        (name, format!("{user}@{host}"))
    }

    // ---- documents ----------------------------------------------------

    fn mail(&mut self) {
        self.eol = if self.rng.permille(300) { "\r\n" } else { "\n" };
        let rate = self.url_rate(70);
        let (name, addr) = self.person();
        let (other, other_addr) = self.person();
        let topic = self.rng.pick(TOPICS);
        self.sep("");
        if self.rng.permille(500) {
            let d = self.date();
            self.line(&format!("From {addr} {d}"));
        }
        self.line(&format!("From: {name} <{addr}>"));
        self.line(&format!("To: {other} <{other_addr}>"));
        self.line(&format!("Subject: Re: {topic}"));
        let d = self.date();
        self.line(&format!("Date: {d}"));
        let id = self.message_id_local();
        self.line(&format!("Message-ID: <{id}@example.org>"));
        if self.rng.permille(150) && self.opts.density > 0 {
            self.begin("X-URL: ", "", 1000);
            self.plant("");
            self.end();
        }
        self.line("Content-Type: text/plain; charset=us-ascii");
        for _ in 0..self.rng.range(1, 6) {
            if self.full() {
                return;
            }
            let d = self.date();
            match self.rng.below(4) {
                0 => {
                    self.sep("");
                    self.line(&format!("On {d}, {other} wrote:"));
                    self.para(">> ", ">> ", rate, MAIL_DECOYS);
                    self.sep(">");
                    self.para("> ", "> ", rate, MAIL_DECOYS);
                }
                1 => {
                    self.sep("");
                    self.line(&format!("{other} <{other_addr}> writes:"));
                    self.para("> ", "> ", rate, MAIL_DECOYS);
                }
                _ => {
                    self.sep("");
                    self.para("", "", rate, MAIL_DECOYS);
                }
            }
        }
        if self.full() {
            return;
        }
        self.sep("");
        self.line("-- ");
        self.line(&format!("{name} <{addr}>"));
        if self.rng.permille(self.url_rate(400)) {
            self.begin("", "", 1000);
            self.plant("");
            self.end();
        }
    }

    fn news(&mut self) {
        self.eol = if self.rng.permille(100) { "\r\n" } else { "\n" };
        let rate = self.url_rate(70);
        let (name, addr) = self.person();
        let (other, other_addr) = self.person();
        let group = self.rng.pick(GROUPS);
        let topic = self.rng.pick(TOPICS);
        let id = self.message_id_local();
        let parent = self.message_id_local();
        self.sep("");
        self.line("Path: news.example.org!news.example.net!not-for-mail");
        self.line(&format!("From: {addr} ({name})"));
        self.line(&format!("Newsgroups: {group}"));
        self.line(&format!("Subject: Re: {topic}"));
        let d = self.date();
        self.line(&format!("Date: {d}"));
        self.line("Organization: Example University, Computing Services");
        let lines = self.rng.range(8, 90);
        self.line(&format!("Lines: {lines}"));
        self.line(&format!("Message-ID: <{id}@news.example.org>"));
        self.line(&format!("References: <{parent}@news.example.net>"));
        let article = self.rng.range(1, 99_999);
        self.line(&format!("Xref: news.example.org {group}:{article}"));
        self.sep("");
        self.line(&format!(
            "In article <{parent}@news.example.net>, {other_addr} ({other}) writes:"
        ));
        self.para("> ", "> ", rate, MAIL_DECOYS);
        for _ in 0..self.rng.range(1, 5) {
            if self.full() {
                return;
            }
            if self.rng.permille(300) {
                self.sep(">");
                self.para("> ", "> ", rate, MAIL_DECOYS);
            } else {
                self.sep("");
                self.para("", "", rate, MAIL_DECOYS);
            }
        }
    }

    fn rfc(&mut self) {
        self.eol = "\n";
        let rate = self.url_rate(120);
        let section = self.rng.range(1, 9);
        self.sep("");
        let (title, month) = (self.rng.pick(TITLES), self.rng.pick(MONTHS));
        let number = self.rng.range(1000, 1800);
        self.line(&format!("RFC {number}{title:>36}{month:>20} 1994"));
        self.sep("");
        let topic = self.rng.pick(TOPICS);
        self.line(&format!("{section}. {topic}"));
        for sub in 1..=self.rng.range(1, 4) {
            if self.full() {
                return;
            }
            self.sep("");
            let topic = self.rng.pick(TOPICS);
            self.line(&format!("{section}.{sub}. {topic}"));
            for _ in 0..self.rng.range(1, 3) {
                if self.full() {
                    return;
                }
                self.sep("");
                self.para("   ", "   ", rate, RFC_DECOYS);
            }
        }
        if self.full() {
            return;
        }
        // A reference list: hanging indentation, mostly wrapped URLs.
        self.sep("");
        self.line(&format!("{}. References", section + 1));
        for n in 1..=self.rng.range(2, 6) {
            if self.full() {
                return;
            }
            self.sep("");
            let who = self.rng.pick(PEOPLE).0;
            let what = self.rng.pick(TOPICS);
            let first = format!("   [{n}] ");
            self.begin(&first, "       ", 72);
            self.words(&format!("{who}, \"{what}\", Internet draft, 1994,"));
            if self.rng.permille(self.url_rate(800)) {
                self.plant(".");
            } else {
                self.words("available by anonymous FTP from ds.internic.net:/rfc/ only.");
            }
            self.end();
        }
        self.sep("");
        let page = self.rng.range(2, 40);
        self.line(&format!("Berners-Lee, Masinter & McCahill{:>39}", format!("[Page {page}]")));
        self.line("\x0c");
    }

    fn docs(&mut self) {
        self.eol = "\n";
        let rate = self.url_rate(250);
        self.sep("");
        let topic = self.rng.pick(TOPICS);
        self.line(&format!("# {topic}"));
        for _ in 0..self.rng.range(2, 8) {
            if self.full() {
                return;
            }
            self.sep("");
            match self.rng.below(8) {
                0 => {
                    let topic = self.rng.pick(TOPICS);
                    self.line(&format!("## {topic}"));
                }
                1 => {
                    for _ in 0..self.rng.range(2, 4) {
                        self.para("- ", "  ", rate, DOCS_DECOYS);
                    }
                }
                2 => self.para("> ", "> ", rate, DOCS_DECOYS),
                3 => {
                    self.line("```sh");
                    for _ in 0..self.rng.range(1, 4) {
                        self.code_line();
                    }
                    self.line("```");
                }
                4 if self.opts.density > 0 => {
                    for n in 1..=self.rng.range(1, 3) {
                        self.begin(&format!("[{n}]:"), "", 1000);
                        let url = self.url(false);
                        self.token(" ", &url, "", &[], "bare", None);
                        self.end();
                    }
                }
                _ => self.para("", "", rate, DOCS_DECOYS),
            }
        }
    }

    fn code_line(&mut self) {
        self.begin("", "", 1000);
        if self.rng.permille(self.url_rate(400)) {
            let command =
                self.rng.pick(&["$ curl -O", "$ wget", "$ lynx -dump", "$ urlsift check"]);
            self.words(command);
            let url = self.url(false);
            self.token(" ", &url, "", &[], "bare", None);
        } else {
            let code = self.rng.pick(CODE);
            self.words(code);
        }
        self.end();
    }
}

// ---- word pools -------------------------------------------------------

const HOST_SUBS: &[&str] = &[
    "www",
    "ftp",
    "info",
    "ds",
    "gopher",
    "news",
    "wais",
    "mail",
    "archive",
    "nic",
    "mirror",
    "web",
    "info-srv",
    "mail-gw",
    "www-dev",
    "ftp-archive",
    "w3",
    "x500",
];
const HOST_MIDS: &[&str] = &[
    "example",
    "cern",
    "internic",
    "uni-example",
    "net-lab",
    "ncsa",
    "umn",
    "xerox",
    "w3c",
    "ietf",
];
const TOP_LABELS: &[&str] = &["org", "com", "net", "edu", "ch", "de", "uk", "fr", "gov", "int"];
const SEGMENTS: &[&str] = &[
    "pub",
    "doc",
    "rfc",
    "www",
    "papers",
    "drafts",
    "info",
    "software",
    "src",
    "dist",
    "archive",
    "mail-archive",
    "user-guide",
    "release-notes",
    "x11r6",
    "gnu",
    "docs",
    "faq",
    "html",
    "specs",
    "ietf",
    "internet-drafts",
    "ncsa",
    "mosaic",
    "uri-wg",
    "hypertext",
    "WWW",
    "Daemon",
    "old_stuff",
    "v1.2",
];
const FILES: &[&str] = &[
    "rfc1738.txt",
    "overview.html",
    "README",
    "index.html",
    "url-spec.ps",
    "draft-ietf-uri-url-06.txt",
    "mosaic-2.4.tar.gz",
    "ls-lR.gz",
    "FAQ",
    "Overview.html",
    "libwww_2.17.tar.Z",
    "urls.txt",
];
const USERS: &[&str] = &[
    "jdoe",
    "timbl",
    "masinter",
    "mccahill",
    "webmaster",
    "info",
    "ann-lee",
    "j.smith",
    "postmaster",
];
const GROUPS: &[&str] = &[
    "comp.infosystems.www.misc",
    "comp.infosystems.www.providers",
    "comp.infosystems.gopher",
    "comp.infosystems.wais",
    "alt.hypertext",
    "news.announce.newusers",
    "comp.mail.mime",
    "comp.protocols.tcp-ip",
];
const MONTHS: &[&str] =
    &["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const PEOPLE: &[(&str, &str)] = &[
    ("John Doe", "jdoe"),
    ("Jim Smith", "jim"),
    ("Ann Lee", "ann"),
    ("Larry M.", "lm"),
    ("Mark McC.", "mark"),
    ("Tim B.", "tbl"),
    ("Dan Connolly", "connolly"),
    ("Karen R.", "karen"),
];
const TOPICS: &[&str] = &[
    "URL syntax",
    "Common Internet Scheme Syntax",
    "Uniform Resource Locators",
    "the ftp typecode",
    "gopher selectors",
    "quoting URLs in mail",
    "relative links",
    "broken links in the FAQ",
    "Mosaic 2.4 and proxies",
    "the news scheme",
    "Security Considerations",
    "Installing the scanner",
];
const TITLES: &[&str] = &["Uniform Resource Locators (URL)", "Universal Resource Identifiers"];
const SUBJECTS: &[&str] = &[
    "The server",
    "Our mirror",
    "The new draft",
    "This document",
    "The gateway",
    "Every client",
    "The archive",
    "Mosaic",
    "The gopher menu",
    "A WAIS index",
    "The FAQ",
    "The mailing list",
    "Your browser",
    "The proxy",
    "That list",
    "The scheme registry",
];
const VERBS: &[&str] = &[
    "points to",
    "describes",
    "mirrors",
    "replaces",
    "fetches",
    "indexes",
    "lists",
    "refers to",
    "was moved next to",
    "still serves",
    "no longer carries",
    "summarises",
    "quotes",
];
const OBJECTS: &[&str] = &[
    "the current version",
    "the old paths",
    "every relative link",
    "a copy of the spec",
    "the usual set of papers",
    "the release notes",
    "the last three drafts",
    "an index of the archive",
    "the well-known ports",
    "all of section 3",
];
const TAILS: &[&str] = &[
    "",
    "",
    " as far as I know",
    " since last week",
    " for the time being",
    " on most days",
    " according to the maintainers",
    " without any warning",
    " unless the link breaks again",
];
const INTROS: &[&str] = &[
    "See",
    "Try",
    "It is at",
    "The full text is available from",
    "Fetch it from",
    "It is mirrored at",
    "Yes, Jim, I found it under",
    "Look under",
    "The list is at",
    "Details are in",
    "Send comments to",
    "Our copy moved to",
];
const CLAUSES: &[&str] = &[
    "and it should stay there.",
    "which is the one I meant.",
    "as the FAQ says.",
    "if the server is up.",
    "though the mirror lags a day.",
];
const LINK_TEXTS: &[(&str, &str)] = &[
    ("the", "[specification]("),
    ("our", "[mirror]("),
    ("this", "[link]("),
    ("the", "[release notes]("),
];
const MAIL_DECOYS: &[&str] = &[
    "Note: the server is rebooted at 10:30 every Friday.",
    "news: we shipped the new gateway today.",
    "The old copy is still in C:\\TEMP\\URLS.TXT on my PC.",
    "Get it by anonymous FTP from ds.internic.net:/rfc/ as before.",
    "The call is at 10:30:00 sharp, not 10:30 PM.",
    "Lines like <Subject: x> are not URLs either.",
    "mailto: bob is not an address, and neither is news:today.",
    "Warning: the ratio was 3:1 at best.",
    "TODO: point localhost:8080 at the new box.",
    "In 1993 we wrote ftp:nic.ddn.mil and hoped for the best.",
    "A drive letter such as C://x is no scheme.",
    "Typing http:// alone gets you nowhere.",
    "The URL: field stays empty.",
    "Re: Re: Fwd: the usual.",
];
const RFC_DECOYS: &[&str] = &[
    "Note: this section is informative.",
    "The host ds.internic.net:/rfc/ holds the files.",
    "Prefixes such as <Subject: x> or <a:b> are not URLs.",
    "The field is written \"Date: 10:30:00\" in the examples.",
    "A path like C:\\path is not a URL either.",
];
const DOCS_DECOYS: &[&str] = &[
    "Use `std::io::Read` for streams.",
    "See [the guide](../guide.md) and [the top](#top).",
    "**Note:** the flag is `--threads`.",
    "Set `key: value` in the config.",
    "The pattern `<a:b>` is not a URL.",
    "Point it at localhost:8080 while testing.",
    "news: we shipped version 0.2.",
];
const CODE: &[&str] = &[
    "$ urlsift extract --json --threads 1 docs/",
    "let x: u32 = 42;",
    "use std::io::Read;",
    "key: value",
    "$ urlsift lint corpus/",
    "if x: return 10:30",
];

#[cfg(test)]
mod tests {
    // A bench without the test harness compiles this module with its
    // tests left out.
    #[allow(unused_imports)]
    use super::*;

    /// Line and column of `offset`, counted independently of the
    /// generator: LF, CRLF and lone CR each end a line.
    fn position(buf: &[u8], offset: usize) -> (u64, u64) {
        let mut line = 1;
        let mut start = 0;
        for (i, &b) in buf[..offset].iter().enumerate() {
            let crlf_tail = b == b'\n' && i > 0 && buf[i - 1] == b'\r';
            if b == b'\r' || (b == b'\n' && !crlf_tail) {
                line += 1;
            }
            if b == b'\r' || b == b'\n' {
                start = i + 1;
            }
        }
        (line, (offset - start + 1) as u64)
    }

    /// The URL text that starts at `offset`: whitespace dropped, and after
    /// each line break the quote characters of the continuation prefix.
    fn rejoined(buf: &[u8], offset: usize, len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut after_break = false;
        for &b in &buf[offset..] {
            if out.len() == len {
                break;
            }
            match b {
                b'\n' | b'\r' => after_break = true,
                b' ' | b'\t' => {}
                b'>' if after_break => {}
                _ => {
                    after_break = false;
                    out.push(b);
                }
            }
        }
        out
    }

    #[test]
    fn same_seed_same_bytes() {
        for style in Style::ALL {
            let opts = GenOptions::new(7, 40_000, style);
            let a = generate(&opts);
            let b = generate(&opts);
            assert_eq!(a, b, "{style:?}");
            let c = generate(&GenOptions { seed: 8, ..opts });
            assert_ne!(a.0, c.0, "{style:?}: the seed changes nothing");
            assert!(a.0.len() >= 40_000 && a.0.len() < 50_000, "{style:?}: {}", a.0.len());
            assert!(!a.1.is_empty(), "{style:?}: nothing planted");
        }
    }

    #[test]
    fn positions_point_at_first_bytes() {
        for seed in 0..4 {
            for style in Style::ALL {
                let (buf, planted) = generate(&GenOptions::new(seed, 30_000, style));
                let mut last = 0;
                for p in &planted {
                    let at = p.offset as usize;
                    assert!(at >= last, "planted out of order");
                    last = at;
                    assert_eq!(position(&buf, at), (p.line, p.column), "{p:?}");
                    let text = rejoined(&buf, at, p.url.len());
                    assert_eq!(String::from_utf8_lossy(&text), p.url, "{p:?}");
                    if p.kind == "bare" || p.kind == "prefixed" {
                        assert!(buf[at..].starts_with(p.url.as_bytes()), "{p:?}");
                    }
                    let ok_end = |c: char| c.is_ascii_alphanumeric() || c == '/' || c == '*';
                    assert!(p.url.ends_with(ok_end), "{p:?}");
                }
            }
        }
    }

    #[test]
    fn zero_density_plants_nothing() {
        for style in Style::ALL {
            let (buf, planted) =
                generate(&GenOptions { density: 0, ..GenOptions::new(1, 20_000, style) });
            assert!(buf.len() >= 20_000);
            assert!(planted.is_empty(), "{style:?}: {:?}", planted[0]);
        }
    }

    #[test]
    fn every_form_and_hyphen_breaks_occur() {
        let (_, planted) = generate(&GenOptions::new(3, 300_000, Style::Mixed));
        for form in ["<URL:", "<URL: ", "URL=<", "URL:<", "<", "URL:", "bare", "bare()", "bare[]()"]
        {
            assert!(planted.iter().any(|p| p.form == form), "no {form}");
        }
        assert!(planted.iter().any(|p| p.alternative.is_some()));
    }
}
