//! A small LSP client for the tests and the latency bench: runs
//! `urlsift lsp` as a child process and talks to it over its standard
//! input and output with `Content-Length` framing. Every wait has a
//! timeout, so a server that stops answering fails the test instead of
//! hanging it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any one answer may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(20);

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    /// Messages read but not yet asked for.
    pending: Vec<Value>,
    next_id: i64,
}

impl Client {
    /// Starts `bin lsp`.
    pub fn start(bin: &str) -> Client {
        let mut child = Command::new(bin)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start urlsift lsp");
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(body) = read_frame(&mut r) {
                let v: Value = serde_json::from_slice(&body).expect("the server sends JSON");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Client { child, stdin, rx, pending: Vec::new(), next_id: 1 }
    }

    /// Writes raw bytes to the server.
    pub fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Writes one framed message.
    pub fn send(&mut self, v: &Value) {
        let body = v.to_string();
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend_from_slice(body.as_bytes());
        self.raw(&framed);
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its id.
    pub fn request_id(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Sends a request and waits for its whole response (`result` or
    /// `error` in it).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.request_id(method, params);
        self.wait(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// The first message (read before or after this call) that `pred`
    /// accepts; panics after [`TIMEOUT`].
    pub fn wait(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        self.wait_for(pred, TIMEOUT).unwrap_or_else(|| panic!("no answer in {TIMEOUT:?}"))
    }

    /// [`Client::wait`] with its own timeout; `None` when it passes.
    pub fn wait_for(&mut self, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Option<Value> {
        if let Some(i) = self.pending.iter().position(&pred) {
            return Some(self.pending.remove(i));
        }
        let until = Instant::now() + timeout;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(m) if pred(&m) => return Some(m),
                Ok(m) => self.pending.push(m),
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
            }
        }
    }

    /// The diagnostics published for `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let m = self.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// `initialize` (with `capabilities`) and `initialized`; the result.
    pub fn initialize(&mut self, root: &str, capabilities: Value) -> Value {
        let r = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root,
                "capabilities": capabilities,
                "workspaceFolders": [{"uri": root, "name": "root"}],
            }),
        );
        self.notify("initialized", json!({}));
        r["result"].clone()
    }

    pub fn open(&mut self, uri: &str, language: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}}),
        );
    }

    /// `shutdown`, then `exit`; the process's exit status.
    pub fn shutdown(mut self) -> ExitStatus {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        self.wait_exit()
    }

    /// Waits (at most [`TIMEOUT`]) for the process to end.
    pub fn wait_exit(&mut self) -> ExitStatus {
        drop(self.stdin.take());
        let until = Instant::now() + TIMEOUT;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < until, "the server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_frame(r: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len.expect("Content-Length")];
    r.read_exact(&mut body).ok()?;
    Some(body)
}

/// The byte offset of an LSP position (UTF-16 columns) in `text`.
pub fn offset_utf16(text: &str, line: u64, character: u64) -> usize {
    let mut start = 0;
    for _ in 0..line {
        start += text[start..].find('\n').expect("line exists") + 1;
    }
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16() as u64;
    }
    text.len()
}

/// `text` with LSP text edits (UTF-16 columns, LF lines) applied, as an
/// editor applies a workspace edit: all ranges are of the text before.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let pos = |p: &Value| {
                offset_utf16(text, p["line"].as_u64().unwrap(), p["character"].as_u64().unwrap())
            };
            (
                pos(&e["range"]["start"]),
                pos(&e["range"]["end"]),
                e["newText"].as_str().unwrap().into(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, new) in spans {
        out.replace_range(s..e, &new);
    }
    out
}

/// A `file:` URI for a path (the test paths are plain ASCII).
pub fn file_uri(p: &std::path::Path) -> String {
    format!("file://{}", p.display())
}
