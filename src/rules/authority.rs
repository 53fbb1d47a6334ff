//! RFC 1738 section 3.1, the common Internet scheme syntax:
//! `//<user>:<password>@<host>:<port>/<url-path>`, shared by ftp, http,
//! gopher, nntp, telnet, wais, file and prospero; and the checks on it the
//! grammar cannot express (port and octet ranges, default and low ports,
//! passwords).
//!
//! [`split`] is the explaining parser's reading of an authority; [`quick`]
//! is the fast path's one-pass reading of an authority the DFA accepted.

use crate::diag::{Code, Grammar};

use super::Verdict;
use super::chars::{self, ByteSet, Sets};
use super::ctx::{Class, Ctx, find};
use super::{SchemeKind, Validator, ctx};

/// Where the parts of `[user[:password]@]host[:port]` are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Split {
    /// The `@` ending the userinfo, if any.
    pub at: Option<usize>,
    /// The `:` between user and password, if any.
    pub password_colon: Option<usize>,
    /// The host.
    pub host: (usize, usize),
    /// The `:` before the port, if any.
    pub port_colon: Option<usize>,
}

/// Splits the authority `url[start..end]`.
///
/// Neither user, password nor host may hold `@`, so the last `@` ends the
/// userinfo (earlier ones are errors inside it); the user cannot hold `:`,
/// so the first `:` in the userinfo starts the password; a bracketed host
/// (an RFC 3986 IP literal) runs to its `]`, any other host to the first
/// `:`.
pub(crate) fn split(url: &[u8], start: usize, end: usize) -> Split {
    let at = memchr::memrchr(b'@', &url[start..end]).map(|i| start + i);
    let password_colon = at.and_then(|at| find(url, start, at, b':'));
    let hs = at.map_or(start, |at| at + 1);
    let mut port_colon = None;
    let mut he = end;
    if hs < end && url[hs] == b'[' {
        if let Some(close) = find(url, hs, end, b']') {
            if close + 1 < end && url[close + 1] == b':' {
                he = close + 1;
                port_colon = Some(close + 1);
            } else if close + 1 == end {
                he = end;
            }
        }
    } else if let Some(c) = find(url, hs, end, b':') {
        he = c;
        port_colon = Some(c);
    }
    Split { at, password_colon, host: (hs, he), port_colon }
}

/// The `host[:port]` items of `url[start..end]`, an authority after its
/// userinfo: the whole of it, or in the modern profile each member of a
/// comma-separated list of hosts (`h1:5432,h2:5433`, as libpq, MongoDB
/// and pydantic write a cluster). A list with an empty member is read as
/// one host, whose `,` the host check then reports; a `,` inside an IP
/// literal's brackets divides nothing.
pub(crate) fn hosts(url: &[u8], grammar: Grammar, start: usize, end: usize) -> Hosts<'_> {
    let list = grammar == Grammar::Modern && is_list(&url[start..end]);
    Hosts { url, at: start, end, list, done: false }
}

/// Whether `authority` is a list of two or more non-empty members.
fn is_list(authority: &[u8]) -> bool {
    let mut depth = 0u32;
    let mut commas = 0;
    let mut member = 0usize;
    for &b in authority {
        match b {
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                if member == 0 {
                    return false;
                }
                commas += 1;
                member = 0;
                continue;
            }
            _ => {}
        }
        member += 1;
    }
    commas > 0 && member > 0
}

/// The iterator [`hosts`] returns: `(start, end)` of each member.
pub(crate) struct Hosts<'a> {
    url: &'a [u8],
    at: usize,
    end: usize,
    list: bool,
    done: bool,
}

impl Iterator for Hosts<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        if self.done {
            return None;
        }
        let start = self.at;
        if !self.list {
            self.done = true;
            return Some((start, self.end));
        }
        let mut depth = 0u32;
        for i in start..self.end {
            match self.url[i] {
                b'[' => depth += 1,
                b']' => depth = depth.saturating_sub(1),
                b',' if depth == 0 => {
                    self.at = i + 1;
                    return Some((start, i));
                }
                _ => {}
            }
        }
        self.done = true;
        Some((start, self.end))
    }
}

/// The end of the authority that starts at `start`: the first `/` (or, in
/// RFC 3986, `?`) before `end`.
///
/// RFC 1738 users may hold `?`, so only `/` ends the authority there; an
/// http URL is the exception the caller handles.
pub(crate) fn end_of(url: &[u8], grammar: Grammar, start: usize, end: usize) -> usize {
    match grammar {
        Grammar::Rfc1738 => find(url, start, end, b'/'),
        Grammar::Rfc3986 | Grammar::Modern => ctx::find2(url, start, end, b'/', b'?'),
    }
    .unwrap_or(end)
}

