//! urlsift finds, repairs and lints URLs in large bodies of text.

#![deny(missing_docs)]

pub mod diag;
pub mod rules;
