//! Online checks (`lint --online`, `check --online`): is each distinct
//! URL's target still there? Every scheme of RFC 1738 that has a server
//! is asked in its own protocol: http and https (`http.rs`: `HEAD`, `GET`
//! where needed, redirects one by one), ftp, gopher, telnet, news and
//! nntp (`tcp.rs`). Nothing is downloaded beyond a reply's first line,
//! except an HTML page whose anchor `--check-fragments` looks for.
//!
//! A [`Checker`] takes URLs as the scan finds them ([`Checker::submit`])
//! and checks each once, on a bounded pool of threads, with at most
//! [`Settings::per_host`] checks at a time on one server (host and
//! port); transient answers (429, 502-504, time-outs) are tried again
//! after `Retry-After` or a back-off, holding the server's slot, so a
//! server that asks for a pause gets one. [`Checker::finish`] waits for
//! the last check and gives the [`Report`]: the outcome of every URL,
//! and the [`Verdicts`] the engine turns into findings at every place
//! the URL occurs (see [`crate::extract::Options::online`]).
//!
//! Results that do not change from one minute to the next (alive,
//! redirected, gone, an HTTP status other than 429) are kept in a cache
//! file between runs ([`cache`]), so a second run asks only about what
//! is new or stale.

pub mod cache;
mod http;
mod target;
mod tcp;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::diag::{Code, Diagnostic};
use crate::extract::Verdicts;
use target::Target;

/// How online checks are made.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Checks running at once, over all servers.
    pub concurrency: usize,
    /// Checks running at once on one server (host and port).
    pub per_host: usize,
    /// The longest one request (or connection and reply) may take.
    pub timeout: Duration,
    /// How often a transient answer (429, 502, 503, 504, a time-out) is
    /// tried again.
    pub retries: u32,
    /// The longest wait before a retry, whatever `Retry-After` asks.
    pub max_wait: Duration,
    /// Redirects followed before giving up.
    pub max_redirects: u32,
    /// The `User-Agent` header of HTTP requests.
    pub user_agent: String,
    /// The cache file; `None`: no cache read or written.
    pub cache: Option<PathBuf>,
    /// How old a cached result may be and still be used.
    pub cache_age: Duration,
    /// Regular expressions: a URL matching one is checked even where the
    /// other rules would pass over it (an excluded pattern, a reserved or
    /// private host).
    pub include: Vec<String>,
    /// Regular expressions: a URL matching one (and no `include`) is not
    /// checked.
    pub exclude: Vec<String>,
    /// Headers sent to some hosts (an API token): never written to
    /// output or to the cache.
    pub headers: Vec<Header>,
    /// For an http(s) URL with a `#fragment` whose page is HTML, whether
    /// the page must have an element of that id (or `<a name>`).
    pub fragments: bool,
    /// The server for `news:` URLs, which name none (`host[:port]`).
    pub nntp_server: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            concurrency: 128,
            per_host: 2,
            timeout: Duration::from_secs(20),
            retries: 2,
            max_wait: Duration::from_secs(60),
            max_redirects: 10,
            user_agent: format!(
                "urlsift/{} (link checker; +https://crates.io/crates/urlsift)",
                env!("CARGO_PKG_VERSION")
            ),
            cache: None,
            cache_age: Duration::from_secs(24 * 3600),
            include: Vec::new(),
            exclude: Vec::new(),
            headers: Vec::new(),
            fragments: false,
            nntp_server: std::env::var("NNTPSERVER").ok().filter(|s| !s.is_empty()),
        }
    }
}

/// A header sent with every HTTP request to matching hosts.
#[derive(Clone)]
pub struct Header {
    /// The host (`api.github.com`), or every subdomain of one
    /// (`*.example.org`, which does not match `example.org` itself).
    pub host: String,
    /// The header's name.
    pub name: String,
    /// Its value (with `${VAR}` already read from the environment).
    pub value: String,
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The value is a secret: never in a debug print either.
        write!(f, "Header {{ host: {:?}, name: {:?}, value: <hidden> }}", self.host, self.name)
    }
}

