//! Printers: how URLs and findings become bytes on standard output. Each
//! implements [`Emit`] for one output format; none of them filters, sorts
//! or computes severities.

use std::io::Write;

use crate::diag::{Grammar, Severity};
use crate::driver::{Context, Emit, Input};
use crate::escape::for_terminal;
use crate::extract::{Extracted, Finding};
use crate::span::Position;

/// `extract`: one URL per line, as extracted, with what must not reach a
/// terminal escaped (see [`crate::escape`]: a URL's ESC or line break
/// would drive the terminal or split the line). `--json` gives the exact
/// bytes.
#[derive(Debug, Default)]
pub struct UrlLines;

impl Emit for UrlLines {
    fn emit(&self, _: &Input, url: &Extracted, _: Context<'_>, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(for_terminal(&url.url).as_bytes());
        // `extract --relative`: a relative link, then where it leads.
        if let Some(path) = url.local.as_ref().and_then(|l| l.path.as_ref()) {
            out.push(b'\t');
            out.extend_from_slice(for_terminal(path.as_os_str().as_encoded_bytes()).as_bytes());
        }
        out.push(b'\n');
        false
    }
}

/// `extract --json`: one JSON object per URL (JSON Lines).
#[derive(Debug, Default)]
pub struct ExtractJson;

/// The object for a line of a record stream that is not a record:
/// `{"path", "record_line", "id", "error"}`.
fn record_error_json(input: &Input, line: u64, id: Option<&str>, why: &str, out: &mut Vec<u8>) {
    json_path(out, input);
    let _ = write!(out, ",\"record_line\":{line},\"id\":{},\"error\":", id.unwrap_or("null"));
    json_str(out, why);
    out.extend_from_slice(b"}\n");
}

impl Emit for ExtractJson {
    fn record_error(
        &self,
        input: &Input,
        line: u64,
        id: Option<&str>,
        why: &str,
        out: &mut Vec<u8>,
    ) {
        record_error_json(input, line, id, why, out);
    }

    fn emit(&self, input: &Input, u: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool {
        json_path(out, input);
        let _ = write!(
            out,
            ",\"line\":{},\"column\":{},\"end_line\":{},\"end_column\":{},\"offset\":{},\"url\":",
            u.start.line, u.start.column, u.end.line, u.end.column, u.start.offset
        );
        json_str(out, &u.url_lossy());
        let _ = write!(out, ",\"kind\":\"{}\",\"valid\":{},", u.kind.as_str(), u.is_valid());
        rejected_by_json(out, &u.rejected_by);
        out.extend_from_slice(b",\"alternatives\":[");
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
        out.push(b']');
        doc_json(out, u);
        context_json(out, input, cx);
        out.extend_from_slice(b"}\n");
        false
    }
}

/// The fields of a document reading: `in_code` (the URL is in code, an
/// example), `notes` (how the reading was arrived at, when not the
/// plain one), and for a local link `local_path`: the path it leads to
/// (`null` when it cannot be resolved: an absolute path and no root).
fn doc_json(out: &mut Vec<u8>, u: &Extracted) {
    let _ = write!(out, ",\"in_code\":{},\"notes\":[", u.in_code);
    for (i, n) in u.notes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json_str(out, n);
    }
    out.push(b']');
    if let Some(local) = &u.local {
        out.extend_from_slice(b",\"local_path\":");
        let path = local.path.as_ref().map(|p| p.to_string_lossy());
        json_opt(out, path.as_deref());
    }
}

/// The fields a mail or news input adds: `message_id`, `message_index`,
/// `header`, `part`, and `resolved` with `--resolve-local`; before them,
/// `compressed` for an input read through a decompressor, and the
/// record's `warc_*` fields for a URL of a WARC record.
fn context_json(out: &mut Vec<u8>, input: &Input, cx: Context<'_>) {
    if let Some(c) = cx.compressed {
        let _ = write!(out, ",\"compressed\":\"{c}\"");
    }
    if let Some(id) = cx.record {
        // The id as the record gave it: JSON text already.
        out.extend_from_slice(b",\"id\":");
        out.extend_from_slice(id.as_bytes());
    }
    if let Some(w) = cx.warc {
        let _ = write!(
            out,
            ",\"warc_record_index\":{},\"warc_record_offset\":{},\"warc_payload_offset\":{},\"warc_type\":",
            w.index, w.offset, w.payload_offset
        );
        json_str(out, &w.kind);
        out.extend_from_slice(b",\"warc_target_uri\":");
        json_opt(out, w.target_uri.as_deref());
        out.extend_from_slice(b",\"warc_record_id\":");
        json_opt(out, w.record_id.as_deref());
    }
    let Some(m) = cx.mail else { return };
    let _ = write!(out, ",\"message_index\":{},\"message_id\":", m.message_index);
    json_opt(out, m.message_id.as_deref());
    out.extend_from_slice(b",\"header\":");
    json_opt(out, m.header.as_deref());
    out.extend_from_slice(b",\"part\":");
    json_opt(out, m.part.as_deref());
    if let Some(i) = cx.resolved {
        out.extend_from_slice(b",\"resolved\":{\"path\":");
        json_str(out, input.shown());
        let _ = write!(out, ",\"message_index\":{i}}}");
    }
}

