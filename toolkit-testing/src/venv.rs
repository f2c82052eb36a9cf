//! The Python interpreter of `target/mcp-venv`, which `scripts/test` makes, for the tests that
//! drive Python (the MCP SDK's scripts, the OTLP receiver).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tier;

/// The interpreter when the statement `import` runs in it; `None` in the fast tier, and (after
/// saying why, see [`tier::missing`]) when it does not. `missing` says what is missing, given the
/// interpreter's path.
pub(crate) fn python_importing(
    import: &str,
    missing: impl FnOnce(&Path) -> String,
) -> Option<PathBuf> {
    if !tier::needs("Python") {
        return None;
    }
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-venv/bin/python");
    let importable = python.is_file()
        && Command::new(&python)
            .args(["-c", import])
            .status()
            .is_ok_and(|status| status.success());
    if importable {
        return Some(python);
    }
    tier::missing(&missing(&python));
    None
}
