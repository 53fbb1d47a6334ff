//! The schemes of RFC 1738 that have a server and are not HTTP, each
//! checked with the least its protocol allows: ftp (log in, then `SIZE`
//! or `CWD`), gopher (the selector's first line), telnet (the
//! connection), news and nntp (`GROUP`, `STAT`). No data connection is
//! ever opened and nothing is downloaded.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use super::target::{Target, decode, decode_bytes};
use super::{Outcome, Settings};

/// The longest reply line read from a server: a bound, so a server that
/// never sends a line break cannot make the check read forever.
const MAX_LINE: u64 = 4096;

/// A connection to `host:port` within the timeout, trying each address
/// the name resolves to.
pub(super) fn connect(host: &str, port: u16, timeout: Duration) -> Result<TcpStream, Outcome> {
    let addrs: Vec<_> = match (host, port).to_socket_addrs() {
        Ok(a) => a.collect(),
        Err(e) => return Err(Outcome::Dns(e.to_string())),
    };
    if addrs.is_empty() {
        return Err(Outcome::Dns("the name has no address".into()));
    }
    let deadline = Instant::now() + timeout;
    let mut last = Outcome::Refused;
    for a in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Outcome::Timeout);
        }
        match TcpStream::connect_timeout(&a, left) {
            Ok(s) => {
                let _ = s.set_read_timeout(Some(timeout));
                let _ = s.set_write_timeout(Some(timeout));
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = io_outcome(&e),
        }
    }
    Err(last)
}

/// What an I/O error says about a link.
pub(super) fn io_outcome(e: &io::Error) -> Outcome {
    match e.kind() {
        io::ErrorKind::ConnectionRefused => Outcome::Refused,
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => Outcome::Timeout,
        _ => Outcome::Protocol(format!("connection failed: {e}")),
    }
}

/// One reply line (CRLF or LF), at most [`MAX_LINE`] bytes, lossy UTF-8.
fn line<R: BufRead>(r: &mut R) -> Result<String, Outcome> {
    let mut buf = Vec::new();
    match io::Read::take(&mut *r, MAX_LINE).read_until(b'\n', &mut buf) {
        Ok(0) => Err(Outcome::Protocol("the server closed the connection".into())),
        Ok(_) => {
            while matches!(buf.last(), Some(b'\n' | b'\r')) {
                buf.pop();
            }
            Ok(String::from_utf8_lossy(&buf).into_owned())
        }
        Err(e) => Err(io_outcome(&e)),
    }
}

/// An FTP or NNTP reply: its three-digit code and its text. FTP's
/// multi-line replies (`123-` ... `123 `) are read to their end.
fn reply(r: &mut impl BufRead) -> Result<(u16, String), Outcome> {
    let first = line(r)?;
    let code: u16 = first
        .get(..3)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| Outcome::Protocol(format!("not a reply: `{}`", short(&first))))?;
    if first.as_bytes().get(3) == Some(&b'-') {
        let end = format!("{code} ");
        // Bounded: a server that never ends its reply times out.
        for _ in 0..1000 {
            let l = line(r)?;
            if l.starts_with(&end) {
                break;
            }
        }
    }
    Ok((code, first))
}

fn short(s: &str) -> String {
    s.chars().take(80).collect()
}

fn send(w: &mut TcpStream, command: &str) -> Result<(), Outcome> {
    w.write_all(command.as_bytes()).and_then(|()| w.write_all(b"\r\n")).map_err(|e| io_outcome(&e))
}

/// A command whose argument comes from the URL: a CR or LF in it would
/// be a second command (RFC 1738 section 6), so the link is not checked.
fn safe(arg: &str) -> Result<&str, Outcome> {
    if arg.contains(['\r', '\n']) {
        Err(Outcome::Skipped("an encoded line break in the URL would be sent as a command"))
    } else {
        Ok(arg)
    }
}

/// ftp: log in (anonymously unless the URL names a user), `CWD` into
/// each directory of the path, then `SIZE` the file, or `CWD` it when
/// it is a directory (`;type=d`, a trailing `/`, or no `SIZE` answer).
pub(super) fn ftp(t: &Target<'_>, s: &Settings) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        let stream = connect(&t.host, t.port, s.timeout)?;
        let mut w = stream.try_clone().map_err(|e| io_outcome(&e))?;
        let mut r = BufReader::new(stream);
        let (c, text) = reply(&mut r)?;
        if c != 220 {
            return Ok(Outcome::Protocol(format!("greeting: {}", short(&text))));
        }
        let user = t.user.as_deref().unwrap_or("anonymous");
        send(&mut w, &format!("USER {}", safe(user)?))?;
        let (mut c, mut text) = reply(&mut r)?;
        if c == 331 {
            let pass = t.password.as_deref().unwrap_or("urlsift@");
            send(&mut w, &format!("PASS {}", safe(pass)?))?;
            (c, text) = reply(&mut r)?;
        }
        if c != 230 {
            return Ok(Outcome::Protocol(format!("login refused: {}", short(&text))));
        }
        // RFC 1738 3.2.2: the path's segments, each decoded, one CWD each.
        let path = t.rest.split('?').next().unwrap_or("");
        let (path, typecode) = match path.rfind(";type=") {
            Some(i) => (&path[..i], Some(&path[i + 6..])),
            None => (path, None),
        };
        let path = path.strip_prefix('/').unwrap_or(path);
        let dir_link = typecode == Some("d") || path.is_empty() || path.ends_with('/');
        let mut segments: Vec<String> =
            path.split('/').filter(|s| !s.is_empty()).map(decode).collect();
        let last = if dir_link { None } else { segments.pop() };
        for seg in &segments {
            send(&mut w, &format!("CWD {}", safe(seg)?))?;
            let (c, text) = reply(&mut r)?;
            if c == 550 || c / 100 == 5 {
                return Ok(Outcome::NotFound(format!("FTP {}", short(&text))));
            }
        }
        let outcome = match last {
            None => Outcome::Alive,
            Some(name) => {
                send(&mut w, &format!("SIZE {}", safe(&name)?))?;
                let (c, text) = reply(&mut r)?;
                if c == 213 {
                    Outcome::Alive
                } else {
                    // No SIZE (a directory, or a server without it): a
                    // directory answers CWD.
                    send(&mut w, &format!("CWD {}", safe(&name)?))?;
                    let (c2, _) = reply(&mut r)?;
                    if c2 / 100 == 2 {
                        Outcome::Alive
                    } else {
                        Outcome::NotFound(format!("FTP {}", short(&text)))
                    }
                }
            }
        };
        let _ = send(&mut w, "QUIT");
        Ok(outcome)
    };
    run().unwrap_or_else(|o| o)
}

