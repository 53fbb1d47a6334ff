//! What the server knows about one document: its URLs, read by the same
//! readers `lint` uses (chosen by the document's file name, with the
//! settings of the nearest `urlsift.toml`), and what they turn into in
//! the protocol: diagnostics, quick fixes, links and hovers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::SystemTime;

use lsp_types::{
    CodeAction, CodeActionKind, CodeDescription, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, DocumentLink, Hover, HoverContents, Location, MarkupContent, MarkupKind,
    NumberOrString, Range, TextEdit, Uri, WorkspaceEdit,
};

use super::text::{Encoding, Text};
use crate::config::{self, Config};
use crate::diag::Severity;
use crate::extract::{Extracted, Options, Scratch, Sifter};
use crate::fix::{self, Safety};
use crate::mail::{self, InputKind};

/// The settings for documents under one `urlsift.toml` (or none).
pub struct Profile {
    sifter: Sifter,
    keep_code: bool,
    /// `exclude` of the config: matched like the tree walk's `!GLOB`.
    exclude: Option<ignore::overrides::Override>,
    /// The config file's directory, where `exclude` globs start.
    base: Option<PathBuf>,
}

impl Profile {
    /// The settings of `cfg`, as `lint` without flags takes them.
    pub fn new(cfg: &Config) -> Result<Profile, String> {
        let base = cfg.path.as_ref().and_then(|p| p.parent()).map(Path::to_path_buf);
        let options = Options {
            grammar: cfg.grammar.unwrap_or_default(),
            show: cfg.show.clone(),
            grammar_for: cfg.grammar_for.clone(),
            glob_base: base.clone(),
            severities: cfg.severities.clone(),
            excerpts: false,
            allow_schemes: cfg.allow_schemes.clone(),
            deny_schemes: cfg.deny_schemes.clone(),
            ignore_urls: cfg.ignore_urls.clone(),
            formats: cfg.formats.clone(),
            rejected_by_findings_only: true,
            // Relative links are checked on disk as `lint` checks them:
            // the document's own anchors from the buffer, other files'
            // as saved.
            local_links: crate::links::LinkOptions {
                check: cfg.local_links != Some(false),
                list: false,
                root: cfg.root_dir.clone(),
            },
            // No network from an editor's keystrokes.
            online: None,
        };
        let sifter = Sifter::try_new(options)?;
        let exclude = match &base {
            Some(base) if !cfg.exclude.is_empty() => {
                let mut b = ignore::overrides::OverrideBuilder::new(base);
                for g in &cfg.exclude {
                    b.add(&format!("!{g}")).map_err(|e| format!("exclude: {e}"))?;
                }
                Some(b.build().map_err(|e| format!("exclude: {e}"))?)
            }
            _ => None,
        };
        Ok(Profile { sifter, keep_code: cfg.include_code.unwrap_or(false), exclude, base })
    }

    /// Whether `exclude` leaves out the file at `path` (or a directory
    /// it is in, which a walk would not enter).
    pub fn excludes(&self, path: &Path) -> bool {
        let (Some(ov), Some(base)) = (&self.exclude, &self.base) else { return false };
        if ov.matched(path, false).is_ignore() {
            return true;
        }
        path.ancestors()
            .skip(1)
            .take_while(|d| d.starts_with(base) && *d != base.as_path())
            .any(|d| ov.matched(d, true).is_ignore())
    }

    /// The engine for the document at `path`.
    fn sifter(&self, path: Option<&Path>) -> &Sifter {
        path.map_or(&self.sifter, |p| self.sifter.for_path(p))
    }
}

/// Profiles by config file, read again when the file changes.
#[derive(Default)]
pub struct Profiles {
    by_config: HashMap<PathBuf, (Option<SystemTime>, Arc<Profile>)>,
    default: Option<Arc<Profile>>,
}

impl Profiles {
    /// The profile for a document in `dir`: from the nearest
    /// `urlsift.toml` there or above (no higher than the repository root,
    /// as `lint` looks), else the defaults. A config file that cannot be
    /// read gives the defaults and, the first time it is seen in that
    /// state, the reason.
    pub fn for_dir(&mut self, dir: Option<&Path>) -> (Arc<Profile>, Option<String>) {
        let Some(path) = dir.and_then(config::discover) else { return (self.default(), None) };
        let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        if let Some((t, p)) = self.by_config.get(&path)
            && *t == mtime
        {
            return (p.clone(), None);
        }
        let (profile, error) =
            match config::load_discovered(&path).and_then(|cfg| Profile::new(&cfg)) {
                Ok(p) => (Arc::new(p), None),
                Err(e) => (self.default(), Some(e)),
            };
        self.by_config.insert(path, (mtime, profile.clone()));
        (profile, error)
    }

