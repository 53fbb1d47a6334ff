//! Arbitrary bytes after a `WARC/1.0` line, read as a WARC file: no panic,
//! every byte accounted for, and every URL placed inside its record's
//! payload, after the record's start, within the file.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use urlsift::extract::{Options, Scratch, Sifter};
use urlsift::warc::extract_warc;

fn sifter() -> &'static Sifter {
    static S: OnceLock<Sifter> = OnceLock::new();
    S.get_or_init(|| Sifter::new(Options::default()))
}

fuzz_target!(|data: &[u8]| {
    let mut file = b"WARC/1.0\r\n".to_vec();
    file.extend_from_slice(data);
    let len = file.len() as u64;
    let mut scratch = Scratch::default();
    let stats = extract_warc(
        sifter(),
        &file[..],
        false,
        &mut scratch,
        |r, e| {
            assert!(r.offset < r.payload_offset, "{r:?}");
            assert!(r.payload_offset <= e.start.offset, "{r:?} {:?}", e.start);
            assert!(e.start.offset <= e.end.offset && e.end.offset <= len, "{:?}", e.end);
            assert!(file[r.offset as usize..].starts_with(b"WARC/1."));
        },
        |_| {},
    )
    .unwrap();
    assert_eq!(stats.bytes, len);
    assert!(stats.scanned + stats.not_text + stats.other <= stats.records);
});
