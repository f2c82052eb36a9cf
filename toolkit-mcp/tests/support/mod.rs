//! Finding the Python interpreter with the official MCP SDK that `scripts/test` installs.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The virtual environment's interpreter, relative to the workspace root.
const VENV_PYTHON: &str = "target/mcp-venv/bin/python";

/// The interpreter with `mcp` importable; `None` (after saying why) when it is missing, except
/// under `CI=true`, where a missing interpreter fails the test.
pub fn python() -> Option<PathBuf> {
    let python = workspace_root().join(VENV_PYTHON);
    let importable = python.is_file()
        && Command::new(&python)
            .args(["-c", "import mcp.server.mcpserver"])
            .status()
            .is_ok_and(|status| status.success());
    if importable {
        return Some(python);
    }
    let message = format!(
        "the Python MCP SDK is not installed at {}; run scripts/test, which creates it",
        python.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    eprintln!("SKIPPED: {message}");
    None
}

/// A script of `toolkit-mcp/tests/python`.
pub fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(name)
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}