fn json_opt(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => json_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// `"rejected_by":["rfc1738",...]`: the grammars under which a URL is
/// not valid.
pub fn rejected_by_json(out: &mut Vec<u8>, grammars: &[Grammar]) {
    out.extend_from_slice(b"\"rejected_by\":[");
    for (i, g) in grammars.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = write!(out, "\"{}\"", g.as_str());
    }
    out.push(b']');
}

/// `,"spans":[{"start":..,"end":..,"line":..,"column":..},...]`: every
/// span of a finding, the first being its own `start..end`.
fn spans_json(out: &mut Vec<u8>, f: &Finding) {
    out.extend_from_slice(b",\"spans\":[");
    for (i, ((s, e), (p, _))) in f.diagnostic.spans().zip(f.spans()).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = write!(
            out,
            "{{\"start\":{s},\"end\":{e},\"line\":{},\"column\":{}}}",
            p.line, p.column
        );
    }
    out.push(b']');
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
    spans_json(out, f);
    if let Some(g) = d.grammar {
        let _ = write!(out, ",\"grammar\":\"{}\"", g.as_str());
    }
    if let Some(fix) = &d.fix {
        out.extend_from_slice(b",\"fix\":");
        json_str(out, fix);
    }
    out.push(b'}');
}

/// `check --json`: the object for one URL (no newline after it).
pub fn check_json(buf: &mut Vec<u8>, sifter: &crate::extract::Sifter, url: &[u8]) {
    let v = sifter.check(url);
    buf.extend_from_slice(b"{\"url\":");
    json_str(buf, &String::from_utf8_lossy(url));
    // `valid` is the syntax's verdict: an online finding does not change it.
    let valid = v
        .diagnostics
        .iter()
        .all(|d| d.severity != crate::diag::Severity::Error || d.code.is_online());
    let _ = write!(buf, ",\"valid\":{valid},\"scheme\":");
    json_str(buf, &v.scheme);
    buf.push(b',');
    rejected_by_json(buf, &sifter.rejected_by(url));
    buf.extend_from_slice(b",\"diagnostics\":[");
    for (i, d) in v.diagnostics.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        let _ =
            write!(buf, "{{\"code\":\"{}\",\"severity\":\"{}\",\"message\":", d.code, d.severity);
        json_str(buf, &d.message);
        let _ = write!(buf, ",\"start\":{},\"end\":{},\"spans\":[", d.start, d.end);
        for (i, (s, e)) in d.spans().enumerate() {
            let comma = if i > 0 { "," } else { "" };
            let _ = write!(buf, "{comma}{{\"start\":{s},\"end\":{e}}}");
        }
        buf.push(b']');
        if let Some(g) = d.grammar {
            let _ = write!(buf, ",\"grammar\":\"{}\"", g.as_str());
        }
        if let Some(fix) = &d.fix {
            buf.extend_from_slice(b",\"fix\":");
            json_str(buf, fix);
        }
        buf.push(b'}');
    }
    buf.extend_from_slice(b"]}");
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
    /// Colour the path, severity and code with ANSI escapes.
    pub color: bool,
}

