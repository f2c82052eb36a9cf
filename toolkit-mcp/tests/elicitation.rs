//! Approvals by elicitation, with the official Python SDK as the client (its elicitation
//! callback answers the forms) on both revisions: with a session (2025-11-25: the server asks
//! while the call waits) and stateless (2026-07-28: `input_required`, then the retry with the
//! answer). Each choice is tested: approve, deny with a reason, decline, edit (previewed again),
//! no answer in time, approve for the session; and a client that answers no forms is offered no
//! writer. Every decision is in the record. What runs is what the person saw: a preview that
//! changed while the form was open asks again, and the form writes out every character that
//! could make what they read differ from what runs.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::recording::{RunStep, Subscription};
use toolkit::{RunEvent, ToolContext, ToolLoopService};
use toolkit_builtins::{DATABASE_TOOLS, WorkspaceRoot};
use toolkit_mcp::McpToolServer;
use toolkit_testing::mcp::{python, run_client, run_script};

/// How long the user has to answer in these tests.
const TIMEOUT: Duration = Duration::from_secs(2);

/// The builtins without the record tools (no database here), served with the writers on
/// `workspace`, the user given [`TIMEOUT`] to answer: the endpoint's URL.
fn serve(
    runtime: &tokio::runtime::Runtime,
    service: &Arc<ToolLoopService>,
    workspace: &Path,
) -> String {
    let context = ToolContext::new().with_extension(WorkspaceRoot::new(workspace));
    let server = McpToolServer::new(Arc::clone(service), context)
        .expect("no state missing")
        .with_writers()
        .expect("the writers' state is there")
        .with_approval_timeout(TIMEOUT);
    let (bound, address) = std::sync::mpsc::channel::<SocketAddr>();
    runtime.spawn(server.serve_http(0, move |address| {
        bound.send(address).expect("the test waits");
    }));
    let address = address.recv().expect("the server binds");
    format!("http://{address}{}", toolkit_mcp::HTTP_PATH)
}

/// What each test needs: the Python SDK, the server (on the runtime that serves it) and its
/// workspace.
struct Setup {
    python: PathBuf,
    /// Serves while it lives.
    _runtime: tokio::runtime::Runtime,
    service: Arc<ToolLoopService>,
    workspace: tempfile::TempDir,
    url: String,
}

/// The setup, where the Python SDK is (in the full tier).
fn setup() -> Option<Setup> {
    let python = python()?;
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let service = service();
    let workspace = tempfile::tempdir().expect("a workspace");
    let url = serve(&runtime, &service, workspace.path());
    Some(Setup {
        python,
        _runtime: runtime,
        service,
        workspace,
        url,
    })
}

fn service() -> Arc<ToolLoopService> {
    let mut registry = toolkit_builtins::registry().expect("no duplicates");
    registry.retain(|spec| !DATABASE_TOOLS.contains(&spec.name()));
    Arc::new(ToolLoopService::new(registry))
}

/// An `edit_file` call replacing `old` with `new` in `notes.txt`.
fn edit(old: &str, new: &str) -> Value {
    json!({"name": "edit_file", "arguments": {"path": "notes.txt", "edits": [{"old_text": old, "new_text": new}]}})
}

fn accept(content: &Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// The text of each reply, and whether it is an error.
fn replies(output: &Value) -> Vec<(String, bool)> {
    output["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .map(|call| {
            let content = call["content"].as_array().expect("blocks");
            assert_eq!(content.len(), 1, "{call}");
            (
                content[0]["text"].as_str().expect("text").to_owned(),
                call["is_error"].as_bool().expect("a flag"),
            )
        })
        .collect()
}

/// Each decision step's decisions, as `tool:decision[:reason]`, in order.
fn decisions(events: &mut Subscription) -> Vec<String> {
    let mut seen = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let RunEvent::StepFinished { step, .. } = &*event
            && let RunStep::Resumed { decisions, .. } | RunStep::Decided { decisions, .. } = step
        {
            for decision in decisions {
                let recorded = serde_json::to_value(decision).expect("JSON");
                let mut text = format!(
                    "{}:{}:{}",
                    recorded["tool"].as_str().unwrap_or_default(),
                    recorded["by"].as_str().unwrap_or_default(),
                    recorded["decision"].as_str().unwrap_or_default()
                );
                if let Some(reason) = recorded["reason"].as_str() {
                    text.push(':');
                    text.push_str(reason);
                }
                seen.push(text);
            }
        }
    }
    seen
}

