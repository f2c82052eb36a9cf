//! Calls answered as tasks (the `io.modelcontextprotocol/tasks` extension) by two instances of
//! a server that share one store, as a fleet does: a task made on one is read, answered and
//! cancelled on the other; a tool's progress is its task's status; cancelling a task stops a
//! blocking tool; a client that does not take tasks gets what the extension says.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolkit::shared::{BackendError, BackendFuture, MemoryStore, SharedStore};
use toolkit::{Table, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, ToolResult, tool};
use toolkit_mcp::McpToolServer;
use toolkit_testing::mcp::modern_meta;

/// Where each call of `counts` that saw itself cancelled was counting to.
static STOPPED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// Counts to `to`, a step each 100 ms, reporting each step; stops when its call is cancelled.
#[tool(task)]
fn counts(
    /// Where to count to.
    to: u64,
    context: &ToolContext,
) -> String {
    for step in 0..to {
        context.progress(step, Some(to), "counting");
        for _ in 0..20 {
            if context.is_cancelled() {
                STOPPED.lock().expect("not poisoned").push(to);
                return "stopped".to_owned();
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    format!("counted to {to}")
}

#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name.
    name: String,
}

/// Works for 300 ms, then asks the person's name and greets them.
#[tool(task)]
async fn greets_later(context: &ToolContext) -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let answer: Name = context
        .ask("user_name", "What is your name?")
        .map_err(|unanswered| unanswered.to_string())?;
    Ok(format!("Hello, {}!", answer.name))
}

/// Works for 300 ms, then answers with a text and a picture for the model, and artifacts (a
/// picture among them) for people only.
#[tool(task)]
async fn shows_people() -> ToolResult {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let table = Table::from_rows(["secret"], [["CANARY-TASK-TABLE"]]).expect("one column");
    ToolResult::text_with(
        "for the model",
        [
            ToolArtifact::table("CANARY-TASK-LABEL", table),
            ToolArtifact::text("note", "CANARY-TASK-TEXT"),
            ToolArtifact::media("picture", "image/png", canary_picture()),
        ],
    )
    .with_media(toolkit::result::Media::png(toolkit_testing::media::PNG))
}

fn canary_picture() -> Vec<u8> {
    toolkit_testing::media::png_with("CANARY-TASK-PICTURE")
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Answers at once, but only ever as a task.
#[tool(task = "required")]
fn only_as_task() -> String {
    "done".to_owned()
}

/// One instance of the server, keeping what it shares in `store`: its URL.
async fn serve(store: Arc<dyn SharedStore>) -> String {
    let registry = ToolRegistry::linked().expect("no duplicate names");
    let service = Arc::new(ToolLoopService::new(registry));
    let server = McpToolServer::new(service, ToolContext::new())
        .expect("no state needed")
        .with_shared_store(store);
    let (bound, address) = tokio::sync::oneshot::channel::<SocketAddr>();
    tokio::spawn(server.serve_http(0, move |address| {
        bound.send(address).expect("the test waits");
    }));
    let address = address.await.expect("the server binds");
    format!("http://{address}{}", toolkit_mcp::HTTP_PATH)
}

/// Two instances sharing one store.
async fn fleet() -> (String, String) {
    let store: Arc<dyn SharedStore> = Arc::new(MemoryStore::default());
    (serve(Arc::clone(&store)).await, serve(store).await)
}

fn takes_tasks() -> Value {
    json!({"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// A 2026-07-28 request of `method` with `params`, from a client of `capabilities`: the
/// JSON-RPC answer. `name` is what the `Mcp-Name` header carries.
async fn request(
    url: &str,
    method: &str,
    name: &str,
    params: Value,
    capabilities: &Value,
) -> Value {
    let mut params = params;
    params["_meta"] = modern_meta(capabilities);
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("mcp-name", name),
    ];
    let (_, _, answer) =
        toolkit_testing::mcp::post(&reqwest::Client::new(), url, &headers, &message)
            .await
            .expect("the server answers");
    answer
}

async fn call(url: &str, tool: &str, arguments: Value, capabilities: &Value) -> Value {
    let params = json!({"name": tool, "arguments": arguments});
    request(url, "tools/call", tool, params, capabilities).await
}

async fn get(url: &str, task: &str) -> Value {
    let params = json!({"taskId": task});
    request(url, "tasks/get", task, params, &takes_tasks()).await["result"].clone()
}

/// Polls `url` for `task` until its status is `status` (10 s at most): the task then.
async fn until(url: &str, task: &str, status: &str) -> Value {
    for _ in 0..200 {
        let got = get(url, task).await;
        if got["status"] == status {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "task {task} never became {status}: {}",
        get(url, task).await
    );
}

/// Waits (10 s at most) until the call of `counts` to `to` saw itself cancelled.
async fn stopped(to: u64) {
    for _ in 0..1_000 {
        if STOPPED.lock().expect("not poisoned").contains(&to) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the call of counts to {to} never saw itself cancelled");
}

/// `tasks/update` of `task` with `responses`: the JSON-RPC answer.
async fn update(url: &str, task: &str, responses: Value) -> Value {
    let params = json!({"taskId": task, "inputResponses": responses});
    request(url, "tasks/update", task, params, &takes_tasks()).await
}

fn task_id(answer: &Value) -> String {
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    answer["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_made_on_one_instance_is_read_and_answered_on_another() {
    let (one, other) = fleet().await;
    let created = call(&one, "greets_later", json!({}), &takes_tasks()).await;
    let task = task_id(&created);
    let result = &created["result"];
    assert_eq!(result["status"], "working");
    assert_eq!(result["ttlMs"], 3_600_000);
    assert_eq!(result["pollIntervalMs"], 500);
    for absent in ["result", "error", "inputRequests", "requestState"] {
        assert!(result.get(absent).is_none(), "{absent}: {result}");
    }

    let asking = until(&other, &task, "input_required").await;
    assert_eq!(asking["resultType"], "complete");
    assert_eq!(
        asking["inputRequests"],
        json!({"user_name": {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "What is your name?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "description": "Your name."}},
                    "required": ["name"]
                }
            }
        }})
    );

    // A key the task does not ask is ignored: it still asks.
    let ack = update(
        &other,
        &task,
        json!({"not_asked": {"action": "accept", "content": {"name": "Eve"}}}),
    )
    .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    assert_eq!(get(&one, &task).await["status"], "input_required");

    let ack = update(
        &other,
        &task,
        json!({"user_name": {"action": "accept", "content": {"name": "Ada"}}}),
    )
    .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    let done = until(&other, &task, "completed").await;
    assert_eq!(
        done["result"],
        json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": "Hello, Ada!"}],
            "isError": false
        })
    );
    assert_eq!(get(&one, &task).await, done);

    // An answer after the task asked nothing more changes nothing.
    let ack = update(
        &other,
        &task,
        json!({"user_name": {"action": "accept", "content": {"name": "Eve"}}}),
    )
    .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    assert_eq!(get(&other, &task).await, done);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_task_on_another_instance_stops_its_blocking_tool() {
    let (one, other) = fleet().await;
    let task = task_id(&call(&one, "counts", json!({"to": 600}), &takes_tasks()).await);

    // Its progress is its status, written once a second.
    let mut status = Value::Null;
    for _ in 0..60 {
        status = get(&other, &task).await;
        if status.get("statusMessage").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status["status"], "working", "{status}");
    let message = status["statusMessage"].as_str().expect("a status message");
    assert!(
        message.ends_with(" of 600: counting"),
        "{message}: the tool's last progress"
    );

    let params = json!({"taskId": task});
    let ack = request(
        &other,
        "tasks/cancel",
        &task,
        params.clone(),
        &takes_tasks(),
    )
    .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    let cancelled = until(&one, &task, "cancelled").await;
    assert_eq!(cancelled["statusMessage"], "The task was cancelled.");
    assert!(cancelled.get("result").is_none(), "{cancelled}");
    stopped(600).await;
    // Cancelling a task that ended is acknowledged, and changes nothing.
    let ack = request(&one, "tasks/cancel", &task, params, &takes_tasks()).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    assert_eq!(get(&other, &task).await, cancelled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_takes_no_tasks_is_answered_in_its_request_or_told_what_it_lacks() {
    let (url, _) = fleet().await;
    let plain = json!({});
    let missing = json!({
        "code": -32021,
        "message": "Missing required client capability",
        "data": {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
    });

    // A tool that may be a task is answered in the request; one that must be is refused.
    let answer = call(&url, "counts", json!({"to": 1}), &plain).await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "counted to 1",
        "{answer}"
    );
    assert!(answer["result"].get("taskId").is_none());
    let answer = call(&url, "only_as_task", json!({}), &plain).await;
    assert_eq!(answer["error"], missing, "{answer}");

    // The task methods are refused before any task is looked up.
    for method in ["tasks/get", "tasks/cancel"] {
        let params = json!({"taskId": "no-such-task"});
        let answer = request(&url, method, "no-such-task", params, &plain).await;
        assert_eq!(answer["error"], missing, "{method}: {answer}");
    }

    // To a client that takes tasks, a task answered at once is completed already, and an
    // unknown task is an error naming the id.
    let created = call(&url, "only_as_task", json!({}), &takes_tasks()).await;
    let task = task_id(&created);
    assert_eq!(created["result"]["status"], "completed");
    let done = get(&url, &task).await;
    assert_eq!(
        done["result"],
        json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": "done"}],
            "isError": false
        })
    );
    let params = json!({"taskId": "no-such-task"});
    let answer = request(&url, "tasks/get", "no-such-task", params, &takes_tasks()).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "no task \"no-such-task\": the id is unknown, or the task's ttlMs passed"
    );
}

/// A store whose database is away: it keeps nothing.
struct Away;

impl SharedStore for Away {
    fn put<'a>(
        &'a self,
        _kind: &'static str,
        _key: &'a str,
        _value: Vec<u8>,
        _lifetime: Duration,
    ) -> BackendFuture<'a, ()> {
        Box::pin(async { Err(BackendError::new("the database is away")) })
    }

    fn get<'a>(&'a self, _kind: &'static str, _key: &'a str) -> BackendFuture<'a, Option<Vec<u8>>> {
        Box::pin(async { Err(BackendError::new("the database is away")) })
    }

    fn take<'a>(
        &'a self,
        _kind: &'static str,
        _key: &'a str,
    ) -> BackendFuture<'a, Option<(Vec<u8>, bool)>> {
        Box::pin(async { Err(BackendError::new("the database is away")) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_task_the_store_cannot_keep_is_stopped_with_an_error() {
    let url = serve(Arc::new(Away)).await;
    let answer = call(&url, "counts", json!({"to": 601}), &takes_tasks()).await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "Error: the call was stopped: the store that keeps tasks did not answer, so its answer \
         could not be kept for the client to read. Try again later.",
        "{answer}"
    );
    assert_eq!(answer["result"]["isError"], true);
    // The reply comes once the call's wait ended; the tool, on its worker, sees its flag at its
    // next check (within 5 ms).
    stopped(601).await;
    let params = json!({"taskId": "any"});
    let answer = request(&url, "tasks/get", "any", params, &takes_tasks()).await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "the store that keeps tasks did not answer; try again later"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_result_carries_no_artifact_byte() {
    let (one, other) = fleet().await;
    let created = call(&one, "shows_people", json!({}), &takes_tasks()).await;
    let task = task_id(&created);
    let done = until(&other, &task, "completed").await;
    assert_eq!(
        done["result"],
        json!({
            "resultType": "complete",
            "content": [
                {"type": "text", "text": "for the model"},
                {"type": "image", "data": base64(toolkit_testing::media::PNG), "mimeType": "image/png"},
            ],
            "isError": false
        })
    );
    for answer in [created, done] {
        let text = answer.to_string();
        assert!(!text.contains("CANARY-TASK"), "{text}");
        assert!(!text.contains(&base64(&canary_picture())), "{text}");
    }
}
