// proves: `#[tool]` on an associated function (in an `impl` block, without `self`) is one error,
// on the function's name, which the tool cannot call as a free function (the macro sees only the
// function, not the `impl` around it).
// control: pass/tool-attr-signatures.rs
// expect: E0425
// span: count
use toolkit::{ToolResult, tool};

pub struct Counter;

impl Counter {
    /// Counts.
    #[tool]
    pub fn count() -> ToolResult {
        ToolResult::text("1")
    }
}

fn main() {}
