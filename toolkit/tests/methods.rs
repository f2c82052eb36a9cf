//! `#[tools]` impl blocks: `#[tool]` methods taking `&self` become tools sharing one registered
//! instance; registration is all or nothing; the methods are not linked tools.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use toolkit::{
    ToolContext, ToolLoopService, ToolRegistry, ToolResult, ToolSpec,
    registry::{DuplicateTool, RegistryError},
    seam::ScopeError,
    tools,
};

/// A shop whose tools share its stock and count their calls.
struct Shop {
    stock: Vec<(&'static str, u32)>,
    calls: Arc<AtomicUsize>,
}

/// A region, read from the context by one tool.
struct Region(&'static str);

#[tools]
impl Shop {
    /// How many of an item are in stock.
    #[tool]
    fn stock(
        &self,
        /// The item.
        item: String,
    ) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.count(&item).to_string()
    }

    /// Takes items out of stock (an operator approves).
    #[tool(requires_approval, group = "shop")]
    async fn take(
        &self,
        /// The item.
        item: String,
        /// How many.
        #[arg(default = 1)]
        count: u32,
        #[state] region: &Region,
        context: &ToolContext,
    ) -> ToolResult {
        tokio::task::yield_now().await;
        self.calls.fetch_add(1, Ordering::SeqCst);
        ToolResult::text(format!(
            "took {count} of {} {item} in {} (admin: {})",
            self.count(&item),
            region.0,
            context.is_admin()
        ))
    }

    /// The shop's opening hours: a tool that needs no instance.
    #[tool(name = "opening_hours")]
    fn hours() -> String {
        "9-17".to_owned()
    }

    /// Not a tool.
    fn count(&self, item: &str) -> u32 {
        self.stock
            .iter()
            .find(|(name, _)| *name == item)
            .map_or(0, |(_, count)| *count)
    }
}

/// A second `#[tools]` type of this crate, after `Shop` in the source and before it by name: of
/// two types without an instance, an error names the first by name, never the first the linker
/// happened to place.
struct Depot {
    address: &'static str,
}

#[tools]
impl Depot {
    /// Where the goods are kept.
    #[tool]
    fn address(&self) -> String {
        self.address.to_owned()
    }
}

fn shop(calls: &Arc<AtomicUsize>) -> Shop {
    Shop {
        stock: vec![("tea", 12), ("cake", 3)],
        calls: Arc::clone(calls),
    }
}

#[test]
fn each_marked_method_is_one_tool_and_the_rest_stay_methods() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut registry = ToolRegistry::new();
    registry.register_instance(shop(&calls)).expect("new names");
    let names: Vec<&str> = registry.specs().map(ToolSpec::name).collect();
    assert_eq!(names, ["stock", "take", "opening_hours"]);
    let stock = registry.get("stock").expect("registered").spec();
    assert_eq!(stock.description(), "How many of an item are in stock.");
    assert_eq!(
        stock.input_schema(),
        &json!({
            "type": "object",
            "properties": {"item": {"type": "string", "description": "The item."}},
            "required": ["item"],
            "additionalProperties": false
        })
    );
    let take = registry.get("take").expect("registered").spec();
    assert!(take.flags().requires_approval());
    assert_eq!(take.group(), "shop");
    assert_eq!(take.states()[0].type_name(), "methods::Region");
    assert_eq!(take.input_schema()["required"], json!(["item"]));
    // Methods are not linked: only an instance brings them.
    assert!(ToolRegistry::linked().expect("no duplicates").is_empty());
    assert_eq!(shop(&calls).count("cake"), 3);
}

