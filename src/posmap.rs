//! Position maps: how every byte of a decoded buffer traces back to a byte
//! of the file it came from, and how that byte gets its line and column.
//!
//! Mail hides text behind layers (mbox `>From ` quoting, header folding,
//! RFC 2047 encoded words, quoted-printable or base64, a legacy charset),
//! and the scanner must read the text with every layer undone: a URL split
//! by a quoted-printable soft break is only one URL once the break is gone.
//! Yet a report must point into the file the user has. So each decoding
//! step records a [`PosMap`] from its output to its input, the steps are
//! chained with [`Trace`] (a linked list on the stack of the MIME walk,
//! so no map is ever copied or composed), and only the few offsets that
//! end up in a report are pushed back through the chain.
//!
//! A map is a sorted list of runs. In a *linear* run output byte `out + k`
//! came from input byte `src + k` (copied text); in a *point* run every
//! output byte came from the single input byte `src` (the `=` of a `=E9`
//! escape, the Latin-1 byte behind a two-byte UTF-8 character). Input that
//! produced no output (a soft line break, padding) simply has no run.

use crate::extract::{Extracted, excerpt_of};
use crate::span::Position;

/// How far from a finding an excerpt of the file's line is looked for: a
/// line may be megabytes long, and an excerpt shows a few hundred bytes.
pub(crate) const EXCERPT_REACH: usize = 512;

/// Moves a URL found in a decoded buffer to the bytes it was decoded from.
/// `resolve` maps an offset in the decoded buffer to one in `original`,
/// which starts at file offset `base` and is indexed by `lines`. Excerpts
/// are taken again from `original`: the decoded line would not match the
/// column.
pub(crate) fn relocate(
    url: &mut Extracted,
    resolve: &dyn Fn(usize) -> usize,
    original: &[u8],
    base: u64,
    lines: &LineIndex,
) {
    let place = |p: Position| lines.position(resolve(p.offset as usize));
    url.start = place(url.start);
    url.end = place(url.end);
    for f in &mut url.findings {
        f.start = place(f.start);
        f.end = place(f.end);
        for (s, e) in &mut f.extra_spans {
            (*s, *e) = (place(*s), place(*e));
        }
        if f.excerpt.is_some() {
            let o = (f.start.offset - base) as usize;
            let reach = o.saturating_sub(EXCERPT_REACH);
            let lo = memchr::memrchr2(b'\n', b'\r', &original[reach..o])
                .map_or(reach, |i| reach + i + 1);
            let end = (o + EXCERPT_REACH).min(original.len());
            let hi = memchr::memchr2(b'\n', b'\r', &original[o..end]).map_or(end, |i| o + i);
            let lo_column = f.start.column - (o - lo) as u64;
            let at = f.start.column - lo_column + 1;
            let (excerpt, column) = excerpt_of(&original[lo..hi], at);
            f.excerpt = Some(excerpt.to_vec());
            f.excerpt_column = lo_column + column - 1;
        }
    }
}

/// One run of a [`PosMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    /// Offset of the run's first byte in the output.
    out: usize,
    /// Offset in the input of the byte(s) it came from.
    src: usize,
    /// Output `out + k` came from `src + k` (else from `src` alone).
    linear: bool,
}

/// Maps offsets in a decoded buffer to offsets in the buffer it was
/// decoded from. Offsets only grow together: decoders read forward.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PosMap {
    runs: Vec<Run>,
}

impl PosMap {
    /// The input offset that output byte `out` came from. `out` must be the
    /// offset of a byte that was produced (less than the output length).
    pub fn map(&self, out: usize) -> usize {
        let i = self.runs.partition_point(|r| r.out <= out);
        debug_assert!(i > 0, "offset {out} before the first run");
        let r = self.runs[i.saturating_sub(1)];
        if r.linear { r.src + (out - r.out) } else { r.src }
    }

