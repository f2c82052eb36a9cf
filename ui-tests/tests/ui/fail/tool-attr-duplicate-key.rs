// proves: a `#[tool]` key given twice is an error on the second one, not a silent last-one-wins.
// control: pass/tool-attr-keys.rs
// expect: duplicate #[tool] key `name`
// span: name
use toolkit::{ToolResult, tool};

/// Reads a file.
#[tool(name = "read_file", name = "write_file")]
pub fn read() -> ToolResult {
    ToolResult::text("")
}

fn main() {}
