//! http and https: `HEAD`, then `GET` where the server refuses `HEAD` or
//! answers it with an error; redirects followed one by one (so each
//! hop's kind is known, and headers meant for one host never reach
//! another); no body read unless a fragment is to be found in it.

#![cfg_attr(not(feature = "online"), allow(dead_code, unused_imports))]

use std::time::Duration;

use super::target::{Target, join, wire};
use super::{Outcome, Settings};

/// The largest page read to look for a fragment's anchor.
const MAX_PAGE: u64 = 8 << 20;

/// The client, shared by every check of a run (its pool keeps
/// connections to a host alive between checks).
#[cfg(feature = "online")]
pub(super) fn agent(s: &Settings) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(s.timeout))
        .user_agent(s.user_agent.as_str())
        .max_idle_connections_per_host(s.per_host.max(1))
        .build()
        .new_agent()
}

/// What one response said.
#[cfg(feature = "online")]
struct Answer {
    status: u16,
    location: Option<String>,
    retry_after: Option<Duration>,
    html: bool,
    body: Option<ureq::Body>,
}

#[cfg(feature = "online")]
fn request(
    agent: &ureq::Agent,
    get: bool,
    url: &str,
    headers: &[(String, String)],
) -> Result<Answer, Outcome> {
    let mut rb = if get { agent.get(url) } else { agent.head(url) };
    for (k, v) in headers {
        rb = rb.header(k.as_str(), v.as_str());
    }
    match rb.call() {
        Ok(resp) => {
            let h = resp.headers();
            // Lossy: a server may send a `Location` in raw UTF-8.
            let text = |name: &str| {
                h.get(name).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            };
            let status = resp.status().as_u16();
            let location = text("location");
            let retry_after = text("retry-after").and_then(|v| retry_after(&v));
            let html =
                text("content-type").is_some_and(|c| c.to_ascii_lowercase().contains("html"));
            let body = get.then(|| resp.into_body());
            Ok(Answer { status, location, retry_after, html, body })
        }
        Err(e) => Err(error(e, url.starts_with("https:"))),
    }
}

/// `Retry-After` in seconds (the date form is read as the default
/// back-off: clocks disagree).
fn retry_after(v: &str) -> Option<Duration> {
    v.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(feature = "online")]
fn error(e: ureq::Error, https: bool) -> Outcome {
    use ureq::Error as E;
    match e {
        E::Timeout(_) => Outcome::Timeout,
        E::HostNotFound => Outcome::Dns("the host name does not resolve".into()),
        // rustls reports a bad certificate or handshake through the
        // stream, as invalid data.
        E::Io(io) if https && io.kind() == std::io::ErrorKind::InvalidData => {
            Outcome::Tls(io.get_ref().map_or_else(|| io.to_string(), |e| e.to_string()))
        }
        E::Io(io) => super::tcp::io_outcome(&io),
        E::Tls(m) => Outcome::Tls(m.to_owned()),
        E::Rustls(r) => Outcome::Tls(r.to_string()),
        E::Pem(p) => Outcome::Tls(p.to_string()),
        E::ConnectionFailed => Outcome::Refused,
        E::BadUri(_) | E::Http(_) => Outcome::Skipped("the HTTP client cannot send this URL"),
        other => Outcome::Protocol(other.to_string()),
    }
}

/// The headers configured for `host` (see [`super::Header`]), over
/// https only: a token must not cross the network in clear text, even
/// when a link (or a redirect) says `http:`.
fn headers_for(s: &Settings, host: &str, https: bool) -> Vec<(String, String)> {
    if !https {
        return Vec::new();
    }
    s.headers
        .iter()
        .filter(|h| h.matches(host))
        .map(|h| (h.name.clone(), h.value.clone()))
        .collect()
}

