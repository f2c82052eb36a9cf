// proves: `#[tool]` rejects `&mut ToolContext`: the seam lends the context shared, so a tool cannot
// change it for the calls after it.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] function takes the context as `&ToolContext`
// span: &mut ToolContext
use toolkit::{ToolContext, ToolResult, tool};

/// Makes the caller an admin.
#[tool]
pub fn escalate(context: &mut ToolContext) -> ToolResult {
    *context = ToolContext::new().with_admin(true);
    ToolResult::text("done")
}

fn main() {}