/// The diff `preview_edit` shows for replacing `old` with `new` in a file that holds `text`.
fn diff(workspace: &Path, text: &str, old: &str, new: &str) -> String {
    std::fs::write(workspace.join("notes.txt"), text).expect("write");
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicates"));
    let context = ToolContext::new().with_extension(WorkspaceRoot::new(workspace));
    let scope = service.scope(context).expect("a scope");
    let arguments = edit(old, new)["arguments"].to_string();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime
        .block_on(service.invoke(&scope, "preview_edit", &arguments))
        .content()
        .to_owned()
}

#[test]
fn each_choice_over_elicitation_decides_the_call_on_either_revision() {
    let Some(setup) = setup() else {
        return;
    };
    let preview = diff(setup.workspace.path(), "one\ntwo\n", "two", "2");
    let edited_preview = diff(setup.workspace.path(), "one\ntwo\n", "one", "1");

    for mode in ["legacy", "2026-07-28"] {
        let mut events = setup.service.subscribe();
        std::fs::write(setup.workspace.path().join("notes.txt"), "one\ntwo\n").expect("write");
        let script = json!({
            "calls": [edit("two", "2"), edit("two", "2"), edit("two", "2"), edit("two", "2")],
            "answers": [
                accept(&json!({"decision": "deny", "reason": "keep the words"})),
                {"action": "decline"},
                accept(&json!({"decision": "edit", "arguments": edit("one", "1")["arguments"].to_string()})),
                accept(&json!({"decision": "approve"})),
                accept(&json!({"decision": "approve"})),
            ],
        });
        let (output, _) = run_script(&setup.python, "approver.py", &[&setup.url, mode], &script);
        let revision = if mode == "legacy" {
            "2025-11-25"
        } else {
            "2026-07-28"
        };
        assert_eq!(output["protocol_version"], revision);
        assert!(
            output["tools"]
                .as_array()
                .is_some_and(|tools| tools.iter().any(|tool| tool == "edit_file")),
            "{mode}: {}",
            output["tools"]
        );
        let written =
            std::fs::read_to_string(setup.workspace.path().join("notes.txt")).expect("read");
        let replies = replies(&output);
        assert_eq!(replies[0], ("keep the words".to_owned(), true), "{mode}");
        assert_eq!(
            replies[1],
            (
                "Error: tool \"edit_file\" was denied by the operator.".to_owned(),
                true
            ),
            "{mode}"
        );
        // The edit ran with the person's arguments, after they saw its own preview; the last
        // call was approved as asked.
        assert!(!replies[2].1 && !replies[3].1, "{mode}: {replies:?}");
        assert_eq!(written, "1\n2\n", "{mode}");

        let forms = output["forms"].as_array().expect("forms");
        assert_eq!(forms.len(), 5, "{mode}");
        let message = forms[0]["message"].as_str().expect("a message");
        assert_eq!(
            message,
            format!(
                "Approve this call of tool \"edit_file\"?\n\nArguments:\n{}\n\nWhat it would do:\n{preview}\n",
                edit("two", "2")["arguments"]
            ),
            "{mode}"
        );
        let again = forms[3]["message"].as_str().expect("a message");
        assert!(
            again.ends_with(&format!("What it would do:\n{edited_preview}\n")),
            "{again}"
        );
        let offered: Vec<&str> = forms[0]["schema"]["properties"]["decision"]["oneOf"]
            .as_array()
            .expect("choices")
            .iter()
            .map(|choice| choice["const"].as_str().expect("a value"))
            .collect();
        let mut expected = vec!["approve", "deny", "edit"];
        if mode == "legacy" {
            expected.push("approve_for_session");
        }
        assert_eq!(offered, expected, "{mode}");
        assert_eq!(
            decisions(&mut events),
            [
                "edit_file:operator:denied:keep the words",
                "edit_file:operator:denied",
                "edit_file:operator:edited",
                "edit_file:operator:approved",
                "edit_file:operator:approved",
            ],
            "{mode}"
        );
    }
}

