//! `urlsift._urlsift`: the native half of the Python package. It hands
//! back the CLI's own JSON records (see `urlsift::driver::embed`), as one
//! JSON array per call that the Python half parses with `json.loads`
//! (Spark's half with Arrow's JSON reader, from JSON Lines): the records
//! cannot differ from `urlsift extract --json`, and the binding needs no
//! second description of them.
//!
//! Every scan runs with the GIL released (`Python::detach`), on bytes the
//! caller's object keeps alive (`PyBackedBytes`, no copy for `bytes`).

use std::path::PathBuf;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::PyBytes;
use urlsift::diag::Grammar;
use urlsift::driver::embed::{Command, JsonScan, Scanned, check_json};

fn grammar(name: Option<&str>) -> PyResult<Option<Grammar>> {
    name.map(|n| {
        Grammar::from_name(n).ok_or_else(|| {
            PyValueError::new_err(format!(
                "grammar must be one of modern, rfc3986, rfc1738 (or None), got {n:?}"
            ))
        })
    })
    .transpose()
}

fn command(name: &str) -> PyResult<Command> {
    match name {
        "extract" => Ok(Command::Extract),
        "lint" => Ok(Command::Lint),
        _ => Err(PyValueError::new_err(format!("command must be extract or lint, got {name:?}"))),
    }
}

fn scanner(cmd: &str, grammar_name: Option<&str>, input: &str, binary: bool) -> PyResult<JsonScan> {
    let scan = JsonScan::new(command(cmd)?, grammar(grammar_name)?, input)
        .map_err(PyValueError::new_err)?;
    Ok(scan.binary(binary))
}

/// JSON Lines as one JSON array: records hold no raw newline (the
/// printers escape it), so every newline ends a record.
fn as_array(lines: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.len() + 2);
    out.push(b'[');
    let body = lines.strip_suffix(b"\n").unwrap_or(lines);
    out.extend(body.iter().map(|&b| if b == b'\n' { b',' } else { b }));
    out.push(b']');
    out
}

/// What a scan gives Python: `(records as a JSON array, records as JSON
/// Lines or None, error, problems, binary)`.
type Out<'py> =
    (Bound<'py, PyBytes>, Option<Bound<'py, PyBytes>>, Option<String>, Vec<String>, bool);

fn out(py: Python<'_>, s: Scanned, lines: bool) -> Out<'_> {
    let (array, raw) = if lines {
        (PyBytes::new(py, b"[]"), Some(PyBytes::new(py, &s.json)))
    } else {
        (PyBytes::new(py, &as_array(&s.json)), None)
    };
    (array, raw, s.error, s.problems, s.binary)
}

enum Data {
    Bytes(PyBackedBytes),
    Str(PyBackedStr),
}

impl Data {
    fn as_bytes(&self) -> &[u8] {
        match self {
            Data::Bytes(b) => b,
            Data::Str(s) => s.as_bytes(),
        }
    }
}

/// Scans a buffer; `lines` returns JSON Lines instead of an array.
#[pyfunction]
#[pyo3(signature = (data, command, grammar, input, path, binary, lines))]
#[allow(clippy::too_many_arguments)]
fn scan_buffer<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    command: &str,
    grammar: Option<&str>,
    input: &str,
    path: Option<&str>,
    binary: bool,
    lines: bool,
) -> PyResult<Out<'py>> {
    let data = if let Ok(b) = data.extract::<PyBackedBytes>() {
        Data::Bytes(b)
    } else if let Ok(s) = data.extract::<PyBackedStr>() {
        Data::Str(s)
    } else {
        return Err(PyTypeError::new_err(format!(
            "data must be bytes, bytearray or str, not {}",
            data.get_type().name()?
        )));
    };
    let scan = scanner(command, grammar, input, binary)?;
    let path = path.map(str::to_owned);
    let s = py.detach(|| scan.buffer(data.as_bytes(), path.as_deref()));
    Ok(out(py, s, lines))
}

/// Scans a file, streamed; its records are named `shown`.
#[pyfunction]
#[pyo3(signature = (path, shown, command, grammar, input, binary, lines))]
#[allow(clippy::too_many_arguments)]
fn scan_file<'py>(
    py: Python<'py>,
    path: PathBuf,
    shown: &str,
    command: &str,
    grammar: Option<&str>,
    input: &str,
    binary: bool,
    lines: bool,
) -> PyResult<Out<'py>> {
    let scan = scanner(command, grammar, input, binary)?;
    let shown = shown.to_owned();
    let s = py.detach(|| {
        let mut json = Vec::new();
        let mut piece = |buf: &mut Vec<u8>| {
            json.append(buf);
            Ok(())
        };
        scan.file(&path, &shown, &mut piece).map(|mut s| {
            json.append(&mut s.json);
            s.json = json;
            s
        })
    })?;
    Ok(out(py, s, lines))
}

/// `urlsift check --json`: one object, as JSON.
#[pyfunction]
#[pyo3(signature = (url, grammar))]
fn check<'py>(
    py: Python<'py>,
    url: &Bound<'py, PyAny>,
    grammar: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let url: Vec<u8> = if let Ok(b) = url.extract::<PyBackedBytes>() {
        b.to_vec()
    } else if let Ok(s) = url.extract::<PyBackedStr>() {
        s.as_bytes().to_vec()
    } else {
        return Err(PyTypeError::new_err(format!(
            "url must be str or bytes, not {}",
            url.get_type().name()?
        )));
    };
    let g = self::grammar(grammar)?;
    let json = py.detach(|| check_json(&url, g));
    Ok(PyBytes::new(py, &json))
}

#[pymodule]
#[pyo3(name = "_urlsift")]
fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scan_buffer, m)?)?;
    m.add_function(wrap_pyfunction!(scan_file, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("INPUTS", urlsift::driver::embed::INPUT_NAMES.to_vec())?;
    Ok(())
}
