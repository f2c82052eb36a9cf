//! Providers configured in code: a key given as a value, headers and query parameters of the
//! caller's, the caller's own HTTP client. Each reaches a local server with exactly those
//! headers, and no environment variable is read.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::json;
use toolkit::ChatMessage;
use toolkit::provider::{
    AnthropicProvider, ApiKey, GeminiProvider, HttpOptions, OpenAiProvider,
    OpenAiResponsesProvider, Provider, ProviderError, ProviderRequest,
};
use toolkit_testing::http::{Recorded, Reply, Server};
use toolkit_testing::streams::{Turn, Wire};

/// A key as a program would read it from its own configuration.
const KEY: &str = "k-from-config-5d21e0c7";

/// Headers every HTTP request of reqwest carries, whatever the caller asks.
const TRANSPORT: [&str; 4] = ["host", "content-length", "accept", "content-type"];

fn options() -> HttpOptions {
    HttpOptions::default()
        .with_timeout(Duration::from_secs(10))
        .with_initial_backoff(Duration::from_millis(10))
        .with_max_retries(0)
}

/// A provider of `wire` at `url`, built from values only.
fn provider(wire: Wire, url: &str, options: HttpOptions) -> Box<dyn Provider> {
    let key = ApiKey::new(KEY);
    match wire {
        Wire::OpenAiChat => Box::new(
            OpenAiProvider::new(&format!("{url}/v1"), "m", options)
                .and_then(|provider| provider.with_key(key))
                .unwrap(),
        ),
        Wire::OpenAiResponses => Box::new(
            OpenAiResponsesProvider::new(&format!("{url}/v1"), "m", options)
                .and_then(|provider| provider.with_key(key))
                .unwrap(),
        ),
        Wire::Anthropic => Box::new(
            AnthropicProvider::new(url, "m", options)
                .and_then(|provider| provider.with_key(key))
                .unwrap(),
        ),
        Wire::Gemini => Box::new(
            GeminiProvider::new(url, "m", options)
                .and_then(|provider| provider.with_key(key))
                .unwrap(),
        ),
    }
}

/// The request line, and each header as `name: value` with its name in lower case, in order,
/// those of the transport left out.
fn head(recorded: &Recorded) -> (String, Vec<String>) {
    let mut lines = recorded.head.lines();
    let request_line = lines.next().unwrap().to_owned();
    let headers = lines
        .filter(|line| !line.is_empty())
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            let name = name.trim().to_ascii_lowercase();
            (!TRANSPORT.contains(&name.as_str())).then(|| format!("{name}: {}", value.trim()))
        })
        .collect();
    (request_line, headers)
}

fn answer(wire: Wire, streamed: bool) -> Reply {
    let turn = Turn::text("Hello.");
    if streamed {
        Reply::stream(&turn.streamed(wire, 3), 64)
    } else {
        Reply::Json((200, Vec::new(), turn.whole(wire)))
    }
}

async fn ask(provider: &dyn Provider, streamed: bool) -> Result<String, ProviderError> {
    let messages = [ChatMessage::user("Hi")];
    let request = ProviderRequest::new(&messages, &[]);
    if streamed {
        let mut deltas = provider.stream(request);
        let mut assembler = toolkit::provider::Assembler::new();
        while let Some(delta) = deltas.next().await {
            assembler.push(&delta?)?;
        }
        Ok(assembler.finish().content)
    } else {
        Ok(provider.complete(request).await?.content)
    }
}