impl Header {
    fn matches(&self, host: &str) -> bool {
        match self.host.strip_prefix("*.") {
            Some(suffix) => {
                host.len() > suffix.len() + 1
                    && host.ends_with(suffix)
                    && host.as_bytes()[host.len() - suffix.len() - 1] == b'.'
            }
            None => host.eq_ignore_ascii_case(&self.host),
        }
    }
}

/// What came of checking one URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The target answered: it is there.
    Alive,
    /// Alive at another URL, after one or more redirects.
    Redirected {
        /// The URL at the end of the chain.
        to: String,
        /// The first redirect's status.
        status: u16,
        /// Every hop was permanent (301, 308): the link should be changed.
        permanent: bool,
    },
    /// The server says the target is not there: HTTP 404 or 410, FTP
    /// 550, a gopher error item, NNTP 411, 423 or 430.
    NotFound(String),
    /// Another HTTP error status, with its text.
    Status(u16, String),
    /// No answer in time.
    Timeout,
    /// The host name does not resolve.
    Dns(String),
    /// The TLS handshake failed (an expired or wrong certificate...).
    Tls(String),
    /// Nothing listens on the port.
    Refused,
    /// The server answered, but not as its protocol says it should (a
    /// login refused, a redirect loop...).
    Protocol(String),
    /// The page is there but has no anchor of that name (`--check-fragments`).
    FragmentMissing(String),
    /// Not checked, and why: a scheme with no server, an excluded URL...
    Skipped(&'static str),
    /// A transient HTTP status (429, 502-504) and the server's
    /// `Retry-After`: to be tried again (never in a [`Report`]).
    Retry(u16, Option<Duration>),
}

impl Outcome {
    /// The short name used in `--stats` and the cache.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Alive => "alive",
            Outcome::Redirected { .. } => "redirected",
            Outcome::NotFound(_) => "not-found",
            Outcome::Status(..) | Outcome::Retry(..) => "http-status",
            Outcome::Timeout => "timeout",
            Outcome::Dns(_) => "dns-failure",
            Outcome::Tls(_) => "tls-failure",
            Outcome::Refused => "refused",
            Outcome::Protocol(_) => "protocol-error",
            Outcome::FragmentMissing(_) => "fragment-missing",
            Outcome::Skipped(_) => "not-checked",
        }
    }

    /// The finding this outcome makes for `url`, if any: its span is the
    /// whole URL. A permanent redirect's fix is the URL it leads to.
    pub fn diagnostic(&self, url: &str) -> Option<Diagnostic> {
        let n = url.len();
        let esc = |s: &str| crate::escape::for_terminal(s.as_bytes()).into_owned();
        let d = |code, m: String| Some(Diagnostic::new(code, 0, n, m));
        match self {
            Outcome::Alive | Outcome::Skipped(_) => None,
            Outcome::Redirected { to, status, permanent } => {
                let how = if *permanent { " permanently" } else { "" };
                let m = format!("redirected{how} ({status}) to {}", esc(to));
                let d = Diagnostic::new(Code::LinkRedirected, 0, n, m);
                Some(if *permanent { d.with_fix(to.clone()) } else { d })
            }
            Outcome::NotFound(why) => d(Code::LinkNotFound, format!("not found: {}", esc(why))),
            Outcome::Status(_, text) => {
                d(Code::LinkHttpStatus, format!("the server answers HTTP {}", esc(text)))
            }
            Outcome::Retry(s, _) => d(
                Code::LinkHttpStatus,
                format!("the server answers HTTP {}", http::status_text(*s)),
            ),
            Outcome::Timeout => d(Code::LinkTimeout, "no answer within the time-out".into()),
            Outcome::Dns(why) => {
                d(Code::LinkDnsFailure, format!("the host does not resolve: {}", esc(why)))
            }
            Outcome::Tls(why) => d(Code::LinkTlsFailure, format!("TLS failed: {}", esc(why))),
            Outcome::Refused => {
                d(Code::LinkRefused, "the connection was refused: nothing listens there".into())
            }
            Outcome::Protocol(why) => d(Code::LinkProtocolError, esc(why)),
            Outcome::FragmentMissing(f) => d(
                Code::FragmentMissing,
                format!("the page has no element with id or name `{}`", esc(f)),
            ),
        }
    }

    /// Whether the cache may keep it: the answer of a server, not of the
    /// network of the moment.
    fn lasting(&self) -> bool {
        match self {
            Outcome::Alive | Outcome::Redirected { .. } | Outcome::NotFound(_) => true,
            // Not the answer to a bare URL: a page's anchors depend on
            // --check-fragments, a refusal on the headers sent.
            Outcome::Status(s, _) => !matches!(s, 401 | 403 | 407 | 429) && *s < 500,
            _ => false,
        }
    }
}

