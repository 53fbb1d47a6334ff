//! Adversarial inputs for the linear-time checks: shapes that make a
//! naive scanner rescan what it has already seen. Shared by
//! `tests/hostile.rs` (which runs each at a size where quadratic work would
//! take hours, and checks the answer, not the time) and
//! `benches/adversarial.rs` (which times them at 1 MB and 10 MB).

#![allow(dead_code)]

use urlsift::diag::Code;
use urlsift::extract::Extracted;
use urlsift::scan::MAX_URL;

/// Bytes of output a URL list holds: the URLs, alternatives, messages,
/// fixes and excerpts, plus a little per URL and finding.
pub fn output_bytes(got: &[Extracted]) -> usize {
    got.iter()
        .map(|u| {
            u.url.len()
                + u.alternatives.iter().map(Vec::len).sum::<usize>()
                + u.findings
                    .iter()
                    .map(|f| {
                        f.diagnostic.message.len()
                            + f.diagnostic.fix.as_ref().map_or(0, String::len)
                            + f.excerpt.as_ref().map_or(0, Vec::len)
                            + 64
                    })
                    .sum::<usize>()
                + 64
        })
        .sum()
}

/// At most this much output per input byte: the worst linear case (a `-`
/// at the end of every line, each with its own warning) is about 60.
pub const OUTPUT_PER_BYTE: usize = 256;

/// One adversarial input.
pub struct Case {
    /// Short name, used as the bench id.
    pub name: &'static str,
    /// Builds at least `size` bytes of it.
    pub make: fn(usize) -> Vec<u8>,
    /// Checks what was extracted from the `input` built by `make`.
    pub check: fn(&[u8], &[Extracted]) -> Result<(), String>,
}

/// `unit` repeated until at least `size` bytes.
pub fn repeat(unit: &[u8], size: usize) -> Vec<u8> {
    unit.repeat(size.div_ceil(unit.len()).max(1))
}

/// `head`, then `unit` repeated to at least `size` bytes, then `tail`.
pub fn framed(head: &[u8], unit: &[u8], size: usize, tail: &[u8]) -> Vec<u8> {
    let mut v = head.to_vec();
    v.extend(repeat(unit, size.saturating_sub(head.len() + tail.len()).max(1)));
    v.extend_from_slice(tail);
    v
}

fn count(input: &[u8], unit: &[u8]) -> usize {
    input.len() / unit.len()
}

fn want(got: &[Extracted], n: usize) -> Result<(), String> {
    if got.len() == n { Ok(()) } else { Err(format!("{} URLs, want {n}", got.len())) }
}

fn one_url_with_prefix(got: &[Extracted], prefix: &[u8], len: usize) -> Result<(), String> {
    want(got, 1)?;
    let u = &got[0].url;
    if !u.starts_with(prefix) || u.len() != len {
        return Err(format!(
            "URL of {} bytes starting {:?}, want {len} starting {:?}",
            u.len(),
            String::from_utf8_lossy(&u[..u.len().min(40)]),
            String::from_utf8_lossy(prefix)
        ));
    }
    Ok(())
}

/// The places findings of `code` point at (one finding lists them all).
fn codes(u: &Extracted, code: Code) -> usize {
    u.findings.iter().filter(|f| f.diagnostic.code == code).map(|f| f.spans().count()).sum()
}

/// One bare URL of `len` bytes starting with `prefix`, or, past
/// [`MAX_URL`], one cut there with `url-too-long` (the rest is read as
/// text and holds no colon).
fn one_bare_url_or_cut(got: &[Extracted], prefix: &[u8], len: usize) -> Result<(), String> {
    one_url_with_prefix(got, prefix, len.min(MAX_URL))?;
    let cut = codes(&got[0], Code::UrlTooLong);
    if cut != usize::from(len > MAX_URL) {
        return Err(format!("{cut} url-too-long for a URL of {len} bytes"));
    }
    Ok(())
}

/// A wrapper whose `>` is further than [`MAX_URL`] is unclosed: only its
/// first token is reported.
fn unclosed_past_cap(got: &[Extracted], token: &[u8]) -> Result<(), String> {
    one_url_with_prefix(got, token, token.len())?;
    if codes(&got[0], Code::UnclosedWrapper) != 1
        || got[0].findings.iter().any(|f| {
            f.diagnostic.code == Code::HyphenLineBreak || f.diagnostic.code == Code::UrlTooLong
        })
    {
        return Err(format!("want unclosed-wrapper alone, got {:?}", got[0].findings));
    }
    Ok(())
}

