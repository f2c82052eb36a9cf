//! Previews of calls waiting for approval: the tool a spec names runs with the call's arguments
//! when the run stops, in a read-only scope, and its answer goes to the operator (the
//! suspension), never to the model or the trace. A preview tool that could change anything, or
//! that is not there, is refused when the registry is built.

use std::sync::atomic::{AtomicUsize, Ordering};

use toolkit::provider::ScriptedProvider;
use toolkit::registry::{PreviewProblem, RegistryError};
use toolkit::spec::{ExecutePermit, ToolFlags, ToolFuture};
use toolkit::{
    RunRequest, Seam, Tool, ToolContext, ToolLoopService, ToolRegistry, ToolResult, ToolSpec,
    recording::Termination, tool, tools,
};

static PREVIEWS: AtomicUsize = AtomicUsize::new(0);
static RENAMES: AtomicUsize = AtomicUsize::new(0);
static PURGES: AtomicUsize = AtomicUsize::new(0);

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
#[tool(read_only)]
fn show_rename(
    /// Who.
    user: String,
    /// The new name.
    to: String,
) -> String {
    PREVIEWS.fetch_add(1, Ordering::SeqCst);
    format!("PREVIEW-CANARY: {user} would be called {to}")
}

/// Says what is in the bin.
#[tool(read_only)]
fn look_in_bin() -> String {
    "two files".to_owned()
}

/// Empties a bin (needs an operator; no preview).
#[tool(requires_approval)]
fn empty_bin() -> String {
    "emptied".to_owned()
}

/// Cleans a bin (needs an operator), naming a writer as its preview.
#[tool(requires_approval, preview = "purge")]
fn clean_bin() -> String {
    "cleaned".to_owned()
}

/// Deletes everything for good: a writer, though it takes no approval.
#[tool]
fn purge() -> String {
    PURGES.fetch_add(1, Ordering::SeqCst);
    "purged".to_owned()
}

/// Deletes a row, naming a preview with a typo.
#[tool(requires_approval, preview = "preview_delet")]
fn delete_row() -> String {
    "deleted".to_owned()
}

/// Drops a table, previewed by a tool that needs an operator itself.
#[tool(requires_approval, preview = "guarded_preview")]
fn drop_table(
    /// Which.
    table: String,
) -> String {
    format!("dropped {table}")
}

/// A preview that itself needs an operator.
#[tool(read_only, requires_approval)]
fn guarded_preview(
    /// Which.
    table: String,
) -> String {
    format!("would drop {table}")
}

const SCRIPT: &str = r#"{"turns": [
    {"tool_calls": [
        {"id": "r1", "name": "rename_user", "arguments": {"user": "ada", "to": "grace"}},
        {"id": "e1", "name": "empty_bin", "arguments": {}}
    ]},
    {"content": "done"}
]}"#;

#[tokio::test]
async fn a_suspended_run_carries_each_previewable_calls_preview_for_the_operator_only() {
    let registry = ToolRegistry::of([RENAME_USER_TOOL, SHOW_RENAME_TOOL, EMPTY_BIN_TOOL])
        .expect("a valid preview");
    let service = ToolLoopService::new(registry);
    let provider = ScriptedProvider::from_json(SCRIPT).expect("a script");
    let result = service
        .run(&provider, RunRequest::new("tidy up"))
        .await
        .expect("a run");
    assert_eq!(result.termination, Termination::Suspended);
    let suspension = result.suspension.expect("suspended");
    assert_eq!(suspension.pending.len(), 2);
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
    let registry = ToolRegistry::of([RENAME_USER_TOOL, SHOW_RENAME_TOOL, EMPTY_BIN_TOOL])
        .expect("a valid preview");
    let spec = registry.get("rename_user").expect("registered").spec();
    assert_eq!(spec.preview(), Some("show_rename"));
    assert_eq!(
        registry
            .get("empty_bin")
            .expect("registered")
            .spec()
            .preview(),
        None
    );
    assert!(
        registry
            .get("show_rename")
            .expect("registered")
            .spec()
            .flags()
            .read_only()
    );
}

