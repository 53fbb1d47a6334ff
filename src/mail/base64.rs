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
    // Values and input offsets of the quantum being read.
    let mut vals = [0u8; 4];
    let mut srcs = [0usize; 4];
    let mut n = 0;
    for (i, &c) in input.iter().enumerate() {
        let v = VALUE[c as usize];
        if v == 0xFF {
            if c == b'=' && n > 0 {
                flush(&vals, &srcs, n, &mut out, &mut map);
                n = 0;
            }
            continue;
        }
        vals[n] = v;
        srcs[n] = i;
        n += 1;
        if n == 4 {
            flush(&vals, &srcs, 4, &mut out, &mut map);
            n = 0;
        }
    }
    flush(&vals, &srcs, n, &mut out, &mut map);
    debug_assert_eq!(out.len(), map.produced());
    (out, map.finish())
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
}
