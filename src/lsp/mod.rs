//! `urlsift lsp`: a Language Server Protocol server on standard input and
//! output.
//!
//! Open documents are linted as `urlsift lint` lints their files (the
//! reader chosen by the file name, the nearest `urlsift.toml` honoured)
//! on open and on every change, full or incremental; the server offers a
//! quick fix for every fix and "fix all safe" (`source.fixAll.urlsift`),
//! a link for every URL (a URL broken across lines opens rejoined) and a
//! hover that explains a URL's findings.
//!
//! One thread reads messages, one answers them; a document larger than
//! [`INLINE_MAX`] is scanned on a worker thread, so that the requests
//! behind its change (a hover, a link) are answered meanwhile. A result
//! for a version the document has since left is dropped.

mod lint;
mod text;
mod transport;

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, DidChangeTextDocumentParams, DidChangeWorkspaceFoldersParams,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, DocumentLinkOptions, DocumentLinkParams,
    HoverParams, HoverProviderCapability, InitializeParams, InitializeResult, MessageType,
    PositionEncodingKind, PublishDiagnosticsParams, ServerCapabilities, ServerInfo,
    ShowMessageParams, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
    WorkspaceFoldersServerCapabilities, WorkspaceServerCapabilities,
};
use serde_json::Value;

use lint::{Profiles, Scan};
pub use text::{Encoding, Text};
use transport::Incoming;

/// Documents up to this many bytes are scanned as their change arrives,
/// before the next message is read (a few milliseconds at most); larger
/// ones on the worker thread.
pub const INLINE_MAX: usize = 256 << 10;

/// Serves on standard input and output until `exit`; the process's exit
/// code: 0 after `shutdown`, 1 when `exit` (or the end of the input) came
/// without one, as the protocol asks.
pub fn run() -> io::Result<u8> {
    let stdin = io::stdin();
    serve(stdin, io::stdout().lock())
}

/// [`run`] over any pair of streams.
pub fn serve(input: impl io::Read + Send + 'static, output: impl Write) -> io::Result<u8> {
    let (tx, rx) = channel();
    let reader_tx = tx.clone();
    std::thread::Builder::new().name("lsp-reader".into()).spawn(move || {
        let mut input = io::BufReader::with_capacity(64 << 10, input);
        loop {
            let next = match transport::read(&mut input) {
                Ok(Some(m)) => Event::In(m),
                Ok(None) | Err(_) => Event::Closed,
            };
            let closed = matches!(next, Event::Closed);
            if reader_tx.send(next).is_err() || closed {
                return;
            }
        }
    })?;
    let worker = Arc::new(Worker::default());
    {
        let (worker, tx) = (worker.clone(), tx.clone());
        std::thread::Builder::new().name("lsp-scan".into()).spawn(move || worker.run(&tx))?;
    }
    let mut server = Server {
        out: output,
        enc: Encoding::Utf16,
        state: State::Uninitialized,
        docs: HashMap::new(),
        profiles: Profiles::default(),
        folders: Vec::new(),
        worker: worker.clone(),
    };
    let code = server.main_loop(&rx);
    worker.stop();
    code
}

/// What the main loop hears: from the client, or from the worker.
enum Event {
    In(Incoming),
    Scanned(Uri, Scan),
    Closed,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Uninitialized,
    Running,
    ShutDown,
}

/// An open document.
struct Doc {
    version: i32,
    text: Arc<Text>,
    /// The editor's language, for a document without a file name.
    language: String,
    /// The last scan of the current version; `None` while one is running.
    scan: Option<Arc<Scan>>,
}

struct Server<W> {
    out: W,
    enc: Encoding,
    state: State,
    docs: HashMap<Uri, Doc>,
    profiles: Profiles,
    folders: Vec<PathBuf>,
    worker: Arc<Worker>,
}

