// proves: `#[tool]` rejects a `#[state]` type that is not `Send + Sync + 'static`: calls on any
// thread share it. One error, on the type, says what it needs.
// control: pass/tool-attr-state.rs
// expect: E0277
// span: Rc<u32>
use std::rc::Rc;

use toolkit::tool;

/// Says the shared number.
#[tool]
pub fn show(#[state] number: &Rc<u32>) -> String {
    number.to_string()
}

fn main() {}
