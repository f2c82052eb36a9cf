// proves: a `BoundedResult` cannot be assembled by struct literal, so no unbounded artifacts can ride
// beside a real `WireString`.
// control: pass/bounded-result-from-invoke.rs
// expect: E0451
use toolkit::{BoundedResult, ToolArtifact, WireString};

pub fn assemble(content: WireString, huge: ToolArtifact) -> BoundedResult {
    BoundedResult {
        content,
        artifacts: vec![huge],
    }
}

fn main() {}
