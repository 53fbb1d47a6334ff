//! The wire: JSON-RPC messages framed by `Content-Length` headers.
//!
//! lsp-server's own stdio reader ends at the first message that is not
//! valid JSON-RPC, which takes the server down with it; this one answers
//! such a message with a JSON-RPC error and reads on. The messages
//! themselves are lsp-server's.

use std::io::{self, BufRead, Read, Write};

use lsp_server::Message;
use serde_json::Value;

/// The largest message read: a document of this size is far past what
/// an editor sends, and a corrupt length must not allocate gigabytes.
const MAX_BODY: usize = 256 << 20;

/// What the reader got.
#[derive(Debug)]
pub enum Incoming {
    /// A message.
    Message(Message),
    /// A message that was not one: the JSON-RPC error code to answer with
    /// (parse error, invalid request), the request's id when it had a
    /// readable one, and why.
    Malformed {
        /// -32700 or -32600.
        code: i32,
        /// The `id` of the broken request, if it has one.
        id: Option<Value>,
        /// What was wrong.
        message: String,
    },
}

/// Reads the next framed message; `None` at the end of the input.
pub fn read(r: &mut impl BufRead) -> io::Result<Option<Incoming>> {
    let mut length: Option<Result<usize, String>> = None;
    let mut line = String::new();
    let mut any = false;
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let l = line.trim_end_matches(['\r', '\n']);
        if l.is_empty() {
            if any {
                break;
            }
            // Stray blank lines between messages are passed over.
            continue;
        }
        any = true;
        if let Some((name, value)) = l.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = Some(
                value.trim().parse::<usize>().map_err(|_| format!("bad Content-Length {value:?}")),
            );
        }
    }
    let malformed = |message: String| {
        Ok(Some(Incoming::Malformed {
            code: lsp_server::ErrorCode::ParseError as i32,
            id: None,
            message,
        }))
    };
    let length = match length {
        None => return malformed("a message without Content-Length".into()),
        Some(Err(e)) => return malformed(e),
        Some(Ok(n)) => n,
    };
    if length > MAX_BODY {
        io::copy(&mut r.take(length as u64), &mut io::sink())?;
        return malformed(format!("a message of {length} bytes is too large"));
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body)?;
    Ok(Some(parse(&body)))
}

/// A message from its JSON body.
pub fn parse(body: &[u8]) -> Incoming {
    match serde_json::from_slice::<Message>(body) {
        Ok(m) => Incoming::Message(m),
        Err(e) => match serde_json::from_slice::<Value>(body) {
            Ok(v) => Incoming::Malformed {
                code: lsp_server::ErrorCode::InvalidRequest as i32,
                id: v.get("id").filter(|id| id.is_number() || id.is_string()).cloned(),
                message: format!("not a JSON-RPC request, response or notification: {e}"),
            },
            Err(e) => Incoming::Malformed {
                code: lsp_server::ErrorCode::ParseError as i32,
                id: None,
                message: format!("not JSON: {e}"),
            },
        },
    }
}

/// Writes one message.
pub fn write(w: &mut impl Write, m: Message) -> io::Result<()> {
    m.write(w)
}

/// Writes the error response to a message that was not one (its id, or
/// null when it had none, as JSON-RPC asks).
pub fn write_error(
    w: &mut impl Write,
    code: i32,
    id: Option<Value>,
    message: &str,
) -> io::Result<()> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": { "code": code, "message": message },
    })
    .to_string();
    write!(w, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(s: &str) -> Vec<Incoming> {
        let mut r = io::Cursor::new(s.as_bytes().to_vec());
        std::iter::from_fn(|| read(&mut r).unwrap()).collect()
    }

    #[test]
    fn reads_on_after_broken_messages() {
        let ok = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let input = format!(
            "Content-Length: 5\r\n\r\n{{oops\
             Content-Length: 20\r\n\r\n{{\"jsonrpc\":\"2.0\",\"id\":7}}\
             X-Other: 1\r\n\r\n\
             Content-Length: {}\r\n\r\n{ok}",
            ok.len()
        );
        // The second body is cut at its declared length: 20 bytes of it.
        let got = frames(&input);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(matches!(&got[0], Incoming::Malformed { code: -32700, id: None, .. }));
        assert!(matches!(&got[1], Incoming::Malformed { code: -32700, .. }));
        assert!(matches!(&got[2], Incoming::Malformed { code: -32700, .. }));
        assert!(matches!(&got[3], Incoming::Message(Message::Notification(_))));
        let body = br#"{"jsonrpc":"2.0","id":7}"#;
        assert!(matches!(parse(body), Incoming::Malformed { code: -32600, id: Some(_), .. }));
    }
}