impl<W: Write> Server<W> {
    fn main_loop(&mut self, rx: &Receiver<Event>) -> io::Result<u8> {
        while let Ok(event) = rx.recv() {
            match event {
                Event::Closed => break,
                Event::Scanned(uri, scan) => self.scanned(uri, scan)?,
                Event::In(Incoming::Malformed { code, id, message }) => {
                    transport::write_error(&mut self.out, code, id, &message)?
                }
                Event::In(Incoming::Message(Message::Request(r))) => self.request(r)?,
                Event::In(Incoming::Message(Message::Notification(n))) => {
                    if n.method == "exit" {
                        return Ok(if self.state == State::ShutDown { 0 } else { 1 });
                    }
                    self.notification(n)?
                }
                // The server sends no requests, so expects no responses.
                Event::In(Incoming::Message(Message::Response(_))) => {}
            }
        }
        Ok(1)
    }

    fn send(&mut self, m: impl Into<Message>) -> io::Result<()> {
        transport::write(&mut self.out, m.into())
    }

    fn notify(&mut self, method: &str, params: impl serde::Serialize) -> io::Result<()> {
        self.send(Notification::new(method.into(), params))
    }

    fn error(&mut self, id: RequestId, code: ErrorCode, message: String) -> io::Result<()> {
        self.send(Response::new_err(id, code as i32, message))
    }

    fn request(&mut self, r: Request) -> io::Result<()> {
        let Request { id, method, params } = r;
        match (self.state, method.as_str()) {
            (State::Uninitialized, "initialize") => {}
            (State::Uninitialized, _) => {
                let m = "the server is not initialized".into();
                return self.error(id, ErrorCode::ServerNotInitialized, m);
            }
            (State::ShutDown, _) => {
                let m = "the server is shut down".into();
                return self.error(id, ErrorCode::InvalidRequest, m);
            }
            (State::Running, "initialize") => {
                let m = "initialize was sent twice".into();
                return self.error(id, ErrorCode::InvalidRequest, m);
            }
            _ => {}
        }
        let result = match method.as_str() {
            "initialize" => params_of(params).map(|p| self.initialize(p)),
            "shutdown" => {
                self.state = State::ShutDown;
                Ok(Value::Null)
            }
            "textDocument/hover" => params_of(params).map(|p| self.hover(p)),
            "textDocument/documentLink" => params_of(params).map(|p| self.links(p)),
            "textDocument/codeAction" => params_of(params).map(|p| self.code_actions(p)),
            _ => {
                let m = format!("no such method: {method}");
                return self.error(id, ErrorCode::MethodNotFound, m);
            }
        };
        match result {
            Ok(v) => self.send(Response::new_ok(id, v)),
            Err(e) => self.error(id, ErrorCode::InvalidParams, format!("{method}: {e}")),
        }
    }

