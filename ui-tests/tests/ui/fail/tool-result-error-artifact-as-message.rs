// proves: an artifact cannot be passed as the message of `ToolResult::error` (it is not `Into<String>`).
// control: pass/tool-result-factories.rs
// expect: E0277
use toolkit::{ToolArtifact, ToolResult};

pub fn fail_with(partial: ToolArtifact) -> ToolResult {
    ToolResult::error(partial)
}

fn main() {}
