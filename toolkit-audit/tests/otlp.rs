//! Runs exported as OpenTelemetry traces, as a receiver decodes them with the official protobuf
//! definitions (Python's `opentelemetry-proto`, in target/mcp-venv, which `scripts/test`
//! installs): span names, parent links, attributes at each privacy level, and no byte of any
//! artifact in any export.

use std::sync::Arc;

use serde_json::{Value, json};
use toolkit::provider::ScriptedProvider;
use toolkit::{
    RunRequest, Table, ToolArtifact, ToolLoopService, ToolRegistry, ToolResult, recording::RunStep,
    tool,
};
use toolkit_audit::{OtlpExport, Privacy};

use toolkit_testing::otlp::{Receiver, attributes, python, receiver, spans};

/// Stands in for what only people may see.
const CANARY: &str = "ARTIFACT-CANARY-5d1c";

/// The base64 of the picture the tool shows the model (`toolkit_testing::media::PNG`).
const PICTURE: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// Looks a customer up: one row for the model, the whole record for people.
#[tool]
fn lookup(
    /// Who.
    name: String,
) -> ToolResult {
    let table = Table::from_rows(["name", "note"], [[name.as_str(), CANARY]]).expect("a table");
    ToolResult::text_with(
        format!("1 customer named {name}"),
        [ToolArtifact::table("Customer", table)],
    )
    .with_media(toolkit::result::Media::png(toolkit_testing::media::PNG))
}

const SCRIPT: &str = r#"{"turns": [
    {"content": "looking", "tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"name": "Ada"}}]},
    {"content": "Ada is a customer.", "thinking": "The lookup found her.",
     "usage": {"input_tokens": 2000, "output_tokens": 300, "cache_read_tokens": 1536,
               "cache_write_tokens": 400, "reasoning_tokens": 256}}
]}"#;

