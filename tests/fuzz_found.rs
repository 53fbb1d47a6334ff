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

/// The grammar read `a:1,,b` as a list of hosts (its members may hold
/// `,` through RFC 1738's `extra`) where the list reading, which splits at
/// every `,`, saw one host with a bad port.
#[test]
fn an_empty_member_in_a_list_of_hosts() {
    invariants::check_validate(b"postgresql://h1.examplg:5432,,h2.pxsmasieple:5433/db");
    invariants::check_validate(b"foo://a:1,,b/");
}

/// The same, found by the scan target: `foo://,,,,URL:,,,,/z.`.
#[test]
fn commas_around_a_port_in_a_bare_url() {
    invariants::check_extract(&[
        97, 116, 32, 116, 104, 101, 32, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 211, 211, 211, 211, 211, 211, 211, 211,
        211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211,
        211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211,
        211, 211, 211, 211, 243, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211,
        211, 211, 211, 211, 101, 110, 100, 255, 255, 255, 255, 255, 255, 102, 111, 111, 58, 47, 47,
        104, 111, 94, 115, 116, 47, 255, 226, 128, 134, 255, 255, 255, 255, 21, 21, 21, 21, 21, 21,
        21, 21, 21, 21, 21, 21, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0,
        0, 0, 0, 0, 0, 3, 255, 255, 111, 255, 255, 255, 255, 211, 211, 211, 211, 211, 211, 211,
        211, 243, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211, 211,
        211, 101, 110, 100, 255, 255, 255, 255, 255, 255, 102, 111, 111, 58, 47, 47, 44, 44, 44,
        44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44,
        44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44,
        44, 44, 44, 44, 44, 85, 82, 76, 58, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 44, 47,
        122, 46,
    ]);
}

/// A list of hosts that opens on an empty member, found by the validate
/// target after the fix above.
#[test]
fn a_list_of_hosts_that_opens_on_a_comma() {
    invariants::check_validate(b"postgresql://,o.example:5432,h2.example:5433/db????????????????");
    invariants::check_validate(b"postgresql://,o.example:5432,h2.example:5433/db");
}

/// A mailto address spelled out against harvesters (`<mailto:a b c at>`)
/// is taken as written, spaces and all; the invariant had said a wrapper's
/// URL is always its span without whitespace.
#[test]
fn a_spelled_out_mailto_in_brackets() {
    invariants::check_extract(
        b"List-Archive: <mailto:www-ge has brackets in inA.%0Dg at>10*%300A45.AAList\n",
    );
    invariants::check_extract(b"x <mailto:xcb at lists.example.org>\n");
}

/// `urlsift: ignore-hub` after a URL: since the block and file markers
/// came, `urlsift: ignore-...` is not the line marker (it was to the
/// invariants' model of it).
#[test]
fn a_marker_word_that_goes_on_after_ignore() {
    invariants::check_extract(&[
        104, 116, 1, 56, 251, 5, 116, 112, 115, 58, 47, 47, 119, 119, 119, 46, 103, 111, 111, 103,
        108, 101, 97, 112, 105, 115, 46, 99, 111, 109, 47, 110, 101, 116, 119, 111, 114, 107, 99,
        111, 110, 110, 101, 99, 116, 105, 118, 105, 116, 121, 47, 118, 49, 47, 112, 114, 111, 106,
        101, 99, 116, 115, 47, 109, 121, 45, 112, 114, 111, 106, 101, 99, 116, 47, 108, 111, 99,
        97, 116, 105, 111, 110, 115, 47, 103, 108, 111, 98, 97, 108, 47, 225, 225, 225, 225, 225,
        225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225,
        225, 225, 225, 225, 225, 225, 225, 225, 0, 116, 225, 225, 225, 225, 225, 225, 225, 225,
        225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225,
        225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225,
        225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225,
        225, 225, 225, 225, 225, 225, 225, 225, 104, 117, 98, 115, 47, 109, 121, 117, 114, 108,
        115, 105, 102, 116, 58, 32, 105, 103, 110, 111, 114, 101, 45, 104, 117, 98,
    ]);
    // And the block markers, on both sides of a URL with findings.
    invariants::check_extract(b"urlsift: disable[port-range]\nhttp://a.example:99999/%zz\nurlsift: enable http://b.example:99999/\n");
    invariants::check_extract(
        b"# urlsift: ignore-file[bad-escape]\nhttp://a.example:99999/%zz urlsift: disabled\n",
    );
}
