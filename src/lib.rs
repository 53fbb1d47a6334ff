//! urlsift finds, repairs and lints URLs in large bodies of text.

pub mod diag;
pub mod rules;
