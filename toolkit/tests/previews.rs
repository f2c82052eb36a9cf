//! Previews of calls waiting for approval: the tool a spec names runs with the call's arguments
//! when the run stops, and its answer goes to the operator (the suspension), never to the model
//! or the trace.

use std::sync::atomic::{AtomicUsize, Ordering};

use toolkit::provider::ScriptedProvider;
use toolkit::{RunRequest, ToolLoopService, ToolRegistry, recording::Termination, tool};

static PREVIEWS: AtomicUsize = AtomicUsize::new(0);
static RENAMES: AtomicUsize = AtomicUsize::new(0);

/// Renames a user (needs an operator; previewed by `show_rename`).
#[tool(requires_approval, preview = "show_rename")]
fn rename_user(
    /// Who.
    user: String,
    /// The new name.
    to: String,
) -> String {
    RENAMES.fetch_add(1, Ordering::SeqCst);
    format!("renamed {user} to {to}")
}

/// Says what a rename would do.
#[tool]
fn show_rename(
    /// Who.
    user: String,
    /// The new name.
    to: String,
) -> String {
    PREVIEWS.fetch_add(1, Ordering::SeqCst);
    format!("PREVIEW-CANARY: {user} would be called {to}")
}

/// Drops a table (needs an operator; its preview needs one too, so it gives none).
#[tool(requires_approval, preview = "guarded_preview")]
fn drop_table(
    /// Which.
    table: String,
) -> String {
    format!("dropped {table}")
}

/// A preview that itself needs an operator: never run as a preview.
#[tool(requires_approval)]
fn guarded_preview(
    /// Which.
    table: String,
) -> String {
    format!("would drop {table}")
}

/// Empties a bin (needs an operator; no preview).
#[tool(requires_approval)]
fn empty_bin() -> String {
    "emptied".to_owned()
}

const SCRIPT: &str = r#"{"turns": [
    {"tool_calls": [
        {"id": "r1", "name": "rename_user", "arguments": {"user": "ada", "to": "grace"}},
        {"id": "d1", "name": "drop_table", "arguments": {"table": "users"}},
        {"id": "e1", "name": "empty_bin", "arguments": {}}
    ]},
    {"content": "done"}
]}"#;

#[tokio::test]
async fn a_suspended_run_carries_each_previewable_calls_preview_for_the_operator_only() {
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    let provider = ScriptedProvider::from_json(SCRIPT).expect("a script");
    let result = service
        .run(&provider, RunRequest::new("tidy up"))
        .await
        .expect("a run");
    assert_eq!(result.termination, Termination::Suspended);
    let suspension = result.suspension.expect("suspended");
    assert_eq!(suspension.pending.len(), 3);
    let shown: Vec<(&str, &str)> = suspension
        .previews
        .iter()
        .map(|preview| (preview.call_id.as_str(), preview.text.as_str()))
        .collect();
    assert_eq!(shown, [("r1", "PREVIEW-CANARY: ada would be called grace")]);
    assert_eq!(PREVIEWS.load(Ordering::SeqCst), 1);
    assert_eq!(
        RENAMES.load(Ordering::SeqCst),
        0,
        "nothing ran without approval"
    );
    // The model and the trace never see a preview.
    let messages = serde_json::to_string(&result.messages).expect("messages");
    assert!(!messages.contains("PREVIEW-CANARY"));
    let trace = serde_json::to_string(&result.trace).expect("trace");
    assert!(!trace.contains("PREVIEW-CANARY"));
    assert!(!suspension.token.contains("PREVIEW-CANARY"));
}

#[test]
fn the_spec_names_its_preview() {
    let registry = ToolRegistry::linked().expect("no duplicates");
    let spec = registry.get("rename_user").expect("linked").spec();
    assert_eq!(spec.preview(), Some("show_rename"));
    assert_eq!(
        registry.get("empty_bin").expect("linked").spec().preview(),
        None
    );
}
