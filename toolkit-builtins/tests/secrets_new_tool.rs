//! A tool of one's own, in a group whose builtins can show a source, is tried against the
//! secret corpus with them: nobody lists it. Here two tools show a workspace file's lines last
//! first, a layout no builtin has and the rules cannot read (a private key's end comes before
//! its start, a CSV's row before its header). The corpus finds both: the one that lays out the file as it is shows secrets
//! with the filter on, and the one that hands the filter the file first
//! ([`ToolContext::filter_content`]) shows none.

mod secrets_corpus;

use std::sync::Arc;

use secrets_corpus::{calls, plant, read_through, shapes_in, source_tools};
use toolkit::{ToolContext, ToolLoopService, ToolResult, seam::SecretFilter, tool};
use toolkit_builtins::WorkspaceRoot;
use toolkit_secrets::corpus::CORPUS;

/// The lines of a workspace file, the last one first (each as the run's filter passes the
/// file when `filtered`).
fn reversed(path: &str, context: &ToolContext, filtered: bool) -> ToolResult {
    let Some(root) = context.extension::<WorkspaceRoot>() else {
        return ToolResult::error("no workspace");
    };
    if path.contains("..") {
        return ToolResult::error("a path inside the workspace");
    }
    match std::fs::read_to_string(root.path().join(path)) {
        Ok(text) => {
            let text = if filtered {
                context.filter_content(&text).into_owned()
            } else {
                text
            };
            ToolResult::text(text.lines().rev().collect::<Vec<_>>().join("\n"))
        }
        Err(error) => ToolResult::error(format!("cannot read {path}: {error}")),
    }
}

/// Shows a workspace file's lines, the last one first, from the file as the filter passes it.
#[tool(read_only, group = "files")]
fn lines_last_first(
    /// The file, relative to the workspace root.
    path: String,
    context: &ToolContext,
) -> ToolResult {
    reversed(&path, context, true)
}

/// Shows a workspace file's lines, the last one first, from the file as it is.
#[tool(read_only, group = "files")]
fn lines_last_first_unfiltered(
    /// The file, relative to the workspace root.
    path: String,
    context: &ToolContext,
) -> ToolResult {
    reversed(&path, context, false)
}

/// The shapes a tool shows without the filter and with it.
async fn figures(tool: &str) -> (Vec<&'static str>, Vec<&'static str>) {
    let registry = toolkit_builtins::registry().expect("no duplicates");
    assert!(
        source_tools(&registry).contains(&tool.to_owned()),
        "the corpus chooses {tool}"
    );
    let plants = plant();
    let spec = registry.get(tool).expect("linked").spec();
    let calls = calls(spec, &plants).expect("arguments from its schema");
    assert_eq!(calls.len(), plants.files.len(), "one call per planted file");
    let open = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicates"));
    let shown = read_through(&open, &plants, tool, &calls).await;
    let filtered = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicates"))
        .with_content_filter(Arc::new(SecretFilter));
    let masked = read_through(&filtered, &plants, tool, &calls).await;
    (shapes_in(&shown.results), shapes_in(&masked.results))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_tool_of_a_source_group_is_tried_without_being_named() {
    let everything: Vec<&str> = CORPUS.iter().map(|(form, _, _)| *form).collect();
    let (shown, leaked) = figures("lines_last_first").await;
    assert_eq!(shown, everything, "read without the filter");
    assert_eq!(leaked, Vec::<&str>::new(), "on the wire");
    // The same layout from the file as it is: the corpus catches what the rules cannot read
    // (a key's end before its start, a value before its name, a row above its header).
    let (shown, leaked) = figures("lines_last_first_unfiltered").await;
    assert_eq!(shown, everything, "read without the filter");
    assert_eq!(
        leaked,
        [
            "PGP private key block",
            "password variable",
            "Twilio auth token",
            "DB_PASS variable",
            "HMAC variable",
            "signing key in hex",
            "encryption key in hex",
            "DB_PASS plain value",
            "signing key, SHA-256 hex",
            "encryption key, 32 hex digits",
            "HMAC salt",
            "Kubernetes env pair",
            "Rails master key",
            "app password",
            "webhook secret",
            "JWT signing secret",
            "password salt",
            "Fernet key",
            "Cloudflare API token",
            "WPA passphrase",
        ],
        "on the wire"
    );
}
