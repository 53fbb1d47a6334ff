//! Compiles the URL grammars into dense DFAs once, when the crate is built,
//! instead of on first use in every run: determinizing them took about a
//! millisecond per scheme, paid while other threads waited (see
//! `src/rules/dfa.rs`).
//!
//! The grammar module is shared with the crate, not copied: the same
//! tables and the same compile function make the DFAs here and in the
//! tests that hold the two to each other.

use std::fmt::Write as _;
use std::path::PathBuf;

/// The crate's grammar tables and DFA compiler.
#[path = "src/rules/grammar.rs"]
#[allow(dead_code)]
mod grammar;

/// Stands in for the crate's `diag` module, which `grammar` reads the
/// grammar names from.
mod diag {
    /// The crate's `diag::Grammar`, as far as `grammar` needs it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Grammar {
        Rfc1738,
        Rfc3986,
        Modern,
    }
}

use diag::Grammar;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/rules/grammar.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // The DFAs are read in place: their words must be in the byte order
    // of the target, which need not be the build machine's.
    let big_endian = std::env::var("CARGO_CFG_TARGET_ENDIAN").is_ok_and(|e| e == "big");
    let mut code = String::from("// Written by build.rs.\n");
    // A pattern that both grammars share (the IP literal) is stored once.
    let mut stored: Vec<String> = Vec::new();
    for (name, g) in
        [("RFC1738", Grammar::Rfc1738), ("RFC3986", Grammar::Rfc3986), ("MODERN", Grammar::Modern)]
    {
        let patterns = grammar::compiled_patterns(g);
        let mut items = Vec::new();
        for pattern in patterns.iter() {
            let id = match stored.iter().position(|p| p == pattern) {
                Some(id) => id,
                None => {
                    let dfa = grammar::compile(pattern);
                    let (bytes, pad) = if big_endian {
                        dfa.to_bytes_big_endian()
                    } else {
                        dfa.to_bytes_little_endian()
                    };
                    let file = out.join(format!("grammar-{}.dfa", stored.len()));
                    std::fs::write(&file, &bytes[pad..]).expect("write to OUT_DIR");
                    writeln!(
                        code,
                        "static DFA{}: &AlignAs<[u8], u32> = &AlignAs {{ _align: [], \
                         bytes: *include_bytes!(concat!(env!(\"OUT_DIR\"), \"/grammar-{}.dfa\")) }};",
                        stored.len(),
                        stored.len()
                    )
                    .expect("write to a String");
                    stored.push(pattern.clone());
                    stored.len() - 1
                }
            };
            items.push(format!("DFA{id}"));
        }
        writeln!(
            code,
            "static {name}: [&AlignAs<[u8], u32>; {}] = [{}];",
            items.len(),
            items.join(", ")
        )
        .expect("write to a String");
    }
    std::fs::write(out.join("dfas.rs"), code).expect("write to OUT_DIR");
}
