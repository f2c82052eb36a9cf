//! The exact bytes a provider posts: every kind of message, text that needs escaping and text
//! that does not, a model and a temperature, and the offered tools' declarations; and, for any
//! text at all, a body that reads back as the very conversation it was made from.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolkit::provider::{HttpOptions, OpenAiProvider, ProviderRequest};
use toolkit::{
    ChatMessage, RunOptions, ToolCall, ToolContext, ToolLoopService, ToolRegistry, ToolSpec,
    WireString, tool,
};

/// Says a text back.
#[tool(inline)]
fn echo(
    /// What to say.
    text: String,
) -> String {
    text
}

/// Refuses.
#[tool(inline)]
fn refuse() -> Result<String, String> {
    Err("no \"way\"".to_owned())
}

fn provider() -> OpenAiProvider {
    OpenAiProvider::from_env_var(
        "TOOLKIT_TEST_NO_KEY",
        "http://127.0.0.1:9/v1",
        "default-model",
        HttpOptions::default(),
    )
    .expect("a provider")
}

/// `text` as a tool's content that passed the seam (the only way to a tool result).
fn wire(service: &ToolLoopService, text: &str) -> WireString {
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let arguments = json!({ "text": text }).to_string();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let bounded = runtime.block_on(service.invoke(&scope, "echo", &arguments));
    bounded.wire().clone()
}

fn specs(service: &ToolLoopService) -> Vec<&ToolSpec> {
    ["echo", "refuse"]
        .into_iter()
        .map(|name| service.registry().get(name).expect("linked").spec())
        .collect()
}

#[test]
fn an_openai_body_is_exactly_the_conversation_in_the_chat_completions_format() {
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let refused = runtime
        .block_on(service.invoke(&scope, "refuse", "{}"))
        .wire()
        .clone();
    let messages = vec![
        ChatMessage::system("Be \"terse\".\nAlways."),
        ChatMessage::user("Sum 2+3 — ✓ \u{2028} tab\tend \\ \u{1} \u{7f} 𝄞"),
        ChatMessage::assistant(
            "",
            vec![
                ToolCall::new("call_1", "echo", r#"{"text": "a\nb"}"#),
                ToolCall::new("c\"2", "refuse", "not json"),
            ],
        ),
        ChatMessage::tool_result("call_1", wire(&service, "a\nb")).expect("an id"),
        ChatMessage::tool_result("c\"2", refused).expect("an id"),
        ChatMessage::assistant("Thinking.", Vec::new()),
        ChatMessage::assistant("", Vec::new()),
        ChatMessage::user(""),
    ];
    let specs = specs(&service);
    let options = RunOptions::default()
        .with_model("gpt-test")
        .with_temperature(0.2);
    let mut request = ProviderRequest::new(&messages, &specs);
    request.model = options.model();
    request.temperature = options.temperature();
    let body = provider().request_body(&request).expect("a body");
    let body = String::from_utf8(body).expect("UTF-8");
    assert_eq!(
        body,
        concat!(
            r#"{"model":"gpt-test","messages":[{"role":"system","content":"Be \"terse\".\nAlways.""#,
            r#"},{"role":"user","content":"Sum 2+3 — ✓ "#,
            "\u{2028}",
            r#" tab\tend \\ \u0001 "#,
            "\u{7f}",
            r#" 𝄞""#,
            r#"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"echo","arguments":"{\"text\": \"a\\nb\"}"}"#,
            r#"},{"id":"c\"2","type":"function","function":{"name":"refuse","arguments":"not json"}}]"#,
            r#"},{"role":"tool","tool_call_id":"call_1","content":"a\nb""#,
            r#"},{"role":"tool","tool_call_id":"c\"2","content":"no \"way\"""#,
            r#"},{"role":"assistant","content":"Thinking.""#,
            r#"},{"role":"assistant","content":"""#,
            r#"},{"role":"user","content":""}],"tools":[{"type":"function","function":{"name":"echo","description":"Says a text back.","parameters":{"additionalProperties":false,"properties":{"text":{"description":"What to say.","type":"string"}},"required":["text"],"type":"object"}}"#,
            r#"},{"type":"function","function":{"name":"refuse","description":"Refuses.","parameters":{"additionalProperties":false,"type":"object"}}}],"temperature":0.2}"#,
        )
    );
}

/// Any text: controls, quotes, backslashes, separators, any plane.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(any::<char>(), 0..24).prop_map(String::from_iter),
        prop::collection::vec(
            prop::sample::select(vec![
                '"', '\\', '\n', '\u{0}', '\u{1f}', '\u{2028}', 'a', 'é', '𝄞'
            ]),
            0..24
        )
        .prop_map(String::from_iter),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn any_text_reads_back_from_an_openai_body_as_it_was_given(
        system in text(),
        user in text(),
        said in text(),
        id in text().prop_filter("a call has an id", |id| !id.is_empty()),
        name in text(),
        arguments in text(),
        answer in text(),
        model in text(),
    ) {
        let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
        let answer = wire(&service, &answer);
        let messages = vec![
            ChatMessage::system(system.clone()),
            ChatMessage::user(user.clone()),
            ChatMessage::assistant(said.clone(), vec![ToolCall::new(id.clone(), name.clone(), arguments.clone())]),
            ChatMessage::tool_result(id.clone(), answer.clone()).expect("an id"),
        ];
        let mut request = ProviderRequest::new(&messages, &[]);
        request.model = Some(&model);
        let body = provider().request_body(&request).expect("a body");
        let read: Value = serde_json::from_slice(&body).expect("JSON");
        let said = if said.is_empty() { Value::Null } else { Value::String(said) };
        prop_assert_eq!(read, json!({
            "model": model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
                {"role": "assistant", "content": said, "tool_calls": [
                    {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}
                ]},
                {"role": "tool", "tool_call_id": id, "content": answer.as_str()},
            ],
        }));
    }
}

