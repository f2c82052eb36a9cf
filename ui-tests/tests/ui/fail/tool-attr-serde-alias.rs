// proves: `#[serde(alias = ..)]` on a `#[tool]` parameter is an error on `alias`: the schema
// cannot list an alias, so the decoder would take a name the model is never told of.
// control: pass/tool-attr-arguments.rs
// expect: `#[serde(alias)]` is not supported on a #[tool] parameter
// span: alias
use toolkit::{ToolResult, tool};

/// Lists rows.
#[tool]
pub fn list(
    /// Most rows to list.
    #[serde(alias = "max")]
    limit: u32,
) -> ToolResult {
    ToolResult::text(limit.to_string())
}

fn main() {}
