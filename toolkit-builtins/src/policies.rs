//! Approval policies for the builtin writers: rules, written as code, that answer for calls an
//! operator would otherwise be asked about (see [`toolkit::approval::ApprovalPolicy`]).

use std::fmt;
use std::path::Path;

use toolkit::approval::{ApprovalPolicy, PendingCall, PolicyAnswer};

use crate::workspace::{RelativePath, Workspace};

/// The file writers and the arguments each names a path with; a call of any other tool is not
/// this policy's to answer.
const PATH_ARGUMENTS: &[(&str, &[&str])] = &[
    ("write_file", &["path"]),
    ("append_file", &["path"]),
    ("edit_file", &["path"]),
    ("create_directory", &["path"]),
    ("delete_path", &["path"]),
    ("move_path", &["from", "to"]),
    ("copy_path", &["from", "to"]),
];

/// Writes under these workspace folders need no question: a call of a file writer
/// (`write_file`, `append_file`, `edit_file`, `create_directory`, `delete_path`, `move_path`,
/// `copy_path`) is approved when every path it names lies beneath one of the folders, as written
/// and on disk: no link on its way (the last part included), since a link could lead anywhere.
/// Anything else (another tool, a path elsewhere, the folder itself, a link, moving a whole
/// folder, which could bring links along, a run without a workspace) is asked about as usual.
/// The policy never denies.
///
/// Since no call it approves can put a link in place, calls it approves in one turn cannot
/// turn each other's paths elsewhere.
///
/// ```
/// use toolkit_builtins::policies::WritesUnder;
///
/// let policy = WritesUnder::new(["notes", "drafts/2026"]).expect("folders in the workspace");
/// assert_eq!(policy.to_string(), "writes under notes/, drafts/2026/");
/// assert_eq!(
///     WritesUnder::new([".."]).unwrap_err(),
///     "the folder \"..\" is not one inside the workspace: Refused: the path \"..\" contains `..`; give a path inside the workspace, relative to its root (for example \"src/main.rs\")."
/// );
/// ```
#[derive(Clone, Debug)]
pub struct WritesUnder {
    folders: Vec<RelativePath>,
}

impl WritesUnder {
    /// The policy for these folders, relative to the workspace root. A folder that is not a
    /// plain path inside the workspace (absolute, with `..`, or the root itself, which would
    /// approve every write) is refused with the reason.
    pub fn new<I, S>(folders: I) -> Result<Self, String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut parsed = Vec::new();
        for folder in folders {
            let folder = folder.as_ref();
            let path = RelativePath::parse(folder).map_err(|refusal| {
                format!(
                    "the folder {folder:?} is not one inside the workspace: {}",
                    refusal.content()
                )
            })?;
            if path.is_root() {
                return Err(format!(
                    "the folder {folder:?} is the whole workspace: name a folder inside it"
                ));
            }
            parsed.push(path);
        }
        if parsed.is_empty() {
            return Err("name at least one folder".to_owned());
        }
        Ok(Self { folders: parsed })
    }

    /// The folder `path` lies beneath, as written.
    fn folder_of(&self, path: &RelativePath) -> Option<&RelativePath> {
        self.folders.iter().find(|folder| {
            path.as_path().starts_with(folder.as_path()) && path.as_path() != folder.as_path()
        })
    }
}

impl fmt::Display for WritesUnder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("writes under ")?;
        for (position, folder) in self.folders.iter().enumerate() {
            if position > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}/", folder.shown())?;
        }
        Ok(())
    }
}

impl ApprovalPolicy for WritesUnder {
    fn name(&self) -> &'static str {
        "writes-under"
    }

    fn decide(&self, pending: &PendingCall<'_>) -> PolicyAnswer {
        let call = pending.call;
        let Some((_, names)) = PATH_ARGUMENTS.iter().find(|(tool, _)| *tool == call.name()) else {
            return PolicyAnswer::Ask;
        };
        let Ok(arguments) = serde_json::from_str::<serde_json::Value>(call.arguments()) else {
            return PolicyAnswer::Ask;
        };
        let Ok(workspace) = Workspace::open(pending.context) else {
            return PolicyAnswer::Ask;
        };
        let mut shown = Vec::new();
        for name in *names {
            let Some(raw) = arguments.get(name).and_then(serde_json::Value::as_str) else {
                return PolicyAnswer::Ask;
            };
            let Ok(path) = RelativePath::parse(raw) else {
                return PolicyAnswer::Ask;
            };
            let Some(folder) = self.folder_of(&path) else {
                return PolicyAnswer::Ask;
            };
            if passes_a_link(&workspace, path.as_path()) {
                return PolicyAnswer::Ask;
            }
            let moves_a_folder = call.name() == "move_path"
                && *name == "from"
                && workspace
                    .dir()
                    .symlink_metadata(path.as_path())
                    .is_ok_and(|metadata| metadata.is_dir());
            if moves_a_folder {
                return PolicyAnswer::Ask;
            }
            shown.push(format!("{} is under {}/", path.shown(), folder.shown()));
        }
        PolicyAnswer::Approve(format!("{}: {}", call.name(), shown.join(", ")))
    }
}

/// Whether any existing part of `path` (the last included) is a link, or cannot be looked at.
/// The parts from the first missing one on will be made as written.
fn passes_a_link(workspace: &Workspace, path: &Path) -> bool {
    let mut part = std::path::PathBuf::new();
    for component in path.components() {
        part.push(component);
        match workspace.dir().symlink_metadata(&part) {
            Ok(metadata) if metadata.file_type().is_symlink() => return true,
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return false,
            Err(_) => return true,
        }
    }
    false
}
