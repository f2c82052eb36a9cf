// proves: a tool cannot be its own preview: the preview runs before the operator decides, so it
// would run the very call waiting for approval.
// control: pass/tool-attr-keys.rs
// expect: a tool cannot preview itself
// span: "change"
use toolkit::tool;

/// Changes something.
#[tool(requires_approval, preview = "change")]
pub fn change() -> String {
    "changed".to_owned()
}

fn main() {}
