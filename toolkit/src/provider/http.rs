//! HTTP for providers: keys given as values, extra headers and query parameters, the caller's
//! own client, timeouts, a size cap on answers, and retries with backoff on 429 and 5xx that
//! honour `Retry-After`.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::ProviderError;
use super::sse::Answer;

/// An API key, given as a value: read from the program's own configuration, a vault or a
/// per-tenant table (see [`ApiKey::from_env`] for the environment). Its `Debug` and `Display`
/// show `<redacted>`, never the key, and it goes only into the header its provider sends it in.
///
/// ```
/// use toolkit::provider::ApiKey;
///
/// let key = ApiKey::new("sk-proj-0123456789");
/// assert_eq!(format!("{key} {key:?}"), "<redacted> ApiKey(<redacted>)");
/// ```
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key `key`.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key in the environment variable `variable`; `None` when it is unset or blank.
    pub fn from_env(variable: &str) -> Option<Self> {
        std::env::var(variable)
            .ok()
            .filter(|key| !key.trim().is_empty())
            .map(Self)
    }

    /// The key itself, for the header it goes in.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

impl From<String> for ApiKey {
    fn from(key: String) -> Self {
        Self(key)
    }
}

impl From<&str> for ApiKey {
    fn from(key: &str) -> Self {
        Self(key.to_owned())
    }
}

/// A header the caller adds to every request.
#[derive(Clone, Debug)]
struct ExtraHeader {
    name: String,
    value: HeaderText,
}

#[derive(Clone, Debug)]
enum HeaderText {
    Plain(String),
    /// A key: never shown, marked sensitive for the HTTP client.
    Secret(ApiKey),
}

/// How provider HTTP calls behave, and what every request carries besides the provider's own
/// headers: headers and query parameters of the caller's (Azure OpenAI's `api-key` and
/// `api-version`, OpenAI's organization and project, OpenRouter's attribution), through the
/// caller's own [`reqwest::Client`] if it gives one (a proxy, private roots).
///
/// ```
/// use toolkit::provider::{ApiKey, HttpOptions, OpenAiProvider};
///
/// // Azure OpenAI: the deployment in the URL, the key in `api-key`, the API's version asked for.
/// let key = ApiKey::new("0123456789abcdef0123456789abcdef");
/// let options = HttpOptions::default()
///     .with_secret_header("api-key", key)
///     .with_query("api-version", "2024-10-21");
/// let azure = OpenAiProvider::new(
///     "https://my-resource.openai.azure.com/openai/deployments/gpt-4o",
///     "gpt-4o",
///     options,
/// )?;
/// # Ok::<(), toolkit::provider::ProviderError>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Limit for one attempt, connection to last byte.
    pub timeout: Duration,
    /// Attempts after the first, for 429, 5xx and connection failures.
    pub max_retries: u32,
    /// Wait before the first retry; doubled for each later one.
    pub initial_backoff: Duration,
    /// Longest wait between attempts, `Retry-After` included.
    pub max_backoff: Duration,
    /// Largest answer read, in bytes (a streamed answer's bytes counted together).
    pub max_response_bytes: usize,
    /// Longest line of a streamed answer, in bytes: one event's data line carries one JSON
    /// document, and a line past this ends the stream with an error.
    pub max_line_bytes: usize,
    headers: Vec<ExtraHeader>,
    query: Vec<(String, String)>,
    client: Option<reqwest::Client>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_mins(2),
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            max_response_bytes: 16 * 1024 * 1024,
            max_line_bytes: 4 * 1024 * 1024,
            headers: Vec::new(),
            query: Vec::new(),
            client: None,
        }
    }
}

impl HttpOptions {
    /// The same options with another limit for one attempt.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same options with another number of retries.
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// The same options with another wait before the first retry.
    #[must_use]
    pub fn with_initial_backoff(mut self, initial_backoff: Duration) -> Self {
        self.initial_backoff = initial_backoff;
        self
    }

    /// The same options with another longest wait between attempts.
    #[must_use]
    pub fn with_max_backoff(mut self, max_backoff: Duration) -> Self {
        self.max_backoff = max_backoff;
        self
    }

