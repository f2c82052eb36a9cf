// proves: `preview = ".."` names a tool, so a name no tool could have is one error on the string,
// not a preview that silently never runs.
// control: pass/tool-attr-keys.rs
// expect: invalid preview tool name
// span: "show the diff"
use toolkit::tool;

/// Changes something (previewed).
#[tool(requires_approval, preview = "show the diff")]
pub fn change() -> String {
    "changed".to_owned()
}

fn main() {}
