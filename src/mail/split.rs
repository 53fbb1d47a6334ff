//! Cutting an input into messages while streaming it, one message in
//! memory at a time: mbox files at their `From ` separator lines, rnews
//! batches (`#! rnews <bytes>`) by their byte counts, and single messages
//! (a Maildir file, an `.eml`, one news article) whole.
//!
//! Memory is bounded by the largest message held plus one read chunk,
//! never by the file: the buffer drops each message once the next is
//! asked for, and is compacted only when more input must be read, so each
//! byte is moved at most once. With [`Splitter::spill`], no message is
//! held past the spill size: the rest of it is skimmed (searched for its
//! end, and copied to a spool when the input is no file) and it is handed
//! over as a stretch of a file. Only a line that may be a separator (one
//! opening with `From ` after a blank line, or an open first line opening
//! so) is held whole until it ends.

use std::fs::File;
use std::io::{self, Read, Seek, Write};

use memchr::memmem;

use super::InputKind;
use crate::posmap::count_lines;

/// One message as it stands in the file.
#[derive(Debug)]
pub struct RawMessage<'a> {
    /// Its bytes, separator line included, up to the next separator.
    pub bytes: &'a [u8],
    /// File offset of `bytes[0]`.
    pub offset: u64,
    /// Line number of `bytes[0]`.
    pub line: u64,
    /// 1-based column of `bytes[0]`: an rnews batch counts bytes, so a
    /// message may start in the middle of a line.
    pub column: u64,
    /// Length of the envelope line (`From ...` or `#! rnews ...`, line
    /// break included) that opens `bytes`, 0 when there is none.
    pub envelope: usize,
    /// A message too big to hold: `bytes` is then empty, and the message
    /// is this stretch of a file (see [`Splitter::spill`]).
    pub spilled: Option<Spilled<'a>>,
}

/// Where a message too big to hold is: `len` bytes of `file` from `at`,
/// the same bytes as the input's from `RawMessage::offset`.
#[derive(Clone, Copy, Debug)]
pub struct Spilled<'a> {
    /// The input file itself, or the spool it was copied to.
    pub file: &'a File,
    /// Offset of the message's first byte in `file`.
    pub at: u64,
    /// The message's length.
    pub len: u64,
}

/// The message being skimmed: read on to its end without being held.
#[derive(Debug)]
struct Skim {
    /// Where the message starts, in the input.
    offset: u64,
    line: u64,
    column: u64,
    envelope: usize,
    /// Where it ends in the input, when its length is known (an article of
    /// an rnews batch).
    end: Option<u64>,
    /// Bytes of it dropped from the buffer so far.
    dropped: u64,
    /// Every byte dropped is white space (a blank stretch is no message).
    blank: bool,
}

/// How messages are delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `From ` lines after a blank line.
    Mbox,
    /// The whole input is one message, or an rnews batch if it opens
    /// with `#! rnews`.
    Single,
}

impl Mode {
    /// How `kind` is cut; [`InputKind::Text`] is never cut into
    /// messages, so it reads as one.
    pub fn of(kind: InputKind) -> Mode {
        if kind == InputKind::Mbox { Mode::Mbox } else { Mode::Single }
    }
}

/// How much is read at a time.
const CHUNK: usize = 256 << 10;

/// The biggest message held. A message is held whole while its MIME
/// structure is read (its text parts are then decoded and scanned as
/// streams); one bigger than this that the splitter holds (no spill, or a
/// separator line that long) is not read, nor the rest of its file, and
/// the file's error says so: an allocation failure would take down the
/// whole run, other files included. A spilled one that must be read back
/// whole is held to the same size (see `big::spilled`).
pub const MAX_MESSAGE: usize = 1 << 30;

