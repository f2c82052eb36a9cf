//! The npm packages `scripts/test` installs under `target/` (the MCP Inspector, the MCP
//! conformance suite), for the tests that run them with Node.js.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::tier;

/// Whether `what`, the npm package at `package`, is installed at `version` and `usable` (its
/// entry point is there and Node.js runs it), in the full tier. `false` in the fast tier and,
/// after saying why, when it is not installed; but where npm is and `CI=true`, a missing package
/// fails the test, since `scripts/test` would have installed it. A package of another version
/// fails the test, asking for `scripts/test`.
pub fn installed(what: &str, package: &Path, version: &str, usable: impl FnOnce() -> bool) -> bool {
    if !tier::needs(&format!("Node.js and {what}")) {
        return false;
    }
    if usable() {
        let manifest: Value = serde_json::from_slice(
            &std::fs::read(package.join("package.json")).expect("the package's manifest"),
        )
        .expect("JSON");
        assert_eq!(
            manifest["version"], version,
            "run scripts/test to install {version}"
        );
        return true;
    }
    let npm = Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    let message = format!(
        "{what} is not installed at {}; run scripts/test, which installs it with npm",
        package.display()
    );
    assert!(
        !(npm && std::env::var("CI").as_deref() == Ok("true")),
        "{message}"
    );
    eprintln!("SKIPPED: {message}");
    false
}