/// The message and problem of the registry's refusal of these tools.
fn refusal(tools: &[&'static dyn Tool]) -> (String, PreviewProblem) {
    match ToolRegistry::of(tools.iter().copied()) {
        Err(error @ RegistryError::Preview { problem, .. }) => (error.to_string(), problem),
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn a_writer_named_as_a_preview_is_refused_when_registered_and_never_runs() {
    let (message, problem) = refusal(&[CLEAN_BIN_TOOL, PURGE_TOOL]);
    assert_eq!(problem, PreviewProblem::NotReadOnly);
    let place = CLEAN_BIN_TOOL.spec().place();
    assert_eq!(
        message,
        format!(
            "tool \"clean_bin\" (defined at {place}) cannot be previewed by \"purge\": it is not \
             marked read-only, and a preview runs before anyone approves: name a tool that only \
             reads, marked `#[tool(read_only)]`"
        )
    );
    // Refused in either order of registration.
    assert_eq!(
        refusal(&[PURGE_TOOL, CLEAN_BIN_TOOL]).1,
        PreviewProblem::NotReadOnly
    );
    assert_eq!(PURGES.load(Ordering::SeqCst), 0);
}

#[test]
fn a_preview_name_no_tool_has_is_refused_when_registered() {
    let (message, problem) = refusal(&[DELETE_ROW_TOOL]);
    assert_eq!(problem, PreviewProblem::NotRegistered);
    assert!(
        message.starts_with("tool \"delete_row\" (defined at ")
            && message.ends_with(
                "cannot be previewed by \"preview_delet\": no tool of that name is registered \
                 (a tool added with `register` needs its preview tool registered first)"
            ),
        "{message}"
    );
}

#[test]
fn a_preview_that_needs_approval_itself_is_refused_when_registered() {
    let (message, problem) = refusal(&[DROP_TABLE_TOOL, GUARDED_PREVIEW_TOOL]);
    assert_eq!(problem, PreviewProblem::RequiresApproval);
    assert!(
        message.ends_with(
            "cannot be previewed by \"guarded_preview\": it requires approval itself, and a \
             preview runs before anyone approves"
        ),
        "{message}"
    );
}

/// A tool built by hand, whose spec may say anything.
struct ByHand(ToolSpec);

impl Tool for ByHand {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        ToolFuture::Ready(Ok(ToolResult::text("ran")))
    }
}

fn by_hand(name: &'static str, flags: ToolFlags) -> ByHand {
    ByHand(
        ToolSpec::new(
            name,
            "Built by hand.",
            serde_json::json!({"type": "object"}),
        )
        .with_flags(flags),
    )
}

#[test]
fn a_tool_added_alone_needs_its_preview_registered_first_and_a_refusal_adds_nothing() {
    let approval = ToolFlags::new().with_requires_approval(true);
    let previewed = || {
        let ByHand(spec) = by_hand("publish", approval);
        ByHand(spec.with_preview("peek"))
    };
    let mut registry = ToolRegistry::new();
    let error = registry.register(previewed()).unwrap_err();
    assert!(matches!(
        error,
        RegistryError::Preview {
            problem: PreviewProblem::NotRegistered,
            ..
        }
    ));
    assert!(registry.is_empty(), "a refused tool is not added");
    registry
        .register(by_hand("peek", ToolFlags::new().with_read_only(true)))
        .expect("a reader");
    registry
        .register(previewed())
        .expect("its preview is there");
    assert_eq!(registry.len(), 2);
}

#[test]
fn a_preview_on_a_tool_that_needs_no_approval_is_refused() {
    let mut registry = ToolRegistry::new();
    registry
        .register(by_hand("peek", ToolFlags::new().with_read_only(true)))
        .expect("a reader");
    let ByHand(spec) = by_hand("tidy", ToolFlags::new());
    let error = registry
        .register(ByHand(spec.with_preview("peek")))
        .unwrap_err();
    assert!(
        error.to_string().ends_with(
            "cannot be previewed by \"peek\": the tool requires no approval, so no run stops to \
             show a preview: add `requires_approval` or remove `preview`"
        ),
        "{error}"
    );
}

/// A workshop whose tool is previewed by a free tool.
struct Workshop {
    name: &'static str,
}

#[tools]
impl Workshop {
    /// Renames a user in the workshop (needs an operator; previewed by `show_rename`).
    #[tool(requires_approval, preview = "show_rename")]
    fn rename_in_workshop(
        &self,
        /// Who.
        user: String,
        /// The new name.
        to: String,
    ) -> String {
        format!("renamed {user} to {to} in {}", self.name)
    }
}

#[test]
fn an_instance_is_checked_whole_and_added_all_or_nothing() {
    let mut registry = ToolRegistry::new();
    assert!(matches!(
        registry.register_instance(Workshop { name: "the shed" }),
        Err(RegistryError::Preview {
            problem: PreviewProblem::NotRegistered,
            ..
        })
    ));
    assert!(registry.is_empty());
    let mut registry = ToolRegistry::of([SHOW_RENAME_TOOL]).expect("a reader");
    registry
        .register_instance(Workshop { name: "the shed" })
        .expect("its preview is there");
    assert_eq!(registry.len(), 2);
}

#[test]
fn retain_keeps_the_preview_tool_of_every_tool_it_keeps() {
    let mut registry = ToolRegistry::of([RENAME_USER_TOOL, SHOW_RENAME_TOOL, EMPTY_BIN_TOOL])
        .expect("a valid preview");
    registry.retain(|spec| spec.name() == "rename_user");
    let names: Vec<&str> = registry.specs().map(ToolSpec::name).collect();
    assert_eq!(names, ["rename_user", "show_rename"]);
}

#[tokio::test]
async fn a_read_only_scope_refuses_every_tool_not_marked_read_only() {
    let registry = ToolRegistry::of([LOOK_IN_BIN_TOOL, PURGE_TOOL]).expect("no previews");
    let seam = Seam::new(registry);
    let scope = seam
        .scope_offering(ToolContext::new(), seam.registry().names())
        .expect("no state")
        .read_only();
    let purged = seam.invoke(&scope, "purge", "{}").await;
    assert_eq!(
        (purged.content(), purged.is_error()),
        (
            "Error: tool \"purge\" is not read-only, and this scope runs only read-only tools; it \
             was not run.",
            true
        )
    );
    assert_eq!(PURGES.load(Ordering::SeqCst), 0);
    let looked = seam.invoke(&scope, "look_in_bin", "{}").await;
    assert_eq!((looked.content(), looked.is_error()), ("two files", false));
}
