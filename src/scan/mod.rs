//! The scanner: finds where URLs are in a buffer and never judges them.
//!
//! Every URL form urlsift knows contains the `:` that ends a scheme (the
//! `<URL:` wrapper's own colon included), so the candidate search is a
//! vectorised search for `:` (64 bytes at a time, see `colon_mask`). That
//! is the prefilter, and its contract is simple: a URL without a colon
//! does not exist, so no URL is missed. Each
//! colon is then confirmed or rejected by looking a few bytes back (the
//! scheme and any `<`, `<URL:`, `URL=<` or `URL:` before it) and forward
//! (what the scheme needs: `//`, an `@`, a `/`). Only confirmed candidates
//! cost more than that, so the work is linear in the input and close to the
//! speed of `memchr` on ordinary text.
//!
//! The scanner works over a window of a larger input so that files can be
//! streamed: see [`Scanner::scan`].

mod bare;
mod chars;
mod join;
mod wrapper;

/// How a URL was written in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `<URL:...>`, `URL=<...>` or `URL:<...>`: the recommended wrapper.
    Wrapped,
    /// `<scheme:...>`: plain angle brackets.
    Angle,
    /// `URL:scheme:...` without brackets.
    Prefixed,
    /// A URL in running text.
    Bare,
    /// A link given whole by a document's markup: a Markdown link
    /// destination, an HTML `href` or `src`, a POD `L<...>`, a reST target.
    /// Its extent is the markup's, so no punctuation is trimmed.
    Link,
    /// A URL with a placeholder in it (`${host}`, `{id}`, `%s`, `<name>`):
    /// a pattern for URLs rather than one, so it is reported but not
    /// validated.
    Template,
}

impl Kind {
    /// The name used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Wrapped => "wrapped",
            Kind::Angle => "angle",
            Kind::Prefixed => "prefixed",
            Kind::Bare => "bare",
            Kind::Link => "link",
            Kind::Template => "template",
        }
    }

    /// Bracketed forms are rejoined across lines; the others never are.
    pub fn is_bracketed(self) -> bool {
        matches!(self, Kind::Wrapped | Kind::Angle)
    }
}

/// A run of URL text copied from one contiguous stretch of source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Offset of the run's first byte in the URL text.
    pub text: usize,
    /// Offset of the same byte in the window the scanner was given.
    pub src: usize,
}

/// The pieces of a [`Found`]: a vector that holds two without allocating.
pub type Pieces = smallvec::SmallVec<[Piece; 2]>;

/// One URL as found: its text and where every byte of it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The form it was written in.
    pub kind: Kind,
    /// The URL, with the whitespace (and quote prefixes) of a rejoined
    /// wrapper removed. Never empty.
    pub text: Vec<u8>,
    /// Maps text offsets to window offsets: sorted, first piece at text 0.
    /// Inline for the one or two pieces nearly every URL has.
    pub pieces: Pieces,
    /// Text offsets of hyphens that stood right before a line break.
    pub hyphen_breaks: Vec<usize>,
    /// False for a wrapper that was never closed by `>`.
    pub closed: bool,
    /// The wrapper was given up as unclosed because its `>` was not within
    /// [`MAX_URL`] bytes (only with `closed` false).
    pub overlong: bool,
    /// The text ran on past [`MAX_URL`] bytes and was cut there; scanning
    /// resumed at the cut, reading the rest as text.
    pub truncated: bool,
    /// Window offset where scanning resumed after this URL: past a
    /// wrapper's `>`, or the end of a bare URL.
    pub next: usize,
    /// Window offset of the colon that triggered it (the one of `<URL:`
    /// for a wrapper): always on the line the URL's form opens on, so it
    /// says which part of a split input owns the URL.
    pub trigger: usize,
    /// Text offsets where a bare URL goes on after a line break it was
    /// joined across (a mailer broke it at the margin): each is the start
    /// of a tail, copied from the next line after its quote prefix and
    /// indentation. Empty for a URL on one line.
    pub joins: Vec<usize>,
    /// With `joins`: the length of the URL read without them, as it would
    /// end on its first line (the cut reading).
    pub unjoined: usize,
    /// With `joins`: every line was cut right after a URL delimiter, so
    /// the join stands; otherwise it stands only if the joined URL is
    /// valid and the cut one is not, which the caller decides (the tails
    /// then hold no colon, so the cut reading loses no URL).
    pub join_sure: bool,
    /// The scheme was glued to the word before it (`EUR.https://`,
    /// `Seehttp://`): the URL starts at the scheme, not the word.
    pub glued: bool,
}

