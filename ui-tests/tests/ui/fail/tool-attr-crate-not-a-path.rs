// proves: `crate = ".."` takes a path to toolkit (for a renamed dependency); text that is not a
// path is one error on the string.
// control: pass/tool-attr-keys.rs
// expect: `crate` takes a path in a string
// span: "not a path"
use toolkit::tool;

/// Says hello.
#[tool(crate = "not a path")]
pub fn hello() -> String {
    "hello".to_owned()
}

fn main() {}
