//! An audit copy of a run in a SQLite file: the service gives every event of its runs to the
//! audit copy, which commits each finished step before anyone sees it; the program then opens
//! the file again and reads the run back, step by step.
//!
//! ```text
//! cargo run -p toolkit-audit --example audit_sqlite                  # in a temporary folder
//! cargo run -p toolkit-audit --example audit_sqlite -- audit.sqlite3 # keeps the file
//! ```
//!
//! The privacy level decides what a row keeps: `Metadata` (names, timings, sizes), `Redacted`
//! (also arguments and contents, with secret-shaped strings and e-mail addresses masked) or
//! `Full`. The run here is scripted: offline, no key.

use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;

use toolkit::provider::ScriptedProvider;
use toolkit::{RunRequest, Table, ToolArtifact, ToolLoopService, ToolRegistry, ToolResult, tool};
use toolkit_audit::{Audit, Privacy, RunQuery};

/// Looks up where an order is (a stand-in: a real tool would ask the shop's database).
#[tool(read_only)]
fn order_status(
    /// The order.
    order: String,
) -> Result<ToolResult, toolkit::result::TableError> {
    let history = Table::from_rows(
        ["when", "where"],
        [["Mon 09:12", "packed"], ["Tue 14:40", "out for delivery"]],
    )?;
    Ok(ToolResult::text_with(
        format!("order {order} is out for delivery"),
        [ToolArtifact::table("Tracking", history)],
    ))
}

const SCRIPT: &str = r#"{"turns": [
  {"content": "Let me look it up.", "tool_calls": [
    {"name": "order_status", "arguments": {"order": "A-17"}}
  ]},
  {"content": "Order A-17 is out for delivery; it should arrive today."}
]}"#;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let folder = tempfile::tempdir()?;
    let path = match std::env::args().nth(1) {
        Some(path) => PathBuf::from(path),
        None => folder.path().join("audit.sqlite3"),
    };
    let location = path.to_str().ok_or("the path is not UTF-8")?;

    // The audit copy is a `Sink` on the service: every run of the service is kept.
    let audit = Audit::open(location, Privacy::Redacted).await?;
    let service = ToolLoopService::new(ToolRegistry::linked()?).with_sink(Arc::new(audit));
    let provider = ScriptedProvider::from_json(SCRIPT)?;
    let question = "Where is my order A-17? Write to ada@example.com if it is late.";
    let result = service.run(&provider, RunRequest::new(question)).await?;
    println!("ran {}: {}", result.trace.run_id().as_str(), result.content);

    // Reading back, as another process (or the playground's inspector) would: from the file.
    let audit = Audit::open(location, Privacy::Redacted).await?;
    let (runs, total) = audit.find_runs(&RunQuery::default().with_limit(10)).await?;
    println!("{} holds {total} run(s)", path.display());
    for listed in runs {
        let (run, steps) = audit.run(&listed.run_id).await?.ok_or("listed")?;
        println!(
            "run {} ({}, kept at {}): {}",
            run.run_id,
            run.termination.as_deref().unwrap_or("unfinished"),
            run.privacy,
            run.title.as_deref().unwrap_or("")
        );
        for step in steps {
            let took = step
                .duration_ms
                .map(|ms| format!(" {ms:.1} ms"))
                .unwrap_or_default();
            println!("  [{}] {}{took}", step.index, step.kind);
            if let Some(name) = &step.name {
                println!(
                    "      tool {name}({})",
                    step.arguments.as_deref().unwrap_or("")
                );
            }
            if let Some(content) = step.content.filter(|content| !content.is_empty()) {
                println!("      content: {content}");
            }
            if step.artifact_count > 0 {
                // The artifacts are kept for people (the model never had them).
                println!("      artifacts: {}", step.artifact_types.join(", "));
            }
        }
    }
    Ok(())
}
