//! The command line's scans for a program that embeds urlsift (the Python
//! package, a Spark job): one buffer or one file, read exactly as
//! `urlsift extract --json` or `urlsift lint --json` reads it (with
//! `--no-config`), the same JSON Lines out. The records are the printers'
//! own bytes, so an embedding cannot drift from the CLI's fields.
//!
//! ```
//! use urlsift::driver::embed::{Command, JsonScan};
//!
//! let scan = JsonScan::new(Command::Extract, None, "auto").unwrap();
//! let out = scan.buffer(b"see <URL:http://a.example/>\n", Some("notes.txt"));
//! let line = std::str::from_utf8(&out.json).unwrap();
//! assert!(line.starts_with(r#"{"path":"notes.txt","line":1,"column":10,"#));
//! assert!(out.error.is_none());
//! ```

use std::io;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::read::{Sink, process, scan_reader};
use super::{FileResult, Input, RunOptions};
use crate::diag::{Grammar, Severity};
use crate::extract::{Options, Scratch, Sifter};
use crate::mail::InputKind;
use crate::printer::{ExtractJson, LintJson};

/// Which command's records a [`JsonScan`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `extract --json`: one object per URL.
    Extract,
    /// `lint --json`: one object per finding.
    Lint,
}

/// The `--input` names, as the command line spells them.
pub const INPUT_NAMES: [&str; 7] = ["auto", "text", "mail", "mbox", "news", "warc", "records"];

/// A configured scan: the command, its grammar and its `--input`.
#[derive(Debug)]
pub struct JsonScan {
    sifter: Sifter,
    command: Command,
    opts: RunOptions,
}

/// What came of one buffer or file.
#[derive(Debug, Default)]
pub struct Scanned {
    /// The records, JSON Lines, exactly as the CLI prints them.
    pub json: Vec<u8>,
    /// Why the input could not be read (fully), as the CLI reports it
    /// on standard error; what was found before is in `json`.
    pub error: Option<String>,
    /// Messages or records that were skipped (the rest was read).
    pub problems: Vec<String>,
    /// Skipped because it looks binary (a NUL in its first 8 KiB).
    pub binary: bool,
    /// Bytes read (decompressed).
    pub bytes: u64,
    /// URLs found.
    pub urls: u64,
}

impl Scanned {
    fn from(r: FileResult, json: Vec<u8>) -> Scanned {
        Scanned {
            json,
            error: r.error,
            problems: r.problems,
            binary: r.binary,
            bytes: r.bytes,
            urls: r.urls,
        }
    }
}

impl JsonScan {
    /// The scan `urlsift <command> --json --no-config [--grammar G]
    /// --input <input>` runs; `grammar` `None` is the CLI's default. An
    /// unknown `input` is an error naming the known ones.
    pub fn new(
        command: Command,
        grammar: Option<Grammar>,
        input: &str,
    ) -> Result<JsonScan, String> {
        let kind = match input {
            "auto" | "warc" | "records" => None,
            "text" => Some(InputKind::Text),
            "mail" => Some(InputKind::Message),
            "mbox" => Some(InputKind::Mbox),
            "news" => Some(InputKind::News),
            _ => {
                return Err(format!(
                    "input must be one of {}, got {input:?}",
                    INPUT_NAMES.join(", ")
                ));
            }
        };
        let extracting = command == Command::Extract;
        let sifter = Sifter::try_new(Options {
            grammar: grammar.unwrap_or_default(),
            // As `Settings::resolve` in the binary: every URL's
            // `rejected_by` only where `extract --json` prints it.
            rejected_by_findings_only: !extracting,
            ..Options::default()
        })?;
        let opts = RunOptions {
            threads: 1,
            input: kind,
            warc: input == "warc",
            records: input == "records",
            // `extract` reports URLs in code; `lint` passes over examples.
            keep_code: extracting,
            ..RunOptions::default()
        };
        Ok(JsonScan { sifter, command, opts })
    }

