// proves: `#[tool]` alone rejects a method: without `#[tools]` on its impl block no instance is
// registered, so it is one error on the receiver that says to mark the block `#[tools]`.
// control: pass/tool-shares-a-method-name.rs
// expect: a #[tool] function with `self` is a method: mark its impl block `#[toolkit::tools]`
// span: &self
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
