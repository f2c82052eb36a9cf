// proves: `#[tool]` rejects a `ToolContext` taken by value: the seam only lends it, as `&ToolContext`.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] function takes the context by reference
// span: ToolContext
use toolkit::{ToolContext, ToolResult, tool};

/// Says whether the caller is an admin.
#[tool]
pub fn whoami(context: ToolContext) -> ToolResult {
    ToolResult::text(context.is_admin().to_string())
}

fn main() {}