/// The result of a run of checks.
#[derive(Debug, Default)]
pub struct Report {
    /// Every URL submitted, and what came of it.
    pub outcomes: BTreeMap<String, Outcome>,
    /// Requests (connections, for the TCP schemes) made, retries included.
    pub requests: u64,
    /// Outcomes taken from the cache.
    pub cached: u64,
    /// Wall time from the first submission to the last answer.
    pub elapsed: Duration,
    /// A cache file that could not be read or written, and why.
    pub cache_problem: Option<String>,
}

impl Report {
    /// The findings by URL, for [`crate::extract::Options::online`].
    pub fn verdicts(&self) -> Verdicts {
        self.outcomes
            .iter()
            .filter_map(|(u, o)| o.diagnostic(u).map(|d| (u.as_bytes().to_vec(), d)))
            .collect()
    }

    /// `--stats` lines: outcomes by kind, what was not checked and why,
    /// requests and time.
    pub fn stats(&self) -> Vec<String> {
        let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
        let mut skipped: BTreeMap<&str, u64> = BTreeMap::new();
        for o in self.outcomes.values() {
            *kinds.entry(o.kind()).or_default() += 1;
            if let Outcome::Skipped(why) = o {
                *skipped.entry(why).or_default() += 1;
            }
        }
        let mut by: Vec<_> = kinds.into_iter().collect();
        by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let by: Vec<String> = by.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let mut lines = vec![format!(
            "online: {} distinct URLs: {}; {} requests, {} from the cache, {:.3}s",
            self.outcomes.len(),
            by.join(", "),
            self.requests,
            self.cached,
            self.elapsed.as_secs_f64()
        )];
        for (why, n) in skipped {
            lines.push(format!("online: not checked: {n}: {why}"));
        }
        lines
    }
}

/// Why a URL of a scheme with no server is not checked.
const NO_SERVER: &str = "no server to ask (mailto, file, or another scheme)";

/// Checks URLs on a pool of threads as they are submitted.
pub struct Checker {
    shared: Arc<Shared>,
    workers: Mutex<Vec<std::thread::JoinHandle<()>>>,
    started: Instant,
}

struct Shared {
    settings: Settings,
    include: Option<regex_automata::meta::Regex>,
    exclude: Option<regex_automata::meta::Regex>,
    #[cfg(feature = "online")]
    agent: ureq::Agent,
    cache: cache::Cache,
    state: Mutex<State>,
    wake: Condvar,
    requests: AtomicU64,
    cached: AtomicU64,
}

#[derive(Default)]
struct State {
    seen: HashSet<String>,
    servers: HashMap<String, Server>,
    /// Servers with queued URLs and a free slot, in turn.
    ready: VecDeque<String>,
    queued: usize,
    running: usize,
    idle: usize,
    spawned: usize,
    closed: bool,
    outcomes: BTreeMap<String, Outcome>,
}

#[derive(Default)]
struct Server {
    queue: VecDeque<String>,
    running: usize,
    in_ready: bool,
}

fn patterns(p: &[String]) -> Result<Option<regex_automata::meta::Regex>, String> {
    if p.is_empty() {
        return Ok(None);
    }
    regex_automata::meta::Regex::new_many(p).map(Some).map_err(|e| format!("bad URL pattern: {e}"))
}

