// proves: `#[tool]` alone rejects a method: without `#[tools]` on its impl block no instance is
// registered, so a `self` receiver is an error on the receiver that says to add `#[tools]`.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] method takes `&self`
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
