//! The schemes of RFC 1738 that have a server and are not HTTP, each
//! checked with the least its protocol allows: ftp (log in, then `SIZE`
//! or `CWD`), gopher (the selector's first line), telnet (the
//! connection), news and nntp (`GROUP`, `STAT`). No data connection is
//! ever opened and nothing is downloaded.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Instant;

use super::target::{Target, decode, decode_bytes};
use super::{Outcome, Settings};

/// The longest reply line read from a server: a bound, so a server that
/// never sends a line break cannot make the check read forever.
const MAX_LINE: u64 = 4096;

/// The addresses `host` resolves to, within the time left: the system's
/// resolver blocks with no bound of its own, so it runs on a thread of
/// its own, left to finish alone when it is too slow.
fn resolve(host: &str, port: u16, deadline: Instant) -> Result<Vec<SocketAddr>, Outcome> {
    let (tx, rx) = std::sync::mpsc::channel();
    let name = host.to_owned();
    std::thread::Builder::new()
        .name("urlsift-resolve".into())
        .spawn(move || {
            let _ = tx.send((name.as_str(), port).to_socket_addrs().map(|a| a.collect::<Vec<_>>()));
        })
        .map_err(|e| Outcome::Protocol(format!("no thread to resolve the name: {e}")))?;
    match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(a)) if !a.is_empty() => Ok(a),
        Ok(Ok(_)) => Err(Outcome::Dns("the name has no address".into())),
        Ok(Err(e)) => Err(Outcome::Dns(e.to_string())),
        Err(_) => Err(Outcome::Timeout),
    }
}

