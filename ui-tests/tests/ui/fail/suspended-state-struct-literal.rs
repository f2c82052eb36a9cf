// proves: a `SuspendedRunState` cannot be built outside toolkit: its fields are private, so
// state only comes from a suspended run.
// control: pass/suspended-run-resumes.rs
// expect: E0451
use toolkit::RunOptions;
use toolkit::seal::SuspendedRunState;

pub fn forge(from: &SuspendedRunState) -> SuspendedRunState {
    SuspendedRunState {
        options: RunOptions::default().with_max_iterations(1_000),
        ..from.clone()
    }
}

fn main() {}
