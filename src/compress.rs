//! Compressed inputs: gzip (every member of a multi-member file, as WARC
//! writes them), bzip2, xz and zstd, told by their magic bytes and
//! decompressed in process, streamed.
//!
//! A stream that breaks (truncated, corrupt, a bomb) ends there for the
//! reader, as if the file ended: every reader (text, mail, documents)
//! keeps what it found before; the error is kept on the side
//! ([`Handle::error`]) for the file's report.
//!
//! The decoders are `flate2` on `zlib-rs`, `bzip2` on `libbz2-rs-sys`
//! and `lzma-rust2` (pure Rust), and `zstd` (the reference C library,
//! built by the crate: the pure-Rust decoder ran at less than half the
//! speed of `zstd -dc`, and the in-process path must not be slower than
//! the pipe). [`Decoder`] wraps one with what a scan of an
//! archive needs: the count of compressed bytes read (for `--stats` and
//! for saying where a stream broke), a bound on how much the input may
//! expand (a decompression bomb ends with an error, not a full disk), and
//! errors that name the format and the byte.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::io::{self, Read};
use std::rc::Rc;

/// A compression format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compression {
    /// gzip (RFC 1952), one member or several.
    Gzip,
    /// bzip2, one stream or several.
    Bzip2,
    /// xz, one stream or several.
    Xz,
    /// Zstandard, one frame or several.
    Zstd,
}

impl Compression {
    /// The format whose magic bytes `head` starts with.
    pub fn detect(head: &[u8]) -> Option<Compression> {
        if head.starts_with(&[0x1f, 0x8b]) {
            Some(Compression::Gzip)
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Some(Compression::Bzip2)
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Some(Compression::Xz)
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Compression::Zstd)
        } else {
            None
        }
    }

    /// Its name, as JSON and messages give it.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }

    /// `name` without its compression suffix (`a.md.gz` is `a.md`), so
    /// that the format of what is inside is told by the name before it.
    pub fn inner_name(name: &str) -> &str {
        for ext in [".gz", ".gzip", ".bz2", ".xz", ".zst", ".zstd"] {
            if let Some(stem) = name.strip_suffix(ext) {
                return stem;
            }
        }
        name
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How much an input may expand, by default: text compresses 3 to 20
/// times, logs of repeated lines a few hundred; a thousand is a bomb.
pub const MAX_RATIO: u64 = 1000;

/// Expansion below this many decompressed bytes is never questioned: a
/// small file of one repeated byte is not a threat.
const RATIO_FLOOR: u64 = 64 << 20;

/// A decoder that could not start: its error, on the first read.
struct Failed(Option<io::Error>);

impl Read for Failed {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(self.0.take().unwrap_or_else(|| io::ErrorKind::UnexpectedEof.into()))
    }
}

/// Counts the bytes read through it.
struct Counted<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// Decompresses `R`, with the bounds and messages of the module docs.
pub struct Decoder<'a> {
    inner: Box<dyn Read + 'a>,
    format: Compression,
    handle: Rc<Handle>,
    decompressed: u64,
    max_ratio: u64,
}

/// What a [`Decoder`] leaves to be read after it is gone.
#[derive(Debug, Default)]
pub struct Handle {
    compressed: Rc<Cell<u64>>,
    error: RefCell<Option<io::Error>>,
}

impl Handle {
    /// Compressed bytes read.
    pub fn compressed_bytes(&self) -> u64 {
        self.compressed.get()
    }

    /// Why the stream ended early, if it did (taken once).
    pub fn error(&self) -> Option<io::Error> {
        self.error.borrow_mut().take()
    }
}

