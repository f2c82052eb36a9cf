//! An OTLP/HTTP receiver for the tests (`otlp_receiver.py`, on Python's `opentelemetry-proto`
//! in target/mcp-venv, which `scripts/test` installs) and readers of what it decoded.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::venv;

/// The receiver process; killed when dropped.
pub struct Receiver {
    child: Child,
    /// The port it listens on, on 127.0.0.1.
    pub port: u16,
    /// The file it writes each decoded request to, a JSON line each.
    pub out: PathBuf,
    _folder: tempfile::TempDir,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The venv's interpreter when it can decode OTLP (`opentelemetry-proto`).
pub fn python() -> Option<PathBuf> {
    venv::python_importing(
        "from opentelemetry.proto.collector.trace.v1 import trace_service_pb2",
        |python| {
            format!(
                "{} cannot import opentelemetry-proto (./scripts/test installs it)",
                python.display()
            )
        },
    )
}

/// A receiver started with `python`, listening on a free port of 127.0.0.1.
pub fn receiver(python: &Path) -> Receiver {
    let folder = tempfile::tempdir().expect("temp dir");
    let out = folder.path().join("spans.jsonl");
    let mut child = Command::new(python)
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../toolkit-audit/tests/support/otlp_receiver.py"),
        )
        .arg(&out)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the receiver starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("its port");
    Receiver {
        port: line.trim().parse().expect("a port"),
        child,
        out,
        _folder: folder,
    }
}

/// Every span received, with its resource's attributes.
pub fn spans(receiver: &Receiver) -> Vec<(Value, Value)> {
    let text = std::fs::read_to_string(&receiver.out).expect("exports received");
    let mut spans = Vec::new();
    for line in text.lines() {
        let export: Value = serde_json::from_str(line).expect("JSON");
        assert_eq!(export["path"], json!("/v1/traces"));
        for resource in export["request"]["resourceSpans"]
            .as_array()
            .expect("spans")
        {
            for scope in resource["scopeSpans"].as_array().expect("scopes") {
                for span in scope["spans"].as_array().expect("spans") {
                    spans.push((resource["resource"].clone(), span.clone()));
                }
            }
        }
    }
    spans
}

/// A span's attributes as `key: value` (the OTLP `AnyValue` as decoded).
pub fn attributes(span: &Value) -> serde_json::Map<String, Value> {
    span["attributes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|attribute| {
            (
                attribute["key"].as_str().expect("a key").to_owned(),
                attribute["value"].clone(),
            )
        })
        .collect()
}
