// proves: an `async` `#[tool]` whose future is not `Send` (it holds an `Rc` across an `.await`) is
// one error, on the function's `async`, with rustc's note on the `.await` that makes it so.
// control: pass/tool-attr-signatures.rs
// expect: future cannot be sent between threads safely
// span: async
use std::rc::Rc;

use toolkit::tool;

/// Holds a value across a wait.
#[tool]
pub async fn hold(text: String) -> String {
    let shared = Rc::new(text);
    tokio::task::yield_now().await;
    shared.to_string()
}

fn main() {}
