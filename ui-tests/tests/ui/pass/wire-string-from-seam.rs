// control for fail/wire-string-*.rs: the one way to a `WireString` is a tool's result through
// `ToolLoopService::invoke`; reading, cloning and serialising one is fine.
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, ToolResult, WireString, tool};

/// Greets someone by name.
#[tool]
fn greet(
    /// Who to greet.
    name: String,
) -> ToolResult {
    ToolResult::text(format!("Hello, {name}!"))
}

async fn through_the_seam(name: &str, arguments: &str) -> WireString {
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicate tools"));
    let scope = service.scope(ToolContext::new()).unwrap();
    service
        .invoke(&scope, name, arguments)
        .await
        .wire()
        .clone()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let wire: WireString = through_the_seam("greet", r#"{"name": "Ada"}"#).await;
    assert_eq!(wire.as_str(), "Hello, Ada!");
    assert_eq!(&*wire, "Hello, Ada!");
    assert_eq!(AsRef::<str>::as_ref(&wire), "Hello, Ada!");
    assert_eq!(wire.clone(), wire);
    assert_eq!(serde_json::to_string(&wire).unwrap(), r#""Hello, Ada!""#);

    let refused = through_the_seam("nope", "{}").await;
    assert_eq!(refused.as_str(), "Error: unknown tool \"nope\"");
}
