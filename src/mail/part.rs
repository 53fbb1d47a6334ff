//! Cutting a big mail or news file into parts that threads read at once,
//! each part giving exactly what the one-pass reader gives for its
//! messages.
//!
//! A cut is only safe where the one-pass [`Splitter`] starts a message:
//! anywhere else, a message would be read as two (or a separator missed)
//! and every later message renumbered. Messages are independent (no URL,
//! header or MIME part crosses a message boundary), so unlike the text
//! parts of the driver, nothing has to be rescanned when parts are joined:
//! a part's results only need their line numbers and message indices
//! moved by what came before ([`MailUrl::shift`], [`MailProblem::shift`]).
//!
//! - In an mbox, the splitter's rule is local: a line is a separator when
//!   it starts with `From `, looks like an envelope (it holds a time, see
//!   `split::is_envelope`) and follows a blank line (LF LF or LF CR LF).
//!   Each message after the first opens with such a line, whose own line
//!   break is the only one in it, so the bytes that decide a separator
//!   never reach back into the message before. A cut at any line passing
//!   the rule is therefore where the one pass cuts too, and a probe of
//!   64 KiB at each target point is all that is read.
//! - An rnews batch has no such rule: an article is as long as its
//!   `#! rnews <count>` line says, and an article may well quote a whole
//!   batch (a post about the format, say), so a `#! rnews` line
//!   whose count leads to another `#! rnews` line can still be inside an
//!   article. Nor does the structure ever restart: once a count does not
//!   land on a `#! rnews` line, the splitter reads the rest of the input as
//!   one message. The only safe cuts are the points of the chain of counts
//!   from byte 0, so the chain is followed: one `#! rnews` line read per
//!   article (with windows of a few kilobytes, so a run of small articles
//!   costs one read), never the articles between.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

use memchr::memmem;

use super::split::{Mode, Splitter, is_envelope, rnews_count};
use super::{InputKind, MailProblem, MailStats, MailUrl};
use crate::extract::Sifter;

/// Bytes read around each target point of an mbox. Messages of a mailing
/// list are a few kilobytes, so a boundary is almost always in reach; one
/// beyond it (a target inside a long attachment) is given up, and the part
/// grows, rather than reading on.
const PROBE: usize = 64 << 10;

/// Bytes read at once along an rnews chain: enough for a dozen articles of
/// the usual size, so a batch costs about one read per window, not per
/// article, and a `#! rnews` line longer than this ends the cutting.
const RNEWS_WINDOW: usize = 16 << 10;

/// Offsets where a file can be cut into parts for [`extract_mail_part`]:
/// `0 = c0 < c1 < ... < size` (just `[0]` for an empty file), about every
/// `part` bytes; no cut is made within `part / 2` of the end, so the last
/// part is no small remainder. Each inner cut is where
/// [`super::extract_mail`], reading the whole file, starts a message, and
/// is at the start of a line.
///
/// - [`InputKind::Mbox`]: at the first `From ` separator at or after each
///   target point `k × part`, found in a probe of 64 KiB read with
///   `read_at`; a target with no separator in reach is skipped.
/// - [`InputKind::News`] and [`InputKind::Message`] (read alike): only an
///   rnews batch has more than one message, and only at the articles that
///   the chain of byte counts from the first `#! rnews` line reaches; the
///   chain is followed with one read per article or per 16 KiB of them.
/// - [`InputKind::Text`]: no inner cut (text is cut by the driver at line
///   starts, not here).
///
/// `size` is the file's length as the parts will read it; `file` is only
/// read with positioned reads, so its cursor does not move.
pub fn message_cuts(file: &File, kind: InputKind, size: u64, part: u64) -> io::Result<Vec<u64>> {
    let part = part.max(1);
    let mut cuts = vec![0];
    match kind {
        InputKind::Mbox => mbox_cuts(file, size, part, &mut cuts)?,
        InputKind::News | InputKind::Message => rnews_cuts(file, size, part, &mut cuts)?,
        InputKind::Text => {}
    }
    if size > 0 {
        cuts.push(size);
    }
    Ok(cuts)
}

fn mbox_cuts(file: &File, size: u64, part: u64, cuts: &mut Vec<u64>) -> io::Result<()> {
    let finder = memmem::Finder::new(b"\nFrom ");
    let mut buf = vec![0u8; PROBE];
    let mut target = part;
    while target.saturating_add(part / 2) < size {
        let last = *cuts.last().unwrap_or(&0);
        let min = target.max(last + 1);
        // Three bytes before the first possible cut: its blank line.
        let at = min.saturating_sub(3);
        let n = read_full_at(file, &mut buf, at)?;
        match separator(&buf[..n], at, min, &finder) {
            Some(p) if p.saturating_add(part / 2) < size => {
                cuts.push(p);
                target = (target + part).max(p + 1);
            }
            // Nothing in reach: skip this target. Going on from the middle
            // of the probe keeps tiny parts from probing every byte.
            _ => target = (target + part).max(at + n as u64 / 2 + 1),
        }
    }
    Ok(())
}

