//! What `cargo package` ships (issue 16): everything the crate needs to
//! build and be read on crates.io, nothing of the repository's
//! scaffolding or big test inputs. Runs `cargo package --list`, which
//! reads the manifest and git's index and builds nothing.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn listed() -> Option<BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !dir.join(".git").exists() {
        // An unpacked crate (cargo package's own verify build): its
        // listing is what this test checks in the repository.
        eprintln!("skipped: not a git checkout");
        return None;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let o = Command::new(cargo)
        .args(["package", "--list", "--allow-dirty", "--offline", "--quiet"])
        .current_dir(dir)
        .output()
        .expect("cargo runs");
    assert!(o.status.success(), "cargo package --list: {}", String::from_utf8_lossy(&o.stderr));
    Some(String::from_utf8(o.stdout).unwrap().lines().map(str::to_owned).collect())
}

#[test]
fn the_package_holds_what_the_crate_needs_and_no_scaffolding() {
    let Some(files) = listed() else { return };
    for need in [
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "build.rs",
        "src/lib.rs",
        "src/main.rs",
        // `include_str!` in src/explain.rs: the build fails without it.
        "tests/data/codes.toml",
    ] {
        assert!(files.contains(need), "{need} is not packaged: {files:?}");
    }
    // Every source file git knows is shipped (a module left out would
    // only show when a user's build fails).
    let git = Command::new("git")
        .args(["ls-files", "src"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("git runs");
    for f in String::from_utf8(git.stdout).unwrap().lines() {
        assert!(files.contains(f), "{f} is in git but not packaged");
    }
    for f in &files {
        for never in ["corpus/", "fuzz/", ".ci/", "target/", "dist/", "scripts/"] {
            assert!(!f.starts_with(never), "{f} is packaged");
        }
    }
    // crates.io refuses crates over 10 MB; stay far below.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes: u64 =
        files.iter().filter_map(|f| std::fs::metadata(dir.join(f)).ok()).map(|m| m.len()).sum();
    assert!(bytes < 4 << 20, "the package holds {bytes} bytes");
}

#[test]
fn the_manifest_states_what_crates_io_and_the_readme_need() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let field = |k: &str| {
        manifest.lines().find_map(|l| {
            l.strip_prefix(k)?
                .trim_start()
                .strip_prefix('=')
                .map(|v| v.trim().trim_matches('"').to_owned())
        })
    };
    for k in ["description", "license", "rust-version", "repository"] {
        assert!(field(k).is_some(), "Cargo.toml has no {k}");
    }
    let msrv = field("rust-version").unwrap();
    assert!(readme.contains(&format!("Rust {msrv}")), "README does not state Rust {msrv}");
    let version = field("version").unwrap();
    let changelog =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("CHANGELOG.md"))
            .unwrap();
    assert!(
        changelog.contains(&format!("## {version}")),
        "CHANGELOG.md has no section for {version}"
    );
    assert!(
        readme.contains(&format!("rev: v{version}")),
        "README's pre-commit rev is not v{version}"
    );
}