/// Reports a `?` that ended the authority (RFC 3986 only) in a scheme
/// whose grammar has no query there; true if it did.
pub(crate) fn stray_query(cx: &mut Ctx<'_>, ae: usize, end: usize) -> bool {
    if ae >= end || cx.url[ae] != b'?' {
        return false;
    }
    let scheme = String::from_utf8_lossy(&cx.url[..find(cx.url, 0, ae, b':').unwrap_or(0)])
        .to_ascii_lowercase();
    let msg = format!("`?` right after the host: {scheme} URLs have no query part there");
    let fix = cx.replaced(ae, ae + 1, "%3F");
    cx.report(Code::ReservedCharacter, ae, ae + 1, msg);
    cx.fix(fix);
    true
}

/// A port's value, saturating far above 65535.
fn port_value(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0u32, |n, &d| n.saturating_mul(10).saturating_add(u32::from(d - b'0')).min(1 << 20))
}

/// The values of a dotted-quad `hostnumber`, or `None` if `host` is not
/// four dot-separated runs of digits.
fn hostnumber(host: &[u8]) -> Option<[(usize, usize, u32); 4]> {
    let mut parts = [(0, 0, 0); 4];
    let mut n = 0;
    let mut s = 0;
    for i in 0..=host.len() {
        if i == host.len() || host[i] == b'.' {
            if n == 4 || i == s {
                return None;
            }
            parts[n] = (s, i, port_value(&host[s..i]));
            n += 1;
            s = i + 1;
        } else if !host[i].is_ascii_digit() {
            return None;
        }
    }
    (n == 4).then_some(parts)
}

/// The semantic checks of the fast path, on a URL the DFA accepted, whose
/// authority starts at `start` (just after `//`).
///
/// One pass finds the parts: the DFA has proved the structure, so the last
/// `@` ends the userinfo, the first `:` before it starts the password, and
/// the last `:` after it (and after any `]`) starts the port. This is the
/// same answer [`split`] gives, without its several searches.
pub(crate) fn quick(v: &Validator, kind: SchemeKind, url: &[u8], start: usize) -> Verdict {
    /// The bytes that end or divide an authority.
    const SPECIAL: ByteSet = ByteSet::EMPTY.with(b"/#?@:],");
    let stop_at_query = v.grammar.is_3986();
    let mut comma = None;
    let mut at = None;
    let mut first_colon = None;
    let mut last_colon = None;
    let mut close = None;
    let mut end = url.len();
    let mut i = start;
    loop {
        // Skip ordinary bytes without branching on each kind of special.
        while i < url.len() && !SPECIAL.has(url[i]) {
            i += 1;
        }
        let Some(&b) = url.get(i) else { break };
        match b {
            b'@' => at = Some(i),
            b':' => {
                first_colon.get_or_insert(i);
                last_colon = Some(i);
            }
            b']' => close = Some(i),
            b',' => comma = Some(i),
            b'?' if !stop_at_query => {}
            _ => {
                end = i;
                break;
            }
        }
        i += 1;
    }
    // The common case: no userinfo, no port, and a host name (which the
    // DFA has checked completely).
    if at.is_none() && last_colon.is_none() && url.get(start).is_some_and(u8::is_ascii_alphabetic) {
        return Verdict::Clean;
    }
    let mut verdict = Verdict::Clean;
    let host_start = match at {
        Some(at) => {
            // A non-empty password, or userinfo where the scheme allows
            // none (only the modern http(s) grammar lets that through).
            if first_colon.is_some_and(|c| c + 1 < at)
                || matches!(kind, SchemeKind::Http | SchemeKind::Https)
            {
                verdict = Verdict::Noted;
            }
            at + 1
        }
        None => start,
    };
    if comma.is_some_and(|c| c > host_start) && v.grammar == Grammar::Modern {
        for (s, e) in hosts(url, v.grammar, host_start, end) {
            let item = &url[s..e];
            let close = memchr::memrchr(b']', item).map(|i| s + i);
            let colon = memchr::memrchr(b':', item).map(|i| s + i);
            match quick_hostport(v, kind, url, s, colon.filter(|&c| close.is_none_or(|b| c > b)), e)
            {
                Verdict::Invalid => return Verdict::Invalid,
                Verdict::Noted => verdict = Verdict::Noted,
                Verdict::Clean => {}
            }
        }
        return verdict;
    }
    let port_colon = last_colon.filter(|&c| c >= host_start && close.is_none_or(|b| c > b));
    match quick_hostport(v, kind, url, host_start, port_colon, end) {
        Verdict::Clean => verdict,
        other => other,
    }
}

