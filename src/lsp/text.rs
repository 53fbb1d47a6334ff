//! An open document's text and the two ways of counting columns: urlsift
//! places URLs by byte offset; LSP counts columns in UTF-16 code units
//! unless the client offered UTF-8.
//!
//! Line breaks are LF, CRLF and a lone CR, as in LSP and in
//! [`crate::span`], so a line number means the same on both sides.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// How the client counts columns (negotiated at `initialize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-16 code units: the protocol's default, what every client takes.
    Utf16,
    /// Bytes of UTF-8: offered by some clients (Neovim, Helix), and then
    /// no conversion is needed.
    Utf8,
}

/// The text of an open document, with where each line starts.
#[derive(Clone, Debug)]
pub struct Text {
    text: String,
    /// Byte offset of each line's first byte; `lines[0] == 0`.
    lines: Vec<usize>,
}

impl Text {
    /// A document holding `text`.
    pub fn new(text: String) -> Text {
        let lines = line_starts(&text);
        Text { text, lines }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The byte offset of an LSP position. A column past the end of its
    /// line means the line's end, and a line past the last the text's
    /// end (what the protocol asks); a column inside a UTF-16 surrogate
    /// pair or a UTF-8 sequence is moved back to that character's start.
    pub fn offset(&self, p: Position, enc: Encoding) -> usize {
        let Some(&start) = self.lines.get(p.line as usize) else { return self.text.len() };
        let end = self.content_end(p.line as usize);
        let line = &self.text[start..end];
        let want = p.character as usize;
        match enc {
            Encoding::Utf8 => {
                let mut at = want.min(line.len());
                while !line.is_char_boundary(at) {
                    at -= 1;
                }
                start + at
            }
            Encoding::Utf16 => {
                let mut units = 0;
                for (i, c) in line.char_indices() {
                    let next = units + c.len_utf16();
                    if next > want {
                        return start + i;
                    }
                    units = next;
                }
                end
            }
        }
    }

    /// The LSP position of a byte offset (moved back to a character's
    /// start if it falls inside one).
    pub fn position(&self, offset: usize, enc: Encoding) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.lines.partition_point(|&s| s <= offset) - 1;
        let before = &self.text[self.lines[line]..offset];
        let character = match enc {
            Encoding::Utf8 => before.len(),
            Encoding::Utf16 => before.chars().map(char::len_utf16).sum(),
        };
        Position::new(line as u32, character as u32)
    }

    /// The LSP range of the bytes `start..end`.
    pub fn range(&self, start: usize, end: usize, enc: Encoding) -> Range {
        Range::new(self.position(start, enc), self.position(end, enc))
    }

    /// The offset one past the character that holds the byte at `offset`:
    /// urlsift gives the last byte of a span, LSP wants its end.
    pub fn after_char(&self, offset: usize) -> usize {
        let mut end = (offset + 1).min(self.text.len());
        while !self.text.is_char_boundary(end) {
            end += 1;
        }
        end
    }

    /// Applies one change of `textDocument/didChange`: a range replaced,
    /// or the whole text when the change has no range.
    pub fn apply(&mut self, change: TextDocumentContentChangeEvent, enc: Encoding) {
        match change.range {
            None => *self = Text::new(change.text),
            Some(r) => {
                let start = self.offset(r.start, enc);
                let end = self.offset(r.end, enc).max(start);
                self.text.replace_range(start..end, &change.text);
                // Lines before the edit stay; the rest are counted again
                // from the start of the edit's line (a CR before it may
                // now pair with an LF it inserted, so one line earlier).
                let keep = self.lines.partition_point(|&s| s <= start).saturating_sub(2);
                let from = self.lines[keep];
                self.lines.truncate(keep);
                self.lines.extend(line_starts(&self.text[from..]).into_iter().map(|s| s + from));
            }
        }
    }