#[tokio::test]
async fn every_call_shares_the_one_registered_instance() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut registry = ToolRegistry::new();
    registry.register_instance(shop(&calls)).expect("new names");
    let service = ToolLoopService::new(registry);
    let context = ToolContext::new().with_extension(Region("north"));
    let scope = service
        .scope_offering(context, service.registry().names())
        .expect("every state is there");
    let result = service.invoke(&scope, "stock", r#"{"item": "tea"}"#).await;
    assert_eq!(result.content(), "12");
    let result = service.invoke(&scope, "opening_hours", "{}").await;
    assert_eq!(result.content(), "9-17");
    // `take` needs an operator's approval, like any such tool.
    let refused = service.invoke(&scope, "take", r#"{"item": "cake"}"#).await;
    assert!(refused.is_error());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let result = service.invoke(&scope, "stock", r#"{"item": "cake"}"#).await;
    assert_eq!(result.content(), "3");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    // Its state is checked like a free function's.
    let ScopeError::MissingStates(missing) = service.scope(ToolContext::new()).unwrap_err() else {
        panic!("refused for another reason");
    };
    let missing: Vec<(&str, &str)> = missing
        .iter()
        .map(|state| (state.tool.as_str(), state.written))
        .collect();
    assert_eq!(missing, [("take", "Region")]);
}

#[test]
fn registering_an_instance_is_all_or_nothing() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut registry = ToolRegistry::new();
    registry
        .register(Taken(ToolSpec::new(
            "take",
            "Already here.",
            json!({"type": "object"}),
        )))
        .expect("a new name");
    let error = registry.register_instance(shop(&calls)).unwrap_err();
    let RegistryError::Duplicate(DuplicateTool { name, .. }) = error else {
        panic!("a duplicate: {error}");
    };
    assert_eq!(name, "take");
    let names: Vec<&str> = registry.specs().map(ToolSpec::name).collect();
    assert_eq!(names, ["take"], "no tool of the instance was added");
    assert!(registry.get("stock").is_none());
    // The registry still works: the instance's tools can come in once the name is free.
    let mut fresh = ToolRegistry::new();
    fresh.register_instance(shop(&calls)).expect("new names");
    assert_eq!(fresh.len(), 3);
}

struct Taken(ToolSpec);

impl toolkit::Tool for Taken {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &toolkit::spec::ExecutePermit,
    ) -> toolkit::spec::ToolFuture<'a> {
        toolkit::spec::ToolFuture::Ready(Ok(ToolResult::text("taken")))
    }
}

#[test]
fn a_tools_type_without_a_registered_instance_is_named_with_the_fix() {
    // This crate has only `#[tools]` methods: no instance yet, so its tools are missing.
    let error = ToolRegistry::linked_expecting(&["methods"]).unwrap_err();
    let RegistryError::InstanceMissing {
        type_name,
        crate_name,
        place,
    } = &error
    else {
        panic!("refused for another reason: {error}");
    };
    assert_eq!(
        (type_name.as_str(), crate_name.as_str()),
        ("Depot", "methods")
    );
    assert!(
        place.starts_with("methods (toolkit/tests/methods.rs:"),
        "{place}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "the `#[tools]` type `Depot` of crate `methods` (defined at {place}) has no instance \
             registered, so its tools are missing: add one with `registry.register_instance(..)`, \
             then check with `registry.check_crates(&[\"methods\"])` (`linked_expecting` checks \
             before any instance can be registered)"
        )
    );
    let mut registry = ToolRegistry::linked().expect("no duplicates");
    assert!(registry.check_crates(&["methods"]).is_err());
    registry
        .register_instance(Depot {
            address: "1 Dock Road",
        })
        .expect("new names");
    let Err(RegistryError::InstanceMissing { type_name, .. }) = registry.check_crates(&["methods"])
    else {
        panic!("the shop has no instance yet");
    };
    assert_eq!(type_name, "Shop");
    registry
        .register_instance(shop(&Arc::new(AtomicUsize::new(0))))
        .expect("new names");
    registry
        .check_crates(&["methods"])
        .expect("every type has its instance");
    assert_eq!(registry.crates(), ["methods"]);
    // A crate nothing references is still named as not linked.
    assert!(matches!(
        registry.check_crates(&["methods", "no_such_crate"]),
        Err(RegistryError::NothingLinked { .. })
    ));
}
