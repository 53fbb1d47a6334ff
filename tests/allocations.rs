//! Allocations per URL on the streaming path (issue 15): a counting global
//! allocator around `Sifter::extract_reader` on text made of clean bare
//! URLs, with the scratch reused as the driver reuses it from file to file.
//!
//! This file holds a single test on purpose: the counter is global, and
//! another test running at the same time would add its allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use urlsift::extract::{Options, Scratch, Sifter};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call goes straight to the system allocator; only a counter
// is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A link list: `n` lines, each with a bare URL in prose and one in
/// Markdown link syntax, all valid under the default profile.
fn link_list(n: usize) -> Vec<u8> {
    let mut text = Vec::new();
    for i in 0..n {
        text.extend_from_slice(
            format!(
                "- [tool-{i}](https://github.com/owner{}/tool-{i}) - a fast tool, see http://docs.example.org/x/{i}.html.\n",
                i % 97
            )
            .as_bytes(),
        );
    }
    text
}

/// Allocations made while extracting `text` with a warmed-up scratch, and
/// the number of URLs found.
fn count(sifter: &Sifter, scratch: &mut Scratch, text: &[u8]) -> (u64, u64) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut urls = 0u64;
    let mut valid = 0u64;
    sifter
        .extract_reader(text, scratch, |e| {
            urls += 1;
            valid += u64::from(e.is_valid() && e.findings.is_empty());
        })
        .expect("reading a slice");
    assert_eq!(valid, urls, "every URL of the list is clean");
    (ALLOCATIONS.load(Ordering::Relaxed) - before, urls)
}

#[test]
fn a_clean_bare_url_costs_at_most_one_allocation() {
    let sifter = Sifter::new(Options::default());
    let mut scratch = Scratch::default();
    let small = link_list(100);
    let big = link_list(20_000);
    // Warm up: buffers grow to their working size once.
    count(&sifter, &mut scratch, &big);
    let (a_small, n_small) = count(&sifter, &mut scratch, &small);
    let (a_big, n_big) = count(&sifter, &mut scratch, &big);
    assert_eq!((n_small, n_big), (200, 40_000));
    // What each further URL costs, without the per-call constant.
    let per_url = (a_big - a_small) as f64 / (n_big - n_small) as f64;
    eprintln!(
        "allocations: {a_small} for {n_small} URLs, {a_big} for {n_big}: {per_url:.3} per URL"
    );
    // The one left is the URL's own bytes, which `Extracted` owns and hands
    // to the caller (a few allocations per call, not per URL, may differ
    // between the two runs: hence the margin).
    assert!(per_url < 1.01, "{per_url:.3} allocations per clean URL");
}