/// The fast path's checks on one `host[:port]` in `url[start..end]`, whose
/// port (if any) follows the `:` at `port_colon`.
fn quick_hostport(
    v: &Validator,
    kind: SchemeKind,
    url: &[u8],
    start: usize,
    port_colon: Option<usize>,
    end: usize,
) -> Verdict {
    let mut verdict = Verdict::Clean;
    let host_end = port_colon.unwrap_or(end);
    if let Some(c) = port_colon.filter(|&c| c + 1 < end) {
        let port = port_value(&url[c + 1..end]);
        if port > 65535 {
            return Verdict::Invalid;
        }
        if port_notice(kind, port).is_some_and(|code| v.severity(code, kind).is_some()) {
            verdict = Verdict::Noted;
        }
    }
    if !host_ok(v, &url[start..host_end]) {
        return Verdict::Invalid;
    }
    verdict
}

/// The checks on a host the scheme DFA accepted: dotted-quad parts within
/// 0-255, and an exact match for a bracketed IP literal (the DFA only
/// checked its characters).
pub(crate) fn host_ok(v: &Validator, host: &[u8]) -> bool {
    match host.first() {
        Some(b'[') => v.ip_literal().is_match(host),
        _ => host_octets_ok(host),
    }
}

/// Whether a host that is a dotted quad has every part within 0-255 (true
/// for any other host).
pub(crate) fn host_octets_ok(host: &[u8]) -> bool {
    match host.first() {
        Some(b) if b.is_ascii_digit() => {
            hostnumber(host).is_none_or(|parts| parts.iter().all(|p| p.2 <= 255))
        }
        _ => true,
    }
}

/// The note or warning an in-range port draws, if any.
fn port_notice(kind: SchemeKind, port: u32) -> Option<Code> {
    let default = kind.default_port().map(u32::from);
    if default == Some(port) {
        Some(Code::DefaultPort)
    } else if port < 1024 && default.is_some() {
        Some(Code::LowPort)
    } else {
        None
    }
}

/// Who may write a user and password.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Userinfo {
    /// ftp, telnet.
    Allowed,
    /// http, gopher, nntp, wais, prospero: reported as `userinfo-not-allowed`.
    Forbidden,
    /// file: reported as `file-host`, and the host may be empty.
    File,
}

const USER: Class = Class::text("user name", |s: &Sets| s.user);
const PASSWORD: Class = Class::text("password", |s: &Sets| s.password);

/// Expects `//` at `start`; reports `missing-slashes` and returns `None`
/// when it is not there.
pub(crate) fn slashes(
    cx: &mut Ctx<'_>,
    kind: SchemeKind,
    start: usize,
    end: usize,
) -> Option<usize> {
    let body = &cx.url[start..end];
    if body.starts_with(b"//") {
        return Some(start + 2);
    }
    let insert = if body.starts_with(b"/") { "/" } else { "//" };
    let fix = if kind == SchemeKind::File {
        let path = if body.starts_with(b"/") { "" } else { "/" };
        cx.replaced(start, start, &format!("//{path}"))
    } else {
        cx.replaced(start, start, insert)
    };
    let scheme = String::from_utf8_lossy(&cx.url[..start]).to_ascii_lowercase();
    let msg = format!("`{scheme}` must be followed by `//` and a host");
    cx.report(Code::MissingSlashes, start, start, msg);
    cx.fix(fix);
    None
}

