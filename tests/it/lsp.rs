//! `urlsift lsp` (issue 18), driven as an editor drives it: the real
//! binary over its standard input and output, with a client of our own
//! (tests/support/lsp_client.rs) that frames JSON-RPC and times out
//! instead of hanging.

#[path = "../support/lsp_client.rs"]
mod lsp_client;

use std::time::Duration;

use lsp_client::{Client, apply_edits, file_uri};
use serde_json::{Value, json};

fn start() -> Client {
    Client::start(env!("CARGO_BIN_EXE_urlsift"))
}

fn pos(line: u64, character: u64) -> Value {
    json!({"line": line, "character": character})
}

fn range_of(d: &Value) -> (u64, u64, u64, u64) {
    let r = &d["range"];
    let n = |v: &Value| v.as_u64().unwrap();
    (
        n(&r["start"]["line"]),
        n(&r["start"]["character"]),
        n(&r["end"]["line"]),
        n(&r["end"]["character"]),
    )
}

fn codes(diags: &[Value]) -> Vec<String> {
    diags.iter().map(|d| d["code"].as_str().unwrap().to_string()).collect()
}

#[test]
fn initialize_open_change_fix_relint_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let root = file_uri(dir.path());
    let uri = file_uri(&dir.path().join("notes.txt"));
    let mut c = start();
    let caps = c.initialize(&root, json!({}));
    // No encoding offered: UTF-16, the protocol's default.
    assert_eq!(caps["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(caps["capabilities"]["textDocumentSync"], 2, "incremental sync");
    assert_eq!(caps["serverInfo"]["name"], "urlsift");

    // `é` is one UTF-16 unit, `𝄞` two: the `|` at byte 25 is column 22.
    let mut text = "é𝄞 http://h.example/a|b and http://ok.example/\n".to_string();
    c.open(&uri, "plaintext", 1, &text);
    let d = c.diagnostics(&uri, 1);
    assert_eq!(codes(&d), ["unsafe-character"]);
    assert_eq!(range_of(&d[0]), (0, 22, 0, 23));
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(d[0]["source"], "urlsift");
    assert!(d[0]["codeDescription"]["href"].as_str().unwrap().contains("unsafe-character"));

    // An incremental change: a line and another pair before the URL.
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": pos(0, 4), "end": pos(0, 4)}, "text": "x\n😀 "}],
        }),
    );
    text.insert_str(text.find("http").unwrap(), "x\n😀 ");
    let d = c.diagnostics(&uri, 2);
    // Line 1 now: `😀 ` (3 units) then `http://h.example/a` (18).
    assert_eq!(range_of(&d[0]), (1, 21, 1, 22));

    // The quick fix for it, applied by the client, then linted again.
    let r = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": d[0]["range"],
            "context": {"diagnostics": [d[0]]},
        }),
    );
    let actions = r["result"].as_array().unwrap();
    let quick = actions.iter().find(|a| a["kind"] == "quickfix").expect("a quick fix");
    assert_eq!(quick["isPreferred"], true, "the fix is safe");
    assert_eq!(quick["diagnostics"][0]["code"], "unsafe-character");
    assert!(actions.iter().any(|a| a["kind"] == "source.fixAll.urlsift"));
    let edits = quick["edit"]["changes"][&uri].as_array().unwrap();
    let fixed = apply_edits(&text, edits);
    assert_eq!(fixed, "é𝄞 x\n😀 http://h.example/a%7Cb and http://ok.example/\n");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": fixed}]}),
    );
    assert_eq!(c.diagnostics(&uri, 3), Vec::<Value>::new());

    // Closing clears the document's diagnostics.
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    let m = c.wait(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"].is_null()
    });
    assert_eq!(m["params"]["diagnostics"], json!([]));
    assert!(c.shutdown().success(), "exit after shutdown is exit code 0");
}

