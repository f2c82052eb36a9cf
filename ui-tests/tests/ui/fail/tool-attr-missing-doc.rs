// proves: a `#[tool]` needs a doc comment (it is the tool's description for the model); without
// one the error is on the function's name.
// control: pass/tool-attr-keys.rs
// expect: a #[tool] function needs a doc comment (or `description = ".."`)
// span: undocumented
use toolkit::{ToolResult, tool};

#[tool]
pub fn undocumented() -> ToolResult {
    ToolResult::text("?")
}

fn main() {}