/// Checks the login `url[start..end]` of a `kind` URL.
pub(crate) fn login(cx: &mut Ctx<'_>, kind: SchemeKind, start: usize, end: usize, who: Userinfo) {
    let url = cx.url;
    let sp = split(url, start, end);
    if let Some(at) = sp.at {
        // RFC 9110 4.2.4 deprecates userinfo in http(s) without making it
        // invalid: the modern profile reads it like any userinfo, and warns.
        let deprecated = who == Userinfo::Forbidden
            && cx.grammar == Grammar::Modern
            && matches!(kind, SchemeKind::Http | SchemeKind::Https);
        let user_end = sp.password_colon.unwrap_or(at);
        let pass = sp.password_colon.map_or(&url[at..at], |c| &url[c + 1..at]);
        if deprecated && stand_in(&url[start..user_end], pass) {
            // `http://user:pass@host/` in a text about credentials: the
            // example is the point, there is nothing to fix.
            userinfo(cx, start, sp.password_colon, at);
        } else {
            match who {
                Userinfo::Allowed => userinfo(cx, start, sp.password_colon, at),
                Userinfo::Forbidden | Userinfo::File => {
                    let code = if who == Userinfo::File {
                        Code::FileHost
                    } else {
                        Code::UserinfoNotAllowed
                    };
                    let fix = cx.replaced(start, at + 1, "");
                    let scheme = String::from_utf8_lossy(&url[..start.saturating_sub(3)])
                        .to_ascii_lowercase();
                    let msg = if deprecated {
                        format!(
                            "user name or password {} in an {scheme} URL: deprecated (RFC 9110 4.2.4), and it can disguise the host",
                            cx.show(start, at + 1)
                        )
                    } else {
                        format!(
                            "user name or password {} not allowed in {scheme} URLs",
                            cx.show(start, at + 1)
                        )
                    };
                    cx.report(code, start, at + 1, msg);
                    cx.fix(fix);
                    if deprecated {
                        userinfo(cx, start, sp.password_colon, at);
                    }
                }
            }
        }
    }
    let hosts_start = sp.at.map_or(start, |at| at + 1);
    for (s, e) in hosts(url, cx.grammar, hosts_start, end) {
        let sp = if (s, e) == (hosts_start, end) { sp } else { split(url, s, e) };
        let (hs, he) = sp.host;
        if hs == he {
            if who != Userinfo::File || sp.port_colon.is_some() {
                cx.report(Code::EmptyHost, hs, he, "empty host");
            }
        } else {
            host(cx, hs, he);
        }
        if let Some(c) = sp.port_colon {
            if who == Userinfo::File {
                file_port(cx, hs, he, c, e);
            } else {
                port(cx, kind, c, e);
            }
        }
    }
}

/// Checks `user[:password]` in `url[start..at]`, warning about a non-empty
/// password.
fn userinfo(cx: &mut Ctx<'_>, start: usize, password_colon: Option<usize>, at: usize) {
    let user_end = password_colon.unwrap_or(at);
    cx.check_chars(start, user_end, &USER);
    cx.component("user", start, user_end);
    if let Some(c) = password_colon {
        cx.check_chars(c + 1, at, &PASSWORD);
        cx.component("password", c + 1, at);
        password(cx, start, c, at);
    }
}

/// Warns about the password after the `:` at `colon`, ending at the `@` at
/// `at`, of the user that starts at `user`; an empty password
/// (`ftp://foo:@host/`) reveals nothing, and neither does a stand-in one
/// in the modern profile (see [`stand_in`]).
pub(crate) fn password(cx: &mut Ctx<'_>, user: usize, colon: usize, at: usize) {
    let url = cx.url;
    if cx.grammar == Grammar::Modern && stand_in(&url[user..colon], &url[colon + 1..at]) {
        return;
    }
    if at > colon + 1 {
        let fix = cx.replaced(colon, at, "");
        let msg = format!(
            "password {} written in the URL (RFC 1738 6: clearly unwise)",
            cx.show(colon + 1, at)
        );
        cx.report(Code::PasswordPresent, colon + 1, at, msg);
        cx.fix(fix);
    }
}

/// Whether `user` and `password` are stand-ins that hold no secret: the
/// words documentation writes for them (`user:pass`, `username:password`,
/// `foo:bar`), a run of one masking character (`xxx`, `***`), or the
/// public credentials of anonymous access (`anonymous`, `anoncvs`,
/// `guest`; a CVSROOT's `:pserver:anoncvs` reads as the last of its
/// `:`-separated fields).
pub(crate) fn stand_in(user: &[u8], password: &[u8]) -> bool {
    const USERS: &[&str] =
        &["user", "username", "usr", "login", "name", "foo", "me", "you", "someone", "john"];
    const PASSWORDS: &[&str] = &[
        "pass",
        "password",
        "passwd",
        "pwd",
        "pw",
        "secret",
        "changeme",
        "mypassword",
        "yourpassword",
        "your_password",
        "mypass",
        "bar",
        "foo",
        "hunter2",
        "test",
        "example",
        "token",
    ];
    const PUBLIC: &[&str] = &["anonymous", "anoncvs", "anon", "guest", "ftp"];
    let is =
        |word: &[u8], list: &[&str]| list.iter().any(|w| word.eq_ignore_ascii_case(w.as_bytes()));
    let last = password.rsplit(|&b| b == b':').next().unwrap_or(password);
    let masked = last.len() >= 3
        && matches!(last[0], b'x' | b'X' | b'*')
        && last.iter().all(|&b| b == last[0]);
    is(last, PASSWORDS)
        || is(last, PUBLIC)
        || is(user, PUBLIC)
        || masked
        || (is(user, USERS) && (password.is_empty() || is(last, PASSWORDS)))
}

