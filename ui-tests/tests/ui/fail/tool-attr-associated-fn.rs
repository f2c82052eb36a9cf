// proves: `#[tool]` on an associated function (in an `impl` block, without `self`) is one error,
// on the function's name, that says the fix: mark the impl block `#[tools]` (never rustc's
// "cannot find function" from the generated code).
// control: pass/tool-attr-signatures.rs
// expect: #[tool] alone goes on a free function; in an impl block, mark the block `#[toolkit::tools]`
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
