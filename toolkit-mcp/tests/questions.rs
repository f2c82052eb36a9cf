//! A tool's question (`ToolContext::ask`) to a 2026-07-28 client: the call answers
//! `input_required` with the question's form and a `requestState`, and runs again when the
//! client retries with the answer and that state. An answer binds to its question: a state is
//! taken once, for the same tool and arguments, within the time to answer; an answer without
//! its state is not taken; an answer that does not fit the form is asked for again, saying why.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolkit::seam::SecretFilter;
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tool};
use toolkit_mcp::McpToolServer;
use toolkit_testing::mcp::modern_meta;

#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name.
    name: String,
}

/// Greets the person by the name they give, with the greeting it is given.
#[tool]
fn greets(
    /// How to greet.
    greeting: String,
    context: &ToolContext,
) -> Result<String, String> {
    let answer: Name = context
        .ask(
            "user_name",
            &format!("Who gets the {greeting}? token=sk-live-9f8e7d6c5b4a39281706"),
        )
        .map_err(|unanswered| unanswered.to_string())?;
    Ok(format!("{greeting}, {}!", answer.name))
}

/// The server on a free port, questions kept for `within`: its URL.
async fn serve(within: Duration) -> String {
    let registry = ToolRegistry::linked().expect("no duplicate names");
    let service =
        Arc::new(ToolLoopService::new(registry).with_content_filter(Arc::new(SecretFilter)));
    let server = McpToolServer::new(service, ToolContext::new())
        .expect("no state needed")
        .with_approval_timeout(within);
    let (bound, address) = tokio::sync::oneshot::channel::<SocketAddr>();
    tokio::spawn(server.serve_http(0, move |address| {
        bound.send(address).expect("the test waits");
    }));
    let address = address.await.expect("the server binds");
    format!("http://{address}{}", toolkit_mcp::HTTP_PATH)
}

/// A 2026-07-28 `tools/call` of `greets` with `params` besides its name and `_meta`, from a
/// client whose capabilities are `capabilities`: the JSON-RPC answer.
async fn call(url: &str, params: Value, capabilities: &Value) -> Value {
    let mut params = params;
    params["name"] = json!("greets");
    params["_meta"] = modern_meta(capabilities);
    let message = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "greets"),
    ];
    let (_, _, answer) =
        toolkit_testing::mcp::post(&reqwest::Client::new(), url, &headers, &message)
            .await
            .expect("the server answers");
    answer
}

fn forms() -> Value {
    json!({"elicitation": {"form": {}}})
}

fn hello() -> Value {
    json!({"greeting": "hello"})
}

/// The first round: the question, and the state to answer it with.
async fn asked(url: &str) -> (Value, String) {
    let answer = call(url, json!({"arguments": hello()}), &forms()).await;
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required", "{answer}");
    let state = result["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();
    (result["inputRequests"].clone(), state)
}

fn accept(name: &Value) -> Value {
    json!({"user_name": {"action": "accept", "content": {"name": name}}})
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text reply: {answer}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_asked_as_input_required_and_its_answer_runs_the_call_once() {
    let url = serve(Duration::from_mins(1)).await;
    let (requests, state) = asked(&url).await;
    assert_eq!(
        requests,
        json!({"user_name": {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "Who gets the hello? token=[REDACTED]",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "description": "Your name."}},
                    "required": ["name"]
                }
            }
        }})
    );
    let retry = json!({"arguments": hello(), "requestState": state, "inputResponses": accept(&json!("Ada"))});
    let answered = call(&url, retry.clone(), &forms()).await;
    assert_eq!(text(&answered), "hello, Ada!");
    assert_eq!(answered["result"]["isError"], json!(false));

    // The same state again: taken already.
    let again = call(&url, retry, &forms()).await;
    assert_eq!(again["error"]["code"], -32602, "{again}");
    assert_eq!(
        again["error"]["message"],
        "the requestState names no question of this call: it is unknown, was answered already, or is another call's. Make the call again without it."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_answers_only_its_own_call_unaltered_and_in_time() {
    let url = serve(Duration::from_mins(1)).await;
    // Another call's arguments.
    let (_, state) = asked(&url).await;
    let other = json!({"arguments": {"greeting": "goodbye"}, "requestState": state, "inputResponses": accept(&json!("Ada"))});
    assert_eq!(call(&url, other, &forms()).await["error"]["code"], -32602);
    // A state changed by the client.
    let (_, state) = asked(&url).await;
    let tampered = json!({"arguments": hello(), "requestState": format!("{state}-TAMPERED"), "inputResponses": accept(&json!("Ada"))});
    assert_eq!(
        call(&url, tampered, &forms()).await["error"]["code"],
        -32602
    );

    // Past the time to answer.
    let url = serve(Duration::from_millis(50)).await;
    let (_, state) = asked(&url).await;
    tokio::time::sleep(Duration::from_millis(120)).await;
    let late = json!({"arguments": hello(), "requestState": state, "inputResponses": accept(&json!("Ada"))});
    let late = call(&url, late, &forms()).await;
    assert_eq!(
        late["error"]["message"],
        "the requestState names no question of this call: its time to answer passed. Make the call again without it.",
        "{late}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_without_its_state_or_outside_its_form_is_not_taken() {
    let url = serve(Duration::from_mins(1)).await;
    // No state: the question is asked.
    let unbound = json!({"arguments": hello(), "inputResponses": accept(&json!("Mallory"))});
    let unbound = call(&url, unbound, &forms()).await;
    assert_eq!(
        unbound["result"]["resultType"], "input_required",
        "{unbound}"
    );

    // An answer that does not fit the form: asked again, saying why.
    let (_, state) = asked(&url).await;
    let wrong =
        json!({"arguments": hello(), "requestState": state, "inputResponses": accept(&json!(5))});
    let wrong = call(&url, wrong, &forms()).await;
    let message = wrong["result"]["inputRequests"]["user_name"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("asked again: {wrong}"));
    assert_eq!(
        message,
        "That answer was not taken (invalid type: integer `5`, expected a string). Who gets the hello? token=[REDACTED]"
    );

    // Declined: the tool hears it, and the model reads what the tool makes of it.
    let (_, state) = asked(&url).await;
    let declined = json!({"arguments": hello(), "requestState": state, "inputResponses": {"user_name": {"action": "decline"}}});
    let declined = call(&url, declined, &forms()).await;
    assert_eq!(
        text(&declined),
        "the person declined to answer the question \"user_name\""
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_answers_no_forms_gets_what_the_tool_does_without_an_answer() {
    let url = serve(Duration::from_mins(1)).await;
    let answer = call(&url, json!({"arguments": hello()}), &json!({})).await;
    assert_eq!(
        text(&answer),
        "nobody can answer the question \"user_name\" here: this call runs where no person is asked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_questions_hidden_characters_are_written_out_in_its_form() {
    let url = serve(Duration::from_mins(1)).await;
    let answer = call(
        &url,
        json!({"arguments": {"greeting": "he\u{202e}llo"}}),
        &forms(),
    )
    .await;
    assert_eq!(
        answer["result"]["inputRequests"]["user_name"]["params"]["message"],
        "Who gets the he⟨U+202E⟩llo? token=[REDACTED]",
        "{answer}"
    );
}
