//! Inputs the fuzz smoke run found, replayed through the same invariants
//! as the fuzz targets (`fuzz/fuzz_targets/`).

#[path = "support/invariants.rs"]
mod invariants;

#[test]
fn a_scheme_starting_with_a_digit_is_judged_alike_on_both_paths() {
    invariants::check_validate(b"1a:b");
}

#[test]
fn a_mailto_glued_to_an_ftp_url() {
    invariants::check_extract(b"nmailto:Ewftp://s:ahos/b?c:d;e&f=tg@10.1.2.3");
}

#[test]
fn a_margin_join_after_a_hyphen_in_a_bare_url() {
    invariants::check_extract(b"http://info.cern.ch/albram%2Fma[[0AvvvvvvvvvvvvvvvvVvv-\x0d\x0avvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv@host/<u[\x8b1[htaude");
}

#[test]
fn a_margin_join_after_a_hyphen_under_rfc1738() {
    invariants::check_extract(&[
        104, 116, 116, 112, 115, 58, 226, 128, 157, 116, 116, 139, 139, 139, 139, 139, 46, 139,
        139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139,
        139, 112, 114, 111, 115, 112, 101, 114, 111, 58, 47, 47, 139, 139, 139, 139, 139, 139, 139,
        139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139, 139,
        139, 45, 13, 10, 139, 139, 139, 139, 139, 139, 139, 139, 114,
    ]);
}