impl Found {
    /// The window offset of URL text byte `t` (`t < text.len()`).
    pub fn source_of(&self, t: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.text <= t) - 1;
        self.pieces[i].src + (t - self.pieces[i].text)
    }

    /// Window offset of the first byte of the URL.
    pub fn start(&self) -> usize {
        self.pieces[0].src
    }

    /// Window offset of the last byte of the URL.
    pub fn last(&self) -> usize {
        self.source_of(self.text.len() - 1)
    }

    /// The URL `hay[start..end]`, taken whole (a document reader's link).
    pub fn single(kind: Kind, hay: &[u8], start: usize, end: usize) -> Found {
        Found {
            kind,
            text: hay[start..end].to_vec(),
            pieces: smallvec::smallvec![Piece { text: 0, src: start }],
            hyphen_breaks: Vec::new(),
            closed: true,
            overlong: false,
            truncated: false,
            next: end,
            trigger: 0,
            joins: Vec::new(),
            unjoined: 0,
            join_sure: false,
            glued: false,
        }
    }

    /// The URL as it reads without its joins: its first line's part, up
    /// to `unjoined` (a found URL without joins is returned as it is).
    pub fn unjoin(&self) -> Found {
        if self.joins.is_empty() {
            return self.clone();
        }
        let start = self.start();
        let mut f = Found::single(self.kind, &[], 0, 0);
        f.text = self.text[..self.unjoined].to_vec();
        f.pieces = smallvec::smallvec![Piece { text: 0, src: start }];
        f.truncated = self.truncated;
        f.next = self.next;
        f.trigger = self.trigger;
        f.glued = self.glued;
        f
    }
}

/// Where the scan of a stream goes on in its next window: the first byte
/// not scanned yet, and the first byte a scheme may start at (the end of
/// the last URL found; a scheme never reaches back into one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resume {
    /// Scanning goes on here.
    pub from: usize,
    /// No scheme starts before this (at most `from`).
    pub floor: usize,
}

/// What a scan of one window concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The whole window was scanned.
    Done,
    /// A wrapper opened at this window offset runs past the end of the
    /// window: scan again from here once more input is there. Everything
    /// before it has been reported.
    NeedMore(usize),
}

/// Finds URLs in byte windows. Stateless and cheap: make one per thread or
/// share it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scanner {
    _private: (),
}

impl Scanner {
    /// A scanner.
    pub fn new() -> Self {
        Scanner { _private: () }
    }

    /// Scans `hay[from..]` and appends what it finds to `out`, in order.
    ///
    /// `hay[..from]` is context only: it must start at a line start (the
    /// scanner looks back for `<URL:` and for the quote prefix of the line
    /// a wrapper opens on) and nothing in it is reported. Unless `eof`,
    /// `hay` may end anywhere, even inside a line or a UTF-8 sequence: a
    /// candidate that needs bytes past its end ends the scan with
    /// [`Outcome::NeedMore`].
    pub fn scan(&self, hay: &[u8], from: usize, eof: bool, out: &mut Vec<Found>) -> Outcome {
        let mut at = Resume { from, floor: from };
        self.scan_from(hay, &mut at, eof, Lead::default(), out)
    }

    /// [`Scanner::scan`] for the next window of a stream: it starts where
    /// the scan of the previous one stopped, `at` (which this updates for
    /// the next), and `hay` may start inside a line (a line too long to
    /// hold whole is streamed in pieces): `lead` says what the part of that
    /// line before `hay[0]` was. Context of 64 bytes before `at.from` is
    /// enough for every look back.
    pub fn scan_from(
        &self,
        hay: &[u8],
        at: &mut Resume,
        eof: bool,
        lead: Lead,
        out: &mut Vec<Found>,
    ) -> Outcome {
        self.scan_noting(hay, at, eof, lead, out, &mut Vec::new())
    }

