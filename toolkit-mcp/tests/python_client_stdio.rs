//! The official Python MCP SDK's client against our server over stdio. This test binary is its
//! own server: started with `TOOLKIT_MCP_TEST_SERVE=stdio`, it serves the builtins plus a
//! test-only tool whose artifacts hold canary strings, so no canary exists in any shipped binary.
//! It has its own `main` (`harness = false`): libtest would write to stdout, the protocol.

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Value, json};
use toolkit::{
    Table, Tool, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, ToolResult, ToolSpec,
    spec::{ExecutePermit, ToolFuture},
};
use toolkit_builtins::WorkspaceRoot;
use toolkit_testing::mcp::{contains, python, reply, run_client, temp_path};

/// The variable that makes this binary serve instead of test.
const SERVE: &str = "TOOLKIT_MCP_TEST_SERVE";

fn main() -> ExitCode {
    if std::env::var(SERVE).as_deref() == Ok("stdio") {
        return serve();
    }
    let name = "python_client_lists_and_calls_the_builtins_over_stdio_and_sees_no_artifact";
    python_client_lists_and_calls_the_builtins_over_stdio_and_sees_no_artifact();
    println!("test {name} ... ok");
    ExitCode::SUCCESS
}

fn sample_context() -> ToolContext {
    ToolContext::new().with_extension(WorkspaceRoot::new(
        toolkit_builtins::files::sample_workspace(),
    ))
}

fn registry() -> ToolRegistry {
    let mut registry = toolkit_builtins::registry().expect("no duplicates");
    registry.register(Canary::new()).expect("a new name");
    registry
}

fn serve() -> ExitCode {
    let service = Arc::new(ToolLoopService::new(registry()));
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    match runtime.block_on(toolkit_mcp::serve_stdio(service, sample_context())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("test server: {error}");
            ExitCode::FAILURE
        }
    }
}

/// A tool whose artifacts (a table and a text) hold canary strings and whose content does not.
struct Canary(ToolSpec);

impl Canary {
    fn new() -> Self {
        Self(ToolSpec::new(
            "canary_artifacts",
            "Test support: shows artifacts holding canary strings.",
            json!({"type": "object", "properties": {}}),
        ))
    }
}

impl Tool for Canary {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        let table = Table::from_rows(
            ["secret", "note"],
            [["CANARY-TABLE-7f3a9c", "CANARY-CELL-b81e2d"]],
        )
        .expect("two columns");
        ToolFuture::Ready(Ok(ToolResult::text_with(
            "2 artifacts shown to people",
            [
                ToolArtifact::table("CANARY-LABEL-5d04aa", table),
                ToolArtifact::text("Canary text", "CANARY-TEXT-e9c113"),
            ],
        )))
    }
}

fn python_client_lists_and_calls_the_builtins_over_stdio_and_sees_no_artifact() {
    let Some(python) = python() else {
        return;
    };
    let raw_log = temp_path("stdio-raw.log");
    let calls = json!([
        {"name": "calculate", "arguments": {"expression": "2 + 3 * 4"}},
        {"name": "regex_test", "arguments": {"pattern": "a+", "text": "caaat"}},
        {"name": "list_directory", "arguments": {"path": "notes"}},
        {"name": "csv_preview", "arguments": {"path": "data/cities.csv", "rows": 2}},
        {"name": "calculate", "arguments": {}},
        {"name": "regex_test", "arguments": {"pattern": 5, "text": "x"}},
        {"name": "no_such_tool", "arguments": {}},
        {"name": "write_file", "arguments": {"path": "x.txt", "content": "y"}},
        {"name": "canary_artifacts", "arguments": {}},
    ]);
    let this = std::env::current_exe().expect("this test binary");
    let (output, stdout) = run_client(
        &python,
        &[
            "stdio",
            raw_log.to_str().expect("UTF-8 path"),
            this.to_str().expect("UTF-8 path"),
        ],
        &calls,
    );

    // tools/list: every offered tool with its description and schema, the canary last. The
    // count is what the registry reports, never a number written here.
    let service = ToolLoopService::new(registry());
    let scope = service.scope(sample_context()).unwrap();
    let expected: Vec<Value> = scope
        .offered()
        .filter_map(|name| service.registry().get(name))
        // Writers are offered only with `with_writers`, to clients that answer forms (this one
        // answers none); schemas are listed portably.
        .filter(|tool| !tool.spec().flags().requires_approval())
        .map(|tool| {
            let spec = tool.spec();
            json!({"name": spec.name(), "description": spec.description(), "input_schema": toolkit_mcp::portable(spec.input_schema())})
        })
        .collect();
    assert_eq!(output["tools"], Value::Array(expected));
    assert_eq!(
        output["tools"]
            .as_array()
            .and_then(|tools| tools.last())
            .map(|tool| &tool["name"]),
        Some(&json!("canary_artifacts"))
    );

    let exact = [
        (0, "2 + 3 * 4 = 14", false),
        (
            4,
            "Error: invalid arguments for tool \"calculate\": missing field `expression`.",
            true,
        ),
        (
            5,
            "Error: invalid arguments for tool \"regex_test\" at \"pattern\": invalid type: integer `5`, expected a string.",
            true,
        ),
        (6, "Error: unknown tool \"no_such_tool\"", true),
        (7, "Error: tool \"write_file\" not permitted", true),
        (8, "2 artifacts shown to people", false),
    ];
    for (index, content, is_error) in exact {
        assert_eq!(
            reply(&output, index),
            (content.to_owned(), is_error),
            "call {index}"
        );
    }

    // Every reply is exactly what the seam gives in process, and the tools that show artifacts
    // in process send none over MCP.
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut artifacts_in_process = 0;
    for (index, call) in calls.as_array().expect("calls").iter().enumerate() {
        let name = call["name"].as_str().expect("name");
        let bounded =
            runtime.block_on(service.invoke(&scope, name, &call["arguments"].to_string()));
        assert_eq!(
            reply(&output, index),
            (bounded.content().to_owned(), bounded.is_error()),
            "call {index} ({name})"
        );
        artifacts_in_process += bounded.artifacts().len();
    }
    assert!(
        artifacts_in_process >= 4,
        "list_directory, csv_preview and the canary show artifacts in process"
    );

    // No canary byte anywhere: not in what the client parsed, not in the server's raw stdout.
    let raw = std::fs::read(&raw_log).expect("the server's raw stdout");
    assert!(raw.len() > 1000, "the tee caught the session");
    assert!(!contains(&raw, b"CANARY"), "a canary reached the MCP wire");
    assert!(!stdout.contains("CANARY"));
    let _ = std::fs::remove_file(&raw_log);
}
