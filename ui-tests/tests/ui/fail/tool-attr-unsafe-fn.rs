// proves: a `#[tool]` cannot be an `unsafe fn`: the seam calls it on a model's request, with no
// one to uphold its contract.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] function cannot be `unsafe`
// span: unsafe
use toolkit::{ToolResult, tool};

/// Reads raw memory.
#[tool]
pub unsafe fn peek() -> ToolResult {
    ToolResult::text("")
}

fn main() {}
