//! A farm of slow web servers on the loopback address, for benchmarking
//! online checks (`benches/online.sh`): HOSTS servers on 127.0.0.x, each
//! answering every request `200 OK` after LATENCY milliseconds, and a
//! Markdown file of URLS links spread over them in turn. Runs until its
//! standard input closes (or for --seconds), then prints what it served.
//!
//! ```text
//! cargo run --release --example linkfarm -- --hosts 50 --urls 2000 \
//!     --latency-ms 20 --out /tmp/farm.md
//! ```

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

fn arg(args: &[String], name: &str, default: &str) -> String {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_string())
}

fn serve(c: TcpStream, latency: Duration, served: &AtomicUsize) {
    let _ = c.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = c.set_nodelay(true);
    let mut r = BufReader::new(c.try_clone().expect("clone"));
    let mut w = c;
    // Keep-alive: a client may send several requests on one connection.
    loop {
        let mut first = String::new();
        if r.read_line(&mut first).unwrap_or(0) == 0 {
            return;
        }
        let mut close = false;
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            if h.trim().is_empty() {
                break;
            }
            close |= h.to_ascii_lowercase().starts_with("connection: close");
        }
        thread::sleep(latency);
        let head = first.starts_with("HEAD");
        let body = "ok\n";
        // One write: in pieces, Nagle's algorithm and the client's
        // delayed ACK would add 40 ms to each reply.
        let mut reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: text/plain\r\n\r\n",
            body.len()
        );
        if !head {
            reply.push_str(body);
        }
        let _ = w.write_all(reply.as_bytes());
        served.fetch_add(1, Ordering::Relaxed);
        if close {
            return;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let hosts: usize = arg(&args, "--hosts", "50").parse().expect("--hosts N");
    let urls: usize = arg(&args, "--urls", "2000").parse().expect("--urls N");
    let latency =
        Duration::from_millis(arg(&args, "--latency-ms", "20").parse().expect("--latency-ms N"));
    let out = arg(&args, "--out", "/tmp/linkfarm.md");
    let seconds: u64 = arg(&args, "--seconds", "3600").parse().expect("--seconds N");
    let served = Arc::new(AtomicUsize::new(0));
    let mut ports = Vec::new();
    // Each server on an address of its own (127.0.0.1, 127.0.0.2, ...:
    // all loopback on Linux), so that a checker that counts hosts by
    // address alone, without the port, sees as many hosts.
    for k in 0..hosts {
        let ip = format!("127.0.{}.{}", k / 200, k % 200 + 1);
        let l = TcpListener::bind((ip.as_str(), 0)).expect("bind a loopback address");
        ports.push((ip, l.local_addr().expect("addr").port()));
        let served = Arc::clone(&served);
        thread::spawn(move || {
            for c in l.incoming().flatten() {
                let served = Arc::clone(&served);
                thread::spawn(move || serve(c, latency, &served));
            }
        });
    }
    let mut md = String::from("# Links\n\n");
    for i in 0..urls {
        let (ip, port) = &ports[i % hosts];
        md.push_str(&format!("- [page {i}](http://{ip}:{port}/docs/page-{i}.html)\n"));
    }
    std::fs::write(&out, md).expect("write the link list");
    println!("{out}: {urls} links on {hosts} servers, {} ms each", latency.as_millis());
    let _ = std::io::stdout().flush();
    let started = Instant::now();
    // Until standard input closes, or the time is up.
    let done = Arc::new(AtomicUsize::new(0));
    let d2 = Arc::clone(&done);
    thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
        d2.store(1, Ordering::Relaxed);
    });
    while done.load(Ordering::Relaxed) == 0 && started.elapsed() < Duration::from_secs(seconds) {
        thread::sleep(Duration::from_millis(100));
    }
    eprintln!("linkfarm: served {} requests", served.load(Ordering::Relaxed));
}