/// The first line start at or after `min` in `probe` (file bytes from
/// `at`) that the splitter takes for a separator. A line that runs past
/// the probe is judged on what the probe holds: `is_envelope` can only
/// turn true as a line grows, so a yes is final and a no merely skips it.
fn separator(probe: &[u8], at: u64, min: u64, finder: &memmem::Finder<'_>) -> Option<u64> {
    for i in finder.find_iter(probe) {
        let p = at + i as u64 + 1;
        // Below 2, the splitter's blank line would be the file's start,
        // where it has a rule of its own; no part is that small anyway.
        if p < min || p < 2 {
            continue;
        }
        let blank = (i >= 1 && probe[i - 1] == b'\n')
            || (i >= 2 && probe[i - 1] == b'\r' && probe[i - 2] == b'\n');
        if !blank {
            continue;
        }
        let line = &probe[i + 1..];
        let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
        if is_envelope(line) {
            return Some(p);
        }
    }
    None
}

fn rnews_cuts(file: &File, size: u64, part: u64, cuts: &mut Vec<u64>) -> io::Result<()> {
    let mut buf = vec![0u8; RNEWS_WINDOW];
    // `buf[..len]` holds the file's bytes from `win`.
    let (mut win, mut len) = (0u64, 0usize);
    let mut at = 0u64;
    let mut target = part;
    loop {
        let eof = |win: u64, len: usize| win + len as u64 >= size;
        let mut line = header_line(&buf[..len], win, at, eof(win, len));
        if line.is_none() {
            win = at.saturating_sub(1);
            len = read_full_at(file, &mut buf, win)?;
            line = header_line(&buf[..len], win, at, eof(win, len));
        }
        // A `#! rnews` line longer than a window: no more cuts.
        let Some((line, line_start)) = line else { break };
        // Not an article: the splitter reads the rest as one message.
        let Some(count) = rnews_count(line) else { break };
        // A cut only at a line start: a part's columns count from 1.
        if at >= target && line_start && at.saturating_add(part / 2) < size {
            cuts.push(at);
            target = at + part;
        }
        match at.checked_add(line.len() as u64).and_then(|e| e.checked_add(count as u64)) {
            Some(next) if next < size => at = next,
            // The last article, whole or cut short.
            _ => break,
        }
    }
    Ok(())
}

/// The line at file offset `at` (line break included, as the splitter
/// counts it) in `window` (file bytes from `win`), and whether a line
/// break ends the byte before it; `None` unless the window holds both.
fn header_line(window: &[u8], win: u64, at: u64, eof: bool) -> Option<(&[u8], bool)> {
    if at < win || at > win + window.len() as u64 {
        return None;
    }
    let rel = (at - win) as usize;
    if at > 0 && rel == 0 {
        return None;
    }
    let line_start = at > 0 && window[rel - 1] == b'\n';
    let rest = &window[rel..];
    match memchr::memchr(b'\n', rest) {
        Some(k) => Some((&rest[..=k], line_start)),
        None if eof => Some((rest, line_start)),
        None => None,
    }
}

/// Fills `buf` from file offset `at` as far as the file goes.
pub(crate) fn read_full_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], at + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// What [`extract_mail_part`] read: what the next part must be shifted by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartStats {
    /// Counts for the part. The parts' counts add up (`+=`) to the
    /// whole file's; `mail.messages` is how far the message indices of
    /// every later part move.
    pub mail: MailStats,
    /// Line breaks in the part (a CRLF once): how far the line numbers of
    /// every later part move.
    pub lines: u64,
}

/// Reads one part of a mail or news file, between two cuts of
/// [`message_cuts`]: `reader` is positioned at byte `start` of the file,
/// and nothing at or after `end` is read. `sink` and `problem` receive
/// what [`super::extract_mail`] gives for the same messages of the whole
/// file, except that
///
/// - `message_index` counts from 0 at the part's first message;
/// - line numbers count from 1 at the line at `start`;
/// - byte offsets and columns are the file's.
///
/// [`MailUrl::shift`] and [`MailProblem::shift`], given the sums of the
/// earlier parts' [`PartStats::lines`] and `mail.messages`, make them the
/// whole file's. The first part (`start` 0) needs no shift.
///
/// [`InputKind::Text`] is an error: text parts are the driver's.
///
/// A big message is copied to a temporary file as it is read, as
/// [`super::extract_mail`] copies one; [`extract_mail_part_with`] reads it
/// from the file instead.
pub fn extract_mail_part<R: Read>(
    sifter: &Sifter,
    reader: R,
    kind: InputKind,
    start: u64,
    end: u64,
    sink: impl FnMut(MailUrl),
    problem: impl FnMut(MailProblem),
) -> io::Result<PartStats> {
    extract_mail_part_with(sifter, reader, kind, start, end, None, sink, problem)
}

