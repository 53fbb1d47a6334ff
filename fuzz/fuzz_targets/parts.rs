//! Arbitrary bytes as a file that `driver::run` splits into parts (scanned
//! in parallel, `RunOptions::part_size`): the JSON output must be exactly
//! that of the file read whole, with no error. The first two bytes pick
//! the part size (1 to 512 bytes), so cuts land everywhere: inside
//! wrappers, CRLFs, quote prefixes, hyphen breaks.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use urlsift::driver::{self, Input, RunOptions};
use urlsift::extract::{Options, Sifter};
use urlsift::printer::ExtractJson;

fn sifter() -> &'static Sifter {
    static S: OnceLock<Sifter> = OnceLock::new();
    S.get_or_init(|| Sifter::new(Options::default()))
}

fn run(path: &PathBuf, threads: usize, part_size: u64) -> (Vec<u8>, Vec<String>) {
    let input = Input::File { path: path.clone(), shown: "f".into() };
    let opts = RunOptions { threads, part_size, ..RunOptions::default() };
    let mut out = Vec::new();
    let mut errors = Vec::new();
    driver::run(&[input], sifter(), &ExtractJson, opts, |_, r| {
        out.extend_from_slice(&r.out);
        errors.extend(r.error.clone());
        Ok(())
    })
    .expect("writing to a Vec cannot fail");
    (out, errors)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let part = 1 + u64::from(u16::from_le_bytes([data[0], data[1]]) % 512);
    let text = &data[2..];
    let path = std::env::temp_dir().join(format!("urlsift-fuzz-parts-{}.txt", std::process::id()));
    std::fs::write(&path, text).expect("write the input file");
    let whole = run(&path, 1, 0);
    let split = run(&path, 2, part);
    assert!(whole.1.is_empty(), "errors reading whole: {:?}", whole.1);
    if split != whole {
        panic!(
            "parts of {part} bytes differ from the whole file\n  whole: {}\n  split: {}\n  errors: {:?}",
            String::from_utf8_lossy(&whole.0),
            String::from_utf8_lossy(&split.0),
            split.1
        );
    }
});
