//! `probe_url` against a tiny HTTP responder on 127.0.0.1, through the seam.

mod workspace_fixture;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use toolkit::ToolRegistry;
use toolkit_builtins as _;
use toolkit_builtins::network::NetworkPolicy;
use workspace_fixture::Fixture;

fn strings<const N: usize>(cells: [&str; N]) -> Vec<String> {
    cells.iter().map(|cell| (*cell).to_owned()).collect()
}

/// A responder on 127.0.0.1 that answers by path, counts the connections it accepts, and stops
/// by itself after a few seconds.
struct Responder {
    port: u16,
    accepted: Arc<AtomicUsize>,
}

impl Responder {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("address").port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&accepted);
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        counter.fetch_add(1, Ordering::SeqCst);
                        stream.set_nonblocking(false).expect("blocking");
                        stream
                            .set_read_timeout(Some(Duration::from_secs(2)))
                            .expect("timeout");
                        let mut request = Vec::new();
                        let mut buffer = [0_u8; 1024];
                        while !request.windows(4).any(|window| window == b"\r\n\r\n") {
                            match stream.read(&mut buffer) {
                                Ok(0) | Err(_) => break,
                                Ok(read) => request.extend_from_slice(&buffer[..read]),
                            }
                        }
                        let request = String::from_utf8_lossy(&request);
                        let path = request.split(' ').nth(1).unwrap_or("/");
                        let response = match path {
                            "/hello" => {
                                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-Api-Key: s3cr3t-value\r\nConnection: close\r\n\r\nhello"
                            }
                            "/moved" => {
                                "HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/latest/meta-data/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            }
                            _ => {
                                "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            }
                        };
                        let _ = stream.write_all(response.as_bytes());
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Self { port, accepted }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

fn allowing_loopback() -> Fixture {
    Fixture::with_context(|context| context.with_extension(NetworkPolicy::allowing(["127.0.0.1"])))
}

const TAIL: &str = "probe_url reaches public addresses only, unless the run allow-lists the host.";

#[test]
fn probe_url_is_a_remote_network_tool() {
    let registry = ToolRegistry::linked().expect("no duplicate names");
    let spec = registry.get("probe_url").expect("registered").spec();
    assert_eq!(spec.group(), "network");
    assert!(spec.flags().remote());
}

#[tokio::test]
async fn probe_url_refuses_non_public_addresses() {
    let fixture = Fixture::new();
    for (url, refusal) in [
        (
            "http://127.0.0.1/",
            format!("Refused: 127.0.0.1 is a loopback address; {TAIL}"),
        ),
        (
            "http://10.1.2.3:8080/x",
            format!("Refused: 10.1.2.3 is a private address; {TAIL}"),
        ),
        (
            "http://172.16.0.1/",
            format!("Refused: 172.16.0.1 is a private address; {TAIL}"),
        ),
        (
            "http://192.168.1.1/",
            format!("Refused: 192.168.1.1 is a private address; {TAIL}"),
        ),
        (
            "http://169.254.169.254/latest/meta-data/",
            format!("Refused: 169.254.169.254 is the cloud metadata address; {TAIL}"),
        ),
        (
            "http://169.254.1.1/",
            format!("Refused: 169.254.1.1 is a link-local address; {TAIL}"),
        ),
        (
            "http://0.0.0.0/",
            format!("Refused: 0.0.0.0 is an unspecified address; {TAIL}"),
        ),
        (
            "http://100.100.100.200/",
            format!("Refused: 100.100.100.200 is a shared (carrier-grade NAT) address; {TAIL}"),
        ),
        (
            "http://[::1]/",
            format!("Refused: ::1 is a loopback address; {TAIL}"),
        ),
        (
            "http://[::ffff:127.0.0.1]/",
            format!("Refused: ::ffff:127.0.0.1 is a loopback address; {TAIL}"),
        ),
        (
            "http://[fe80::1]/",
            format!("Refused: fe80::1 is a link-local address; {TAIL}"),
        ),
        (
            "http://[fd00:ec2::254]/",
            format!("Refused: fd00:ec2::254 is the cloud metadata address; {TAIL}"),
        ),
        (
            "http://[fc00::1]/",
            format!("Refused: fc00::1 is a unique local (private) address; {TAIL}"),
        ),
        (
            "http://2130706433/",
            format!("Refused: 127.0.0.1 is a loopback address; {TAIL}"),
        ),
        (
            "http://0x7f.1/",
            format!("Refused: 127.0.0.1 is a loopback address; {TAIL}"),
        ),
        (
            "http://localhost:9/",
            format!("Refused: \"localhost\" resolves to 127.0.0.1, a loopback address; {TAIL}"),
        ),
    ] {
        let outcome = fixture.call("probe_url", json!({"url": url})).await;
        assert_eq!(outcome.text(), refusal, "{url}");
    }
}

#[test]
fn every_ipv6_form_that_carries_an_ipv4_address_is_judged_by_it() {
    use std::net::IpAddr;
    use toolkit_builtins::network::non_public;
    let reason = |text: &str| non_public(text.parse::<IpAddr>().expect("an address"));
    for (address, expected) in [
        ("::ffff:127.0.0.1", Some("a loopback address")),
        ("::ffff:0:127.0.0.1", Some("a loopback address")),
        ("::ffff:0:10.0.0.1", Some("a private address")),
        ("::127.0.0.1", Some("a loopback address")),
        ("::169.254.169.254", Some("the cloud metadata address")),
        ("::8.8.8.8", Some("a reserved address")),
        ("64:ff9b::7f00:1", Some("a loopback address")),
        ("64:ff9b:1::a9fe:a9fe", Some("the cloud metadata address")),
        ("2002:7f00:1::", Some("a loopback address")),
        ("2002:c0a8:101::1", Some("a private address")),
        ("2600::5efe:7f00:1", Some("a loopback address")),
        ("2600::200:5efe:a00:1", Some("a private address")),
        ("::ffff:169.254.169.254", Some("the cloud metadata address")),
        ("::", Some("an unspecified address")),
        ("::1", Some("a loopback address")),
        // Public IPv4 addresses in the forms that reach them are public.
        ("::ffff:8.8.8.8", None),
        ("64:ff9b::808:808", None),
        ("2002:808:808::1", None),
        ("2600::5efe:808:808", None),
        ("2606:4700::1111", None),
    ] {
        assert_eq!(reason(address), expected, "{address}");
    }
}

#[tokio::test]
async fn probe_url_does_not_connect_to_a_local_server_unless_allow_listed() {
    let server = Responder::start();
    let fixture = Fixture::new();
    let outcome = fixture
        .call("probe_url", json!({"url": server.url("/hello")}))
        .await;
    assert_eq!(
        outcome.text(),
        format!("Refused: 127.0.0.1 is a loopback address; {TAIL}")
    );
    // Another host on the list does not let 127.0.0.1 through.
    let other = Fixture::with_context(|context| {
        context.with_extension(NetworkPolicy::allowing(["intranet.example"]))
    });
    let outcome = other
        .call("probe_url", json!({"url": server.url("/hello")}))
        .await;
    assert_eq!(
        outcome.text(),
        format!("Refused: 127.0.0.1 is a loopback address; {TAIL}")
    );
    assert_eq!(server.accepted(), 0);
}

#[tokio::test]
async fn probe_url_reaches_an_allow_listed_host_and_masks_secret_headers() {
    let server = Responder::start();
    let fixture = allowing_loopback();
    let url = server.url("/hello");
    let outcome = fixture.call("probe_url", json!({"url": url})).await;
    assert_eq!(
        outcome.content,
        format!("GET {url} -> 200 OK\ncontent-type: text/plain\nbody (5 bytes):\nhello")
    );
    assert_eq!(outcome.artifacts.len(), 2);
    assert_eq!(outcome.artifacts[0].label(), "Response headers");
    let headers = outcome.artifacts[0].as_table().expect("a table");
    assert_eq!(headers.columns(), strings(["header", "value"]));
    assert_eq!(
        headers.rows(),
        vec![
            strings(["content-type", "text/plain"]),
            strings(["content-length", "5"]),
            strings(["x-api-key", "[REDACTED]"]),
            strings(["connection", "close"]),
        ]
    );
    assert_eq!(outcome.artifacts[1].label(), "Response body (5 bytes)");
    assert_eq!(outcome.artifacts[1].as_text(), Some("hello"));
    assert_eq!(server.accepted(), 1);

    let outcome = fixture
        .call("probe_url", json!({"url": url, "max_body_bytes": 3}))
        .await;
    assert_eq!(
        outcome.content,
        format!("GET {url} -> 200 OK\ncontent-type: text/plain\nbody (first 3 of 5 bytes):\nhel")
    );
}

#[tokio::test]
async fn probe_url_reports_a_redirect_without_following_it() {
    let server = Responder::start();
    let fixture = allowing_loopback();
    let url = server.url("/moved");
    let outcome = fixture.call("probe_url", json!({"url": url})).await;
    assert_eq!(
        outcome.content,
        format!(
            "GET {url} -> 302 Found\nlocation: http://169.254.169.254/latest/meta-data/\n(probe_url follows no redirect)\nbody: empty"
        )
    );
    assert_eq!(server.accepted(), 1);
}

#[tokio::test]
async fn probe_url_validates_its_arguments() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture
            .call("probe_url", json!({"url": "ftp://example.com/"}))
            .await
            .error(),
        "Error: probe_url takes http and https URLs, not \"ftp\"."
    );
    assert_eq!(
        fixture
            .call("probe_url", json!({"url": "not a url"}))
            .await
            .error(),
        "Error: not a valid URL: relative URL without a base."
    );
    assert_eq!(
        fixture
            .call(
                "probe_url",
                json!({"url": "http://example.com/", "max_body_bytes": 20_001})
            )
            .await
            .error(),
        "Error: max_body_bytes must be between 0 and 20000, not 20001."
    );
}

#[tokio::test]
async fn probe_url_counts_against_the_run_budget() {
    let fixture = Fixture::new();
    let scope = fixture
        .service
        .scope(toolkit::ToolContext::new())
        .unwrap()
        .offer_all()
        .unwrap()
        .with_remote_budget(1);
    let first = fixture
        .service
        .invoke(&scope, "probe_url", r#"{"url": "http://127.0.0.1/"}"#)
        .await;
    assert!(!first.is_error());
    let second = fixture
        .service
        .invoke(&scope, "probe_url", r#"{"url": "http://127.0.0.1/"}"#)
        .await;
    assert_eq!(
        second.content().as_str(),
        "Error: this run has used its budget of 1 calls to external tools; \"probe_url\" was not called."
    );
}