/// Runs the script with an export at `privacy`, then stops the export (which sends the rest).
/// The run's id, the bytes of its artifacts as JSON, and its first model call's token counts.
async fn export_one_run(receiver: &Receiver, privacy: Privacy) -> (String, usize, (u64, u64)) {
    let export = Arc::new(
        OtlpExport::new(&format!("http://127.0.0.1:{}", receiver.port), privacy)
            .expect("an export")
            .with_model("scripted", "script-1"),
    );
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
        .with_sink(export.clone());
    let provider = ScriptedProvider::from_json(SCRIPT).expect("script");
    let result = service
        .run(&provider, RunRequest::new("Is Ada a customer?"))
        .await
        .expect("runs");
    let artifacts = result
        .trace
        .steps()
        .iter()
        .find_map(|step| match step {
            RunStep::Tool(invocation) => Some(serde_json::to_vec(invocation.artifacts()).unwrap()),
            _ => None,
        })
        .expect("a tool step");
    assert!(String::from_utf8_lossy(&artifacts).contains(CANARY));
    let usage = result
        .trace
        .steps()
        .iter()
        .find_map(|step| match step {
            RunStep::Llm { usage, .. } => Some((usage.input_tokens, usage.output_tokens)),
            _ => None,
        })
        .expect("a model call");
    tokio::task::spawn_blocking(move || export.shutdown())
        .await
        .expect("ends")
        .expect("sent");
    (result.trace.run_id().to_string(), artifacts.len(), usage)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_reach_a_receiver_as_genai_spans_without_artifacts() {
    let Some(python) = python() else {
        return;
    };
    let receiver = receiver(&python);
    let (full_run, artifact_bytes, (input, output)) =
        export_one_run(&receiver, Privacy::Full).await;
    let (metadata_run, _, _) = export_one_run(&receiver, Privacy::Metadata).await;
    assert!(input > 0 && output > 0);

    let raw = std::fs::read(receiver.out.with_extension("jsonl.raw")).expect("raw exports");
    let decoded = std::fs::read_to_string(&receiver.out).expect("decoded exports");
    assert!(!raw.is_empty());
    for text in [String::from_utf8_lossy(&raw).into_owned(), decoded] {
        assert!(!text.contains(CANARY), "an artifact byte was exported");
        // The model's picture is counted, never exported, at every level: neither its base64
        // nor its bytes (its PNG header chunk's name).
        assert!(!text.contains(PICTURE), "a media byte was exported");
        assert!(!text.contains("IHDR"), "a media byte was exported");
        assert!(
            !text.contains("The lookup found her"),
            "a thought was exported"
        );
    }

    let spans = spans(&receiver);
    for (run_id, privacy) in [
        (&full_run, Privacy::Full),
        (&metadata_run, Privacy::Metadata),
    ] {
        check_run(&spans, run_id, privacy, artifact_bytes, (input, output));
    }
    // The span tree of one run, for the record (seen with --nocapture).
    for (_, span) in &spans {
        println!(
            "{} {} parent={}",
            span["spanId"].as_str().unwrap_or(""),
            span["name"].as_str().unwrap_or(""),
            span["parentSpanId"].as_str().unwrap_or("-")
        );
    }
}

/// Checks one run's spans: names, parents, attributes as `privacy` keeps them.
fn check_run(
    spans: &[(Value, Value)],
    run_id: &str,
    privacy: Privacy,
    artifact_bytes: usize,
    (input, output): (u64, u64),
) {
    let root = spans
        .iter()
        .find(|(_, span)| {
            attributes(span).get("gen_ai.conversation.id") == Some(&json!({"stringValue": run_id}))
        })
        .map(|(resource, span)| (resource.clone(), span.clone()))
        .expect("the run's span");
    let (resource, root) = root;
    assert!(
        attributes(&resource)
            .get("service.name")
            .is_some_and(|name| name == &json!({"stringValue": "toolkit"}))
    );
    assert_eq!(root["name"], json!("invoke_agent toolkit"));
    assert_eq!(root.get("parentSpanId"), None);
    let mut children: Vec<&Value> = spans
        .iter()
        .map(|(_, span)| span)
        .filter(|span| span.get("parentSpanId") == Some(&root["spanId"]))
        .collect();
    children.sort_by_key(|span| {
        span["startTimeUnixNano"]
            .as_str()
            .unwrap()
            .parse::<u128>()
            .unwrap()
    });
    let names: Vec<&str> = children
        .iter()
        .map(|span| span["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["chat script-1", "execute_tool lookup", "chat script-1"]
    );
    assert!(
        children
            .iter()
            .all(|span| span["traceId"] == root["traceId"])
    );

    let run = attributes(&root);
    assert_eq!(
        run["gen_ai.operation.name"],
        json!({"stringValue": "invoke_agent"})
    );
    assert_eq!(run["toolkit.run.kind"], json!({"stringValue": "run"}));
    assert_eq!(
        run["toolkit.run.termination"],
        json!({"stringValue": "answered"})
    );
    let events: Vec<&str> = root["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|event| event["name"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["toolkit.request"]);

    let chat = attributes(children[0]);
    assert_eq!(
        chat["gen_ai.operation.name"],
        json!({"stringValue": "chat"})
    );
    assert_eq!(
        chat["gen_ai.provider.name"],
        json!({"stringValue": "scripted"})
    );
    assert_eq!(
        chat["gen_ai.request.model"],
        json!({"stringValue": "script-1"})
    );
    assert_eq!(
        chat["gen_ai.usage.input_tokens"],
        json!({"intValue": input.to_string()})
    );
    assert_eq!(
        chat["gen_ai.usage.output_tokens"],
        json!({"intValue": output.to_string()})
    );
    check_turns(children[0], children[2]);
    let tool = attributes(children[1]);
    assert_eq!(
        tool["gen_ai.operation.name"],
        json!({"stringValue": "execute_tool"})
    );
    assert_eq!(tool["gen_ai.tool.name"], json!({"stringValue": "lookup"}));
    assert_eq!(tool["gen_ai.tool.call.id"], json!({"stringValue": "c1"}));
    assert_eq!(tool["toolkit.artifact.count"], json!({"intValue": "1"}));
    assert_eq!(
        tool["toolkit.artifact.types"],
        json!({"arrayValue": {"values": [{"stringValue": "table"}]}})
    );
    assert_eq!(
        tool["toolkit.artifact.bytes"],
        json!({"intValue": artifact_bytes.to_string()})
    );
    assert_eq!(
        tool["toolkit.tool.content_bytes"],
        json!({"intValue": "1 customer named Ada".len().to_string()})
    );
    check_contents(privacy, &run, &chat, &tool);
}

type Attributes = serde_json::Map<String, Value>;

/// The picture the tool showed the model, counted on its span at every level (its bytes are
/// never exported: the run's check reads the whole export for them).
fn check_media(tool: &Attributes) {
    assert_eq!(tool["toolkit.tool.media.count"], json!({"intValue": "1"}));
    assert_eq!(
        tool["toolkit.tool.media.types"],
        json!({"arrayValue": {"values": [{"stringValue": "image/png"}]}})
    );
    assert_eq!(tool["toolkit.tool.media.bytes"], json!({"intValue": "69"}));
}

/// What the two model calls' spans say besides their counts: why each turn ended, the tokens
/// billed apart, and how much the model thought (never what).
fn check_turns(first: &Value, last: &Value) {
    assert_eq!(first["kind"], json!("SPAN_KIND_CLIENT"));
    let (chat, answer) = (attributes(first), attributes(last));
    // Why each turn ended: the first asked for a tool, the last finished.
    assert_eq!(
        chat["gen_ai.response.finish_reasons"],
        json!({"arrayValue": {"values": [{"stringValue": "tool_calls"}]}})
    );
    assert_eq!(
        answer["gen_ai.response.finish_reasons"],
        json!({"arrayValue": {"values": [{"stringValue": "finished"}]}})
    );
    // Tokens as billed; what the model thought is counted, never exported.
    for (name, tokens) in [
        ("gen_ai.usage.input_tokens", "2000"),
        ("gen_ai.usage.output_tokens", "300"),
        ("gen_ai.usage.cache_read.input_tokens", "1536"),
        ("gen_ai.usage.cache_creation.input_tokens", "400"),
        ("toolkit.usage.reasoning_tokens", "256"),
        ("toolkit.llm.thinking_bytes", "21"),
    ] {
        assert_eq!(answer[name], json!({"intValue": tokens}), "{name}");
    }
    // The first turn gave no cache or reasoning count, and none is made up.
    for absent in [
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
        "toolkit.usage.reasoning_tokens",
    ] {
        assert_eq!(chat.get(absent), None, "{absent}");
    }
    assert_eq!(chat["toolkit.llm.thinking_bytes"], json!({"intValue": "0"}));
}

/// The contents a run's spans carry: none at `metadata`, as they were at `full`.
fn check_contents(privacy: Privacy, run: &Attributes, chat: &Attributes, tool: &Attributes) {
    check_media(tool);
    let contents = [
        (run, "gen_ai.input.messages"),
        (chat, "gen_ai.output.messages"),
        (tool, "gen_ai.tool.call.arguments"),
        (tool, "gen_ai.tool.call.result"),
    ];
    if privacy == Privacy::Metadata {
        for (attributes, key) in contents {
            assert_eq!(attributes.get(key), None, "{key} at metadata");
        }
        return;
    }
    assert_eq!(
        tool["gen_ai.tool.call.result"],
        json!({"stringValue": "1 customer named Ada"})
    );
    assert_eq!(
        tool["gen_ai.tool.call.arguments"],
        json!({"stringValue": r#"{"name":"Ada"}"#})
    );
    let question: Value = serde_json::from_str(
        run["gen_ai.input.messages"]["stringValue"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        question,
        json!([{"role": "user", "parts": [{"type": "text", "content": "Is Ada a customer?"}]}])
    );
    let answer: Value = serde_json::from_str(
        chat["gen_ai.output.messages"]["stringValue"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        answer,
        json!([{"role": "assistant", "parts": [
            {"type": "text", "content": "looking"},
            {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": r#"{"name":"Ada"}"#},
        ]}])
    );
}
