//! `--online` (issue 21): every check against servers the test starts on
//! 127.0.0.1 (HTTP, FTP, gopher, NNTP, and a port with nothing on it);
//! no other address is ever asked. Each server closes a connection held
//! past ten seconds, and every run here has a time-out of a few seconds.

#![cfg(feature = "online")]

#[path = "../support/servers.rs"]
mod servers;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn urlsift_in(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urlsift"));
    cmd.current_dir(dir).args(args);
    // A proxy of the environment must not stand between the test and
    // its own servers.
    for v in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
        cmd.env_remove(v);
    }
    cmd.env_remove("NNTPSERVER");
    cmd.output().expect("run urlsift")
}

/// `lint --json --online` on `text` as a Markdown file: code and message
/// by URL (one finding each here), and the run's output.
fn lint(
    dir: &Path,
    text: &str,
    extra: &[&str],
) -> (HashMap<String, Vec<(String, String)>>, Output) {
    std::fs::write(dir.join("links.md"), text).unwrap();
    let mut args = vec![
        "lint",
        "--json",
        "--no-config",
        "--online",
        "--online-include",
        "^[a-z]+://127\\.0\\.0\\.1[:/]",
        "--online-timeout",
        "2",
        "--retries",
        "1",
    ];
    args.extend_from_slice(extra);
    args.push("links.md");
    let out = urlsift_in(dir, &args);
    let mut by: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for line in String::from_utf8(out.stdout.clone()).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        by.entry(v["url"].as_str().unwrap().to_string()).or_default().push((
            v["code"].as_str().unwrap().to_string(),
            v["message"].as_str().unwrap().to_string(),
        ));
    }
    (by, out)
}

fn codes(by: &HashMap<String, Vec<(String, String)>>, url: &str) -> Vec<String> {
    by.get(url).map(|v| v.iter().map(|(c, _)| c.clone()).collect()).unwrap_or_default()
}

#[test]
fn http_outcomes_each_get_their_code() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::ZERO);
    let refused = servers::refused_port();
    let base = format!("http://127.0.0.1:{}", s.port);
    let url = |p: &str| format!("{base}{p}");
    let mut text = String::from("# Links\n\n");
    for p in [
        "/ok",
        "/gone",
        "/410",
        "/500",
        "/403-head",
        "/nohead",
        "/moved",
        "/moved2",
        "/temp",
        "/loop1",
        "/slow",
        "/busy",
    ] {
        text.push_str(&format!("- <{}>\n", url(p)));
    }
    let away = url(&format!("/away?to={refused}"));
    text.push_str(&format!("- <{away}>\n- <http://127.0.0.1:{refused}/nothing>\n"));
    // TLS to a server that speaks plain HTTP: the handshake fails.
    let plain = servers::plain_talker();
    let tls = format!("https://127.0.0.1:{}/ok", plain.port);
    text.push_str(&format!("- <{tls}>\n"));
    text.push_str("- [in code](x) `http://127.0.0.1:9/code`\n");
    text.push_str(&format!("- again: {}\n", url("/gone")));
    let (by, out) = lint(dir.path(), &text, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for p in ["/ok", "/403-head", "/nohead", "/busy"] {
        assert_eq!(codes(&by, &url(p)), Vec::<String>::new(), "{p}: {by:?} {stderr}");
    }
    assert_eq!(codes(&by, &url("/gone")), ["link-not-found", "link-not-found"], "both places");
    assert_eq!(codes(&by, &url("/410")), ["link-not-found"]);
    assert_eq!(codes(&by, &url("/500")), ["link-http-status"]);
    assert_eq!(codes(&by, &url("/moved")), ["link-redirected"]);
    assert_eq!(codes(&by, &url("/moved2")), ["link-redirected"]);
    assert_eq!(codes(&by, &url("/temp")), ["link-redirected"]);
    assert_eq!(codes(&by, &url("/loop1")), ["link-protocol-error"]);
    assert!(by[&url("/loop1")][0].1.contains("loop"), "{:?}", by[&url("/loop1")]);
    assert_eq!(codes(&by, &url("/slow")), ["link-timeout"]);
    assert_eq!(codes(&by, &away), ["link-refused"]);
    assert_eq!(codes(&by, &format!("http://127.0.0.1:{refused}/nothing")), ["link-refused"]);
    assert!(codes(&by, "http://127.0.0.1:9/code").is_empty(), "code is not checked");
    assert_eq!(codes(&by, &tls), ["link-tls-failure"], "{:?}", by.get(&tls));
    // An error fails the run.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // The code inside backticks was never asked for; the 429 was asked
    // twice, after the second the server's Retry-After.
    let m = s.seen.by_path.lock().unwrap();
    assert_eq!(m.get("HEAD /busy"), Some(&2), "{m:?}");
    assert!(!m.keys().any(|k| k.contains("/code")));
    // Every request named urlsift.
    let h = s.seen.headers.lock().unwrap();
    assert!(h.iter().filter(|(k, _)| k == "user-agent").all(|(_, v)| v.starts_with("urlsift/")));
}

