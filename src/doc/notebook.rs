//! The Jupyter notebook reader: the cells' text, each read as its cell
//! type, every byte traced to the `.ipynb` file.
//!
//! A notebook is JSON; a cell's `source` is a string or a list of strings
//! (one per line, each ending in `\n`), so read as plain text every line's
//! URL would end in `\n` and its quotes. Each cell's strings are decoded
//! and joined, then read as what the cell is: Markdown cells by the
//! Markdown reader, code cells as Python source (comments and strings
//! prose, the rest code), raw cells as prose. The maps compose
//! ([`super::DocBuilder::append_over`]), so a URL is placed in the
//! `.ipynb` file, at the escape's `\` when it starts with one.
//!
//! Outputs are read as code: what a run printed (`stream` text, the
//! `text/plain` of results and displays) is found, marked `in_code`, and
//! not linted unless asked. It is a transcript, not text a maintainer
//! wrote: its URLs change when the notebook is run again (local servers,
//! download progress, object reprs) and cannot be fixed by editing it.
//! HTML and Markdown renderings of a result duplicate its `text/plain`
//! (Jupyter writes that for every result) and are left out, as are
//! images and widget state (base64 and JSON blobs) and error tracebacks
//! (ANSI-coloured noise). Top-level metadata is not read.

use std::ops::Range;

use super::strings::{Dialect, JsonLexer, Tok, decode_escapes, read_code};
use super::{Doc, DocBuilder, Role, markdown};

/// What a JSON value is, where the reader stands in the notebook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    /// Nothing the reader wants.
    Skip,
    /// The top-level object (or an nbformat 3 worksheet).
    Top,
    /// The `worksheets` list of an nbformat 3 notebook.
    Worksheets,
    /// The `cells` list.
    Cells,
    /// One cell.
    Cell,
    /// A cell's `cell_type`.
    CellType,
    /// A cell's `source` (nbformat 3: `input` of code cells), a string or
    /// a list of them.
    Source,
    /// A cell's `outputs` list.
    Outputs,
    /// One output.
    Output,
    /// An output's `text`, or the `text/plain` of its data: a string or a
    /// list of them.
    OutText,
    /// An output's `data` bundle.
    Data,
}

/// A container being read, and what its current key names.
struct Frame {
    ctx: Ctx,
    /// An object (else a list).
    obj: bool,
    /// What the next value is: the current key's value in an object, the
    /// elements' kind in a list.
    value: Ctx,
    /// The next string is a key (objects only).
    expect_key: bool,
}

/// The kind of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CellKind {
    Markdown,
    Code,
    Raw,
}

/// One cell as read so far.
#[derive(Default)]
struct Cell {
    kind: Option<CellKind>,
    source: Vec<Range<usize>>,
    /// Each output's text strings, in file order.
    outputs: Vec<Vec<Range<usize>>>,
    /// The output being read.
    output: Vec<Range<usize>>,
}