    /// The runs in order: `(first output offset, input offset, linear)`,
    /// for composing maps run by run rather than byte by byte.
    pub(crate) fn runs_iter(&self) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
        self.runs.iter().map(|r| (r.out, r.src, r.linear))
    }

    /// Moves every input offset by `by`: the map of a piece decoded alone
    /// becomes the map into the whole it was cut from.
    pub(crate) fn shift_src(&mut self, by: usize) {
        for r in &mut self.runs {
            r.src += by;
        }
    }

    /// Number of runs.
    #[cfg(test)]
    pub fn runs(&self) -> usize {
        self.runs.len()
    }
}

impl PosMap {
    /// The map of two decodings in a row: `self` maps this output to the
    /// output of `inner`, which maps that to its input. `len` is the
    /// length of this output.
    pub(crate) fn then(&self, len: usize, inner: &PosMap) -> PosMap {
        let mut b = MapBuilder::new();
        for (i, r) in self.runs.iter().enumerate() {
            let end = self.runs.get(i + 1).map_or(len, |n| n.out);
            if !r.linear {
                b.point(inner.map(r.src), end - r.out);
                continue;
            }
            // Cut the stretch where the inner map's runs change.
            let (mut mid, stop) = (r.src, r.src + (end - r.out));
            while mid < stop {
                let j = inner.runs.partition_point(|x| x.out <= mid).saturating_sub(1);
                let ir = inner.runs[j];
                let next = inner.runs.get(j + 1).map_or(stop, |x| x.out).min(stop);
                if ir.linear {
                    b.copy(ir.src + (mid - ir.out), next - mid);
                } else {
                    b.point(ir.src, next - mid);
                }
                mid = next;
            }
        }
        b.finish()
    }
}

/// A [`PosMap`] of a stream decoded piece by piece, of which only the
/// runs from some point on are kept: the scanner asks for offsets in
/// order, and never far behind what it read last, so what lies before is
/// forgotten and the map stays bounded whatever the stream's length.
#[derive(Debug, Default)]
pub(crate) struct SlidingMap {
    runs: std::collections::VecDeque<Run>,
    /// Output bytes appended so far.
    produced: usize,
}

impl SlidingMap {
    /// Appends the map of the next `len` output bytes (its output offsets
    /// count from 0 at the first of them).
    pub fn append(&mut self, piece: &PosMap, len: usize) {
        for r in &piece.runs {
            let out = self.produced + r.out;
            let extends = self
                .runs
                .back()
                .is_some_and(|b| b.linear && r.linear && b.src + (out - b.out) == r.src);
            if !extends {
                self.runs.push_back(Run { out, src: r.src, linear: r.linear });
            }
        }
        self.produced += len;
    }

    /// Output bytes appended so far.
    pub fn produced(&self) -> usize {
        self.produced
    }

    /// The input offset of output byte `out`, which must not be before
    /// what was forgotten.
    pub fn map(&self, out: usize) -> usize {
        let i = self.runs.partition_point(|r| r.out <= out);
        debug_assert!(i > 0, "offset {out} forgotten or before the first run");
        let r = self.runs[i.saturating_sub(1)];
        if r.linear { r.src + out.saturating_sub(r.out) } else { r.src }
    }

    /// Forgets the runs that only map offsets before `out`.
    pub fn forget_before(&mut self, out: usize) {
        while self.runs.len() > 1 && self.runs[1].out <= out {
            self.runs.pop_front();
        }
    }

    /// Runs kept, for tests of the bound.
    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.runs.len()
    }
}

/// Builds a [`PosMap`] while a decoder appends to its output, in step.
#[derive(Debug, Default)]
pub struct MapBuilder {
    runs: Vec<Run>,
    out: usize,
}

