//! Arbitrary bytes through the terminal escaping (`escape::for_terminal`,
//! used for text output, excerpts, annotations and messages): nothing that
//! comes out is a control character (C0, DEL, C1) or one of the invisible
//! characters that reorder or hide text (`escape::is_unsafe`), and the
//! input is only passed through unchanged when it is valid UTF-8 holding
//! none of them.
#![no_main]

use std::borrow::Cow;

use libfuzzer_sys::fuzz_target;
use urlsift::escape::{for_terminal, is_unsafe, str_for_terminal};

fn check(out: &str) {
    assert!(!out.bytes().any(|b| b < 0x20 || b == 0x7f), "raw control byte in {out:?}");
    assert!(!out.chars().any(is_unsafe), "unsafe character in {out:?}");
}

fuzz_target!(|data: &[u8]| {
    let out = for_terminal(data);
    check(&out);
    if let Cow::Borrowed(s) = out {
        assert_eq!(s.as_bytes(), data, "borrowed but changed");
    } else {
        let clean = std::str::from_utf8(data).is_ok_and(|s| !s.chars().any(is_unsafe));
        assert!(!clean, "escaped an input that needed nothing");
    }
    check(&str_for_terminal(&String::from_utf8_lossy(data)));
});
