// proves: `#[tool(name = ..)]` takes a string literal; a bare identifier is an error on it.
// control: pass/tool-attr-keys.rs
// expect: `name` takes a string literal
// span: read_file
use toolkit::{ToolResult, tool};

/// Reads a file.
#[tool(name = read_file)]
pub fn read() -> ToolResult {
    ToolResult::text("")
}

fn main() {}