#[test]
fn a_description_openai_would_refuse_is_refused_before_anything_is_sent() {
    let long = ToolSpec::new("long_winded", "a".repeat(1025), json!({"type": "object"}));
    let tools = [&long];
    let error = provider()
        .request_body(&ProviderRequest::new(&[], &tools))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "a tool cannot be declared to this provider: tool \"long_winded\": its description has \
         1025 characters, past OpenAI's limit of 1024: shorten the doc comment (or \
         `description = \"..\"`), moving detail into the parameters' descriptions"
    );
}

/// The bytes of `body` against `tests/golden/bodies/NAME`; `UPDATE_GOLDEN=1` rewrites the file
/// (read the diff after). The golden file is the exact bytes sent: a reformatted body is not
/// what the server gets.
fn golden_body(name: &str, body: &[u8]) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/bodies");
    toolkit_testing::golden::assert_golden(&path.join(name), body);
}

/// Every wire's body for one conversation holding each kind of message, whole and streamed,
/// is exactly its golden file: system text, a user's text that needs escaping, a turn of text
/// and two calls (one with arguments that are not JSON), a result and an error result, a
/// turn of text alone, and the state the wire carries between turns where it carries some.
#[test]
fn every_wire_posts_exactly_its_golden_body_whole_and_streamed() {
    use toolkit::provider::{AnthropicProvider, GeminiProvider, OpenAiResponsesProvider};
    use toolkit::wire::Carried;
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let refused = runtime
        .block_on(service.invoke(&scope, "refuse", "{}"))
        .wire()
        .clone();
    let calls = vec![
        ToolCall::new("call_1", "echo", r#"{"text": "a\nb"}"#),
        ToolCall::new("call_2", "refuse", "not json"),
    ];
    let conversation = |carried: Option<Carried>| {
        vec![
            ChatMessage::system("Be \"terse\"."),
            ChatMessage::user("Sum 2+3 — ✓ \u{2028} tab\tend 𝄞"),
            ChatMessage::assistant_carrying("Looking.", calls.clone(), carried),
            ChatMessage::tool_result("call_1", wire(&service, "a\nb")).expect("an id"),
            ChatMessage::tool_result("call_2", refused.clone()).expect("an id"),
            ChatMessage::assistant("Done.", Vec::new()),
            ChatMessage::user("Again."),
        ]
    };
    let specs = specs(&service);
    let with_options = |messages| {
        let mut request = ProviderRequest::new(messages, &specs);
        request.model = Some("test-model");
        request.temperature = Some(0.5);
        request
    };
    let url = "http://127.0.0.1:9";
    let key = "TOOLKIT_TEST_PROVIDER_KEY";
    let options = HttpOptions::default;
    let chat = provider();
    let plain = conversation(None);
    let request = with_options(&plain);
    let chat_bodies = (
        chat.request_body(&request),
        chat.stream_request_body(&request),
    );
    let anthropic = AnthropicProvider::from_env_var(key, url, "m", options()).expect("made");
    let anthropic_bodies = (
        anthropic.request_body(&request),
        anthropic.stream_request_body(&request),
    );
    let reasoning = conversation(Some(Carried::new(
        "openai-responses",
        r#"[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA-opaque"}]"#,
    )));
    let request = with_options(&reasoning);
    let responses =
        OpenAiResponsesProvider::from_env_var(key, &format!("{url}/v1"), "m", options())
            .expect("made");
    let responses_bodies = (
        responses.request_body(&request),
        responses.stream_request_body(&request),
    );
    let stateless = responses.without_storage();
    let stateless_body = stateless.request_body(&request);
    let signed = conversation(Some(Carried::new(
        "gemini",
        r#"{"text":"c2lnLXRleHQ=","calls":[{"signature":"c2lnLWNhbGww","id":true},{"id":false}]}"#,
    )));
    let request = with_options(&signed);
    let gemini = GeminiProvider::from_env_var(key, url, "m", options()).expect("made");
    let gemini_body = gemini.request_body(&request);
    for (name, body) in [
        ("openai-chat.json", chat_bodies.0),
        ("openai-chat.stream.json", chat_bodies.1),
        ("anthropic.json", anthropic_bodies.0),
        ("anthropic.stream.json", anthropic_bodies.1),
        ("openai-responses.json", responses_bodies.0),
        ("openai-responses.stream.json", responses_bodies.1),
        ("openai-responses.stateless.json", stateless_body),
        // Gemini streams from another address; its body is the same.
        ("gemini.json", gemini_body),
    ] {
        golden_body(name, &body.expect("a body"));
    }
}
