// proves: `ToolResult::error` takes only a message: a failing tool cannot attach artifacts.
// control: pass/tool-result-factories.rs
// expect: E0061
use toolkit::{ToolArtifact, ToolResult};

pub fn fail_with(partial: ToolArtifact) -> ToolResult {
    ToolResult::error("Error: failed", [partial])
}

fn main() {}