/// gopher: send the selector (the path after its item type), read the
/// first line; a menu line of item type `3` is the server's error.
pub(super) fn gopher(t: &Target<'_>, s: &Settings) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        // RFC 4266: `/` then one character of item type, then the
        // selector, percent-decoded; a search's `%09` stays a tab.
        let path = t.rest.strip_prefix('/').unwrap_or(t.rest);
        let selector = path.get(1..).unwrap_or("");
        let selector = decode_bytes(selector);
        if selector.contains(&b'\n') || selector.contains(&b'\r') {
            return Ok(Outcome::Skipped(
                "an encoded line break in the URL would be sent as a command",
            ));
        }
        let mut stream = connect(&t.host, t.port, s.timeout)?;
        stream
            .write_all(&selector)
            .and_then(|()| stream.write_all(b"\r\n"))
            .map_err(|e| io_outcome(&e))?;
        let mut r = BufReader::new(stream);
        let first = match line(&mut r) {
            Ok(l) => l,
            Err(Outcome::Protocol(_)) => {
                return Ok(Outcome::NotFound("gopher: the server sent nothing".into()));
            }
            Err(o) => return Err(o),
        };
        Ok(if first.starts_with('3') && first.contains('\t') {
            let text = first[1..].split('\t').next().unwrap_or("");
            Outcome::NotFound(format!("gopher error: {}", short(text)))
        } else {
            Outcome::Alive
        })
    };
    run().unwrap_or_else(|o| o)
}

/// telnet: a connection, nothing said.
pub(super) fn telnet(t: &Target<'_>, s: &Settings) -> Outcome {
    match connect(&t.host, t.port, s.timeout) {
        Ok(_) => Outcome::Alive,
        Err(o) => o,
    }
}

/// news and nntp: `GROUP` for a group, `STAT` for an article (by number
/// in the group, or by message id). `news:` names no server: the one of
/// `--nntp-server` or `$NNTPSERVER`.
pub(super) fn nntp(t: &Target<'_>, s: &Settings) -> Outcome {
    let (host, port, group, article) = if t.scheme == "news" {
        let Some(server) = s.nntp_server.as_deref() else {
            return Outcome::Skipped("news: names no server (set --nntp-server or $NNTPSERVER)");
        };
        let (h, p) = match server.rsplit_once(':') {
            Some((h, p)) if p.parse::<u16>().is_ok() => (h, p.parse().unwrap_or(119)),
            _ => (server, 119),
        };
        let body = decode(t.rest);
        if body == "*" {
            return Outcome::Skipped("news:* names every group");
        }
        if body.contains('@') {
            let id = if body.starts_with('<') { body } else { format!("<{body}>") };
            (h.to_owned(), p, None, Some(id))
        } else {
            (h.to_owned(), p, Some(body), None)
        }
    } else {
        let mut parts = t.rest.trim_start_matches('/').splitn(2, '/');
        let group = parts.next().map(decode).filter(|g| !g.is_empty());
        let article = parts.next().map(decode).filter(|a| !a.is_empty());
        (t.host.clone(), t.port, group, article)
    };
    let run = || -> Result<Outcome, Outcome> {
        let stream = connect(&host, port, s.timeout)?;
        let mut w = stream.try_clone().map_err(|e| io_outcome(&e))?;
        let mut r = BufReader::new(stream);
        let (c, text) = reply(&mut r)?;
        if c != 200 && c != 201 {
            return Ok(Outcome::Protocol(format!("greeting: {}", short(&text))));
        }
        let mut outcome = Outcome::Alive;
        if let Some(g) = &group {
            send(&mut w, &format!("GROUP {}", safe(g)?))?;
            let (c, text) = reply(&mut r)?;
            match c {
                211 => {}
                411 => outcome = Outcome::NotFound(format!("NNTP {}", short(&text))),
                _ => outcome = Outcome::Protocol(format!("GROUP: {}", short(&text))),
            }
        }
        if let (Outcome::Alive, Some(a)) = (&outcome, &article) {
            send(&mut w, &format!("STAT {}", safe(a)?))?;
            let (c, text) = reply(&mut r)?;
            match c {
                223 => {}
                423 | 430 => outcome = Outcome::NotFound(format!("NNTP {}", short(&text))),
                _ => outcome = Outcome::Protocol(format!("STAT: {}", short(&text))),
            }
        }
        let _ = send(&mut w, "QUIT");
        Ok(outcome)
    };
    run().unwrap_or_else(|o| o)
}
