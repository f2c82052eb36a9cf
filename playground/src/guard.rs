//! Same-origin only: who may talk to the inspector.
//!
//! The inspector listens on loopback, but a web page in the user's browser can still reach it:
//! by sending simple cross-origin requests (a form, `fetch` in `no-cors` mode), or by DNS
//! rebinding (a name the attacker controls resolved to 127.0.0.1, which makes the attacker's
//! page same-origin with whatever listens on that port). Three checks close both:
//!
//! 1. **Host.** Every request must be addressed to the address the server is bound to
//!    (`127.0.0.1:PORT` or `localhost:PORT`). A rebinding page sends its own name and is refused,
//!    the page itself included, so it never sees the launch token.
//! 2. **Launch token.** Every `/api/` request carries the token of this launch in the
//!    `X-Playground-Token` header. The page receives it in its HTML (which only the right Host
//!    gets, and which another origin cannot read); other clients take it from the line the
//!    server prints at start. A cross-origin page cannot set the header without a preflight,
//!    which the server never grants.
//! 3. **Origin.** A request that changes something (`POST`) must be JSON, and when it says where
//!    it comes from (`Origin`, `Sec-Fetch-Site`) that must be this server.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// The header that carries the launch token.
pub const TOKEN_HEADER: &str = "x-playground-token";

/// A new launch token: 32 random bytes as hex.
///
/// # Panics
///
/// When the operating system's random generator fails: not something to carry on from.
pub fn launch_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random generator works");
    bytes
        .iter()
        .fold(String::with_capacity(64), |mut text, byte| {
            let _ = write!(text, "{byte:02x}");
            text
        })
}

/// What a request must match to be served.
#[derive(Clone, Debug)]
pub struct Guard {
    hosts: Arc<[String]>,
    origins: Arc<[String]>,
    token: Arc<str>,
}

impl Guard {
    /// The guard of a server bound to `address` (a loopback address) with this launch token.
    pub fn new(address: SocketAddr, token: &str) -> Self {
        let port = address.port();
        let mut hosts = vec![format!("localhost:{port}")];
        hosts.push(match address {
            SocketAddr::V4(v4) => format!("{}:{port}", v4.ip()),
            SocketAddr::V6(v6) => format!("[{}]:{port}", v6.ip()),
        });
        let origins = hosts.iter().map(|host| format!("http://{host}")).collect();
        Self {
            hosts: hosts.into(),
            origins,
            token: token.into(),
        }
    }