    fn default(&mut self) -> Arc<Profile> {
        self.default
            .get_or_insert_with(|| {
                Arc::new(Profile::new(&Config::default()).expect("the defaults are valid"))
            })
            .clone()
    }
}

/// One URL of a document.
#[derive(Debug)]
pub struct Found {
    /// The URL, its place and findings.
    pub url: Extracted,
    /// Read from the document's own bytes, not decoded out of mail: only
    /// then can a fix be made in the document.
    pub in_mail: bool,
}

/// A document's URLs at one version, with the text they were read from.
pub struct Scan {
    /// The document version scanned.
    pub version: i32,
    /// The text scanned: offsets in `urls` are offsets in it.
    pub text: Arc<Text>,
    /// The URLs, in order.
    pub urls: Vec<Found>,
    /// The profile they were judged with (for fixes, checked again).
    pub profile: Arc<Profile>,
    /// The document's path, if it has one (for `[[grammar-for]]`).
    pub path: Option<PathBuf>,
}

/// Bytes inspected for a NUL (binary), for mail detection and for the
/// format of a document without an extension, as the driver does.
const HEAD: usize = 8 * 1024;

/// Reads the URLs of `text`, the document at `path`, as `lint` reads
/// that file: the reader its name (or first bytes) chooses, mail and
/// news by their headers, binary (a NUL in the head) not at all.
pub fn scan(profile: Arc<Profile>, path: Option<PathBuf>, version: i32, text: Arc<Text>) -> Scan {
    let mut urls = Vec::new();
    let sifter = profile.sifter(path.as_deref());
    let bytes = text.as_str().as_bytes();
    let head = &bytes[..bytes.len().min(HEAD)];
    let excluded = path.as_deref().is_some_and(|p| profile.excludes(p));
    if !excluded && memchr::memchr(0, head).is_none() {
        let format = sifter.format_of(path.as_deref(), head);
        if format.is_document() {
            // Other files' anchors are read again for each scan: they may
            // have been edited and saved since the last one.
            if let Some((resolver, _, _)) = sifter.local_links() {
                resolver.forget();
            }
            let at = path.as_deref();
            crate::doc::extract_doc_at(sifter, format, bytes, at, profile.keep_code, |url| {
                urls.push(Found { url, in_mail: false })
            });
        } else {
            match mail::detect(head) {
                InputKind::Text => {
                    // Reading from memory cannot fail.
                    let _ = sifter.extract_reader(bytes, &mut Scratch::default(), |url| {
                        urls.push(Found { url, in_mail: false })
                    });
                }
                kind => {
                    let _ = mail::extract_mail_with(
                        sifter,
                        bytes,
                        kind,
                        None,
                        |m| urls.push(Found { url: m.url, in_mail: true }),
                        |_| {},
                    );
                }
            }
        }
    }
    Scan { version, text, urls, profile, path }
}

/// Where the URL is in the text: its first byte to past its last
/// character.
fn url_bytes(text: &Text, u: &Extracted) -> (usize, usize) {
    let start = u.start.offset as usize;
    (start, text.after_char(u.end.offset as usize).max(start))
}

