// proves: no conversion turns an artifact into media for the model.
// control: pass/media-from-seam.rs
// expect: E0277
use toolkit::ToolArtifact;
use toolkit::result::Media;

pub fn convert(artifact: ToolArtifact) -> Media {
    artifact.into()
}

fn main() {}
