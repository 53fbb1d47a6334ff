//! The documentation promises: every diagnostic code is in README's table,
//! with the severity the code really has.

use urlsift::diag::Code;

#[test]
fn readme_documents_every_code_with_its_severity() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for c in Code::ALL {
        let row = format!("| `{}` | {} |", c.as_str(), c.default_severity().as_str());
        assert!(readme.contains(&row), "README.md lacks the row for {c}: {row}");
    }
}
