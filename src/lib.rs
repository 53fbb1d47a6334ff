//! urlsift finds, repairs and lints URLs in large bodies of text: mail and
//! news archives, documentation trees, plain-text standards.
//!
//! The pipeline, one module each:
//!
//! - [`scan`] finds where URLs are (every form of the RFC 1738 appendix and
//!   bare URLs in prose) and rejoins wrapped ones across lines; it never
//!   judges them.
//! - [`rules`] judges one URL against the grammar of its scheme and knows
//!   nothing of files or lines.
//! - [`extract`] ties the two together over a whole input, streamed in
//!   bounded windows, and maps every offset back to a line and column.
//! - [`diag`] names the judgements: stable codes and severities; the same
//!   problem in several places of one URL is one finding listing them all.
//! - [`mail`] reads mbox files, MIME messages and news articles, decodes
//!   them and maps every URL back to the original bytes.
//! - [`doc`] reads documents as documents (Markdown, HTML, source code
//!   strings, POD, reStructuredText, man pages, notebooks), each with a
//!   map back to the file's bytes.
//! - [`warc`] reads WARC and WET web archives record by record, each
//!   payload as its own document.
//! - [`links`] checks documents' relative links and `file:` URLs on
//!   disk, offline (`local-link-missing`, `fragment-missing`).
//! - [`fix`] applies the fixes of [`diag`] where the URL stands in the
//!   file (`lint --fix`).
//!
//! With the `cli` feature (on by default), the command line's modules:
//! `driver` owns files, threads (a big file is scanned in parts) and
//! output order; `printer` owns the bytes written; `config` reads
//! `urlsift.toml`; `lsp` serves editors (`urlsift lsp`). A library user
//! who only needs the engine builds without them, and without clap, the
//! tree walker, serde and the LSP crates:
//! `cargo add urlsift --no-default-features`.
//!
//! ```
//! use urlsift::extract::{Options, Sifter};
//!
//! let sifter = Sifter::new(Options::default());
//! let text = b"Note the warning in <URL:http://ds.internic.\n  net/instructions/overview.html#WARNING>.";
//! let urls = sifter.extract(text);
//! assert_eq!(urls[0].url, b"http://ds.internic.net/instructions/overview.html#WARNING");
//! assert_eq!((urls[0].start.line, urls[0].start.column), (1, 26));
//! assert_eq!((urls[0].end.line, urls[0].end.column), (2, 40));
//! assert!(urls[0].is_valid());
//! ```
//!
//! Conformance: where RFC 1738 and its drafts (RFC 1630, the 1993 and 1994
//! drafts) disagree, RFC 1738 wins; the older texts only add the forms that
//! real 1990s text contains (`URL=<...>`, `mid:`, `cid:`, `afs:`).

#![deny(missing_docs)]

pub mod compress;
#[cfg(feature = "cli")]
pub mod config;
pub mod diag;
pub mod doc;
#[cfg(feature = "cli")]
pub mod driver;
pub mod escape;
pub mod extract;
pub mod fix;
pub mod links;
#[cfg(feature = "cli")]
pub mod lsp;
pub mod mail;
mod markers;
mod merge;
#[cfg(feature = "cli")]
pub mod online;
mod posmap;
#[cfg(feature = "cli")]
pub mod printer;
pub mod rules;
pub mod scan;
pub mod span;
pub mod warc;

// The README's Rust example is compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
