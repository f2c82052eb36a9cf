//! A fleet: `toolkit-mcp --http` instances on one PostgreSQL audit copy, behind HAProxy (round
//! robin, no sticky sessions, `scripts/haproxy.cfg.in`). Any instance answers any request: a
//! view's handle, a waiting question and a 2025-11-25 session made on one instance are answered
//! by another. An instance killed under load loses no step it answered, its clients get errors
//! (never a wrong answer), and it rejoins; an audit database that goes away under load is
//! reported as errors, never as success, and the instances reconnect on their own. One OTLP
//! receiver tells the instances apart by `service.instance.id`.

use std::future::Future;
use std::path::Path;
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use toolkit_testing::haproxy::{Balancer, free_port, haproxy};
use toolkit_testing::mcp::{call_tool, post, serve_http};
use toolkit_testing::postgres::{Postgres, own_server, postgres};

/// One `toolkit-mcp --http` process; killed when dropped.
struct Instance {
    child: Child,
    port: u16,
    arguments: Vec<String>,
}

impl Instance {
    /// Starts the binary on `port` with `arguments`; returns once it serves.
    fn start(port: u16, arguments: &[String]) -> Self {
        let binary = Path::new(env!("CARGO_BIN_EXE_toolkit-mcp"));
        let child = serve_http(binary, port, arguments);
        Self {
            child,
            port,
            arguments: arguments.to_vec(),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// `kill -9`.
    fn kill(&mut self) {
        self.child.kill().expect("killed");
        self.child.wait().expect("reaped");
    }

    /// The same instance again, on its port.
    fn restart(&mut self) {
        *self = Self::start(self.port, &self.arguments);
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// PostgreSQL, HAProxy and a database for this test, when the full tier runs.
fn needs() -> Option<(&'static Postgres, std::path::PathBuf)> {
    let server = postgres()?;
    Some((server, haproxy()?))
}

/// `count` instances on the audit copy at `audit` (privacy `full`, so that the test can find
/// each call's arguments), with `more` arguments, and the balancer in front of them.
fn fleet(haproxy: &Path, count: usize, audit: &str, more: &[&str]) -> (Vec<Instance>, Balancer) {
    let instances: Vec<Instance> = (0..count)
        .map(|index| {
            let mut arguments: Vec<String> = ["--audit", audit, "--privacy", "full"]
                .into_iter()
                .chain(more.iter().copied())
                .map(str::to_owned)
                .collect();
            arguments.extend(["--instance-id".to_owned(), format!("i{index}")]);
            Instance::start(free_port(), &arguments)
        })
        .collect();
    let ports: Vec<u16> = instances.iter().map(|instance| instance.port).collect();
    let balancer = Balancer::start(haproxy, &ports);
    (instances, balancer)
}

/// The text of a result's one text block.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

fn sha256(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let hex: Vec<String> = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{}", hex.concat())
}

/// The texts every tool step the audit copy at `url` kept was called with.
fn kept_texts(server: &Postgres, url: &str) -> Vec<String> {
    server
        .psql(
            url.rsplit('/').next().expect("a database name"),
            "SELECT convert_from(arguments, 'UTF8')::json->>'text' FROM steps \
             WHERE kind = 'tool' AND name = 'hash_text' AND NOT is_error",
        )
        .expect("the steps")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Two instances on a new database (with `more` arguments) and the balancer, run in `test`
/// with the two instances' URLs and the balancer's.
fn two_instances<F: Future<Output = ()>>(
    label: &str,
    more: &[&str],
    test: impl FnOnce(reqwest::Client, [String; 3]) -> F,
) {
    let Some((server, haproxy)) = needs() else {
        return;
    };
    let url = server.database(label);
    let (instances, balancer) = fleet(&haproxy, 2, &url, more);
    let urls = [instances[0].url(), instances[1].url(), balancer.url()];
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(test(reqwest::Client::new(), urls));
}

#[test]
fn a_views_handle_from_one_instance_is_answered_by_another() {
    two_instances("fleet_handles", &[], async |client, [first, second, _]| {
        // A view's handle from one instance, its artifacts from the other.
        let views = json!({"extensions": {"io.modelcontextprotocol/ui":
            {"mimeTypes": ["text/html;profile=mcp-app"]}}});
        let counted = json!({"arguments": {"text": "one two three"}});
        let made = call_tool(&client, &first, "text_stats", counted, &views)
            .await
            .expect("answered");
        let handle = made["_meta"]["toolkit/artifacts"]["handle"]
            .as_str()
            .expect("a handle")
            .to_owned();
        let fetch = json!({"arguments": {"handle": handle}});
        let artifacts = call_tool(&client, &second, "toolkit_artifacts", fetch, &views)
            .await
            .expect("answered");
        assert_eq!(artifacts["isError"], false, "{artifacts}");
        assert_eq!(artifacts["structuredContent"]["tool"], "text_stats");
        assert_eq!(
            artifacts["structuredContent"]["artifacts"][0]["label"],
            "Text statistics"
        );

        // A handle nobody gave is unknown on every instance.
        let unknown = json!({"arguments": {"handle": "0123456789abcdef0123456789abcdef"}});
        let refused = call_tool(&client, &second, "toolkit_artifacts", unknown, &views)
            .await
            .expect("answered");
        assert_eq!(refused["isError"], true, "{refused}");
    });
}

#[test]
fn a_question_asked_by_one_instance_is_answered_on_another_once() {
    let workspace = tempfile::tempdir().expect("a workspace");
    std::fs::write(workspace.path().join("notes.txt"), "draft\n").expect("written");
    let folder = workspace.path().to_str().expect("UTF-8").to_owned();
    let more = ["--writers", "--workspace", &folder];
    let notes = workspace.path().join("notes.txt");
    two_instances(
        "fleet_questions",
        &more,
        async |client, [first, second, _]| {
            // A writer's question asked by one instance, answered on the other.
            let forms = json!({"elicitation": {"form": {}}});
            let edit = json!({"arguments": {"path": "notes.txt",
            "edits": [{"old_text": "draft", "new_text": "final"}]}});
            let asked = call_tool(&client, &first, "edit_file", edit.clone(), &forms)
                .await
                .expect("answered");
            assert_eq!(asked["resultType"], "input_required", "{asked}");
            let state = asked["requestState"].as_str().expect("a state");
            let mut answer = edit.clone();
            answer["requestState"] = json!(state);
            answer["inputResponses"] =
                json!({"approval": {"action": "accept", "content": {"decision": "approve"}}});
            let done = call_tool(&client, &second, "edit_file", answer.clone(), &forms)
                .await
                .expect("answered");
            assert_eq!(done["isError"], false, "{done}");
            assert_eq!(std::fs::read_to_string(&notes).expect("read"), "final\n");
            // Answered once: the same answer again, on either instance, is a new question.
            let again = call_tool(&client, &first, "edit_file", answer, &forms)
                .await
                .expect("answered");
            assert_eq!(again["resultType"], "input_required", "{again}");

            // What the call would do changed between the form and the answer (another edit of the
            // file changed its diff): the answer was to another question, so it is asked again.
            std::fs::write(&notes, "alpha\nbeta\n").expect("written");
            let edit = json!({"arguments": {"path": "notes.txt",
            "edits": [{"old_text": "alpha", "new_text": "ALPHA"}]}});
            let asked = call_tool(&client, &first, "edit_file", edit.clone(), &forms)
                .await
                .expect("answered");
            std::fs::write(&notes, "alpha\ngamma\n").expect("written");
            let mut answer = edit.clone();
            answer["requestState"] = asked["requestState"].clone();
            answer["inputResponses"] =
                json!({"approval": {"action": "accept", "content": {"decision": "approve"}}});
            let again = call_tool(&client, &second, "edit_file", answer.clone(), &forms)
                .await
                .expect("answered");
            assert_eq!(again["resultType"], "input_required", "{again}");
            let diff = again["inputRequests"]["approval"]["params"]["message"]
                .as_str()
                .unwrap_or_default();
            assert!(diff.contains("gamma"), "the new preview: {again}");
            assert_eq!(
                std::fs::read_to_string(&notes).expect("read"),
                "alpha\ngamma\n"
            );
            answer["requestState"] = again["requestState"].clone();
            let done = call_tool(&client, &first, "edit_file", answer, &forms)
                .await
                .expect("answered");
            assert_eq!(done["isError"], false, "{done}");
            assert_eq!(
                std::fs::read_to_string(&notes).expect("read"),
                "ALPHA\ngamma\n"
            );
        },
    );
}

#[test]
fn a_2025_11_25_session_opened_on_one_instance_goes_on_on_any() {
    two_instances(
        "fleet_sessions",
        &[],
        async |client, [first, second, balanced]| {
            // A 2025-11-25 session opened on one instance goes on on the other.
            let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "fleet-test", "version": "1"}}});
            let (opened, session, _) = post(&client, &first, &[], &initialize)
                .await
                .expect("answered");
            assert_eq!(opened, 200);
            let session = session.expect("a session id");
            let headers = [
                ("mcp-session-id", session.as_str()),
                ("mcp-protocol-version", "2025-11-25"),
            ];
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let (status, _, _) = post(&client, &second, &headers, &initialized)
                .await
                .expect("answered");
            assert_eq!(status, 202);
            let hash = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "hash_text", "arguments": {"text": "session"}}});
            for url in [&second, &first, &balanced, &balanced] {
                let (status, _, answered) =
                    post(&client, url, &headers, &hash).await.expect("answered");
                assert_eq!(status, 200, "{answered}");
                assert_eq!(text(&answered["result"]), sha256("session"));
            }
        },
    );
}