impl Checker {
    /// A checker with no URL yet: reads the cache, if any.
    pub fn new(settings: Settings) -> Result<Checker, String> {
        if !cfg!(feature = "online") {
            return Err("this urlsift was built without the `online` feature".into());
        }
        let include = patterns(&settings.include)?;
        let exclude = patterns(&settings.exclude)?;
        let cache = cache::Cache::load(settings.cache.clone(), settings.cache_age);
        #[cfg(feature = "online")]
        let agent = http::agent(&settings);
        Ok(Checker {
            shared: Arc::new(Shared {
                settings,
                include,
                exclude,
                #[cfg(feature = "online")]
                agent,
                cache,
                state: Mutex::new(State::default()),
                wake: Condvar::new(),
                requests: AtomicU64::new(0),
                cached: AtomicU64::new(0),
            }),
            workers: Mutex::new(Vec::new()),
            started: Instant::now(),
        })
    }

    /// Asks for `url` to be checked (once, however often it is
    /// submitted). Returns at once.
    pub fn submit(&self, url: &str) {
        let sh = &self.shared;
        {
            let st = sh.state.lock().expect("checker state");
            if st.seen.contains(url) {
                return;
            }
        }
        let target = Target::parse(url);
        let early = match &target {
            None => Some(Outcome::Skipped(NO_SERVER)),
            Some(t) => {
                let included = sh.include.as_ref().is_some_and(|r| r.is_match(url));
                if !included && sh.exclude.as_ref().is_some_and(|r| r.is_match(url)) {
                    Some(Outcome::Skipped("excluded by a pattern"))
                } else if !included && !t.host.is_empty() && reserved(&t.host) {
                    Some(Outcome::Skipped(
                        "an example, local or private host (RFC 2606, RFC 6761; `--online-include` checks it)",
                    ))
                } else {
                    // A page's anchors are not cached: with a fragment to
                    // find, the page is asked again.
                    let page = sh.settings.fragments && t.fragment.is_some_and(|f| !f.is_empty());
                    sh.cache.get(url).filter(|_| !page)
                }
            }
        };
        let mut st = sh.state.lock().expect("checker state");
        if !st.seen.insert(url.to_owned()) {
            return;
        }
        if let Some(o) = early {
            if o.kind() != "not-checked" {
                sh.cached.fetch_add(1, Ordering::Relaxed);
            }
            st.outcomes.insert(url.to_owned(), o);
            return;
        }
        let key = target.map(|t| t.server()).unwrap_or_default();
        let st = &mut *st;
        let server = st.servers.entry(key.clone()).or_default();
        server.queue.push_back(url.to_owned());
        st.queued += 1;
        if !server.in_ready && server.running < sh.settings.per_host.max(1) {
            server.in_ready = true;
            st.ready.push_back(key);
        }
        // A thread for each server ready beyond those waiting (a waiting
        // thread counts until it has taken the lock again, so a burst of
        // submissions would otherwise all see one idle thread).
        if st.ready.len() > st.idle && st.spawned < sh.settings.concurrency.max(1) {
            st.spawned += 1;
            let shared = Arc::clone(sh);
            let h = std::thread::Builder::new()
                .name("urlsift-online".into())
                // A TLS handshake and certificate check need more than a
                // minimal stack; untouched pages cost no memory.
                .stack_size(1 << 20)
                .spawn(move || worker(&shared));
            match h {
                Ok(h) => self.workers.lock().expect("workers").push(h),
                Err(_) => st.spawned -= 1,
            }
        }
        sh.wake.notify_one();
    }

    /// URLs submitted and URLs answered so far: for a progress line.
    pub fn progress(&self) -> (usize, usize) {
        let st = self.shared.state.lock().expect("checker state");
        (st.seen.len(), st.outcomes.len())
    }

