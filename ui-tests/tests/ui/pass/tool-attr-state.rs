// control for fail/tool-attr-state-*.rs: a `#[state]` parameter borrows a `Send + Sync` value
// from the context as `&T`, with or without a doc comment, beside arguments and the context, in
// plain and async tools; the spec declares it and the argument schema leaves it out. What is not
// `Sync` (an `Rc`) stays inside a body.
#![deny(unused, unused_qualifications, rust_2018_idioms, nonstandard_style)]

use std::rc::Rc;
use std::sync::Mutex;

use toolkit::spec::StateType;
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tool};

/// A counter shared by every call.
pub struct Counter(Mutex<u32>);

/// A prefix for answers.
pub struct Prefix(String);

/// Adds to the counter and says its value.
#[tool]
pub fn bump(
    /// How much to add.
    by: u32,
    /// The counter.
    #[state]
    counter: &Counter,
) -> String {
    let mut value = counter.0.lock().expect("not poisoned");
    *value += by;
    value.to_string()
}

/// Says the counter with a prefix, after letting other tasks run.
#[tool]
pub async fn show(
    #[state] prefix: &Prefix,
    context: &ToolContext,
    #[state] counter: &Counter,
) -> String {
    tokio::task::yield_now().await;
    let value = *counter.0.lock().expect("not poisoned");
    format!("{}{value} (admin: {})", prefix.0, context.is_admin())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = ToolRegistry::linked().expect("no duplicate tools");
    let spec = registry.get("show").expect("linked").spec().clone();
    assert_eq!(
        spec.states(),
        [StateType::of::<Prefix>(), StateType::of::<Counter>()]
    );
    // Neither `show` nor `bump` has its states among the arguments.
    assert_eq!(spec.input_schema().get("properties"), None);
    let bump = registry.get("bump").expect("linked").spec();
    let properties = bump.input_schema()["properties"]
        .as_object()
        .expect("properties");
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["by"]);
    let service = ToolLoopService::new(registry);
    assert!(service.scope(ToolContext::new()).is_err());
    let context = ToolContext::new()
        .with_extension(Counter(Mutex::new(0)))
        .with_extension(Prefix("n=".to_owned()));
    let scope = service.scope(context).expect("every state given");
    let arguments = Rc::new(r#"{"by": 2}"#);
    let bumped = service.invoke(&scope, "bump", &arguments).await;
    assert_eq!(bumped.content(), "2");
    let shown = service.invoke(&scope, "show", "{}").await;
    assert_eq!(shown.content(), "n=2 (admin: false)");
}
