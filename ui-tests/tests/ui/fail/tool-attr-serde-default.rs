// proves: `#[serde(default)]` on a `#[tool]` parameter is an error on `default` that points to
// `#[arg(default = ..)]`, the one way a tool argument gets a default (and shows it in the schema).
// control: pass/tool-attr-arguments.rs
// expect: `#[serde(default)]` is not supported on a #[tool] parameter
// span: default
use toolkit::{ToolResult, tool};

/// Lists rows.
#[tool]
pub fn list(
    /// Most rows to list.
    #[serde(default)]
    limit: u32,
) -> ToolResult {
    ToolResult::text(limit.to_string())
}

fn main() {}
