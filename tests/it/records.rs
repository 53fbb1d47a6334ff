//! `--input records` (issue 19): JSON Lines of documents in, URLs out with
//! each record's `id` carried through as given, positions inside the
//! record's text; a line that is not a record gets an error object and
//! the stream goes on; a 100 MB record is read like any other.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn urlsift(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    // Written from a thread: the output may fill its pipe first.
    let writer = std::thread::spawn(move || input.write_all(&data));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    o
}

fn rows(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn ids_come_back_as_given_with_positions_in_the_record() {
    let ids = [
        serde_json::json!("doc-1"),
        serde_json::json!(42),
        serde_json::json!({"path": "a/b.txt", "shard": [3, "x"]}),
        serde_json::json!("caf\u{e9} \"quoted\" \\ \n"),
    ];
    let mut input = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let text = format!("line one\n  see http://h{i}.example/p?q={i} now");
        let rec = if i % 2 == 0 {
            serde_json::json!({"id": id, "text": text})
        } else {
            let b64 = b64(text.as_bytes());
            serde_json::json!({"id": id, "base64": b64})
        };
        input.extend(serde_json::to_vec(&rec).unwrap());
        input.push(b'\n');
    }
    let o = urlsift(&["extract", "--json", "--input", "records", "-"], &input);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = rows(&o);
    assert_eq!(rows.len(), ids.len());
    for (i, (row, id)) in rows.iter().zip(&ids).enumerate() {
        assert_eq!(&row["id"], id);
        assert_eq!(row["url"], format!("http://h{i}.example/p?q={i}"));
        assert_eq!(
            (row["line"].as_u64(), row["column"].as_u64(), row["offset"].as_u64()),
            (Some(2), Some(7), Some(15))
        );
    }
}

#[test]
fn a_line_that_is_not_a_record_gets_an_error_object_and_the_stream_goes_on() {
    let input = b"{\"id\":1,\"text\":\"http://one.example/\"}\n\
                  not json at all\n\
                  \n\
                  {\"id\":2}\n\
                  {\"id\":3,\"base64\":\"%%%\"}\n\
                  {\"id\":4,\"text\":\"ftp://four.example/\"}\n";
    let o = urlsift(&["extract", "--json", "--input", "records", "-"], input);
    assert_eq!(o.status.code(), Some(2));
    let rows = rows(&o);
    let urls: Vec<_> = rows.iter().filter_map(|r| r["url"].as_str()).collect();
    assert_eq!(urls, ["http://one.example/", "ftp://four.example/"]);
    let errors: Vec<_> = rows.iter().filter(|r| r.get("error").is_some()).collect();
    assert_eq!(errors.len(), 3);
    assert_eq!(
        (errors[0]["record_line"].as_u64(), &errors[0]["id"]),
        (Some(2), &serde_json::Value::Null)
    );
    assert_eq!(
        (errors[1]["record_line"].as_u64(), &errors[1]["id"]),
        (Some(4), &serde_json::json!(2))
    );
    assert_eq!(
        (errors[2]["record_line"].as_u64(), &errors[2]["id"]),
        (Some(5), &serde_json::json!(3))
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().filter(|l| l.contains("record line")).count(), 3, "{err}");
    // Text output: the record is named after each finding.
    let o = urlsift(
        &["lint", "--input", "records", "-"],
        b"{\"id\":\"r9\",\"text\":\"http://x.example/%zz\"}\n",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("-:1:18: error[bad-escape]") && out.contains(" (record \"r9\")\n"),
        "{out}"
    );
}

#[test]
fn a_100_mb_record_is_read_whole() {
    let filler = "a line of text with no link in it at all, just words.\n";
    let mut text = String::from("first http://start.example/\n");
    while text.len() < 100 << 20 {
        text.push_str(filler);
    }
    let lines = text.matches('\n').count() as u64;
    text.push_str("end http://end.example/");
    let mut input = serde_json::to_vec(&serde_json::json!({"id": "big", "text": text})).unwrap();
    input.extend(b"\n{\"id\":\"small\",\"text\":\"http://after.example/\"}\n");
    let o = urlsift(&["extract", "--json", "--input", "records", "-"], &input);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = rows(&o);
    let got: Vec<_> = rows
        .iter()
        .map(|r| {
            (r["url"].as_str().unwrap(), r["id"].as_str().unwrap(), r["line"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("http://start.example/", "big", 1),
            ("http://end.example/", "big", lines + 1),
            ("http://after.example/", "small", 1)
        ]
    );
}

fn b64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = c.iter().enumerate().fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..=c.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
        for _ in c.len()..3 {
            out.push('=');
        }
    }
    out
}
