//! Printers: how URLs and findings become bytes on standard output. Each
//! implements [`Emit`] for one output format; none of them filters, sorts
//! or computes severities.

use std::io::Write;

use crate::diag::Severity;
use crate::driver::{Emit, Input};
use crate::extract::{Extracted, Finding};

/// `extract`: one URL per line, exactly as extracted (raw bytes).
#[derive(Debug, Default)]
pub struct UrlLines;

impl Emit for UrlLines {
    fn emit(&self, _: &Input, url: &Extracted, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(&url.url);
        out.push(b'\n');
        false
    }
}

/// `extract --json`: one JSON object per URL (JSON Lines).
#[derive(Debug, Default)]
pub struct ExtractJson;

impl Emit for ExtractJson {
    fn emit(&self, input: &Input, u: &Extracted, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(b"{\"path\":");
        json_str(out, input.shown());
        let _ = write!(
            out,
            ",\"line\":{},\"column\":{},\"end_line\":{},\"end_column\":{},\"offset\":{},\"url\":",
            u.start.line, u.start.column, u.end.line, u.end.column, u.start.offset
        );
        json_str(out, &u.url_lossy());
        let _ = write!(
            out,
            ",\"kind\":\"{}\",\"valid\":{},\"alternatives\":[",
            u.kind.as_str(),
            u.is_valid()
        );
        for (i, a) in u.alternatives.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            json_str(out, &String::from_utf8_lossy(a));
        }
        out.extend_from_slice(b"],\"diagnostics\":[");
        for (i, f) in u.findings.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            finding_json(out, f);
        }
        out.extend_from_slice(b"]}\n");
        false
    }
}

fn finding_json(out: &mut Vec<u8>, f: &Finding) {
    let d = &f.diagnostic;
    let _ = write!(out, "{{\"code\":\"{}\",\"severity\":\"{}\",\"message\":", d.code, d.severity);
    json_str(out, &d.message);
    let _ = write!(
        out,
        ",\"start\":{},\"end\":{},\"line\":{},\"column\":{}",
        d.start, d.end, f.start.line, f.start.column
    );
    if let Some(g) = d.grammar {
        let _ = write!(out, ",\"grammar\":\"{}\"", g.as_str());
    }
    if let Some(fix) = &d.fix {
        out.extend_from_slice(b",\"fix\":");
        json_str(out, fix);
    }
    out.push(b'}');
}

/// `lint`: `path:line:column: severity[code]: message`, one line per
/// finding, with the source line and a caret under the offending bytes
/// when `excerpts` is on (a terminal).
#[derive(Debug)]
pub struct LintText {
    /// The lowest severity that fails the run.
    pub fail_on: Severity,
    /// Show the source line and a caret.
    pub excerpts: bool,
}

impl Emit for LintText {
    fn emit(&self, input: &Input, u: &Extracted, out: &mut Vec<u8>) -> bool {
        for f in &u.findings {
            let d = &f.diagnostic;
            let _ = writeln!(
                out,
                "{}:{}:{}: {}[{}]: {}",
                input.shown(),
                f.start.line,
                f.start.column,
                d.severity,
                d.code,
                d.message
            );
            if let (true, Some(line)) = (self.excerpts, &f.excerpt) {
                caret(out, line, f);
            }
        }
        fails(u, self.fail_on)
    }
}

/// The excerpt block: the source line, then `^^^` under the finding (on
/// its first line only, when it spans lines).
fn caret(out: &mut Vec<u8>, line: &[u8], f: &Finding) {
    let _ = write!(out, "  | ");
    out.extend_from_slice(line);
    out.push(b'\n');
    let col = f.start.column as usize - 1;
    let width =
        if f.end.line == f.start.line { (f.end.column - f.start.column + 1) as usize } else { 1 };
    let pad: Vec<u8> =
        line.iter().take(col).map(|&b| if b == b'\t' { b'\t' } else { b' ' }).collect();
    let _ = write!(out, "  | ");
    out.extend_from_slice(&pad);
    out.extend(std::iter::repeat_n(b'^', width.max(1)));
    out.push(b'\n');
}

/// `lint --json`: one JSON object per finding.
#[derive(Debug)]
pub struct LintJson {
    /// The lowest severity that fails the run.
    pub fail_on: Severity,
}

impl Emit for LintJson {
    fn emit(&self, input: &Input, u: &Extracted, out: &mut Vec<u8>) -> bool {
        for f in &u.findings {
            let d = &f.diagnostic;
            out.extend_from_slice(b"{\"path\":");
            json_str(out, input.shown());
            let _ = write!(
                out,
                ",\"line\":{},\"column\":{},\"end_line\":{},\"end_column\":{},\"code\":\"{}\",\"severity\":\"{}\",\"message\":",
                f.start.line, f.start.column, f.end.line, f.end.column, d.code, d.severity
            );
            json_str(out, &d.message);
            out.extend_from_slice(b",\"url\":");
            json_str(out, &u.url_lossy());
            let _ = write!(
                out,
                ",\"kind\":\"{}\",\"url_line\":{},\"url_column\":{},\"start\":{},\"end\":{}",
                u.kind.as_str(),
                u.start.line,
                u.start.column,
                d.start,
                d.end
            );
            if let Some(g) = d.grammar {
                let _ = write!(out, ",\"grammar\":\"{}\"", g.as_str());
            }
            if let Some(fix) = &d.fix {
                out.extend_from_slice(b",\"fix\":");
                json_str(out, fix);
            }
            out.extend_from_slice(b"}\n");
        }
        fails(u, self.fail_on)
    }
}

fn fails(u: &Extracted, fail_on: Severity) -> bool {
    u.findings.iter().any(|f| f.diagnostic.severity >= fail_on)
}

/// Appends `s` as a JSON string literal.
pub fn json_str(out: &mut Vec<u8>, s: &str) {
    // serde_json's escaper is correct for every control and non-ASCII
    // character; writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}
