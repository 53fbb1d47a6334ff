//! Charset decoding to UTF-8 with a position map, through `encoding_rs`.
//!
//! Why decode at all, when URLs are ASCII: so that a URL written with a
//! raw `é` is reported as the UTF-8 text the user sees rather than a stray
//! Latin-1 byte, and so that text in an ASCII-incompatible charset
//! (UTF-16, ISO-2022-JP) is readable by the scanner at all. Each UTF-8
//! character maps back to the first byte of the sequence it was decoded
//! from, so a finding on `é` points at the `0xE9` in the file.
//!
//! Left as they are (no map, no copy): UTF-8 and its subsets, labels that
//! `encoding_rs` does not know (UTF-7, made-up names), the WHATWG
//! "replacement" encoding (it would turn a whole part into one U+FFFD), and
//! input that is all ASCII in an ASCII-compatible charset. Invalid UTF-8
//! stays raw, exactly as the scanner sees it in plain files.

use encoding_rs::{CoderResult, Encoding};

use crate::posmap::{MapBuilder, PosMap};

/// The encoding named by a MIME charset label, or `None` when the bytes
/// should be scanned as they are.
pub fn encoding_for(label: &[u8]) -> Option<&'static Encoding> {
    let enc = Encoding::for_label(label.trim_ascii())?;
    (enc != encoding_rs::UTF_8 && enc != encoding_rs::REPLACEMENT).then_some(enc)
}

/// Decodes `input` from the charset `label` to UTF-8. `None` when the
/// input is to be scanned unchanged (see the module docs).
pub fn decode(label: &[u8], input: &[u8]) -> Option<(Vec<u8>, PosMap)> {
    let enc = encoding_for(label)?;
    if enc.is_ascii_compatible() && input.is_ascii() {
        return None;
    }
    Some(if enc.is_single_byte() { single_byte(enc, input) } else { multi_byte(enc, input) })
}

/// One byte, one character: a table of the 128 upper halves, then a copy.
fn single_byte(enc: &'static Encoding, input: &[u8]) -> (Vec<u8>, PosMap) {
    let mut table: Vec<Vec<u8>> = Vec::with_capacity(128);
    for b in 0x80..=0xFFu8 {
        let byte = [b];
        let (s, _) = enc.decode_without_bom_handling(&byte);
        table.push(s.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(input.len() + input.len() / 8);
    let mut map = MapBuilder::new();
    let mut i = 0;
    while i < input.len() {
        let run = input[i..].iter().take_while(|b| b.is_ascii()).count();
        if run > 0 {
            out.extend_from_slice(&input[i..i + run]);
            map.copy(i, run);
            i += run;
            continue;
        }
        let ch = &table[usize::from(input[i] - 0x80)];
        out.extend_from_slice(ch);
        map.point(i, ch.len());
        i += 1;
    }
    (out, map.finish())
}

/// Multi-byte and stateful charsets: ASCII runs (in ASCII-compatible
/// charsets) go through the decoder whole; other bytes go one at a time,
/// and whatever a byte completes maps to the first byte of its sequence.
fn multi_byte(enc: &'static Encoding, input: &[u8]) -> (Vec<u8>, PosMap) {
    let mut decoder = enc.new_decoder_without_bom_handling();
    let mut out = Vec::with_capacity(input.len() * 2);
    let mut map = MapBuilder::new();
    let mut buf = Vec::new();
    // First input byte not yet accounted for in the output.
    let mut pending = 0;
    let mut i = 0;
    let ascii = enc.is_ascii_compatible();
    while i < input.len() {
        let len = if ascii && pending == i {
            input[i..].iter().take_while(|b| b.is_ascii()).count().max(1)
        } else {
            1
        };
        let chunk = &input[i..i + len];
        let written = feed(&mut decoder, chunk, false, &mut buf);
        if written > 0 {
            out.extend_from_slice(&buf[..written]);
            if len > 1 && written == len && pending == i {
                map.copy(i, len);
            } else {
                map.point(pending, written);
            }
            pending = i + len;
        }
        i += len;
    }
    let written = feed(&mut decoder, &[], true, &mut buf);
    if written > 0 {
        out.extend_from_slice(&buf[..written]);
        map.point(pending.min(input.len().saturating_sub(1)), written);
    }
    debug_assert_eq!(out.len(), map.produced());
    (out, map.finish())
}

/// Runs the decoder over `chunk` into `buf`; the number of bytes written.
fn feed(decoder: &mut encoding_rs::Decoder, chunk: &[u8], last: bool, buf: &mut Vec<u8>) -> usize {
    let need = decoder.max_utf8_buffer_length(chunk.len()).unwrap_or(chunk.len() * 4 + 16);
    if buf.len() < need {
        buf.resize(need, 0);
    }
    let (result, read, written, _) = decoder.decode_to_utf8(chunk, buf, last);
    debug_assert!(matches!(result, CoderResult::InputEmpty) && read == chunk.len());
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn srcs(map: &PosMap, n: usize) -> Vec<usize> {
        (0..n).map(|o| map.map(o)).collect()
    }

    #[test]
    fn latin1_expands_and_maps_back_to_the_byte() {
        let (out, map) = decode(b"ISO-8859-1", b"caf\xE9 ok").unwrap();
        assert_eq!(out, "café ok".as_bytes());
        assert_eq!(srcs(&map, out.len()), [0, 1, 2, 3, 3, 4, 5, 6]);
    }

    #[test]
    fn utf8_unknown_and_ascii_input_are_left_alone() {
        assert!(decode(b"utf-8", b"caf\xC3\xA9").is_none());
        assert!(decode(b"x-unknown-charset", b"caf\xE9").is_none());
        assert!(decode(b"windows-1252", b"plain").is_none());
    }

    #[test]
    fn shift_jis_and_utf16_map_to_sequence_starts() {
        // "a" + HIRAGANA LETTER A (0x82 0xA0) + "b"
        let (out, map) = decode(b"shift_jis", b"a\x82\xa0b").unwrap();
        assert_eq!(out, "a\u{3042}b".as_bytes());
        assert_eq!(srcs(&map, out.len()), [0, 1, 1, 1, 3]);
        let (out, map) = decode(b"utf-16le", b"h\0t\0").unwrap();
        assert_eq!(out, b"ht");
        assert_eq!(srcs(&map, 2), [0, 2]);
    }
}
