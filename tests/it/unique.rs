//! `extract --unique` (issue 17): each URL once, at its first place in
//! input order, whatever the thread count; with `--count`, how many times
//! it occurs and in how many files and documents (a file, a message).

use std::path::Path;
use std::process::{Command, Output};

fn urlsift(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_urlsift")).args(args).current_dir(dir).output().unwrap()
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    // Many files, so that two threads finish them out of order.
    for i in 0..60 {
        let mut text = format!("file {i} http://only-{i}.example/\n");
        for _ in 0..(i % 7) * 50 {
            text.push_str("footer http://list.example/listinfo and http://schema.example/\n");
        }
        std::fs::write(p.join(format!("f{i:02}.txt")), text).unwrap();
    }
    let mbox = "From a@b Mon Jan  1 00:00:00 2001\nFrom: a@b\nMessage-ID: <1@b>\n\n\
                see http://list.example/listinfo twice http://list.example/listinfo\n\n\
                From a@b Mon Jan  1 00:00:00 2001\nFrom: a@b\nMessage-ID: <2@b>\n\n\
                again http://list.example/listinfo\n";
    std::fs::write(p.join("z.mbox"), mbox).unwrap();
    dir
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn each_url_once_at_its_first_place_at_any_thread_count() {
    let dir = tree();
    let all = stdout(&urlsift(&["extract", "-j1", "."], dir.path()));
    let mut want: Vec<&str> = Vec::new();
    for l in all.lines() {
        if !want.contains(&l) {
            want.push(l);
        }
    }
    assert_eq!(want.len(), 62);
    for j in ["1", "2", "4"] {
        let got = stdout(&urlsift(&["extract", "--unique", "-j", j, "."], dir.path()));
        assert_eq!(got.lines().collect::<Vec<_>>(), want, "-j{j}");
    }
    // JSON gives the first place: f01.txt holds the first footer.
    let json = stdout(&urlsift(&["extract", "--unique", "--json", "-j2", "."], dir.path()));
    let first: serde_json::Value = json
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["url"] == "http://list.example/listinfo")
        .unwrap();
    assert_eq!((first["path"].as_str(), first["line"].as_u64()), (Some("./f01.txt"), Some(2)));
}

#[test]
fn counts_times_files_and_documents() {
    let dir = tree();
    let one =
        stdout(&urlsift(&["extract", "--unique", "--count", "--json", "-j1", "."], dir.path()));
    let two =
        stdout(&urlsift(&["extract", "--unique", "--count", "--json", "-j2", "."], dir.path()));
    assert_eq!(one, two);
    let rows: Vec<serde_json::Value> =
        one.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let row = |u: &str| rows.iter().find(|r| r["url"] == u).unwrap().clone();
    // 50 lines in each file i with i % 7 == k, for k in 1..7.
    let footer_files: u64 = (0..60u64).filter(|i| i % 7 != 0).count() as u64;
    let footer_lines: u64 = (0..60u64).map(|i| (i % 7) * 50).sum();
    let list = row("http://list.example/listinfo");
    assert_eq!(list["count"].as_u64(), Some(footer_lines + 3));
    assert_eq!(list["files"].as_u64(), Some(footer_files + 1));
    // Each file is a document; the mbox adds its two messages.
    assert_eq!(list["documents"].as_u64(), Some(footer_files + 2));
    let schema = row("http://schema.example/");
    assert_eq!(
        (schema["count"].as_u64(), schema["files"].as_u64()),
        (Some(footer_lines), Some(footer_files))
    );
    let only = row("http://only-3.example/");
    assert_eq!(
        (only["count"].as_u64(), only["files"].as_u64(), only["documents"].as_u64()),
        (Some(1), Some(1), Some(1))
    );
    // Text: count, files, documents, URL.
    let text = stdout(&urlsift(&["extract", "--unique", "-c", "."], dir.path()));
    let line = format!(
        "{}\t{}\t{}\thttp://list.example/listinfo",
        footer_lines + 3,
        footer_files + 1,
        footer_files + 2
    );
    assert!(text.lines().any(|l| l == line), "{text}");
    // Other outputs are refused.
    let o = urlsift(&["extract", "--unique", "--format", "sarif", "."], dir.path());
    assert_eq!(o.status.code(), Some(2));
}
