// proves: `#[tool]` on an item that is not a function (here a struct) is an error on the item's
// keyword and name.
// control: pass/tool-attr-signatures.rs
// expect: #[tool] goes on a free `fn` or `async fn`, not on a struct
// span: struct Search
use toolkit::tool;

/// Searches the web.
#[tool]
pub struct Search {
    pub query: String,
}

fn main() {}
