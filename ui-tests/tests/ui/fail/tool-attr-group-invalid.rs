// proves: a tool group follows the rules of a tool name; `group = "my files"` is an error on the
// group.
// control: pass/tool-attr-keys.rs
// expect: invalid tool group: ' ' is not allowed
// span: "my files"
use toolkit::{ToolResult, tool};

/// Reads a file.
#[tool(group = "my files")]
pub fn read() -> ToolResult {
    ToolResult::text("")
}

fn main() {}