    /// [`Scanner::scan_from`], also appending to `directives` where each
    /// `urlsift` that stands right before a colon of `hay[at.from..]`
    /// starts: every `urlsift: ` marker has its colon at the same place,
    /// so the colon sweep finds the markers a search of its own would
    /// (about a tenth of reading plain text). Candidates only: the caller
    /// reads what follows. A rescan notes a start again, never one out of
    /// order.
    pub(crate) fn scan_noting(
        &self,
        hay: &[u8],
        at: &mut Resume,
        eof: bool,
        lead: Lead,
        out: &mut Vec<Found>,
        directives: &mut Vec<usize>,
    ) -> Outcome {
        let mut pos = at.from;
        let mut floor = at.floor.min(at.from);
        let mut st = State { lines: LineStarts::default(), memo: bare::Memo::new(), lead, eof };
        let mut block = at.from;
        while block < hay.len() {
            let block_end = (block + 64).min(hay.len());
            let mut mask = colon_mask(&hay[block..block_end]);
            let mut next_block = block_end;
            while mask != 0 {
                let colon = block + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                note_directive(hay, colon, directives);
                if colon < pos {
                    continue;
                }
                match self.at_colon(hay, floor, colon, &mut st) {
                    Step::Reject => continue,
                    Step::Found(mut found, next) => {
                        found.next = next;
                        found.trigger = colon;
                        out.push(found);
                        (pos, floor) = (next, next);
                    }
                    Step::Skip(next) => (pos, floor) = (next, next),
                    Step::NeedMore(from) => {
                        *at = Resume { from, floor: from };
                        return Outcome::NeedMore(from);
                    }
                }
                if pos >= block_end {
                    // The colons left in this block and those of the
                    // blocks jumped over (inside a URL or a skipped
                    // wrapper) are not swept.
                    while mask != 0 {
                        note_directive(hay, block + mask.trailing_zeros() as usize, directives);
                        mask &= mask - 1;
                    }
                    let jumped = &hay[block_end..pos.min(hay.len())];
                    for c in memchr::memchr_iter(b':', jumped) {
                        note_directive(hay, block_end + c, directives);
                    }
                    next_block = pos;
                    break;
                }
            }
            block = next_block;
        }
        *at = Resume { from: hay.len().max(pos), floor };
        Outcome::Done
    }

