//! Invokes one tool through the seam and prints what goes to the model apart from what only
//! people see.
//!
//! ```text
//! cargo run -p toolkit --example invoke                         # a demo call of find_numbers
//! cargo run -p toolkit --example invoke -- list                 # the registered tools
//! cargo run -p toolkit --example invoke -- NAME '{"json": "arguments"}'
//! ```

mod shared;

use std::process::ExitCode;

use toolkit::{ToolCall, ToolContext, ToolLoopService, ToolRegistry};

const DEMO_TOOL: &str = "find_numbers";
const DEMO_ARGUMENTS: &str = r#"{"text": "width=640 height=480 depth=24"}"#;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let registry = match ToolRegistry::linked() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let (name, arguments) = match args.as_slice() {
        [] => (DEMO_TOOL.to_owned(), DEMO_ARGUMENTS.to_owned()),
        [list] if list == "list" => {
            for spec in registry.specs() {
                let summary = spec.description().lines().next().unwrap_or_default();
                println!("{:<16} {summary}", spec.name());
            }
            println!("{} tools", registry.len());
            return ExitCode::SUCCESS;
        }
        [name] => (name.clone(), "{}".to_owned()),
        [name, arguments] => (name.clone(), arguments.clone()),
        _ => {
            eprintln!("usage: invoke [list | NAME [JSON_ARGUMENTS]]");
            return ExitCode::from(2);
        }
    };

    let service = ToolLoopService::new(registry);
    let scope = match service.scope(ToolContext::new()) {
        Ok(scope) => scope,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    // Recorded like one MCP call: the record carries the artifacts and the time taken.
    let call = ToolCall::new("call_1", name.as_str(), arguments.as_str());
    let record = runtime.block_on(service.call_observed(&scope, "example", call));
    let wire = record.wire();

    println!("== {name} {arguments}");
    println!(
        "== wire content (to the model){}:",
        if wire.is_error() { ", an error" } else { "" }
    );
    println!("{}", wire.as_str());
    println!(
        "== artifacts (run-only, never sent): {}",
        record.artifacts().len()
    );
    for artifact in record.artifacts() {
        shared::print_artifact(artifact);
    }
    println!("== took {:?}", record.duration());
    if wire.is_error() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
