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
use crate::span::{LineCursor, Position};

/// How far from a finding an excerpt of the file's line is looked for: a
/// line may be megabytes long, and an excerpt shows a few hundred bytes.
pub(crate) const EXCERPT_REACH: usize = 512;

/// Moves a URL found in a decoded buffer to the bytes it was decoded from.
/// `resolve` maps an offset in the decoded buffer to one in `original`,
/// which starts at file offset `base` and is indexed by `lines`. Excerpts
/// are taken again from `original`: the decoded line would not match the
/// column. `lines` gives the file position of an offset in `original`
/// ([`LineIndex::position`], or a table of them).
pub(crate) fn relocate(
    url: &mut Extracted,
    resolve: &dyn Fn(usize) -> usize,
    original: &[u8],
    base: u64,
    lines: &dyn Fn(usize) -> Position,
) {
    let place = |p: Position| lines(resolve(p.offset as usize));
    url.start = place(url.start);
    url.end = place(url.end);
    // A decoding layer may have changed the bytes (an entity, `=3D`, a
    // charset) or dropped some (a soft line break): the text stands for
    // the file's bytes only if they are the same.
    url.verbatim = url.verbatim && is_copy_of(&url.url, original, base, url.start, url.end);
    // A rejoined URL's runs, placed in the file, stand for the file's
    // bytes only if each is a copy of them (an entity inside one is not).
    let mut pieces = std::mem::take(&mut url.pieces);
    for p in &mut pieces {
        p.1 = lines(resolve(p.1 as usize)).offset;
    }
    let copies = pieces.iter().enumerate().all(|(k, &(t0, f0))| {
        let t1 = pieces.get(k + 1).map_or(url.url.len() as u64, |p| p.0);
        let Some(f0) = f0.checked_sub(base) else { return false };
        let (t0, t1, f0) = (t0 as usize, t1 as usize, f0 as usize);
        original.get(f0..f0 + (t1 - t0)) == url.url.get(t0..t1)
    });
    if copies {
        url.pieces = pieces;
    }
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

/// Whether `url` is exactly the bytes `start..=end` of `original`, which
/// holds the file from offset `base`.
pub(crate) fn is_copy_of(
    url: &[u8],
    original: &[u8],
    base: u64,
    start: Position,
    end: Position,
) -> bool {
    let (Some(s), Some(e)) = (start.offset.checked_sub(base), end.offset.checked_sub(base)) else {
        return false;
    };
    s <= e && original.get(s as usize..=e as usize) == Some(url)
}

/// The runs of a [`PosMap`], packed: `(out, src)` pairs with the *point*
/// flag in the top bit of `src`. Offsets that fit are kept in 32 bits (8
/// bytes a run, a third of a struct of two `usize`s and a `bool`): a
/// document makes a run every few dozen bytes, and fresh pages were a
/// good part of reading one. The first offset that does not fit widens
/// every run.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Runs {
    Narrow(Vec<(u32, u32)>),
    Wide(Vec<(usize, usize)>),
}

impl Default for Runs {
    fn default() -> Self {
        Runs::Narrow(Vec::new())
    }
}

const NARROW_POINT: u32 = 1 << 31;
const WIDE_POINT: usize = 1 << (usize::BITS - 1);

impl Runs {
    fn len(&self) -> usize {
        match self {
            Runs::Narrow(v) => v.len(),
            Runs::Wide(v) => v.len(),
        }
    }

    /// Run `i`: `(first output offset, input offset, linear)`.
    fn get(&self, i: usize) -> (usize, usize, bool) {
        match self {
            Runs::Narrow(v) => unpack(v[i]),
            Runs::Wide(v) => {
                let (out, src) = v[i];
                (out, src & !WIDE_POINT, src & WIDE_POINT == 0)
            }
        }
    }

    fn last(&self) -> Option<(usize, usize, bool)> {
        self.len().checked_sub(1).map(|i| self.get(i))
    }

    /// The number of runs that start at or before output offset `out`.
    fn starting_by(&self, out: usize) -> usize {
        match self {
            Runs::Narrow(v) => v.partition_point(|r| r.0 as usize <= out),
            Runs::Wide(v) => v.partition_point(|r| r.0 <= out),
        }
    }

