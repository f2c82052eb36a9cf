// proves: a `SuspendedRunState` cannot be built outside toolkit: its fields are private, so
// state only comes from a suspended run.
// control: pass/suspended-run-resumes.rs
// expect: E0451
use toolkit::SuspendedRunState;

pub fn forge() -> SuspendedRunState {
    SuspendedRunState {
        run_id: String::new(),
        messages: Vec::new(),
        calls: Vec::new(),
        results: Vec::new(),
        iteration: 0,
        max_iterations: 5,
        tool_timeout_ms: 30_000,
        remote_budget: 20,
        remote_used: 0,
        offered: Vec::new(),
        model: None,
        temperature: None,
        usage: toolkit::Usage::default(),
    }
}

fn main() {}