    /// The end of line `line`'s content, before its break.
    fn content_end(&self, line: usize) -> usize {
        let next = self.lines.get(line + 1).copied().unwrap_or(self.text.len());
        let b = self.text.as_bytes();
        let mut end = next;
        if end > self.lines[line] && line + 1 < self.lines.len() {
            end -= 1;
            if b[end] == b'\n' && end > self.lines[line] && b[end - 1] == b'\r' {
                end -= 1;
            }
        }
        end
    }
}

/// Where each line of `text` starts.
fn line_starts(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = vec![0];
    for i in memchr::memchr2_iter(b'\n', b'\r', b) {
        // A CR directly before an LF belongs to that break.
        if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
            continue;
        }
        out.push(i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(sl: u32, sc: u32, el: u32, ec: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(sl, sc), Position::new(el, ec))),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn utf16_columns_count_surrogate_pairs() {
        // `é` is 2 bytes and 1 unit; `𝄞` is 4 bytes and 2 units.
        let t = Text::new("é𝄞 http://x.example/\nb".into());
        let url = t.as_str().find("http").unwrap();
        assert_eq!(url, 7);
        assert_eq!(t.position(url, Encoding::Utf16), Position::new(0, 4));
        assert_eq!(t.position(url, Encoding::Utf8), Position::new(0, 7));
        assert_eq!(t.offset(Position::new(0, 4), Encoding::Utf16), url);
        assert_eq!(t.offset(Position::new(0, 7), Encoding::Utf8), url);
        // Inside the pair: back to the character's start.
        assert_eq!(t.offset(Position::new(0, 2), Encoding::Utf16), 2);
        // Past the line's end: the end of its content, not the next line.
        assert_eq!(t.offset(Position::new(0, 99), Encoding::Utf16), 24);
        assert_eq!(t.offset(Position::new(1, 0), Encoding::Utf16), 25);
        assert_eq!(t.offset(Position::new(5, 0), Encoding::Utf16), 26);
    }

    #[test]
    fn line_breaks_are_lf_crlf_and_cr() {
        let t = Text::new("a\r\nb\rc\nd".into());
        assert_eq!(t.position(3, Encoding::Utf16), Position::new(1, 0));
        assert_eq!(t.position(5, Encoding::Utf16), Position::new(2, 0));
        assert_eq!(t.position(7, Encoding::Utf16), Position::new(3, 0));
        assert_eq!(t.offset(Position::new(0, 5), Encoding::Utf16), 1);
    }

    #[test]
    fn incremental_edits_in_utf16() {
        let mut t = Text::new("𝄞 one\ntwo\nthree".into());
        // Replace `one` (units 3..6 after the pair and a space).
        t.apply(change(0, 3, 0, 6, "1\n1½"), Encoding::Utf16);
        assert_eq!(t.as_str(), "𝄞 1\n1½\ntwo\nthree");
        t.apply(change(2, 0, 3, 2, "T"), Encoding::Utf16);
        assert_eq!(t.as_str(), "𝄞 1\n1½\nTree");
        assert_eq!(t.position(t.as_str().len(), Encoding::Utf16), Position::new(2, 4));
        // A CR left before an inserted LF makes one break, not two.
        let mut t = Text::new("a\rb".into());
        t.apply(change(1, 0, 1, 0, "\n"), Encoding::Utf16);
        assert_eq!(t.as_str(), "a\r\nb");
        assert_eq!(t.lines, vec![0, 3]);
        t.apply(
            TextDocumentContentChangeEvent { range: None, range_length: None, text: "x".into() },
            Encoding::Utf16,
        );
        assert_eq!((t.as_str(), t.lines.len()), ("x", 1));
    }

    #[test]
    fn a_span_ends_after_its_last_character() {
        let t = Text::new("aé".into());
        assert_eq!(t.after_char(1), 3);
        assert_eq!(t.after_char(2), 3);
        assert_eq!(t.after_char(0), 1);
    }
}
