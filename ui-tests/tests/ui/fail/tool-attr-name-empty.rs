// proves: `#[tool(name = "")]` is rejected at compile time: a tool name has 1 to 64 characters.
// control: pass/tool-attr-keys.rs
// expect: invalid tool name: it is empty
// span: ""
use toolkit::{ToolResult, tool};

/// Does nothing.
#[tool(name = "")]
pub fn nothing() -> ToolResult {
    ToolResult::text("")
}

fn main() {}