/// `file://host:port/`: no port is allowed; `file://C:/dir` is a drive
/// letter that belongs in the path.
fn file_port(cx: &mut Ctx<'_>, hs: usize, he: usize, colon: usize, end: usize) {
    let drive = he == hs + 1 && cx.url[hs].is_ascii_alphabetic() && colon + 1 == end;
    if drive {
        let fix = cx.replaced(hs, hs, "/");
        let msg = format!(
            "{} in the host looks like a drive letter; it belongs in the path (`file:///{}:/...`)",
            cx.show(hs, colon + 1),
            cx.url[hs] as char
        );
        cx.report(Code::FileHost, hs, colon + 1, msg);
        cx.fix(fix);
    } else {
        let fix = cx.replaced(colon, end, "");
        let msg = format!("port {} not allowed in a file URL", cx.show(colon, end));
        cx.report(Code::FileHost, colon, end, msg);
        cx.fix(fix);
    }
}

/// Checks the port after the `:` at `colon`.
pub(crate) fn port(cx: &mut Ctx<'_>, kind: SchemeKind, colon: usize, end: usize) {
    let url = cx.url;
    let (ps, pe) = (colon + 1, end);
    cx.component("port", ps, pe);
    if ps == pe {
        // RFC 3986 3.2.3: `port = *DIGIT`; an empty one is only
        // unnormalized (`http://host:/` is `http://host/`).
        if cx.grammar.is_3986() {
            return;
        }
        let fix = cx.replaced(colon, end, "");
        cx.report(Code::BadPort, colon, end, "empty port after `:`");
        cx.fix(fix);
        return;
    }
    if let Some(bad) = url[ps..pe].iter().position(|b| !b.is_ascii_digit()) {
        let msg = format!(
            "port {} is not a decimal number ({} at offset {bad})",
            cx.show(ps, pe),
            chars::describe(url[ps + bad])
        );
        cx.report(Code::BadPort, ps, pe, msg);
        return;
    }
    let value = port_value(&url[ps..pe]);
    if value > 65535 {
        let msg = format!("port {} is above 65535", cx.show(ps, pe));
        cx.report(Code::PortRange, ps, pe, msg);
        return;
    }
    match port_notice(kind, value) {
        Some(Code::DefaultPort) => {
            let fix = cx.replaced(colon, end, "");
            let msg = format!("port {} is the default for this scheme", cx.show(ps, pe));
            cx.report(Code::DefaultPort, colon, end, msg);
            cx.fix(fix);
        }
        Some(code) => {
            let msg = format!(
                "port {value} is below 1024 and not the scheme's default {}: the client may talk to another protocol (RFC 1738 6)",
                kind.default_port().unwrap_or_default()
            );
            cx.report(code, ps, pe, msg);
        }
        None => {}
    }
}

/// Every byte a host name holds, for the character check.
const HOST: Class = Class {
    what: "host",
    set: |_: &Sets| chars::HOSTNAME,
    escapes: false,
    other: Code::BadHostname,
    encode_fix: false,
    raw_tab_crlf: None,
};

/// The modern profile's host name, which may hold `_` as DNS names do
/// (`_dmarc.example.org`, and hosts named before RFC 1123).
const MODERN_HOST: Class = Class { set: |_: &Sets| chars::HOSTNAME.with(b"_"), ..HOST };

