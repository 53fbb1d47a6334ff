//! A text part's body decoded as a stream: transfer encoding, then a
//! single-byte charset, a piece at a time, with the map back to the body
//! kept only for the last few megabytes (a [`SlidingMap`]). The scanner
//! reads it in windows, as it reads a plain file, so that a big part costs
//! neither a decoded copy, nor a map of every byte, nor a list of every
//! URL: a 100 MB base64 part used to take 1.4 GB.
//!
//! Every piece decodes to exactly what decoding the whole body gives for
//! the same bytes: base64 carries its quantum across pieces, a
//! quoted-printable piece ends only after a hard line break (escapes and
//! soft breaks never cross one), and a single-byte charset maps each byte
//! alone. Multi-byte charsets (stateful ones among them) are decoded
//! whole by the caller.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read};

use super::{base64, charset, qp};
use crate::posmap::{MapBuilder, SlidingMap};
use crate::scan::MAX_URL;

/// Body bytes decoded at a time.
const PIECE: usize = 256 << 10;

/// How far behind the decoded bytes the map is kept: past what the
/// scanner can still report a URL at (its window, a URL of at most
/// [`MAX_URL`], and the room it grows to while a wrapper is open).
const KEEP: usize = 4 * MAX_URL;

/// The transfer encoding being undone.
pub enum Transfer {
    /// 7bit, 8bit, binary, and unknown encodings: read as they are.
    Identity,
    /// Quoted-printable.
    Qp,
    /// Base64, with the quantum read so far.
    Base64(base64::Stream),
}

impl Transfer {
    /// The decoder for a `Content-Transfer-Encoding` (lower case), counted
    /// in `stats` as a whole part's decoding is.
    pub fn of(cte: &str, stats: &mut super::MailStats) -> Transfer {
        match cte {
            "quoted-printable" => {
                stats.decoded_qp += 1;
                Transfer::Qp
            }
            "base64" => {
                stats.decoded_base64 += 1;
                Transfer::Base64(Default::default())
            }
            _ => Transfer::Identity,
        }
    }
}

/// The decoded text of a body, as a reader; `map` (shared with whoever
/// places what is found) maps decoded offsets to body offsets. The body is
/// itself read from `src` (a slice, or a stretch of a file too big to
/// hold), a piece at a time.
pub struct Decoded<'a, R> {
    src: R,
    /// Body bytes read and not decoded yet.
    buf: Vec<u8>,
    /// Body offset of `buf[0]`.
    pos: usize,
    /// `src` is exhausted.
    eof: bool,
    transfer: Transfer,
    charset: Option<&'a [u8]>,
    out: Vec<u8>,
    /// Bytes of `out` read already.
    taken: usize,
    map: &'a RefCell<SlidingMap>,
    /// The quotes removed before `src` ([`Unquote`]), forgotten as `map`
    /// is.
    hits: Option<&'a RefCell<Hits>>,
}

impl<'a, R: Read> Decoded<'a, R> {
    /// Forgets the hits of `hits` that no offset still mapped can need.
    pub fn with_hits(mut self, hits: &'a RefCell<Hits>) -> Self {
        self.hits = Some(hits);
        self
    }

    /// A reader of the body read from `src`, decoded; `charset` must name
    /// a single-byte charset or none that needs decoding (see
    /// [`charset::decode`]).
    pub fn new(
        src: R,
        transfer: Transfer,
        charset: Option<&'a [u8]>,
        map: &'a RefCell<SlidingMap>,
    ) -> Self {
        Decoded {
            src,
            buf: Vec::new(),
            pos: 0,
            eof: false,
            transfer,
            charset,
            out: Vec::new(),
            taken: 0,
            map,
            hits: None,
        }
    }

