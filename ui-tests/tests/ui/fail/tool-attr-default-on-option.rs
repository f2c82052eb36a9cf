// proves: `#[arg(default = ..)]` on an `Option<T>` parameter is an error on `default`: an `Option`
// is already optional, so the default could never be told apart from a missing argument.
// control: pass/tool-attr-arguments.rs
// expect: an `Option` parameter is already optional
// span: default
use toolkit::{ToolResult, tool};

/// Lists rows.
#[tool]
pub fn list(
    /// Most rows to list.
    #[arg(default = Some(10))]
    limit: Option<u32>,
) -> ToolResult {
    ToolResult::text(format!("{limit:?}"))
}

fn main() {}
