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
use std::time::Instant;

use toolkit::{ToolContext, ToolLoopService, ToolRegistry};

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
    // The seam alone: nothing is recorded, so the example times the call itself.
    let started = Instant::now();
    let result = runtime.block_on(service.invoke(&scope, &name, &arguments));
    let took = started.elapsed();
    let wire = result.wire();

    println!("== {name} {arguments}");
    println!(
        "== wire content (to the model){}:",
        if wire.is_error() { ", an error" } else { "" }
    );
    println!("{}", wire.as_str());
    println!(
        "== artifacts (run-only, never sent): {}",
        result.artifacts().len()
    );
    for artifact in result.artifacts() {
        shared::print_artifact(artifact);
    }
    println!("== took {took:?}");
    if wire.is_error() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
