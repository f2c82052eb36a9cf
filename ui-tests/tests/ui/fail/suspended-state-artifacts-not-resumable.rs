// proves: a list of artifacts is not `Resumable` either, so state cannot carry them in a `Vec`.
// control: pass/suspended-run-resumes.rs
// expect: E0277
use toolkit::ToolArtifact;
use toolkit::seal::Resumable;

fn resumable<T: Resumable>() {}

pub fn smuggle() {
    resumable::<Vec<Option<ToolArtifact>>>();
}

fn main() {}
