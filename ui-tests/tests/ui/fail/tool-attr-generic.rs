// proves: `#[tool]` rejects a generic function: arguments are decoded from JSON into concrete types,
// so the generic parameters are an error on themselves.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] function cannot be generic
// span: <T: ToString>
use toolkit::{ToolResult, tool};

/// Shows a value.
#[tool]
pub fn show<T: ToString>(value: T) -> ToolResult {
    ToolResult::text(value.to_string())
}

fn main() {}
