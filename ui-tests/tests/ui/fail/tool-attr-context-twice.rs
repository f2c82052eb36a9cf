// proves: `#[tool]` takes at most one `&ToolContext`; the second is an error on its type.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] function takes at most one `&ToolContext` parameter
// span: &ToolContext
use toolkit::{ToolContext, ToolResult, tool};

/// Says whether the caller is an admin.
#[tool]
pub fn whoami(context: &ToolContext, again: &ToolContext) -> ToolResult {
    ToolResult::text(format!("{} {}", context.is_admin(), again.is_admin()))
}

fn main() {}
