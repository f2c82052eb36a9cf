// proves: `#[tool]` rejects a `#[state]` parameter taken by value: the state stays in the context
// for every call, so a tool borrows it, and the error on the type says to write `&T`.
// control: pass/tool-attr-state.rs
// expect: a #[state] parameter is borrowed from the context: write `&T`
// span: Counter
use toolkit::tool;

/// A counter shared by every call.
pub struct Counter(u32);

/// Says the counter.
#[tool]
pub fn show(#[state] counter: Counter) -> String {
    counter.0.to_string()
}

fn main() {}
