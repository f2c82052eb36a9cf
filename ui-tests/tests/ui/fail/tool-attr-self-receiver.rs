// proves: `#[tool]` alone rejects a method: without `#[tools]` on its impl block no instance is
// registered, so it is one error on the method's name that says to add `#[tools]`.
// control: pass/tool-attr-signatures.rs
// expect: #[tool] alone goes on a free function; in an impl block, mark the block `#[toolkit::tools]`
// span: count
use toolkit::{ToolResult, tool};

pub struct Counter;

impl Counter {
    /// Counts the calls.
    #[tool]
    pub fn count(&self) -> ToolResult {
        ToolResult::text("1")
    }
}

fn main() {}
