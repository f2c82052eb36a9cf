//! `probe_url` against a tiny HTTP responder on 127.0.0.1, through the seam.

mod http_reply;
mod workspace_fixture;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_reply::reply;
use serde_json::json;
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
                        let _ = stream.write_all(&respond(path, port));
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

const PAGE: &str = "<!DOCTYPE html><html><head><title>Release notes</title><style>p { color: red }</style>\
<script>alert('not text')</script></head><body><h1>Version 2</h1><p>Faster <b>and</b> safer.</p>\
<ul><li>one</li><li>two</li></ul><p>See <a href=\"https://example.com/docs\">the docs</a>.</p></body></html>";

/// 100 000 repeats of a tag soup that nests one level deeper each time, though no tag in it
/// looks like it opens a level: self-closing divs, divs closed by a stray end tag, formatting
/// elements (reopened by the parser's adoption agency) closed by a stray end tag, and a script
/// of end tags before each.
fn tag_soup(style: &str) -> String {
    let unit = match style {
        "self-closing" => "<div/>",
        "stray-end" => "<div></x>",
        "formatting" => "<b></x>",
        "script" => "<script></i></script><i>",
        _ => panic!("no such soup: {style}"),
    };
    unit.repeat(100_000)
}

/// A page holding secrets of three shapes, between ordinary words.
const SECRET_PAGE: &str = "config: password=hunter2-correct-horse and the key \
sk-proj-Qx7Lm2Np8Rt4Vw6Yz1Ab3Cd5Ef7Gh9Jk then token ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l1234 end";

/// The secrets of [`SECRET_PAGE`].
const PAGE_SECRETS: [&str; 3] = [
    "hunter2-correct-horse",
    "sk-proj-Qx7Lm2Np8Rt4Vw6Yz1Ab3Cd5Ef7Gh9Jk",
    "ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l1234",
];

/// What the responder answers for `path`; `port` is its own.
fn respond(path: &str, port: u16) -> Vec<u8> {
    let redirect = |status: &str, to: &str| reply(status, &[("Location", to)], b"");
    match path {
        "/hello" => b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-Api-Key: s3cr3t-value\r\nConnection: close\r\n\r\nhello".to_vec(),
        "/moved" => redirect("302 Found", "http://169.254.169.254/latest/meta-data/"),
        "/page" => reply(
            "200 OK",
            &[("Content-Type", "text/html; charset=utf-8")],
            PAGE.as_bytes(),
        ),
        "/long" => reply(
            "200 OK",
            &[("Content-Type", "text/plain")],
            "0123456789é".repeat(10).as_bytes(),
        ),
        "/latin1" => reply(
            "200 OK",
            &[("Content-Type", "text/plain; charset=ISO-8859-1")],
            b"caf\xe9 cr\xe8me",
        ),
        "/json" => reply(
            "200 OK",
            &[("Content-Type", "application/json")],
            br#"{"a": 1}"#,
        ),
        "/image" => reply("200 OK", &[("Content-Type", "image/png")], b"\x89PNG\r\n"),
        "/big" => reply(
            "200 OK",
            &[("Content-Type", "text/plain")],
            &vec![b'x'; 3 * 1024 * 1024],
        ),
        "/deep" => reply(
            "200 OK",
            &[("Content-Type", "text/html")],
            format!("{}deep{}", "<div>".repeat(100_000), "</div>".repeat(100_000)).as_bytes(),
        ),
        path if path.starts_with("/soup/") => reply(
            "200 OK",
            &[("Content-Type", "text/html")],
            tag_soup(&path["/soup/".len()..]).as_bytes(),
        ),
        "/secrets" => reply(
            "200 OK",
            &[("Content-Type", "text/plain")],
            SECRET_PAGE.as_bytes(),
        ),
        "/nested" => reply(
            "200 OK",
            &[("Content-Type", "text/html")],
            format!(
                "{}{}deep{}",
                "<p>para<br><img src=x>".repeat(5_000),
                "<div><span>".repeat(500),
                "</span></div>".repeat(500)
            )
            .as_bytes(),
        ),
        "/r1" => redirect("302 Found", "/r2"),
        "/r2" => redirect(
            "301 Moved Permanently",
            &format!("http://127.0.0.1:{port}/page"),
        ),
        "/loop" => redirect("302 Found", "/loop"),
        "/to-ftp" => redirect("302 Found", "ftp://127.0.0.1/file"),
        "/to-localhost" => redirect("302 Found", &format!("http://localhost:{port}/page")),
        "/to-ipv6-loopback" => redirect("307 Temporary Redirect", &format!("http://[::1]:{port}/page")),
        "/nowhere" => reply("302 Found", &[], b""),
        _ => reply("404 Not Found", &[], b""),
    }
}

