//! Cross-references inside one archive: which `news:<message-id>` and
//! `mid:<message-id>` URLs name a message that the same file holds.
//!
//! In 1990s mail and news, `news:id@host` (RFC 1738) and `mid:id@host`
//! (RFC 1630, later RFC 2392) were how a message cited another. In an
//! archive most of those targets are right there, and a report can say so
//! ("this link resolves to message 17") instead of leaving the reader to
//! search. The index is built in a cheap pass that reads only header
//! blocks, so it can be built before (or alongside) extraction.

use std::collections::HashMap;
use std::io::{self, Read};

use super::split::{Mode, Splitter};
use super::{InputKind, MailUrl, header};

/// The most of a message not held that is read for its header block.
const HEAD: u64 = 4 << 20;

/// Message ids of one archive, with the index of the message holding each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalIndex {
    by_id: HashMap<String, usize>,
}

impl LocalIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the `Message-ID` of every message of `reader` (split as
    /// [`super::extract_mail`] splits it, so indices agree). Bodies are not
    /// decoded. Text input gives an empty index.
    pub fn build<R: Read>(reader: R, kind: InputKind) -> io::Result<LocalIndex> {
        if kind == InputKind::Text {
            return Ok(LocalIndex::new());
        }
        let (index, _) = Self::read(Splitter::new(reader, Mode::of(kind)))?;
        Ok(index)
    }

    /// [`LocalIndex::build`] of a regular file: a message of
    /// [`super::big_message_min`] bytes or more is not held, only the
    /// first 4 MiB of it read again from the file for its header block.
    pub fn build_file(file: std::fs::File, kind: InputKind) -> io::Result<LocalIndex> {
        if kind == InputKind::Text {
            return Ok(LocalIndex::new());
        }
        let source = file.try_clone()?;
        let split =
            Splitter::new(file, Mode::of(kind)).spill(super::big_message_min(), Some(source));
        let (index, _) = Self::read(split)?;
        Ok(index)
    }

    /// The index of one part of a file cut by [`super::message_cuts`]:
    /// `reader` is positioned at byte `start`, and reading stops at `end`.
    /// Indices count from the part's first message; the number of messages
    /// in the part comes back too, for [`LocalIndex::append`]. Parts can so
    /// be indexed in parallel, where [`LocalIndex::build`] is one pass.
    pub fn build_part<R: Read>(
        reader: R,
        kind: InputKind,
        start: u64,
        end: u64,
    ) -> io::Result<(LocalIndex, u64)> {
        if kind == InputKind::Text {
            return Ok((LocalIndex::new(), 0));
        }
        let reader = reader.take(end.saturating_sub(start));
        Self::read(Splitter::starting_at(reader, Mode::of(kind), start))
    }

    /// Adds the ids of a part's index (from [`LocalIndex::build_part`])
    /// whose first message is message `first` of the file. Append the
    /// parts in file order: an id already known keeps its earlier message,
    /// as in [`LocalIndex::build`].
    pub fn append(&mut self, part: &LocalIndex, first: usize) {
        for (id, &n) in &part.by_id {
            self.by_id.entry(id.clone()).or_insert(first + n);
        }
    }

    fn read<R: Read>(mut split: Splitter<R>) -> io::Result<(LocalIndex, u64)> {
        let mut index = LocalIndex::new();
        let mut n = 0;
        let mut prefix = Vec::new();
        while let Some(raw) = split.next_message()? {
            let bytes = match raw.spilled {
                Some(s) => {
                    // A header block is read from the first bytes alone.
                    prefix.resize(s.len.min(HEAD) as usize, 0);
                    let n = super::part::read_full_at(s.file, &mut prefix, s.at)?;
                    &prefix[..n]
                }
                None => raw.bytes,
            };
            let content = &bytes[raw.envelope.min(bytes.len())..];
            // The `>From ` unquoting of a body cannot change a header
            // block, so the raw bytes do.
            let head = header::parse_block(content);
            if let Some(id) = head.get(content, "message-id").and_then(header::message_id) {
                index.insert(&id, n);
            }
            n += 1;
        }
        Ok((index, n as u64))
    }

    /// Records that message `index` has id `id` (without brackets). The
    /// first message with an id keeps it, as a duplicate is a resend.
    pub fn insert(&mut self, id: &str, index: usize) {
        self.by_id.entry(id.to_string()).or_insert(index);
    }

    /// Number of ids known.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// True when no id is known.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The index of the message that a `news:` or `mid:` URL names, when
    /// this archive holds it. `news:` takes only the article form (with
    /// `@`); `mid:` drops a `/content-id` suffix. `%XX` escapes are undone
    /// and stray `<...>` brackets removed before the lookup.
    pub fn resolve(&self, url: &[u8]) -> Option<usize> {
        let colon = url.iter().position(|&b| b == b':')?;
        let scheme = &url[..colon];
        let rest = &url[colon + 1..];
        let id = if scheme.eq_ignore_ascii_case(b"news") {
            rest
        } else if scheme.eq_ignore_ascii_case(b"mid") {
            rest.split(|&b| b == b'/').next().unwrap_or(rest)
        } else {
            return None;
        };
        let id = percent_decode(id);
        let id = id.strip_prefix(b"<").unwrap_or(&id);
        let id = id.strip_suffix(b">").unwrap_or(id);
        if !id.contains(&b'@') {
            return None;
        }
        self.by_id.get(std::str::from_utf8(id).ok()?).copied()
    }
}

/// The message of the same archive that `url` points to, if any: see
/// [`LocalIndex::resolve`].
pub fn resolve_local(index: &LocalIndex, url: &MailUrl) -> Option<usize> {
    index.resolve(&url.url.url)
}

/// `%HH` decoded; a `%` that opens no escape is kept.
pub(crate) fn percent_decode(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if s[i] == b'%'
            && let (Some(h), Some(l)) =
                (s.get(i + 1).and_then(|&b| hex(b)), s.get(i + 2).and_then(|&b| hex(b)))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_article_and_mid_urls() {
        let mbox = b"From a Mon Jan  2 10:00:00 1995\nMessage-ID: <one@x.example>\n\nhi\n\n\
            From b Mon Jan  2 11:00:00 1995\nMessage-ID: <t%wo@x.example>\n\nnews:one@x.example\n";
        let index = LocalIndex::build(&mbox[..], InputKind::Mbox).unwrap();
        assert_eq!(index.len(), 2);
        assert_eq!(index.resolve(b"news:one@x.example"), Some(0));
        assert_eq!(index.resolve(b"NEWS:one@x.example"), Some(0));
        assert_eq!(index.resolve(b"mid:t%25wo@x.example/part1@x.example"), Some(1));
        assert_eq!(index.resolve(b"news:comp.mail.misc"), None);
        assert_eq!(index.resolve(b"news:three@x.example"), None);
        assert_eq!(index.resolve(b"http://one@x.example/"), None);
    }
}
