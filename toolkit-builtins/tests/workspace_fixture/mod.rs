//! A temporary workspace with known files, a `.gitignore`, links inside and out, and a folder
//! outside the root holding a secret, plus helpers to call tools through the seam.

#![allow(dead_code)] // each test crate uses a part

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tempfile::TempDir;
use toolkit::{RunScope, ToolContext, ToolLoopService};

#[path = "../operator/mod.rs"]
pub mod operator;

/// 2024-01-02T03:04:05Z, the modification time of every fixture file.
pub const MODIFIED: &str = "2024-01-02T03:04:05Z";
const MODIFIED_UNIX: u64 = 1_704_164_645;

/// Files of the workspace, relative path and content.
pub const FILES: &[(&str, &str)] = &[
    ("README.md", "# Sample\nA small workspace.\n"),
    ("notes.txt", "alpha\nbeta\ngamma\ndelta\nepsilon\n"),
    (".gitignore", "ignored.txt\nbuild/\n"),
    ("ignored.txt", "needle in an ignored file\n"),
    ("build/out.txt", "needle in an ignored folder\n"),
    (
        "data/people.csv",
        "name,age,city\nAda,36,London\nGrace,45,Arlington\nLinus,28,Helsinki\n",
    ),
    (
        "data/config.json",
        "{\"name\":\"demo\",\"servers\":[{\"host\":\"a.example\",\"port\":80},{\"host\":\"b.example\",\"port\":8080}],\"debug\":false}\n",
    ),
    (
        "logs/app.log",
        "2024-01-02 03:00:00 INFO started by ada@example.com\n\
         2024-01-02 03:00:01 DEBUG cache warm\n\
         2024-01-02 03:00:02 WARN slow response token=abcd1234efgh5678ijkl\n\
         2024-01-02 03:00:03 ERROR failed to reach db password=hunter2\n\
         2024-01-02 03:00:04 INFO done\n",
    ),
    (
        "nested/deep/needle.txt",
        "a needle here\nno match\nNEEDLE again\n",
    ),
];

/// The workspace root, the folder outside it, and the seam to call tools through.
pub struct Fixture {
    _temp: TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
    pub service: ToolLoopService,
    pub scope: RunScope,
    context: ToolContext,
}

/// One call's outcome, read back.
#[derive(Debug)]
pub struct Outcome {
    pub content: String,
    pub is_error: bool,
    pub artifacts: Vec<toolkit::ToolArtifact>,
}

impl Outcome {
    /// A result of the seam, read back.
    pub fn of(result: toolkit::BoundedResult) -> Self {
        let (content, is_error, artifacts) = result.into_parts();
        Self {
            content: content.as_str().to_owned(),
            is_error,
            artifacts,
        }
    }

    /// The only artifact, as a table of texts: columns and rows (a NULL cell fails the test).
    pub fn table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        assert_eq!(self.artifacts.len(), 1, "{self:?}");
        texts(self.artifacts[0].as_table().expect("a table artifact"))
    }

    /// The table artifact labelled `label`, as [`table`](Self::table) gives it.
    pub fn table_labelled(&self, label: &str) -> (Vec<String>, Vec<Vec<String>>) {
        texts(
            self.labelled(label)
                .as_table()
                .unwrap_or_else(|| panic!("a table {label}: {self:?}")),
        )
    }

    /// The text artifact labelled `label`.
    pub fn text_labelled(&self, label: &str) -> &str {
        self.labelled(label)
            .as_text()
            .unwrap_or_else(|| panic!("a text {label}: {self:?}"))
    }

    fn labelled(&self, label: &str) -> &toolkit::ToolArtifact {
        self.artifacts
            .iter()
            .find(|artifact| artifact.label() == label)
            .unwrap_or_else(|| panic!("an artifact {label}: {self:?}"))
    }

    /// Asserts a result that is not an error (artifacts or not) and returns its content.
    pub fn ok(&self) -> &str {
        assert!(!self.is_error, "{self:?}");
        &self.content
    }

    /// The label of the only artifact.
    pub fn label(&self) -> &str {
        assert_eq!(self.artifacts.len(), 1, "{self:?}");
        self.artifacts[0].label()
    }

    /// Asserts a text result without artifacts and returns its content.
    pub fn text(&self) -> &str {
        assert!(!self.is_error, "{self:?}");
        assert!(self.artifacts.is_empty(), "{self:?}");
        &self.content
    }

    /// Asserts an error result and returns its content.
    pub fn error(&self) -> &str {
        assert!(self.is_error, "{self:?}");
        &self.content
    }
}

/// A table's columns and rows, every cell a text (a NULL cell fails the test).
fn texts(table: &toolkit::Table) -> (Vec<String>, Vec<Vec<String>>) {
    let rows = table
        .rows()
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| cell.as_text().expect("a text cell").to_owned())
                .collect()
        })
        .collect();
    (table.columns().to_vec(), rows)
}

fn write(root: &Path, relative: &str, content: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().expect("a parent")).expect("create folders");
    fs::write(&path, content).expect("write a fixture file");
    let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(MODIFIED_UNIX);
    fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|file| file.set_modified(modified))
        .expect("set the modification time");
}

impl Fixture {
    /// The workspace, offering every tool to a non-admin run.
    pub fn new() -> Self {
        Self::with_context(|context| context)
    }