    /// Confirms or rejects the candidate whose scheme ends at `colon`.
    fn at_colon(&self, hay: &[u8], floor: usize, colon: usize, st: &mut State) -> Step {
        let eof = st.eof;
        // Most colons in text are followed by a space ("Subject: ", "Note: ")
        // and only a wrapper (`<URL: `, `<http: `) may be: those are settled
        // on the byte before the word. A colon ending its line may still be
        // `<http:` broken before its `//`.
        let blank = hay.get(colon + 1).is_none_or(|&b| b == b' ' || b == b'\t');
        if blank && colon >= 8 && colon + 1 < hay.len() && short_word_after_no_lt(hay, colon) {
            return Step::Reject;
        }
        // At most `MAX_SCHEME` bytes back, never past `floor`: one bound,
        // so the loop tests one byte class per step.
        let lo = floor.max(colon.saturating_sub(MAX_SCHEME)).min(colon);
        let start =
            colon - hay[lo..colon].iter().rev().take_while(|&&b| chars::is_scheme(b)).count();
        if start == colon {
            return Step::Reject;
        }
        if colon + 1 == hay.len() && !eof {
            return Step::NeedMore(opener_before(hay, start));
        }
        let before = if start > 0 { hay[start - 1] } else { b'\n' };
        if blank && before != b'<' {
            return Step::Reject;
        }
        // Where a rescan must start for this candidate to be seen again
        // exactly as now (the walk back above stops there again).
        let rescan = start;
        let word = &hay[start..colon];
        if word.eq_ignore_ascii_case(b"URL") {
            if blank && start <= floor {
                return Step::Reject;
            }
            return self.after_url_label(hay, start, colon, st);
        }
        // A scheme starts with a letter; the walk back may have taken digits
        // or punctuation that belong to the prose ("2.http://", "-ftp://").
        let Some(lead) = word.iter().position(u8::is_ascii_alphabetic) else {
            return Step::Reject;
        };
        let start = start + lead;
        let before = if lead > 0 { hay[start - 1] } else { before };
        let scheme = &hay[start..colon];
        if before == b'<' {
            let kind = if start >= 5 && hay[start - 5..start - 1].eq_ignore_ascii_case(b"URL=") {
                Kind::Wrapped
            } else {
                Kind::Angle
            };
            let opener = if kind == Kind::Wrapped { start - 5 } else { start - 1 };
            match angle_body_ok(scheme, &hay[colon + 1..], eof) {
                Some(true) => {}
                Some(false) => return Step::Reject,
                None => return Step::NeedMore(opener),
            }
            return st.wrapper(hay, opener, start, kind);
        }
        if blank {
            return Step::Reject;
        }
        let (start, glued) = unglue(hay, start, colon);
        let open = bare::Open::before(hay, start);
        match bare::find(hay, start, colon, eof, &mut st.memo, open) {
            bare::Bare::Url { end, cut, raw } => {
                let mut found = Found::single(Kind::Bare, hay, start, end);
                found.truncated = cut;
                found.glued = glued;
                if cut {
                    return Step::Found(found, end);
                }
                match join::join(hay, start, raw, st.lead, eof, open) {
                    join::Join::No => Step::Found(found, end),
                    join::Join::More => Step::NeedMore(rescan),
                    join::Join::Yes { tails, sure } => {
                        found.unjoined = found.text.len();
                        found.join_sure = sure;
                        found.text = hay[start..raw].to_vec();
                        let mut next = end;
                        for (k, &(c, e, r)) in tails.iter().enumerate() {
                            let to = if k + 1 == tails.len() { e } else { r };
                            found.joins.push(found.text.len());
                            found.pieces.push(Piece { text: found.text.len(), src: c });
                            found.text.extend_from_slice(&hay[c..to]);
                            next = to;
                        }
                        Step::Found(found, next)
                    }
                }
            }
            bare::Bare::No => Step::Reject,
            bare::Bare::More => Step::NeedMore(rescan),
        }
    }

    /// `URL:` seen at `start..colon`: a wrapper, a prefix, or just prose.
    fn after_url_label(&self, hay: &[u8], start: usize, colon: usize, st: &mut State) -> Step {
        if start > 0 && hay[start - 1] == b'<' {
            // Whitespace after `<URL:` is skipped by the wrapper scan like
            // any other whitespace inside the brackets.
            return st.wrapper(hay, start - 1, colon + 1, Kind::Wrapped);
        }
        match hay.get(colon + 1) {
            // `URL:<scheme:...>`, but not a placeholder such as `URL:<URL>`.
            Some(b'<') => match scheme_then_colon(&hay[colon + 2..], st.eof) {
                Some(true) => st.wrapper(hay, start, colon + 2, Kind::Wrapped),
                Some(false) => Step::Reject,
                None => Step::NeedMore(start),
            },
            Some(&b) if b.is_ascii_alphabetic() => {
                let s = colon + 1;
                let mut c = s;
                while c < hay.len() && chars::is_scheme(hay[c]) && c - s < MAX_SCHEME {
                    c += 1;
                }
                match hay.get(c) {
                    Some(b':') => {}
                    // A scheme of exactly `MAX_SCHEME` bytes may still be
                    // followed by its colon in the next window.
                    None if !st.eof => return Step::NeedMore(start),
                    _ => return Step::Reject,
                }
                match bare::end(hay, c + 1, s + MAX_URL, st.eof, bare::Open::default()) {
                    bare::End::At { end, .. } if end > c + 1 => {
                        Step::Found(Found::single(Kind::Prefixed, hay, s, end), end)
                    }
                    bare::End::At { .. } => Step::Reject,
                    bare::End::Cut => {
                        let end = s + MAX_URL;
                        let mut found = Found::single(Kind::Prefixed, hay, s, end);
                        found.truncated = true;
                        Step::Found(found, end)
                    }
                    bare::End::More => Step::NeedMore(start),
                }
            }
            _ => Step::Reject,
        }
    }
}

