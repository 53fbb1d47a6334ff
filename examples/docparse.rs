//! Where a document reader's time goes, stage by stage, on one file:
//! `cargo run --release --example docparse -- FILE [FORMAT]`.
//!
//! Prints the best of five runs of each stage in MB/s: pulldown-cmark's
//! own parse (the floor of the Markdown reader), the reader (`doc::read`),
//! and the whole extraction (`doc::extract_doc`), with plain text's
//! extraction of the same bytes to compare against.

use std::time::Instant;

use pulldown_cmark::{Options, Parser};
use urlsift::doc::{self, Format};
use urlsift::extract::{Options as SiftOptions, Sifter};

fn best(mb: f64, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut best = f64::MAX;
    let mut n = 0;
    for _ in 0..5 {
        let t = Instant::now();
        n = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (mb / best, n)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: docparse FILE [FORMAT]");
    let src = std::fs::read(&path).expect("readable file");
    let format = match args.next() {
        Some(name) => Format::from_name(&name).expect("a format name"),
        None => Format::of(Some(path.as_ref()), &src, &[]),
    };
    let mb = src.len() as f64 / 1e6;
    let sifter = Sifter::new(SiftOptions::default());
    if format == Format::Markdown {
        let text = std::str::from_utf8(&src).expect("UTF-8 for this bench");
        let gfm = Options::ENABLE_TABLES
            | Options::ENABLE_FOOTNOTES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS;
        for (name, opts) in
            [("pulldown-cmark, GFM options", gfm), ("pulldown-cmark, none", Options::empty())]
        {
            let (speed, n) = best(mb, || Parser::new_ext(text, opts).into_offset_iter().count());
            println!("{name:32} {speed:8.0} MB/s  ({n} events)");
        }
        let (speed, n) =
            best(mb, || Parser::new_ext(text, gfm).reference_definitions().iter().count());
        println!("{:32} {speed:8.0} MB/s  ({n} definitions)", "pulldown-cmark first pass");
        // The same parse in pieces of about 64 KB cut at blank lines:
        // what a small tree (no page faults, cache-resident) would cost.
        let mut pieces = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let mut end = (at + 65536).min(text.len());
            while end < text.len() && !(text.is_char_boundary(end) && text[..end].ends_with("\n\n"))
            {
                end += 1;
            }
            pieces.push(&text[at..end]);
            at = end;
        }
        let (speed, n) = best(mb, || {
            pieces.iter().map(|p| Parser::new_ext(p, gfm).into_offset_iter().count()).sum()
        });
        println!("{:32} {speed:8.0} MB/s  ({n} events)", "pulldown-cmark in 64 KB pieces");
    }
    let (speed, n) = best(mb, || doc::read(format, &src).text.len());
    println!("{:32} {speed:8.0} MB/s  ({n} bytes of text)", "doc::read");
    for f in [format, Format::Text] {
        let (speed, n) = best(mb, || doc::extract_doc(&sifter, f, &src, true, |_| {}) as usize);
        println!("{:32} {speed:8.0} MB/s  ({n} URLs)", format!("extract_doc as {}", f.as_str()));
    }
}
