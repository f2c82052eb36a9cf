// proves: the fields of `ToolResult` are private, so a result cannot be built by struct literal
// (an error result with artifacts or media, say).
// control: pass/tool-result-factories.rs
// expect: E0451
use toolkit::{ToolArtifact, ToolResult};

pub fn forge(artifact: ToolArtifact) -> ToolResult {
    ToolResult {
        content: String::from("Error: failed"),
        is_error: true,
        media: Vec::new(),
        artifacts: vec![artifact],
    }
}

fn main() {}