/// Streams messages out of a reader.
pub struct Splitter<R> {
    reader: R,
    mode: Mode,
    buf: Vec<u8>,
    filled: usize,
    /// Start of the current message in `buf`.
    start: usize,
    /// End of the message last returned (the next one starts there).
    returned: Option<usize>,
    /// Where the search for the next separator resumes.
    searched: usize,
    /// How far the current message's first line has been searched for
    /// its end.
    line_scanned: usize,
    /// 1-based column of the current message's first byte.
    column: u64,
    /// File offset of `buf[0]`.
    base: u64,
    /// Line number at `buf[start]`.
    line: u64,
    eof: bool,
    /// The bytes before the current message end with a CR.
    after_cr: bool,
    /// The input turned out to be an rnews batch.
    rnews: Option<bool>,
    finder: memmem::Finder<'static>,
    /// [`MAX_MESSAGE`], smaller in tests.
    max_message: usize,
    /// Messages of at least this many bytes are skimmed (see
    /// [`Splitter::spill`]); `usize::MAX` holds every message.
    spill_min: usize,
    /// The input file, read with positioned reads, when `reader` reads it
    /// from offset `base` on.
    source: Option<File>,
    /// Where a skimmed message is copied when there is no `source`.
    spool: Option<File>,
    skim: Option<Skim>,
}

impl<R: Read> Splitter<R> {
    /// A splitter over `reader`.
    pub fn new(reader: R, mode: Mode) -> Self {
        Self::starting_at(reader, mode, 0)
    }

    /// A splitter over `reader`, whose first byte is byte `base` of the
    /// file and starts a line, so that message offsets are the file's.
    /// Line numbers still count from 1 at that first byte.
    pub fn starting_at(reader: R, mode: Mode, base: u64) -> Self {
        Splitter {
            reader,
            mode,
            buf: Vec::new(),
            filled: 0,
            start: 0,
            returned: None,
            searched: 0,
            line_scanned: 0,
            base,
            line: 1,
            column: 1,
            eof: false,
            after_cr: false,
            rnews: None,
            finder: memmem::Finder::new(b"\nFrom "),
            max_message: MAX_MESSAGE,
            spill_min: usize::MAX,
            source: None,
            spool: None,
            skim: None,
        }
    }

    /// Hands over messages of at least `min` bytes as stretches of a file
    /// instead of holding them ([`RawMessage::spilled`]): of `source`, the
    /// input file that `reader` reads (offsets are the same), or, without
    /// one (standard input), of an unlinked temporary file each is copied
    /// to while it is read. The buffer then holds a read chunk and a line,
    /// whatever the message's size.
    pub fn spill(mut self, min: u64, source: Option<File>) -> Self {
        self.spill_min = usize::try_from(min).unwrap_or(usize::MAX).max(1);
        self.source = source;
        self
    }

    /// Holds messages of at most `max` bytes (see [`MAX_MESSAGE`]).
    #[cfg(test)]
    pub fn with_max_message(mut self, max: usize) -> Self {
        self.max_message = max;
        self
    }

    /// The size from which messages are spilled; `u64::MAX` when none is.
    pub fn spill_min(&self) -> u64 {
        self.spill_min as u64
    }

    /// Bytes buffered, for tests of the bound.
    #[cfg(test)]
    pub fn buffer_len(&self) -> usize {
        self.buf.len()
    }

    /// File offset after the last byte read (with a `base` of 0, the
    /// bytes read so far).
    pub fn bytes_read(&self) -> u64 {
        self.base + self.filled as u64
    }

    /// Line breaks before the current message, counted message by message
    /// as the line numbers of messages are; once `next_message` has
    /// returned `None`, the line breaks of the whole input.
    pub fn lines_done(&self) -> u64 {
        self.line - 1
    }

