// control for fail/tool-execute-*.rs: tools run through the seam, which holds the only
// `ExecutePermit`; a `Tool` written by hand (here one that wraps a `#[tool]`) is lent the permit
// and passes it on inside `execute`, keeping only what outlives the call (a count).
use std::sync::Mutex;

use toolkit::spec::{ExecutePermit, ToolFuture};
use toolkit::{Tool, ToolContext, ToolLoopService, ToolRegistry, ToolResult, ToolSpec, tool};

/// Reads a secret the model must only see bounded.
#[tool]
pub fn read_secret() -> ToolResult {
    ToolResult::text("secret")
}

/// Another name for a linked tool: same arguments, same body.
struct Alias {
    spec: ToolSpec,
    target: &'static str,
    registry: ToolRegistry,
    calls: Mutex<u32>,
}

impl Tool for Alias {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn execute<'a>(
        &'a self,
        arguments: &'a str,
        context: &'a ToolContext,
        permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        *self.calls.lock().unwrap() += 1;
        match self.registry.get(self.target) {
            Some(target) => target.execute(arguments, context, permit),
            None => ToolFuture::Ready(Ok(ToolResult::error("Error: no target"))),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut registry = ToolRegistry::linked().expect("no duplicate tools");
    registry
        .register(Alias {
            spec: ToolSpec::new(
                "secret",
                "Reads the secret.",
                serde_json::json!({"type": "object"}),
            ),
            target: "read_secret",
            registry: ToolRegistry::linked().expect("no duplicate tools"),
            calls: Mutex::new(0),
        })
        .expect("a new name");
    let service = ToolLoopService::new(registry);
    let scope = service.scope(ToolContext::new()).unwrap();

    for name in ["read_secret", "secret"] {
        let result = service.invoke(&scope, name, "{}").await;
        assert!(!result.is_error(), "{name}: {:?}", result.content());
        assert_eq!(result.content(), "secret");
    }
}
