// proves: `Resumable` is sealed: no crate outside toolkit can declare its own type resumable
// (say, one that wraps an artifact) and slip it into state.
// control: pass/suspended-run-resumes.rs
// expect: E0277
use toolkit::ToolArtifact;
use toolkit::seal::Resumable;

pub struct Smuggler(pub ToolArtifact);

impl Resumable for Smuggler {}

fn main() {}