/// Checks a non-empty host `url[hs..he]`: an IP literal (RFC 3986), a
/// dotted quad, or a host name (in the modern profile also an
/// internationalized one).
pub(crate) fn host(cx: &mut Ctx<'_>, hs: usize, he: usize) {
    let url = cx.url;
    let text = &url[hs..he];
    cx.component("host", hs, he);
    // A documentation host is spared the host-name rules, not RFC 3986's
    // syntax: `a b.example` still has a space in it.
    if cx.grammar.is_3986()
        && super::idn::is_documentation_host(text)
        && text.iter().all(|&b| b == b'%' || cx.sets.regname.has(b) || b == b'[' || b == b']')
    {
        return;
    }
    if cx.grammar == Grammar::Modern && super::idn::modern_host(cx, hs, he) {
        return;
    }
    if text[0] == b'[' {
        let literal = cx.validator.ip_literal().is_match(text);
        match (literal, cx.grammar) {
            (true, Grammar::Rfc3986 | Grammar::Modern) => {}
            (true, Grammar::Rfc1738) => {
                let msg = format!("IP literal host {}{}", cx.show(hs, he), cx.hint(true));
                cx.report(Code::BadHostname, hs, he, msg);
            }
            (false, _) => {
                let msg = format!("malformed IP literal host {}", cx.show(hs, he));
                cx.report(Code::BadHostname, hs, he, msg);
            }
        }
        return;
    }
    if let Some(parts) = hostnumber(text) {
        for (s, e, v) in parts {
            if v > 255 {
                let msg = format!("IP address part {} is above 255", cx.show(hs + s, hs + e));
                cx.report(Code::IpOctetRange, hs + s, hs + e, msg);
            }
        }
        return;
    }
    let mut name_end = he;
    if text.len() > 1 && text[text.len() - 1] == b'.' {
        if cx.grammar == Grammar::Rfc1738 {
            let msg = format!(
                "trailing dot in host {}: RFC 1738 host names end with a label{}",
                cx.show(hs, he),
                cx.hint(true)
            );
            let fix = cx.replaced(he - 1, he, "");
            cx.report(Code::BadHostname, he - 1, he, msg);
            cx.fix(fix);
        }
        name_end = he - 1;
    }
    cx.check_chars(hs, name_end, if cx.grammar == Grammar::Modern { &MODERN_HOST } else { &HOST });
    labels(cx, hs, name_end);
}

/// `hostname = *[ domainlabel "." ] toplabel`: labels are non-empty, do not
/// start or end with `-`, and the last starts with a letter.
fn labels(cx: &mut Ctx<'_>, hs: usize, he: usize) {
    let url = cx.url;
    let hostname = if cx.grammar == Grammar::Modern { MODERN_HOST.set } else { HOST.set }(cx.sets);
    let mut s = hs;
    loop {
        let e = find(url, s, he, b'.').unwrap_or(he);
        let label = &url[s..e];
        if label.is_empty() {
            let msg = format!("empty label in host {}", cx.show(hs, he));
            cx.report(Code::BadHostname, s, (s + 1).min(he), msg);
        } else {
            if label[0] == b'-' || label[label.len() - 1] == b'-' {
                let msg = format!("host label {} starts or ends with `-`", cx.show(s, e));
                cx.report(Code::LabelHyphen, s, e, msg);
            }
            if e == he && label[0].is_ascii_digit() && label.iter().all(|&b| hostname.has(b)) {
                let msg = format!(
                    "top label {} of host {} starts with a digit, and the host is not a dotted-quad address",
                    cx.show(s, e),
                    cx.show(hs, he)
                );
                cx.report(Code::TopLabelDigit, s, e, msg);
            }
        }
        if e == he {
            break;
        }
        s = e + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits() {
        let u = b"user:pw@host:21";
        let sp = split(u, 0, u.len());
        assert_eq!(sp.at, Some(7));
        assert_eq!(sp.password_colon, Some(4));
        assert_eq!(sp.host, (8, 12));
        assert_eq!(sp.port_colon, Some(12));
        let u = b"[::1]:80";
        let sp = split(u, 0, u.len());
        assert_eq!(sp.host, (0, 5));
        assert_eq!(sp.port_colon, Some(5));
        let u = b"a@b@c";
        assert_eq!(split(u, 0, u.len()).host, (4, 5));
    }

    #[test]
    fn numbers() {
        assert!(hostnumber(b"1.2.3.4").is_some());
        assert!(hostnumber(b"1.2.3").is_none());
        assert!(hostnumber(b"1.2.3.4.5").is_none());
        assert!(hostnumber(b"1..3.4").is_none());
        assert!(!host_octets_ok(b"256.0.0.1"));
        assert!(host_octets_ok(b"0255.0.0.1"));
        assert_eq!(port_value(b"99999999999999999999"), 1 << 20);
    }
}
