//! The Python interpreter of `target/mcp-venv`, which `scripts/test` makes, for the tests that
//! drive Python (the MCP SDK's scripts, the OTLP receiver).
//!
//! Included by path from the other crates' tests (each a folder below the workspace root), so it
//! depends only on std.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The interpreter when the statement `import` runs in it; `None` (after saying why on the
/// process's stderr, which the test harness does not capture) when it does not, except under
/// `CI=true`, where it fails the test. `missing` says what is missing, given the interpreter's path.
pub fn python_importing(import: &str, missing: impl FnOnce(&Path) -> String) -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-venv/bin/python");
    let importable = python.is_file()
        && Command::new(&python)
            .args(["-c", import])
            .status()
            .is_ok_and(|status| status.success());
    if importable {
        return Some(python);
    }
    let message = missing(&python);
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{message}: under CI=true this fails"
    );
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("SKIPPED: {message}\n").as_bytes(),
    );
    None
}
