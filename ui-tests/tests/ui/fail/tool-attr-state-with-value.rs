// proves: `#[tool]` rejects `#[state(..)]` with anything inside: the parameter's type alone says
// which state it reads, so a name there would mean nothing.
// control: pass/tool-attr-state.rs
// expect: `#[state]` takes nothing
// span: state(counter)
use toolkit::tool;

/// A counter shared by every call.
pub struct Counter(u32);

/// Says the counter.
#[tool]
pub fn show(#[state(counter)] value: &Counter) -> String {
    value.0.to_string()
}

fn main() {}
