// proves: `#[tool]` rejects a parameter type with a lifetime (`Cow<'a, str>`): one error, on the
// lifetime, not a second one on the `<'a>` it forces onto the function.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] parameter cannot be a type with a lifetime
// span: 'a
use std::borrow::Cow;

use toolkit::{ToolResult, tool};

/// Repeats a text.
#[tool]
pub fn echo<'a>(
    /// The text.
    text: Cow<'a, str>,
) -> ToolResult {
    ToolResult::text(text)
}

fn main() {}
