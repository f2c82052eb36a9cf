//! The builtin tools in your own binary, beside your own `#[tool]`s, confined to one folder: the
//! file tools read inside it and refuse any path that leads out of it.
//!
//! ```text
//! cargo run -p toolkit-builtins --example builtins      # offline: works in a temporary folder
//! ```
//!
//! Linking `toolkit_builtins` does not add its tools to `ToolRegistry::linked()` (which holds
//! your own tools): `toolkit_builtins::registry()` gives both, and
//! `toolkit_builtins::register(&mut registry)` adds the builtins to a registry you made. The
//! file tools work in the `WorkspaceRoot` of the run's context, and nowhere else.

use std::error::Error;

use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tool};
use toolkit_builtins::WorkspaceRoot;

/// Says which version of this program is running.
#[tool(read_only)]
fn app_version() -> String {
    format!("builtins example {}", env!("CARGO_PKG_VERSION"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    // A folder with the workspace in it, and a file beside the workspace that no tool may read.
    let folder = tempfile::tempdir()?;
    let root = folder.path().join("workspace");
    std::fs::create_dir_all(root.join("docs"))?;
    std::fs::write(root.join("notes.txt"), "buy milk\ncall the plumber\n")?;
    std::fs::write(root.join("docs/plan.md"), "# Plan\n1. Ship it.\n")?;
    std::fs::write(folder.path().join("secret.txt"), "the launch codes\n")?;

    let own = ToolRegistry::linked()?;
    let registry = toolkit_builtins::registry()?;
    println!(
        "linked: {} tool(s); with the builtins: {} tools (read_file: {})",
        own.len(),
        registry.len(),
        registry.get("read_file").is_some()
    );

    let service = ToolLoopService::new(registry);
    let context = ToolContext::new().with_extension(WorkspaceRoot::new(&root));
    let scope = service.scope(context)?;
    let calls = [
        ("app_version", "{}"),
        ("list_directory", r#"{"path": "."}"#),
        ("read_file", r#"{"path": "notes.txt"}"#),
        // Out of the workspace: refused before anything is opened, as an error result whose
        // text tells the model what to do instead.
        ("read_file", r#"{"path": "../secret.txt"}"#),
    ];
    for (name, arguments) in calls {
        let result = service.invoke(&scope, name, arguments).await;
        let flag = if result.is_error() { " (error)" } else { "" };
        println!("\n== {name} {arguments}{flag}");
        println!("{}", result.content());
        if result.content().contains("launch codes") {
            return Err("the secret beside the workspace was read".into());
        }
    }
    Ok(())
}