    /// The next message, or `None` at the end of input. Blank stretches
    /// (before the first separator, at the end) are not messages.
    pub fn next_message(&mut self) -> io::Result<Option<RawMessage<'_>>> {
        if let Some(end) = self.returned.take() {
            self.advance_to(end);
            self.searched = self.searched.max(end);
            self.skim = None;
        }
        loop {
            if let Some((end, envelope)) = self.find_end()? {
                let bytes = &self.buf[self.start..end];
                let blank = self.skim.as_ref().is_none_or(|s| s.blank);
                if blank && bytes.iter().all(u8::is_ascii_whitespace) {
                    // Skip it and go on: count its lines, but report nothing.
                    self.advance_to(end);
                    self.skim = None;
                    if end == self.filled && self.eof {
                        return Ok(None);
                    }
                    continue;
                }
                self.returned = Some(end);
                if let Some(skim) = &self.skim {
                    let tail = (end - self.start) as u64;
                    let (at, file) = match (&self.source, &mut self.spool) {
                        (Some(f), _) => (skim.offset, f),
                        (None, Some(spool)) => {
                            spool.write_all(&self.buf[self.start..end])?;
                            (0, &*spool)
                        }
                        (None, None) => unreachable!("a skim without a spool"),
                    };
                    let spilled = Spilled { file, at, len: skim.dropped + tail };
                    return Ok(Some(RawMessage {
                        bytes: &[],
                        offset: skim.offset,
                        line: skim.line,
                        column: skim.column,
                        envelope: skim.envelope,
                        spilled: Some(spilled),
                    }));
                }
                let bytes = &self.buf[self.start..end];
                let offset = self.base + self.start as u64;
                let (line, column) = (self.line, self.column);
                let spilled = None;
                return Ok(Some(RawMessage { bytes, offset, line, column, envelope, spilled }));
            }
            if self.eof {
                return Ok(None);
            }
            self.read_more()?;
        }
    }

    /// The end of the message at `start` and its envelope length, or
    /// `None` when more input is needed (or at the end, nothing is left).
    fn find_end(&mut self) -> io::Result<Option<(usize, usize)>> {
        let hay = &self.buf[self.start..self.filled];
        if let Some(skim) = &self.skim {
            // The first line is behind: only the end is looked for.
            return Ok(match self.mode {
                Mode::Single => match skim.end {
                    Some(end) if end - self.base <= self.filled as u64 => {
                        Some(((end - self.base) as usize, skim.envelope))
                    }
                    // To the end of input (a batch cut short included).
                    _ if self.eof => Some((self.filled, skim.envelope)),
                    _ => None,
                },
                Mode::Mbox => {
                    // What was dropped was searched, but for the two bytes
                    // before `searched` that a blank line needs.
                    let from = match skim.dropped {
                        0 => self.start + skim.envelope.max(1) - 1,
                        _ => self.start + 2,
                    };
                    self.search_separator(from, skim.envelope)
                }
            });
        }
        if hay.is_empty() {
            return Ok(None);
        }
        // The envelope line must be whole before anything is decided. The
        // search resumes where it stopped, so that a first line of many
        // reads (binary input forced as mail) is not searched again per read.
        let scan_from = self.line_scanned.max(self.start);
        let first_line = match memchr::memchr(b'\n', &self.buf[scan_from..self.filled]) {
            Some(i) => scan_from + i + 1 - self.start,
            None if self.eof => hay.len(),
            None => {
                self.line_scanned = self.filled;
                return Ok(None);
            }
        };
        if self.mode == Mode::Single {
            if self.rnews.is_none() {
                self.rnews = Some(hay.starts_with(b"#! rnews "));
            }
            if self.rnews == Some(true)
                && let Some(n) = rnews_count(&hay[..first_line])
            {
                let end = first_line.saturating_add(n);
                if end <= hay.len() {
                    return Ok(Some((self.start + end, first_line)));
                }
                if !self.eof {
                    return Ok(None);
                }
                // A batch cut short: take what is there.
                return Ok(Some((self.filled, first_line)));
            }
            if !self.eof {
                return Ok(None);
            }
            return Ok(Some((self.filled, envelope_len(hay, first_line))));
        }
        let envelope = if hay.starts_with(b"From ") { first_line } else { 0 };
        Ok(self.search_separator(self.start + envelope.max(1) - 1, envelope))
    }

    /// The end of the current mbox message: the next separator line at or
    /// after `min` (or where the search stopped, if later), or the end of
    /// input; `None` when more input is needed.
    fn search_separator(&mut self, min: usize, envelope: usize) -> Option<(usize, usize)> {
        let mut from = self.searched.max(min);
        while let Some(i) = self.finder.find(&self.buf[from..self.filled]).map(|i| from + i) {
            // `i` is the LF before `From `; the line before must be blank.
            let blank_before = i == self.start
                || self.buf[i - 1] == b'\n'
                || (self.buf[i - 1] == b'\r' && i >= self.start + 2 && self.buf[i - 2] == b'\n');
            if blank_before {
                let line_start = i + 1;
                match memchr::memchr(b'\n', &self.buf[line_start..self.filled]) {
                    None if !self.eof => {
                        self.searched = i;
                        return None;
                    }
                    found => {
                        let line_end = found.map_or(self.filled, |n| line_start + n);
                        if is_envelope(&self.buf[line_start..line_end]) {
                            self.searched = line_start;
                            return Some((line_start, envelope));
                        }
                    }
                }
            }
            from = i + 1;
        }
        if self.eof {
            return Some((self.filled, envelope));
        }
        // `\nFrom ` may straddle the end of what is buffered.
        self.searched = self.filled.saturating_sub(5).max(self.start);
        None
    }

    /// Moves the start of the current message to `end`, keeping its line
    /// and column.
    fn advance_to(&mut self, end: usize) {
        let bytes = &self.buf[self.start..end];
        if bytes.is_empty() {
            return;
        }
        // An rnews count may end a message between the CR and the LF of a
        // CRLF; that LF ends no line of its own. No message after it can
        // show the difference (one that opens with a blank line has no
        // header block), but the lines of a part must add up.
        let split_crlf = self.after_cr && bytes[0] == b'\n';
        self.line += count_lines(bytes) - u64::from(split_crlf);
        self.after_cr = bytes[bytes.len() - 1] == b'\r';
        self.column = match memchr::memrchr2(b'\n', b'\r', bytes) {
            Some(i) => (bytes.len() - i) as u64,
            None => self.column + bytes.len() as u64,
        };
        self.start = end;
    }

    /// Starts skimming the current message once it is big enough to be
    /// spilled and its first line (the envelope) is read; then drops what
    /// the search for its end has passed, copying it to the spool.
    fn skim(&mut self) -> io::Result<()> {
        if self.skim.is_none() {
            let hay = &self.buf[self.start..self.filled];
            if hay.len() < self.spill_min {
                return Ok(());
            }
            // `find_end` has just searched it: `line_scanned` at the end
            // says it found no line break (and is not searched again).
            let first_line = match self.line_scanned == self.filled {
                true => None,
                false => memchr::memchr(b'\n', hay).map(|i| i + 1),
            };
            // A first line that is still open decides nothing unless it
            // could be an envelope: the message's own first bytes then.
            let open = |hay: &[u8]| !hay.starts_with(b"From ") && !hay.starts_with(b"#! rnews ");
            let offset = self.base + self.start as u64;
            let (envelope, end) = match (self.mode, first_line) {
                (Mode::Single, Some(first_line)) => {
                    // As `find_end` reads the first line.
                    let rnews = *self.rnews.get_or_insert(hay.starts_with(b"#! rnews "));
                    match rnews.then(|| rnews_count(&hay[..first_line])).flatten() {
                        Some(n) => {
                            let end = (first_line as u64).saturating_add(n as u64);
                            (first_line, Some(offset.saturating_add(end)))
                        }
                        None => (envelope_len(hay, first_line), None),
                    }
                }
                (Mode::Mbox, Some(first_line)) if hay.starts_with(b"From ") => (first_line, None),
                (Mode::Mbox, Some(_)) => (0, None),
                (_, None) if open(hay) => {
                    self.rnews.get_or_insert(false);
                    (0, None)
                }
                (_, None) => return Ok(()),
            };
            if self.source.is_none() {
                match &mut self.spool {
                    Some(spool) => {
                        spool.set_len(0)?;
                        spool.rewind()?;
                    }
                    None => {
                        let spool = tempfile::tempfile().map_err(|e| {
                            let mib = self.spill_min >> 20;
                            let why = format!(
                                "no temporary file for a message of {mib} MiB or more \
                                 (TMPDIR): {e}"
                            );
                            // Not `e.kind()`: a missing TMPDIR is no missing input.
                            io::Error::other(why)
                        })?;
                        self.spool = Some(spool);
                    }
                }
            }
            self.skim = Some(Skim {
                offset,
                line: self.line,
                column: self.column,
                envelope,
                end,
                dropped: 0,
                blank: true,
            });
        }
        let end = self.skim.as_ref().and_then(|s| s.end);
        let to = match self.mode {
            Mode::Single => match end {
                Some(e) => (e - self.base).min(self.filled as u64) as usize,
                None => self.filled,
            },
            // Two bytes before the search's resumption stay: the blank line
            // of a separator found there.
            Mode::Mbox => self.searched.saturating_sub(2).max(self.start),
        };
        if to > self.start {
            let gone = &self.buf[self.start..to];
            if let Some(spool) = &mut self.spool
                && self.source.is_none()
            {
                spool.write_all(gone)?;
            }
            let skim = self.skim.as_mut().expect("skimming");
            skim.dropped += gone.len() as u64;
            skim.blank &= gone.iter().all(u8::is_ascii_whitespace);
            self.advance_to(to);
        }
        Ok(())
    }

    /// Drops the bytes before the current message and reads a chunk.
    fn read_more(&mut self) -> io::Result<()> {
        if self.spill_min != usize::MAX {
            self.skim()?;
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            self.searched = self.searched.saturating_sub(self.start);
            self.line_scanned = self.line_scanned.saturating_sub(self.start);
            self.base += self.start as u64;
            self.start = 0;
        }
        if self.filled >= self.max_message {
            let (line, mib) = (self.line, self.max_message >> 20);
            return Err(io::Error::other(format!(
                "the message at line {line} is larger than {mib} MiB: it is not read, nor \
                 anything after it"
            )));
        }
        // Start small and double up to CHUNK: a news spool is thousands of
        // 2 KB files, and zeroing a fresh 256 KiB buffer for each was a
        // third of the run (memset, and mmap page faults for the big
        // allocation).
        let step =
            if self.buf.is_empty() { 16 << 10 } else { self.buf.len().clamp(16 << 10, CHUNK) };
        let want = self.filled + step;
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.filled..want]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.filled += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// A single message may still open with an mbox-style `From ` envelope
/// (a mail saved by hand) or an rnews line; either is skipped.
pub(super) fn envelope_len(hay: &[u8], first_line: usize) -> usize {
    let line = &hay[..first_line];
    let is_field = super::header::field_name(line).is_some();
    if (line.starts_with(b"From ") && !is_field) || line.starts_with(b"#! rnews ") {
        first_line
    } else {
        0
    }
}

