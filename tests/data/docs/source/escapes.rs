//! Crate docs: <https://docs.rs/escapes>
#[doc = "attr https://attr.example/a"]
fn f<'a>(x: &'a str) -> &'a str { "https://rust.example/\u{41}" }
const R: &str = r#"raw "quoted" https://raw.example/r\/x"#;
const M: &str = "multi
https://multi.example/m";
fn g() { let c = '"'; let u = "https://after.char.example/"; }
// code: http://x below is not in a string
fn h() { let v = vec![1]; v.get(http://code.example/c); }
