// proves: an unknown key in `#[arg(..)]` (a misspelt `default`) is an error on the key.
// control: pass/tool-attr-arguments.rs
// expect: unknown #[arg] key
// span: defualt
use toolkit::{ToolResult, tool};

/// Lists rows.
#[tool]
pub fn list(
    /// Most rows to list.
    #[arg(defualt = 10)]
    limit: u32,
) -> ToolResult {
    ToolResult::text(limit.to_string())
}

fn main() {}
