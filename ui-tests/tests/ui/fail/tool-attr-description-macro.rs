// proves: `description = ".."` takes a string literal; a macro such as `include_str!` there is
// one error on it that says what works: `#[doc = include_str!("..")]`.
// control: pass/tool-attr-keys.rs
// expect: `description` takes a string literal, not a macro: for text from a file, write `#[doc = include_str!("..")]`
// span: include_str!("tool-attr-keys.md")
use toolkit::tool;

#[tool(description = include_str!("tool-attr-keys.md"))]
pub fn described() -> String {
    "described".to_owned()
}

fn main() {}