impl Emit for LintText {
    fn emit(&self, input: &Input, u: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool {
        for f in &u.findings {
            let d = &f.diagnostic;
            let (path, sev, code, reset) = if self.color {
                let sev = match d.severity {
                    Severity::Error => "\x1b[1;31m",
                    Severity::Warning => "\x1b[1;33m",
                    Severity::Note => "\x1b[1;36m",
                };
                ("\x1b[35m", sev, "\x1b[1m", "\x1b[0m")
            } else {
                ("", "", "", "")
            };
            let _ = writeln!(
                out,
                "{path}{}{reset}:{}:{}: {sev}{}{reset}[{code}{}{reset}]: {}",
                terminal(input.shown()),
                f.start.line,
                f.start.column,
                d.severity,
                d.code,
                d.message
            );
            if let Some(id) = cx.record {
                // The line and column count from the record's text.
                out.pop();
                let _ = writeln!(out, " (record {})", terminal(id));
            }
            if let Some(w) = cx.warc {
                // The line and column count from the record's payload:
                // say which record.
                out.pop();
                let _ = write!(out, " (WARC record {} at byte {}", w.index, w.offset);
                if let Some(uri) = &w.target_uri {
                    let _ = write!(out, ", {}", terminal(uri));
                }
                out.extend_from_slice(b")\n");
            }
            if let (true, Some(line)) = (self.excerpts, &f.excerpt) {
                caret(out, line, f);
            }
        }
        fails(u, self.fail_on)
    }
}

/// The excerpt block: the source line, then `^^^` under each of the
/// finding's spans that starts on that line and within the excerpt (a
/// span running onto the next line gets one `^`). The line comes from an
/// untrusted file: it is shown escaped ([`crate::escape`]; tabs stay, so
/// an indented line keeps its shape), and the carets are placed under
/// what each byte shows as.
fn caret(out: &mut Vec<u8>, line: &[u8], f: &Finding) {
    let (shown, cell, blank) = shown_excerpt(line);
    let _ = writeln!(out, "  | {shown}");
    // The excerpt may be a window of a long line, starting at
    // `excerpt_column`; columns are bytes of it.
    let mut marks: Vec<u8> = Vec::new();
    let pad = |marks: &mut Vec<u8>, to: usize| {
        while marks.len() < to {
            marks.push(blank.get(marks.len()).copied().unwrap_or(b' '));
        }
    };
    let mut any = false;
    for (s, e) in f.spans().filter(|(s, _)| s.line == f.start.line) {
        let col = match s.column.checked_sub(f.excerpt_column) {
            Some(c) if (c as usize) < line.len() => c as usize,
            _ => continue,
        };
        let width = if e.line == s.line { (e.column - s.column + 1) as usize } else { 1 };
        let end = (col + width.max(1)).min(line.len());
        let (a, b) = (cell[col], cell[end].max(cell[col] + 1));
        pad(&mut marks, b);
        marks[a..b].fill(b'^');
        any = true;
    }
    if !any {
        // Only a span past the excerpt's end (its line break): one caret
        // after the line.
        let col = (f.start.column.saturating_sub(f.excerpt_column) as usize).min(line.len());
        pad(&mut marks, cell[col]);
        marks.push(b'^');
    }
    let _ = write!(out, "  | ");
    out.extend_from_slice(&marks);
    out.push(b'\n');
}

/// An excerpt as a terminal shows it; for each of its bytes (and its end)
/// the column, in characters, where what the byte shows as begins; and
/// for each column the blank that lines up under it (a tab under a tab).
fn shown_excerpt(line: &[u8]) -> (String, Vec<usize>, Vec<u8>) {
    let mut shown = String::with_capacity(line.len());
    let mut cell = Vec::with_capacity(line.len() + 1);
    let mut blank = Vec::with_capacity(line.len());
    let mut put = |text: &str, bytes: usize, cell: &mut Vec<usize>| {
        cell.extend(std::iter::repeat_n(blank.len(), bytes));
        shown.push_str(text);
        blank.extend(text.chars().map(|c| if c == '\t' { b'\t' } else { b' ' }));
    };
    for chunk in line.utf8_chunks() {
        for c in chunk.valid().chars() {
            let mut buf = [0; 4];
            let text = c.encode_utf8(&mut buf);
            let text = if c == '\t' { "\t".into() } else { crate::escape::str_for_terminal(text) };
            put(&text, c.len_utf8(), &mut cell);
        }
        for &b in chunk.invalid() {
            put(&format!("\\x{b:02x}"), 1, &mut cell);
        }
    }
    cell.push(blank.len());
    (shown, cell, blank)
}

/// `lint --json`: one JSON object per finding.
#[derive(Debug)]
pub struct LintJson {
    /// The lowest severity that fails the run.
    pub fail_on: Severity,
}

impl Emit for LintJson {
    fn record_error(
        &self,
        input: &Input,
        line: u64,
        id: Option<&str>,
        why: &str,
        out: &mut Vec<u8>,
    ) {
        record_error_json(input, line, id, why, out);
    }

