// proves: an artifact's media cannot become media for the model: `ToolResult::with_media` takes
// a `Media`, and a `ToolArtifact` is not one.
// control: pass/media-from-seam.rs
// expect: E0308
use toolkit::{ToolArtifact, ToolResult};

pub fn show_the_model(artifact: ToolArtifact) -> ToolResult {
    ToolResult::text("The chart:").with_media(artifact)
}

fn main() {}
