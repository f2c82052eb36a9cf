// proves: a tool cannot be executed outside the seam: `Tool::execute` takes an `ExecutePermit`,
// whose field is private, so only the seam can make one (and with it check the
// call and bound what comes back).
// control: pass/tool-execute-through-the-seam.rs
// expect: E0423
use toolkit::spec::ExecutePermit;
use toolkit::{ToolContext, ToolRegistry, ToolResult, tool};

/// Reads a secret the model must only see bounded.
#[tool]
pub fn read_secret() -> ToolResult {
    ToolResult::text("secret")
}

pub fn bypass(registry: &ToolRegistry, context: &ToolContext) {
    if let Some(tool) = registry.get("read_secret") {
        let _ = tool.execute("{}", context, &ExecutePermit(()));
    }
}

fn main() {}
