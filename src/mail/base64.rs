//! Base64 (RFC 2045 section 6.8), decoded with a position map, for text
//! parts and RFC 2047 `B` encoded words.
//!
//! Hand-written rather than taken from a crate because we need to know
//! which input character each decoded byte came from. Byte `j` of a
//! 3-byte group starts in character `j` of its 4-character quantum (its
//! high bits are the low bits of that character), so that is where the
//! map sends it: a URL in a base64 part is reported on the encoded line
//! and column that holds its first bits.
//!
//! Decoding is lenient, as RFC 2045 asks: characters outside the alphabet
//! (line breaks, blanks, stray junk) are skipped, and `=` padding ends a
//! quantum, after which decoding resumes (some mailers concatenate
//! separately encoded chunks).

use crate::posmap::{MapBuilder, PosMap};

/// Value of a base64 character, or 0xFF.
static VALUE: [u8; 256] = {
    let mut t = [0xFFu8; 256];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut i = 0;
    while i < 64 {
        t[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// Decodes base64 text.
pub fn decode(input: &[u8]) -> (Vec<u8>, PosMap) {
    let mut out = Vec::with_capacity(input.len() / 4 * 3 + 3);
    let mut map = MapBuilder::new();
    let mut s = Stream::default();
    s.feed(input, 0, &mut out, &mut map);
    s.finish(&mut out, &mut map);
    debug_assert_eq!(out.len(), map.produced());
    (out, map.finish())
}

/// A base64 decoder fed in pieces: a quantum may straddle two pieces.
/// Feeding a text in any number of pieces gives what [`decode`] gives.
#[derive(Debug, Default)]
pub struct Stream {
    /// Values and input offsets of the quantum being read.
    vals: [u8; 4],
    srcs: [usize; 4],
    n: usize,
}

impl Stream {
    /// Decodes `input`, whose first byte is at offset `at` of the whole
    /// text (the map gives offsets of the whole text).
    pub fn feed(&mut self, input: &[u8], at: usize, out: &mut Vec<u8>, map: &mut MapBuilder) {
        for (i, &c) in input.iter().enumerate() {
            let v = VALUE[c as usize];
            if v == 0xFF {
                if c == b'=' && self.n > 0 {
                    flush(&self.vals, &self.srcs, self.n, out, map);
                    self.n = 0;
                }
                continue;
            }
            self.vals[self.n] = v;
            self.srcs[self.n] = at + i;
            self.n += 1;
            if self.n == 4 {
                flush(&self.vals, &self.srcs, 4, out, map);
                self.n = 0;
            }
        }
    }

    /// Ends the text: a last, unpadded quantum gives its whole bytes.
    pub fn finish(&mut self, out: &mut Vec<u8>, map: &mut MapBuilder) {
        flush(&self.vals, &self.srcs, self.n, out, map);
        self.n = 0;
    }
}

/// Emits the bytes of a quantum of `n` characters (`n - 1` bytes when
/// padded; a lone character carries no whole byte).
fn flush(vals: &[u8; 4], srcs: &[usize; 4], n: usize, out: &mut Vec<u8>, map: &mut MapBuilder) {
    let bits = u32::from(vals[0]) << 18
        | u32::from(vals[1]) << 12
        | u32::from(vals[2]) << 6
        | u32::from(vals[3]);
    for (j, &src) in srcs.iter().enumerate().take(n.saturating_sub(1)) {
        out.push((bits >> (16 - 8 * j)) as u8);
        map.copy(src, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_across_lines_and_maps_to_the_first_character() {
        let (out, map) = decode(b"aHR0\ncDov\r\nLw==");
        assert_eq!(out, b"http://");
        let srcs: Vec<usize> = (0..out.len()).map(|o| map.map(o)).collect();
        assert_eq!(srcs, [0, 1, 2, 5, 6, 7, 11]);
    }

    #[test]
    fn padding_ends_a_quantum_and_junk_is_skipped() {
        assert_eq!(decode(b"YQ==Yg==").0, b"ab");
        assert_eq!(decode(b"Y!W*J j").0, b"abc");
        assert_eq!(decode(b"YWJj\nZ").0, b"abc");
    }

    #[test]
    fn fed_in_pieces_it_decodes_as_whole() {
        let text = b"aHR0\ncDov\r\nLw==YQ==Y!W*J j\nYWJjZA";
        let whole = decode(text);
        for cut in 0..text.len() {
            for cut2 in cut..text.len() {
                let (mut out, mut map, mut s) = (Vec::new(), MapBuilder::new(), Stream::default());
                s.feed(&text[..cut], 0, &mut out, &mut map);
                s.feed(&text[cut..cut2], cut, &mut out, &mut map);
                s.feed(&text[cut2..], cut2, &mut out, &mut map);
                s.finish(&mut out, &mut map);
                assert_eq!((&out, map.finish()), (&whole.0, whole.1.clone()), "cuts {cut} {cut2}");
            }
        }
    }
}