/// What clients of a fleet saw: answers checked right, requests that failed, wrong answers.
#[derive(Default)]
struct Tally {
    right: std::sync::Mutex<Vec<String>>,
    failed: AtomicUsize,
    wrong: AtomicUsize,
    errors: std::sync::Mutex<Vec<String>>,
}

/// `clients` clients calling `hash_text` through `url`, each text unique, until `stop`.
async fn load(url: String, clients: usize, stop: Arc<AtomicBool>) -> Arc<Tally> {
    let tally = Arc::new(Tally::default());
    let client = reqwest::Client::new();
    let workers: Vec<_> = (0..clients)
        .map(|number| {
            let (url, stop, tally, client) = (
                url.clone(),
                Arc::clone(&stop),
                Arc::clone(&tally),
                client.clone(),
            );
            tokio::spawn(async move {
                let mut sent = 0;
                while !stop.load(Ordering::Relaxed) {
                    sent += 1;
                    let unique = format!("c{number}-{sent}");
                    let arguments = json!({"arguments": {"text": unique}});
                    match call_tool(&client, &url, "hash_text", arguments, &json!({})).await {
                        Ok(result) if result["isError"] == false => {
                            if text(&result) == sha256(&unique) {
                                tally.right.lock().expect("held briefly").push(unique);
                            } else {
                                tally.wrong.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        Ok(result) => {
                            tally.failed.fetch_add(1, Ordering::Relaxed);
                            let said = text(&result).to_owned();
                            tally.errors.lock().expect("held briefly").push(said);
                        }
                        Err(error) => {
                            tally.failed.fetch_add(1, Ordering::Relaxed);
                            tally.errors.lock().expect("held briefly").push(error);
                        }
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a client ends");
    }
    tally
}

/// What 16 clients saw through `balancer` while `fault` happened, two seconds into the load
/// (and three seconds after it), checked against the audit copy at `url`: no wrong answer, and
/// every right answer's step kept. Said on stderr; the errors the clients were given.
fn under_load(
    (server, url): (&Postgres, &str),
    balancer: &Balancer,
    what: &str,
    fault: impl FnOnce(),
) -> Vec<String> {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let stop = Arc::new(AtomicBool::new(false));
    let loaded = runtime.spawn(load(balancer.url(), 16, Arc::clone(&stop)));
    std::thread::sleep(Duration::from_secs(2));
    fault();
    std::thread::sleep(Duration::from_secs(3));
    stop.store(true, Ordering::Relaxed);
    let tally = runtime.block_on(loaded).expect("the load ends");
    let right = tally.right.lock().expect("done").clone();
    let errors = tally.errors.lock().expect("done").clone();
    let wrong = tally.wrong.load(Ordering::Relaxed);
    let kept = kept_texts(server, url);
    let lost: Vec<&String> = right.iter().filter(|text| !kept.contains(text)).collect();
    eprintln!(
        "{what}: {} answered right, {} failed, {wrong} wrong, {} steps kept, {} answered but \
         not kept; errors: {:?}",
        right.len(),
        tally.failed.load(Ordering::Relaxed),
        kept.len(),
        lost.len(),
        errors.iter().take(3).collect::<Vec<_>>()
    );
    assert_eq!(wrong, 0, "never a wrong answer");
    assert!(
        lost.is_empty(),
        "a success the audit copy does not have: {lost:?}"
    );
    assert!(right.len() > 100, "the fleet kept serving: {}", right.len());
    errors
}

/// One `hash_text` call through `url`, answered right.
fn answers_right(url: &str, what: &str) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let arguments = json!({"arguments": {"text": what}});
        let answered = call_tool(
            &reqwest::Client::new(),
            url,
            "hash_text",
            arguments,
            &json!({}),
        )
        .await
        .expect("answered");
        assert_eq!(text(&answered), sha256(what), "{answered}");
    });
}

#[test]
fn an_instance_killed_under_load_loses_no_answered_step_and_rejoins() {
    let Some((server, haproxy)) = needs() else {
        return;
    };
    let url = server.database("fleet_kill");
    let (mut instances, balancer) = fleet(&haproxy, 2, &url, &[]);
    under_load((server, &url), &balancer, "kill -9 under load", || {
        instances[0].kill();
        std::thread::sleep(Duration::from_secs(2));
        instances[0].restart();
    });
    // The killed instance serves again.
    answers_right(&instances[0].url(), "back");
}

#[test]
fn postgres_restarted_under_load_is_reported_as_errors_never_as_success() {
    let Some(haproxy) = haproxy() else {
        return;
    };
    let Some(own) = own_server() else {
        return;
    };
    let server = own.server();
    let url = server.database("fleet_restart");
    let (_instances, balancer) = fleet(&haproxy, 2, &url, &[]);
    let what = "PostgreSQL restarted under load";
    let errors = under_load((server, &url), &balancer, what, || {
        // Every connection cut, none taken for two seconds.
        own.stop();
        std::thread::sleep(Duration::from_secs(2));
        own.start();
    });
    assert!(!errors.is_empty(), "the outage was reported");
    assert!(
        errors
            .iter()
            .all(|error| error.contains("could not be written")),
        "{errors:?}"
    );
    // The instances reconnected on their own: later calls are answered and kept.
    for _ in 0..4 {
        answers_right(&balancer.url(), "after");
    }
}

#[test]
fn one_receiver_sees_every_instances_calls_each_named_by_its_instance() {
    let Some((server, haproxy)) = needs() else {
        return;
    };
    let Some(python) = toolkit_testing::otlp::python() else {
        return;
    };
    let receiver = toolkit_testing::otlp::receiver(&python);
    let url = server.database("fleet_otlp");
    let endpoint = format!("http://127.0.0.1:{}", receiver.port);
    let (_instances, balancer) = fleet(&haproxy, 2, &url, &["--otlp", &endpoint]);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let client = reqwest::Client::new();
        for number in 0..4 {
            let arguments = json!({"arguments": {"text": format!("traced-{number}")}});
            call_tool(&client, &balancer.url(), "hash_text", arguments, &json!({}))
                .await
                .expect("answered");
        }
    });
    // The instances export in batches, every few seconds.
    let instance_of = |resource: &Value| {
        toolkit_testing::otlp::attributes(resource)
            .get("service.instance.id")
            .and_then(|value| value["stringValue"].as_str())
            .map(str::to_owned)
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let spans = loop {
        let spans = if receiver.out.is_file() {
            toolkit_testing::otlp::spans(&receiver)
        } else {
            Vec::new()
        };
        let tools = spans
            .iter()
            .filter(|(_, span)| span["name"] == "execute_tool hash_text")
            .count();
        if tools == 4 || std::time::Instant::now() > deadline {
            break spans;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let mut seen: Vec<String> = spans
        .iter()
        .filter(|(_, span)| span["name"] == "execute_tool hash_text")
        .filter_map(|(resource, _)| instance_of(resource))
        .collect();
    seen.sort();
    // Round robin: two calls on each instance, each span named by its instance.
    assert_eq!(seen, ["i0", "i0", "i1", "i1"], "{spans:?}");
    // One call's spans, as the receiver saw them: a root and its tool span, one trace.
    let (resource, root) = spans
        .iter()
        .find(|(_, span)| span.get("parentSpanId").is_none())
        .expect("a root span");
    let tree: Vec<String> = spans
        .iter()
        .filter(|(_, span)| span["traceId"] == root["traceId"])
        .map(|(resource, span)| {
            format!(
                "{} (parent {}, instance {}) {:?}",
                span["name"].as_str().unwrap_or_default(),
                span["parentSpanId"].as_str().unwrap_or("none"),
                instance_of(resource).unwrap_or_default(),
                toolkit_testing::otlp::attributes(span)
            )
        })
        .collect();
    eprintln!("the spans of one call: {tree:#?}");
    assert_eq!(tree.len(), 2, "{tree:?}");
    assert!(instance_of(resource).is_some());
}