    fn push(&mut self, out: usize, src: usize, linear: bool) {
        if let Runs::Narrow(v) = self {
            match (u32::try_from(out), u32::try_from(src)) {
                (Ok(o), Ok(s)) if s < NARROW_POINT => {
                    v.push((o, if linear { s } else { s | NARROW_POINT }));
                    return;
                }
                _ => {
                    let wide = v.iter().map(|&r| {
                        let (o, s, l) = unpack(r);
                        (o, if l { s } else { s | WIDE_POINT })
                    });
                    *self = Runs::Wide(wide.collect());
                }
            }
        }
        if let Runs::Wide(v) = self {
            debug_assert!(src < WIDE_POINT);
            v.push((out, if linear { src } else { src | WIDE_POINT }));
        }
    }
}

/// A narrow run as `(first output offset, input offset, linear)`.
fn unpack((out, src): (u32, u32)) -> (usize, usize, bool) {
    (out as usize, (src & !NARROW_POINT) as usize, src & NARROW_POINT == 0)
}

/// Maps offsets in a decoded buffer to offsets in the buffer it was
/// decoded from. Offsets only grow together: decoders read forward.
///
/// A map is a sorted list of runs: in a *linear* run output byte
/// `out + k` came from input byte `src + k`; in a *point* run every output
/// byte came from input byte `src`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PosMap {
    runs: Runs,
}

impl PosMap {
    /// The input offset that output byte `out` came from. `out` must be the
    /// offset of a byte that was produced (less than the output length).
    pub fn map(&self, out: usize) -> usize {
        let i = self.runs.starting_by(out);
        debug_assert!(i > 0, "offset {out} before the first run");
        let (r_out, src, linear) = self.runs.get(i.saturating_sub(1));
        if linear { src + (out - r_out) } else { src }
    }

    /// [`PosMap::map`] of each of `sorted` (in increasing order), in one
    /// walk over the runs: a document's map has a run every few dozen
    /// bytes, and a search per offset missed the cache on every step.
    pub(crate) fn map_sorted(&self, sorted: &[usize]) -> Vec<usize> {
        debug_assert!(sorted.is_sorted());
        let n = self.runs.len();
        let mut i = 0;
        sorted
            .iter()
            .map(|&o| {
                while i + 1 < n && self.runs.get(i + 1).0 <= o {
                    i += 1;
                }
                let (out, src, linear) = self.runs.get(i);
                if linear { src + (o - out) } else { src }
            })
            .collect()
    }

    /// The runs in order: `(first output offset, input offset, linear)`,
    /// for composing maps run by run rather than byte by byte.
    pub(crate) fn runs_iter(&self) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
        (0..self.runs.len()).map(|i| self.runs.get(i))
    }

    /// Moves every input offset by `by`: the map of a piece decoded alone
    /// becomes the map into the whole it was cut from.
    pub(crate) fn shift_src(&mut self, by: usize) {
        let old = std::mem::take(&mut self.runs);
        for i in 0..old.len() {
            let (out, src, linear) = old.get(i);
            self.runs.push(out, src + by, linear);
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
        let n = self.runs.len();
        for i in 0..n {
            let (r_out, r_src, r_linear) = self.runs.get(i);
            let end = if i + 1 < n { self.runs.get(i + 1).0 } else { len };
            if !r_linear {
                b.point(inner.map(r_src), end - r_out);
                continue;
            }
            // Cut the stretch where the inner map's runs change.
            let (mut mid, stop) = (r_src, r_src + (end - r_out));
            while mid < stop {
                let j = inner.runs.starting_by(mid).saturating_sub(1);
                let (ir_out, ir_src, ir_linear) = inner.runs.get(j);
                let next =
                    if j + 1 < inner.runs.len() { inner.runs.get(j + 1).0 } else { stop }.min(stop);
                if ir_linear {
                    b.copy(ir_src + (mid - ir_out), next - mid);
                } else {
                    b.point(ir_src, next - mid);
                }
                mid = next;
            }
        }
        b.finish()
    }
}

