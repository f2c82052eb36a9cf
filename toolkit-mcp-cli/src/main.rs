//! `toolkit-mcp`: serves toolkit's builtin tools to MCP hosts, over stdio or (`--http PORT`)
//! streamable HTTP on 127.0.0.1, with the builtins' sample workspace as the tools' workspace.
//! Secret-shaped strings in what tools answer are masked (`[REDACTED]`) unless
//! `--show-secrets`: an MCP host forwards replies to a model.

use std::process::ExitCode;
use std::sync::Arc;

use toolkit::{SecretFilter, ToolContext, ToolLoopService, ToolRegistry};
use toolkit_builtins::WorkspaceRoot;

const USAGE: &str = "usage: toolkit-mcp [--http PORT] [--show-secrets]\n\nServes toolkit's builtin tools over MCP: on stdin and stdout, or with --http on\nhttp://127.0.0.1:PORT/mcp (streamable HTTP). Secret-shaped strings in replies are masked\nunless --show-secrets.";

fn main() -> ExitCode {
    let mut arguments = std::env::args().skip(1);
    let mut port = None;
    let mut show_secrets = false;
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--show-secrets" => show_secrets = true,
            "--http" => match arguments.next().map(|port| port.parse::<u16>()) {
                Some(Ok(number)) => port = Some(number),
                _ => return usage_error("--http needs a port number (0 to 65535)"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage_error(&format!("unknown argument \"{}\"", other.escape_debug())),
        }
    }
    // Referencing the crate keeps its tools linked.
    let workspace = WorkspaceRoot::new(toolkit_builtins::files::sample_workspace());
    let registry = match ToolRegistry::linked() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("toolkit-mcp: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut service = ToolLoopService::new(registry);
    if !show_secrets {
        service = service.with_content_filter(Arc::new(SecretFilter));
    }
    let service = Arc::new(service);
    let context = ToolContext::new().with_extension(workspace);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("toolkit-mcp: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(async move {
        match port {
            None => toolkit_mcp::serve_stdio(service, context).await,
            Some(port) => {
                toolkit_mcp::serve_http(service, context, port, |address| {
                    eprintln!(
                        "toolkit-mcp: serving on http://{address}{}",
                        toolkit_mcp::HTTP_PATH
                    );
                })
                .await
            }
        }
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("toolkit-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("toolkit-mcp: {message}\n\n{USAGE}");
    ExitCode::from(2)
}