/// Checks one http(s) URL; a `Retry` outcome asks the caller to wait and
/// try again.
#[cfg(feature = "online")]
pub(super) fn check(
    agent: &ureq::Agent,
    url: &str,
    t: &Target<'_>,
    s: &Settings,
    allowed: &dyn Fn(&str) -> bool,
) -> Outcome {
    let mut current = wire(url, t).into_owned();
    let mut host = t.host.clone();
    let mut https = t.scheme == "https";
    let mut seen = vec![current.clone()];
    let mut all_permanent = true;
    let mut first_status = 0;
    loop {
        let headers = headers_for(s, &host, https);
        let mut a = match request(agent, false, &current, &headers) {
            Ok(a) => a,
            Err(o) => return o,
        };
        // HEAD refused (405, 501), or answered with an error that GET may
        // not give (some servers and CDNs answer HEAD 403 or 404): GET,
        // headers only; but a 429 or a gateway's 5xx is a pause, not a
        // refusal. With a fragment to find, GET the page.
        let want_page = s.fragments && t.fragment.is_some_and(|f| !f.is_empty());
        let transient = matches!(a.status, 429 | 502..=504);
        if (a.status >= 400 && !transient) || (want_page && (200..300).contains(&a.status)) {
            match request(agent, true, &current, &headers) {
                Ok(g) => a = g,
                Err(o) => return o,
            }
        }
        match a.status {
            200..=299 => {
                let mut outcome = if seen.len() > 1 {
                    // A `Location` without a fragment keeps the link's
                    // (RFC 9110 10.2.2): the fix must not lose it.
                    let to = match t.fragment {
                        Some(f) if !current.contains('#') => format!("{current}#{f}"),
                        _ => current.clone(),
                    };
                    Outcome::Redirected { to, status: first_status, permanent: all_permanent }
                } else {
                    Outcome::Alive
                };
                if want_page
                    && a.html
                    && let Some(body) = a.body.take()
                    && let Some(f) = t.fragment
                {
                    outcome = fragment(body, f, outcome);
                }
                return outcome;
            }
            300..=399 if a.location.is_some() => {
                let next = join(&current, a.location.as_deref().unwrap_or_default());
                if first_status == 0 {
                    first_status = a.status;
                }
                all_permanent &= matches!(a.status, 301 | 308);
                let Some(nt) = Target::parse(&next) else {
                    return Outcome::Protocol(format!("redirected to {next}, not a web URL"));
                };
                let next_wire = wire(&next, &nt).into_owned();
                if seen.contains(&next_wire) {
                    return Outcome::Protocol(format!("redirect loop at {next}"));
                }
                if seen.len() > s.max_redirects as usize {
                    return Outcome::Protocol(format!(
                        "more than {} redirects (the last to {next})",
                        s.max_redirects
                    ));
                }
                if nt.scheme != "http" && nt.scheme != "https" {
                    return Outcome::Protocol(format!("redirected to {next}, not a web URL"));
                }
                // A public page may redirect to a private address (a cloud
                // metadata service): not followed unless asked.
                if !allowed(&next) {
                    return Outcome::Protocol(format!(
                        "redirected to {next}, a local or private host (not followed)"
                    ));
                }
                host = nt.host.clone();
                https = nt.scheme == "https";
                current = next_wire;
                seen.push(current.clone());
            }
            404 | 410 => {
                let via = if seen.len() > 1 {
                    format!(" (redirected to {current})")
                } else {
                    String::new()
                };
                return Outcome::NotFound(format!("HTTP {}{via}", status_text(a.status)));
            }
            429 | 502..=504 => return Outcome::Retry(a.status, a.retry_after),
            status => return Outcome::Status(status, status_text(status)),
        }
    }
}

/// Whether the page has an element whose `id` (or an `<a name>`) is the
/// fragment.
#[cfg(feature = "online")]
fn fragment(mut body: ureq::Body, f: &str, found: Outcome) -> Outcome {
    let Ok(page) = body.with_config().limit(MAX_PAGE).read_to_vec() else { return found };
    let Some(anchors) = crate::links::Anchors::of(crate::doc::Format::Html, &page) else {
        return found;
    };
    let decoded = super::target::decode_bytes(f);
    if anchors.has(&decoded) || anchors.has(f.as_bytes()) {
        found
    } else {
        Outcome::FragmentMissing(f.to_owned())
    }
}

/// `404 Not Found`: the code and its reason phrase.
pub(super) fn status_text(status: u16) -> String {
    let r = match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        410 => "Gone",
        429 => "Too Many Requests",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    };
    if r.is_empty() { status.to_string() } else { format!("{status} {r}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_go_to_their_hosts_over_https_only() {
        let s = Settings {
            headers: vec![super::super::Header {
                host: "api.example.org".into(),
                name: "Authorization".into(),
                value: "t".into(),
            }],
            ..Settings::default()
        };
        assert_eq!(
            headers_for(&s, "api.example.org", true),
            [("Authorization".into(), "t".into())]
        );
        assert!(headers_for(&s, "api.example.org", false).is_empty());
        assert!(headers_for(&s, "other.example.org", true).is_empty());
    }
}
