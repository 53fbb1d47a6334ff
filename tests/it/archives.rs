//! Compressed inputs (issue 17): every format gives the URLs, positions
//! and findings of the plain file, with `"compressed"` in the JSON; a
//! broken stream keeps what came before it, reports one error and exits 2,
//! and the other files are still read. The fixtures are made here from
//! the bundled corpus.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

fn urlsift(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_urlsift")).args(args).current_dir(dir).output().unwrap()
}

fn compress(format: &str, data: &[u8]) -> Vec<u8> {
    match format {
        "gz" => {
            // Two members, as WARC files and `cat a.gz b.gz` have them.
            let half = data.len() / 2;
            let mut out = Vec::new();
            for part in [&data[..half], &data[half..]] {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(part).unwrap();
                out.extend(e.finish().unwrap());
            }
            out
        }
        "bz2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "xz" => {
            let mut e =
                lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1))
                    .unwrap();
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "zst" => zstd::stream::encode_all(data, 1).unwrap(),
        _ => unreachable!(),
    }
}

const FORMATS: [(&str, &str); 4] =
    [("gz", "gzip"), ("bz2", "bzip2"), ("xz", "xz"), ("zst", "zstd")];

/// The corpus files, each as `(relative path, bytes)`.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut out = Vec::new();
    for sub in ["rfc", "mail", "news", "docs", "misc"] {
        let mut stack = vec![root.join(sub)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
                    out.push((rel, std::fs::read(&p).unwrap()));
                }
            }
        }
    }
    out.sort();
    out
}

/// `extract --json` rows without the path's compression suffix and the
/// `compressed` field, checking that field on the way.
fn rows(o: &Output, want: Option<&str>) -> Vec<serde_json::Value> {
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let m = v.as_object_mut().unwrap();
            assert_eq!(m.remove("compressed").as_ref().and_then(|c| c.as_str()), want, "{l}");
            let path = m["path"].as_str().unwrap().to_owned();
            let path = FORMATS.iter().fold(path, |p, (ext, _)| {
                p.strip_suffix(&format!(".{ext}")).map_or(p.clone(), str::to_owned)
            });
            m.insert("path".into(), path.into());
            v
        })
        .collect()
}

#[test]
fn every_format_gives_the_plain_files_urls_positions_and_findings() {
    let files = corpus();
    assert!(files.iter().any(|(p, _)| p.ends_with(".mbox")), "mail is among them");
    for cmd in ["extract", "lint"] {
        let plain = tempfile::tempdir().unwrap();
        for (rel, data) in &files {
            let p = plain.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, data).unwrap();
        }
        let want = rows(&urlsift(&[cmd, "--json", "--no-config", "-j1", "."], plain.path()), None);
        assert!(want.len() >= (if cmd == "extract" { 50 } else { 3 }), "{cmd}: {}", want.len());
        for (ext, name) in FORMATS {
            let dir = tempfile::tempdir().unwrap();
            for (rel, data) in &files {
                let p = dir.path().join(format!("{rel}.{ext}"));
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, compress(ext, data)).unwrap();
            }
            let o = urlsift(&[cmd, "--json", "--no-config", "-j2", "."], dir.path());
            assert!(o.stderr.is_empty(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(rows(&o, Some(name)), want, "{cmd} of the {name} copies");
            // Read as the bytes they are, they hold no URL.
            let raw = urlsift(&[cmd, "--json", "--no-config", "--no-decompress", "."], dir.path());
            assert!(raw.stdout.len() < o.stdout.len() / 4, "{name} --no-decompress");
        }
    }
}

#[test]
fn a_broken_stream_keeps_what_came_before_reports_once_and_exits_2() {
    let text: Vec<u8> =
        (0..20_000).flat_map(|i| format!("line {i} http://h{i}.example/\n").into_bytes()).collect();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gz = compress("gz", &text);
    std::fs::write(d.join("truncated.txt.gz"), &gz[..gz.len() * 3 / 4]).unwrap();
    let mut garbage = gz.clone();
    garbage.extend_from_slice(b"this is not a gzip member at all");
    std::fs::write(d.join("garbage.txt.gz"), &garbage).unwrap();
    let mut zst = compress("zst", &text);
    let at = zst.len() * 2 / 3;
    zst.truncate(at);
    std::fs::write(d.join("truncated.txt.zst"), &zst).unwrap();
    // A flipped byte three quarters in: the blocks before it (100 kB each
    // at level 1) are whole.
    let mut bz = compress("bz2", &text);
    let at = bz.len() * 3 / 4;
    bz[at] ^= 0x55;
    std::fs::write(d.join("flipped.txt.bz2"), &bz).unwrap();
    // A zstd frame header that claims a window of 2^41 bytes.
    std::fs::write(d.join("huge.txt.zst"), b"\x28\xb5\x2f\xfd\x00\xf8garbage").unwrap();
    std::fs::write(d.join("fine.txt"), b"http://fine.example/\n").unwrap();
    let o = urlsift(&["extract", "--json", "--no-config", "-j2", "."], d);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    for (name, what) in [
        ("truncated.txt.gz", "gzip stream truncated at byte "),
        ("garbage.txt.gz", "gzip stream "),
        ("truncated.txt.zst", "zstd stream "),
        ("flipped.txt.bz2", "bzip2 stream "),
        ("huge.txt.zst", "zstd stream "),
    ] {
        let lines: Vec<&str> = err.lines().filter(|l| l.contains(name)).collect();
        assert_eq!(lines.len(), 1, "{name}: {err}");
        assert!(lines[0].contains(what), "{name}: {err}");
    }
    let out = String::from_utf8(o.stdout).unwrap();
    let count =
        |f: &str| out.lines().filter(|l| l.contains(&format!("\"path\":\"./{f}\""))).count();
    assert_eq!(count("fine.txt"), 1);
    assert_eq!(count("garbage.txt.gz"), 20_000, "every URL before the garbage");
    for f in ["truncated.txt.gz", "truncated.txt.zst", "flipped.txt.bz2"] {
        let n = count(f);
        assert!(n > 1000 && n < 20_000, "{f}: {n} URLs before the break");
    }
}
