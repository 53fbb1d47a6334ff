//! urlsift's SARIF against the official OASIS SARIF 2.1.0 JSON schema
//! (issue 16): code-scanning services reject a document that does not
//! validate. The schema and the validator are Python packages
//! (tests/support/validate_sarif.py says which); `.ci/run` installs them.
//! Without them the test says "skipped" and passes, unless
//! URLSIFT_REQUIRE_SARIF_SCHEMA is set, as CI sets it.

use std::path::PathBuf;
use std::process::Command;

/// What the validator said.
enum Verdict {
    /// For each file given, in order: `None` when valid, else the errors.
    Judged(Vec<Option<String>>),
    /// The validator or the schema is not installed: why.
    Missing(String),
}

/// The Python that has the validator: URLSIFT_SARIF_PYTHON (CI's
/// virtual environment), else `python3` from PATH.
fn python() -> String {
    std::env::var("URLSIFT_SARIF_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Validates `files` in one run of the validator (each start of it costs
/// about two seconds: its format checkers build parsers).
fn validate(files: &[PathBuf]) -> Verdict {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/validate_sarif.py");
    let o = match Command::new(python()).arg(script).args(files).output() {
        Ok(o) => o,
        Err(e) => return Verdict::Missing(format!("cannot run {}: {e}", python())),
    };
    let out = String::from_utf8_lossy(&o.stdout);
    match o.status.code() {
        Some(0 | 1) => Verdict::Judged(
            files
                .iter()
                .map(|f| {
                    let f = format!("{}: ", f.display());
                    let said: Vec<&str> = out.lines().filter(|l| l.starts_with(&f)).collect();
                    (said != [format!("{f}valid")]).then(|| said.join("\n"))
                })
                .collect(),
        ),
        Some(3) => Verdict::Missing(out.trim().to_string()),
        _ => panic!("the validator failed: {out}{}", String::from_utf8_lossy(&o.stderr)),
    }
}

/// A tree whose findings exercise every part of urlsift's SARIF: a
/// finding with related locations and a fix, non-ASCII text before and in
/// the findings, a rejoined URL (no fix), and a path that must be
/// percent-encoded.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("docs and notes");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("caf\u{e9} #1 [draft].txt"),
        "R\u{e9}sum\u{e9} \u{1f600}: http://h.example/~a/~b|c and <URL:http://a.example:80/>\n\
         <URL:ftp://f.example/pub/\n  r\u{e9}sum\u{e9}.txt;type=x>\n\
         news:\u{e9}t\u{e9}\n",
    )
    .unwrap();
    dir
}

#[test]
fn sarif_output_validates_against_the_oasis_schema() {
    let t = fixture();
    let o = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(["lint", "--format", "sarif", "--no-config", "--grammar", "rfc1738", "."])
        .current_dir(t.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The fixture holds what it claims to, so the schema judges all of it.
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let has = |key: &str| results.iter().any(|r| r.get(key).is_some());
    assert!(has("relatedLocations") && has("fixes"), "{doc}");
    let uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].clone();
    assert_eq!(uri, "docs%20and%20notes/caf%C3%A9%20%231%20%5Bdraft%5D.txt");
    assert!(results.iter().any(|r| !r["message"]["text"].as_str().unwrap().is_ascii()));

    // The validator must also reject what the schema forbids, so that a
    // pass means something: each of these documents breaks one rule.
    type Break = fn(&mut serde_json::Value);
    let breaks: [(&str, Break); 4] = [
        ("column 0", |d| {
            d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] =
                0.into()
        }),
        ("a space in a URI", |d| {
            d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] =
                "docs and notes/x.txt".into()
        }),
        ("a fix without changes", |d| {
            let r = d["runs"][0]["results"].as_array_mut().unwrap();
            let fixed = r.iter_mut().find(|r| r.get("fixes").is_some()).unwrap();
            fixed["fixes"][0].as_object_mut().unwrap().remove("artifactChanges");
        }),
        ("an unknown level", |d| d["runs"][0]["results"][0]["level"] = "fatal".into()),
    ];
    let mut files = vec![t.path().join("urlsift.sarif")];
    std::fs::write(&files[0], &o.stdout).unwrap();
    for (i, (_, break_it)) in breaks.iter().enumerate() {
        let mut bad = doc.clone();
        break_it(&mut bad);
        files.push(t.path().join(format!("broken-{i}.sarif")));
        std::fs::write(&files[i + 1], serde_json::to_vec(&bad).unwrap()).unwrap();
    }
    let verdicts = match validate(&files) {
        Verdict::Judged(v) => v,
        Verdict::Missing(why) => {
            if std::env::var_os("URLSIFT_REQUIRE_SARIF_SCHEMA").is_some() {
                panic!(
                    "URLSIFT_REQUIRE_SARIF_SCHEMA is set, but the validator is not there: {why}"
                );
            }
            println!("skipped: the SARIF schema validator is not installed ({why})");
            return;
        }
    };
    if let Some(errors) = &verdicts[0] {
        panic!("urlsift's SARIF does not validate:\n{errors}");
    }
    for ((what, _), verdict) in breaks.iter().zip(&verdicts[1..]) {
        assert!(verdict.is_some(), "a document with {what} passed the validator");
    }
}
