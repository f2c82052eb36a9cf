// proves: `#[tool]` rejects a method: a tool is a free function, so a `self` receiver is an error
// on the receiver.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] must be a free function
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
