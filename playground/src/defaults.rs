//! The embedded default: where the playground keeps its files, the sample data, and the script
//! the scripted provider plays when none is given.

use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolkit::provider::{
    ANTHROPIC_BASE_URL, AnthropicProvider, GEMINI_BASE_URL, GeminiProvider, HttpOptions,
    OPENAI_BASE_URL, OpenAiProvider, OpenAiResponsesProvider, Provider, ProviderError,
    ScriptedProvider,
};
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, seal::SealKey, seam::SecretFilter};
use toolkit_audit::Audit;
use toolkit_builtins::policies::WritesUnder;
use toolkit_builtins::{Database, WorkspaceRoot};

/// The script played by `run` and the inspector's loop when no other is given: it lists the
/// sample database's tables, reads a few customers, sums the orders per customer with SQL and
/// measures a text, so steps with and without TABLE artifacts appear.
pub const DEFAULT_SCRIPT: &str = r#"{"turns": [
  {"content": "First I look at what the sample database holds.", "tool_calls": [
    {"name": "list_tables", "arguments": {}}
  ]},
  {"content": "Now the first customers, and the order totals per customer.", "tool_calls": [
    {"name": "read_records", "arguments": {"table": "customers", "limit": 5}},
    {"name": "query_sql", "arguments": {"sql": "SELECT customer_id, COUNT(*) AS orders FROM orders GROUP BY customer_id ORDER BY customer_id"}}
  ]},
  {"content": "And a quick measure of the question itself.", "tool_calls": [
    {"name": "text_stats", "arguments": {"text": "Which customers ordered the most?\nList them."}}
  ]},
  {"content": "The sample shop has customers, products, orders and order items; the order counts per customer are in the query_sql table (an artifact, shown here only, never sent to the model)."}
]}"#;

/// The question the default script answers.
pub const DEFAULT_QUESTION: &str = "Which customers of the sample shop ordered the most?";

/// The folder for the playground's files: `$XDG_DATA_HOME/toolkit-playground`, else
/// `$HOME/.local/share/toolkit-playground`, else `.toolkit-playground` in the current folder
/// (`toolkit-mcp --playground` works on the same files).
pub use toolkit_builtins::sample::playground_dir as data_dir;

/// The default audit copy: `audit.sqlite3` in [`data_dir`].
pub fn default_audit_path() -> PathBuf {
    data_dir().join("audit.sqlite3")
}

/// The key that seals suspended runs, kept in `seal.key` in [`data_dir`] (made on first use,
/// readable by its owner only) so that `playground resume` in another process opens what
/// `playground run` or the inspector sealed.
pub fn seal_key() -> io::Result<SealKey> {
    seal_key_at(&data_dir().join("seal.key"))
}

/// The key kept at `path`: read when the file exists, else made and put there whole (written
/// aside, then linked in place, so a process starting at the same moment reads either no file
/// or the whole key, and both end with the same key).
pub fn seal_key_at(path: &Path) -> io::Result<SealKey> {
    match read_key(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        read => return read,
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|error| io::Error::other(error.to_string()))?;
    let aside = aside(path)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&aside).and_then(|mut file| {
        file.write_all(&bytes)?;
        file.sync_all()
    });
    let linked = written.and_then(|()| match std::fs::hard_link(&aside, path) {
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        linked => linked,
    });
    let _ = std::fs::remove_file(&aside);
    linked?;
    read_key(path)
}

/// A name beside `path` that no other process or thread making the same file uses at once.
fn aside(path: &Path) -> io::Result<PathBuf> {
    let mut nonce = [0u8; 8];
    getrandom::fill(&mut nonce).map_err(|error| io::Error::other(error.to_string()))?;
    Ok(path.with_extension(format!(
        "new-{}-{}",
        std::process::id(),
        u64::from_le_bytes(nonce)
    )))
}

fn read_key(path: &Path) -> io::Result<SealKey> {
    let mut text = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut text)?;
    let bytes: [u8; 32] = text.try_into().map_err(|text: Vec<u8>| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} holds {} bytes; a seal key is 32 (delete the file to make a new key)",
                path.display(),
                text.len()
            ),
        )
    })?;
    Ok(SealKey::from_bytes(bytes))
}

/// What the tools work on: a copy of the sample workspace and the sample database, both in
/// [`data_dir`] (made on first use). The tools that write (offered with `--writers`) change
/// these copies, never the files the playground was built from.
pub fn sample_context() -> Result<ToolContext, SampleSetupError> {
    let data = data_dir();
    let database = data.join("sample.db");
    toolkit_builtins::sample::create_sample_database(&database)?;
    let workspace = data.join("workspace");
    copy_sample_workspace(&workspace).map_err(|source| SampleSetupError::Workspace {
        path: workspace.clone(),
        source,
    })?;
    Ok(ToolContext::new()
        .with_extension(WorkspaceRoot::new(workspace))
        .with_extension(Database::new(database)))
}