    /// With `yes`, input that looks binary (a NUL in its first 8 KiB) is
    /// scanned as the CLI's `--binary` scans it, instead of skipped.
    pub fn binary(mut self, yes: bool) -> JsonScan {
        self.opts.binary = yes;
        self
    }

    /// Scans `data` as the CLI scans a file of that content named `name`
    /// (the name chooses a document format, `notes.md`, and is the
    /// records' `path`; `None` reads it as standard input, `-`). Nothing
    /// is read from disk, whatever the name.
    pub fn buffer(&self, data: &[u8], name: Option<&str>) -> Scanned {
        let input = match name {
            Some(n) => Input::File { path: n.into(), shown: n.into() },
            None => Input::Stdin,
        };
        let sifter = match &input {
            Input::File { path, .. } => self.sifter.for_path(path),
            Input::Stdin => &self.sifter,
        };
        let (mut json, mut r, mut scratch) =
            (Vec::new(), FileResult::default(), Scratch::default());
        let stop = AtomicBool::new(false);
        let mut pieces = |buf: &mut Vec<u8>| {
            json.append(buf);
            Ok(())
        };
        let mut sink =
            Sink { pieces: &mut pieces, failed: None, panic: None, stop: &stop, detached: true };
        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.with_emit(|emit| {
                let (scratch, r, sink) = (&mut scratch, &mut r, &mut sink);
                scan_reader(data, false, &input, sifter, &emit, self.opts, scratch, r, sink)
            })
        }));
        match res {
            Ok(Ok(())) => {}
            Ok(Err(e)) => r.error = Some(super::reason(&e)),
            Err(panic) => r.error = Some(super::panic_message(&panic)),
        }
        let out = std::mem::take(&mut r.out);
        json.extend_from_slice(&out);
        Scanned::from(r, json)
    }

    /// Scans the file at `path`, streamed as the CLI streams it (a mailbox
    /// message by message, text in bounded windows), its records named
    /// `shown`. `piece` gets the output as it grows (about 256 KiB at a
    /// time) so that the caller need not hold it whole; the returned
    /// [`Scanned::json`] has the rest. An error of `piece` stops the scan.
    pub fn file(
        &self,
        path: &Path,
        shown: &str,
        piece: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<()>,
    ) -> io::Result<Scanned> {
        let input = Input::File { path: path.to_path_buf(), shown: shown.into() };
        let mut scratch = Scratch::default();
        let stop = AtomicBool::new(false);
        let mut r = self.with_emit(|emit| {
            process(&input, None, &self.sifter, &emit, self.opts, &mut scratch, piece, &stop)
        })?;
        let out = std::mem::take(&mut r.out);
        Ok(Scanned::from(r, out))
    }

    fn with_emit<T>(&self, f: impl FnOnce(&dyn super::Emit) -> T) -> T {
        match self.command {
            Command::Extract => f(&ExtractJson),
            // The CLI's default `--fail-on`; it decides no field.
            Command::Lint => f(&LintJson { fail_on: Severity::Error }),
        }
    }
}

// Either JSON printer behind one reference: one instance of the driver's
// generic scan, not one per printer.
impl super::Emit for &dyn super::Emit {
    fn emit(
        &self,
        input: &Input,
        url: &crate::extract::Extracted,
        cx: super::Context<'_>,
        out: &mut Vec<u8>,
    ) -> bool {
        (**self).emit(input, url, cx, out)
    }

    fn record_error(
        &self,
        input: &Input,
        line: u64,
        id: Option<&str>,
        why: &str,
        out: &mut Vec<u8>,
    ) {
        (**self).record_error(input, line, id, why, out);
    }
}

/// `urlsift check --json --grammar G URL`: the object, without its
/// newline.
pub fn check_json(url: &[u8], grammar: Option<Grammar>) -> Vec<u8> {
    let sifter =
        Sifter::new(Options { grammar: grammar.unwrap_or_default(), ..Options::default() });
    let mut out = Vec::new();
    crate::printer::check_json(&mut out, &sifter, url);
    out
}