    /// The workspace, with the context adjusted (admin rights, extensions).
    pub fn with_context(adjust: impl FnOnce(ToolContext) -> ToolContext) -> Self {
        let temp = tempfile::tempdir().expect("a temporary folder");
        let root = temp.path().join("workspace");
        let outside = temp.path().join("outside");
        fs::create_dir_all(&root).expect("the root");
        for (relative, content) in FILES {
            write(&root, relative, content);
        }
        write(&outside, "secret.txt", "TOP SECRET needle\n");
        fs::create_dir_all(root.join("empty")).expect("an empty folder");
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink("nested", root.join("inside_link")).expect("a link inside");
            symlink(&outside, root.join("outside_link")).expect("a folder link out");
            symlink(outside.join("secret.txt"), root.join("leak.txt")).expect("a file link out");
            symlink("../outside/secret.txt", root.join("rel_leak.txt"))
                .expect("a relative link out");
        }
        let service =
            ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
        let context =
            adjust(ToolContext::new().with_extension(toolkit_builtins::WorkspaceRoot::new(&root)));
        let scope = service
            .scope_offering(context.clone(), service.registry().names())
            .unwrap();
        Self {
            _temp: temp,
            root,
            outside,
            service,
            scope,
            context,
        }
    }

    /// Calls a tool through the seam; one that requires approval, as an operator approves it.
    pub async fn call(&self, name: &str, arguments: Value) -> Outcome {
        if self.requires_approval(name) {
            return approved(&self.service, self.context.clone(), name, &arguments).await;
        }
        Outcome::of(
            self.service
                .invoke(&self.scope, name, &arguments.to_string())
                .await,
        )
    }

    fn requires_approval(&self, name: &str) -> bool {
        self.service
            .registry()
            .get(name)
            .is_some_and(|tool| tool.spec().flags().requires_approval())
    }

    /// Calls a tool through the seam with no workspace.
    pub async fn call_without_workspace(&self, name: &str, arguments: Value) -> Outcome {
        if self.requires_approval(name) {
            return approved(&self.service, ToolContext::new(), name, &arguments).await;
        }
        let scope = self
            .service
            .scope_offering(ToolContext::new(), self.service.registry().names())
            .unwrap();
        Outcome::of(
            self.service
                .invoke(&scope, name, &arguments.to_string())
                .await,
        )
    }
}

async fn approved(
    service: &ToolLoopService,
    tools_see: ToolContext,
    name: &str,
    arguments: &Value,
) -> Outcome {
    let (content, is_error, artifacts) =
        operator::approved_call(service, tools_see, name, &arguments.to_string()).await;
    Outcome {
        content,
        is_error,
        artifacts,
    }
}

/// Paths that try to leave the root, each with the refusal it gets.
pub fn escape_corpus() -> Vec<(&'static str, String)> {
    let dotdot = |path: &str| {
        format!(
            "Refused: the path \"{path}\" contains `..`; give a path inside the workspace, relative to its root (for example \"src/main.rs\")."
        )
    };
    let outside = |path: &str| {
        format!(
            "Refused: the path \"{path}\" leads outside the workspace (through a link); give a path that stays inside it."
        )
    };
    let mut corpus = vec![
        ("../", dotdot("../")),
        ("..", dotdot("..")),
        ("../../etc/passwd", dotdot("../../etc/passwd")),
        ("data/../../outside/secret.txt", dotdot("data/../../outside/secret.txt")),
        (
            "/etc/passwd",
            "Refused: the path \"/etc/passwd\" is absolute; give a path relative to the workspace."
                .to_owned(),
        ),
        (
            "C:/Windows/win.ini",
            "Refused: the path \"C:/Windows/win.ini\" is absolute; give a path relative to the workspace."
                .to_owned(),
        ),
        (
            "..\\..\\etc\\passwd",
            "Refused: the path \"..\\..\\etc\\passwd\" contains `\\`; separate folders with `/`."
                .to_owned(),
        ),
        (
            "notes.txt\0",
            "Refused: the path \"notes.txt\\0\" contains a NUL byte; give the path without it."
                .to_owned(),
        ),
    ];
    if cfg!(unix) {
        corpus.extend([
            (
                "outside_link/secret.txt",
                outside("outside_link/secret.txt"),
            ),
            ("outside_link", outside("outside_link")),
            ("leak.txt", outside("leak.txt")),
            ("rel_leak.txt", outside("rel_leak.txt")),
            (
                "inside_link/../../outside/secret.txt",
                dotdot("inside_link/../../outside/secret.txt"),
            ),
        ]);
    }
    corpus
}

/// Asserts that every escape path is refused by the tool called with `arguments(path)`.
pub async fn assert_escapes_refused(
    fixture: &Fixture,
    tool: &str,
    arguments: impl Fn(&str) -> Value,
) {
    for (path, refusal) in escape_corpus() {
        let outcome = fixture.call(tool, arguments(path)).await;
        assert_eq!(
            (
                outcome.content.as_str(),
                outcome.is_error,
                outcome.artifacts.len()
            ),
            (refusal.as_str(), true, 0),
            "{tool} with {path:?}"
        );
        assert!(
            !outcome.content.contains("TOP SECRET"),
            "{tool} with {path:?}"
        );
    }
}