impl Scan {
    /// The diagnostics to publish, one per finding; a finding's other
    /// places (the same problem elsewhere in the URL) are its related
    /// information.
    pub fn diagnostics(&self, uri: &Uri, enc: Encoding) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for f in &self.urls {
            for i in 0..f.url.findings.len() {
                out.push(self.diagnostic(uri, &f.url, i, enc));
            }
        }
        out
    }

    fn diagnostic(&self, uri: &Uri, u: &Extracted, i: usize, enc: Encoding) -> Diagnostic {
        let f = &u.findings[i];
        let d = &f.diagnostic;
        let range = |s: crate::span::Position, e: crate::span::Position| {
            let start = s.offset as usize;
            let end =
                if e.offset < s.offset { start } else { self.text.after_char(e.offset as usize) };
            self.text.range(start, end, enc)
        };
        let related: Vec<DiagnosticRelatedInformation> = f
            .extra_spans
            .iter()
            .map(|&(s, e)| DiagnosticRelatedInformation {
                location: Location::new(uri.clone(), range(s, e)),
                message: format!("{} here too", d.code),
            })
            .collect();
        Diagnostic {
            range: range(f.start, f.end),
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Note => DiagnosticSeverity::INFORMATION,
            }),
            code: Some(NumberOrString::String(d.code.to_string())),
            code_description: Uri::from_str(&crate::printer::help_uri(d.code))
                .ok()
                .map(|href| CodeDescription { href }),
            source: Some("urlsift".into()),
            message: d.message.clone(),
            related_information: (!related.is_empty()).then_some(related),
            tags: None,
            data: None,
        }
    }

    /// The URL whose text holds byte `offset`.
    fn url_at(&self, offset: usize) -> Option<&Found> {
        self.urls.iter().find(|f| {
            let (s, e) = url_bytes(&self.text, &f.url);
            s <= offset && offset < e.max(s + 1)
        })
    }

    /// A link for every URL that is a URI the client can open (a URL
    /// broken across lines is one link over all its lines, opening the
    /// rejoined URL); one that is not becomes one through its safe fixes
    /// (a space encoded), or gets no link.
    pub fn links(&self, enc: Encoding) -> Vec<DocumentLink> {
        let mut out = Vec::new();
        for f in &self.urls {
            let u = &f.url;
            let target = Uri::from_str(&u.url_lossy()).ok().or_else(|| {
                let codes: Vec<_> = u.findings.iter().map(|f| f.diagnostic.code).collect();
                let sifter = self.profile.sifter(self.path.as_deref());
                let fixed = fix::fixed_url(sifter, &u.url, &codes, false)?;
                Uri::from_str(std::str::from_utf8(&fixed).ok()?).ok()
            });
            let Some(target) = target else { continue };
            let (s, e) = url_bytes(&self.text, u);
            let tooltip = (u.start.line != u.end.line)
                .then(|| format!("Open {} (rejoined)", target.as_str()));
            out.push(DocumentLink {
                range: self.text.range(s, e, enc),
                target: Some(target),
                tooltip,
                data: None,
            });
        }
        out
    }

    /// What hovering over byte `offset` shows: the URL as rejoined, its
    /// scheme and verdict, and each finding with its explanation.
    pub fn hover(&self, offset: usize, enc: Encoding) -> Option<Hover> {
        let f = self.url_at(offset)?;
        let u = &f.url;
        let url = u.url_lossy();
        let scheme = url.split_once(':').map_or("", |(s, _)| s).to_ascii_lowercase();
        let mut md = format!("**URL** {}\n\n", code_span(&url));
        let lines = u.end.line - u.start.line + 1;
        let mut facts = vec![format!("scheme {}", code_span(&scheme)), u.kind.as_str().to_string()];
        if lines > 1 {
            facts.push(format!("rejoined from {lines} lines"));
        }
        if u.in_code {
            facts.push("in code".into());
        }
        let errors = u.findings.iter().filter(|f| f.diagnostic.severity == Severity::Error).count();
        facts.push(match (errors, u.findings.len()) {
            (0, 0) => "**valid**".into(),
            (0, n) => format!("**valid**, {n} finding{}", plural(n)),
            (e, _) => format!("**invalid**: {e} error{}", plural(e)),
        });
        if !u.rejected_by.is_empty() {
            let names: Vec<_> = u.rejected_by.iter().map(|g| g.as_str()).collect();
            facts.push(format!("not valid under {}", names.join(", ")));
        }
        md.push_str(&facts.join(" · "));
        md.push('\n');
        for f in &u.findings {
            let d = &f.diagnostic;
            md.push_str(&format!(
                "\n---\n\n**{}** `{}`: {}\n\n{} {}\n",
                d.severity,
                d.code,
                escape_markdown(&d.message),
                d.code.summary(),
                d.code.reason()
            ));
            if let Some(fix) = &d.fix {
                let how = match fix::safety(d.code) {
                    Some(Safety::Safe) => "safe fix",
                    _ => "unsafe fix",
                };
                md.push_str(&format!("\n{how}: {}\n", code_span(fix)));
            }
        }
        let (s, e) = url_bytes(&self.text, u);
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: md,
            }),
            range: Some(self.text.range(s, e, enc)),
        })
    }

    /// The code actions for `range`: a quick fix for each fix of each
    /// finding on a URL that overlaps it (safe ones preferred, unsafe ones
    /// said to be so), and "fix all safe" for the document when it has a
    /// safe fix anywhere. URLs decoded out of mail, or whose text is not
    /// the document's own bytes, get none: a fix could not be put where
    /// they stand.
    pub fn code_actions(
        &self,
        uri: &Uri,
        range: Range,
        only: Option<&[CodeActionKind]>,
        enc: Encoding,
    ) -> Vec<CodeAction> {
        let wanted = |k: &CodeActionKind| {
            only.is_none_or(|only| {
                only.iter().any(|o| {
                    k.as_str() == o.as_str() || k.as_str().starts_with(&format!("{}.", o.as_str()))
                })
            })
        };
        let (lo, hi) = (self.text.offset(range.start, enc), self.text.offset(range.end, enc));
        let sifter = self.profile.sifter(self.path.as_deref());
        let mut out = Vec::new();
        if wanted(&CodeActionKind::QUICKFIX) {
            for f in &self.urls {
                let u = &f.url;
                let (s, e) = url_bytes(&self.text, u);
                if f.in_mail || e < lo || s > hi {
                    continue;
                }
                for (i, finding) in u.findings.iter().enumerate() {
                    let d = &finding.diagnostic;
                    let (Some(fixed), Some(safety)) = (&d.fix, fix::safety(d.code)) else {
                        continue;
                    };
                    let Some(edit) = self.edit(uri, u, fixed.as_bytes(), enc) else { continue };
                    let unsafe_note = if safety == Safety::Unsafe { " (unsafe)" } else { "" };
                    out.push(CodeAction {
                        title: format!("Fix {}: write {fixed}{unsafe_note}", d.code),
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![self.diagnostic(uri, u, i, enc)]),
                        edit: Some(edit),
                        is_preferred: Some(safety == Safety::Safe),
                        ..CodeAction::default()
                    });
                }
            }
        }
        let fix_all = CodeActionKind::new("source.fixAll.urlsift");
        if wanted(&fix_all) {
            let mut edits = Vec::new();
            for f in self.urls.iter().filter(|f| !f.in_mail) {
                let u = &f.url;
                let codes: Vec<_> = u.findings.iter().map(|f| f.diagnostic.code).collect();
                if let Some(fixed) = fix::fixed_url(sifter, &u.url, &codes, false)
                    && let Some(mut e) = self.text_edits(u, &fixed, enc)
                {
                    edits.append(&mut e);
                }
            }
            if !edits.is_empty() {
                out.push(CodeAction {
                    title: "Fix all safe urlsift findings".into(),
                    kind: Some(fix_all),
                    edit: Some(WorkspaceEdit {
                        changes: Some(HashMap::from([(uri.clone(), edits)])),
                        ..WorkspaceEdit::default()
                    }),
                    ..CodeAction::default()
                });
            }
        }
        out
    }

    fn edit(&self, uri: &Uri, u: &Extracted, fixed: &[u8], enc: Encoding) -> Option<WorkspaceEdit> {
        let edits = self.text_edits(u, fixed, enc)?;
        Some(WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        })
    }

    /// The text edits that put `fixed` in place of `u` (see
    /// [`fix::edits_in_place`]), or `None` when they cannot be made: the
    /// URL is not the document's own bytes, or an edit would not replace
    /// what stands there, or would cut a character.
    fn text_edits(&self, u: &Extracted, fixed: &[u8], enc: Encoding) -> Option<Vec<TextEdit>> {
        let text = self.text.as_str();
        let mut out = Vec::new();
        for e in fix::edits_in_place(u, fixed)? {
            let start = usize::try_from(e.offset).ok()?;
            let end = start.checked_add(e.old.len())?;
            if text.as_bytes().get(start..end)? != e.old.as_slice()
                || !text.is_char_boundary(start)
                || !text.is_char_boundary(end)
            {
                return None;
            }
            let new_text = String::from_utf8(e.new).ok()?;
            out.push(TextEdit { range: self.text.range(start, end, enc), new_text });
        }
        Some(out)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `s` as a Markdown code span: fenced with more backticks than any run
/// in it, so a URL holding a backtick cannot end it early.
fn code_span(s: &str) -> String {
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// `s` with Markdown's punctuation escaped, so a message quoting a URL
/// shows as text, not markup.
fn escape_markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\`*_{}[]()<>#+-.!|~&".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_outlast_backticks() {
        assert_eq!(code_span("http://a/"), "`http://a/`");
        assert_eq!(code_span("http://a/``b"), "```http://a/``b```");
        assert_eq!(code_span("`x"), "`` `x ``");
    }

    #[test]
    fn markdown_in_messages_is_text() {
        assert_eq!(escape_markdown("a *b* [c](d)"), "a \\*b\\* \\[c\\]\\(d\\)");
    }

    #[test]
    fn findings_map_to_utf16_ranges_and_fixes_to_edits() {
        let profile = Arc::new(Profile::new(&Config::default()).unwrap());
        let text = Arc::new(Text::new("é𝄞 http://h.example/a|b\n".into()));
        let s = scan(profile, None, 1, text);
        let uri = Uri::from_str("file:///t.txt").unwrap();
        let diags = s.diagnostics(&uri, Encoding::Utf16);
        let bar = diags.iter().find(|d| d.message.contains('|')).expect("the | is reported");
        // `|` at byte 25 is UTF-16 column 22 (é: 1 unit, 𝄞: 2).
        assert_eq!((bar.range.start.character, bar.range.end.character), (22, 23));
        let whole = Range::new(lsp_types::Position::new(0, 0), lsp_types::Position::new(1, 0));
        let actions = s.code_actions(&uri, whole, None, Encoding::Utf16);
        let all = actions.iter().find(|a| a.title.starts_with("Fix all")).expect("fix all");
        let edits = &all.edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri];
        assert_eq!(edits.len(), 1);
        assert_eq!(edits[0].new_text, "http://h.example/a%7Cb");
    }
}
