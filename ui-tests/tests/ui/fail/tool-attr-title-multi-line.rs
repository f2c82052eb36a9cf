// proves: a `#[tool(title = "..")]` of more than one line is rejected at compile time: a title is
// a one-line label, and the details belong in the doc comment.
// control: pass/tool-attr-keys.rs
// expect: a title is one line
// span: "Reads a file.\nOnly inside the workspace."
use toolkit::{ToolResult, tool};

/// Reads a file.
#[tool(title = "Reads a file.\nOnly inside the workspace.")]
pub fn read() -> ToolResult {
    ToolResult::text("read")
}

fn main() {}
