//! Same-origin only: every way another origin or a rebound name reached the inspector before,
//! tried again, over plain HTTP and in a real Chromium. Nothing is served, nothing runs.

mod common;

use std::net::SocketAddr;

use common::{Browser, browser, start_playground};
use playground::guard::TOKEN_HEADER;
use serde_json::{Value, json};
use toolkit_builtins as _;

/// One request as an attacker would send it.
struct Attack {
    method: &'static str,
    path: &'static str,
    host: String,
    origin: Option<String>,
    content_type: &'static str,
    token: Option<String>,
    fetch_site: Option<&'static str>,
}

const INVOKE: &str = r#"{"name": "uuid", "arguments": "{}"}"#;

fn body_for(path: &str) -> &'static str {
    match path {
        "/api/invoke" => INVOKE,
        "/api/run" => r#"{"mode": "scripted"}"#,
        "/api/resume" => r#"{"token": "x", "decisions": []}"#,
        _ => "",
    }
}

/// Every combination the attacks above used: a foreign Host on every route (DNS rebinding),
/// a foreign Origin with every content type a page can send without a preflight and with
/// JSON, requests without the launch token or with a wrong one, and cross-site fetches.
fn attacks(port: u16, token: &str) -> Vec<Attack> {
    let own = format!("127.0.0.1:{port}");
    let routes: [(&str, &str); 12] = [
        ("GET", "/"),
        ("GET", "/runs"),
        ("GET", "/artifacts.js"),
        ("GET", "/app.js"),
        ("GET", "/api/tools"),
        ("GET", "/api/config"),
        ("GET", "/api/runs"),
        ("GET", "/api/runs/x"),
        ("GET", "/api/runs/changes?after=0"),
        ("POST", "/api/invoke"),
        ("POST", "/api/run"),
        ("POST", "/api/resume"),
    ];
    // The page's own request, which each attack changes in one or two ways.
    let own_request = |method: &'static str, path: &'static str| Attack {
        method,
        path,
        host: own.clone(),
        origin: None,
        content_type: "application/json",
        token: Some(token.to_owned()),
        fetch_site: None,
    };
    let mut all = Vec::new();
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1.evil.example:{port}"),
        format!("127.0.0.1:{}", port ^ 1),
        "evil.example".to_owned(),
    ] {
        for (method, path) in routes {
            all.push(Attack {
                origin: Some(format!("http://{host}")),
                host: host.clone(),
                fetch_site: Some("same-origin"),
                ..own_request(method, path)
            });
        }
    }
    for origin in [
        "http://evil.example".to_owned(),
        format!("http://evil.example:{port}"),
        format!("http://localhost:{}", port ^ 1),
        "null".to_owned(),
    ] {
        for content_type in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/json",
        ] {
            for (method, path) in routes.iter().filter(|(method, _)| *method == "POST") {
                for token in [None, Some(token.to_owned())] {
                    all.push(Attack {
                        origin: Some(origin.clone()),
                        content_type,
                        token,
                        ..own_request(method, path)
                    });
                }
            }
        }
    }
    for (method, path) in routes.iter().filter(|(_, path)| path.starts_with("/api/")) {
        // None, a guess of the right shape, and the token with its last character changed.
        let mut near = token.to_owned();
        let last = if near.pop() == Some('0') { '1' } else { '0' };
        near.push(last);
        for token in [None, Some("0".repeat(64)), Some(near.clone())] {
            all.push(Attack {
                token,
                ..own_request(method, path)
            });
        }
        for site in ["cross-site", "same-site"] {
            all.push(Attack {
                fetch_site: Some(site),
                ..own_request(method, path)
            });
        }
    }
    all
}