/// A connection to `host:port` before `deadline`, trying each address
/// the name resolves to.
pub(super) fn connect(host: &str, port: u16, deadline: Instant) -> Result<TcpStream, Outcome> {
    let addrs = resolve(host, port, deadline)?;
    let mut last = Outcome::Refused;
    for a in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Outcome::Timeout);
        }
        match TcpStream::connect_timeout(&a, left) {
            Ok(s) => {
                let _ = s.set_read_timeout(Some(left));
                let _ = s.set_write_timeout(Some(left));
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

/// A reply read against the check's deadline: a server that sends a
/// byte now and then cannot hold the check past it.
struct Reader {
    r: BufReader<TcpStream>,
    deadline: Instant,
}

impl Reader {
    fn new(s: TcpStream, deadline: Instant) -> Reader {
        Reader { r: BufReader::new(s), deadline }
    }
}

/// One reply line (CRLF or LF), at most [`MAX_LINE`] bytes, lossy UTF-8.
fn line(rd: &mut Reader) -> Result<String, Outcome> {
    let left = rd.deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(Outcome::Timeout);
    }
    let _ = rd.r.get_ref().set_read_timeout(Some(left));
    let r = &mut rd.r;
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
fn reply(r: &mut Reader) -> Result<(u16, String), Outcome> {
    let first = line(r)?;
    let code: u16 = first
        .get(..3)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| Outcome::Protocol(format!("not a reply: `{}`", short(&first))))?;
    if first.as_bytes().get(3) == Some(&b'-') {
        let end = format!("{code} ");
        // Bounded by the deadline: a server that never ends its reply
        // times out.
        loop {
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
        let deadline = Instant::now() + s.timeout;
        let stream = connect(&t.host, t.port, deadline)?;
        let mut w = stream.try_clone().map_err(|e| io_outcome(&e))?;
        let mut r = Reader::new(stream, deadline);
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
        // RFC 1738 3.2.2: the path's segments, each decoded, one CWD each
        // (an ftp URL has no query: a `?` is part of a name).
        let path = t.rest;
        let (path, typecode) = match path.to_ascii_lowercase().rfind(";type=") {
            Some(i) => (&path[..i], Some(path[i + 6..].to_ascii_lowercase())),
            None => (path, None),
        };
        let path = path.strip_prefix('/').unwrap_or(path);
        let dir_link = typecode.as_deref() == Some("d") || path.is_empty() || path.ends_with('/');
        let mut segments: Vec<String> =
            path.split('/').filter(|s| !s.is_empty()).map(decode).collect();
        let last = if dir_link { None } else { segments.pop() };
        // 2xx: there; 550: not there; anything else says nothing about
        // the file (a busy server, a command refused), and is not kept.
        let judge = |c: u16, text: &str| match c {
            200..=299 => None,
            550 => Some(Outcome::NotFound(format!("FTP {}", short(text)))),
            _ => Some(Outcome::Protocol(format!("FTP {}", short(text)))),
        };
        for seg in &segments {
            send(&mut w, &format!("CWD {}", safe(seg)?))?;
            let (c, text) = reply(&mut r)?;
            if let Some(o) = judge(c, &text) {
                return Ok(o);
            }
        }
        let outcome = match last {
            None => Outcome::Alive,
            Some(name) => {
                // SIZE in ASCII mode is refused by many servers (ProFTPD).
                send(&mut w, "TYPE I")?;
                reply(&mut r)?;
                send(&mut w, &format!("SIZE {}", safe(&name)?))?;
                let (c, text) = reply(&mut r)?;
                if c == 213 {
                    Outcome::Alive
                } else {
                    // No size (a directory, or a server without SIZE): a
                    // directory answers CWD, a file MDTM.
                    send(&mut w, &format!("CWD {}", safe(&name)?))?;
                    let (c2, _) = reply(&mut r)?;
                    if c2 / 100 == 2 {
                        Outcome::Alive
                    } else if c == 550 {
                        Outcome::NotFound(format!("FTP {}", short(&text)))
                    } else {
                        send(&mut w, &format!("MDTM {}", safe(&name)?))?;
                        let (c3, text3) = reply(&mut r)?;
                        match c3 {
                            213 => Outcome::Alive,
                            550 => Outcome::NotFound(format!("FTP {}", short(&text3))),
                            _ => Outcome::Protocol(format!(
                                "FTP: neither SIZE nor MDTM answered: {}",
                                short(&text)
                            )),
                        }
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
        let deadline = Instant::now() + s.timeout;
        let mut stream = connect(&t.host, t.port, deadline)?;
        stream
            .write_all(&selector)
            .and_then(|()| stream.write_all(b"\r\n"))
            .map_err(|e| io_outcome(&e))?;
        let mut r = Reader::new(stream, deadline);
        let first = line(&mut r)?;
        // Servers answer a missing selector of any type with an error
        // item, a menu line of type `3`. A menu (or a search's answer) is
        // menu lines; for another type, where a text file might start
        // with `3`, only a whole menu line (four fields, the last a port)
        // counts.
        let menu = matches!(path.as_bytes().first(), None | Some(b'1' | b'7'));
        let fields: Vec<&str> = first.get(1..).unwrap_or("").split('\t').collect();
        let whole = fields.len() >= 4 && fields[3].trim().parse::<u16>().is_ok();
        Ok(if first.starts_with('3') && fields.len() > 1 && (menu || whole) {
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
    match connect(&t.host, t.port, Instant::now() + s.timeout) {
        Ok(_) => Outcome::Alive,
        Err(o) => o,
    }
}

/// news and nntp: `GROUP` for a group, `STAT` for an article (by number
/// in the group, or by message id). `news:` names no server: the one of
/// `--nntp-server` or `$NNTPSERVER`.
pub(super) fn nntp(t: &Target<'_>, s: &Settings) -> Outcome {
    let (host, port, group, article) = if t.scheme == "news" {
        // RFC 5538's `news://server/group` names its server.
        let (h, p, body) = if !t.host.is_empty() {
            (t.host.clone(), t.port, decode(t.rest.trim_start_matches('/')))
        } else {
            let Some(server) = s.nntp_server.as_deref() else {
                return Outcome::Skipped(
                    "news: names no server (set --nntp-server or $NNTPSERVER)",
                );
            };
            let (h, p) = server_port(server);
            (h, p, decode(t.rest))
        };
        if body == "*" {
            return Outcome::Skipped("news:* names every group");
        }
        if body.contains('@') {
            let id = if body.starts_with('<') { body } else { format!("<{body}>") };
            (h, p, None, Some(id))
        } else {
            (h, p, Some(body), None)
        }
    } else {
        let mut parts = t.rest.trim_start_matches('/').splitn(2, '/');
        let group = parts.next().map(decode).filter(|g| !g.is_empty());
        let article = parts.next().map(decode).filter(|a| !a.is_empty());
        (t.host.clone(), t.port, group, article)
    };
    let run = || -> Result<Outcome, Outcome> {
        let deadline = Instant::now() + s.timeout;
        let stream = connect(&host, port, deadline)?;
        let mut w = stream.try_clone().map_err(|e| io_outcome(&e))?;
        let mut r = Reader::new(stream, deadline);
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

/// `host`, `host:port`, `[v6]` or `[v6]:port`: the host and the port
/// (119 when none is given).
fn server_port(server: &str) -> (String, u16) {
    if let Some(v6) = server.strip_prefix('[')
        && let Some((h, rest)) = v6.split_once(']')
    {
        return (h.to_owned(), rest.strip_prefix(':').and_then(|p| p.parse().ok()).unwrap_or(119));
    }
    match server.rsplit_once(':') {
        // A bare IPv6 address has colons and no port.
        Some((h, p)) if !h.contains(':') => (h.to_owned(), p.parse().unwrap_or(119)),
        _ => (server.to_owned(), 119),
    }
}

#[cfg(test)]
mod tests {
    use super::server_port;

    #[test]
    fn servers_and_ports() {
        assert_eq!(server_port("news.example.org"), ("news.example.org".into(), 119));
        assert_eq!(server_port("news.example.org:1119"), ("news.example.org".into(), 1119));
        assert_eq!(server_port("[::1]:563"), ("::1".into(), 563));
        assert_eq!(server_port("[::1]"), ("::1".into(), 119));
        assert_eq!(server_port("::1"), ("::1".into(), 119));
    }
}