    /// The same options with another cap on an answer's size.
    #[must_use]
    pub fn with_max_response_bytes(mut self, max_response_bytes: usize) -> Self {
        self.max_response_bytes = max_response_bytes;
        self
    }

    /// The same options with another cap on a streamed answer's lines.
    #[must_use]
    pub fn with_max_line_bytes(mut self, max_line_bytes: usize) -> Self {
        self.max_line_bytes = max_line_bytes;
        self
    }

    /// The same options with a header sent on every request (`OpenAI-Organization`,
    /// OpenRouter's `HTTP-Referer`). A header of the same name as one the provider sets (its
    /// key's among them) replaces it; a name or value HTTP does not allow is a
    /// [`ProviderError::Configuration`] when the provider is made. Its value is masked in error
    /// bodies like a key's.
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push(ExtraHeader {
            name: name.into(),
            value: HeaderText::Plain(value.into()),
        });
        self
    }

    /// The same options with a header whose value is a key (Azure OpenAI's `api-key`): sent
    /// as [`with_header`](Self::with_header) sends one, and never shown.
    #[must_use]
    pub fn with_secret_header(mut self, name: impl Into<String>, key: ApiKey) -> Self {
        self.headers.push(ExtraHeader {
            name: name.into(),
            value: HeaderText::Secret(key),
        });
        self
    }

    /// The same options with a query parameter added to every request's URL (Azure OpenAI's
    /// `api-version`).
    #[must_use]
    pub fn with_query(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.query.push((name.into(), value.into()));
        self
    }

    /// The same options sending requests through `client`, built by the caller (a proxy,
    /// private root certificates, its own connection pool). The options' timeout still bounds
    /// each attempt.
    #[must_use]
    pub fn with_client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }
}

/// A client bound to its options and to the headers every request of its provider carries.
pub(crate) struct HttpClient {
    client: reqwest::Client,
    options: HttpOptions,
    /// The provider's own headers, its key's among them.
    own: HeaderMap,
    /// The caller's, which replace the provider's of the same name.
    extra: HeaderMap,
}

