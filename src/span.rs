//! Source positions: 1-based line and byte column, and a forward-only
//! cursor that turns byte offsets into positions in one linear pass.
//!
//! Line breaks are LF, CRLF and a lone CR (old Mac text). A CR directly
//! before an LF belongs to that break, so CRLF files report the same columns
//! as LF files; tabs count as one byte, as every column here is in bytes.

use memchr::{memchr, memchr2_iter, memrchr};

/// A place in a source: absolute byte offset plus 1-based line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// Byte offset from the start of the input.
    pub offset: u64,
    /// 1-based line number.
    pub line: u64,
    /// 1-based column, counted in bytes.
    pub column: u64,
}

/// Converts increasing byte offsets of one input into [`Position`]s.
///
/// The cursor only moves forward, so positions for a whole file cost one
/// pass over it no matter how many URLs it holds. It works over a sliding
/// window (`hay` with `base` = absolute offset of `hay[0]`), so a streamed
/// file never needs to be in memory at once.
#[derive(Clone, Debug)]
pub struct LineCursor {
    offset: u64,
    line: u64,
    line_start: u64,
    /// The byte before `offset` was a CR, so an LF at `offset` is not a
    /// new line. Kept across windows: a CRLF may straddle them.
    after_cr: bool,
}

impl Default for LineCursor {
    fn default() -> Self {
        LineCursor { offset: 0, line: 1, line_start: 0, after_cr: false }
    }
}

impl LineCursor {
    /// A cursor at the start of an input.
    pub fn new() -> Self {
        Self::default()
    }

    /// A cursor at absolute offset `offset`, which it calls line 1,
    /// column 1 (for scanning a part of an input that starts at a line
    /// start; the caller shifts the lines).
    pub fn starting_at(offset: u64) -> Self {
        LineCursor { offset, line: 1, line_start: offset, after_cr: false }
    }

    /// The line the cursor is on.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The absolute offset the cursor has reached.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn advance_slow(&mut self, window: &[u8]) {
        for i in memchr2_iter(b'\n', b'\r', window) {
            let abs = self.offset + i as u64;
            if window[i] == b'\n' {
                let crlf = if i == 0 { self.after_cr } else { window[i - 1] == b'\r' };
                if !crlf {
                    self.line += 1;
                }
            } else {
                self.line += 1;
            }
            self.line_start = abs + 1;
        }
    }

    /// Moves to absolute offset `to` (which must be >= the current offset
    /// and inside the window) and returns its position.
    pub fn advance(&mut self, hay: &[u8], base: u64, to: u64) -> Position {
        debug_assert!(to >= self.offset, "line cursor moved backwards");
        if to > self.offset {
            let lo = (self.offset - base) as usize;
            let hi = (to - base) as usize;
            let window = &hay[lo..hi];
            // LF only (the common case): how many, and where the last is.
            let lf_only = if window.len() <= SHORT {
                // Most gaps between the URLs of a link list: three memchr
                // calls cost more to set up than one pass does here.
                short_lf(window)
            } else if memchr(b'\r', window).is_none() {
                // memchr's count is vectorised; visiting each LF one by
                // one costs a third of the scan.
                Some((memchr::memchr_iter(b'\n', window).count() as u64, memrchr(b'\n', window)))
            } else {
                None
            };
            if let Some((mut lf, last)) = lf_only {
                if self.after_cr && window[0] == b'\n' {
                    lf -= 1;
                }
                self.line += lf;
                if let Some(i) = last {
                    self.line_start = self.offset + i as u64 + 1;
                }
            } else {
                self.advance_slow(window);
            }
            self.after_cr = window[window.len() - 1] == b'\r';
            self.offset = to;
        }
        Position { offset: to, line: self.line, column: to - self.line_start + 1 }
    }
}

/// The longest stretch [`short_lf`] reads rather than `memchr`.
const SHORT: usize = 256;

/// Whether `window` holds no CR and, if so, how many LFs it holds and
/// where the last is: eight bytes at a time, with no set-up.
fn short_lf(window: &[u8]) -> Option<(u64, Option<usize>)> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // The high bit of each byte of `x` that is zero, and of no other
    // (exact, unlike the shorter test that may flag a byte above a zero).
    let zeros = |x: u64| !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7);
    let mut count = 0u64;
    let mut last = None;
    let mut chunks = window.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        if zeros(x ^ (ONES * u64::from(b'\r'))) != 0 {
            return None;
        }
        let lf = zeros(x ^ (ONES * u64::from(b'\n')));
        if lf != 0 {
            count += u64::from(lf.count_ones());
            last = Some(at + (63 - lf.leading_zeros() as usize) / 8);
        }
        at += 8;
    }
    for (k, &b) in chunks.remainder().iter().enumerate() {
        match b {
            b'\r' => return None,
            b'\n' => {
                count += 1;
                last = Some(at + k);
            }
            _ => {}
        }
    }
    Some((count, last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The eight-bytes-at-a-time count is a byte-at-a-time one.
        #[test]
        fn short_lf_is_the_plain_count(
            w in proptest::collection::vec(
                prop::sample::select(vec![b'a', b'\n', b'\r', 0x0b, 0x8a, 0x0a ^ 0x80, 0]),
                0..300,
            ),
        ) {
            let oracle = (!w.contains(&b'\r')).then(|| {
                (w.iter().filter(|&&b| b == b'\n').count() as u64, w.iter().rposition(|&b| b == b'\n'))
            });
            prop_assert_eq!(short_lf(&w), oracle);
        }

        /// Advancing in steps of any size gives every position as one reading from
        /// the start does, CR, LF and CRLF alike.
        #[test]
        fn steps_of_any_size_agree_with_one_reading(
            hay in proptest::collection::vec(prop::sample::select(b"ab\n\r".to_vec()), 1..600),
            steps in proptest::collection::vec(1usize..200, 1..40),
        ) {
            let mut c = LineCursor::new();
            let mut at = 0;
            for s in steps {
                at = (at + s).min(hay.len());
                let p = c.advance(&hay, 0, at as u64);
                // The reference: lines and the last line start, counted
                // from the start byte by byte.
                let mut line = 1;
                let mut start = 0;
                for i in 0..at {
                    let brk = hay[i] == b'\r' || (hay[i] == b'\n' && (i == 0 || hay[i - 1] != b'\r'));
                    if brk {
                        line += 1;
                    }
                    if hay[i] == b'\n' || hay[i] == b'\r' {
                        start = i + 1;
                    }
                }
                prop_assert_eq!((p.line, p.column), (line, (at - start + 1) as u64), "at {}", at);
            }
        }
    }

    fn pos(hay: &[u8], at: usize) -> (u64, u64) {
        let p = LineCursor::new().advance(hay, 0, at as u64);
        (p.line, p.column)
    }

    #[test]
    fn lf_crlf_and_lone_cr_give_the_same_lines() {
        assert_eq!(pos(b"ab\ncd", 3), (2, 1));
        assert_eq!(pos(b"ab\r\ncd", 4), (2, 1));
        assert_eq!(pos(b"ab\rcd", 3), (2, 1));
        assert_eq!(pos(b"a\r\n\r\nb", 5), (3, 1));
        assert_eq!(pos(b"\tx", 1), (1, 2));
    }

    #[test]
    fn windows_may_split_a_crlf() {
        let hay = b"ab\r\ncd\r\nef";
        let mut c = LineCursor::new();
        c.advance(&hay[..3], 0, 3);
        let p = c.advance(&hay[3..], 3, 9);
        assert_eq!((p.line, p.column), (3, 2));
    }
}