/// Reads a notebook. One forward pass over the JSON tokens with a stack
/// of open containers (on the heap, so deep nesting costs memory in
/// step with the input, never recursion); a cell is emitted when it
/// closes, as its type may come after its source.
pub(super) fn read(src: &[u8]) -> Doc {
    let mut b = DocBuilder::new(src);
    let mut stack: Vec<Frame> = Vec::new();
    let mut cell = Cell::default();
    for tok in JsonLexer::new(src) {
        let value = stack.last().map_or(Ctx::Top, |f| f.value);
        match tok {
            Tok::Open(c) => {
                let obj = c == b'{';
                let ctx = match (value, obj) {
                    (Ctx::Top, true) => Ctx::Top,
                    (Ctx::Worksheets, false) => Ctx::Worksheets,
                    (Ctx::Worksheets, true) => Ctx::Top,
                    (Ctx::Cells, false) => Ctx::Cells,
                    (Ctx::Cells, true) => {
                        cell = Cell::default();
                        Ctx::Cell
                    }
                    (Ctx::Source, false) => Ctx::Source,
                    (Ctx::Outputs, false) => Ctx::Outputs,
                    (Ctx::Outputs, true) => {
                        cell.output.clear();
                        Ctx::Output
                    }
                    (Ctx::OutText, false) => Ctx::OutText,
                    (Ctx::Data, true) => Ctx::Data,
                    _ => Ctx::Skip,
                };
                let value = if obj { Ctx::Skip } else { ctx };
                stack.push(Frame { ctx, obj, value, expect_key: obj });
            }
            Tok::Close(_) => match stack.pop().map(|f| f.ctx) {
                Some(Ctx::Cell) => emit(&mut b, &mut cell),
                Some(Ctx::Output) if !cell.output.is_empty() => {
                    let out = std::mem::take(&mut cell.output);
                    cell.outputs.push(out);
                }
                _ => {}
            },
            Tok::Comma => {
                if let Some(top) = stack.last_mut().filter(|f| f.obj) {
                    top.expect_key = true;
                    top.value = Ctx::Skip;
                }
            }
            Tok::Str(r) => {
                if let Some(top) = stack.last_mut().filter(|f| f.obj && f.expect_key) {
                    top.expect_key = false;
                    top.value = key_value(top.ctx, &src[r]);
                    continue;
                }
                match value {
                    Ctx::CellType => {
                        cell.kind = match &src[r] {
                            b"markdown" | b"heading" => Some(CellKind::Markdown),
                            b"code" => Some(CellKind::Code),
                            _ => Some(CellKind::Raw),
                        }
                    }
                    Ctx::Source => cell.source.push(r),
                    Ctx::OutText => cell.output.push(r),
                    _ => {}
                }
            }
            Tok::Colon | Tok::Comment(_) | Tok::Other => {}
        }
    }
    b.finish()
}

/// What the value of key `key` in a container of kind `ctx` is.
fn key_value(ctx: Ctx, key: &[u8]) -> Ctx {
    match (ctx, key) {
        (Ctx::Top, b"cells") => Ctx::Cells,
        (Ctx::Top, b"worksheets") => Ctx::Worksheets,
        (Ctx::Cell, b"cell_type") => Ctx::CellType,
        (Ctx::Cell, b"source" | b"input") => Ctx::Source,
        (Ctx::Cell, b"outputs") => Ctx::Outputs,
        (Ctx::Output, b"text") => Ctx::OutText,
        (Ctx::Output, b"data") => Ctx::Data,
        (Ctx::Data, b"text/plain") => Ctx::OutText,
        _ => Ctx::Skip,
    }
}

/// Appends a finished cell: its outputs and its source, in file order,
/// each a stretch of its own.
fn emit(b: &mut DocBuilder, cell: &mut Cell) {
    let mut parts: Vec<(usize, Option<&[Range<usize>]>)> =
        cell.outputs.iter().filter_map(|o| Some((o.first()?.start, Some(&o[..])))).collect();
    if let Some(first) = cell.source.first() {
        parts.push((first.start, None));
    }
    parts.sort_by_key(|p| p.0);
    for (at, part) in parts {
        let ranges = part.unwrap_or(&cell.source);
        let mut inner = DocBuilder::new(b.src());
        for r in ranges {
            decode_escapes(&mut inner, r.clone(), false);
        }
        let inner = inner.finish();
        if inner.text.is_empty() {
            continue;
        }
        let end = ranges.last().map_or(at, |r| r.end);
        b.brk(at);
        let s = b.len();
        match (part, cell.kind) {
            (Some(_), _) => {
                b.append_runs(&inner, None);
                b.mark(s, Role::Code);
            }
            (None, Some(CellKind::Markdown)) => b.append_over(&markdown::read(&inner.text), &inner),
            (None, Some(CellKind::Code)) => {
                b.append_over(&read_code(&inner.text, Dialect::PYTHON), &inner)
            }
            (None, _) => b.append_runs(&inner, None),
        }
        b.brk(end);
    }
    *cell = Cell::default();
}