/// The sample data could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SampleSetupError {
    /// The sample database.
    #[error(transparent)]
    Database(#[from] toolkit_builtins::sample::SampleError),
    /// The copy of the sample workspace.
    #[error("cannot copy the sample workspace to {}: {source}", .path.display())]
    Workspace {
        /// Where the copy was to go.
        path: PathBuf,
        /// Why it could not.
        source: io::Error,
    },
}

/// Copies the sample workspace to `target` unless it is there already: into a folder beside
/// it first, then renamed into place, so a copy is whole or absent.
pub use toolkit_builtins::sample::copy_sample_workspace;

/// The wire a live model speaks (`--provider`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions: OpenAI, and the servers that speak it (Ollama, vLLM,
    /// llama.cpp, LM Studio).
    OpenAiChat,
    /// OpenAI Responses: OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio, LiteLLM, OpenRouter.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
}

impl Wire {
    /// Every wire, as `--provider` names them.
    pub const ALL: [Wire; 4] = [
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::Anthropic,
        Wire::Gemini,
    ];

    /// The name `--provider` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::OpenAiChat => "openai-chat",
            Wire::OpenAiResponses => "openai-responses",
            Wire::Anthropic => "anthropic",
            Wire::Gemini => "gemini",
        }
    }

    /// The provider's own API, where `--base-url` is not given.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Wire::OpenAiChat | Wire::OpenAiResponses => OPENAI_BASE_URL,
            Wire::Anthropic => ANTHROPIC_BASE_URL,
            Wire::Gemini => GEMINI_BASE_URL,
        }
    }

    /// The model asked where `--model` is not given.
    pub fn default_model(self) -> &'static str {
        match self {
            Wire::OpenAiChat | Wire::OpenAiResponses => "gpt-4o-mini",
            Wire::Anthropic => "claude-sonnet-4-5",
            Wire::Gemini => "gemini-2.5-flash",
        }
    }
}

impl std::fmt::Display for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Wire {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Wire::ALL
            .into_iter()
            .find(|wire| wire.as_str() == name)
            .ok_or_else(|| {
                format!(
                    "unknown provider {name:?}: expected openai-chat, openai-responses, \
                     anthropic or gemini"
                )
            })
    }
}

/// A live model for loops: its wire, its server and the model asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveModel {
    /// The wire it speaks.
    pub wire: Wire,
    /// Its base URL, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// The model to ask.
    pub model: String,
}

impl LiveModel {
    /// The live model `--provider`, `--base-url` and `--model` name: none when neither a
    /// provider nor a base URL is given (a model alone is an error), the wire OpenAI Chat
    /// Completions when only a base URL is, the provider's own API and default model where
    /// they are not given.
    pub fn from_args(
        wire: Option<Wire>,
        base_url: Option<String>,
        model: Option<String>,
    ) -> Result<Option<Self>, String> {
        if wire.is_none() && base_url.is_none() {
            return match model {
                Some(_) => Err("--model names the model of a live server: give --provider \
                                or --base-url too"
                    .to_owned()),
                None => Ok(None),
            };
        }
        let wire = wire.unwrap_or(Wire::OpenAiChat);
        Ok(Some(Self {
            wire,
            base_url: base_url.unwrap_or_else(|| wire.default_base_url().to_owned()),
            model: model.unwrap_or_else(|| wire.default_model().to_owned()),
        }))
    }

    /// The provider, its key from the wire's environment variable (`OPENAI_API_KEY`,
    /// `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`).
    pub fn provider(&self) -> Result<Arc<dyn Provider>, ProviderError> {
        let options = HttpOptions::default();
        let (base_url, model) = (self.base_url.as_str(), self.model.as_str());
        Ok(match self.wire {
            Wire::OpenAiChat => Arc::new(OpenAiProvider::from_env(base_url, model, options)?),
            Wire::OpenAiResponses => {
                Arc::new(OpenAiResponsesProvider::from_env(base_url, model, options)?)
            }
            Wire::Anthropic => Arc::new(AnthropicProvider::from_env(base_url, model, options)?),
            Wire::Gemini => Arc::new(GeminiProvider::from_env(base_url, model, options)?),
        })
    }
}

/// The provider a run or a resume asks: the live model, else the scripted provider playing
/// `script` (the embedded one when `None`). The error says what is wrong with either.
pub fn provider(
    live: Option<&LiveModel>,
    script: Option<&str>,
) -> Result<Arc<dyn Provider>, String> {
    match live {
        Some(live) => live.provider().map_err(|error| error.to_string()),
        None => ScriptedProvider::from_json(script.unwrap_or(DEFAULT_SCRIPT))
            .map(|provider| Arc::new(provider) as Arc<dyn Provider>)
            .map_err(|error| error.to_string()),
    }
}

