// proves: `#[tool]` rejects a pattern parameter: the parameter's name is the argument's name, so it
// must be a plain identifier.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] parameter must be a plain name
// span: (a, b)
use toolkit::{ToolResult, tool};

/// Adds two numbers.
#[tool]
pub fn add((a, b): (u8, u8)) -> ToolResult {
    ToolResult::text((u16::from(a) + u16::from(b)).to_string())
}

fn main() {}