impl std::fmt::Debug for HttpClient {
    /// Header names only: values may be keys.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn names(map: &HeaderMap) -> Vec<&str> {
            map.keys().map(HeaderName::as_str).collect()
        }
        f.debug_struct("HttpClient")
            .field("headers", &names(&self.own))
            .field("extra_headers", &names(&self.extra))
            .field("query", &self.options.query)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// A client sending `own` (the provider's fixed headers) and the options' headers.
    pub(crate) fn new(
        options: HttpOptions,
        own: &[(&'static str, &str)],
    ) -> Result<Self, ProviderError> {
        let client = match &options.client {
            Some(client) => client.clone(),
            None => reqwest::Client::builder().build().map_err(|error| {
                ProviderError::Configuration(format!("cannot build the HTTP client: {error}"))
            })?,
        };
        let mut extra = HeaderMap::new();
        for header in &options.headers {
            let (text, secret) = match &header.value {
                HeaderText::Plain(text) => (text.as_str(), false),
                HeaderText::Secret(key) => (key.expose(), true),
            };
            let (name, value) = header_of(&header.name, text, secret)?;
            extra.insert(name, value);
        }
        let mut http = Self {
            client,
            options,
            own: HeaderMap::new(),
            extra,
        };
        for (name, value) in own {
            http.set(name, value, false)?;
        }
        Ok(http)
    }

    /// Sends `key` in the header `name` on every request (unless the caller's headers replace
    /// it). A key HTTP does not allow in a header is a [`ProviderError::Configuration`].
    pub(crate) fn set_key(
        &mut self,
        name: &'static str,
        prefix: &str,
        key: &ApiKey,
    ) -> Result<(), ProviderError> {
        self.set(name, &format!("{prefix}{}", key.expose()), true)
    }

    fn set(&mut self, name: &'static str, value: &str, secret: bool) -> Result<(), ProviderError> {
        let (name, value) = header_of(name, value, secret)?;
        self.own.insert(name, value);
        Ok(())
    }

    /// Every header value sent, as text: what an error body must not show.
    fn secrets(&self) -> impl Iterator<Item = &str> {
        self.own
            .values()
            .chain(self.extra.values())
            .filter_map(|value| value.to_str().ok())
    }

    /// POSTs a JSON body and reads the whole answer, retrying what is worth retrying. Header
    /// values (keys among them) never appear in errors.
    pub(crate) async fn post_for_bytes(
        &self,
        url: &reqwest::Url,
        body: Vec<u8>,
    ) -> Result<bytes::Bytes, ProviderError> {
        let response = self.post(url, body).await?;
        self.read_capped(response).await
    }

    /// POSTs a JSON body asking for a stream: the answer's server-sent events as they come
    /// when the server streams, else its whole body (a server that does not stream answers
    /// with one JSON document). Retries as [`post_for_bytes`](Self::post_for_bytes) does, until the
    /// answer starts; a stream is never retried once it has begun.
    pub(crate) async fn post_stream(
        &self,
        url: &reqwest::Url,
        body: Vec<u8>,
    ) -> Result<Answer, ProviderError> {
        let response = self.post(url, body).await?;
        let streamed = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim_start().starts_with("text/event-stream"));
        if streamed {
            Ok(Answer::Events(super::sse::events(
                response,
                self.options.max_response_bytes,
                self.options.max_line_bytes,
            )))
        } else {
            Ok(Answer::Whole(self.read_capped(response).await?))
        }
    }

    /// POSTs a JSON body until an attempt answers with success, retrying what is worth
    /// retrying; an error status ends with its body's start, header values masked.
    async fn post(
        &self,
        url: &reqwest::Url,
        body: Vec<u8>,
    ) -> Result<reqwest::Response, ProviderError> {
        // Shared by every attempt without a copy.
        let body = bytes::Bytes::from(body);
        let mut url = url.clone();
        if !self.options.query.is_empty() {
            url.query_pairs_mut().extend_pairs(&self.options.query);
        }
        let mut attempt = 0;
        loop {
            let request = self
                .client
                .post(url.clone())
                .timeout(self.options.timeout)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .headers(self.own.clone())
                .headers(self.extra.clone())
                .body(body.clone());
            let wait = match request.send().await {
                Ok(response) => {
                    let status = response.status();
                    if status.is_success() {
                        return Ok(response);
                    }
                    let retry_after = retry_after(&response);
                    let retryable = status.as_u16() == 429 || status.is_server_error();
                    let body = self.read_capped(response).await.unwrap_or_default();
                    let error = ProviderError::Status {
                        status: status.as_u16(),
                        body: redacted(&String::from_utf8_lossy(&body), self.secrets())
                            .chars()
                            .take(500)
                            .collect(),
                    };
                    if !retryable || attempt >= self.options.max_retries {
                        return Err(error);
                    }
                    retry_after.unwrap_or_else(|| self.backoff(attempt))
                }
                Err(error) => {
                    let retryable = error.is_connect() || error.is_timeout() || error.is_request();
                    let error = ProviderError::transport(error);
                    if !retryable || attempt >= self.options.max_retries {
                        return Err(error);
                    }
                    self.backoff(attempt)
                }
            };
            tokio::time::sleep(wait.min(self.options.max_backoff)).await;
            attempt += 1;
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.options
            .initial_backoff
            .saturating_mul(2u32.saturating_pow(attempt))
            .min(self.options.max_backoff)
    }

    /// The answer's body, refused once it is past the size cap: at once when its declared
    /// length says so, else as soon as the bytes read pass the cap. A body of declared length
    /// within the cap is read as it arrives, without a copy.
    async fn read_capped(
        &self,
        mut response: reqwest::Response,
    ) -> Result<bytes::Bytes, ProviderError> {
        let cap = self.options.max_response_bytes;
        let too_large =
            || ProviderError::malformed(format!("the answer is larger than {cap} bytes"));
        match response.content_length() {
            // The HTTP layer reads no byte past the declared length.
            Some(length) if usize::try_from(length).is_ok_and(|length| length <= cap) => {
                return response.bytes().await.map_err(ProviderError::transport);
            }
            Some(_) => return Err(too_large()),
            None => {}
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(ProviderError::transport)? {
            if body.len() + chunk.len() > cap {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body.into())
    }
}

/// The answer's JSON as `T`. The body is checked to be UTF-8 once, as a whole, rather than
/// string by string as it is decoded; a body that is not UTF-8 is decoded as bytes, for the
/// decoder to say where it goes wrong.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ProviderError> {
    let decoded = match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    };
    decoded.map_err(|error| ProviderError::Malformed {
        message: format!("the body is not the expected JSON: {error}"),
        source: Some(error),
    })
}

/// A field the loop reads as text (`#[serde(deserialize_with = "text", default)]`): a string's
/// text, nothing for `null`, and the JSON text of any other value (arguments some servers send
/// as an object). A block or an item the loop does not use may hold anything in a field of
/// the same name, and must not make the answer unusable. A string costs its one copy and
/// `null` nothing, as a plain `String` field would.
pub(crate) fn text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    deserializer.deserialize_any(AnyText)
}

