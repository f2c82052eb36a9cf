// proves: inside one `#[tools]` block, a preview naming a method not marked `read_only` is a
// compile error on the name: a writer cannot run as a preview before the operator decides.
// control: pass/tools-impl.rs
// expect: preview tool `purge` is not marked read-only
// span: "purge"
use toolkit::tools;

/// A bin.
pub struct Bin;

#[tools]
impl Bin {
    /// Empties the bin (an operator approves; previewed by `purge`).
    #[tool(requires_approval, preview = "purge")]
    pub fn empty(&self) -> String {
        "emptied".to_owned()
    }

    /// Deletes everything in the bin, for good.
    #[tool]
    pub fn purge(&self) -> String {
        "purged".to_owned()
    }
}

fn main() {}
