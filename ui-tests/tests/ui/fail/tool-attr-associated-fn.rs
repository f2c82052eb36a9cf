// proves: `#[tool]` on an associated function (in an `impl` block, without `self`) is one error,
// on the function's name: the generated registration calls it as a free function, which it is
// not. The attribute sees only the function, never the block around it, so the error is rustc's
// "cannot find function"; the `tool` docs name the fix (mark the block `#[toolkit::tools]`).
// control: pass/tool-shares-a-method-name.rs
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
