//! Latency of `urlsift lsp` (issue 18: diagnostics for a 1 MB document
//! within 20 ms of a change): the bench-profile binary is started as an
//! editor starts it, a 1 MB document opened, and each of a run of
//! incremental changes timed from the moment it is written to the moment
//! the diagnostics of its version are read back, framing and JSON on
//! both sides included.
//!
//! `cargo bench --bench lsp` (`-- N` for N changes per document, 50 by
//! default). Plain text and Markdown (Markdown's reader is the slower
//! one), each at the URL density of a documentation page and of a link
//! list (a URL on every line: each is validated, so time grows with the
//! count).

#[path = "../tests/support/lsp_client.rs"]
mod lsp_client;

use std::time::{Duration, Instant};

use lsp_client::Client;
use serde_json::json;

/// About 1 MB of prose. `dense`: a URL on every line, one in forty with
/// a finding (a link list); else a URL in one line of ten, one in four
/// hundred with a finding (a documentation page).
fn document(markdown: bool, dense: bool) -> String {
    let mut s = String::with_capacity(1 << 20);
    let mut i = 0;
    while s.len() < 1 << 20 {
        let (every, bad) = if dense { (1, 40) } else { (10, 400) };
        let url = if i % bad == 0 {
            format!("http://h{i}.example/a|b")
        } else if i % every == 0 {
            format!("https://host{}.example/docs/page-{i}.html", i % 97)
        } else {
            let end = if markdown { "\n\n" } else { "\n" };
            s.push_str(&format!("Line {i}: words, *words* and more words.{end}"));
            i += 1;
            continue;
        };
        if markdown {
            s.push_str(&format!("Paragraph {i}, see [the page]({url}) for *more* on it.\n\n"));
        } else {
            s.push_str(&format!("Line {i} of prose, see {url} for more on it.\n"));
        }
        i += 1;
    }
    s
}

fn main() {
    // `cargo bench` passes `--bench`; a number is the count of changes.
    let n: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(50);
    let cases = [
        ("text", false, false),
        ("markdown", true, false),
        ("text, a URL a line", false, true),
        ("markdown, a URL a line", true, true),
    ];
    for (name, markdown, dense) in cases {
        let mut c = Client::start(env!("CARGO_BIN_EXE_urlsift"));
        c.initialize("file:///nonexistent", json!({}));
        let ext = if markdown { "md" } else { "txt" };
        let uri = format!("file:///nonexistent/big.{ext}");
        let text = document(markdown, dense);
        let lines = text.lines().count() as u64;
        let t = Instant::now();
        c.open(&uri, if markdown { "markdown" } else { "plaintext" }, 1, &text);
        let findings = c.diagnostics(&uri, 1).len();
        let open = t.elapsed();
        let mut times = Vec::with_capacity(n);
        for v in 2..(n as i64 + 2) {
            // A character typed somewhere in the document each time.
            let line = (v as u64 * 7919) % lines;
            let change = json!({
                "textDocument": {"uri": uri, "version": v},
                "contentChanges": [{
                    "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
                    "text": "x",
                }],
            });
            let t = Instant::now();
            c.notify("textDocument/didChange", change);
            let d = c.diagnostics(&uri, v);
            times.push(t.elapsed());
            assert_eq!(d.len(), findings, "a typed `x` changes no finding");
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "lsp {name}: {} bytes, {findings} findings; open {:.1} ms; change -> diagnostics over {n} changes: min {:.1} ms, median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            text.len(),
            ms(open),
            ms(times[0]),
            ms(times[n / 2]),
            ms(times[(n * 95 / 100).min(n - 1)]),
            ms(times[n - 1]),
        );
        assert!(c.shutdown().success());
    }
}
