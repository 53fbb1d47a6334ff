//! The parts of a URL a check needs (scheme, server, path), read from a
//! URL the validator has already passed, and the joining of a redirect's
//! `Location` to the URL it answered.

use std::borrow::Cow;

/// A URL cut into what a connection needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target<'a> {
    /// Lower-case scheme.
    pub scheme: String,
    /// `user` of `user:password@`, percent-decoded.
    pub user: Option<String>,
    /// `password` of `user:password@`, percent-decoded.
    pub password: Option<String>,
    /// The host as written (an IPv6 literal without its brackets),
    /// lower-case.
    pub host: String,
    /// Where the host is in the URL.
    pub host_at: std::ops::Range<usize>,
    /// The port, or the scheme's default.
    pub port: u16,
    /// Everything after the authority, up to the fragment: `/path?query`
    /// (for `news:`, the whole body).
    pub rest: &'a str,
    /// The fragment, without `#`.
    pub fragment: Option<&'a str>,
}

/// The port a scheme's server listens on when the URL names none.
pub(crate) fn default_port(scheme: &str) -> Option<u16> {
    Some(match scheme {
        "http" => 80,
        "https" => 443,
        "ftp" => 21,
        "gopher" => 70,
        "telnet" => 23,
        "nntp" | "news" => 119,
        _ => return None,
    })
}

