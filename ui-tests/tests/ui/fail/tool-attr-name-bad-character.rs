// proves: a tool name with a character outside `[A-Za-z0-9_-]` (here `.`) is rejected at compile
// time, on the name.
// control: pass/tool-attr-keys.rs
// expect: invalid tool name: '.' is not allowed
// span: "files.read"
use toolkit::{ToolResult, tool};

/// Reads a file.
#[tool(name = "files.read")]
pub fn read() -> ToolResult {
    ToolResult::text("")
}

fn main() {}