/// True when the 8 bytes before `colon` hold no `<` but a byte below
/// `+` (a blank, a line break, most punctuation): then the word before the
/// colon is shorter than 8 bytes and no `<` opens it, which settles a
/// `Note: ` of prose in two word-sized tests instead of a walk back over
/// the word (that walk doubled the scan time of text full of `Word: `).
#[inline]
fn short_word_after_no_lt(hay: &[u8], colon: usize) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let w = u64::from_ne_bytes(hay[colon - 8..colon].try_into().expect("8 bytes"));
    // A zero byte of `x` sets its high bit in `zero(x)` (and only then,
    // up to false positives above a true zero, which do not matter here:
    // both tests only ask whether there is one).
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let no_lt = zero(w ^ (ONES * u64::from(b'<'))) == 0;
    // Bytes below `+` (0x2b) have a high bit clear and, less 0x2b, borrow.
    let below_plus = w.wrapping_sub(ONES * 0x2b) & !w & HIGHS != 0;
    no_lt && below_plus
}

/// Schemes a reader sees in a word they were glued to (`EUR.https://`,
/// `websitehttps://`, `Seehttp://`); a longer one before any that ends it
/// (`sftp` before `ftp`, `news` before `ws`).
const GLUE: [&[u8]; 16] = [
    b"mailto", b"gopher", b"telnet", b"https", b"http", b"ftps", b"sftp", b"ftp", b"news", b"nntp",
    b"file", b"ircs", b"irc", b"wss", b"ws", b"ssh",
];

/// Registered schemes that end in one of [`GLUE`]: such a word is a scheme
/// of its own, not a glued one.
const ENDS_IN_GLUE: [&[u8]; 4] = [b"shttp", b"tftp", b"snews", b"snntp"];

/// Where the scheme of a bare URL whose scheme word is `hay[start..colon]`
/// starts, and whether it was cut from the word it was glued to: at the
/// longest of [`GLUE`] the word ends in, unless the word is a scheme of
/// its own or the two are joined by `+` (`svn+ssh`, `git+https`: one
/// scheme over another).
fn unglue(hay: &[u8], start: usize, colon: usize) -> (usize, bool) {
    let word = &hay[start..colon];
    let ends =
        |s: &[u8]| word.len() > s.len() && word[word.len() - s.len()..].eq_ignore_ascii_case(s);
    // Most colons in prose and mail headers (`Note:`, `Subject:`) are not
    // followed by `//` and end no `mailto` or `news`: they are settled by
    // two loads, not by the table (the table cost a tenth of the scan).
    if hay.get(colon + 1..colon + 3) != Some(b"//") && !ends(b"mailto") && !ends(b"news") {
        return (start, false);
    }
    if GLUE.iter().chain(&ENDS_IN_GLUE).any(|s| word.eq_ignore_ascii_case(s)) {
        return (start, false);
    }
    match GLUE.iter().find(|s| ends(s)) {
        Some(s) if hay[colon - s.len() - 1] != b'+' => (colon - s.len(), true),
        _ => (start, false),
    }
}

/// Where a rescan must start to see the candidate whose scheme word starts
/// at `start` again: at a `<` or `URL=<` right before it, else at `start`.
fn opener_before(hay: &[u8], start: usize) -> usize {
    if start == 0 || hay[start - 1] != b'<' {
        return start;
    }
    let lt = start - 1;
    if lt >= 4 && hay[lt - 4..lt].eq_ignore_ascii_case(b"URL=") { lt - 4 } else { lt }
}