fn allowing_loopback() -> Fixture {
    Fixture::with_context(|context| context.with_extension(NetworkPolicy::allowing(["127.0.0.1"])))
}

const TAIL: &str = "probe_url reaches public addresses only, unless the run allow-lists the host.";

#[test]
fn probe_url_is_a_remote_network_tool() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
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
        assert_eq!(outcome.error(), refusal, "{url}");
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
        outcome.error(),
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
        outcome.error(),
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
        .scope_offering(
            toolkit::ToolContext::new(),
            fixture.service.registry().names(),
        )
        .unwrap()
        .with_remote_budget(1);
    let first = fixture
        .service
        .invoke(&scope, "probe_url", r#"{"url": "http://127.0.0.1/"}"#)
        .await;
    // Refused, and counted all the same.
    assert_eq!(
        (first.content(), first.is_error()),
        (
            format!("Refused: 127.0.0.1 is a loopback address; {TAIL}").as_str(),
            true
        )
    );
    let second = fixture
        .service
        .invoke(&scope, "probe_url", r#"{"url": "http://127.0.0.1/"}"#)
        .await;
    assert_eq!(
        second.content(),
        "Error: this run has used its budget of 1 calls to external tools; \"probe_url\" was not called."
    );
}

const FETCH_TAIL: &str =
    "fetch_page reaches public addresses only, unless the run allow-lists the host.";

#[tokio::test]
async fn fetch_page_refuses_every_non_public_form_probe_url_refuses() {
    let fixture = Fixture::new();
    for url in [
        "http://127.0.0.1/",
        "http://10.1.2.3:8080/x",
        "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fd00:ec2::254]/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://localhost:9/",
    ] {
        let probed = fixture.call("probe_url", json!({"url": url})).await;
        let fetched = fixture.call("fetch_page", json!({"url": url})).await;
        assert_eq!(
            fetched.error(),
            probed.error().replace(TAIL, FETCH_TAIL),
            "{url}"
        );
        assert!(fetched.error().starts_with("Refused: "), "{url}");
    }
}

#[tokio::test]
async fn fetch_page_lays_html_out_as_text_and_gives_the_source_when_asked() {
    let server = Responder::start();
    let fixture = allowing_loopback();
    let url = server.url("/page");
    let outcome = fixture.call("fetch_page", json!({"url": url})).await;
    // The title, the style and the script are not text; links are numbered and listed.
    let text = "# Version 2\n\nFaster **and** safer.\n* one\n* two\n\nSee [the docs][1].\n\n[1]: https://example.com/docs\n";
    let total = text.chars().count();
    assert_eq!(
        outcome.content,
        format!(
            "GET {url} -> 200 OK (text/html, {} bytes)\ntext characters 0 to {total} of {total} (the end).\n\n{text}",
            PAGE.len()
        )
    );
    assert_eq!(outcome.artifacts.len(), 1);
    assert_eq!(
        outcome.artifacts[0].label(),
        format!("Page text ({total} characters)")
    );
    assert_eq!(outcome.artifacts[0].as_text(), Some(text));

    let raw = fixture
        .call("fetch_page", json!({"url": url, "raw": true}))
        .await;
    assert!(
        raw.content.ends_with(&format!(
            "source characters 0 to {0} of {0} (the end).\n\n{PAGE}",
            PAGE.len()
        )),
        "{}",
        raw.content
    );
}

#[tokio::test]
async fn fetch_page_pages_by_characters_and_says_where_the_next_part_starts() {
    let server = Responder::start();
    let fixture = allowing_loopback();
    let url = server.url("/long");
    // 110 characters, 120 bytes: every eleventh is "é".
    let text = "0123456789é".repeat(10);
    let head = format!("GET {url} -> 200 OK (text/plain, 120 bytes)");
    let part =
        |start: usize, length: usize| -> String { text.chars().skip(start).take(length).collect() };
    let outcome = fixture
        .call("fetch_page", json!({"url": url, "max_length": 12}))
        .await;
    assert_eq!(
        outcome.content,
        format!(
            "{head}\nsource characters 0 to 12 of 110; call fetch_page with start_index 12 for the next part.\n\n{}",
            part(0, 12)
        )
    );
    let outcome = fixture
        .call(
            "fetch_page",
            json!({"url": url, "start_index": 12, "max_length": 12}),
        )
        .await;
    assert_eq!(
        outcome.content,
        format!(
            "{head}\nsource characters 12 to 24 of 110; call fetch_page with start_index 24 for the next part.\n\n{}",
            part(12, 12)
        )
    );
    let outcome = fixture
        .call(
            "fetch_page",
            json!({"url": url, "start_index": 100, "max_length": 12}),
        )
        .await;
    assert_eq!(
        outcome.content,
        format!(
            "{head}\nsource characters 100 to 110 of 110 (the end).\n\n{}",
            part(100, 10)
        )
    );
    assert_eq!(
        fixture
            .call("fetch_page", json!({"url": url, "start_index": 110}))
            .await
            .error(),
        "Error: start_index 110 is past the end of the text (110 characters)."
    );
    for (max_length, expected) in [
        (0, "Error: max_length must be between 1 and 12000, not 0."),
        (
            12_001,
            "Error: max_length must be between 1 and 12000, not 12001.",
        ),
    ] {
        assert_eq!(
            fixture
                .call("fetch_page", json!({"url": url, "max_length": max_length}))
                .await
                .error(),
            expected
        );
    }
}

#[tokio::test]
async fn fetch_page_follows_redirects_and_lists_them() {
    let server = Responder::start();
    let fixture = allowing_loopback();
    let outcome = fixture
        .call("fetch_page", json!({"url": server.url("/r1")}))
        .await;
    assert!(
        outcome.content.starts_with(&format!(
            "GET {} -> 200 OK (text/html, {} bytes, after 2 redirects)\ntext characters 0 to ",
            server.url("/page"),
            PAGE.len()
        )),
        "{}",
        outcome.content
    );
    assert_eq!(outcome.artifacts[0].label(), "Redirects followed");
    let hops = outcome.artifacts[0].as_table().expect("a table");
    assert_eq!(hops.columns(), strings(["status", "from"]));
    assert_eq!(
        hops.rows(),
        vec![
            strings(["302", &server.url("/r1")]),
            strings(["301", &server.url("/r2")]),
        ]
    );
    assert_eq!(server.accepted(), 3);
}

#[tokio::test]
async fn fetch_page_checks_every_redirect_hop_before_connecting() {
    let server = Responder::start();
    let fixture = allowing_loopback();
    for (path, expected) in [
        (
            "/moved",
            format!(
                "Refused: the page redirects to http://169.254.169.254/latest/meta-data/, and 169.254.169.254 is the cloud metadata address; {FETCH_TAIL}"
            ),
        ),
        (
            "/to-localhost",
            format!(
                "Refused: the page redirects to http://localhost:{}/page, and \"localhost\" resolves to 127.0.0.1, a loopback address; {FETCH_TAIL}",
                server.port
            ),
        ),
        (
            "/to-ipv6-loopback",
            format!(
                "Refused: the page redirects to http://[::1]:{}/page, and ::1 is a loopback address; {FETCH_TAIL}",
                server.port
            ),
        ),
    ] {
        let before = server.accepted();
        let outcome = fixture
            .call("fetch_page", json!({"url": server.url(path)}))
            .await;
        assert_eq!(outcome.error(), expected, "{path}");
        // Only the first hop connected: the refused one never did.
        assert_eq!(server.accepted(), before + 1, "{path}");
    }
    assert_eq!(
        fixture
            .call("fetch_page", json!({"url": server.url("/loop")}))
            .await
            .error(),
        format!(
            "Error: GET {} was redirected more than 5 times (last to /loop); fetch_page stopped there.",
            server.url("/loop")
        )
    );
    assert_eq!(
        fixture
            .call("fetch_page", json!({"url": server.url("/to-ftp")}))
            .await
            .error(),
        format!(
            "Error: {} redirects to a \"ftp\" URL; fetch_page follows http and https only.",
            server.url("/to-ftp")
        )
    );
    assert_eq!(
        fixture
            .call("fetch_page", json!({"url": server.url("/nowhere")}))
            .await
            .error(),
        format!(
            "Error: GET {} -> 302 redirects without saying where (no Location header).",
            server.url("/nowhere")
        )
    );
}

#[tokio::test]
async fn fetch_page_reads_text_types_in_their_charset_and_refuses_the_rest() {
    let server = Responder::start();
    let fixture = allowing_loopback();
    let latin1 = fixture
        .call("fetch_page", json!({"url": server.url("/latin1")}))
        .await;
    assert!(
        latin1.content.ends_with("(the end).\n\ncafé crème"),
        "{}",
        latin1.content
    );
    let json_page = fixture
        .call("fetch_page", json!({"url": server.url("/json")}))
        .await;
    assert!(
        json_page.content.ends_with("(the end).\n\n{\"a\": 1}"),
        "{}",
        json_page.content
    );
    assert_eq!(
        fixture
            .call("fetch_page", json!({"url": server.url("/image")}))
            .await
            .error(),
        format!(
            "Error: {} is image/png, not a page: fetch_page reads HTML and text.",
            server.url("/image")
        )
    );
    assert_eq!(
        fixture
            .call("fetch_page", json!({"url": server.url("/missing")}))
            .await
            .error(),
        format!("Error: GET {} -> 404 Not Found.", server.url("/missing"))
    );
}

#[tokio::test]
async fn fetch_page_reads_at_most_two_megabytes_and_survives_deep_nesting() {
    let server = Responder::start();
    let fixture = allowing_loopback();
    let big = fixture
        .call(
            "fetch_page",
            json!({"url": server.url("/big"), "max_length": 10}),
        )
        .await;
    assert_eq!(
        big.content,
        format!(
            "GET {} -> 200 OK (text/plain, 2097152 bytes; the page is longer and was cut there)\nsource characters 0 to 10 of 2097152; call fetch_page with start_index 10 for the next part.\n\nxxxxxxxxxx",
            server.url("/big")
        )
    );
    // 100 000 nested elements are refused as the parser gets past 1 000, before any layout;
    // so are four tag soups that nest as deep without a closing tag in sight.
    for path in [
        "/deep",
        "/soup/self-closing",
        "/soup/stray-end",
        "/soup/formatting",
        "/soup/script",
    ] {
        assert_eq!(
            fixture
                .call("fetch_page", json!({"url": server.url(path)}))
                .await
                .error(),
            format!(
                "Error: the HTML of {} nests elements more than 1000 deep, too deep to lay out as text; fetch it with raw set to true.",
                server.url(path)
            )
        );
    }
    // 1 000 nested elements (after 5 000 paragraphs that never close, breaks and images, none
    // of which nest) are laid out.
    let nested = fixture
        .call(
            "fetch_page",
            json!({"url": server.url("/nested"), "start_index": 30_000}),
        )
        .await;
    assert!(!nested.is_error, "{}", nested.content);
    assert!(nested.content.ends_with("deep\n"), "{}", nested.content);
}

/// Reads a page 8 characters at a time, as a model rebuilding a masked secret from slices
/// would: with the run's secret filter on, no slice holds a piece of a secret that the pieces
/// could be joined into; without it (the control), the slices rebuild every secret.
#[tokio::test]
async fn fetch_page_slices_are_cut_from_the_masked_text() {
    let server = Responder::start();
    for filtered in [true, false] {
        let service =
            toolkit::ToolLoopService::new(toolkit_builtins::registry().expect("no duplicates"));
        let allowing =
            toolkit::ToolContext::new().with_extension(NetworkPolicy::allowing(["127.0.0.1"]));
        let mut scope = service.scope_offering(allowing, ["fetch_page"]).unwrap();
        if filtered {
            scope = scope.with_content_filter(Arc::new(toolkit::seam::SecretFilter));
        }
        let mut joined = String::new();
        let mut start = 0;
        loop {
            let arguments =
                json!({"url": server.url("/secrets"), "start_index": start, "max_length": 8});
            let result = service
                .invoke(&scope, "fetch_page", &arguments.to_string())
                .await;
            let content = result.content();
            assert!(!result.is_error(), "{content}");
            let (_, slice) = content.split_once("\n\n").expect("a slice after the head");
            joined.push_str(slice);
            if content.contains("(the end)") {
                break;
            }
            start += 8;
        }
        for secret in PAGE_SECRETS {
            assert_eq!(joined.contains(secret), !filtered, "{secret} in {joined}");
        }
        if filtered {
            assert_eq!(
                joined,
                "config: password=[REDACTED] and the key [REDACTED] then token [REDACTED] end"
            );
        }
    }
}
