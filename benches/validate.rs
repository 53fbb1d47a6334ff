//! Validator throughput on a mixed set of typical URLs across schemes:
//! `is_valid` (the verdict alone) and `diagnose` (the extractor's hot path,
//! which allocates only for URLs with something to report). Each benchmark
//! also checks the expected number of valid URLs, so a wrong fast path
//! cannot look fast.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use urlsift::diag::Grammar;
use urlsift::rules::Validator;

/// Typical URLs as found in 1990s text and later pages: mostly clean,
/// a few with notes, warnings or errors.
const URLS: &[&str] = &[
    "http://www.example.com/a/b.html",
    "http://info.cern.ch/hypertext/WWW/TheProject.html",
    "https://secure.example.org/login?next=home",
    "http://www.zator.com/Cpp/index.htp",
    "http://ds.internic.net/instructions/overview.html#WARNING",
    "http://info.cern.ch:8000/imaginary/test",
    "ftp://ds.internic.net/rfc/rfc1436.txt;type=a",
    "ftp://info.cern.ch/pub/www/doc;type=d",
    "ftp://oak.oakland.edu/simtel/win3/eudora/eudrm144.zip",
    "gopher://boombox.micro.umn.edu/11/gopher/gopher_protocol",
    "mailto:support@zator.com",
    "news:comp.infosystems.www.misc",
    "news:123456@host.example",
    "nntp://news.example.com/comp.lang.c/12345",
    "telnet://well.sf.ca.us",
    "wais://quake.think.com/wais-discussion-archives?lynch",
    "file://vms.host.edu/disk$user/my/notes/note12345.txt",
    "prospero://host.dom//pros/name",
    // noted: default port; invalid: `~` under RFC 1738, space.
    "http://www.example.com:80/index.html",
    "http://www.example.com/~user/",
    "http://www.example.com/a b",
];

/// Valid under RFC 1738: all but the last two.
const VALID_1738: usize = 19;

fn bench(c: &mut Criterion) {
    let v = Validator::new(Grammar::Rfc1738);
    let urls: Vec<&[u8]> = URLS.iter().map(|u| u.as_bytes()).collect();
    assert_eq!(urls.iter().filter(|u| v.is_valid(u)).count(), VALID_1738);

    let mut g = c.benchmark_group("validate");
    g.throughput(Throughput::Elements(urls.len() as u64));
    g.bench_function("is_valid", |b| {
        b.iter(|| {
            let n = urls.iter().filter(|u| v.is_valid(black_box(u))).count();
            assert_eq!(n, VALID_1738);
        })
    });
    let mut out = Vec::with_capacity(64);
    g.bench_function("diagnose", |b| {
        b.iter(|| {
            out.clear();
            for u in &urls {
                v.diagnose(black_box(u), &mut out);
            }
            // default-port note, `~`, space.
            assert_eq!(out.len(), 3);
        })
    });
    let clean: Vec<&[u8]> = urls[..18].to_vec();
    g.throughput(Throughput::Elements(clean.len() as u64));
    g.bench_function("diagnose_clean", |b| {
        b.iter(|| {
            out.clear();
            for u in &clean {
                v.diagnose(black_box(u), &mut out);
            }
            assert!(out.is_empty());
        })
    });
    g.bench_function("validate_clean", |b| {
        b.iter(|| {
            for u in &clean {
                black_box(v.validate(black_box(u)));
            }
        })
    });
    g.finish();

    let v3986 = Validator::new(Grammar::Rfc3986);
    assert_eq!(urls.iter().filter(|u| v3986.is_valid(u)).count(), VALID_1738 + 1);
    c.bench_function("validate/is_valid_rfc3986", |b| {
        b.iter(|| urls.iter().filter(|u| v3986.is_valid(black_box(u))).count())
    });
    // The default profile: `~` is fine there, so only the space is an
    // error; the clean path must cost what rfc1738's does.
    let modern = Validator::new(Grammar::Modern);
    assert_eq!(urls.iter().filter(|u| modern.is_valid(u)).count(), VALID_1738 + 1);
    c.bench_function("validate/is_valid_modern", |b| {
        b.iter(|| urls.iter().filter(|u| modern.is_valid(black_box(u))).count())
    });
    c.bench_function("validate/diagnose_clean_modern", |b| {
        b.iter(|| {
            out.clear();
            for u in &clean {
                modern.diagnose(black_box(u), &mut out);
            }
            assert!(out.is_empty());
        })
    });
    c.bench_function("validate/new_rfc1738", |b| b.iter(|| Validator::new(Grammar::Rfc1738)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
