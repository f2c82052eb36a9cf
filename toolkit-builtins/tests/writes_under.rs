//! The `WritesUnder` policy in a real loop over a real workspace: writes beneath its folders run
//! without a question and say why; every other call waits for the operator, whatever the model
//! tries (a look-alike folder, `..`, the folder itself, a link inside the folder that leads out,
//! a whole folder moved).

use std::fs;
use std::os::unix::fs::symlink;

use serde_json::{Value, json};
use toolkit::provider::ScriptedProvider;
use toolkit::{
    RunRequest, ToolContext, ToolLoopService,
    recording::{RunStep, Termination},
};
use toolkit_builtins::WorkspaceRoot;
use toolkit_builtins::policies::WritesUnder;

const WRITERS: [&str; 7] = [
    "write_file",
    "append_file",
    "edit_file",
    "create_directory",
    "delete_path",
    "move_path",
    "copy_path",
];

#[test]
fn folders_must_lie_inside_the_workspace() {
    for (folders, error) in [
        (
            vec!["."],
            "the folder \".\" is the whole workspace: name a folder inside it",
        ),
        (
            vec!["notes", ""],
            "the folder \"\" is the whole workspace: name a folder inside it",
        ),
        (
            vec!["/etc"],
            "the folder \"/etc\" is not one inside the workspace: Refused: the path \"/etc\" is absolute; give a path relative to the workspace.",
        ),
        (vec![], "name at least one folder"),
    ] {
        assert_eq!(WritesUnder::new(folders).unwrap_err(), error);
    }
    assert_eq!(
        WritesUnder::new(["./notes/", "a//b"]).unwrap().to_string(),
        "writes under notes/, a/b/"
    );
}

/// A workspace with notes (a folder, files, a link into `src/` and one to a file in it), `src/`
/// and a look-alike `notesx/`.
fn workspace() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    fs::create_dir_all(root.join("notes/dir")).unwrap();
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(root.join("notesx")).unwrap();
    fs::write(root.join("notes/old.txt"), "old").unwrap();
    fs::write(root.join("notes/a.md"), "one two").unwrap();
    fs::write(root.join("notes/keep.md"), "kept").unwrap();
    fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
    symlink("../src", root.join("notes/to-src")).unwrap();
    symlink("../src/main.rs", root.join("notes/main.rs")).unwrap();
    workspace
}

/// The model's turn: four calls the policy approves (`ok..`), then ten it leaves to the operator.
fn turn() -> Vec<Value> {
    let calls = [
        // Approved: beneath notes/, no link on the way.
        (
            "ok1",
            "write_file",
            json!({"path": "notes/new.txt", "content": "hi"}),
        ),
        ("ok2", "delete_path", json!({"path": "notes/old.txt"})),
        (
            "ok3",
            "edit_file",
            json!({"path": "notes//a.md", "edits": [{"old_text": "one", "new_text": "1"}]}),
        ),
        (
            "ok4",
            "copy_path",
            json!({"from": "notes/keep.md", "to": "notes/b.md"}),
        ),
        // Asked: elsewhere, or through a link, or not a file writer's path.
        (
            "ask1",
            "write_file",
            json!({"path": "src/new.rs", "content": "x"}),
        ),
        (
            "ask2",
            "write_file",
            json!({"path": "notesx/a.txt", "content": "x"}),
        ),
        (
            "ask3",
            "write_file",
            json!({"path": "notes/../src/x.rs", "content": "x"}),
        ),
        ("ask4", "delete_path", json!({"path": "notes"})),
        (
            "ask5",
            "write_file",
            json!({"path": "notes/to-src/x.rs", "content": "x"}),
        ),
        (
            "ask6",
            "append_file",
            json!({"path": "notes/main.rs", "content": "x"}),
        ),
        (
            "ask7",
            "move_path",
            json!({"from": "notes/a.md", "to": "src/a.md"}),
        ),
        (
            "ask8",
            "move_path",
            json!({"from": "notes/dir", "to": "notes/dir2"}),
        ),
        (
            "ask9",
            "copy_path",
            json!({"from": "src/main.rs", "to": "notes/main-copy.rs"}),
        ),
        (
            "ask10",
            "write_file",
            json!({"path": "/notes/x", "content": "x"}),
        ),
    ];
    calls
        .iter()
        .map(|(id, name, arguments)| json!({"id": id, "name": name, "arguments": arguments}))
        .collect()
}

#[tokio::test]
async fn writes_beneath_the_folders_need_no_question_and_everything_else_waits() {
    let workspace = workspace();
    let root = workspace.path();
    let turn = turn();
    let script = json!({"turns": [{"tool_calls": turn}, {"content": "done"}]});
    let provider = ScriptedProvider::from_json(&script.to_string()).unwrap();
    let service = ToolLoopService::new(toolkit_builtins::registry().unwrap())
        .with_approval_policy(WritesUnder::new(["notes"]).unwrap());
    let request = RunRequest::new("tidy the notes")
        .with_tools(WRITERS)
        .with_context(ToolContext::new().with_extension(WorkspaceRoot::new(root)));
    let result = service.run(&provider, request).await.unwrap();

    assert_eq!(result.termination, Termination::Suspended);
    let pending: Vec<&str> = result
        .suspension
        .as_ref()
        .unwrap()
        .pending
        .iter()
        .map(toolkit::ToolCall::id)
        .collect();
    assert_eq!(
        pending,
        [
            "ask1", "ask2", "ask3", "ask4", "ask5", "ask6", "ask7", "ask8", "ask9", "ask10"
        ]
    );
    let decided: Vec<Value> = result
        .trace
        .steps()
        .iter()
        .filter_map(|step| match step {
            RunStep::Decided { decisions, .. } => Some(serde_json::to_value(decisions).unwrap()),
            _ => None,
        })
        .collect();
    let policy = |id: &str, tool: &str, why: &str| json!({"call_id": id, "tool": tool, "by": "policy", "policy": "writes-under", "why": why, "decision": "approved"});
    assert_eq!(
        decided,
        [json!([
            policy(
                "ok1",
                "write_file",
                "write_file: notes/new.txt is under notes/"
            ),
            policy(
                "ok2",
                "delete_path",
                "delete_path: notes/old.txt is under notes/"
            ),
            policy("ok3", "edit_file", "edit_file: notes/a.md is under notes/"),
            policy(
                "ok4",
                "copy_path",
                "copy_path: notes/keep.md is under notes/, notes/b.md is under notes/"
            ),
        ])]
    );
    // They ran; nothing else changed.
    assert_eq!(
        fs::read_to_string(root.join("notes/new.txt")).unwrap(),
        "hi"
    );
    assert!(!root.join("notes/old.txt").exists());
    assert_eq!(
        fs::read_to_string(root.join("notes/a.md")).unwrap(),
        "1 two"
    );
    assert_eq!(fs::read_to_string(root.join("notes/b.md")).unwrap(), "kept");
    assert_eq!(
        fs::read_to_string(root.join("src/main.rs")).unwrap(),
        "fn main() {}"
    );
    assert_eq!(
        fs::read_dir(root.join("src")).unwrap().count(),
        1,
        "nothing was written in src/"
    );
    assert!(root.join("notes/dir").is_dir());
}
