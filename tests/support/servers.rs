//! Small servers for the online tests, on 127.0.0.1 only: HTTP, FTP,
//! gopher and NNTP, each answering a few fixed paths, counting the
//! requests it is sent and how many it serves at once. Each stops when
//! its handle is dropped; a connection that stays open longer than ten
//! seconds is closed, so no test can hang on one.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// What a server saw.
#[derive(Default)]
pub struct Seen {
    /// Requests (HTTP) or connections (the others).
    pub requests: AtomicUsize,
    /// Requests being served right now, and the most at once.
    pub now: AtomicUsize,
    pub most: AtomicUsize,
    /// Requests by path (HTTP: `METHOD /path`).
    pub by_path: Mutex<HashMap<String, usize>>,
    /// Headers seen with each request (HTTP), lower-case names.
    pub headers: Mutex<Vec<(String, String)>>,
    /// Bytes of a huge body written before the client went away.
    pub huge_written: AtomicUsize,
}

/// A server running on a thread; stopped when dropped.
pub struct Server {
    pub port: u16,
    pub seen: Arc<Seen>,
    stop: Arc<AtomicBool>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Runs `handle` per connection. `counts_itself`: the handler ends its
/// own count of requests at once (HTTP does, before it replies).
fn serve(handle: fn(TcpStream, &Seen, Duration), delay: Duration, counts_itself: bool) -> Server {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let seen = Arc::new(Seen::default());
    let stop = Arc::new(AtomicBool::new(false));
    let (s2, stop2) = (Arc::clone(&seen), Arc::clone(&stop));
    thread::spawn(move || {
        for c in l.incoming() {
            if stop2.load(Ordering::SeqCst) {
                break;
            }
            let Ok(c) = c else { continue };
            let _ = c.set_read_timeout(Some(Duration::from_secs(10)));
            let _ = c.set_write_timeout(Some(Duration::from_secs(10)));
            let s3 = Arc::clone(&s2);
            thread::spawn(move || {
                let n = s3.now.fetch_add(1, Ordering::SeqCst) + 1;
                s3.most.fetch_max(n, Ordering::SeqCst);
                s3.requests.fetch_add(1, Ordering::SeqCst);
                handle(c, &s3, delay);
                if !counts_itself {
                    s3.now.fetch_sub(1, Ordering::SeqCst);
                }
            });
        }
    });
    Server { port, seen, stop }
}

/// The HTTP server. Paths:
/// `/ok`, `/gone` (404), `/410`, `/500`, `/403-head` (403 to HEAD, 200 to
/// GET), `/nohead` (405 to HEAD), `/moved` (301 to /ok), `/moved2` (308
/// to /moved), `/temp` (302 to /ok), `/loop1` and `/loop2` (302 to each
/// other), `/away` (301 to a refused port: `/away?to=PORT`), `/slow` (3 s),
/// `/busy` (429 with `Retry-After: 1` the first time, then 200),
/// `/huge` (405 to HEAD; GET: 200 and a 10 GB body, written slowly),
/// `/page` (HTML with `id="here"` and `<a name="there">`). Every
/// response waits `delay` first, and closes the connection.
pub fn http(delay: Duration) -> Server {
    serve(http_conn, delay, true)
}

fn http_conn(c: TcpStream, seen: &Seen, delay: Duration) {
    let mut r = BufReader::new(c.try_clone().unwrap());
    let mut w = c;
    let mut first = String::new();
    if r.read_line(&mut first).unwrap_or(0) == 0 {
        seen.now.fetch_sub(1, Ordering::SeqCst);
        return;
    }
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            seen.headers
                .lock()
                .unwrap()
                .push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let n = {
        let mut m = seen.by_path.lock().unwrap();
        let e = m.entry(format!("{method} {path}")).or_default();
        *e += 1;
        let all: usize =
            m.iter().filter(|(k, _)| k.ends_with(&format!(" {path}"))).map(|(_, v)| v).sum();
        all
    };
    thread::sleep(delay);
    // Served, as far as the count of requests at once goes: the client
    // can only start another in this slot once it has the reply, which
    // is written after this. (Counting to the end of the handler would
    // overlap the client's next request.)
    seen.now.fetch_sub(1, Ordering::SeqCst);
    let head = method == "HEAD";
    let reply = |w: &mut TcpStream, status: &str, extra: &str, body: &str| {
        let _ = write!(
            w,
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
            body.len()
        );
        if !head {
            let _ = w.write_all(body.as_bytes());
        }
        let _ = w.flush();
    };
    match path {
        "/ok" => reply(&mut w, "200 OK", "Content-Type: text/plain\r\n", "fine\n"),
        "/gone" => reply(&mut w, "404 Not Found", "", "no\n"),
        "/410" => reply(&mut w, "410 Gone", "", "no\n"),
        "/500" => reply(&mut w, "500 Internal Server Error", "", "oops\n"),
        "/403-head" if head => reply(&mut w, "403 Forbidden", "", ""),
        "/403-head" => reply(&mut w, "200 OK", "", "fine\n"),
        "/nohead" if head => reply(&mut w, "405 Method Not Allowed", "Allow: GET\r\n", ""),
        "/nohead" => reply(&mut w, "200 OK", "", "fine\n"),
        "/moved" => reply(&mut w, "301 Moved Permanently", "Location: /ok\r\n", ""),
        "/moved2" => reply(&mut w, "308 Permanent Redirect", "Location: /moved\r\n", ""),
        "/temp" => reply(&mut w, "302 Found", "Location: /ok\r\n", ""),
        "/loop1" => reply(&mut w, "302 Found", "Location: /loop2\r\n", ""),
        "/loop2" => reply(&mut w, "302 Found", "Location: /loop1\r\n", ""),
        "/away" => {
            let to = query.strip_prefix("to=").unwrap_or("9");
            let loc = format!("Location: http://127.0.0.1:{to}/x\r\n");
            reply(&mut w, "301 Moved Permanently", &loc, "")
        }
        "/slow" => {
            thread::sleep(Duration::from_secs(3));
            reply(&mut w, "200 OK", "", "late\n")
        }
        "/busy" if n == 1 => reply(&mut w, "429 Too Many Requests", "Retry-After: 1\r\n", ""),
        "/busy" => reply(&mut w, "200 OK", "", "now\n"),
        "/huge" if head => reply(&mut w, "405 Method Not Allowed", "", ""),
        "/huge" => {
            let _ = write!(
                w,
                "HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\nConnection: close\r\n\r\n"
            );
            let chunk = [b'x'; 16384];
            // At most 10 s of writing: ends when the client goes away.
            for _ in 0..1000 {
                if w.write_all(&chunk).is_err() {
                    break;
                }
                seen.huge_written.fetch_add(chunk.len(), Ordering::SeqCst);
                thread::sleep(Duration::from_millis(10));
            }
        }
        "/page" => reply(
            &mut w,
            "200 OK",
            "Content-Type: text/html; charset=utf-8\r\n",
            "<!doctype html><h1 id=\"here\">Here</h1><a name=\"there\"></a><p>text</p>",
        ),
        _ => reply(&mut w, "404 Not Found", "", "no\n"),
    }
}

/// An FTP server (control connection only): any login; directories
/// `/pub` and `/pub/docs`; files `/pub/a.txt` and `/readme`.
pub fn ftp() -> Server {
    serve(ftp_conn, Duration::ZERO, false)
}

fn ftp_conn(c: TcpStream, _: &Seen, _: Duration) {
    let mut r = BufReader::new(c.try_clone().unwrap());
    let mut w = c;
    let _ = w.write_all(b"220-urlsift test server\r\n220 ready\r\n");
    let mut cwd = String::from("/");
    let mut line = String::new();
    for _ in 0..50 {
        line.clear();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let l = line.trim_end();
        let (cmd, arg) = l.split_once(' ').unwrap_or((l, ""));
        let path = |a: &str| if a.starts_with('/') { a.to_string() } else { format!("{}{a}", cwd) };
        let reply = match cmd {
            "USER" => "331 password please".to_string(),
            "PASS" => "230 logged in".to_string(),
            "CWD" => {
                let p = path(arg);
                if p == "/pub" || p == "/pub/docs" {
                    cwd = format!("{p}/");
                    "250 ok".to_string()
                } else {
                    "550 no such directory".to_string()
                }
            }
            "SIZE" => match path(arg).as_str() {
                "/pub/a.txt" => "213 42".to_string(),
                "/readme" => "213 7".to_string(),
                _ => "550 no such file".to_string(),
            },
            "QUIT" => {
                let _ = w.write_all(b"221 bye\r\n");
                return;
            }
            _ => "502 not implemented".to_string(),
        };
        let _ = write!(w, "{reply}\r\n");
    }
}

/// A gopher server: selectors `` (the root menu) and `/docs`; anything
/// else gets an error item (type 3).
pub fn gopher() -> Server {
    serve(gopher_conn, Duration::ZERO, false)
}

fn gopher_conn(c: TcpStream, _: &Seen, _: Duration) {
    let mut r = BufReader::new(c.try_clone().unwrap());
    let mut w = c;
    let mut sel = String::new();
    let _ = r.read_line(&mut sel);
    let sel = sel.trim_end_matches(['\r', '\n']);
    let body = match sel {
        "" | "/docs" => {
            "iWelcome\t\terror.host\t1\r\n0Readme\t/readme\tlocalhost\t70\r\n.\r\n".to_string()
        }
        _ => "3Not found\t\terror.host\t1\r\n.\r\n".to_string(),
    };
    let _ = w.write_all(body.as_bytes());
}

/// An NNTP server: group `comp.lang.rust` with articles 1 to 10, and
/// the message id `<abc@example.org>`.
pub fn nntp() -> Server {
    serve(nntp_conn, Duration::ZERO, false)
}

fn nntp_conn(c: TcpStream, _: &Seen, _: Duration) {
    let mut r = BufReader::new(c.try_clone().unwrap());
    let mut w = c;
    let _ = w.write_all(b"200 urlsift test news server\r\n");
    let mut group = false;
    let mut line = String::new();
    for _ in 0..20 {
        line.clear();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let l = line.trim_end();
        let (cmd, arg) = l.split_once(' ').unwrap_or((l, ""));
        let reply = match cmd {
            "GROUP" if arg == "comp.lang.rust" => {
                group = true;
                "211 10 1 10 comp.lang.rust"
            }
            "GROUP" => "411 no such group",
            "STAT" if arg == "<abc@example.org>" => "223 0 <abc@example.org>",
            "STAT" if group && arg.parse::<u32>().is_ok_and(|n| (1..=10).contains(&n)) => {
                "223 found"
            }
            "STAT" if arg.starts_with('<') => "430 no such article",
            "STAT" => "423 no such article number",
            "QUIT" => {
                let _ = w.write_all(b"205 bye\r\n");
                return;
            }
            _ => "500 what?",
        };
        let _ = write!(w, "{reply}\r\n");
    }
}

/// A server that answers any connection at once with a plain HTTP
/// error, before reading a byte: what a TLS client meets on a port that
/// does not speak TLS.
pub fn plain_talker() -> Server {
    serve(plain_conn, Duration::ZERO, false)
}

fn plain_conn(mut c: TcpStream, _: &Seen, _: Duration) {
    let _ = c.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    let _ = c.shutdown(std::net::Shutdown::Write);
    drain(c);
}

/// A port with nothing listening (bound, then closed).
pub fn refused_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Reads whatever is left, for a server that must see the client leave.
pub fn drain(mut c: TcpStream) {
    let mut b = [0u8; 1024];
    while c.read(&mut b).is_ok_and(|n| n > 0) {}
}
