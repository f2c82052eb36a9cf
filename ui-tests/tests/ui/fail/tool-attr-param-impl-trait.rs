// proves: `#[tool]` rejects an `impl Trait` parameter: an argument needs one concrete type to be
// decoded into.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] parameter cannot be an `impl Trait` type
// span: impl ToString
use toolkit::{ToolResult, tool};

/// Shows a value.
#[tool]
pub fn show(
    /// The value.
    value: impl ToString,
) -> ToolResult {
    ToolResult::text(value.to_string())
}

fn main() {}
