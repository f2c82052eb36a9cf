// proves: an `#[arg(default = ..)]` of the wrong type is one type error, on the default's value.
// control: pass/tool-attr-arguments.rs
// expect: E0308
// span: "ten"
use toolkit::{ToolResult, tool};

/// Lists rows.
#[tool]
pub fn list(
    /// Most rows to list.
    #[arg(default = "ten")]
    limit: u32,
) -> ToolResult {
    ToolResult::text(limit.to_string())
}

fn main() {}
