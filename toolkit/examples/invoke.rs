//! Invokes one builtin tool through the seam and prints what goes to the model apart from what
//! only people see.
//!
//! ```text
//! cargo run -p toolkit --example invoke                         # a demo call of regex_test
//! cargo run -p toolkit --example invoke -- list                 # the registered tools
//! cargo run -p toolkit --example invoke -- NAME '{"json": "arguments"}'
//! ```

use std::process::ExitCode;

use builtins as _; // links the builtin tools
use toolkit::{ToolArtifact, ToolContext, ToolLoopService, ToolRegistry};

const DEMO_TOOL: &str = "regex_test";
const DEMO_ARGUMENTS: &str =
    r#"{"pattern": "(?<key>\\w+)=(?<value>\\d+)", "text": "width=640 height=480 depth=24"}"#;

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
                println!(
                    "{:<16} {:<10} {}",
                    spec.name(),
                    spec.group(),
                    first_line(spec.description())
                );
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
    let scope = service.scope(ToolContext::new());
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
    let result = runtime.block_on(service.invoke(&scope, &name, &arguments));

    println!("== {name} {arguments}");
    println!(
        "== wire content (to the model){}:",
        if result.is_error() { ", an error" } else { "" }
    );
    println!("{}", result.content().as_str());
    println!(
        "== artifacts (run-only, never sent): {}",
        result.artifacts().len()
    );
    for artifact in result.artifacts() {
        print_artifact(artifact);
    }
    println!("== took {:?}", result.duration());
    if result.is_error() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

fn print_artifact(artifact: &ToolArtifact) {
    println!("-- {} ({})", artifact.label(), artifact.kind().as_str());
    if let Some(table) = artifact.as_table() {
        let widths: Vec<usize> = (0..table.columns().len())
            .map(|column| {
                std::iter::once(&table.columns()[column])
                    .chain(table.rows().iter().map(|row| &row[column]))
                    .map(|cell| cell.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(cell, width)| format!("{cell:<width$}"))
                .collect();
            println!("| {} |", padded.join(" | "));
        };
        line(table.columns());
        println!(
            "|{}|",
            widths
                .iter()
                .map(|w| "-".repeat(w + 2))
                .collect::<Vec<_>>()
                .join("|")
        );
        for row in table.rows() {
            line(row);
        }
    } else if let Some(text) = artifact.as_text() {
        println!("{text}");
    }
}
