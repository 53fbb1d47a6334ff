//! Arbitrary bytes as a text to extract URLs from. Beyond "does not crash",
//! every invariant of `tests/support/invariants.rs` is checked on every
//! input: positions inside the input and on the right bytes, line and
//! column equal to a naive recount, the URL equal to its source span with
//! the wrapper's whitespace and quote prefixes removed, URLs in order and
//! disjoint, findings equal to the validator's, streaming in small windows
//! equal to `Sifter::extract`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    invariants::check_extract(data);
});
