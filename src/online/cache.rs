//! The cache of online results between runs: a text file (by default
//! `.urlsift-cache` in the working directory), one result a line, sorted
//! by URL so that it diffs well:
//!
//! ```text
//! urlsift-cache 1
//! <unix seconds>\t<kind>\t<status>\t<redirect target or ->\t<detail or ->\t<url>
//! ```
//!
//! Only lasting results are kept (see `Outcome::lasting`): a time-out
//! or a refused connection is asked again next time. Headers sent (a
//! token) are never written. A damaged line is dropped, not fatal: the
//! URL is checked again.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Outcome;

const HEADER: &str = "urlsift-cache 1";

/// Results read from the cache file, fresh ones only.
#[derive(Debug, Default)]
pub(super) struct Cache {
    path: Option<PathBuf>,
    entries: HashMap<String, (u64, Outcome)>,
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// A field as written: tabs and line breaks would split the line.
fn field(s: &str) -> String {
    if s.is_empty() { "-".into() } else { s.replace(['\t', '\n', '\r'], " ") }
}

fn unfield(s: &str) -> String {
    if s == "-" { String::new() } else { s.to_owned() }
}

fn encode(o: &Outcome) -> Option<(&'static str, u16, String, String)> {
    Some(match o {
        Outcome::Alive => ("alive", 0, String::new(), String::new()),
        Outcome::Redirected { to, status, permanent } => {
            (if *permanent { "moved" } else { "redirected" }, *status, to.clone(), String::new())
        }
        Outcome::NotFound(why) => ("not-found", 0, String::new(), why.clone()),
        Outcome::Status(s, text) => ("http-status", *s, String::new(), text.clone()),
        Outcome::FragmentMissing(f) => ("fragment-missing", 0, String::new(), f.clone()),
        _ => return None,
    })
}

fn decode(kind: &str, status: u16, to: String, detail: String) -> Option<Outcome> {
    Some(match kind {
        "alive" => Outcome::Alive,
        "moved" | "redirected" => Outcome::Redirected { to, status, permanent: kind == "moved" },
        "not-found" => Outcome::NotFound(detail),
        "http-status" => Outcome::Status(status, detail),
        "fragment-missing" => Outcome::FragmentMissing(detail),
        _ => return None,
    })
}

impl Cache {
    /// Reads the file at `path`, keeping entries younger than `age`. A
    /// missing file is an empty cache.
    pub(super) fn load(path: Option<PathBuf>, age: Duration) -> Cache {
        let mut entries = HashMap::new();
        if let Some(p) = &path
            && let Ok(text) = std::fs::read_to_string(p)
            && text.lines().next() == Some(HEADER)
        {
            let t = now();
            for line in text.lines().skip(1) {
                let f: Vec<&str> = line.splitn(6, '\t').collect();
                let [time, kind, status, to, detail, url] = f[..] else { continue };
                let (Ok(time), Ok(status)) = (time.parse::<u64>(), status.parse::<u16>()) else {
                    continue;
                };
                // An age of 0 keeps nothing, even from this second.
                if t.saturating_sub(time) >= age.as_secs() {
                    continue;
                }
                if let Some(o) = decode(kind, status, unfield(to), unfield(detail)) {
                    entries.insert(url.to_owned(), (time, o));
                }
            }
        }
        Cache { path, entries }
    }

    /// A fresh result for `url`.
    pub(super) fn get(&self, url: &str) -> Option<Outcome> {
        self.entries.get(url).map(|(_, o)| o.clone())
    }

    /// Writes the fresh entries read and this run's lasting results
    /// (which replace them), through a temporary file renamed in place.
    pub(super) fn save(&self, outcomes: &BTreeMap<String, Outcome>) -> Result<(), String> {
        let Some(path) = &self.path else { return Ok(()) };
        let t = now();
        let mut all: BTreeMap<&str, (u64, &Outcome)> =
            self.entries.iter().map(|(u, (time, o))| (u.as_str(), (*time, o))).collect();
        for (u, o) in outcomes {
            if o.lasting() && !u.contains(['\t', '\n', '\r']) {
                // A result taken from the cache keeps its own time, so an
                // entry ages out `age` after it was really checked.
                let time = match self.entries.get(u) {
                    Some((time, old)) if old == o => *time,
                    _ => t,
                };
                all.insert(u, (time, o));
            }
        }
        let mut text = String::from(HEADER);
        text.push('\n');
        for (u, (time, o)) in all {
            if let Some((kind, status, to, detail)) = encode(o) {
                text.push_str(&format!(
                    "{time}\t{kind}\t{status}\t{}\t{}\t{u}\n",
                    field(&to),
                    field(&detail)
                ));
            }
        }
        // Never over a file that is not a cache (a path set by mistake,
        // or by a config file one did not write).
        if let Ok(old) = std::fs::read(path)
            && !old.is_empty()
            && !old.starts_with(HEADER.as_bytes())
        {
            return Err(format!(
                "{}: exists and is not a urlsift cache: left alone",
                path.display()
            ));
        }
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(".".as_ref());
        let write = || -> std::io::Result<()> {
            let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
            tmp.write_all(text.as_bytes())?;
            tmp.persist(path).map_err(|e| e.error)?;
            Ok(())
        };
        write().map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_survive_a_round_trip_and_age_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c");
        let mut outcomes = BTreeMap::new();
        outcomes.insert("http://a.example/".to_string(), Outcome::Alive);
        outcomes.insert(
            "http://b.example/".to_string(),
            Outcome::Redirected { to: "https://b.example/".into(), status: 301, permanent: true },
        );
        outcomes.insert("http://c.example/".to_string(), Outcome::NotFound("HTTP 404\tx".into()));
        outcomes.insert("http://d.example/".to_string(), Outcome::Timeout);
        let c = Cache::load(Some(path.clone()), Duration::from_secs(60));
        c.save(&outcomes).unwrap();
        let c = Cache::load(Some(path.clone()), Duration::from_secs(60));
        assert_eq!(c.get("http://a.example/"), Some(Outcome::Alive));
        assert_eq!(c.get("http://b.example/"), outcomes.get("http://b.example/").cloned());
        assert_eq!(c.get("http://c.example/"), Some(Outcome::NotFound("HTTP 404 x".into())));
        // A time-out is the network's, not the server's: not kept.
        assert_eq!(c.get("http://d.example/"), None);
        // Entries older than the age limit are not used.
        let text = std::fs::read_to_string(&path).unwrap();
        let old: String = text
            .lines()
            .map(|l| match l.split_once('\t') {
                Some((_, rest)) => format!("1000\t{rest}\n"),
                None => format!("{l}\n"),
            })
            .collect();
        std::fs::write(&path, old).unwrap();
        let c = Cache::load(Some(path.clone()), Duration::from_secs(60));
        assert_eq!(c.get("http://a.example/"), None);
        // A damaged file is an empty cache, not an error.
        std::fs::write(&path, "urlsift-cache 1\nnonsense\n").unwrap();
        assert!(Cache::load(Some(path.clone()), Duration::from_secs(60)).entries.is_empty());
        // A file that is no cache is never written over.
        std::fs::write(&path, "export PATH=/bin\n").unwrap();
        let c = Cache::load(Some(path.clone()), Duration::from_secs(60));
        assert!(c.save(&outcomes).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "export PATH=/bin\n");
    }
}
