// proves: `#[tool(title = "")]` (or a title of spaces) is rejected at compile time, saying what to
// give instead: a short label, or no `title` for the description's first sentence.
// control: pass/tool-attr-keys.rs
// expect: the title is empty
// span: "  "
use toolkit::{ToolResult, tool};

/// Does nothing.
#[tool(title = "  ")]
pub fn nothing() -> ToolResult {
    ToolResult::text("")
}

fn main() {}
