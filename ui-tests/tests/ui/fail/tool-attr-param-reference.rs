// proves: `#[tool]` rejects a borrowed parameter (`&str`): arguments are decoded into owned values,
// and the error, on the reference type, says to use `String`.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] parameter cannot be a reference
// span: &str
use toolkit::{ToolResult, tool};

/// Repeats a text.
#[tool]
pub fn echo(
    /// The text.
    text: &str,
) -> ToolResult {
    ToolResult::text(text)
}

fn main() {}
