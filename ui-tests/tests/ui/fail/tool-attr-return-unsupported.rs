// proves: a `#[tool]` must return `ToolResult`, `String` or `Result<_, E: Display>`; another return
// type is one error, on the return type, that lists what is accepted.
// control: pass/tool-attr-signatures.rs
// expect: E0277
// span: u32
use toolkit::tool;

/// Counts to three.
#[tool]
pub fn three() -> u32 {
    3
}

fn main() {}