#[test]
fn permanent_redirects_carry_a_fix_and_temporary_ones_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::ZERO);
    let base = format!("http://127.0.0.1:{}", s.port);
    let text = format!("See {base}/moved2 and {base}/temp.\n");
    std::fs::write(dir.path().join("a.txt"), &text).unwrap();
    let args = [
        "lint",
        "--json",
        "--no-config",
        "--no-cache",
        "--online",
        "--online-include",
        "127\\.0\\.0\\.1",
        "a.txt",
    ];
    let out = urlsift_in(dir.path(), &args);
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    let moved = lines.iter().find(|l| l["url"].as_str().unwrap().ends_with("/moved2")).unwrap();
    assert_eq!(moved["fix"], format!("{base}/ok"));
    assert_eq!(moved["severity"], "note");
    assert_eq!((moved["line"].as_u64(), moved["column"].as_u64()), (Some(1), Some(5)));
    let temp = lines.iter().find(|l| l["url"].as_str().unwrap().ends_with("/temp")).unwrap();
    assert!(temp.get("fix").is_none_or(|f| f.is_null()), "{temp}");
    // Notes do not fail the run.
    assert_eq!(out.status.code(), Some(0));
    // `--fix` leaves a redirect alone (the server may send a reader to
    // its home page); `--unsafe-fixes` puts the final URL in place of
    // the permanent one.
    let args = [
        "lint",
        "--no-config",
        "--no-cache",
        "--fix",
        "--online",
        "--online-include",
        "127\\.0\\.0\\.1",
        "a.txt",
    ];
    urlsift_in(dir.path(), &args);
    assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), text);
    let fixed = urlsift_in(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "--no-cache",
            "--fix",
            "--unsafe-fixes",
            "--online",
            "--online-include",
            "127\\.0\\.0\\.1",
            "a.txt",
        ],
    );
    assert_eq!(fixed.status.code(), Some(0), "{}", String::from_utf8_lossy(&fixed.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        format!("See {base}/ok and {base}/temp.\n")
    );
}

#[test]
fn a_huge_body_is_never_downloaded() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::ZERO);
    let t = Instant::now();
    let (by, _) =
        lint(dir.path(), &format!("<http://127.0.0.1:{}/huge>\n", s.port), &["--no-cache"]);
    assert!(by.is_empty(), "{by:?}");
    // 10 GB at 1.6 MB/s would take hours; the check ends at the headers.
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    std::thread::sleep(Duration::from_millis(300));
    assert!(s.seen.huge_written.load(Ordering::SeqCst) < 4 << 20);
}

#[test]
fn no_more_than_the_per_host_limit_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::from_millis(20));
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!("http://127.0.0.1:{}/ok?n={i}\n", s.port));
    }
    std::fs::write(dir.path().join("many.txt"), &text).unwrap();
    for limit in ["2", "5"] {
        s.seen.most.store(0, Ordering::SeqCst);
        let out = urlsift_in(
            dir.path(),
            &[
                "lint",
                "--no-config",
                "--no-cache",
                "--online",
                "--online-include",
                "127",
                "--per-host",
                limit,
                "many.txt",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let most = s.seen.most.load(Ordering::SeqCst);
        assert!(most <= limit.parse().unwrap(), "{most} at once with --per-host {limit}");
        assert!(most >= 2, "checks ran one at a time: {most}");
    }
    assert_eq!(s.seen.requests.load(Ordering::SeqCst), 400, "each URL once per run");
}

#[test]
fn the_cache_spares_a_second_run_its_requests() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::ZERO);
    let refused = servers::refused_port();
    let text = format!(
        "http://127.0.0.1:{p}/ok http://127.0.0.1:{p}/gone http://127.0.0.1:{p}/moved http://127.0.0.1:{refused}/x\n",
        p = s.port
    );
    let (first, _) = lint(dir.path(), &text, &[]);
    let asked = s.seen.requests.load(Ordering::SeqCst);
    assert!(asked >= 3);
    let cache = std::fs::read_to_string(dir.path().join(".urlsift-cache")).unwrap();
    assert!(cache.starts_with("urlsift-cache 1\n"), "{cache}");
    assert!(!cache.contains(&format!(":{refused}/")), "a refused connection is not kept: {cache}");
    let (second, out) = lint(dir.path(), &text, &["--stats"]);
    assert_eq!(first, second);
    assert_eq!(s.seen.requests.load(Ordering::SeqCst), asked, "no request for fresh entries");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("3 from the cache"), "{stderr}");
    // Stale entries are asked again; --no-cache asks everything.
    lint(dir.path(), &text, &["--max-cache-age", "0"]);
    assert!(s.seen.requests.load(Ordering::SeqCst) > asked);
}

