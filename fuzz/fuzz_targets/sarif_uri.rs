//! Arbitrary bytes as a file name, through `printer::sarif_uri` (SARIF's
//! artifact location): the URI is a relative reference of printable ASCII
//! with no scheme, query or fragment (no `:`, `?`, `#`, no `\`), and
//! percent-decoding it gives the name's exact bytes back (less a leading
//! `./`, which SARIF's base already is).
#![no_main]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use urlsift::driver::Input;
use urlsift::printer::sarif_uri;

fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3).expect("a whole escape");
            out.push(u8::from_str_radix(hex, 16).expect("hex digits"));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let path = PathBuf::from(OsStr::from_bytes(data));
    // As the walker shows names: UTF-8 as it is, other bytes escaped.
    let shown = match path.to_str() {
        Some(s) => s.to_string(),
        None => String::from_utf8_lossy(data).into_owned(),
    };
    let uri = sarif_uri(&Input::File { path, shown });
    assert!(uri.bytes().all(|b| b.is_ascii_graphic()), "{uri:?}");
    assert!(!uri.contains([':', '?', '#', '\\']), "{uri:?}");
    let want = data.strip_prefix(b"./").unwrap_or(data);
    assert_eq!(percent_decode(&uri), want, "{uri:?}");
});
