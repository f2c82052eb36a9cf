// proves: inside one `#[tools]` block, a preview naming a method that requires approval itself
// is a compile error on the name: a preview runs before anybody approves.
// control: pass/tools-impl.rs
// expect: preview tool `peek` requires approval itself
// span: "peek"
use toolkit::tools;

/// A bin.
pub struct Bin;

#[tools]
impl Bin {
    /// Empties the bin (an operator approves; previewed by `peek`).
    #[tool(requires_approval, preview = "peek")]
    pub fn empty(&self) -> String {
        "emptied".to_owned()
    }

    /// Says what is in the bin.
    #[tool(read_only, requires_approval)]
    pub fn peek(&self) -> String {
        "two files".to_owned()
    }
}

fn main() {}