    /// Reads until `buf` holds `want` bytes or `src` ends.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        while !self.eof && self.buf.len() < want {
            let have = self.buf.len();
            self.buf.resize(want, 0);
            let got = loop {
                match self.src.read(&mut self.buf[have..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    r => break r,
                }
            };
            match got {
                Ok(n) => {
                    self.buf.truncate(have + n);
                    self.eof = n == 0;
                }
                Err(e) => {
                    self.buf.truncate(have);
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Decodes the next piece into `out`; false at the end of the body.
    fn next_piece(&mut self) -> io::Result<bool> {
        self.fill(PIECE)?;
        if self.buf.is_empty() {
            return Ok(false);
        }
        let pos = self.pos;
        self.out.clear();
        self.taken = 0;
        let mut b = MapBuilder::new();
        let (end, mut map) = match self.transfer {
            Transfer::Identity => {
                let end = PIECE.min(self.buf.len());
                self.out.extend_from_slice(&self.buf[..end]);
                b.copy(pos, end);
                (end, b.finish())
            }
            Transfer::Qp => {
                // The piece ends after a hard line break: read on until
                // one comes (or the body ends), resuming the search where
                // it stopped, as a rejected break stays rejected.
                let mut from = PIECE.min(self.buf.len());
                let end = loop {
                    match qp_cut_in(&self.buf, from) {
                        Some(e) => break e,
                        None if self.eof => break self.buf.len(),
                        None => {
                            from = self.buf.len();
                            self.fill(self.buf.len() + PIECE)?;
                        }
                    }
                };
                let (bytes, mut map) = qp::decode(&self.buf[..end]);
                map.shift_src(pos);
                self.out = bytes;
                (end, map)
            }
            Transfer::Base64(ref mut s) => {
                let end = PIECE.min(self.buf.len());
                s.feed(&self.buf[..end], pos, &mut self.out, &mut b);
                if end == self.buf.len() && self.eof {
                    s.finish(&mut self.out, &mut b);
                }
                (end, b.finish())
            }
        };
        self.buf.drain(..end);
        self.pos += end;
        if let Some(label) = self.charset
            && let Some((text, cmap)) = charset::decode(label, &self.out)
        {
            map = cmap.then(text.len(), &map);
            self.out = text;
        }
        let mut m = self.map.borrow_mut();
        m.append(&map, self.out.len());
        let keep_from = m.produced().saturating_sub(self.out.len() + KEEP);
        m.forget_before(keep_from);
        if let Some(hits) = self.hits
            && m.first().is_some_and(|first| first <= keep_from)
        {
            hits.borrow_mut().forget_before(m.map(keep_from) as u64);
        }
        Ok(true)
    }
}

impl<R: Read> Read for Decoded<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.taken == self.out.len() {
            if !self.next_piece()? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.out.len() - self.taken);
        buf[..n].copy_from_slice(&self.out[self.taken..self.taken + n]);
        self.taken += n;
        Ok(n)
    }
}

/// The `>From ` quotes that [`Unquote`] removed from a body: what places
/// the bytes after them (unquoted offsets back to body offsets). Only the
/// hits that offsets still asked for can need are kept.
#[derive(Debug, Default)]
pub struct Hits {
    /// For each hit kept, the unquoted offset of the byte after the `>`
    /// removed (where that `>` stood), in order.
    at: VecDeque<u64>,
    /// Hits forgotten: before every offset still asked for.
    forgotten: u64,
}

impl Hits {
    /// The body offset of unquoted offset `u`.
    pub fn raw(&self, u: u64) -> u64 {
        u + self.forgotten + self.at.partition_point(|&q| q <= u) as u64
    }

    /// Forgets the hits that only offsets before `u` need.
    pub fn forget_before(&mut self, u: u64) {
        while self.at.front().is_some_and(|&q| q < u) {
            self.at.pop_front();
            self.forgotten += 1;
        }
    }
}

/// Where [`Unquote`] stands.
#[derive(Clone, Copy, Debug)]
enum Quote {
    /// Inside a line.
    Line,
    /// At the start of a line.
    LineStart,
    /// After `n` `>`s that open a line.
    Run { n: u64 },
    /// After `n` `>`s and `k` bytes of `From `.
    From { n: u64, k: usize },
    /// Giving out `gt` `>`s, then `From `'s bytes `from..to`.
    Give { gt: u64, from: usize, to: usize },
}

/// An mbox body with its `>From ` quoting undone, as
/// `super::unquote_from` undoes it in a message held whole (one `>` off
/// every line that matches `^>+From `), as a stream: a line's `>`s are
/// counted, not held, until what follows them decides. Each `>` removed is
/// recorded in `hits`. With `on` false, the body is read as it is.
pub struct Unquote<'a, R> {
    src: R,
    on: bool,
    buf: Vec<u8>,
    /// `buf[at..len]` is read and not yet taken.
    at: usize,
    len: usize,
    eof: bool,
    state: Quote,
    /// Bytes given out.
    given: u64,
    hits: &'a RefCell<Hits>,
}

impl<'a, R: Read> Unquote<'a, R> {
    /// `src` unquoted when `on`; `src` must start at the start of a line.
    pub fn new(src: R, on: bool, hits: &'a RefCell<Hits>) -> Self {
        let buf = if on { vec![0; 64 << 10] } else { Vec::new() };
        Unquote { src, on, buf, at: 0, len: 0, eof: false, state: Quote::LineStart, given: 0, hits }
    }
}