#[test]
fn links_hover_and_fix_on_a_wrapper_broken_across_lines() {
    let dir = tempfile::tempdir().unwrap();
    let root = file_uri(dir.path());
    let uri = file_uri(&dir.path().join("rfc.txt"));
    let mut c = start();
    c.initialize(&root, json!({}));
    let text = "Note <URL:http://ds.internic.\n  net/instructions/over|view.html#WARNING>.\nAnd http://a.example/ too.\n";
    c.open(&uri, "plaintext", 1, text);
    let d = c.diagnostics(&uri, 1);
    assert_eq!(codes(&d), ["unsafe-character"]);
    assert_eq!(range_of(&d[0]), (1, 23, 1, 24));

    let r = c.request("textDocument/documentLink", json!({"textDocument": {"uri": uri}}));
    let links = r["result"].as_array().unwrap();
    assert_eq!(links.len(), 2, "{r}");
    // One link over both lines, opening the rejoined URL (its `|` encoded
    // by the safe fix, so that it is a URI a client can open).
    assert_eq!(range_of(&links[0]), (0, 10, 1, 41));
    assert_eq!(links[0]["target"], "http://ds.internic.net/instructions/over%7Cview.html#WARNING");
    assert_eq!(range_of(&links[1]), (2, 4, 2, 21));
    assert_eq!(links[1]["target"], "http://a.example/");

    // Hover on the second line of the wrapper.
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(1, 5)}),
    );
    let md = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(md.contains("`http://ds.internic.net/instructions/over|view.html#WARNING`"), "{md}");
    assert!(md.contains("scheme `http`"), "{md}");
    assert!(md.contains("rejoined from 2 lines"), "{md}");
    assert!(md.contains("**invalid**"), "{md}");
    assert!(md.contains("unsafe-character"), "{md}");
    assert!(md.contains("safe fix"), "{md}");
    assert_eq!(range_of(&r["result"]), (0, 10, 1, 41));
    // Off any URL: nothing.
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(0, 1)}),
    );
    assert_eq!(r["result"], Value::Null);

    // Fixing the wrapped URL edits its second line only: the break and
    // indentation stay.
    let r = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": pos(0, 0), "end": pos(3, 0)},
            "context": {"diagnostics": [], "only": ["source.fixAll"]},
        }),
    );
    let actions = r["result"].as_array().unwrap();
    assert_eq!(actions.len(), 1, "only the fix-all kind was asked for: {r}");
    let edits = actions[0]["edit"]["changes"][&uri].as_array().unwrap();
    let fixed = apply_edits(text, edits);
    assert_eq!(
        fixed,
        "Note <URL:http://ds.internic.\n  net/instructions/over%7Cview.html#WARNING>.\nAnd http://a.example/ too.\n"
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    assert_eq!(c.diagnostics(&uri, 2), Vec::<Value>::new());
    assert!(c.shutdown().success());
}

#[test]
fn malformed_messages_get_errors_and_the_server_stays_up() {
    let mut c = start();
    // Before initialize, a request is refused.
    let r = c.request("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    c.initialize("file:///nonexistent", json!({}));

    // Not JSON: a parse error, id null.
    c.raw(b"Content-Length: 9\r\n\r\n{\"id\": 1,");
    let r = c.wait(|m| m.get("error").is_some());
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert_eq!(r["id"], Value::Null);

    // JSON, but no method: an invalid request, answered with its id.
    c.send(&json!({"jsonrpc": "2.0", "id": 41}));
    let r = c.wait(|m| m.get("error").is_some());
    assert_eq!((r["error"]["code"].clone(), r["id"].clone()), (json!(-32600), json!(41)), "{r}");

    // A header without a length.
    c.raw(b"Content-Type: x\r\n\r\n");
    let r = c.wait(|m| m.get("error").is_some());
    assert_eq!(r["error"]["code"], -32700, "{r}");

    // Parameters of the wrong shape, and a method nobody knows.
    let r = c.request("textDocument/hover", json!({"position": "here"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.request("urlsift/nothing", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // A notification with broken parameters is dropped.
    c.notify("textDocument/didOpen", json!({"textDocument": 3}));

    // Still serving.
    let uri = "untitled:Untitled-1";
    c.open(uri, "markdown", 7, "[x](http://h.example:99999/)\n");
    let d = c.diagnostics(uri, 7);
    assert_eq!(codes(&d), ["port-range"]);
    assert!(c.shutdown().success());
}

#[test]
fn exit_without_shutdown_is_exit_code_1() {
    let mut c = start();
    c.initialize("file:///nonexistent", json!({}));
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit().code(), Some(1));
}

#[test]
fn utf8_columns_when_the_client_offers_them() {
    let mut c = start();
    let caps = c.initialize(
        "file:///nonexistent",
        json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}),
    );
    assert_eq!(caps["capabilities"]["positionEncoding"], "utf-8");
    let uri = "file:///nonexistent/a.txt";
    c.open(uri, "plaintext", 1, "é𝄞 http://h.example/a|b\n");
    assert_eq!(range_of(&c.diagnostics(uri, 1)[0]), (0, 25, 0, 26));
    // An incremental change in bytes: `é` (2 bytes) replaced.
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": pos(0, 0), "end": pos(0, 2)}, "text": "e"}],
        }),
    );
    assert_eq!(range_of(&c.diagnostics(uri, 2)[0]), (0, 24, 0, 25));
    assert!(c.shutdown().success());
}

