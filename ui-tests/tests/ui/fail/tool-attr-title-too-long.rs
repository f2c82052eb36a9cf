// proves: a `#[tool(title = "..")]` longer than 100 characters is rejected at compile time, with
// its length and the limit: a title is a short label, the details belong in the doc comment.
// control: pass/tool-attr-keys.rs
// expect: the title is 103 characters long; the limit is 100
// span: "Reads one text file of the workspace, numbered from line 1, a page of lines at a time, up to 200 lines."
use toolkit::{ToolResult, tool};

/// Reads a file.
#[tool(title = "Reads one text file of the workspace, numbered from line 1, a page of lines at a time, up to 200 lines.")]
pub fn read() -> ToolResult {
    ToolResult::text("read")
}

fn main() {}
