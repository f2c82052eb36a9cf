// control for fail/tools-*.rs: `#[tools]` on an inherent impl block makes its `#[tool]` methods
// tools (with `&self`, without it, async, with keys, state and context, a preview naming a
// read-only method of the block), leaves other methods alone, and `register_instance` registers
// them with one shared instance.
#![deny(unused, unused_qualifications, rust_2018_idioms, nonstandard_style)]

use std::sync::Mutex;

use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tools};

/// A counter whose tools share it.
pub struct Counter {
    value: Mutex<u32>,
}

/// A step size, read from the context.
pub struct Step(u32);

#[tools]
impl Counter {
    /// Adds the step to the counter.
    #[tool]
    pub fn bump(&self, #[state] step: &Step) -> String {
        let mut value = self.value.lock().expect("not poisoned");
        *value += step.0;
        value.to_string()
    }

    /// Says the counter, after letting other tasks run.
    #[tool(name = "counter_value", inline = false)]
    pub async fn value(&self, context: &ToolContext) -> String {
        tokio::task::yield_now().await;
        format!("{} (admin: {})", self.read(), context.is_admin())
    }

    /// Says hello without the instance.
    #[toolkit::tool]
    pub fn hello(
        /// Who.
        name: String,
    ) -> String {
        format!("hello {name}")
    }

    /// Sets the counter back to zero (an operator sees `counter_peek` first).
    #[tool(requires_approval, preview = "counter_peek")]
    pub fn reset(&self) -> String {
        *self.value.lock().expect("not poisoned") = 0;
        "0".to_owned()
    }

    /// Says what a reset would undo.
    #[tool(name = "counter_peek", read_only)]
    pub fn peek(&self) -> String {
        format!("a reset would undo {}", self.read())
    }

    fn read(&self) -> u32 {
        *self.value.lock().expect("not poisoned")
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut registry = ToolRegistry::new();
    registry
        .register_instance(Counter {
            value: Mutex::new(0),
        })
        .expect("new names");
    let service = ToolLoopService::new(registry);
    let scope = service
        .scope(ToolContext::new().with_extension(Step(5)))
        .expect("the step is given");
    assert_eq!(
        service
            .invoke(&scope, "bump", "{}")
            .await
            .content(),
        "5"
    );
    assert_eq!(
        service
            .invoke(&scope, "counter_value", "{}")
            .await
            .content(),
        "5 (admin: false)"
    );
    let hello = service.invoke(&scope, "hello", r#"{"name": "Ada"}"#).await;
    assert_eq!(hello.content(), "hello Ada");
    let peek = service.invoke(&scope, "counter_peek", "{}").await;
    assert_eq!(peek.content(), "a reset would undo 5");
}
