//! One call the way an operator lets a tool that requires approval run: a scripted model asks
//! for it, the run suspends, the operator approves, and the resumed run executes it through the
//! seam with the proof of that approval. (`invoke` alone refuses such tools.)
#![allow(dead_code)] // each test crate uses a part

use serde_json::json;
use toolkit::provider::ScriptedProvider;
use toolkit::{
    RunOptions, RunRequest, ToolArtifact, ToolContext, ToolLoopService, approval::Decision,
    recording::ToolInvocation,
};

/// The approved call's outcome: content, error flag, artifacts. A call refused before it could
/// be approved (unknown tool, bad arguments) gives that refusal.
pub async fn approved_call(
    service: &ToolLoopService,
    context: ToolContext,
    name: &str,
    arguments: &str,
) -> (String, bool, Vec<ToolArtifact>) {
    approved_call_with(service, RunOptions::default(), context, name, arguments).await
}

/// [`approved_call`] in a run with these options (a shorter per-call timeout, say).
pub async fn approved_call_with(
    service: &ToolLoopService,
    options: RunOptions,
    context: ToolContext,
    name: &str,
    arguments: &str,
) -> (String, bool, Vec<ToolArtifact>) {
    let script = json!({"turns": [
        {"tool_calls": [{"id": "operator_1", "name": name, "arguments_raw": arguments}]},
        {"content": "done"}
    ]});
    let model = ScriptedProvider::from_json(&script.to_string()).expect("a valid script");
    let request = RunRequest::new("do it")
        .with_tools([name])
        .with_options(options)
        .with_context(context.clone());
    let first = service.run(&model, request).await.expect("the run starts");
    let trace = match first.suspension {
        None => first.trace,
        Some(suspension) => {
            service
                .resume(
                    &model,
                    &suspension.token,
                    &[Decision::approve("operator_1")],
                    context,
                )
                .await
                .expect("the approved run resumes")
                .trace
        }
    };
    let step: &ToolInvocation = trace
        .invocations()
        .find(|step| step.call_id() == "operator_1")
        .expect("the call's step");
    (
        step.content().to_owned(),
        step.is_error(),
        step.artifacts().to_vec(),
    )
}