    /// Waits for every check, writes the cache, and reports. URLs
    /// submitted after it are not checked.
    pub fn finish(&self) -> Report {
        {
            let mut st = self.shared.state.lock().expect("checker state");
            st.closed = true;
            // No thread could start (the system refused one): check here.
            if st.spawned == 0 && st.queued > 0 {
                drop(st);
                worker(&self.shared);
            }
        }
        self.shared.wake.notify_all();
        for h in self.workers.lock().expect("workers").drain(..) {
            let _ = h.join();
        }
        let outcomes =
            std::mem::take(&mut self.shared.state.lock().expect("checker state").outcomes);
        let cache_problem = self.shared.cache.save(&outcomes).err();
        Report {
            outcomes,
            requests: self.shared.requests.load(Ordering::Relaxed),
            cached: self.shared.cached.load(Ordering::Relaxed),
            elapsed: self.started.elapsed(),
            cache_problem,
        }
    }
}

/// A host no check should reach out to unless asked: the reserved
/// example and test names, `localhost`, and loopback, private and
/// link-local addresses.
pub(crate) fn reserved(host: &str) -> bool {
    let h = host.trim_end_matches('.');
    let v4 = |v4: std::net::Ipv4Addr| {
        let [a, b, ..] = v4.octets();
        v4.is_loopback()
            || v4.is_private()
            || v4.is_link_local()
            || v4.is_documentation()
            || a == 0
            || (a == 100 && (64..128).contains(&b))
    };
    if let Ok(ip) = h.parse::<IpAddr>() {
        return match ip {
            IpAddr::V4(a) => v4(a),
            IpAddr::V6(v6) => {
                v6.to_ipv4_mapped().is_some_and(v4)
                    || v6.is_loopback()
                    || v6.is_unspecified()
                    || (v6.segments()[0] & 0xfe00) == 0xfc00
                    || (v6.segments()[0] & 0xffc0) == 0xfe80
                    || (v6.segments()[0] == 0x2001 && v6.segments()[1] == 0xdb8)
            }
        };
    }
    // `127.1`, `2130706433`, `0x7f.1`: numeric forms the system resolver
    // takes as addresses (inet_aton) though they are not dotted quads;
    // no public name looks like that.
    let numeric =
        |p: &str| !p.is_empty() && (p.bytes().all(|b| b.is_ascii_digit()) || p.starts_with("0x"));
    if h.split('.').all(numeric) {
        return true;
    }
    let last = h.rsplit('.').next().unwrap_or(h);
    if matches!(last, "example" | "invalid" | "test" | "localhost" | "local") {
        return true;
    }
    ["example.com", "example.net", "example.org"]
        .iter()
        .any(|d| h == *d || h.strip_suffix(d).is_some_and(|p| p.ends_with('.')))
}

/// One thread of the pool: takes the next URL of a server with a free
/// slot until the checker is closed and nothing is queued.
fn worker(sh: &Shared) {
    let per_host = sh.settings.per_host.max(1);
    loop {
        let (key, url) = {
            let mut st = sh.state.lock().expect("checker state");
            loop {
                if let Some(key) = st.ready.pop_front() {
                    let st = &mut *st;
                    let server = st.servers.get_mut(&key).expect("a ready server is known");
                    server.in_ready = false;
                    if server.running >= per_host {
                        continue;
                    }
                    let Some(url) = server.queue.pop_front() else { continue };
                    server.running += 1;
                    if server.running < per_host && !server.queue.is_empty() {
                        server.in_ready = true;
                        st.ready.push_back(key.clone());
                        // Its next slot is free now: for a waiting thread.
                        sh.wake.notify_one();
                    }
                    st.queued -= 1;
                    st.running += 1;
                    if st.closed && st.queued == 0 {
                        // The last one: the others may end.
                        sh.wake.notify_all();
                    }
                    break (key, url);
                }
                if st.closed && st.queued == 0 {
                    return;
                }
                st.idle += 1;
                st = sh.wake.wait(st).expect("checker state");
                st.idle -= 1;
            }
        };
        // A panic in a check (a client's bug) must not keep the server's
        // slot: the URL gets an outcome and the run goes on.
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_with_retries(sh, &url)))
                .unwrap_or_else(|_| Outcome::Protocol("internal error while checking".into()));
        let mut st = sh.state.lock().expect("checker state");
        let st = &mut *st;
        st.running -= 1;
        let server = st.servers.get_mut(&key).expect("a running server is known");
        server.running -= 1;
        if !server.queue.is_empty() && !server.in_ready {
            server.in_ready = true;
            st.ready.push_back(key);
        }
        st.outcomes.insert(url, outcome);
        // One server's slot came free: one waiting thread is enough (all
        // of them, on two cores, cost more system time than the checks).
        if st.closed && st.queued == 0 {
            sh.wake.notify_all();
        } else {
            sh.wake.notify_one();
        }
    }
}

