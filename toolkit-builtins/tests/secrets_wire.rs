//! One secret policy at the seam: a corpus of secret forms planted in a workspace file, in
//! database records and in an HTTP body reaches the recorded provider wire as `[REDACTED]` when
//! the service filters content, while the artifacts (for people) keep every value. The same run
//! without the filter carries every form to the wire, so the plants are real.

#[path = "../../toolkit/tests/common/mod.rs"]
mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use common::Server;
use serde_json::{Value, json};
use toolkit::provider::{HttpOptions, OpenAiProvider};
use toolkit::{RunRequest, SecretFilter, Termination, ToolContext, ToolLoopService, ToolRegistry};
use toolkit_builtins::network::NetworkPolicy;
use toolkit_builtins::{Database, WorkspaceRoot};

const KEY_VARIABLE: &str = "TOOLKIT_TEST_PROVIDER_KEY";

/// Each form: its name, the text planted, and the part that must never reach the model.
const CORPUS: &[(&str, &str, &str)] = &[
    (
        "OpenAI project key",
        "OPENAI=sk-proj-Qx7Lm2Np8Rt4Vw6Yz1Ab3Cd5Ef7Gh9Jk",
        "sk-proj-Qx7Lm2Np8Rt4Vw6Yz1Ab3Cd5Ef7Gh9Jk",
    ),
    (
        "OpenAI key",
        "key sk-9fK2mXq7Lp4Wz8Rt6Vy1Nb3Cd5Ef7Gh",
        "sk-9fK2mXq7Lp4Wz8Rt6Vy1Nb3Cd5Ef7Gh",
    ),
    (
        "Anthropic key",
        "use sk-ant-api03-Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8Cb7Aa",
        "sk-ant-api03-Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8Cb7Aa",
    ),
    (
        "Stripe secret key",
        "stripe sk_live_51HcQxLmNoPqRsTuVwXyZ0123",
        "sk_live_51HcQxLmNoPqRsTuVwXyZ0123",
    ),
    (
        "Stripe restricted key",
        "stripe rk_live_9aBcDeFgHiJkLmNoPqRsTuV",
        "rk_live_9aBcDeFgHiJkLmNoPqRsTuV",
    ),
    (
        "Stripe webhook secret",
        "webhook whsec_3fGh7JkLm9NpQr2StUv4WxYz6Ab8Cd",
        "whsec_3fGh7JkLm9NpQr2StUv4WxYz6Ab8Cd",
    ),
    (
        "GitHub token",
        "gh ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l1234",
        "ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l1234",
    ),
    (
        "GitHub OAuth token",
        "gh gho_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9O",
        "gho_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9O",
    ),
    (
        "GitHub fine-grained token",
        "gh github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz",
        "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz",
    ),
    (
        "GitLab token",
        "gl glpat-Xy7Zw8Vu9Ts0Rq1Po2Nm3",
        "glpat-Xy7Zw8Vu9Ts0Rq1Po2Nm3",
    ),
    (
        "Slack bot token",
        "slack xoxb-2048-4096-AbCdEfGhIjKlMnOp",
        "xoxb-2048-4096-AbCdEfGhIjKlMnOp",
    ),
    (
        "Slack webhook",
        "https://hooks.slack.com/services/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",
        "Mn3Op4Qr5St6Uv7Wx8Yz9Ab0",
    ),
    (
        "AWS access key id",
        "aws AKIAIOSFODNN7EXAMPLQ",
        "AKIAIOSFODNN7EXAMPLQ",
    ),
    (
        "AWS temporary key id",
        "aws ASIAY34FZKBOKMUTVV7A",
        "ASIAY34FZKBOKMUTVV7A",
    ),
    (
        "AWS secret access key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "Google API key",
        "maps AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
    ),
    (
        "JWT",
        "session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        "Bearer header",
        "Authorization: Bearer 7d9f2a1c8e4b6f0a3d5c9e1b7f2a4c6e",
        "7d9f2a1c8e4b6f0a3d5c9e1b7f2a4c6e",
    ),
    (
        "Basic header",
        "Authorization: Basic dXNlcjpzM2NyM3RQYXNzd29yZA==",
        "dXNlcjpzM2NyM3RQYXNzd29yZA==",
    ),
    (
        "PostgreSQL URL",
        "postgres://app:Pg-S3cr3t-9x7@db.internal:5432/app",
        "Pg-S3cr3t-9x7",
    ),
    (
        "MySQL URL",
        "mysql://root:My5ql-R00t-Pw@10.0.0.5/prod",
        "My5ql-R00t-Pw",
    ),
    (
        "MongoDB URL",
        "mongodb+srv://svc:M0ng0-Pw-42x@cluster0.mongodb.net/db",
        "M0ng0-Pw-42x",
    ),
    (
        "Redis URL without user",
        "redis://:R3d1s-Pw-77q@cache:6379/0",
        "R3d1s-Pw-77q",
    ),
    (
        "AMQP URL",
        "amqp://guest:Amqp-Pw-5t6@mq.local:5672",
        "Amqp-Pw-5t6",
    ),
    (
        "HTTPS URL with password",
        "https://deploy:Https-Pw-8k2@registry.example.com/v2",
        "Https-Pw-8k2",
    ),
    (
        "RSA private key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Gh9Fk\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Gh9Fk",
    ),
    (
        "OpenSSH private key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    ),
    (
        "EC private key",
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oMqP\n-----END EC PRIVATE KEY-----",
        "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oMqP",
    ),
    (
        "PGP private key block",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF8xAbcBCADPgpPkeYrF3qZt7Wv\n-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBF8xAbcBCADPgpPkeYrF3qZt7Wv",
    ),
    (
        "password variable",
        "DB_PASSWORD=Tr0ub4dor-and-3",
        "Tr0ub4dor-and-3",
    ),
    (
        "JSON password",
        "{\"password\": \"c0rrect-h0rse-battery\"}",
        "c0rrect-h0rse-battery",
    ),
    (
        "YAML API key",
        "api_key: yml-4pi-k3y-9q8w7e",
        "yml-4pi-k3y-9q8w7e",
    ),
    (
        "API key header",
        "X-Api-Key: hdr-k3y-1a2b3c4d5e",
        "hdr-k3y-1a2b3c4d5e",
    ),
    (
        "SendGrid key",
        "mail 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",
        "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
    ),
    (
        "npm token",
        "npm npm_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
        "npm_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    ),
    (
        "PyPI token",
        "pypi pypi-AgEIcHlwaS5vcmcCJGE3ZjE5YjM4LTkxYWUtNDk5ZC1hNTc5",
        "pypi-AgEIcHlwaS5vcmcCJGE3ZjE5YjM4LTkxYWUtNDk5ZC1hNTc5",
    ),
    (
        "Hugging Face token",
        "hf hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    ),
    (
        "Shopify token",
        "shop shpat_0123456789abcdef0123456789abcdef",
        "shpat_0123456789abcdef0123456789abcdef",
    ),
    (
        "DigitalOcean token",
        "do dop_v1_4f2e8a9b1c3d5e7f9a0b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f2a4b6c8d0e2f4a",
        "dop_v1_4f2e8a9b1c3d5e7f9a0b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f2a4b6c8d0e2f4a",
    ),
    (
        "Vault token",
        "vault hvs.CAESIJlMhJ9kQ2xY7wZ3mN5pR8sT1uV4",
        "hvs.CAESIJlMhJ9kQ2xY7wZ3mN5pR8sT1uV4",
    ),
    (
        "Azure storage key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0g=;EndpointSuffix=core.windows.net",
        "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0g=",
    ),
    (
        "Telegram bot token",
        "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
    ),
    (
        "Twilio auth token",
        "TWILIO_AUTH_TOKEN=9f8e7d6c5b4a39281706f5e4d3c2b1a0",
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ),
    (
        "Discord webhook",
        "https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrSt",
        "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrSt",
    ),
];

/// Serves `body` as text to every request, forever.
fn responder(body: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let url = format!("http://{}/secrets", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Plants a third of the corpus in each place, runs a model that reads all three over real
/// HTTP, and gives the bytes the provider received and the run's artifacts as JSON.
async fn run(filtered: bool) -> (Vec<u8>, String) {
    let folder = tempfile::tempdir().expect("temp dir");
    let (files, rest) = CORPUS.split_at(CORPUS.len() / 3);
    let (records, bodies) = rest.split_at(rest.len() / 2);
    let lines: Vec<&str> = files.iter().map(|(_, text, _)| *text).collect();
    std::fs::write(folder.path().join("secrets.env"), lines.join("\n")).expect("file");
    let database = folder.path().join("vault.db");
    let connection = rusqlite::Connection::open(&database).expect("database");
    connection
        .execute_batch("CREATE TABLE credentials (id INTEGER PRIMARY KEY, form TEXT, secret TEXT);")
        .expect("table");
    for (form, text, _) in records {
        connection
            .execute(
                "INSERT INTO credentials (form, secret) VALUES (?1, ?2)",
                [form, text],
            )
            .expect("row");
    }
    drop(connection);
    let bodies: Vec<&str> = bodies.iter().map(|(_, text, _)| *text).collect();
    let url = responder(bodies.join("\n"));

    let calls = json!([
        {"id": "f", "type": "function", "function": {"name": "read_file", "arguments": json!({"path": "secrets.env", "lines": 200}).to_string()}},
        {"id": "r", "type": "function", "function": {"name": "read_records", "arguments": json!({"table": "credentials", "limit": 50}).to_string()}},
        {"id": "h", "type": "function", "function": {"name": "probe_url", "arguments": json!({"url": url}).to_string()}},
    ]);
    let turn = |message: Value| {
        (
            200,
            Vec::new(),
            json!({"choices": [{"message": message}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}),
        )
    };
    let server = Server::start(vec![
        turn(json!({"role": "assistant", "content": null, "tool_calls": calls})),
        turn(json!({"role": "assistant", "content": "read"})),
    ])
    .await;
    let options = HttpOptions {
        timeout: Duration::from_secs(10),
        ..HttpOptions::default()
    };
    let model =
        OpenAiProvider::from_env_var(KEY_VARIABLE, &format!("{}/v1", server.url), "m", options)
            .expect("provider");
    let mut service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    if filtered {
        service = service.with_content_filter(Arc::new(SecretFilter));
    }
    let context = ToolContext::new()
        .with_extension(WorkspaceRoot::new(folder.path()))
        .with_extension(Database::new(&database))
        .with_extension(NetworkPolicy::allowing(["127.0.0.1"]));
    let request = RunRequest::new("Read the secrets.")
        .with_tools(["read_file", "read_records", "probe_url"])
        .with_context(context);
    let result = service.run(&model, request).await.expect("runs");
    assert_eq!(
        result.termination,
        Termination::Answered,
        "{}",
        result.content
    );
    let calls: Vec<&toolkit::ToolInvocation> = result.trace.invocations().collect();
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|call| !call.is_error()), "{calls:?}");
    let artifacts = calls
        .iter()
        .map(|call| serde_json::to_string(call.artifacts()).expect("json"))
        .collect::<Vec<_>>()
        .join("\n");
    (server.all_bytes(), artifacts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_secret_reaches_the_wire_while_every_artifact_keeps_it() {
    assert!(CORPUS.len() >= 30, "the corpus has {} forms", CORPUS.len());
    let (wire, artifacts) = run(true).await;
    let on_wire: Vec<&str> = CORPUS
        .iter()
        .filter(|(_, _, needle)| {
            let escaped = serde_json::to_string(needle).expect("json");
            contains(&wire, needle.as_bytes())
                || contains(&wire, escaped.trim_matches('"').as_bytes())
        })
        .map(|(form, _, _)| *form)
        .collect();
    assert_eq!(on_wire, Vec::<&str>::new(), "forms on the wire");
    assert!(contains(&wire, b"[REDACTED]"));
    let kept: Vec<&str> = CORPUS
        .iter()
        .filter(|(_, _, needle)| {
            let escaped = serde_json::to_string(needle).expect("json");
            artifacts.contains(escaped.trim_matches('"'))
        })
        .map(|(form, _, _)| *form)
        .collect();
    assert_eq!(
        kept.len(),
        CORPUS.len(),
        "artifacts lost {:?}",
        CORPUS
            .iter()
            .map(|c| c.0)
            .filter(|form| !kept.contains(form))
            .collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_filter_every_planted_secret_reaches_the_wire() {
    let (wire, _) = run(false).await;
    let missing: Vec<&str> = CORPUS
        .iter()
        .filter(|(_, _, needle)| {
            let escaped = serde_json::to_string(needle).expect("json");
            !contains(&wire, escaped.trim_matches('"').as_bytes())
        })
        .map(|(form, _, _)| *form)
        .collect();
    assert_eq!(missing, Vec::<&str>::new(), "planted but not on the wire");
}