#[test]
fn the_workspace_config_and_the_document_reader_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("urlsift.toml"),
        "exclude = [\"vendor/**\"]\n[severity]\nunsafe-character = \"off\"\ndefault-port = \"warning\"\n",
    )
    .unwrap();
    let root = file_uri(dir.path());
    let mut c = start();
    c.initialize(&root, json!({}));
    // Markdown: the link destination is read whole (the `|`), the code
    // span is an example and not linted; the config turns
    // `unsafe-character` off and `default-port` on.
    let md = file_uri(&dir.path().join("docs/page.md"));
    let text = "See [here](http://h.example:80/a|b) and `http://h.example:99999/`.\n";
    c.open(&md, "markdown", 1, text);
    let d = c.diagnostics(&md, 1);
    assert_eq!(codes(&d), ["default-port"]);
    assert_eq!(d[0]["severity"], 2);
    // The same text as plain text: the code span's URL counts.
    let txt = file_uri(&dir.path().join("page.txt"));
    c.open(&txt, "plaintext", 1, text);
    let mut got = codes(&c.diagnostics(&txt, 1));
    got.sort();
    assert_eq!(got, ["default-port", "port-range"]);
    // Excluded by the config: nothing.
    let vendored = file_uri(&dir.path().join("vendor/x/page.txt"));
    c.open(&vendored, "plaintext", 1, text);
    assert_eq!(c.diagnostics(&vendored, 1), Vec::<Value>::new());
    // A broken config: the defaults, and the client is told.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("urlsift.toml"), "grammar = 5\n").unwrap();
    let bad = file_uri(&other.path().join("a.txt"));
    c.open(&bad, "plaintext", 1, "http://h.example/a|b\n");
    let m = c.wait(|m| m["method"] == "window/showMessage");
    assert!(m["params"]["message"].as_str().unwrap().contains("urlsift.toml"), "{m}");
    assert_eq!(codes(&c.diagnostics(&bad, 1)), ["unsafe-character"]);
    assert!(c.shutdown().success());
}

#[test]
fn relative_links_are_checked_on_disk_and_in_the_buffer() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guide.md"), "# Install it\n\ntext\n").unwrap();
    let root = file_uri(dir.path());
    let mut c = start();
    c.initialize(&root, json!({}));
    let md = file_uri(&dir.path().join("index.md"));
    // The buffer's own heading counts (it is not on disk at all).
    let text = "# Fresh heading\n\n[a](guide.md#install-it) [b](gone.md) [c](guide.md#old)\n\
                [d](#fresh-heading) [e](#stale)\n";
    c.open(&md, "markdown", 1, text);
    let d = c.diagnostics(&md, 1);
    assert_eq!(codes(&d), ["local-link-missing", "fragment-missing", "fragment-missing"], "{d:?}");
    assert_eq!(range_of(&d[0]), (2, 29, 2, 36));
    // The target is saved with the heading: the next scan sees it.
    std::fs::write(dir.path().join("guide.md"), "# Install it\n\n## Old\n").unwrap();
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": md, "version": 2},
            "contentChanges": [{"range": {"start": pos(3, 0), "end": pos(3, 0)}, "text": " "}],
        }),
    );
    let d = c.diagnostics(&md, 2);
    assert_eq!(codes(&d), ["local-link-missing", "fragment-missing"], "{d:?}");
    // `local-links = false` turns it off, as for `lint`.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("urlsift.toml"), "local-links = false\n").unwrap();
    let off = file_uri(&other.path().join("a.md"));
    c.open(&off, "markdown", 1, "[b](gone.md)\n");
    assert_eq!(c.diagnostics(&off, 1), Vec::<Value>::new());
    assert!(c.shutdown().success());
}

#[test]
fn a_large_document_is_scanned_aside_and_stale_results_are_dropped() {
    let mut c = start();
    c.initialize("file:///nonexistent", json!({}));
    // About 2 MB, over the inline limit: scanned on the worker.
    let line = "some prose around http://h.example/path/to/page.html and more words\n";
    let mut text = line.repeat(2 << 20 >> 6);
    text.push_str("last http://h.example/a|b\n");
    let lines = text.lines().count() as u64;
    let uri = "file:///nonexistent/big.txt";
    c.open(uri, "plaintext", 1, &text);
    // Changes sent back to back: what is published last is the last
    // version's, and no version is published after a later one.
    for v in 2..=6 {
        c.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": v},
                "contentChanges": [{"range": {"start": pos(0, 0), "end": pos(0, 0)}, "text": "x"}],
            }),
        );
    }
    // A small document opened meanwhile is answered at once.
    c.open("file:///nonexistent/small.txt", "plaintext", 1, "http://h.example:99999/\n");
    assert_eq!(c.diagnostics("file:///nonexistent/small.txt", 1).len(), 1);
    let d = c.diagnostics(uri, 6);
    assert_eq!(codes(&d), ["unsafe-character"]);
    assert_eq!(range_of(&d[0]).0, lines - 1);
    let mut seen = Vec::new();
    while let Some(m) = c.wait_for(
        |m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri,
        Duration::from_millis(0),
    ) {
        seen.push(m["params"]["version"].as_i64().unwrap());
    }
    assert!(seen.iter().all(|&v| v < 6), "nothing after version 6 was published first: {seen:?}");
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted, "published in version order");
    assert!(c.shutdown().success());
}