impl MapBuilder {
    /// A builder for an empty output.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next `len` output bytes are input bytes `src..src + len`.
    /// Continues the previous run when the copy is contiguous with it, so a
    /// byte-by-byte caller still gets one run per stretch.
    pub fn copy(&mut self, src: usize, len: usize) {
        if len == 0 {
            return;
        }
        let extends =
            self.runs.last().is_some_and(|r| r.linear && r.src + (self.out - r.out) == src);
        if !extends {
            self.runs.push(Run { out: self.out, src, linear: true });
        }
        self.out += len;
    }

    /// The next `len` output bytes all came from input byte `src`.
    pub fn point(&mut self, src: usize, len: usize) {
        if len == 0 {
            return;
        }
        if len == 1 {
            // A single byte is both kinds: let `copy` merge it.
            self.copy(src, 1);
            return;
        }
        self.runs.push(Run { out: self.out, src, linear: false });
        self.out += len;
    }

    /// Output bytes recorded so far; decoders assert it matches their
    /// output length.
    pub fn produced(&self) -> usize {
        self.out
    }

    /// The finished map.
    pub fn finish(self) -> PosMap {
        PosMap { runs: self.runs }
    }
}

/// One step from a buffer towards the message it was cut or decoded from.
#[derive(Clone, Copy, Debug)]
pub enum Layer<'a> {
    /// The buffer is the message bytes themselves.
    Root,
    /// The buffer is a slice starting at this offset of the one above.
    Shift(usize),
    /// The buffer was decoded from the one above.
    Map(&'a PosMap),
}

/// A chain of layers from some buffer back to the message bytes. Built on
/// the stack as the MIME walk descends, so it costs nothing to extend.
#[derive(Clone, Copy, Debug)]
pub struct Trace<'a> {
    layer: Layer<'a>,
    up: Option<&'a Trace<'a>>,
}

impl<'a> Trace<'a> {
    /// The trace of the message bytes themselves.
    pub const ROOT: Trace<'static> = Trace { layer: Layer::Root, up: None };

    /// The trace of a buffer one layer below `self`.
    pub fn push(&'a self, layer: Layer<'a>) -> Trace<'a> {
        Trace { layer, up: Some(self) }
    }

    /// The offset in the message of byte `o` of the traced buffer.
    pub fn resolve(&self, mut o: usize) -> usize {
        let mut t = Some(self);
        while let Some(x) = t {
            o = match x.layer {
                Layer::Root => o,
                Layer::Shift(s) => o + s,
                Layer::Map(m) => m.map(o),
            };
            t = x.up;
        }
        o
    }
}

/// Line starts of one message, to turn message offsets into [`Position`]s
/// of the whole file exactly as `span::LineCursor` does: LF, CRLF and a lone
/// CR are line breaks, and the LF of a CRLF starts no new line.
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// File offset of the message's first byte.
    base: u64,
    /// Line number of the message's first byte.
    first_line: u64,
    /// Column of the message's first byte (1 unless an rnews byte count
    /// started it mid-line).
    first_column: u64,
    /// `(offset after a break byte, line number there)`, in order. A CRLF
    /// gives two entries with the same line number, as the cursor moves
    /// its line start past both bytes.
    starts: Vec<(usize, u64)>,
}

impl LineIndex {
    /// Indexes `bytes`, which start at file offset `base` on line
    /// `first_line`, column `first_column`.
    pub fn new(bytes: &[u8], base: u64, first_line: u64, first_column: u64) -> Self {
        let mut starts = Vec::new();
        let mut line = first_line;
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            if !(bytes[i] == b'\n' && i > 0 && bytes[i - 1] == b'\r') {
                line += 1;
            }
            starts.push((i + 1, line));
        }
        LineIndex { base, first_line, first_column, starts }
    }

    /// The file position of message byte `o`.
    pub fn position(&self, o: usize) -> Position {
        let i = self.starts.partition_point(|&(s, _)| s <= o);
        if i == 0 {
            let column = self.first_column + o as u64;
            return Position { offset: self.base + o as u64, line: self.first_line, column };
        }
        let (start, line) = self.starts[i - 1];
        Position { offset: self.base + o as u64, line, column: (o - start) as u64 + 1 }
    }
}