    /// Why `request` is refused, or `None` when it may be served.
    fn refusal(&self, method: &Method, path: &str, headers: &HeaderMap) -> Option<String> {
        let host = headers
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .map(str::to_ascii_lowercase);
        match host {
            None => return Some("refused: the request names no Host".to_owned()),
            Some(host) if !self.hosts.contains(&host) => {
                return Some(format!(
                    "refused: Host {host:?} is not this server (open http://{}/)",
                    self.hosts[1]
                ));
            }
            Some(_) => {}
        }
        if let Some(site) = headers.get("sec-fetch-site")
            && !matches!(site.as_bytes(), b"same-origin" | b"none")
        {
            return Some(format!(
                "refused: a {} request (Sec-Fetch-Site); only this server's own page may use it",
                String::from_utf8_lossy(site.as_bytes())
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("(not text)");
            // A GET from the page itself sends no Origin; a POST always does, and it must be ours.
            if !self.origins.iter().any(|ours| ours == origin) {
                return Some(format!(
                    "refused: Origin {origin:?} is not this server's page"
                ));
            }
        }
        if !path.starts_with("/api/") {
            return None;
        }
        let given = headers
            .get(TOKEN_HEADER)
            .map(axum::http::HeaderValue::as_bytes);
        if !given.is_some_and(|given| same_bytes(given, self.token.as_bytes())) {
            return Some(format!(
                "refused: the {TOKEN_HEADER} header does not carry this launch's token \
                 (the page has it; the server printed it at start)"
            ));
        }
        if method != Method::GET && method != Method::HEAD {
            let json = headers
                .get(header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|value| {
                    value
                        .split(';')
                        .next()
                        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
                });
            if !json {
                return Some(
                    "refused: a request that changes something must be application/json".to_owned(),
                );
            }
        }
        None
    }
}

/// Compares in time that depends only on the lengths.
fn same_bytes(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |differ, (a, b)| differ | (a ^ b))
            == 0
}

#[derive(Serialize)]
struct Refused {
    error: String,
}

/// The middleware: serves what [`Guard`] allows, answers `403` with the reason otherwise.
pub async fn same_origin(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    match guard.refusal(request.method(), request.uri().path(), request.headers()) {
        None => next.run(request).await,
        Some(error) => (StatusCode::FORBIDDEN, Json(Refused { error })).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn guard() -> Guard {
        Guard::new("127.0.0.1:7878".parse().expect("address"), "abc")
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn the_page_and_its_api_calls_pass() {
        let guard = guard();
        assert_eq!(
            guard.refusal(&Method::GET, "/", &headers(&[("host", "127.0.0.1:7878")])),
            None
        );
        assert_eq!(
            guard.refusal(
                &Method::GET,
                "/api/runs",
                &headers(&[("host", "LOCALHOST:7878"), (TOKEN_HEADER, "abc")])
            ),
            None
        );
        assert_eq!(
            guard.refusal(
                &Method::POST,
                "/api/invoke",
                &headers(&[
                    ("host", "127.0.0.1:7878"),
                    ("origin", "http://127.0.0.1:7878"),
                    ("sec-fetch-site", "same-origin"),
                    ("content-type", "application/json; charset=utf-8"),
                    (TOKEN_HEADER, "abc"),
                ])
            ),
            None
        );
    }

    #[test]
    fn each_check_refuses_with_its_reason() {
        let guard = guard();
        let refused = |method: Method, path: &str, pairs: &[(&'static str, &'static str)]| {
            guard
                .refusal(&method, path, &headers(pairs))
                .expect("refused")
        };
        assert_eq!(
            refused(Method::GET, "/", &[]),
            "refused: the request names no Host"
        );
        assert_eq!(
            refused(Method::GET, "/", &[("host", "evil.example:7878")]),
            "refused: Host \"evil.example:7878\" is not this server (open http://127.0.0.1:7878/)"
        );
        assert_eq!(
            refused(Method::GET, "/", &[("host", "127.0.0.1:7879")]),
            "refused: Host \"127.0.0.1:7879\" is not this server (open http://127.0.0.1:7878/)"
        );
        assert!(
            refused(
                Method::GET,
                "/api/runs",
                &[("host", "127.0.0.1:7878"), ("sec-fetch-site", "cross-site")]
            )
            .starts_with("refused: a cross-site request")
        );
        assert_eq!(
            refused(
                Method::POST,
                "/api/invoke",
                &[
                    ("host", "127.0.0.1:7878"),
                    ("origin", "http://evil.example")
                ]
            ),
            "refused: Origin \"http://evil.example\" is not this server's page"
        );
        assert!(
            refused(Method::GET, "/api/runs", &[("host", "127.0.0.1:7878")])
                .starts_with("refused: the x-playground-token header")
        );
        assert!(
            refused(
                Method::GET,
                "/api/runs",
                &[("host", "127.0.0.1:7878"), (TOKEN_HEADER, "abd")]
            )
            .starts_with("refused: the x-playground-token header")
        );
        assert!(
            refused(
                Method::GET,
                "/api/runs",
                &[("host", "127.0.0.1:7878"), (TOKEN_HEADER, "abcd")]
            )
            .starts_with("refused: the x-playground-token header")
        );
        assert_eq!(
            refused(
                Method::POST,
                "/api/invoke",
                &[
                    ("host", "127.0.0.1:7878"),
                    ("content-type", "text/plain"),
                    (TOKEN_HEADER, "abc")
                ]
            ),
            "refused: a request that changes something must be application/json"
        );
    }

    #[test]
    fn tokens_are_new_per_launch() {
        let token = launch_token();
        assert_eq!(token.len(), 64);
        assert!(token.bytes().all(|byte| byte.is_ascii_hexdigit()));
        assert_ne!(token, launch_token());
    }
}