#[tokio::test]
async fn a_key_given_as_a_value_and_extra_headers_reach_the_server_exactly() {
    let own: [(Wire, &str, &str); 4] = [
        (
            Wire::OpenAiChat,
            "POST /v1/chat/completions",
            "authorization: Bearer ",
        ),
        (
            Wire::OpenAiResponses,
            "POST /v1/responses",
            "authorization: Bearer ",
        ),
        (Wire::Anthropic, "POST /v1/messages", "x-api-key: "),
        (
            Wire::Gemini,
            "POST /v1beta/models/m:generateContent",
            "x-goog-api-key: ",
        ),
    ];
    for (wire, path, key_header) in own {
        for streamed in [false, true] {
            let server = Server::start_replies(vec![answer(wire, streamed)]).await;
            let options = options()
                .with_header("OpenAI-Organization", "org-7")
                .with_header("HTTP-Referer", "https://example.com/app")
                .with_secret_header("x-tenant-token", ApiKey::new("tenant-secret-0042"))
                .with_query("api-version", "2024-10-21");
            let provider = provider(wire, &server.url, options);
            assert_eq!(ask(provider.as_ref(), streamed).await.unwrap(), "Hello.");
            let (request_line, mut headers) = head(&server.requests()[0]);
            let query = if streamed && wire == Wire::Gemini {
                "?alt=sse&api-version=2024-10-21"
            } else {
                "?api-version=2024-10-21"
            };
            let path = if streamed && wire == Wire::Gemini {
                "POST /v1beta/models/m:streamGenerateContent"
            } else {
                path
            };
            assert_eq!(request_line, format!("{path}{query} HTTP/1.1"), "{wire:?}");
            let mut expected = vec![
                format!("{key_header}{KEY}"),
                "openai-organization: org-7".to_owned(),
                "http-referer: https://example.com/app".to_owned(),
                "x-tenant-token: tenant-secret-0042".to_owned(),
            ];
            if wire == Wire::Anthropic {
                expected.push("anthropic-version: 2023-06-01".to_owned());
            }
            expected.sort();
            headers.sort();
            assert_eq!(headers, expected, "{wire:?} streamed: {streamed}");
        }
    }
}

#[tokio::test]
async fn without_a_key_no_key_header_is_sent_on_any_wire() {
    for wire in Wire::ALL {
        let server = Server::start_replies(vec![answer(wire, false)]).await;
        let url = server.url.clone();
        let provider: Box<dyn Provider> = match wire {
            Wire::OpenAiChat => {
                Box::new(OpenAiProvider::new(&format!("{url}/v1"), "m", options()).unwrap())
            }
            Wire::OpenAiResponses => Box::new(
                OpenAiResponsesProvider::new(&format!("{url}/v1"), "m", options()).unwrap(),
            ),
            Wire::Anthropic => Box::new(AnthropicProvider::new(&url, "m", options()).unwrap()),
            Wire::Gemini => Box::new(GeminiProvider::new(&url, "m", options()).unwrap()),
        };
        assert_eq!(ask(provider.as_ref(), false).await.unwrap(), "Hello.");
        let (_, headers) = head(&server.requests()[0]);
        let expected: Vec<String> = if wire == Wire::Anthropic {
            vec!["anthropic-version: 2023-06-01".to_owned()]
        } else {
            Vec::new()
        };
        assert_eq!(headers, expected, "{wire:?}");
    }
}

#[tokio::test]
async fn azure_openai_takes_its_key_in_api_key_and_its_version_in_the_query() {
    let server = Server::start_replies(vec![answer(Wire::OpenAiChat, false)]).await;
    let options = options()
        .with_secret_header("api-key", ApiKey::new(KEY))
        .with_query("api-version", "2024-10-21");
    let azure = OpenAiProvider::new(
        &format!("{}/openai/deployments/gpt-4o", server.url),
        "gpt-4o",
        options,
    )
    .unwrap();
    assert_eq!(ask(&azure, false).await.unwrap(), "Hello.");
    let (request_line, headers) = head(&server.requests()[0]);
    assert_eq!(
        request_line,
        "POST /openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21 HTTP/1.1"
    );
    assert_eq!(headers, [format!("api-key: {KEY}")]);
}

#[tokio::test]
async fn a_header_of_the_callers_replaces_the_providers_own() {
    let server = Server::start_replies(vec![answer(Wire::Anthropic, false)]).await;
    let options = options().with_header("anthropic-version", "2099-01-01");
    let provider = AnthropicProvider::new(&server.url, "m", options).unwrap();
    ask(&provider, false).await.unwrap();
    let (_, headers) = head(&server.requests()[0]);
    assert_eq!(headers, ["anthropic-version: 2099-01-01"]);
}

#[tokio::test]
async fn requests_go_through_the_callers_client() {
    let server = Server::start_replies(vec![answer(Wire::OpenAiChat, false)]).await;
    let mut defaults = reqwest::header::HeaderMap::new();
    defaults.insert("x-from-the-client", "yes".parse().unwrap());
    let client = reqwest::Client::builder()
        .default_headers(defaults)
        .build()
        .unwrap();
    let provider = OpenAiProvider::new(
        &format!("{}/v1", server.url),
        "m",
        options().with_client(client),
    )
    .unwrap();
    ask(&provider, false).await.unwrap();
    let (_, headers) = head(&server.requests()[0]);
    assert_eq!(headers, ["x-from-the-client: yes"]);
}

