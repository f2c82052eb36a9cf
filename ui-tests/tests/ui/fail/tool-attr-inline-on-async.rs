// proves: `inline` is refused on an `async fn` with one error on the key: inline is for plain
// functions whose work is tiny, and an async tool already runs on the calling task.
// control: pass/tool-attr-keys.rs
// expect: `inline` is for a plain `fn` whose work is tiny
// span: inline
use toolkit::{ToolResult, tool};

/// Waits, inline.
#[tool(inline)]
pub async fn waits() -> ToolResult {
    ToolResult::text("waited")
}

fn main() {}