#[test]
fn ftp_gopher_telnet_and_news_are_asked_in_their_protocols() {
    let dir = tempfile::tempdir().unwrap();
    let (f, g, n) = (servers::ftp(), servers::gopher(), servers::nntp());
    let refused = servers::refused_port();
    let ftp = |p: &str| format!("ftp://127.0.0.1:{}{p}", f.port);
    let gopher = |p: &str| format!("gopher://127.0.0.1:{}{p}", g.port);
    let nntp = |p: &str| format!("nntp://127.0.0.1:{}{p}", n.port);
    let telnet = |p: u16| format!("telnet://127.0.0.1:{p}/");
    let good = [
        ftp("/pub/a.txt"),
        ftp("/pub/docs/"),
        ftp("/pub/docs;type=d"),
        ftp("/readme"),
        gopher("/"),
        gopher("/1/docs"),
        nntp("/comp.lang.rust"),
        nntp("/comp.lang.rust/3"),
        telnet(f.port),
        "news:comp.lang.rust".to_string(),
        "news:abc@example.org".to_string(),
    ];
    let bad = [
        (ftp("/pub/b.txt"), "link-not-found"),
        (ftp("/nodir/a.txt"), "link-not-found"),
        (gopher("/0/missing"), "link-not-found"),
        (nntp("/alt.nothing"), "link-not-found"),
        (nntp("/comp.lang.rust/99"), "link-not-found"),
        ("news:zzz@example.org".to_string(), "link-not-found"),
        (telnet(refused), "link-refused"),
    ];
    let mut text = String::new();
    for u in good.iter().chain(bad.iter().map(|(u, _)| u)) {
        text.push_str(&format!("<URL:{u}>\n"));
    }
    let server = format!("127.0.0.1:{}", n.port);
    let (by, out) = lint(dir.path(), &text, &["--no-cache", "--nntp-server", &server]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for u in &good {
        assert_eq!(codes(&by, u), Vec::<String>::new(), "{u}: {by:?} {stderr}");
    }
    for (u, code) in &bad {
        assert_eq!(codes(&by, u), [*code], "{u}: {by:?}");
    }
}

#[test]
fn a_redirect_to_a_private_host_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::ZERO);
    let other = servers::http(Duration::ZERO);
    // Only the first server is included: the redirect leads to a local
    // address nobody asked to check (as a public page might send a
    // checker to a cloud metadata service).
    let away = format!("http://127.0.0.1:{}/away?to={}", s.port, other.port);
    std::fs::write(dir.path().join("a.txt"), format!("{away}\n")).unwrap();
    let include = format!("^http://127\\.0\\.0\\.1:{}/", s.port);
    let out = urlsift_in(
        dir.path(),
        &[
            "lint",
            "--json",
            "--no-config",
            "--no-cache",
            "--online",
            "--online-include",
            &include,
            "a.txt",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("link-protocol-error") && text.contains("not followed"), "{text}");
    assert_eq!(other.seen.requests.load(Ordering::SeqCst), 0);
}

#[test]
fn reserved_and_unchecked_urls_are_left_alone_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let text = "http://example.com/x http://localhost:1/ http://10.0.0.1/ mailto:a@b.example \
                http://h.test/ file:///etc/passwd\n";
    std::fs::write(dir.path().join("a.txt"), text).unwrap();
    let out = urlsift_in(
        dir.path(),
        &["lint", "--no-config", "--no-cache", "--online", "--stats", "a.txt"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("online: 6 distinct URLs: not-checked 6"), "{stderr}");
    assert!(stderr.contains("not checked: 2: no server to ask"), "{stderr}");
}