    fn notification(&mut self, n: Notification) -> io::Result<()> {
        if self.state != State::Running {
            return Ok(());
        }
        // A notification cannot be answered: one with broken parameters
        // is dropped (what else could be done is guess).
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(p) = params_of::<DidOpenTextDocumentParams>(n.params) {
                    let d = p.text_document;
                    let doc = Doc {
                        version: d.version,
                        text: Arc::new(Text::new(d.text)),
                        language: d.language_id,
                        scan: None,
                    };
                    self.docs.insert(d.uri.clone(), doc);
                    self.lint(&d.uri)?;
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = params_of::<DidChangeTextDocumentParams>(n.params)
                    && let Some(doc) = self.docs.get_mut(&p.text_document.uri)
                {
                    // Dropped first: the scan holds the text it read, which
                    // would make the edit below copy the whole document.
                    doc.scan = None;
                    let text = Arc::make_mut(&mut doc.text);
                    for c in p.content_changes {
                        text.apply(c, self.enc);
                    }
                    doc.version = p.text_document.version;
                    self.lint(&p.text_document.uri)?;
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = params_of::<DidCloseTextDocumentParams>(n.params) {
                    let uri = p.text_document.uri;
                    self.docs.remove(&uri);
                    let params = PublishDiagnosticsParams::new(uri, Vec::new(), None);
                    self.notify("textDocument/publishDiagnostics", params)?;
                }
            }
            // A saved or changed urlsift.toml may change every document's
            // findings; the profiles notice a changed file by its time.
            "textDocument/didSave" | "workspace/didChangeWatchedFiles" => self.lint_all()?,
            "workspace/didChangeWorkspaceFolders" => {
                if let Ok(p) = params_of::<DidChangeWorkspaceFoldersParams>(n.params) {
                    let gone: Vec<_> =
                        p.event.removed.iter().filter_map(|f| file_path(&f.uri)).collect();
                    self.folders.retain(|f| !gone.contains(f));
                    self.folders.extend(p.event.added.iter().filter_map(|f| file_path(&f.uri)));
                    self.lint_all()?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn initialize(&mut self, p: InitializeParams) -> Value {
        let offered = p.capabilities.general.and_then(|g| g.position_encodings);
        self.enc = if offered.is_some_and(|o| o.contains(&PositionEncodingKind::UTF8)) {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        #[allow(deprecated)]
        let root = p.root_uri;
        self.folders = match p.workspace_folders {
            Some(f) => f.iter().filter_map(|f| file_path(&f.uri)).collect(),
            None => root.as_ref().and_then(file_path).into_iter().collect(),
        };
        self.state = State::Running;
        let capabilities = ServerCapabilities {
            position_encoding: Some(match self.enc {
                Encoding::Utf8 => PositionEncodingKind::UTF8,
                Encoding::Utf16 => PositionEncodingKind::UTF16,
            }),
            text_document_sync: Some(TextDocumentSyncCapability::Kind(
                TextDocumentSyncKind::INCREMENTAL,
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            document_link_provider: Some(DocumentLinkOptions {
                resolve_provider: Some(false),
                work_done_progress_options: Default::default(),
            }),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![
                    CodeActionKind::QUICKFIX,
                    CodeActionKind::new("source.fixAll.urlsift"),
                ]),
                ..CodeActionOptions::default()
            })),
            workspace: Some(WorkspaceServerCapabilities {
                workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                    supported: Some(true),
                    change_notifications: Some(lsp_types::OneOf::Left(true)),
                }),
                file_operations: None,
            }),
            ..ServerCapabilities::default()
        };
        let result = InitializeResult {
            capabilities,
            server_info: Some(ServerInfo {
                name: "urlsift".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        };
        serde_json::to_value(result).unwrap_or(Value::Null)
    }

    /// Lints a document's current version: at once when it is small, else
    /// on the worker.
    fn lint(&mut self, uri: &Uri) -> io::Result<()> {
        let Some(doc) = self.docs.get(uri) else { return Ok(()) };
        let path = doc_path(uri, &doc.language);
        let dir = match &path {
            Some(p) if file_path(uri).is_some() => p.parent().map(Path::to_path_buf),
            // An unsaved document takes the settings of the first folder.
            _ => self.folders.first().cloned(),
        };
        let (version, text) = (doc.version, doc.text.clone());
        let (profile, problem) = self.profiles.for_dir(dir.as_deref());
        if let Some(problem) = problem {
            let message = format!("urlsift: {problem}; using the defaults");
            self.notify(
                "window/showMessage",
                ShowMessageParams { typ: MessageType::ERROR, message },
            )?;
        }
        if text.as_str().len() <= INLINE_MAX {
            let scan = lint::scan(profile, path, version, text);
            self.scanned(uri.clone(), scan)
        } else {
            self.worker.submit(Job { uri: uri.clone(), version, text, profile, path });
            Ok(())
        }
    }

    fn lint_all(&mut self) -> io::Result<()> {
        let uris: Vec<Uri> = self.docs.keys().cloned().collect();
        for uri in uris {
            self.lint(&uri)?;
        }
        Ok(())
    }

    /// Keeps and publishes a scan, unless the document has moved on (or
    /// closed) since the version it scanned.
    fn scanned(&mut self, uri: Uri, scan: Scan) -> io::Result<()> {
        let enc = self.enc;
        let Some(doc) = self.docs.get_mut(&uri) else { return Ok(()) };
        if doc.version != scan.version {
            return Ok(());
        }
        let diagnostics = scan.diagnostics(&uri, enc);
        let version = scan.version;
        doc.scan = Some(Arc::new(scan));
        let params = PublishDiagnosticsParams::new(uri, diagnostics, Some(version));
        self.notify("textDocument/publishDiagnostics", params)
    }

    /// The scan of a document's current version, if there is one yet.
    fn current(&self, uri: &Uri) -> Option<Arc<Scan>> {
        self.docs.get(uri)?.scan.clone()
    }

    fn hover(&self, p: HoverParams) -> Value {
        let at = p.text_document_position_params;
        let Some(scan) = self.current(&at.text_document.uri) else { return Value::Null };
        let offset = scan.text.offset(at.position, self.enc);
        json(scan.hover(offset, self.enc))
    }

    fn links(&self, p: DocumentLinkParams) -> Value {
        let Some(scan) = self.current(&p.text_document.uri) else { return Value::Null };
        json(scan.links(self.enc))
    }

    fn code_actions(&self, p: CodeActionParams) -> Value {
        let uri = p.text_document.uri;
        let Some(scan) = self.current(&uri) else { return Value::Null };
        let actions: Vec<CodeActionOrCommand> = scan
            .code_actions(&uri, p.range, p.context.only.as_deref(), self.enc)
            .into_iter()
            .map(CodeActionOrCommand::CodeAction)
            .collect();
        json(actions)
    }
}

fn params_of<P: serde::de::DeserializeOwned>(v: Value) -> Result<P, serde_json::Error> {
    serde_json::from_value(v)
}

fn json(v: impl serde::Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The file a `file:` URI names.
fn file_path(uri: &Uri) -> Option<PathBuf> {
    if !uri.scheme().is_some_and(|s| s.as_str().eq_ignore_ascii_case("file")) {
        return None;
    }
    let raw = uri.path().as_str().as_bytes();
    let mut bytes = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
        if raw[i] == b'%'
            && let (Some(h), Some(l)) =
                (raw.get(i + 1).copied().and_then(hex), raw.get(i + 2).copied().and_then(hex))
        {
            bytes.push(h << 4 | l);
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// The path a document is read as: its file's; for an unsaved one, a
/// name whose extension its language gives (`untitled:1` in Markdown
/// mode is read as Markdown).
fn doc_path(uri: &Uri, language: &str) -> Option<PathBuf> {
    if let Some(p) = file_path(uri) {
        return Some(p);
    }
    let ext = match language {
        "markdown" => "md",
        "html" => "html",
        "restructuredtext" => "rst",
        "json" => "json",
        "javascript" | "typescript" => "js",
        "toml" | "yaml" | "ini" => "toml",
        "perl" => "pod",
        "python" | "rust" | "c" | "cpp" | "go" | "java" | "ruby" | "shellscript" => "rs",
        _ => return None,
    };
    Some(PathBuf::from(format!("untitled.{ext}")))
}

/// A scan for the worker.
struct Job {
    uri: Uri,
    version: i32,
    text: Arc<Text>,
    profile: Arc<lint::Profile>,
    path: Option<PathBuf>,
}

/// The thread that scans large documents: one job per document waits,
/// the latest version's, so fast typing in a big file scans only what is
/// still current.
#[derive(Default)]
struct Worker {
    queue: Mutex<(Vec<Job>, bool)>,
    ready: Condvar,
}

impl Worker {
    fn submit(&self, job: Job) {
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.0.retain(|j| j.uri != job.uri);
        q.0.push(job);
        self.ready.notify_one();
    }

    fn stop(&self) {
        self.queue.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        self.ready.notify_one();
    }

    fn run(&self, tx: &Sender<Event>) {
        loop {
            let job = {
                let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
                while q.0.is_empty() && !q.1 {
                    q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
                }
                if q.1 {
                    return;
                }
                q.0.remove(0)
            };
            let scan = lint::scan(job.profile, job.path, job.version, job.text);
            if tx.send(Event::Scanned(job.uri, scan)).is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn file_uris_decode_to_paths() {
        let u = Uri::from_str("file:///tmp/a%20b/%C3%A9.md").unwrap();
        assert_eq!(file_path(&u), Some(PathBuf::from("/tmp/a b/é.md")));
        assert_eq!(file_path(&Uri::from_str("untitled:Untitled-1").unwrap()), None);
        let u = Uri::from_str("untitled:Untitled-1").unwrap();
        assert_eq!(doc_path(&u, "markdown"), Some(PathBuf::from("untitled.md")));
        assert_eq!(doc_path(&u, "plaintext"), None);
    }
}