impl<R: Read> Read for Unquote<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if !self.on {
            return self.src.read(out);
        }
        const FROM: &[u8] = b"From ";
        let mut w = 0;
        while w < out.len() {
            if let Quote::Give { gt, from, to } = self.state {
                if gt > 0 {
                    let n = gt.min((out.len() - w) as u64) as usize;
                    out[w..w + n].fill(b'>');
                    w += n;
                    self.state = Quote::Give { gt: gt - n as u64, from, to };
                } else if from < to {
                    let n = (to - from).min(out.len() - w);
                    out[w..w + n].copy_from_slice(&FROM[from..from + n]);
                    w += n;
                    self.state = Quote::Give { gt, from: from + n, to };
                } else {
                    self.state = Quote::Line;
                }
                continue;
            }
            if self.at == self.len {
                if self.eof {
                    match self.state {
                        // A line cut short by the end: what was held back.
                        Quote::Run { n } => self.state = Quote::Give { gt: n, from: 0, to: 0 },
                        Quote::From { n, k } => self.state = Quote::Give { gt: n, from: 0, to: k },
                        _ => break,
                    }
                    continue;
                }
                if w > 0 {
                    break;
                }
                self.len = loop {
                    match self.src.read(&mut self.buf) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        r => break r?,
                    }
                };
                self.at = 0;
                self.eof = self.len == 0;
                continue;
            }
            let input = &self.buf[self.at..self.len];
            match self.state {
                Quote::Line => {
                    let room = out.len() - w;
                    let (n, ends) = match memchr::memchr(b'\n', input) {
                        Some(i) if i < room => (i + 1, true),
                        _ => (input.len().min(room), false),
                    };
                    out[w..w + n].copy_from_slice(&input[..n]);
                    w += n;
                    self.at += n;
                    if ends {
                        self.state = Quote::LineStart;
                    }
                }
                Quote::LineStart => {
                    if input[0] == b'>' {
                        self.at += 1;
                        self.state = Quote::Run { n: 1 };
                    } else {
                        self.state = Quote::Line;
                    }
                }
                Quote::Run { n } => {
                    let more = input.iter().take_while(|&&b| b == b'>').count();
                    self.at += more;
                    self.state = Quote::Run { n: n + more as u64 };
                    if more < input.len() {
                        self.state = Quote::From { n: n + more as u64, k: 0 };
                    }
                }
                Quote::From { n, mut k } => {
                    let mut i = 0;
                    while k < FROM.len() && i < input.len() && input[i] == FROM[k] {
                        k += 1;
                        i += 1;
                    }
                    self.at += i;
                    if k == FROM.len() {
                        // A quoted line: its first `>` goes.
                        self.hits.borrow_mut().at.push_back(self.given + w as u64);
                        self.state = Quote::Give { gt: n - 1, from: 0, to: k };
                    } else if i < input.len() {
                        // Not one: what was held back goes out as it was,
                        // and the byte that differs is read as the line's.
                        self.state = Quote::Give { gt: n, from: 0, to: k };
                    } else {
                        self.state = Quote::From { n, k };
                    }
                }
                Quote::Give { .. } => unreachable!("handled above"),
            }
        }
        self.given += w as u64;
        Ok(w)
    }
}