/// The tools a loop is offered: those enabled by default, and with `writers` those that wait
/// for an operator's approval (the tools that change files and records). Admin tools never.
pub fn offered_tools(registry: &ToolRegistry, writers: bool) -> Vec<String> {
    registry
        .specs()
        .filter(|spec| {
            let flags = spec.flags();
            !flags.requires_admin()
                && (flags.enabled_by_default() || (writers && flags.requires_approval()))
        })
        .map(|spec| spec.name().to_owned())
        .collect()
}

/// The approval policy `--auto-approve` rules name: `writes-under:FOLDER[,FOLDER...]` (the
/// folders of every such rule together); none without rules.
pub fn auto_approve(rules: &[String]) -> Result<Option<WritesUnder>, String> {
    let mut folders = Vec::new();
    for rule in rules {
        match rule.split_once(':') {
            Some(("writes-under", list)) => folders.extend(list.split(',').map(str::to_owned)),
            _ => {
                return Err(format!(
                    "--auto-approve {rule:?}: expected writes-under:FOLDER[,FOLDER...] \
                     (file writes beneath these workspace folders run without a question)"
                ));
            }
        }
    }
    if folders.is_empty() {
        return Ok(None);
    }
    WritesUnder::new(&folders)
        .map(Some)
        .map_err(|error| format!("--auto-approve: {error}"))
}

/// The service every command uses: over `registry`, keeping each call and run (and each used
/// token) in `audit` when there is one, and masking secret-shaped strings in what tools send to the model unless
/// `show_secrets` (artifacts, for people, always keep them).
pub fn service(
    registry: ToolRegistry,
    audit: Option<&Arc<Audit>>,
    show_secrets: bool,
) -> ToolLoopService {
    let mut service = ToolLoopService::new(registry);
    if let Some(audit) = audit {
        // The audit copy also records used tokens, so every process on it resumes each once.
        service = service
            .with_sink(audit.clone())
            .with_replay_store(audit.clone());
    }
    if !show_secrets {
        service = service.with_content_filter(Arc::new(SecretFilter));
    }
    service
}

#[cfg(test)]
mod tests {
    use super::seal_key_at;

    #[test]
    fn the_seal_key_is_made_once_private_and_then_read() {
        let folder = tempfile::tempdir().expect("temp dir");
        let path = folder.path().join("nested").join("seal.key");
        seal_key_at(&path).expect("made");
        let first = std::fs::read(&path).expect("written");
        assert_eq!(first.len(), 32);
        seal_key_at(&path).expect("read");
        assert_eq!(std::fs::read(&path).expect("kept"), first);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path)
                .expect("metadata")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let names: Vec<_> = std::fs::read_dir(path.parent().expect("parent"))
            .expect("listed")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["seal.key"]);
    }

    #[test]
    fn processes_making_the_key_at_once_end_with_one_whole_key() {
        let folder = tempfile::tempdir().expect("temp dir");
        let path = folder.path().join("seal.key");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
        let makers: Vec<_> = (0..8)
            .map(|_| {
                let (path, barrier) = (path.clone(), std::sync::Arc::clone(&barrier));
                std::thread::spawn(move || {
                    barrier.wait();
                    seal_key_at(&path).map(|_| std::fs::read(&path))
                })
            })
            .collect();
        let seen: Vec<Vec<u8>> = makers
            .into_iter()
            .map(|maker| {
                maker
                    .join()
                    .expect("no panic")
                    .expect("made")
                    .expect("read")
            })
            .collect();
        // Every maker read the same 32 bytes, and nothing was left beside the key.
        assert!(
            seen.iter()
                .all(|bytes| bytes.len() == 32 && *bytes == seen[0])
        );
        let names: Vec<_> = std::fs::read_dir(folder.path())
            .expect("listed")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["seal.key"]);
    }

    #[test]
    fn copies_of_the_sample_workspace_made_at_once_leave_one_whole_copy() {
        let folder = tempfile::tempdir().expect("temp dir");
        let target = folder.path().join("workspace");
        let copiers: Vec<_> = (0..4)
            .map(|_| {
                let target = target.clone();
                std::thread::spawn(move || super::copy_sample_workspace(&target))
            })
            .collect();
        for copier in copiers {
            copier.join().expect("no panic").expect("copied");
        }
        assert_eq!(
            std::fs::read(target.join("README.md")).expect("copied file"),
            std::fs::read(toolkit_builtins::files::sample_workspace().join("README.md"))
                .expect("original")
        );
        let names: Vec<_> = std::fs::read_dir(folder.path())
            .expect("listed")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["workspace"]);
    }

    #[test]
    fn a_key_file_of_the_wrong_size_is_refused_with_what_to_do() {
        let folder = tempfile::tempdir().expect("temp dir");
        let path = folder.path().join("seal.key");
        std::fs::write(&path, b"short").expect("written");
        let error = seal_key_at(&path).expect_err("refused");
        assert_eq!(
            error.to_string(),
            format!(
                "{} holds 5 bytes; a seal key is 32 (delete the file to make a new key)",
                path.display()
            )
        );
    }
}
