//! Arbitrary bytes as one URL, under both grammars: `is_valid` (the DFA
//! fast path) agrees with `validate` (the explaining parser), `diagnose`
//! returns exactly `validate`'s diagnostics, every span is inside the URL
//! and sorted, and a URL valid under RFC 1738 comes back unchanged from
//! `<URL:...>` (which runs the extraction invariants on it too).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    invariants::check_validate(data);
});