/// Line breaks in `bytes` as `LineCursor` counts them (a CRLF once), for
/// bytes that start at a line start.
pub fn count_lines(bytes: &[u8]) -> u64 {
    if memchr::memchr(b'\r', bytes).is_none() {
        return memchr::memchr_iter(b'\n', bytes).count() as u64;
    }
    memchr::memchr2_iter(b'\n', b'\r', bytes)
        .filter(|&i| !(bytes[i] == b'\n' && i > 0 && bytes[i - 1] == b'\r'))
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::LineCursor;

    #[test]
    fn runs_merge_and_points_stay_put() {
        let mut b = MapBuilder::new();
        b.copy(10, 3); // out 0..3 <- 10..13
        b.copy(13, 2); // contiguous: same run
        b.point(20, 2); // out 5, 6 <- 20
        b.copy(21, 1); // a single byte after a point run: new run
        b.copy(22, 1); // then contiguous with it
        let m = b.finish();
        assert_eq!(m.runs(), 3);
        let got: Vec<usize> = (0..9).map(|o| m.map(o)).collect();
        assert_eq!(got, [10, 11, 12, 13, 14, 20, 20, 21, 22]);
    }

    #[test]
    fn traces_chain_shifts_and_maps() {
        let mut b = MapBuilder::new();
        b.copy(5, 4);
        let m = b.finish();
        let root = Trace::ROOT;
        let part = root.push(Layer::Shift(100));
        let decoded = part.push(Layer::Map(&m));
        assert_eq!(decoded.resolve(2), 107);
    }

    #[test]
    fn line_index_agrees_with_the_line_cursor() {
        let text = b"ab\r\ncd\ref\n\ngh\r\n\r\nij";
        let idx = LineIndex::new(text, 1000, 7, 1);
        for o in 0..text.len() {
            let p = LineCursor::new().advance(text, 0, o as u64);
            let q = idx.position(o);
            assert_eq!((q.offset, q.line, q.column), (1000 + o as u64, p.line + 6, p.column));
        }
        assert_eq!(count_lines(text), 6);
    }

    #[test]
    fn composed_maps_agree_byte_by_byte() {
        let mut inner = MapBuilder::new();
        inner.copy(10, 3); // 0..3 <- 10..13
        inner.point(20, 2); // 3, 4 <- 20
        inner.copy(30, 4); // 5..9 <- 30..34
        let inner = inner.finish();
        let mut outer = MapBuilder::new();
        outer.copy(1, 6); // 0..6 <- 1..7: across three inner runs
        outer.point(8, 3); // 6..9 <- 8
        let outer = outer.finish();
        let both = outer.then(9, &inner);
        for o in 0..9 {
            assert_eq!(both.map(o), inner.map(outer.map(o)), "offset {o}");
        }
    }

    #[test]
    fn a_sliding_map_maps_as_the_whole_and_forgets() {
        let mut whole = MapBuilder::new();
        let mut sliding = SlidingMap::default();
        let mut src = 0;
        let mut checked = Vec::new();
        for piece in 0..50 {
            let mut b = MapBuilder::new();
            for k in 0..10 {
                // Gaps (soft breaks) and points (escapes) in every piece.
                if k % 3 == 0 {
                    b.point(src, 2);
                    whole.point(src, 2);
                } else {
                    b.copy(src, 4);
                    whole.copy(src, 4);
                }
                src += 5 + piece % 2;
            }
            let (from, len) = (sliding.produced(), b.produced());
            sliding.append(&b.finish(), len);
            for o in from..sliding.produced() {
                checked.push((o, sliding.map(o)));
                sliding.forget_before(o);
                assert!(sliding.kept() <= 11, "runs kept: {}", sliding.kept());
            }
        }
        let whole = whole.finish();
        for (o, got) in checked {
            assert_eq!(got, whole.map(o), "offset {o}");
        }
    }
}