impl<'a> Target<'a> {
    /// Reads `url`; `None` when it has no scheme this module checks or
    /// no host where one is needed.
    pub(crate) fn parse(url: &'a str) -> Option<Target<'a>> {
        let colon = url.find(':')?;
        let scheme = url[..colon].to_ascii_lowercase();
        let port = default_port(&scheme)?;
        let body = &url[colon + 1..];
        let (body, fragment) = match body.find('#') {
            Some(i) => (&body[..i], Some(&body[i + 1..])),
            None => (body, None),
        };
        // `news:group` names no server; RFC 5538's `news://server/group`
        // does, as nntp does.
        if scheme == "news" && !body.starts_with("//") {
            return Some(Target {
                scheme,
                user: None,
                password: None,
                host: String::new(),
                host_at: 0..0,
                port,
                rest: body,
                fragment,
            });
        }
        let after = body.strip_prefix("//")?;
        let after_at = colon + 3;
        let end = after.find(['/', '?']).unwrap_or(after.len());
        let (authority, rest) = after.split_at(end);
        let (userinfo, hostport, hostport_at) = match authority.rfind('@') {
            Some(i) => (Some(&authority[..i]), &authority[i + 1..], after_at + i + 1),
            None => (None, authority, after_at),
        };
        let (host, port_text, host_start) = if let Some(v6) = hostport.strip_prefix('[') {
            let close = v6.find(']')?;
            (&v6[..close], v6[close + 1..].strip_prefix(':'), hostport_at + 1)
        } else {
            match hostport.rfind(':') {
                Some(i) => (&hostport[..i], Some(&hostport[i + 1..]), hostport_at),
                None => (hostport, None, hostport_at),
            }
        };
        if host.is_empty() {
            return None;
        }
        let port = match port_text {
            Some("") | None => port,
            Some(p) => p.parse().ok()?,
        };
        let (user, password) = match userinfo {
            Some(u) => match u.split_once(':') {
                Some((n, p)) => (Some(decode(n)), Some(decode(p))),
                None => (Some(decode(u)), None),
            },
            None => (None, None),
        };
        Some(Target {
            scheme,
            user,
            password,
            host: host.to_ascii_lowercase(),
            host_at: host_start..host_start + host.len(),
            port,
            rest,
            fragment,
        })
    }

    /// `host:port` as a socket address is written (IPv6 in brackets): the
    /// key of the per-server limit, and what a TCP check connects to.
    pub(crate) fn server(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Percent-decoding, lossy where the bytes are not UTF-8 (a user name, a
/// selector: what a server is sent).
pub(crate) fn decode(s: &str) -> String {
    String::from_utf8_lossy(&decode_bytes(s)).into_owned()
}

/// Percent-decoding to bytes; a `%` not followed by two hex digits stays.
pub(crate) fn decode_bytes(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let (Some(h), Some(l)) =
                (b.get(i + 1).and_then(|&c| hex(c)), b.get(i + 2).and_then(|&c| hex(c)))
        {
            out.push(h << 4 | l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// A redirect's `Location` resolved against the URL that answered it
/// (RFC 3986 section 5.2, without dot-segment removal: servers send
/// absolute paths or URLs in practice).
pub(crate) fn join(base: &str, location: &str) -> String {
    let location = location.trim();
    let has_scheme = location.find(':').is_some_and(|i| {
        i > 0
            && location[..i].bytes().all(|c| c.is_ascii_alphanumeric() || b"+-.".contains(&c))
            && location.as_bytes()[0].is_ascii_alphabetic()
    });
    if has_scheme {
        return location.to_owned();
    }
    let Some(colon) = base.find(':') else { return location.to_owned() };
    let scheme = &base[..colon];
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{scheme}://{rest}");
    }
    let after = &base[colon + 1..];
    let (auth_end, path_start) = match after.strip_prefix("//") {
        Some(a) => {
            let e = a.find(['/', '?', '#']).unwrap_or(a.len());
            (colon + 3 + e, colon + 3 + e)
        }
        None => (colon + 1, colon + 1),
    };
    let origin = &base[..auth_end];
    if location.starts_with('/') {
        return format!("{origin}{}", remove_dots(location));
    }
    let path_end = base[path_start..].find(['?', '#']).map_or(base.len(), |i| path_start + i);
    let path = &base[path_start..path_end];
    if location.is_empty() {
        return base[..path_end].to_owned();
    }
    if location.starts_with('?') || location.starts_with('#') {
        return format!("{}{location}", &base[..path_end]);
    }
    let dir = match path.rfind('/') {
        Some(i) => &path[..=i],
        None => "/",
    };
    format!("{origin}{}", remove_dots(&format!("{dir}{location}")))
}

/// RFC 3986 5.2.4: `.` and `..` segments of a merged path removed (the
/// query and fragment, after `?` or `#`, left alone).
fn remove_dots(path: &str) -> String {
    let end = path.find(['?', '#']).unwrap_or(path.len());
    let (p, tail) = path.split_at(end);
    let mut out: Vec<&str> = Vec::new();
    let segs: Vec<&str> = p.split('/').collect();
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    format!("{}{tail}", out.join("/"))
}

/// The URL as an HTTP client must send it: an internationalized host as
/// its A-label, and bytes outside printable ASCII percent-encoded.
pub(crate) fn wire(url: &str, t: &Target<'_>) -> Cow<'static, str> {
    let mut s = url.to_owned();
    if !t.host.is_ascii()
        && let Ok(ascii) = idna::domain_to_ascii(&t.host)
        && s.get(t.host_at.clone()).is_some()
    {
        s.replace_range(t.host_at.clone(), &ascii);
    }
    if let Some(i) = s.find('#') {
        s.truncate(i);
    }
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_graphic() && !b"\"<>\\^`{|}".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_read() {
        let t =
            Target::parse("ftp://anne:s%40cret@Files.Example.org:2121/pub/a.txt;type=i#x").unwrap();
        assert_eq!(t.scheme, "ftp");
        assert_eq!(t.user.as_deref(), Some("anne"));
        assert_eq!(t.password.as_deref(), Some("s@cret"));
        assert_eq!(t.host, "files.example.org");
        assert_eq!(t.port, 2121);
        assert_eq!(t.rest, "/pub/a.txt;type=i");
        assert_eq!(t.fragment, Some("x"));
        assert_eq!(t.server(), "files.example.org:2121");
        let t = Target::parse("http://[::1]:8080/x?y").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.rest), ("::1", 8080, "/x?y"));
        assert_eq!(t.server(), "[::1]:8080");
        let t = Target::parse("HTTPS://example.com").unwrap();
        assert_eq!((t.scheme.as_str(), t.port, t.rest), ("https", 443, ""));
        let t = Target::parse("news:comp.lang.rust").unwrap();
        assert_eq!(t.rest, "comp.lang.rust");
        assert!(Target::parse("mailto:a@b.example").is_none());
        assert!(Target::parse("http:///x").is_none());
        assert!(Target::parse("http://h:99999/").is_none());
    }

    #[test]
    fn locations_are_joined() {
        let b = "http://h.example:81/a/b/c?q#f";
        assert_eq!(join(b, "https://o.example/x"), "https://o.example/x");
        assert_eq!(join(b, "//o.example/x"), "http://o.example/x");
        assert_eq!(join(b, "/x?y"), "http://h.example:81/x?y");
        assert_eq!(join(b, "d"), "http://h.example:81/a/b/d");
        assert_eq!(join(b, "?z"), "http://h.example:81/a/b/c?z");
        assert_eq!(join("http://h.example", "x"), "http://h.example/x");
        assert_eq!(join(b, "../x"), "http://h.example:81/a/x");
        assert_eq!(join(b, "./"), "http://h.example:81/a/b/");
        assert_eq!(join(b, "../../../x?q"), "http://h.example:81/x?q");
        assert_eq!(join(b, "/a/./b/../c"), "http://h.example:81/a/c");
    }

    #[test]
    fn the_wire_form_is_ascii() {
        let u = "http://bücher.example/ä b#frag";
        let t = Target::parse(u).unwrap();
        assert_eq!(wire(u, &t), "http://xn--bcher-kva.example/%C3%A4%20b");
        // The host replaced where it stands, whatever its case and
        // whatever else in the URL looks like it.
        let u = "http://Bücher.example@Bücher.example/";
        let t = Target::parse(u).unwrap();
        assert_eq!(wire(u, &t), "http://B%C3%BCcher.example@xn--bcher-kva.example/");
        let t = Target::parse("news://news.example.org/comp.lang.rust").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.rest), ("news.example.org", 119, "/comp.lang.rust"));
    }
}
