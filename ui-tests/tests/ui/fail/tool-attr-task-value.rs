// proves: `task` takes no value, `"optional"` or `"required"`: `task = "always"` (or `task = true`)
// is an error on the value naming the two, rather than a task support silently read one way.
// control: pass/tool-attr-keys.rs
// expect: `task` takes no value or `"optional"`
// span: "always"
use toolkit::{ToolResult, tool};

/// Counts for a long time.
#[tool(task = "always")]
pub fn count_long() -> ToolResult {
    ToolResult::text("counted")
}

fn main() {}