/// [`extract_mail_part`] where `source` is the file that `reader` reads:
/// a big message is read again from it with positioned reads.
#[allow(clippy::too_many_arguments)]
pub fn extract_mail_part_with<R: Read>(
    sifter: &Sifter,
    reader: R,
    kind: InputKind,
    start: u64,
    end: u64,
    source: Option<File>,
    mut sink: impl FnMut(MailUrl),
    mut problem: impl FnMut(MailProblem),
) -> io::Result<PartStats> {
    if kind == InputKind::Text {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "text is not cut into messages"));
    }
    let reader = reader.take(end.saturating_sub(start));
    let mut split = Splitter::starting_at(reader, Mode::of(kind), start)
        .spill(super::big_message_min(), source);
    let mut mail = super::messages(sifter, &mut split, kind, &mut sink, &mut problem)?;
    mail.bytes = split.bytes_read() - start;
    Ok(PartStats { mail, lines: split.lines_done() })
}

impl MailUrl {
    /// Moves a URL of a part read by [`extract_mail_part`] to its place in
    /// the whole file, after `lines` line breaks and `messages` messages
    /// of the parts before (the sums of their [`PartStats`]). Offsets and
    /// columns are already the file's; excerpts are whole lines and stay.
    pub fn shift(&mut self, lines: u64, messages: u64) {
        self.message_index += messages as usize;
        self.url.shift_lines(lines);
    }
}

impl MailProblem {
    /// As [`MailUrl::shift`], for a problem of a part.
    pub fn shift(&mut self, lines: u64, messages: u64) {
        self.message_index += messages as usize;
        self.line += lines;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    fn cuts(bytes: &[u8], kind: InputKind, part: u64) -> Vec<u64> {
        message_cuts(&file(bytes), kind, bytes.len() as u64, part).unwrap()
    }

    const ENV: &str = "From a@b Thu Jan  1 00:00:00 1970";

    #[test]
    fn mbox_cuts_only_at_separators() {
        let mbox = format!(
            "{ENV}\nSubject: a\n\nFrom all of us, thanks.\n\nx\n{ENV}\n\n{ENV}\r\nSubject: b\r\n\r\n\
             {ENV}\r\nSubject: c\r\n\r\n>{ENV}\n\n{ENV}\nSubject: d\n"
        );
        let b = mbox.as_bytes();
        let starts: Vec<u64> = b
            .windows(ENV.len())
            .enumerate()
            .filter(|(i, w)| {
                w.starts_with(ENV.as_bytes())
                    && *i > 0
                    && (b[..*i].ends_with(b"\n\n") || b[..*i].ends_with(b"\n\r\n"))
            })
            .map(|(i, _)| i as u64)
            .collect();
        assert_eq!(starts.len(), 3);
        let mut want = vec![0];
        want.extend(&starts);
        want.push(b.len() as u64);
        assert_eq!(cuts(b, InputKind::Mbox, 1), want);
        assert_eq!(cuts(b, InputKind::Mbox, 1000), [0, b.len() as u64]);
        assert_eq!(cuts(b, InputKind::Message, 1), [0, b.len() as u64]);
        assert_eq!(cuts(b, InputKind::Text, 1), [0, b.len() as u64]);
        assert_eq!(cuts(b"", InputKind::Mbox, 1), [0]);
    }

    #[test]
    fn rnews_cuts_follow_the_counts() {
        // The second article quotes a batch line whose count lands on the
        // third article: only the chain from byte 0 tells it is quoted.
        let a = "Path: a\n\nx\n";
        let c = "Path: c\n\n#! rnews 11\nPath: q\n\nq\n";
        let articles = [a, c, a];
        let mut batch = String::new();
        let mut starts = Vec::new();
        for art in articles {
            starts.push(batch.len() as u64);
            batch += &format!("#! rnews {}\n{art}", art.len());
        }
        batch += "no count\n";
        let b = batch.as_bytes();
        let got = cuts(b, InputKind::News, 1);
        assert_eq!(got, [0, starts[1], starts[2], b.len() as u64]);
        assert_eq!(cuts(b, InputKind::Message, 1), got);
        assert_eq!((starts[1], starts[2]), (23, 67));
        assert_eq!(cuts(b, InputKind::News, 50), [0, 67, b.len() as u64]);
        // A count ending mid-line makes no cut there.
        let mid = "#! rnews 2\nab#! rnews 9\nPath: z\n";
        assert_eq!(cuts(mid.as_bytes(), InputKind::News, 1), [0, mid.len() as u64]);
    }
}
