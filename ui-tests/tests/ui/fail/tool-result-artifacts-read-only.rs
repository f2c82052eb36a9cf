// proves: a result's artifacts are read-only, so none can be added to an error result after the fact.
// control: pass/tool-result-factories.rs
// expect: E0599
use toolkit::{ToolArtifact, ToolResult};

pub fn add_later(partial: ToolArtifact) -> ToolResult {
    let failed = ToolResult::error("Error: failed");
    failed.artifacts().push(partial);
    failed
}

fn main() {}
