//! One call outside a loop (say, from an MCP host), visible to event subscribers like a run.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::bound::{self, echo};
use crate::events::RunEvent;
use crate::seam::{RunScope, ToolLoopService};
use crate::trace::{Termination, ToolInvocation};
use crate::wire::{ToolCall, WireString};

/// Numbers single calls, so each gets its own run id for people watching the event stream.
static NEXT_CALL: AtomicU64 = AtomicU64::new(1);

impl ToolLoopService {
    /// Runs one call through [`invoke`](Self::invoke) as a run of one step, so subscribers see
    /// it: `RunStarted`, `StepStarted`, `ToolInvoked` (with the artifacts) and `Done`, under the
    /// run id `SOURCE_N` (`source` cut and escaped like a tool name, `N` counting from 1 in this
    /// process).
    ///
    /// Gives the wire content (for whoever asked) and the trace record (with the artifacts, for
    /// people only).
    ///
    /// ```
    /// use toolkit::{RunEvent, ToolCall, ToolContext, ToolLoopService, ToolRegistry};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let service = ToolLoopService::new(ToolRegistry::new());
    /// let mut events = service.subscribe();
    /// let scope = service.scope(ToolContext::new());
    /// let call = ToolCall::new("1", "nope", "{}");
    /// let (wire, invocation) = service.call_observed(&scope, "mcp", &call).await;
    /// assert_eq!(wire.as_str(), "Error: unknown tool \"nope\"");
    /// assert!(invocation.is_error);
    /// assert!(matches!(&*events.recv().await.unwrap(), RunEvent::RunStarted { run_id } if run_id.starts_with("mcp_")));
    /// # });
    /// ```
    pub async fn call_observed(
        &self,
        scope: &RunScope,
        source: &str,
        call: &ToolCall,
    ) -> (WireString, ToolInvocation) {
        let run_id = format!(
            "{}_{}",
            echo(source),
            NEXT_CALL.fetch_add(1, Ordering::Relaxed)
        );
        let events = self.events();
        events.emit(RunEvent::RunStarted {
            run_id: run_id.clone(),
        });
        events.emit(RunEvent::StepStarted {
            run_id: run_id.clone(),
            index: 0,
            kind: "tool",
            tool: Some(echo(&call.name)),
        });
        let bounded = self.invoke(scope, &call.name, &call.arguments).await;
        let duration = bounded.duration();
        let (wire, is_error, artifacts) = bounded.into_parts();
        let invocation = ToolInvocation {
            call_id: call.id.clone(),
            name: call.name.clone(),
            arguments: bound::cut_content(&call.arguments)
                .unwrap_or_else(|| call.arguments.clone()),
            content: wire.as_str().to_owned(),
            is_error,
            artifacts,
            duration,
        };
        events.emit(RunEvent::ToolInvoked {
            run_id: run_id.clone(),
            index: 0,
            invocation: invocation.clone(),
        });
        events.emit(RunEvent::Done {
            run_id,
            termination: Termination::Answered,
            content: wire.as_str().to_owned(),
        });
        (wire, invocation)
    }
}

#[cfg(test)]
mod tests {
    use crate::result::{ToolArtifact, ToolResult};
    use crate::tool::{ExecutePermit, Tool, ToolContext, ToolFuture, ToolSpec};
    use crate::{RunEvent, Termination, ToolCall, ToolLoopService, ToolRegistry};

    struct Shows(ToolSpec);

    impl Tool for Shows {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }

        fn execute<'a>(
            &'a self,
            _arguments: &'a str,
            _context: &'a ToolContext,
            _permit: ExecutePermit,
        ) -> ToolFuture<'a> {
            ToolFuture::Ready(Ok(ToolResult::text_with(
                "shown",
                [ToolArtifact::text("Secret", "artifact text")],
            )))
        }
    }

    #[tokio::test]
    async fn a_single_call_is_a_run_of_one_tool_step_with_its_artifacts() {
        let mut registry = ToolRegistry::new();
        registry
            .register(Shows(ToolSpec::new(
                "shows",
                "Shows a text.",
                serde_json::json!({"type": "object"}),
            )))
            .expect("one tool");
        let service = ToolLoopService::new(registry);
        let mut events = service.subscribe();
        let scope = service.scope(ToolContext::new());
        let call = ToolCall::new("call_7", "shows", "{}");

        let (wire, invocation) = service.call_observed(&scope, "mcp", &call).await;

        assert_eq!(wire.as_str(), "shown");
        assert_eq!(invocation.content, "shown");
        assert_eq!(invocation.call_id, "call_7");
        assert_eq!(invocation.artifacts.len(), 1);
        let mut received = Vec::new();
        while let Ok(event) = events.try_recv() {
            received.push(event);
        }
        assert_eq!(received.len(), 4);
        let RunEvent::RunStarted { run_id } = &*received[0] else {
            panic!("first event: {:?}", received[0]);
        };
        let number = run_id.strip_prefix("mcp_").expect("run id mcp_N");
        assert!(number.parse::<u64>().is_ok(), "run id {run_id}");
        assert!(matches!(
            &*received[1],
            RunEvent::StepStarted { run_id: id, index: 0, kind: "tool", tool: Some(tool) }
                if id == run_id && tool == "shows"
        ));
        let RunEvent::ToolInvoked {
            run_id: id,
            index: 0,
            invocation,
        } = &*received[2]
        else {
            panic!("third event: {:?}", received[2]);
        };
        assert_eq!(id, run_id);
        assert_eq!(invocation.artifacts[0].as_text(), Some("artifact text"));
        assert!(matches!(
            &*received[3],
            RunEvent::Done { run_id: id, termination: Termination::Answered, content }
                if id == run_id && content == "shown"
        ));
    }

    #[tokio::test]
    async fn each_single_call_gets_its_own_run_id() {
        let service = ToolLoopService::new(ToolRegistry::new());
        let mut events = service.subscribe();
        let scope = service.scope(ToolContext::new());
        let call = ToolCall::new("1", "nope", "{}");
        let (first, _) = service.call_observed(&scope, "mcp", &call).await;
        let (_, second) = service.call_observed(&scope, "mcp", &call).await;
        assert_eq!(first.as_str(), "Error: unknown tool \"nope\"");
        assert!(second.is_error && second.artifacts.is_empty());
        let ids: Vec<String> = std::iter::from_fn(|| events.try_recv().ok())
            .filter_map(|event| match &*event {
                RunEvent::RunStarted { run_id } => Some(run_id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1]);
    }
}
