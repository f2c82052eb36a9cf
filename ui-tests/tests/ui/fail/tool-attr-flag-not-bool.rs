// proves: a `#[tool]` flag takes `true` or `false`, not a string: `remote = "yes"` is an error on
// the value, rather than a flag silently read one way or the other.
// control: pass/tool-attr-keys.rs
// expect: `remote` takes `true` or `false`
// span: "yes"
use toolkit::{ToolResult, tool};

/// Fetches a page.
#[tool(remote = "yes")]
pub fn fetch() -> ToolResult {
    ToolResult::text("page")
}

fn main() {}
