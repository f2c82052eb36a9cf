// proves: `#[tool]` rejects a `#[state]` parameter taken as `&mut`: every call shares the state,
// so no call may hold it exclusively; the error says to use a `Mutex` inside.
// control: pass/tool-attr-state.rs
// expect: a #[state] parameter is shared by every call: take it as `&T`, never `&mut T`
// span: &mut Counter
use toolkit::tool;

/// A counter shared by every call.
pub struct Counter(u32);

/// Adds one to the counter.
#[tool]
pub fn bump(#[state] counter: &mut Counter) -> String {
    counter.0 += 1;
    counter.0.to_string()
}

fn main() {}