/// One run of a [`SlidingMap`], unpacked: the window is short.
#[derive(Clone, Copy, Debug)]
struct Run {
    /// Offset of the run's first byte in the output.
    out: usize,
    /// Offset in the input of the byte(s) it came from.
    src: usize,
    /// Output `out + k` came from `src + k` (else from `src` alone).
    linear: bool,
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
        for i in 0..piece.runs.len() {
            let (r_out, src, linear) = piece.runs.get(i);
            let out = self.produced + r_out;
            let extends = self
                .runs
                .back()
                .is_some_and(|b| b.linear && linear && b.src + (out - b.out) == src);
            if !extends {
                self.runs.push_back(Run { out, src, linear });
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

    /// The first output offset still mapped, `None` before any run.
    pub fn first(&self) -> Option<usize> {
        self.runs.front().map(|r| r.out)
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
    runs: Runs,
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
        if !self.continues_at(src) {
            self.runs.push(self.out, src, true);
        }
        self.out += len;
    }

    /// Whether a copy from input offset `src` would continue the last run.
    fn continues_at(&self, src: usize) -> bool {
        self.runs.last().is_some_and(|(out, s, linear)| linear && s + (self.out - out) == src)
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
        self.runs.push(self.out, src, false);
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

/// The positions of `offsets` (any order, repeats allowed) in `src`, a
/// whole file, in the same order, as `LineCursor` places them: one
/// forward pass over the file. A document reports a URL every few hundred
/// bytes at most, and an index of every line of the file (16 bytes a
/// line) cost more in fresh pages than the lookups it saved. An offset
/// past the end is placed on the last line, as [`LineIndex::position`]
/// does.
pub(crate) fn positions_of(src: &[u8], offsets: &[usize]) -> Vec<Position> {
    let mut order: Vec<u32> = (0..offsets.len() as u32).collect();
    if !offsets.is_sorted() {
        order.sort_unstable_by_key(|&k| offsets[k as usize]);
    }
    let mut out = vec![Position::default(); offsets.len()];
    let mut cursor = LineCursor::new();
    for k in order {
        let o = offsets[k as usize];
        let mut p = cursor.advance(src, 0, o.min(src.len()) as u64);
        let past = o.saturating_sub(src.len()) as u64;
        p.offset += past;
        p.column += past;
        out[k as usize] = p;
    }
    out
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
    fn runs_widen_past_32_bits() {
        let far = (1usize << 31) + 5;
        let mut b = MapBuilder::new();
        b.copy(10, 3);
        b.point(20, 2);
        b.copy(far, 4); // does not fit in 31 bits: every run widens
        b.point(far + 10, 2);
        b.copy(30, 1);
        let m = b.finish();
        assert!(matches!(m.runs, Runs::Wide(_)));
        let got: Vec<usize> = (0..12).map(|o| m.map(o)).collect();
        let want = [10, 11, 12, 20, 20, far, far + 1, far + 2, far + 3, far + 10, far + 10, 30];
        assert_eq!(got, want);
        let runs: Vec<_> = m.runs_iter().collect();
        assert_eq!(runs[..2], [(0, 10, true), (3, 20, false)]);
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
    fn placed_offsets_agree_with_the_line_index() {
        let text = b"ab\r\ncd\ref\n\ngh\r\n\r\nij";
        let idx = LineIndex::new(text, 0, 1, 1);
        // Out of order, repeated, and past the end; then in order.
        let offsets: Vec<usize> = (0..text.len() + 3).rev().chain([4, 4, 0]).collect();
        let sorted: Vec<usize> = (0..text.len() + 3).collect();
        for offsets in [offsets, sorted] {
            let got = positions_of(text, &offsets);
            for (&o, p) in offsets.iter().zip(got) {
                assert_eq!(p, idx.position(o), "offset {o}");
            }
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

    #[test]
    fn sorted_offsets_map_as_one_by_one() {
        let mut b = MapBuilder::new();
        b.copy(10, 3);
        b.point(20, 2);
        b.copy(21, 1);
        b.copy(40, 4);
        let m = b.finish();
        let offsets = [0, 0, 2, 3, 4, 5, 6, 9, 10];
        let want: Vec<usize> = offsets.iter().map(|&o| m.map(o)).collect();
        assert_eq!(m.map_sorted(&offsets), want);
    }
}