#[test]
fn fragments_are_found_in_the_page_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::ZERO);
    let p = s.port;
    let text = format!(
        "[a](http://127.0.0.1:{p}/page#here) [b](http://127.0.0.1:{p}/page#there) \
         [c](http://127.0.0.1:{p}/page#nowhere) [d](http://127.0.0.1:{p}/ok#x)\n"
    );
    let (by, _) = lint(dir.path(), &text, &["--no-cache", "--check-fragments"]);
    assert_eq!(by.len(), 1, "{by:?}");
    assert_eq!(codes(&by, &format!("http://127.0.0.1:{p}/page#nowhere")), ["fragment-missing"]);
    // Without the flag, no page is read.
    let (by, _) = lint(dir.path(), &text, &["--no-cache"]);
    assert!(by.is_empty(), "{by:?}");
}

#[test]
fn check_online_reports_each_url() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::ZERO);
    let ok = format!("http://127.0.0.1:{}/ok", s.port);
    let gone = format!("http://127.0.0.1:{}/gone", s.port);
    let out = urlsift_in(
        dir.path(),
        &[
            "check",
            "--json",
            "--online",
            "--no-cache",
            "--online-include",
            "127",
            &ok,
            &gone,
            "http://a b",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        (lines[0]["valid"].as_bool(), lines[0]["online"].as_str()),
        (Some(true), Some("alive"))
    );
    // `valid` stays the syntax's verdict; the dead link is a diagnostic.
    assert_eq!(
        (lines[1]["valid"].as_bool(), lines[1]["online"].as_str()),
        (Some(true), Some("not-found"))
    );
    assert_eq!(lines[1]["diagnostics"][0]["code"], "link-not-found");
    assert_eq!(lines[2]["valid"].as_bool(), Some(false));
    // Without --online nothing is asked.
    let before = s.seen.requests.load(Ordering::SeqCst);
    let out = urlsift_in(dir.path(), &["check", &gone]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(s.seen.requests.load(Ordering::SeqCst), before);
}

#[test]
fn headers_never_go_in_clear_text_nor_to_output() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::ZERO);
    let p = s.port;
    std::fs::write(
        dir.path().join("urlsift.toml"),
        "[online]\ninclude = [\"127\"]\n[[online.header]]\nhost = \"127.0.0.1\"\nname = \"Authorization\"\nvalue = \"Bearer ${URLSIFT_TEST_TOKEN}\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("a.txt"), format!("http://127.0.0.1:{p}/gone\n")).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urlsift"));
    cmd.current_dir(dir.path()).args(["lint", "--online", "--stats", "--json", "a.txt"]);
    cmd.env("URLSIFT_TEST_TOKEN", "s3cr3t-value");
    for v in ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"] {
        cmd.env_remove(v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    // The link is http: the token is not sent in clear text (over https
    // it would be: the unit tests of src/online/http.rs).
    let h = s.seen.headers.lock().unwrap();
    assert!(!h.iter().any(|(k, _)| k == "authorization"), "{h:?}");
    let all = [out.stdout, out.stderr, std::fs::read(dir.path().join(".urlsift-cache")).unwrap()]
        .concat();
    assert!(!String::from_utf8_lossy(&all).contains("s3cr3t"));
    // An unset variable is an error that names it, before any request.
    let out = urlsift_in(dir.path(), &["lint", "--online", "a.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("URLSIFT_TEST_TOKEN"));
    // Another variable of the environment is not read at all.
    std::fs::write(
        dir.path().join("urlsift.toml"),
        "[online]\n[[online.header]]\nhost = \"h.example\"\nname = \"X\"\nvalue = \"${HOME}\"\n",
    )
    .unwrap();
    let out = urlsift_in(dir.path(), &["lint", "--online", "a.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("URLSIFT_*"));
}

#[test]
fn output_is_the_same_with_one_thread_or_two() {
    let dir = tempfile::tempdir().unwrap();
    let s = servers::http(Duration::from_millis(5));
    let p = s.port;
    for i in 0..4 {
        let text: String = (0..30)
            .map(|j| {
                format!(
                    "line {j}: http://127.0.0.1:{p}/{} \n",
                    ["ok", "gone", "moved", "500"][(i + j) % 4]
                )
            })
            .collect();
        std::fs::write(dir.path().join(format!("f{i}.txt")), text).unwrap();
    }
    let run = |j: &str| {
        urlsift_in(
            dir.path(),
            &[
                "lint",
                "--json",
                "--no-config",
                "--no-cache",
                "--online",
                "--online-include",
                "127",
                "-j",
                j,
                ".",
            ],
        )
        .stdout
    };
    let one = run("1");
    assert!(!one.is_empty());
    assert_eq!(one, run("2"));
}