    fn emit(&self, input: &Input, u: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool {
        for f in &u.findings {
            let d = &f.diagnostic;
            json_path(out, input);
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
            spans_json(out, f);
            out.push(b',');
            rejected_by_json(out, &u.rejected_by);
            if let Some(g) = d.grammar {
                let _ = write!(out, ",\"grammar\":\"{}\"", g.as_str());
            }
            if let Some(fix) = &d.fix {
                out.extend_from_slice(b",\"fix\":");
                json_str(out, fix);
            }
            doc_json(out, u);
            context_json(out, input, cx);
            out.extend_from_slice(b"}\n");
        }
        fails(u, self.fail_on)
    }
}

/// `--format github`: workflow commands that GitHub Actions shows as
/// annotations on the pull request.
#[derive(Debug)]
pub struct Github {
    /// The lowest severity that fails the run.
    pub fail_on: Severity,
}

impl Emit for Github {
    fn emit(&self, input: &Input, u: &Extracted, _: Context<'_>, out: &mut Vec<u8>) -> bool {
        for f in &u.findings {
            let d = &f.diagnostic;
            let level = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "notice",
            };
            let _ = writeln!(
                out,
                "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}",
                gh_property(&terminal(input.shown().strip_prefix("./").unwrap_or(input.shown()))),
                f.start.line,
                f.start.column,
                f.end.line,
                f.end.column + 1,
                gh_property(d.code.as_str()),
                gh_data(&format!("{} ({})", d.message, for_terminal(&u.url)))
            );
        }
        fails(u, self.fail_on)
    }
}

/// A str escaped for a terminal or a CI log (see [`crate::escape`]).
fn terminal(s: &str) -> std::borrow::Cow<'_, str> {
    for_terminal(s.as_bytes())
}

/// Escaping of a workflow command's message, as the runner decodes it.
fn gh_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escaping of a workflow command's property value.
fn gh_property(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other
/// viewers. Each finding is one `result` object on its own line; the caller
/// writes [`Sarif::header`], the results joined by commas, then
/// [`Sarif::footer`], so the document streams.
#[derive(Debug)]
pub struct Sarif {
    /// The lowest severity that fails the run.
    pub fail_on: Severity,
}

impl Sarif {
    /// Everything before the first result: the tool and its rules (the
    /// whole diagnostic catalogue, so a viewer can explain any code).
    pub fn header() -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(
            b"{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":{\"name\":\"urlsift\",",
        );
        let _ = write!(
            out,
            "\"version\":\"{}\",\"informationUri\":\"https://crates.io/crates/urlsift\",\"rules\":[",
            env!("CARGO_PKG_VERSION")
        );
        for (i, c) in crate::diag::Code::ALL.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let _ =
                write!(out, "{{\"id\":\"{c}\",\"name\":\"{c}\",\"shortDescription\":{{\"text\":");
            json_str(&mut out, c.summary());
            out.extend_from_slice(b"},\"fullDescription\":{\"text\":");
            json_str(&mut out, c.reason());
            // What a code-scanning viewer shows under "help": the meaning,
            // the reason, and how to silence it (`urlsift explain CODE`
            // has the rest, with a live example).
            let (text, markdown) = rule_help(*c);
            out.extend_from_slice(b"},\"help\":{\"text\":");
            json_str(&mut out, &text);
            out.extend_from_slice(b",\"markdown\":");
            json_str(&mut out, &markdown);
            out.extend_from_slice(b"},\"helpUri\":");
            json_str(&mut out, &help_uri(*c));
            let _ = write!(
                out,
                ",\"defaultConfiguration\":{{\"level\":\"{}\"}}}}",
                sarif_level(c.default_severity())
            );
        }
        // Columns count Unicode code points, as declared: a byte count
        // would put findings after a non-ASCII character too far right.
        out.extend_from_slice(b"]}},\"columnKind\":\"unicodeCodePoints\",\"results\":[\n");
        out
    }

    /// Everything after the last result.
    pub fn footer() -> &'static [u8] {
        b"\n]}]}\n"
    }
}

/// The README that documents every code, on the repository's default
/// branch: its table of codes has an anchor per code (`#code-NAME`).
/// Cargo.toml's `repository` is the one place the address is written.
pub const README_URL: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/README.md");

/// A SARIF rule's `helpUri`: the code's row in the README's table, which a
/// viewer links to from the rule.
pub fn help_uri(c: crate::diag::Code) -> String {
    format!("{README_URL}#code-{c}")
}