async fn send(client: &reqwest::Client, address: SocketAddr, attack: &Attack) -> (u16, String) {
    let url = format!("http://{address}{}", attack.path);
    let mut request = if attack.method == "POST" {
        client
            .post(url)
            .header("content-type", attack.content_type)
            .body(body_for(attack.path))
    } else {
        client.get(url)
    };
    request = request.header("host", &attack.host);
    if let Some(origin) = &attack.origin {
        request = request.header("origin", origin);
    }
    if let Some(token) = &attack.token {
        request = request.header(TOKEN_HEADER, token);
    }
    if let Some(site) = attack.fetch_site {
        request = request.header("sec-fetch-site", site);
    }
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_foreign_host_origin_and_tokenless_request_is_refused_and_runs_nothing() {
    let playground = start_playground().await;
    let address: SocketAddr = playground
        .url
        .trim_start_matches("http://")
        .parse()
        .expect("address");
    let client = reqwest::Client::new();
    let attacks = attacks(playground.port, &playground.token);
    let mut accepted = Vec::new();
    for attack in &attacks {
        let (status, body) = send(&client, address, attack).await;
        if status != 403 {
            accepted.push(format!(
                "{} {} Host {} Origin {:?} {} -> {status} {body}",
                attack.method, attack.path, attack.host, attack.origin, attack.content_type
            ));
        }
        assert!(
            !body.contains(&playground.token),
            "the token leaked to {} {}",
            attack.method,
            attack.path
        );
    }
    println!(
        "tried {} foreign-Host, cross-origin and tokenless requests; accepted {}",
        attacks.len(),
        accepted.len()
    );
    assert_eq!(accepted, Vec::<String>::new());
    assert_eq!(attacks.len(), 184);
    assert_eq!(playground.audit.runs(10).expect("runs").len(), 0);

    // The page's own requests pass: its Host, its Origin, its token.
    let own = playground.client();
    let page = own
        .get(format!("{}/", playground.url))
        .send()
        .await
        .expect("page");
    assert_eq!(page.status(), 200);
    let html = page.text().await.expect("html");
    assert!(html.contains(&format!(
        "<meta name=\"playground-token\" content=\"{}\">",
        playground.token
    )));
    let invoked = own
        .post(format!("{}/api/invoke", playground.url))
        .header("origin", &playground.url)
        .header("sec-fetch-site", "same-origin")
        .header("content-type", "application/json")
        .body(INVOKE)
        .send()
        .await
        .expect("invoke");
    assert_eq!(invoked.status(), 200);
    assert_eq!(playground.audit.runs(10).expect("runs").len(), 1);
    let localhost = own
        .get(format!("http://localhost:{}/api/tools", playground.port))
        .send()
        .await
        .expect("tools");
    assert_eq!(localhost.status(), 200);
}

/// The page another origin serves: it tries every request a page can make to the inspector and
/// writes what it saw into `window.__seen`.
const ATTACKER_PAGE: &str = r"<!doctype html><title>evil</title><script>
window.__seen = [];
async function attempt(name, url, options) {
  try {
    const response = await fetch(url, options);
    let text = '';
    try { text = await response.text(); } catch (error) { text = 'unreadable'; }
    window.__seen.push({name, status: response.status, type: response.type, text: text.slice(0, 200)});
  } catch (error) {
    window.__seen.push({name, error: String(error)});
  }
}
async function main() {
  const target = 'http://127.0.0.1:PORT';
  const call = JSON.stringify({name: 'uuid', arguments: '{}'});
  await attempt('no-cors text/plain invoke', target + '/api/invoke', {method: 'POST', mode: 'no-cors', headers: {'content-type': 'text/plain'}, body: call});
  await attempt('no-cors form run', target + '/api/run', {method: 'POST', mode: 'no-cors', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'mode=scripted'});
  await attempt('json invoke', target + '/api/invoke', {method: 'POST', headers: {'content-type': 'application/json'}, body: call});
  await attempt('json invoke with a guessed token', target + '/api/invoke', {method: 'POST', headers: {'content-type': 'application/json', 'x-playground-token': 'guess'}, body: call});
  await attempt('read history', target + '/api/runs', {});
  await attempt('read page', target + '/', {});
  await attempt('no-cors read history', target + '/api/runs', {mode: 'no-cors'});
  window.__done = true;
}
main();
</script>";

async fn serve_attacker(port: u16) -> SocketAddr {
    let page = ATTACKER_PAGE.replace("PORT", &port.to_string());
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(move || {
            let page = page.clone();
            async move { axum::response::Html(page) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("listen");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    address
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chromium_a_foreign_page_and_a_rebound_name_get_nothing_and_run_nothing() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let attacker = serve_attacker(playground.port).await;
    // evil.example resolves to 127.0.0.1, as a rebinding attacker's DNS would make it.
    let browser = Browser::start_with(
        &chromium,
        &driver,
        &["--host-resolver-rules=MAP evil.example 127.0.0.1"],
    )
    .await;

    // A page of another origin.
    browser
        .goto(&format!("http://evil.example:{}/", attacker.port()))
        .await;
    browser
        .wait_for("the attacks", "return window.__done === true;", json!([]))
        .await;
    let seen = browser.execute("return window.__seen;", json!([])).await;
    let seen = seen.as_array().expect("attempts");
    assert_eq!(seen.len(), 7);
    for attempt in seen {
        // Either the browser stopped it (CORS), or the server answered 403, or the answer is
        // opaque (no-cors): never a readable success.
        let readable_success = attempt["status"]
            .as_u64()
            .is_some_and(|status| status < 400)
            && attempt["type"] != json!("opaque");
        assert!(!readable_success, "{attempt}");
        assert!(
            !attempt["text"]
                .as_str()
                .unwrap_or_default()
                .contains(&playground.token),
            "{attempt}"
        );
    }

    // The inspector's own port reached under the rebound name: the page itself is refused, so
    // the token never reaches that origin, and the API refuses that origin's requests.
    browser
        .goto(&format!("http://evil.example:{}/", playground.port))
        .await;
    let shown = browser
        .execute("return document.body.textContent;", json!([]))
        .await;
    assert!(
        shown
            .as_str()
            .unwrap_or_default()
            .contains("refused: Host \\\"evil.example:"),
        "{shown}"
    );
    browser
        .execute(
            r"window.__rebound = [];
              const call = JSON.stringify({name: 'uuid', arguments: '{}'});
              Promise.all([
                fetch('/api/runs').then((r) => r.status),
                fetch('/api/invoke', {method: 'POST', headers: {'content-type': 'application/json'}, body: call}).then((r) => r.status),
                fetch('/api/run', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'}).then((r) => r.status),
                fetch('/', {}).then((r) => r.status),
              ]).then((statuses) => { window.__rebound = statuses; });",
            json!([]),
        )
        .await;
    let statuses = browser
        .wait_for(
            "the rebound requests",
            "return window.__rebound.length === 4 && window.__rebound;",
            json!([]),
        )
        .await;
    assert_eq!(statuses, json!([403, 403, 403, 403]));
    let tried = seen.len() + 5;
    println!(
        "in Chromium: tried {tried} requests from other origins and a rebound name; accepted 0"
    );
    assert_eq!(playground.audit.runs(10).expect("runs").len(), 0);

    // The real page still works.
    browser.open(&format!("{}/", playground.url)).await;
    let count: Value = browser
        .execute(
            "return document.querySelectorAll('#tool-list li').length;",
            json!([]),
        )
        .await;
    assert!(count.as_u64().expect("a count") > 30);
    browser.quit().await;
}
