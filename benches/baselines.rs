//! Baselines for `benches/compare.sh`, built in the bench profile so they
//! are measured on the same footing as urlsift:
//!
//! - `colons FILE...`: counts `:` bytes with memchr, the floor every URL
//!   scanner sits on (urlsift's prefilter looks for exactly that byte);
//! - `linkify FILE...`: counts URLs with the linkify crate, what lychee
//!   uses for plain text.
//!
//! Run as `cargo bench --bench baselines -- linkify FILE`. Plain `cargo
//! bench` runs every bench target with no file, and this one then does
//! nothing.

use std::io::Read;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let Some((mode, files)) = args.split_first() else { return };
    let mut count = 0usize;
    let mut finder = linkify::LinkFinder::new();
    finder.kinds(&[linkify::LinkKind::Url]);
    for path in files {
        match mode.as_str() {
            // Streamed in 256 KiB reads like urlsift, so memory stays flat.
            "colons" => {
                let mut f = std::fs::File::open(path).expect("open");
                let mut buf = vec![0u8; 256 << 10];
                loop {
                    let n = f.read(&mut buf).expect("read");
                    if n == 0 {
                        break;
                    }
                    count += memchr::memchr_iter(b':', &buf[..n]).count();
                }
            }
            // linkify needs the whole text as a str.
            "linkify" => {
                let data = std::fs::read(path).expect("read");
                count += finder.links(&String::from_utf8_lossy(&data)).count();
            }
            other => panic!("unknown mode {other:?} (use colons or linkify)"),
        }
    }
    println!("{count}");
}
