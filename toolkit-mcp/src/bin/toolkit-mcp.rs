//! Serves toolkit's builtin tools to MCP hosts, over stdio or (`--http PORT`) streamable HTTP on
//! 127.0.0.1, with the builtins' sample workspace as the tools' workspace.
//!
//! Test support: when `TOOLKIT_MCP_TEST_CANARY=1` is set, a tool `canary_artifacts` is added whose
//! artifacts hold canary strings, so tests can check that no artifact byte reaches an MCP reply.

use std::process::ExitCode;
use std::sync::Arc;

use builtins as _; // keeps the builtin tools linked
use toolkit::{
    ExecutePermit, Table, Tool, ToolArtifact, ToolContext, ToolFuture, ToolLoopService,
    ToolRegistry, ToolResult, ToolSpec,
};

const USAGE: &str = "usage: toolkit-mcp [--http PORT]\n\nServes toolkit's builtin tools over MCP: on stdin and stdout, or with --http on\nhttp://127.0.0.1:PORT/mcp (streamable HTTP).";

/// The environment variable that adds the test-only canary tool.
const CANARY_VARIABLE: &str = "TOOLKIT_MCP_TEST_CANARY";

fn main() -> ExitCode {
    let mut arguments = std::env::args().skip(1);
    let mut port = None;
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
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
    let mut registry = match ToolRegistry::linked() {
        Ok(registry) => registry,
        Err(duplicate) => {
            eprintln!("toolkit-mcp: {duplicate}");
            return ExitCode::FAILURE;
        }
    };
    if std::env::var_os(CANARY_VARIABLE).is_some_and(|value| value == "1")
        && let Err(duplicate) = registry.register(CanaryTool::new())
    {
        eprintln!("toolkit-mcp: {duplicate}");
        return ExitCode::FAILURE;
    }
    let service = Arc::new(ToolLoopService::new(registry));
    let context = ToolContext::new().with_workspace(builtins::files::sample_workspace());
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

/// Test support: a tool whose artifacts (a table and a text) hold canary strings and whose content
/// does not.
struct CanaryTool(ToolSpec);

impl CanaryTool {
    fn new() -> Self {
        Self(
            ToolSpec::new(
                "canary_artifacts",
                "Test support: shows artifacts holding canary strings.",
                serde_json::json!({"type": "object", "properties": {}}),
            )
            .with_group("test"),
        )
    }
}

impl Tool for CanaryTool {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        _permit: ExecutePermit,
    ) -> ToolFuture<'a> {
        let table = Table::from_rows(
            ["secret", "note"],
            [["CANARY-TABLE-7f3a9c", "CANARY-CELL-b81e2d"]],
        );
        let result = match table {
            Ok(table) => ToolResult::text_with(
                "2 artifacts shown to people",
                [
                    ToolArtifact::table("CANARY-LABEL-5d04aa", table),
                    ToolArtifact::text("Canary text", "CANARY-TEXT-e9c113"),
                ],
            ),
            Err(error) => ToolResult::error(format!("Error: {error}")),
        };
        ToolFuture::Ready(Ok(result))
    }
}