/// Every case. Sizes are approximate: each input is whole units.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "url-openers",
            // A million `<URL:` openers, none with a URL: each one ends the
            // previous (a `<` inside a wrapper closes it).
            make: |n| repeat(b"<URL:", n),
            check: |_, got| want(got, 0),
        },
        Case {
            name: "url-openers-with-token",
            // Each opener has a token and no `>`: one unclosed URL each.
            make: |n| repeat(b"<URL:a", n),
            check: |input, got| {
                want(got, count(input, b"<URL:a"))?;
                match got.iter().find(|u| u.url != b"a" || codes(u, Code::UnclosedWrapper) != 1) {
                    Some(u) => Err(format!("unexpected {u:?}")),
                    None => Ok(()),
                }
            },
        },
        Case {
            name: "one-long-line",
            // No line break at all: the streaming reader must grow its
            // window, not rescan it.
            make: |n| repeat(b"see http://a.example/x and ", n),
            check: |input, got| want(got, count(input, b"see http://a.example/x and ")),
        },
        Case {
            name: "open-parens",
            // 10^6 nested `(` after `http://`: kept (they do not close).
            make: |n| framed(b"http://a.example/", b"(", n, b""),
            check: |input, got| one_bare_url_or_cut(got, b"http://a.example/(", input.len()),
        },
        Case {
            name: "balanced-parens",
            make: |n| {
                let half = n / 2;
                let mut v = b"http://a.example/".to_vec();
                v.extend(repeat(b"(", half));
                v.extend(repeat(b")", half));
                v
            },
            check: |input, got| one_bare_url_or_cut(got, b"http://a.example/(", input.len()),
        },
        Case {
            name: "close-paren-after-each",
            // Each URL ends at an unbalanced `)` that is followed by the
            // next URL with no whitespace: finding each end must not look
            // at the whole rest of the line.
            make: |n| repeat(b"http://a.example)", n),
            check: |input, got| {
                want(got, count(input, b"http://a.example)"))?;
                match got.iter().find(|u| u.url != b"http://a.example") {
                    Some(u) => Err(format!("unexpected {:?}", u.url_lossy())),
                    None => Ok(()),
                }
            },
        },
        Case {
            name: "rejected-schemes-in-one-token",
            // `news:` that is not a URL (no `@`, no dot), a million times
            // in one whitespace-free token.
            make: |n| repeat(b"news:x,", n),
            check: |_, got| want(got, 0),
        },
        Case {
            name: "percent-run-wrapped",
            // `%` runs inside a URL: one bad escape each. Past the cap, the
            // wrapper is unclosed and its one token cut.
            make: |n| framed(b"<URL:http://a.example/", b"%", n, b">"),
            check: |input, got| {
                let len = input.len() - 6;
                one_url_with_prefix(got, b"http://a.example/%", len.min(MAX_URL))?;
                let want = [
                    (Code::BadEscape, len.min(MAX_URL) - 17),
                    (Code::UnclosedWrapper, 0),
                    (Code::UrlTooLong, 0),
                ];
                for (code, n) in want {
                    let n = if code == Code::BadEscape || len < MAX_URL { n } else { 1 };
                    if codes(&got[0], code) != n {
                        return Err(format!("{} {code}, want {n}", codes(&got[0], code)));
                    }
                }
                Ok(())
            },
        },
        Case {
            name: "percent-run-bare",
            make: |n| framed(b"http://a.example/", b"%", n, b""),
            check: |input, got| one_bare_url_or_cut(got, b"http://a.example/%", input.len()),
        },
        Case {
            name: "hyphen-breaks",
            // `-` at the end of every line of one wrapper.
            make: |n| framed(b"<URL:http://a.example/", b"-\n", n, b"x>"),
            check: |input, got| {
                if input.len() - 6 > MAX_URL {
                    return unclosed_past_cap(got, b"http://a.example/-");
                }
                let lines = count(&input[22..input.len() - 2], b"-\n");
                one_url_with_prefix(got, b"http://a.example/-", 17 + lines + 1)?;
                let n = codes(&got[0], Code::HyphenLineBreak);
                if n == lines { Ok(()) } else { Err(format!("{n} hyphen breaks, want {lines}")) }
            },
        },
        Case {
            name: "hyphen-breaks-in-words",
            // The same with text between the hyphens, so the hyphen-less
            // alternative is as long as the URL.
            make: |n| framed(b"<URL:http://a.example/", b"ab-\n", n, b"x>"),
            check: |input, got| {
                if input.len() - 6 > MAX_URL {
                    return unclosed_past_cap(got, b"http://a.example/ab-");
                }
                let lines = count(&input[22..input.len() - 2], b"ab-\n");
                one_url_with_prefix(got, b"http://a.example/ab-", 17 + 3 * lines + 1)?;
                let n = codes(&got[0], Code::HyphenLineBreak);
                if n == lines { Ok(()) } else { Err(format!("{n} hyphen breaks, want {lines}")) }
            },
        },
        Case {
            name: "colons",
            // A line of `:` only.
            make: |n| repeat(b":", n),
            check: |_, got| want(got, 0),
        },
        Case {
            name: "url-labels",
            // `URL:URL:URL:...`: one prefixed URL, the whole line less its
            // trailing `:`; past the cap, cut there, and the rest read as
            // text is `URL:URL:...` again.
            make: |n| repeat(b"URL:", n),
            check: |input, got| {
                let mut want = Vec::new();
                let mut at = 0;
                while at + 8 < input.len() {
                    let natural = input.len() - 1 - (at + 4);
                    want.push((at + 4, natural.min(MAX_URL)));
                    at += 4 + MAX_URL;
                }
                let got: Vec<(usize, usize)> =
                    got.iter().map(|u| (u.start.offset as usize, u.url.len())).collect();
                if got != want {
                    Err(format!("URLs (start, len) {got:?}, want {want:?}"))
                } else {
                    Ok(())
                }
            },
        },
        Case {
            name: "angle-a-colon",
            // `<a:<a:<a:...`: `<scheme:` without what the scheme needs.
            make: |n| repeat(b"<a:", n),
            check: |_, got| want(got, 0),
        },
        Case {
            name: "unclosed-wrapper-paragraph",
            // One `<URL:` whose paragraph never ends: a line per URL byte
            // (unclosed at the end of input, or past the cap).
            make: |n| framed(b"<URL:http://a.example/", b"x\n", n, b""),
            check: |_, got| unclosed_past_cap(got, b"http://a.example/x"),
        },
    ]
}