/// Where a quoted-printable piece may end at or after `from`: right after
/// a hard line break (a line that does not end in a soft break's `=`);
/// `None` when `body` holds none there.
fn qp_cut_in(body: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = memchr::memchr(b'\n', &body[at..]) {
        let nl = at + i;
        let mut k = nl;
        if k > 0 && body[k - 1] == b'\r' {
            k -= 1;
        }
        while k > 0 && matches!(body[k - 1], b' ' | b'\t') {
            k -= 1;
        }
        if k == 0 || body[k - 1] != b'=' {
            return Some(nl + 1);
        }
        at = nl + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::Trickle;

    /// Decoding in pieces gives the whole decoding's bytes and map.
    fn same_as_whole(body: &[u8], transfer: impl Fn() -> Transfer, charset: Option<&[u8]>) {
        let whole = match transfer() {
            Transfer::Identity => (body.to_vec(), None),
            Transfer::Qp => {
                let (b, m) = qp::decode(body);
                (b, Some(m))
            }
            Transfer::Base64(_) => {
                let (b, m) = base64::decode(body);
                (b, Some(m))
            }
        };
        let (text, cmap) = match charset.and_then(|c| charset::decode(c, &whole.0)) {
            Some((t, m)) => (t, Some(m)),
            None => (whole.0.clone(), None),
        };
        let resolve = |o: usize| {
            let o = cmap.as_ref().map_or(o, |m| m.map(o));
            whole.1.as_ref().map_or(o, |m| m.map(o))
        };
        for step in [usize::MAX, 1000] {
            let map = RefCell::new(SlidingMap::default());
            let mut r = Decoded::new(Trickle(body, step), transfer(), charset, &map);
            let got = read_all(&mut r, &map, &resolve);
            assert_eq!(got, text, "step {step}");
        }
    }

    /// Reads `r` to its end, checking the map of every byte on the way.
    fn read_all(
        r: &mut impl Read,
        map: &RefCell<SlidingMap>,
        resolve: &dyn Fn(usize) -> usize,
    ) -> Vec<u8> {
        let mut got = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            let from = got.len();
            got.extend_from_slice(&buf[..n]);
            for o in from..got.len() {
                assert_eq!(map.borrow().map(o), resolve(o), "offset {o}");
            }
        }
        got
    }

    #[test]
    fn pieces_decode_as_the_whole_body() {
        let mut qp_body = Vec::new();
        let mut plain = Vec::new();
        for k in 0..40_000 {
            qp_body.extend_from_slice(
                format!("see http://a.example/very/long/pa=\nth?x=3D{k} caf=E9  \r\n=3D=\n")
                    .as_bytes(),
            );
            plain
                .extend_from_slice(format!("line {k} caf\u{e9} http://b.example/{k}\n").as_bytes());
        }
        same_as_whole(&qp_body, || Transfer::Qp, None);
        // One line of soft breaks longer than a piece: the piece is read on
        // to its hard break.
        let long: Vec<u8> =
            b"x http://a.example/=\r\n".repeat(PIECE / 10).into_iter().chain(*b"\nend").collect();
        same_as_whole(&long, || Transfer::Qp, None);
        same_as_whole(&qp_body, || Transfer::Qp, Some(b"iso-8859-1"));
        same_as_whole(&plain, || Transfer::Identity, Some(b"iso-8859-1"));
        let mut b64 = Vec::new();
        for chunk in plain.chunks(57) {
            b64.extend_from_slice(base64_encode(chunk).as_bytes());
            b64.extend_from_slice(b"\r\n");
        }
        same_as_whole(&b64, || Transfer::Base64(base64::Stream::default()), Some(b"latin1"));
    }

    fn base64_encode(bytes: &[u8]) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for c in bytes.chunks(3) {
            let v = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            for j in 0..4 {
                if j <= c.len() {
                    s.push(A[(v >> (18 - 6 * j) & 63) as usize] as char);
                } else {
                    s.push('=');
                }
            }
        }
        s
    }

    /// Unquoting as a stream gives the bytes of `unquote_from` over the
    /// whole body, and its hits place every byte where the whole map does,
    /// whatever the reads (runs of `>` and `From ` cut across them).
    #[test]
    fn unquoting_as_a_stream_is_unquoting_whole() {
        const TOKENS: &[&[u8]] = &[b">", b">>", b"From ", b"Fro", b"F", b"\n", b"x", b"\r\n"];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut cases: Vec<Vec<u8>> = vec![b">From ".to_vec(), b">".to_vec(), b">>Fro".to_vec()];
        let long: Vec<u8> = std::iter::repeat_n(b'>', 200_000).chain(*b"From x\n>From ").collect();
        cases.push(long);
        for _ in 0..3_000 {
            let n = next(40);
            cases.push((0..n).flat_map(|_| TOKENS[next(TOKENS.len())].iter().copied()).collect());
        }
        for body in &cases {
            let (want, map) = match super::super::unquote_from(body) {
                Some((b, m)) => (b, Some(m)),
                None => (body.clone(), None),
            };
            for step in [1, 3, 7, 1 << 20] {
                let hits = RefCell::new(Hits::default());
                let mut r = Unquote::new(Trickle(body, step), true, &hits);
                let mut got = Vec::new();
                let mut buf = [0u8; 5];
                loop {
                    let n = r.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&buf[..n]);
                }
                assert_eq!(got, want, "{:?} step {step}", String::from_utf8_lossy(body));
                for u in 0..got.len() {
                    let whole = map.as_ref().map_or(u, |m| m.map(u));
                    assert_eq!(hits.borrow().raw(u as u64), whole as u64, "offset {u}");
                }
            }
        }
    }

    #[test]
    fn qp_pieces_end_after_hard_breaks_only() {
        let body = b"ab=\ncd  \r\nef= \r\ngh\nij";
        assert_eq!(qp_cut_in(body, 0), Some(10));
        assert_eq!(qp_cut_in(body, 10), Some(19));
        assert_eq!(qp_cut_in(body, 19), None);
    }
}