/// Reads any JSON value as [`text`] says.
struct AnyText;

impl<'de> serde::de::Visitor<'de> for AnyText {
    type Value = String;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<String, E> {
        Ok(text.to_owned())
    }

    fn visit_string<E: serde::de::Error>(self, text: String) -> Result<String, E> {
        Ok(text)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<String, E> {
        Ok(String::new())
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<String, E> {
        Ok(String::new())
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, inner: D) -> Result<String, D::Error> {
        text(inner)
    }

    fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<String, E> {
        Ok(serde_json::Value::from(value).to_string())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<String, A::Error> {
        let value: serde_json::Value =
            serde::Deserialize::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
        Ok(value.to_string())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<String, A::Error> {
        let value: serde_json::Value =
            serde::Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(value.to_string())
    }
}

/// A header of this name and value, refused with the name (never the value) when HTTP does not
/// allow it; a secret one is marked sensitive for the HTTP client.
fn header_of(
    name: &str,
    value: &str,
    secret: bool,
) -> Result<(HeaderName, HeaderValue), ProviderError> {
    let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
        ProviderError::Configuration(format!("{name:?} is not an HTTP header name"))
    })?;
    let mut value = HeaderValue::from_str(value).map_err(|_| {
        ProviderError::Configuration(format!(
            "the value of the header {name} is not one HTTP allows (a line break or a control \
             character)"
        ))
    })?;
    value.set_sensitive(secret);
    Ok((name, value))
}

/// An error body with every header value (keys among them) masked: a server that echoes the
/// key it refused must not put it into a trace.
fn redacted<'a>(body: &str, headers: impl Iterator<Item = &'a str>) -> String {
    headers
        .flat_map(|value| [value, value.strip_prefix("Bearer ").unwrap_or(value)])
        .filter(|secret| secret.len() >= 8)
        .fold(body.to_owned(), |body, secret| {
            body.replace(secret, "[REDACTED]")
        })
}

/// `Retry-After` in seconds (the date form is rare from model APIs and falls back to backoff).
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?;
    let seconds: f64 = value.trim().parse().ok()?;
    // A wait longer than a `Duration` holds (`1e20`) is the longest wait; the caller caps it at
    // `max_backoff` like any other.
    (seconds.is_finite() && seconds >= 0.0)
        .then(|| Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
}

/// The model's arguments as JSON for formats that need an object; text that is not JSON is
/// passed as a string so nothing is lost.
#[cfg(any(feature = "anthropic", feature = "gemini"))]
pub(crate) fn arguments_value(arguments: &str) -> serde_json::Value {
    if arguments.trim().is_empty() {
        return serde_json::json!({});
    }
    serde_json::from_str(arguments)
        .unwrap_or_else(|_| serde_json::Value::String(arguments.to_owned()))
}

/// The URL a provider posts to: `base_url` without its trailing slashes, then `path`. Parsed
/// once, when the provider is made, so that a URL that is not one is a configuration error then
/// rather than a failure of every request (and no request parses it again).
pub(crate) fn endpoint(base_url: &str, path: &str) -> Result<reqwest::Url, ProviderError> {
    let text = format!("{}{path}", base_url.trim_end_matches('/'));
    let url = reqwest::Url::parse(&text).map_err(|error| {
        ProviderError::Configuration(format!("the base URL is not a URL: {error}"))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ProviderError::Configuration(format!(
            "the base URL must be http or https, not {}",
            url.scheme()
        )));
    }
    Ok(url)
}
