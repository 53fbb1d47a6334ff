//! The integration tests, as one test binary. Each file of this folder was
//! a test binary of its own: 34 crates that each compiled their own copy
//! of the helpers and of the library's generic code, 282 s of compiling on
//! 2 cores against 144 s as one. `tests/allocations.rs` stays apart: its
//! counting allocator counts the whole process.

// Helpers more than one file uses, declared once.
#[path = "../support/invariants.rs"]
mod invariants;
// Shared with the benches and examples, which use all of it.
#[allow(dead_code)]
#[path = "../support/testgen.rs"]
mod testgen;

mod archives;
mod big_mail;
mod cli;
mod corpus;
mod differential;
mod doc_invariants;
mod doc_markup;
mod docs;
mod docs_pod_rst_man;
mod docs_strings;
mod documents;
mod fix;
mod formats;
mod fuzz_found;
mod hostile;
mod local_links;
mod lsp;
mod mail;
mod markers_stream;
mod nothing_lost;
mod online;
mod ordering;
mod package;
mod parts;
mod profiles;
mod records;
mod regression;
mod report;
mod roundtrip;
mod sarif_schema;
mod stress_driver;
mod unique;
mod validator;
mod warc;