#[tokio::test]
async fn the_options_timeout_bounds_an_attempt_through_the_callers_client_too() {
    let server = Server::start_replies(vec![Reply::Stream {
        pieces: vec![b"data: {".to_vec(), b"}".to_vec()],
        cut: false,
        pause: Duration::from_secs(5),
    }])
    .await;
    let options = options()
        .with_timeout(Duration::from_millis(300))
        .with_client(reqwest::Client::new());
    let provider = OpenAiProvider::new(&format!("{}/v1", server.url), "m", options).unwrap();
    let error = ask(&provider, true).await.unwrap_err();
    let ProviderError::Transport { source, .. } = &error else {
        panic!("{error:?}");
    };
    let source = source.downcast_ref::<reqwest::Error>().unwrap();
    assert!(source.is_timeout(), "{source:?}");
}

#[tokio::test]
async fn a_secret_header_echoed_in_an_error_body_is_masked() {
    let server = Server::start(vec![(
        401,
        Vec::new(),
        json!({"error": format!("bad key {KEY} for tenant tenant-secret-0042")}),
    )])
    .await;
    let options = options().with_secret_header("x-tenant-token", ApiKey::new("tenant-secret-0042"));
    let provider = provider(Wire::OpenAiChat, &server.url, options);
    let error = ask(provider.as_ref(), false).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the provider answered HTTP 401: {\"error\":\"bad key [REDACTED] for tenant [REDACTED]\"}"
    );
}

#[test]
fn a_header_http_does_not_allow_is_refused_when_the_provider_is_made_naming_only_its_name() {
    let bad_name = OpenAiProvider::new(
        "http://127.0.0.1:9/v1",
        "m",
        HttpOptions::default().with_header("bad name", "x"),
    )
    .unwrap_err();
    assert_eq!(
        bad_name.to_string(),
        "the provider is not configured: \"bad name\" is not an HTTP header name"
    );
    let bad_value = AnthropicProvider::new(
        "http://127.0.0.1:9",
        "m",
        HttpOptions::default().with_secret_header("x-token", ApiKey::new("line\r\nbreak-secret")),
    )
    .unwrap_err();
    assert_eq!(
        bad_value.to_string(),
        "the provider is not configured: the value of the header x-token is not one HTTP \
         allows (a line break or a control character)"
    );
    let bad_key = GeminiProvider::new("http://127.0.0.1:9", "m", HttpOptions::default())
        .unwrap()
        .with_key(ApiKey::new("key\nwith-a-break"))
        .unwrap_err();
    assert!(!bad_key.to_string().contains("with-a-break"), "{bad_key}");
}

#[test]
fn an_api_key_never_shows_itself() {
    let key = ApiKey::new(KEY);
    let options = HttpOptions::default().with_secret_header("api-key", key.clone());
    let url = "http://127.0.0.1:9";
    let providers = [
        format!(
            "{:?}",
            OpenAiProvider::new(url, "m", options.clone())
                .and_then(|provider| provider.with_key(key.clone()))
                .unwrap()
        ),
        format!(
            "{:?}",
            OpenAiResponsesProvider::new(url, "m", options.clone())
                .and_then(|provider| provider.with_key(key.clone()))
                .unwrap()
        ),
        format!(
            "{:?}",
            AnthropicProvider::new(url, "m", options.clone())
                .and_then(|provider| provider.with_key(key.clone()))
                .unwrap()
        ),
        format!(
            "{:#?}",
            GeminiProvider::new(url, "m", options.clone())
                .and_then(|provider| provider.with_key(key.clone()))
                .unwrap()
        ),
    ];
    let shown = format!("{key} {key:?} {key:#?} {options:?} {options:#?} {providers:?}");
    assert!(!shown.contains(KEY), "{shown}");
    // What is shown names the headers, so a reader sees a key is set.
    assert!(
        providers[2].contains("x-api-key") && providers[2].contains("api-key"),
        "{}",
        providers[2]
    );
    assert_eq!(format!("{key}"), "<redacted>");
}
