// proves: `ToolResult` has no `to_string`, so a result cannot be flattened into a string.
// control: pass/tool-result-factories.rs
// expect: E0599
use toolkit::ToolResult;

pub fn flatten(result: &ToolResult) -> String {
    result.to_string()
}

fn main() {}