/// Bit `i` set when `block[i]` is `:` (`block` is at most 64 bytes).
///
/// This is the prefilter: one call covers every colon in 64 bytes.
/// Calling `memchr` once per colon cost more than the rest of the scan on
/// mail, where a colon comes every hundred bytes or so, and a plain loop
/// is not vectorised by the compiler.
#[inline]
fn colon_mask(block: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if let Ok(b) = <&[u8; 64]>::try_from(block) {
        return simd::eq_mask64(b, b':');
    }
    let mut mask = 0u64;
    for (i, &c) in block.iter().enumerate() {
        mask |= u64::from(c == b':') << i;
    }
    mask
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };

    /// Bit `i` set when `b[i] == needle`, with SSE2.
    #[inline]
    pub(super) fn eq_mask64(b: &[u8; 64], needle: u8) -> u64 {
        let mut mask = 0u64;
        // SAFETY: SSE2 is part of the x86_64 baseline, so the intrinsics
        // are always available; `b` is 64 bytes long, so each 16-byte load
        // at 16 * k is in bounds, and `loadu` needs no alignment.
        unsafe {
            let n = _mm_set1_epi8(needle as i8);
            for k in 0..4 {
                let v = _mm_loadu_si128(b.as_ptr().add(16 * k).cast::<__m128i>());
                let m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, n)) as u32 as u64;
                mask |= (m & 0xffff) << (16 * k);
            }
        }
        mask
    }
}

/// Notes where `urlsift` starts when it stands right before the colon at
/// `hay[colon]` (see [`Scanner::scan_noting`]).
#[inline]
fn note_directive(hay: &[u8], colon: usize, directives: &mut Vec<usize>) {
    const WORD: &[u8] = b"urlsift";
    if colon >= WORD.len() && &hay[colon - WORD.len()..colon] == WORD {
        let at = colon - WORD.len();
        if directives.last().is_none_or(|&last| last < at) {
            directives.push(at);
        }
    }
}

/// Schemes longer than this are prose, not schemes; the bound also keeps
/// the walk back over a long run of letters constant-time.
const MAX_SCHEME: usize = 32;

/// The longest URL, in bytes of source from where its text starts (the
/// first byte of a bare URL, the byte after `<URL:` or `<` of a wrapper,
/// whitespace included): a bare or prefixed URL that runs on is cut here,
/// and a wrapper whose `>` is not within it is unclosed. No real URL comes
/// near it (browsers stop at 2 MB, most servers at 8 KB), and it is what
/// bounds the memory of a streamed scan: a window never holds more than
/// one URL of this size plus a little context.
pub const MAX_URL: usize = 1 << 20;

/// Whether `rest` opens with `scheme:` (`None`: it ends before that can
/// be told, and more may come).
fn scheme_then_colon(rest: &[u8], eof: bool) -> Option<bool> {
    let n = rest.iter().take(MAX_SCHEME).take_while(|&&b| chars::is_scheme(b)).count();
    // Even a scheme of exactly `MAX_SCHEME` bytes may still be followed
    // by its colon in the next window.
    if n == rest.len() && !eof {
        return None;
    }
    Some(n > 0 && rest[0].is_ascii_alphabetic() && rest.get(n) == Some(&b':'))
}

/// What follows `<scheme:` must be what the scheme needs: `//` for the
/// Internet schemes and unknown ones, a non-space for the schemes whose
/// body is an address or identifier. This keeps `<Subject:`, `<a:b>` and
/// XML names out.
///
/// Whitespace is ignored inside brackets, so `<http:` may end its line
/// and the `//` start the next. `None`: the window ends before that can
/// be told.
fn angle_body_ok(scheme: &[u8], rest: &[u8], eof: bool) -> Option<bool> {
    // Blanks are bounded like a URL, so a window never holds more.
    let rest = &rest[..rest.len().min(MAX_URL)];
    let eof = eof || rest.len() == MAX_URL;
    let mut i = rest.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    match rest.get(i) {
        Some(b'\r') if rest.get(i + 1) == Some(&b'\n') => i += 2,
        Some(b'\n' | b'\r') => i += 1,
        _ => {}
    }
    i += rest[i..].iter().take_while(|&&b| b == b' ' || b == b'\t' || chars::is_quote(b)).count();
    if rest.len() < i + 2 && !eof {
        return None;
    }
    if rest[i..].starts_with(b"//") {
        return Some(true);
    }
    let opaque = || {
        ["mailto", "news", "mid", "cid", "urn", "file"]
            .iter()
            .any(|s| scheme.eq_ignore_ascii_case(s.as_bytes()))
    };
    // `<File::Path>` (a Perl, C++ or Rust module path) is not `file:`.
    Some(
        rest.first().is_some_and(|&b| !chars::is_space(b) && !matches!(b, b'>' | b':')) && opaque(),
    )
}

