//! Tools with shared state: a notes store that two tools read and write across the calls of a
//! run, given to the run once in its `ToolContext` and read back by the program afterwards.
//!
//! ```text
//! cargo run -p toolkit --example state      # a scripted run: offline, no key
//! ```
//!
//! A `#[state]` parameter borrows a value of its type from the run's context (`&Notes` here). It
//! is not an argument: the model never sees it in the tool's schema and cannot pass it. State is
//! shared, never `&mut`, so what changes sits behind a `Mutex` (or an atomic).

use std::error::Error;
use std::sync::Mutex;

use toolkit::provider::ScriptedProvider;
use toolkit::{RunRequest, ToolContext, ToolLoopService, ToolRegistry, tool};

/// The notes the tools keep: one store for every call, and for the program that gave it.
#[derive(Default)]
struct Notes(Mutex<Vec<String>>);

/// Saves a note for later.
#[tool]
fn add_note(
    /// The note's text.
    text: String,
    #[state] notes: &Notes,
) -> String {
    let mut notes = notes.0.lock().expect("no tool panicked holding the lock");
    notes.push(text);
    format!("saved note #{}", notes.len())
}

/// Lists the saved notes, one per line.
#[tool(read_only)]
fn list_notes(#[state] notes: &Notes) -> String {
    let notes = notes.0.lock().expect("no tool panicked holding the lock");
    if notes.is_empty() {
        return "no notes".to_owned();
    }
    let lines: Vec<String> = notes
        .iter()
        .enumerate()
        .map(|(index, note)| format!("{}. {note}", index + 1))
        .collect();
    lines.join("\n")
}

/// The model's turns, scripted: two notes, a listing, then the answer.
const SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [
    {"name": "add_note", "arguments": {"text": "buy milk"}},
    {"name": "add_note", "arguments": {"text": "call the plumber"}}
  ]},
  {"tool_calls": [{"name": "list_notes", "arguments": {}}]},
  {"content": "You have two notes: buy milk, and call the plumber."}
]}"#;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let service = ToolLoopService::new(ToolRegistry::linked()?);

    // The state is declared in the spec and left out of the arguments.
    let spec = service.registry().get("add_note").ok_or("add_note")?.spec();
    println!("add_note reads state: {}", spec.states()[0].written());
    println!(
        "add_note arguments:   {}",
        spec.input_schema()["properties"]
    );

    // A context without the state is refused before anything runs, naming what is missing.
    let refused = service.scope(ToolContext::new()).err().ok_or("a refusal")?;
    println!("without Notes:        {refused}\n");

    // Given once; a clone of a context shares its state, so `context` sees what tools write.
    let context = ToolContext::new().with_extension(Notes::default());
    let provider = ScriptedProvider::from_json(SCRIPT)?;
    let request = RunRequest::new("Remember milk and the plumber.").with_context(context.clone());
    let result = service.run(&provider, request).await?;
    for call in result.trace.invocations() {
        let answer = call.content().replace('\n', "\n    ");
        println!("tool {} -> {answer}", call.name());
    }
    println!("model: {}\n", result.content);

    let notes = context.extension::<Notes>().ok_or("given above")?;
    let kept = notes.0.lock().expect("the run is over");
    println!("the program reads back {} notes: {:?}", kept.len(), *kept);
    Ok(())
}
