//! Typed state: a `#[state]` parameter is declared in the spec, left out of the argument schema,
//! checked when a scope is built (one exact error naming the tool and the type, before any call)
//! and lent to the tool from the context.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use toolkit::provider::ScriptedProvider;
use toolkit::{
    RunError, RunRequest, Tool, ToolContext, ToolLoopService, ToolRegistry, ToolSpec,
    registry::{DuplicateTool, RegistryError},
    seam::ScopeError,
    spec::{ExecutePermit, StateType, ToolFuture},
    tool,
};

/// Prices by item, in cents.
struct Prices(HashMap<&'static str, u32>);

/// How to greet, changed by calls (a `Mutex` inside: state is shared, never `&mut`).
struct Greeting(Mutex<String>);

/// The price of an item.
#[tool]
fn price(
    /// The item.
    item: String,
    #[state] prices: &Prices,
) -> String {
    prices.0.get(item.as_str()).map_or_else(
        || format!("no price for {item}"),
        |cents| format!("{item}: {cents} cents"),
    )
}

/// Greets someone, and the next caller with the same words.
#[tool]
async fn greet(
    /// Who.
    name: String,
    /// The words to greet with.
    #[state]
    greeting: &Greeting,
    context: &ToolContext,
    #[state] prices: &Prices,
) -> String {
    tokio::task::yield_now().await;
    let words = greeting.0.lock().expect("not poisoned").clone();
    format!(
        "{words}, {name} ({} prices, admin: {})",
        prices.0.len(),
        context.is_admin()
    )
}

/// Counts how often a tool runs, to show a refused scope runs nothing.
static RUNS: AtomicUsize = AtomicUsize::new(0);

/// Counts its calls.
#[tool]
fn counted(#[state] _prices: &Prices) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    "counted".to_owned()
}

fn prices() -> Prices {
    Prices(HashMap::from([("tea", 250), ("cake", 400)]))
}

fn greeting() -> Greeting {
    Greeting(Mutex::new("Hello".to_owned()))
}

fn service() -> ToolLoopService {
    ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
}

#[test]
fn the_spec_declares_each_state_and_the_schema_has_only_the_arguments() {
    let registry = ToolRegistry::linked().expect("no duplicates");
    let price = registry.get("price").expect("linked").spec();
    assert_eq!(price.states(), [StateType::of::<Prices>()]);
    assert_eq!(price.states()[0].type_name(), "state::Prices");
    assert_eq!(price.states()[0].written(), "Prices");
    assert_eq!(
        price.input_schema(),
        &json!({
            "type": "object",
            "properties": {"item": {"type": "string", "description": "The item."}},
            "required": ["item"],
            "additionalProperties": false
        })
    );
    let greet = registry.get("greet").expect("linked").spec();
    let names: Vec<&str> = greet
        .states()
        .iter()
        .map(|state| state.type_name())
        .collect();
    assert_eq!(names, ["state::Greeting", "state::Prices"]);
    assert_eq!(greet.input_schema()["required"], json!(["name"]));
}

#[test]
fn each_tool_has_a_handle_for_a_registry_of_chosen_tools() {
    assert_eq!(PRICE_TOOL.spec().name(), "price");
    assert_eq!(PRICE_TOOL.spec().states(), [StateType::of::<Prices>()]);
    let registry = ToolRegistry::of([PRICE_TOOL, COUNTED_TOOL]).expect("two names");
    let names: Vec<&str> = registry.specs().map(ToolSpec::name).collect();
    assert_eq!(names, ["price", "counted"]);
    // Only these: a scope over them needs only their state.
    let service = ToolLoopService::new(registry);
    assert!(
        service
            .scope(ToolContext::new().with_extension(prices()))
            .is_ok()
    );
    let error = ToolRegistry::of([PRICE_TOOL, PRICE_TOOL]).unwrap_err();
    assert!(
        matches!(error, RegistryError::Duplicate(DuplicateTool { ref name, .. }) if name == "price")
    );
}

#[test]
fn a_binary_says_which_crates_must_contribute_tools() {
    let registry = ToolRegistry::linked_expecting(&["state"]).expect("this crate's tools");
    assert_eq!(registry.len(), 3);
    assert_eq!(registry.crates(), ["state"]);
    let error = ToolRegistry::linked_expecting(&["state", "toolkit_builtins"]).unwrap_err();
    assert_eq!(
        error,
        RegistryError::NothingLinked {
            crate_name: "toolkit_builtins".to_owned()
        }
    );
    assert_eq!(
        error.to_string(),
        "no tool of crate `toolkit_builtins` is linked: reference the crate from the binary \
         (`use toolkit_builtins as _;`), or enable the features that give its tools"
    );
    // A crate's name is matched whole, never as a prefix of another.
    assert!(ToolRegistry::linked_expecting(&["stat"]).is_err());
}

/// The states a scope's refusal names: (tool, as written, type name, held in an `Arc`).
fn missing(error: &ScopeError) -> Vec<(&str, &str, &str, bool)> {
    let ScopeError::MissingStates(missing) = error else {
        panic!("refused for another reason: {error}");
    };
    missing
        .iter()
        .map(|state| {
            (
                state.tool.as_str(),
                state.written,
                state.type_name,
                state.in_arc,
            )
        })
        .collect()
}

#[test]
fn a_scope_without_declared_states_fails_once_naming_every_missing_state_as_written() {
    let service = service();
    let error = service.scope(ToolContext::new()).unwrap_err();
    // Registry order: `counted`, `greet`, `price`; every state each lacks, in its order.
    assert_eq!(
        missing(&error),
        [
            ("counted", "Prices", "state::Prices", false),
            ("greet", "Greeting", "state::Greeting", false),
            ("greet", "Prices", "state::Prices", false),
            ("price", "Prices", "state::Prices", false),
        ]
    );
    let error = service
        .scope(ToolContext::new().with_extension(prices()))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the context does not hold the state offered tools read: tool \"greet\" reads `Greeting` \
         (state::Greeting). Add each with `ToolContext::with_extension`, or offer only the tools \
         whose state is there (`Seam::scope_offering`)"
    );
    // A value of another type, however similar, is not the state.
    let error = service
        .scope(ToolContext::new().with_extension(HashMap::<&'static str, u32>::new()))
        .unwrap_err();
    assert_eq!(missing(&error).len(), 4);
}

#[test]
fn a_state_given_in_an_arc_is_named_with_the_fix() {
    let service = service();
    let context = ToolContext::new()
        .with_extension(std::sync::Arc::new(prices()))
        .with_extension(greeting());
    let error = service.scope(context).unwrap_err();
    assert_eq!(
        missing(&error),
        [
            ("counted", "Prices", "state::Prices", true),
            ("greet", "Prices", "state::Prices", true),
            ("price", "Prices", "state::Prices", true),
        ]
    );
    assert!(
        error.to_string().starts_with(
            "the context does not hold the state offered tools read: tool \"counted\" reads \
             `Prices` (state::Prices), and the context holds an `Arc<Prices>` instead: give \
             `with_extension` the `Prices` itself (the context shares it already); tool \"greet\""
        ),
        "{error}"
    );
}

#[test]
fn a_scope_offering_only_tools_whose_state_is_there_is_made_and_offering_more_fails() {
    let service = service();
    let context = ToolContext::new().with_extension(prices());
    let scope = service
        .scope_offering(context.clone(), ["price", "counted"])
        .expect("both read only prices");
    assert_eq!(scope.offered().collect::<Vec<_>>(), ["counted", "price"]);
    let error = service
        .scope_offering(context.clone(), ["price", "greet"])
        .unwrap_err();
    assert_eq!(
        missing(&error),
        [("greet", "Greeting", "state::Greeting", false)]
    );
    assert!(matches!(
        service.scope_offering(context.clone(), service.registry().names()),
        Err(ScopeError::MissingStates(_))
    ));
    assert_eq!(
        service
            .scope_offering(context, ["price", "nope"])
            .unwrap_err()
            .to_string(),
        "cannot offer tool \"nope\": no tool of that name is registered"
    );
}

#[tokio::test]
async fn tools_read_their_state_from_the_context_and_share_it_between_calls() {
    let service = service();
    let context = ToolContext::new()
        .with_extension(prices())
        .with_extension(greeting())
        .with_admin(true);
    let scope = service.scope(context).expect("every state is there");
    let result = service.invoke(&scope, "price", r#"{"item": "tea"}"#).await;
    assert_eq!(result.content(), "tea: 250 cents");
    let result = service.invoke(&scope, "greet", r#"{"name": "Ada"}"#).await;
    assert_eq!(result.content(), "Hello, Ada (2 prices, admin: true)");
    *scope
        .context()
        .extension::<Greeting>()
        .expect("given")
        .0
        .lock()
        .unwrap() = "Welcome".to_owned();
    let result = service
        .invoke(&scope, "greet", r#"{"name": "Linus"}"#)
        .await;
    assert_eq!(result.content(), "Welcome, Linus (2 prices, admin: true)");
    // A state is not an argument: naming it is refused like any unknown field.
    let result = service
        .invoke(&scope, "price", r#"{"item": "tea", "prices": {}}"#)
        .await;
    assert!(result.is_error());
    assert!(
        result.content().contains("unknown field `prices`"),
        "{}",
        result.content()
    );
}

#[tokio::test]
async fn a_run_whose_context_lacks_a_state_fails_before_anything_is_asked_or_recorded() {
    let service = service();
    let mut events = service.subscribe();
    let provider = ScriptedProvider::from_json(
        r#"{"turns": [{"tool_calls": [{"id": "c1", "name": "counted", "arguments": {}}]}, {"content": "done"}]}"#,
    )
    .expect("a script");
    let error = service
        .run(&provider, RunRequest::new("count"))
        .await
        .unwrap_err();
    let RunError::Scope(error) = error else {
        panic!("another error: {error}");
    };
    assert_eq!(
        missing(&error)[0],
        ("counted", "Prices", "state::Prices", false)
    );
    assert!(events.try_recv().is_err(), "nothing was recorded");
    assert_eq!(RUNS.load(Ordering::SeqCst), 0);

    // Offering only the tools whose state is given runs.
    let request = RunRequest::new("count")
        .with_tools(["counted"])
        .with_context(ToolContext::new().with_extension(prices()));
    let result = service.run(&provider, request).await.expect("a run");
    assert_eq!(result.content, "done");
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
}

/// A hand-written tool that runs `price` with a context of its own, one without the state: the
/// state check cannot be bypassed into a panic.
struct Wrapper(ToolSpec);

impl Tool for Wrapper {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        arguments: &'a str,
        _context: &'a ToolContext,
        permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        static EMPTY: std::sync::LazyLock<ToolContext> = std::sync::LazyLock::new(ToolContext::new);
        let registry: &'static ToolRegistry =
            Box::leak(Box::new(ToolRegistry::linked().expect("no duplicates")));
        let price = registry.get("price").expect("linked");
        price.execute(arguments, &EMPTY, permit)
    }
}

#[tokio::test]
async fn a_tool_run_with_a_context_lacking_its_state_answers_an_error_and_does_not_panic() {
    let mut registry = ToolRegistry::new();
    registry
        .register(Wrapper(ToolSpec::new(
            "wrapper",
            "Runs price without its state.",
            json!({"type": "object"}),
        )))
        .expect("a new name");
    let service = ToolLoopService::new(registry);
    let scope = service
        .scope(ToolContext::new())
        .expect("the wrapper declares no state");
    let result = service
        .invoke(&scope, "wrapper", r#"{"item": "tea"}"#)
        .await;
    assert!(result.is_error());
    assert_eq!(
        result.content(),
        "Error: tool \"price\" reads state of type `state::Prices`, which the context does not hold."
    );
}