/// What the scanner knows about the line a window starts in, when the
/// window starts inside it (a line too long to hold whole is streamed in
/// pieces): what a wrapper opening on that line needs, its quote prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lead {
    /// Quote characters (`>`, `|`) in the line's leading run of blanks and
    /// quote characters, before the window.
    pub quotes: usize,
    /// Whether that run reaches the window: the line held nothing but
    /// blanks and quote characters before it.
    pub open: bool,
    /// Characters of the line before the window (a bare URL's join looks
    /// at the length of its line).
    pub column: usize,
    /// Characters of the line before that one, when the window starts
    /// at or inside the line after it (0 at the start of input).
    pub above: usize,
}

impl Default for Lead {
    /// A window that starts at a line start.
    fn default() -> Lead {
        Lead { quotes: 0, open: true, column: 0, above: 0 }
    }
}

impl Lead {
    /// The lead of the line holding the byte right after `bytes`, when this
    /// is the lead of the line holding `bytes[0]`.
    pub fn after(self, bytes: &[u8]) -> Lead {
        let (mut lead, rest) = match memchr::memrchr2(b'\n', b'\r', bytes) {
            Some(i) => {
                // The line that break ends (a CRLF is one break).
                let mut end = i;
                if bytes[i] == b'\n' && i > 0 && bytes[i - 1] == b'\r' {
                    end -= 1;
                }
                let above = match memchr::memrchr2(b'\n', b'\r', &bytes[..end]) {
                    Some(j) => join::chars_in(&bytes[j + 1..end]),
                    None => self.column + join::chars_in(&bytes[..end]),
                };
                let rest = &bytes[i + 1..];
                let column = join::chars_in(rest);
                (Lead { above, column, ..Lead::default() }, rest)
            }
            None => {
                let column = self.column + join::chars_in(bytes);
                (Lead { column, ..self }, bytes)
            }
        };
        if lead.open {
            for &b in rest {
                match b {
                    b' ' | b'\t' => {}
                    _ if chars::is_quote(b) => lead.quotes += 1,
                    _ => {
                        lead.open = false;
                        break;
                    }
                }
            }
        }
        lead
    }
}

/// The state of one scan that candidates share.
struct State {
    lines: LineStarts,
    memo: bare::Memo,
    /// The line `hay` starts in.
    lead: Lead,
    eof: bool,
}

impl State {
    /// Scans a wrapper opening at `opener` whose text starts at `body`.
    fn wrapper(&mut self, hay: &[u8], opener: usize, body: usize, kind: Kind) -> Step {
        let line_start = self.lines.before(hay, opener);
        // Only the first line of the window can have started before it.
        let lead = if line_start == 0 { self.lead } else { Lead::default() };
        wrapper::scan(hay, line_start, lead, opener, body, kind, self.eof)
    }
}

/// Finds the start of the line holding an offset. Offsets only grow
/// during a scan, so each byte is searched once: a line of a million
/// `<URL:` openers costs one pass, not a million.
#[derive(Default)]
struct LineStarts {
    start: usize,
    searched: usize,
}

impl LineStarts {
    fn before(&mut self, hay: &[u8], at: usize) -> usize {
        if at > self.searched {
            if let Some(i) = memchr::memrchr2(b'\n', b'\r', &hay[self.searched..at]) {
                self.start = self.searched + i + 1;
            }
            self.searched = at;
        }
        self.start
    }
}

/// The verdict on one candidate colon.
enum Step {
    /// Not a URL: try the next colon.
    Reject,
    /// A URL, and where scanning resumes.
    Found(Found, usize),
    /// Not a URL, but the bytes up to here are consumed (an empty wrapper).
    Skip(usize),
    /// The window ends inside a wrapper opened here.
    NeedMore(usize),
}

#[cfg(test)]
mod tests;
