// proves: an unknown `#[tool]` key (a misspelt flag) is an error on the key, listing the keys that
// exist, rather than a flag silently left off.
// control: pass/tool-attr-keys.rs
// expect: unknown #[tool] key `requires_aproval`
// span: requires_aproval
use toolkit::{ToolResult, tool};

/// Deletes everything.
#[tool(requires_aproval)]
pub fn delete_everything() -> ToolResult {
    ToolResult::text("deleted")
}

fn main() {}