impl<'a> Decoder<'a> {
    /// A decoder of `format` over `raw`, the compressed bytes from the
    /// first; `max_ratio` bounds the expansion (0: [`MAX_RATIO`]).
    pub fn new<R: Read + 'a>(format: Compression, raw: R, max_ratio: u64) -> Decoder<'a> {
        let handle = Rc::new(Handle::default());
        let raw = Counted { inner: raw, read: handle.compressed.clone() };
        let inner: Box<dyn Read + 'a> = match format {
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(raw)),
            Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
            // 1 GiB of dictionary at most: xz's own default is 64 MiB at
            // its highest preset; more is a hostile header.
            Compression::Xz => Box::new(lzma_rust2::XzReader::new_mem_limit(raw, true, 1 << 20)),
            // Every frame; a window over zstd's default limit (128 MiB)
            // is refused as hostile.
            Compression::Zstd => match zstd::stream::read::Decoder::new(raw) {
                Ok(d) => Box::new(d),
                Err(e) => Box::new(Failed(Some(e))),
            },
        };
        let max_ratio = if max_ratio == 0 { MAX_RATIO } else { max_ratio };
        Decoder { inner, format, handle, decompressed: 0, max_ratio }
    }

    /// The count of compressed bytes and the error, for after the decoder
    /// is gone.
    pub fn handle(&self) -> Rc<Handle> {
        self.handle.clone()
    }

    /// Ends the stream here, keeping why.
    fn fail(&mut self, what: &str) -> io::Result<usize> {
        let e = io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} stream {what} at byte {}", self.format, self.handle.compressed.get()),
        );
        *self.handle.error.borrow_mut() = Some(e);
        Ok(0)
    }
}

impl Read for Decoder<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.handle.error.borrow().is_some() {
            return Ok(0);
        }
        match self.inner.read(buf) {
            Ok(n) => {
                self.decompressed += n as u64;
                if self.decompressed > RATIO_FLOOR
                    && self.decompressed / self.handle.compressed.get().max(1) > self.max_ratio
                {
                    let cap = self.max_ratio;
                    return self.fail(&format!(
                        "stopped: it expands more than {cap} times (a decompression bomb?; \
                         --max-ratio raises the cap)"
                    ));
                }
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => self.fail("truncated"),
            Err(e) => self.fail(&format!("corrupt ({e})")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn read_all(format: Compression, raw: &[u8]) -> (Vec<u8>, Option<io::Error>) {
        let mut d = Decoder::new(format, raw, 0);
        let mut out = Vec::new();
        d.read_to_end(&mut out).expect("a broken stream ends, it does not fail the read");
        (out, d.handle().error())
    }

    #[test]
    fn magic_bytes_name_the_format() {
        assert_eq!(Compression::detect(&gzip(b"x")), Some(Compression::Gzip));
        assert_eq!(Compression::detect(b"BZh91AY&SY"), Some(Compression::Bzip2));
        assert_eq!(Compression::detect(b"BZh is a word"), None);
        assert_eq!(Compression::detect(b"\xfd7zXZ\0\0"), Some(Compression::Xz));
        assert_eq!(Compression::detect(b"\x28\xb5\x2f\xfd\x00"), Some(Compression::Zstd));
        assert_eq!(Compression::detect(b"From a@b"), None);
        assert_eq!(Compression::inner_name("2019-March.txt.gz"), "2019-March.txt");
        assert_eq!(Compression::inner_name("a.md"), "a.md");
    }

    #[test]
    fn every_gzip_member_is_read() {
        let mut two = gzip(b"first http://a.example/\n");
        two.extend(gzip(b"second http://b.example/\n"));
        let (out, e) = read_all(Compression::Gzip, &two);
        assert!(e.is_none());
        assert_eq!(out, b"first http://a.example/\nsecond http://b.example/\n");
    }

    #[test]
    fn a_truncated_stream_is_an_error_naming_the_format_and_byte() {
        let data: Vec<u8> =
            (0..200_000u32).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        let z = gzip(&data);
        let cut = &z[..z.len() / 2];
        let (out, e) = read_all(Compression::Gzip, cut);
        let e = e.expect("an error").to_string();
        assert!(e.starts_with("gzip stream truncated at byte "), "{e}");
        assert!(!out.is_empty() && data.starts_with(&out), "what came before is kept");
    }

    #[test]
    fn a_bomb_stops_at_the_ratio() {
        let zeros = vec![b'a'; 200 << 20];
        let z = gzip(&zeros);
        let mut d = Decoder::new(Compression::Gzip, &z[..], 0);
        let mut sink = io::sink();
        let n = io::copy(&mut d, &mut sink).unwrap();
        // It stops on the read that crosses the floor: what came before
        // is kept.
        assert!(n > RATIO_FLOOR / 2 && n <= RATIO_FLOOR, "{n}");
        let e = d.handle().error().expect("stopped").to_string();
        assert!(e.contains("decompression bomb"), "{e}");
        // Raised, it passes.
        let mut d = Decoder::new(Compression::Gzip, &z[..], 1_000_000);
        assert_eq!(io::copy(&mut d, &mut sink).unwrap(), 200 << 20);
    }
}