#[test]
fn no_answer_in_time_is_no_approval_and_a_session_approval_lasts_the_session() {
    let Some(setup) = setup() else {
        return;
    };
    let late = json!({"sleep": TIMEOUT.as_secs_f64() + 1.0, "then": accept(&json!({"decision": "approve"}))});
    for mode in ["legacy", "2026-07-28"] {
        let mut events = setup.service.subscribe();
        std::fs::write(setup.workspace.path().join("notes.txt"), "one\ntwo\n").expect("write");
        let script = json!({"calls": [edit("two", "2")], "answers": [late]});
        let (output, _) = run_script(&setup.python, "approver.py", &[&setup.url, mode], &script);
        assert_eq!(
            replies(&output),
            [(
                "Error: tool \"edit_file\" requires approval that was not given.".to_owned(),
                true
            )],
            "{mode}"
        );
        let written =
            std::fs::read_to_string(setup.workspace.path().join("notes.txt")).expect("read");
        assert_eq!(written, "one\ntwo\n", "{mode}");
        assert_eq!(decisions(&mut events), ["edit_file:operator:not_decided"]);
    }

    // Approved for the session: the next call of the tool in it runs without a form; a new
    // session is asked again.
    let mut events = setup.service.subscribe();
    std::fs::write(setup.workspace.path().join("notes.txt"), "one\ntwo\n").expect("write");
    let script = json!({
        "calls": [edit("one", "1"), edit("two", "2")],
        "answers": [accept(&json!({"decision": "approve_for_session"}))],
    });
    let (output, _) = run_script(
        &setup.python,
        "approver.py",
        &[&setup.url, "legacy"],
        &script,
    );
    assert_eq!(output["forms"].as_array().map(Vec::len), Some(1));
    assert!(replies(&output).iter().all(|(_, error)| !error));
    let written = std::fs::read_to_string(setup.workspace.path().join("notes.txt")).expect("read");
    assert_eq!(written, "1\n2\n");
    let script = json!({"calls": [edit("1", "one")], "answers": [{"action": "cancel"}]});
    let (output, _) = run_script(
        &setup.python,
        "approver.py",
        &[&setup.url, "legacy"],
        &script,
    );
    assert_eq!(output["forms"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        replies(&output),
        [(
            "Error: tool \"edit_file\" was denied by the operator.".to_owned(),
            true
        )]
    );
    assert_eq!(
        decisions(&mut events),
        [
            "edit_file:operator:approved_for_run",
            "edit_file:approved_for_run:approved",
            "edit_file:operator:denied",
        ]
    );
}

#[test]
fn a_client_that_answers_no_forms_is_offered_no_writer() {
    let Some(setup) = setup() else {
        return;
    };
    std::fs::write(setup.workspace.path().join("notes.txt"), "one\ntwo\n").expect("write");
    for mode in ["legacy", "2026-07-28"] {
        let (output, _) = run_client(
            &setup.python,
            &["http", &setup.url, mode],
            &json!([edit("two", "2")]),
        );
        let tools: Vec<&str> = output["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|tool| tool["name"].as_str().expect("a name"))
            .collect();
        assert!(
            tools.contains(&"read_file") && !tools.contains(&"edit_file"),
            "{tools:?}"
        );
        assert_eq!(
            output["calls"][0]["content"],
            json!([{"type": "text", "text": "Error: tool \"edit_file\" not permitted"}]),
            "{mode}"
        );
    }
    let written = std::fs::read_to_string(setup.workspace.path().join("notes.txt")).expect("read");
    assert_eq!(written, "one\ntwo\n");
}

#[test]
fn other_tools_run_without_a_form_and_a_call_takes_at_most_eight_forms() {
    let Some(setup) = setup() else {
        return;
    };
    // Arguments that never pass the tool's checks, answered again and again.
    let never = accept(&json!({"decision": "edit", "arguments": "not JSON"}));
    for mode in ["legacy", "2026-07-28"] {
        std::fs::write(setup.workspace.path().join("notes.txt"), "one\ntwo\n").expect("write");
        let script = json!({
            "calls": [
                {"name": "read_file", "arguments": {"path": "notes.txt"}},
                edit("two", "2"),
            ],
            "answers": vec![never.clone(); 10],
        });
        let (output, _) = run_script(&setup.python, "approver.py", &[&setup.url, mode], &script);
        let replies = replies(&output);
        assert!(
            !replies[0].1 && replies[0].0.contains("two"),
            "{mode}: {replies:?}"
        );
        assert_eq!(
            replies[1],
            (
                "Error: tool \"edit_file\" requires approval that was not given.".to_owned(),
                true
            ),
            "{mode}"
        );
        let forms = output["forms"].as_array().expect("forms");
        assert_eq!(forms.len(), 8, "{mode}");
        let last = forms[7]["message"].as_str().expect("a message");
        assert!(
            last.starts_with(
                "Those arguments were not taken: Error: invalid arguments for tool \"edit_file\""
            ),
            "{mode}: {last}"
        );
        let written =
            std::fs::read_to_string(setup.workspace.path().join("notes.txt")).expect("read");
        assert_eq!(written, "one\ntwo\n", "{mode}");
    }
}

#[test]
fn an_edit_whose_preview_changed_while_its_form_was_open_is_asked_about_again() {
    let Some(setup) = setup() else {
        return;
    };
    let notes = setup.workspace.path().join("notes.txt");
    // The chain the model drives alone on a session: the person approves write_file for the
    // session; the model calls edit_file, whose form shows `x = 1` becoming `x = 2`; while the
    // form is open, the model calls write_file (no form: approved) to make the file
    // `allow_all = 1`; the person approves what they saw.
    std::fs::write(&notes, "x = 1\n").expect("write");
    let overwrite = |content: &str| json!({"name": "write_file", "arguments": {"path": "notes.txt", "content": content, "overwrite": true}});
    let mut events = setup.service.subscribe();
    let script = json!({
        "calls": [overwrite("x = 1\n"), edit("1", "2")],
        "answers": [
            accept(&json!({"decision": "approve_for_session"})),
            {"call": overwrite("allow_all = 1\n"), "then": accept(&json!({"decision": "approve"}))},
            accept(&json!({"decision": "deny", "reason": "not that"})),
        ],
    });
    let (output, _) = run_script(
        &setup.python,
        "approver.py",
        &[&setup.url, "legacy"],
        &script,
    );
    assert_eq!(
        std::fs::read_to_string(&notes).expect("read"),
        "allow_all = 1\n",
        "the approval of what was shown ran nothing else"
    );
    assert_eq!(output["meanwhile"][0]["is_error"], false, "{output}");
    let forms = output["forms"].as_array().expect("forms");
    assert_eq!(forms.len(), 3, "{output}");
    let again = forms[2]["message"].as_str().expect("a message");
    let now = diff(setup.workspace.path(), "allow_all = 1\n", "1", "2");
    assert_eq!(
        again,
        format!(
            "What this call would do changed after you were shown it, so it was not run. This \
             is what it would do now.\n\nApprove this call of tool \"edit_file\"?\n\n\
             Arguments:\n{}\n\nWhat it would do:\n{now}\n",
            edit("1", "2")["arguments"]
        )
    );
    assert_eq!(replies(&output)[1], ("not that".to_owned(), true));
    assert_eq!(
        decisions(&mut events),
        [
            "write_file:operator:approved_for_run",
            "write_file:approved_for_run:approved",
            "edit_file:operator:preview_changed",
            "edit_file:operator:denied:not that",
        ]
    );

    // Statelessly, another writer changes the file while the client holds the form: the retry
    // with the approval gets the form again, with what the edit would do now.
    std::fs::write(&notes, "x = 1\n").expect("write");
    let path = notes.to_str().expect("a UTF-8 path");
    let script = json!({
        "calls": [edit("1", "2")],
        "answers": [
            {"write": {"path": path, "text": "allow_all = 1\n"}, "then": accept(&json!({"decision": "approve"}))},
            accept(&json!({"decision": "approve"})),
        ],
    });
    let (output, _) = run_script(
        &setup.python,
        "approver.py",
        &[&setup.url, "2026-07-28"],
        &script,
    );
    let forms = output["forms"].as_array().expect("forms");
    assert_eq!(forms.len(), 2, "{output}");
    assert!(
        forms[1]["message"]
            .as_str()
            .is_some_and(|message| message.starts_with("What this call would do changed")),
        "{output}"
    );
    // Approved as it was shown the second time, it ran.
    assert_eq!(
        std::fs::read_to_string(&notes).expect("read"),
        "allow_all = 2\n"
    );
}

#[test]
fn a_form_writes_out_every_character_of_a_bidi_edit_on_both_sides_of_its_diff() {
    let Some(setup) = setup() else {
        return;
    };
    let notes = setup.workspace.path().join("notes.txt");
    for mode in ["legacy", "2026-07-28"] {
        std::fs::write(&notes, "one\ntwo\n").expect("write");
        // `t`, a right-to-left override, `ow`: shown as it is, it reads like `two`.
        let script = json!({
            "calls": [edit("two", "t\u{202e}ow")],
            "answers": [accept(&json!({"decision": "deny"}))],
        });
        let (output, _) = run_script(&setup.python, "approver.py", &[&setup.url, mode], &script);
        let message = output["forms"][0]["message"].as_str().expect("a message");
        assert!(
            message.starts_with(toolkit::approval::HIDDEN_WARNING),
            "{mode}: {message}"
        );
        assert!(
            message.contains("\"new_text\":\"t⟨U+202E⟩ow\""),
            "{mode}: {message}"
        );
        assert!(
            message.contains("\n-two\n+t⟨U+202E⟩ow\n"),
            "{mode}: {message}"
        );
        assert!(!message.contains('\u{202e}'), "{mode}: {message}");
        // The field to edit starts from the same call, its override escaped.
        let default = &output["forms"][0]["schema"]["properties"]["arguments"]["default"];
        assert_eq!(
            default.as_str().map(|text| text.contains(r"t\u202eow")),
            Some(true),
            "{mode}: {default}"
        );
        assert_eq!(
            std::fs::read_to_string(&notes).expect("read"),
            "one\ntwo\n",
            "{mode}"
        );
    }
}
