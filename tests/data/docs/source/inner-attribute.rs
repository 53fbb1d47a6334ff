#![allow(dead_code)]
fn make_ref<'i, 'o>(x: &'i str) { g("http://a.example/\"x") }
