// proves: `SuspendedRunState` is not `Deserialize`: only a token whose seal verifies becomes
// state again (inside `ToolLoopService::resume`).
// control: pass/suspended-run-resumes.rs
// expect: E0277
use toolkit::seal::SuspendedRunState;

pub fn forge(bytes: &str) -> serde_json::Result<SuspendedRunState> {
    serde_json::from_str::<SuspendedRunState>(bytes)
}

fn main() {}
