// proves: `ToolResult` is not `Display`, so no formatting merges a result (artifacts included) into text.
// control: pass/tool-result-factories.rs
// expect: E0277
use toolkit::ToolResult;

pub fn render(result: &ToolResult) -> String {
    format!("{result}")
}

fn main() {}
