// proves: an artifact is not `Resumable`, so no resumable state (every field of
// `SuspendedRunState` is checked against `Resumable` at compile time) can hold one.
// control: pass/suspended-run-resumes.rs
// expect: E0277
use toolkit::ToolArtifact;
use toolkit::seal::Resumable;

fn resumable<T: Resumable>() {}

pub fn smuggle() {
    resumable::<ToolArtifact>();
}

fn main() {}