/// The byte count of a `#! rnews <count>` line.
pub fn rnews_count(line: &[u8]) -> Option<usize> {
    let rest = line.strip_prefix(b"#! rnews ")?.trim_ascii();
    let digits = rest.split(|b| b.is_ascii_whitespace()).next()?;
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Whether a `From ` line after a blank line separates messages. A real
/// envelope carries a date with a time (`From sender Thu Jan  1 00:00:00
/// 1970`); requiring the `h:mm` keeps an unquoted body line such as "From
/// all of us, thanks." (mboxo writers leave some) from cutting a message.
pub fn is_envelope(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"From ") else { return false };
    if rest.first().is_none_or(|b| b.is_ascii_whitespace()) {
        return false;
    }
    rest.windows(4).any(|w| {
        w[0].is_ascii_digit() && w[1] == b':' && w[2].is_ascii_digit() && w[3].is_ascii_digit()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::Trickle;

    #[test]
    fn a_message_over_the_cap_is_an_error_after_the_ones_before() {
        let env = "From a@b Thu Jan  1 00:00:00 1970\n";
        let mut mbox = format!("{env}Subject: a\n\nshort\n\n{env}Subject: b\n\n");
        mbox.push_str(&"long line of a long message\n".repeat(40_000));
        mbox.push_str(&format!("\n{env}Subject: c\n\nafter\n"));
        let mut s = Splitter::new(mbox.as_bytes(), Mode::Mbox).with_max_message(100 << 10);
        assert!(s.next_message().unwrap().unwrap().bytes.ends_with(b"short\n\n"));
        let e = s.next_message().unwrap_err();
        assert!(e.to_string().contains("message at line 6 is larger than 0 MiB"), "{e}");
        let mut s = Splitter::new(mbox.as_bytes(), Mode::Mbox).with_max_message(2 << 20);
        let mut n = 0;
        while s.next_message().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 3);
    }

    fn split(input: &[u8], mode: Mode, step: usize) -> Vec<(String, u64, u64, usize)> {
        let mut s = Splitter::new(Trickle(input, step), mode);
        let mut out = Vec::new();
        while let Some(m) = s.next_message().unwrap() {
            out.push((String::from_utf8_lossy(m.bytes).into_owned(), m.offset, m.line, m.envelope));
        }
        out
    }

    const MBOX: &[u8] = b"From a@b Thu Jan  1 00:00:00 1970\nSubject: one\n\nFrom us all\n\n\
        From all of us, thanks.\n\nFrom c@d Fri Jan  2 10:00:00 1970\r\nSubject: two\r\n\r\nx\r\n";

    #[test]
    fn mbox_splits_only_at_envelopes_after_blank_lines() {
        for step in [1, 3, 7, 1000] {
            let got = split(MBOX, Mode::Mbox, step);
            assert_eq!(got.len(), 2, "step {step}");
            assert!(got[0].0.ends_with("thanks.\n\n"));
            assert_eq!((got[1].1, got[1].2, got[1].3), (86, 8, 35));
        }
    }

    #[test]
    fn single_messages_and_rnews_batches() {
        let got = split(b"Subject: x\n\nbody\n", Mode::Single, 4);
        assert_eq!(got.len(), 1);
        let batch = b"#! rnews 11\nPath: a\n\nb\n#! rnews 9\nPath: c\n\n";
        let got = split(batch, Mode::Single, 5);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, "#! rnews 11\nPath: a\n\nb\n");
        assert_eq!((got[1].1, got[1].2, got[1].3), (23, 5, 11));
    }

    #[test]
    fn memory_holds_one_message_and_a_chunk() {
        let mut message = b"From a@b Thu Jan  1 00:00:00 1970\nSubject: s\n\n".to_vec();
        message.extend(std::iter::repeat_n(b'x', 9_000));
        message.extend_from_slice(b"\n\n");
        let mbox = message.repeat(500); // 4.5 MB
        let mut s = Splitter::new(&mbox[..], Mode::Mbox);
        let (mut n, mut peak) = (0, 0);
        while let Some(m) = s.next_message().unwrap() {
            assert_eq!(m.bytes.len(), message.len());
            n += 1;
            peak = peak.max(s.buf.len());
        }
        assert_eq!(n, 500);
        assert!(peak <= 2 * CHUNK + message.len(), "buffer grew to {peak}");
    }

    #[test]
    fn envelopes() {
        assert!(is_envelope(b"From mboxrd@z Thu Jan  1 00:00:00 1970"));
        assert!(is_envelope(b"From MAILER-DAEMON Fri Jul  8 12:08:34 2011\r"));
        assert!(!is_envelope(b"From all of us, thanks."));
        assert!(!is_envelope(b"From  x 10:00"));
    }
}