/// A SARIF rule's `help`, as text and as Markdown.
fn rule_help(c: crate::diag::Code) -> (String, String) {
    let silence = c.silence();
    let text = format!(
        "{}\n\n{}\n\nSilence it {}.\nMore, with an example: urlsift explain {c}",
        c.summary(),
        c.reason(),
        silence.iter().map(|(place, how)| format!("{place}: {how}")).collect::<Vec<_>>().join("; ")
    );
    let markdown = format!(
        "**{c}**: {}\n\n{}\n\nSilence it:\n\n{}\n\nMore, with an example: `urlsift explain {c}`",
        c.summary(),
        c.reason(),
        silence
            .iter()
            .map(|(place, how)| format!("- {place}: `{how}`"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    (text, markdown)
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

impl Emit for Sarif {
    fn emit(&self, input: &Input, u: &Extracted, _: Context<'_>, out: &mut Vec<u8>) -> bool {
        for f in &u.findings {
            let d = &f.diagnostic;
            let index = crate::diag::Code::ALL.iter().position(|c| *c == d.code).unwrap_or(0);
            let _ = write!(
                out,
                "{{\"ruleId\":\"{}\",\"ruleIndex\":{index},\"level\":\"{}\",\"message\":{{\"text\":",
                d.code,
                sarif_level(d.severity)
            );
            json_str(out, &format!("{} ({})", d.message, u.url_lossy()));
            let uri = sarif_uri(input);
            out.extend_from_slice(b"},\"locations\":[");
            sarif_location(out, &uri, f, f.start, f.end, None);
            out.push(b']');
            if !f.extra_spans.is_empty() {
                out.extend_from_slice(b",\"relatedLocations\":[");
                for (i, &(s, e)) in f.extra_spans.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    sarif_location(out, &uri, f, s, e, Some(i + 1));
                }
                out.push(b']');
            }
            if let (Some(fix), Some(region)) = (&d.fix, fix_region(u, f)) {
                sarif_fix(out, &uri, region, fix);
            }
            out.extend_from_slice(b"}\n");
        }
        fails(u, self.fail_on)
    }
}

/// A region of one line, in code points: line, first column, and the
/// column one past the last.
type LineRegion = (u64, u64, u64);

/// Where the whole URL of `u` is, in code points, when its fix can be put
/// in place of its bytes: the URL is the file's own bytes
/// ([`Extracted::verbatim`]), valid UTF-8 (the fix is a string), on one
/// line, and the line before it is known and UTF-8 (the finding's excerpt
/// starts at column 1 and reaches the URL), so the columns are exact.
/// Short of that, a fix could replace the wrong characters: `None`.
fn fix_region(u: &Extracted, f: &Finding) -> Option<LineRegion> {
    if !u.verbatim || u.start.line != u.end.line || u.start.line == 0 || f.excerpt_column != 1 {
        return None;
    }
    let url = std::str::from_utf8(&u.url).ok()?;
    let line = f.excerpt.as_deref().filter(|_| f.start.line == u.start.line)?;
    let before = line.get(..usize::try_from(u.start.column.checked_sub(1)?).ok()?)?;
    let start = std::str::from_utf8(before).ok()?.chars().count() as u64 + 1;
    Some((u.start.line, start, start + url.chars().count() as u64))
}

/// A result's `fixes`: one fix, replacing the region of the whole URL
/// with `fix`.
fn sarif_fix(out: &mut Vec<u8>, uri: &str, (line, start, end): LineRegion, fix: &str) {
    out.extend_from_slice(b",\"fixes\":[{\"description\":{\"text\":");
    json_str(out, &format!("Write the URL as {fix}"));
    out.extend_from_slice(b"},\"artifactChanges\":[{\"artifactLocation\":{\"uri\":");
    json_str(out, uri);
    let _ = write!(
        out,
        "}},\"replacements\":[{{\"deletedRegion\":{{\"startLine\":{line},\"startColumn\":{start},\"endLine\":{line},\"endColumn\":{end}}},\"insertedContent\":{{\"text\":"
    );
    json_str(out, fix);
    out.extend_from_slice(b"}}]}]}]");
}

/// One SARIF `location` for the span `s..=e` of finding `f`, with an `id`
/// for a related location.
fn sarif_location(
    out: &mut Vec<u8>,
    uri: &str,
    f: &Finding,
    s: Position,
    e: Position,
    id: Option<usize>,
) {
    out.push(b'{');
    if let Some(id) = id {
        let _ = write!(out, "\"id\":{id},");
    }
    out.extend_from_slice(b"\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
    json_str(out, uri);
    // `endColumn` is one past the last character: the last byte's column
    // plus its own width, one code point.
    let _ = write!(
        out,
        "}},\"region\":{{\"startLine\":{},\"startColumn\":{},\"endLine\":{},\"endColumn\":{}}}}}}}",
        s.line,
        code_point_column(f, s),
        e.line,
        code_point_column(f, e) + 1
    );
}

/// The column of `p` in Unicode code points, from the finding's excerpt
/// (the Sarif printer asks for excerpts) when `p` is on its line: bytes
/// that continue a UTF-8 sequence do not count. The part of a
/// line before a long line's excerpt window (over [`EXCERPT`] bytes) is
/// not known here and counts a code point per byte; without an excerpt,
/// the byte column stands.
///
/// [`EXCERPT`]: crate::extract::EXCERPT
fn code_point_column(f: &Finding, p: Position) -> u64 {
    let Some(line) = f.excerpt.as_deref().filter(|_| p.line == f.start.line) else {
        return p.column;
    };
    let Some(upto) = p.column.checked_sub(f.excerpt_column) else { return p.column };
    // Through `p`'s own byte: the last byte of a span may continue a
    // character, which is then counted once, at its first byte.
    let upto = (upto as usize + 1).min(line.len());
    let continuing = line[..upto].iter().filter(|&&b| b & 0xc0 == 0x80).count() as u64;
    p.column - continuing
}

/// The relative URI reference SARIF wants for an input, made from the
/// path's exact bytes (RFC 3986): unreserved bytes and `/` as they are,
/// every other byte percent-encoded, so a `\` in a Unix name is `%5C` (not
/// a separator), a byte that is not UTF-8 is `%FF`, and a `:` is `%3A`
/// (`co:lon.txt` would otherwise read as an absolute URI of scheme `co`).
/// Percent-decoding the reference gives the path back.
pub fn sarif_uri(input: &Input) -> String {
    let raw = match input.raw_name() {
        Some(raw) => raw,
        None => input.shown().as_bytes(),
    };
    let raw = raw.strip_prefix(b"./").unwrap_or(raw);
    let mut out = String::with_capacity(raw.len());
    for &b in raw {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
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

/// Opens a JSON object with `"path"` (as [`Input::shown`] shows it) and,
/// for a name that is not UTF-8, `"path_base64"`: its exact bytes in
/// standard base64, so that a consumer can open the file.
fn json_path(out: &mut Vec<u8>, input: &Input) {
    out.extend_from_slice(b"{\"path\":");
    json_str(out, input.shown());
    if let Some(raw) = input.raw_name() {
        out.extend_from_slice(b",\"path_base64\":\"");
        base64(out, raw);
        out.push(b'"');
    }
}

fn base64(out: &mut Vec<u8>, bytes: &[u8]) {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for c in bytes.chunks(3) {
        let n = c.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= c.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{base64, sarif_uri};
    use crate::driver::Input;
    use std::os::unix::ffi::OsStrExt;
    use std::path::PathBuf;

    fn percent_decode(s: &str) -> Vec<u8> {
        let b = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' {
                out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                i += 3;
            } else {
                out.push(b[i]);
                i += 1;
            }
        }
        out
    }

    #[test]
    fn sarif_uris_are_relative_references_that_decode_to_the_path() {
        let names: [&[u8]; 8] = [
            b"docs/a.md",
            b"co:lon.txt",
            b"back\\slash/x.txt",
            b"bad/\xff\xfe.txt",
            b"sp ace%25/#frag?.txt",
            b"caf\xc3\xa9/\x1b]0;t\x07.md",
            b"./lead.txt",
            b"[v6]/x",
        ];
        for name in names {
            let path = PathBuf::from(std::ffi::OsStr::from_bytes(name));
            let shown = match path.to_str() {
                Some(s) => s.to_string(),
                None => String::from_utf8_lossy(name).into_owned(),
            };
            let uri = sarif_uri(&Input::File { path, shown });
            // A relative reference: no scheme, nothing a URI cannot hold.
            assert!(!uri.contains(':') && !uri.contains('\\') && !uri.contains('#'), "{uri}");
            assert!(uri.bytes().all(|b| b.is_ascii_graphic()), "{uri}");
            let want = name.strip_prefix(b"./").unwrap_or(name);
            assert_eq!(percent_decode(&uri), want, "{uri}");
        }
    }

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        // RFC 4648, section 10.
        let cases: [(&[u8], &str); 7] = [
            (b"", ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"fooba", "Zm9vYmE="),
            (b"foobar", "Zm9vYmFy"),
        ];
        for (raw, want) in cases {
            let mut out = Vec::new();
            base64(&mut out, raw);
            assert_eq!(String::from_utf8(out).unwrap(), want, "{raw:?}");
        }
        let mut out = Vec::new();
        base64(&mut out, b"caf\xe9.txt");
        assert_eq!(out, b"Y2Fm6S50eHQ=");
    }
}

/// `extract --unique`: wraps a printer so that each URL's output comes
/// framed with its key (the URL's bytes) and the document it is in, for
/// [`Unique`] to keep the first of each URL.
#[derive(Debug)]
pub struct Keyed<'e, E>(pub &'e E);

/// The frame before each URL's output: URL length, document, output
/// length (little-endian `u32`, `u64`, `u32`).
const FRAME: usize = 16;

impl<E: Emit> Emit for Keyed<'_, E> {
    fn emit(&self, input: &Input, u: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool {
        // A plain file is one document; a message or a record is one.
        let doc = match (cx.mail, cx.warc) {
            (Some(m), _) => m.message_index as u64 + 1,
            (_, Some(w)) => w.index + 1,
            _ => 0,
        };
        let at = out.len();
        out.extend_from_slice(&(u.url.len() as u32).to_le_bytes());
        out.extend_from_slice(&doc.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&u.url);
        let body = out.len();
        let failing = self.0.emit(input, u, cx, out);
        let len = (out.len() - body) as u32;
        out[at + 12..at + FRAME].copy_from_slice(&len.to_le_bytes());
        failing
    }
}

/// One distinct URL of [`Unique`].
#[derive(Debug)]
struct Seen {
    /// Its first output (kept only to print counts at the end).
    first: Vec<u8>,
    count: u64,
    files: u64,
    documents: u64,
    /// The last (file, document) it was seen in, to count each once.
    last: (u64, u64),
}

/// Keeps the first occurrence of each URL of a run, in input order, from
/// the framed output of [`Keyed`]; memory grows with the distinct URLs
/// only. Without counts, a URL's output is written when it is first seen;
/// with them, at the end, in first-seen order, with how many times it
/// occurred and in how many files and documents (a plain file, a mail
/// message or a WARC record).
#[derive(Debug)]
pub struct Unique {
    counts: bool,
    json: bool,
    index: std::collections::HashMap<Box<[u8]>, usize>,
    seen: Vec<Seen>,
}

impl Unique {
    /// `counts`: print the counts at the end; `json`: the output is
    /// [`ExtractJson`]'s (the counts go into each object).
    pub fn new(counts: bool, json: bool) -> Unique {
        Unique { counts, json, index: std::collections::HashMap::new(), seen: Vec::new() }
    }

    /// Reads the framed output `framed` of file number `file` (files
    /// numbered in input order), writing what is new to `w`.
    pub fn feed(&mut self, file: u64, framed: &[u8], w: &mut impl Write) -> std::io::Result<()> {
        let mut rest = framed;
        while rest.len() >= FRAME {
            let word = |i: usize, n: usize| {
                let mut b = [0u8; 8];
                b[..n].copy_from_slice(&rest[i..i + n]);
                u64::from_le_bytes(b) as usize
            };
            let (url_len, doc, out_len) = (word(0, 4), word(4, 8) as u64, word(12, 4));
            let url = &rest[FRAME..FRAME + url_len];
            let body = &rest[FRAME + url_len..FRAME + url_len + out_len];
            rest = &rest[FRAME + url_len + out_len..];
            let place = (file, doc);
            match self.index.get(url) {
                Some(&i) => {
                    let s = &mut self.seen[i];
                    s.count += 1;
                    if s.last != place {
                        s.documents += 1;
                        s.files += u64::from(s.last.0 != file);
                        s.last = place;
                    }
                }
                None => {
                    self.index.insert(url.into(), self.seen.len());
                    let first = if self.counts { body.to_vec() } else { Vec::new() };
                    self.seen.push(Seen { first, count: 1, files: 1, documents: 1, last: place });
                    if !self.counts {
                        w.write_all(body)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes the URLs with their counts, if counts were asked for.
    pub fn finish(self, w: &mut impl Write) -> std::io::Result<()> {
        if !self.counts {
            return Ok(());
        }
        for s in &self.seen {
            if self.json {
                // The object without its closing `}` and line break.
                let obj = s.first.strip_suffix(b"}\n").unwrap_or(&s.first);
                w.write_all(obj)?;
                writeln!(
                    w,
                    ",\"count\":{},\"files\":{},\"documents\":{}}}",
                    s.count, s.files, s.documents
                )?;
            } else {
                write!(w, "{}\t{}\t{}\t", s.count, s.files, s.documents)?;
                w.write_all(&s.first)?;
            }
        }
        Ok(())
    }
}

/// `lint --fix` and `--diff`: prints nothing; frames, for each URL with a
/// fix that applies, where it stands and what it becomes, for the writer
/// to make the edits file by file ([`take_edits`]). A URL counts as
/// failing by what is left of it once fixed.
#[derive(Debug)]
pub struct FixCollect<'s> {
    /// The run's settings, to check each URL again as it is fixed.
    pub sifter: &'s crate::extract::Sifter,
    /// The lowest severity that fails the run.
    pub fail_on: Severity,
    /// Apply the fixes that may change what a URL names.
    pub unsafe_fixes: bool,
}

/// The offset of a frame for a URL that has fixes but cannot be fixed
/// where it stands (decoded, rejoined, in mail or a compressed file).
const NOT_IN_PLACE: u64 = u64::MAX;

/// The offset of the frame before the edits of one URL.
const URL_MARK: u64 = u64::MAX - 1;

impl Emit for FixCollect<'_> {
    fn emit(&self, input: &Input, u: &Extracted, cx: Context<'_>, out: &mut Vec<u8>) -> bool {
        use crate::fix;
        let has_fix = |f: &Finding| {
            f.diagnostic.fix.is_some() && fix::applies(f.diagnostic.code, self.unsafe_fixes)
        };
        let (Input::File { path, .. }, true) = (input, u.findings.iter().any(has_fix)) else {
            return fails(u, self.fail_on);
        };
        let codes: Vec<_> = u.findings.iter().map(|f| f.diagnostic.code).collect();
        let sifter = self.sifter.for_path(path);
        let Some(new) = fix::fixed_url(sifter, &u.url, &codes, self.unsafe_fixes) else {
            return fails(u, self.fail_on);
        };
        let edits = (cx.mail.is_none()
            && cx.compressed.is_none()
            && cx.warc.is_none()
            && cx.record.is_none())
        .then(|| fix::edits_in_place(u, &new))
        .flatten();
        let Some(edits) = edits else {
            out.extend_from_slice(&NOT_IN_PLACE.to_le_bytes());
            out.extend_from_slice(&[0; 8]);
            return fails(u, self.fail_on);
        };
        // One mark per URL, then its edits.
        out.extend_from_slice(&URL_MARK.to_le_bytes());
        out.extend_from_slice(&[0; 8]);
        for e in &edits {
            out.extend_from_slice(&e.offset.to_le_bytes());
            out.extend_from_slice(&(e.old.len() as u32).to_le_bytes());
            out.extend_from_slice(&(e.new.len() as u32).to_le_bytes());
            out.extend_from_slice(&e.old);
            out.extend_from_slice(&e.new);
        }
        // Judged on what is left: the fixed URL's findings, of the codes
        // reported where it stands, and what reading it found (those are
        // not the grammar's: an unclosed wrapper stays unclosed).
        let left = sifter.check(&new).diagnostics;
        left.iter().any(|d| codes.contains(&d.code) && d.severity >= self.fail_on)
            || u.findings
                .iter()
                .any(|f| f.diagnostic.grammar.is_none() && f.diagnostic.severity >= self.fail_on)
    }
}

/// The edits framed by [`FixCollect`] in one file's output, in file
/// order, how many URLs they fix, and how many URLs had fixes that cannot
/// be made in place.
/// (A rejoined URL gives an edit per run it changes.)
pub fn take_edits(framed: &[u8]) -> (Vec<crate::fix::Edit>, u64, u64) {
    let (mut edits, mut urls, mut not_in_place, mut rest) = (Vec::new(), 0, 0, framed);
    while rest.len() >= 16 {
        let offset = u64::from_le_bytes(rest[..8].try_into().expect("8 bytes"));
        let old = u32::from_le_bytes(rest[8..12].try_into().expect("4 bytes")) as usize;
        let new = u32::from_le_bytes(rest[12..16].try_into().expect("4 bytes")) as usize;
        if offset == NOT_IN_PLACE {
            not_in_place += 1;
        } else if offset == URL_MARK {
            urls += 1;
        } else {
            edits.push(crate::fix::Edit {
                offset,
                old: rest[16..16 + old].to_vec(),
                new: rest[16 + old..16 + old + new].to_vec(),
            });
        }
        rest = &rest[16 + old + new..];
    }
    (edits, urls, not_in_place)
}
