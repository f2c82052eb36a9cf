// proves: `preview` on a tool that requires no approval is refused: no run ever stops for an
// operator to see the preview, so it would never be shown.
// control: pass/tool-attr-keys.rs
// expect: this tool requires no approval
// span: "looks"
use toolkit::tool;

/// Changes something, without asking anybody.
#[tool(preview = "looks")]
pub fn change() -> String {
    "changed".to_owned()
}

fn main() {}
