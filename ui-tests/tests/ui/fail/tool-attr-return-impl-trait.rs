// proves: a `#[tool]` must name its return type; `-> impl Trait` is an error on the `impl Trait`.
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] function must name its return type
// span: impl Into<String>
use toolkit::tool;

/// Greets.
#[tool]
pub fn greet() -> impl Into<String> {
    "hello"
}

fn main() {}