fn check_with_retries(sh: &Shared, url: &str) -> Outcome {
    let s = &sh.settings;
    let mut attempt = 0;
    loop {
        sh.requests.fetch_add(1, Ordering::Relaxed);
        let o = check_once(sh, url);
        let wait = match &o {
            Outcome::Retry(_, after) => after.unwrap_or(backoff(attempt)),
            Outcome::Timeout => backoff(attempt),
            _ => return o,
        };
        if attempt >= s.retries {
            return match o {
                Outcome::Retry(status, _) => Outcome::Status(status, http::status_text(status)),
                o => o,
            };
        }
        attempt += 1;
        std::thread::sleep(wait.min(s.max_wait));
    }
}

fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(500 << attempt.min(6))
}

fn check_once(sh: &Shared, url: &str) -> Outcome {
    let Some(t) = Target::parse(url) else { return Outcome::Skipped(NO_SERVER) };
    let s = &sh.settings;
    match t.scheme.as_str() {
        #[cfg(feature = "online")]
        "http" | "https" => {
            let allowed = |u: &str| {
                sh.include.as_ref().is_some_and(|r| r.is_match(u))
                    || Target::parse(u).is_some_and(|t| !reserved(&t.host))
            };
            http::check(&sh.agent, url, &t, s, &allowed)
        }
        "ftp" => tcp::ftp(&t, s),
        "gopher" => tcp::gopher(&t, s),
        "telnet" => tcp::telnet(&t, s),
        "news" | "nntp" => tcp::nntp(&t, s),
        _ => Outcome::Skipped(NO_SERVER),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_hosts_are_passed_over() {
        for h in [
            "example.com",
            "www.example.org",
            "a.example",
            "x.test",
            "localhost",
            "127.0.0.1",
            "10.1.2.3",
            "::1",
            "192.168.0.1",
            "fe80::1",
            "127.1",
            "2130706433",
            "0x7f.1",
            "::ffff:127.0.0.1",
            "0.0.0.0",
            "100.64.1.1",
        ] {
            assert!(reserved(h), "{h}");
        }
        for h in ["example.community", "notexample.com", "rust-lang.org", "8.8.8.8", "2a00::1"] {
            assert!(!reserved(h), "{h}");
        }
    }

    #[test]
    fn headers_match_their_hosts() {
        let h = Header { host: "*.example.org".into(), name: "A".into(), value: "v".into() };
        assert!(h.matches("api.example.org"));
        assert!(!h.matches("example.org"));
        assert!(!h.matches("badexample.org"));
        let h = Header { host: "API.github.com".into(), name: "A".into(), value: "v".into() };
        assert!(h.matches("api.github.com"));
        assert!(!format!("{h:?}").contains('v') || !format!("{h:?}").contains("\"v\""));
    }

    #[test]
    fn outcomes_make_findings() {
        let u = "http://h.example/a";
        assert!(Outcome::Alive.diagnostic(u).is_none());
        let d = Outcome::NotFound("HTTP 404 Not Found".into()).diagnostic(u).unwrap();
        assert_eq!((d.code, d.start, d.end), (Code::LinkNotFound, 0, u.len()));
        let r =
            Outcome::Redirected { to: "https://h.example/b".into(), status: 301, permanent: true };
        assert_eq!(r.diagnostic(u).unwrap().fix.as_deref(), Some("https://h.example/b"));
        let r =
            Outcome::Redirected { to: "https://h.example/b".into(), status: 302, permanent: false };
        assert_eq!(r.diagnostic(u).unwrap().fix, None);
    }
}
