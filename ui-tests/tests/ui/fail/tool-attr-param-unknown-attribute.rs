// proves: an attribute on a `#[tool]` parameter that the macro does not know (here a validation
// attribute from another crate) is an error on it, not silently dropped.
// control: pass/tool-attr-arguments.rs
// expect: unsupported attribute on a tool parameter
// span: validate
use toolkit::{ToolResult, tool};

/// Lists rows.
#[tool]
pub fn list(
    /// Most rows to list.
    #[validate(range(min = 1))]
    limit: u32,
) -> ToolResult {
    ToolResult::text(limit.to_string())
}

fn main() {}
