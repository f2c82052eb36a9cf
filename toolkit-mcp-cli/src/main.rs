//! `toolkit-mcp`: serves toolkit's builtin tools to MCP hosts, over stdio or (`--http PORT`)
//! streamable HTTP on 127.0.0.1, on `--workspace DIR` (default: the builtins' sample workspace)
//! and, with `--database FILE`, a SQLite database; without one, the record tools are not listed.
//! With `--playground`, it works on the Tool Playground's files instead (its copy of the sample
//! workspace, the sample database and its audit copy, in its data folder), so that the calls
//! show in `playground serve`'s runs history.
//! With `--audit FILE|URL`, every call and its artifacts are kept in an audit copy (a SQLite
//! file, or a PostgreSQL database given as a `postgres://` URL) at `--privacy` (default
//! `metadata`); with `--otlp URL`, calls are also exported as OpenTelemetry traces. MCP replies
//! never carry artifacts.
//! Secret-shaped strings in what tools answer are masked (`[REDACTED]`) unless
//! `--show-secrets`: an MCP host forwards replies to a model. With `--writers`, the tools that
//! change files and records are offered to hosts that answer form elicitation: each call asks
//! the host's user first, who has `--approval-timeout` seconds (default 300, a day at most) to
//! answer. Calls of `fetch_page`, `git_blame` and each `--task TOOL` are answered as tasks to
//! hosts that take them (the MCP tasks extension).
//! On a PostgreSQL audit copy, what a later request may need (the artifacts a view asks for, the
//! questions waiting for an answer, tasks, 2025-11-25 sessions) is kept in that database too, so that
//! several instances behind a load balancer answer any request (`scripts/fleet`);
//! `--instance-id` names this one in its traces (default: a random UUID).
//!
//! The command line is parsed by clap: `toolkit-mcp --help` shows every flag with an example,
//! and a misuse exits with code 2 and a message that says what to give instead.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{CommandFactory as _, Parser};
use toolkit::seam::SecretFilter;
use toolkit::{ToolContext, ToolLoopService};
use toolkit_audit::{Audit, OtlpExport, Privacy};
use toolkit_builtins::{DATABASE_TOOLS, Database, WorkspaceRoot};
use toolkit_mcp::McpToolServer;
use toolkit_mcp::store::SharedStore;

/// Full invocations, shown after the flags by `--help`.
const EXAMPLES: &str = "\
Examples:
  toolkit-mcp
      The builtins on stdin and stdout, in the sample workspace: what an MCP host's
      configuration starts (\"command\": \"/path/to/toolkit-mcp\").
  toolkit-mcp --http 8080 --workspace ~/projects/shop --database ~/projects/shop/shop.db
      Over streamable HTTP at http://127.0.0.1:8080/mcp, on a folder and a SQLite file of
      your own.
  toolkit-mcp --playground --writers
      On the Tool Playground's files: every call shows in `playground serve`'s runs history,
      and a call that changes a file or a record asks the host's user first.
  toolkit-mcp --http 8801 --audit postgres://toolkit@127.0.0.1:5432/audit --instance-id mcp-1
      One instance of a fleet behind a load balancer (scripts/fleet starts one to try).";

/// Serves toolkit's builtin tools to MCP hosts, over stdio or streamable HTTP.
///
/// On stdin and stdout (what an MCP host's configuration starts), or with --http on
/// http://127.0.0.1:PORT/mcp. Every call goes through toolkit's seam: the reply carries
/// the call's text, never its artifacts (tables, texts, media), which go to the audit
/// copy (--audit) and to the MCP Apps view of hosts that show one.
//
// The flags' help is wrapped by hand (`verbatim_doc_comment`), each on the lines below
// its flag, so that it reads within 100 columns.
#[derive(Parser)]
// Help text, read in a terminal (the binary has no rustdoc page): URLs are written as typed.
#[allow(clippy::doc_markdown)]
#[command(
    name = "toolkit-mcp",
    version,
    verbatim_doc_comment,
    next_line_help = true,
    after_help = EXAMPLES
)]
struct Cli {
    /// Serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdin and stdout
    /// (0: a free port, said on stderr). Only loopback hosts are answered, and requests
    /// whose Origin is that address.
    /// Example: --http 8080
    #[arg(long, value_name = "PORT", value_parser = port, verbatim_doc_comment)]
    http: Option<u16>,
    /// The folder the file tools work in (default: the sample workspace; with
    /// --playground, the playground's copy of it).
    /// Example: --workspace ~/projects/shop
    #[arg(long, value_name = "DIR", value_parser = folder, verbatim_doc_comment)]
    workspace: Option<PathBuf>,
    /// The SQLite file the record tools work on. Without one (and without --playground)
    /// they are not listed, since they could only say that no database is configured.
    /// Example: --database ~/projects/shop/shop.db
    #[arg(long, value_name = "FILE", value_parser = sqlite_file, verbatim_doc_comment)]
    database: Option<PathBuf>,
    /// Work on the Tool Playground's files, as `playground serve` does: its copy of the
    /// sample workspace and its sample database (made on first use), and its audit copy,
    /// whose runs history then shows every call. They are in
    /// $XDG_DATA_HOME/toolkit-playground (else ~/.local/share/toolkit-playground);
    /// --workspace, --database and --audit, when given, are used instead.
    /// Example: --playground
    #[arg(long, verbatim_doc_comment)]
    playground: bool,
    /// Keep every call and its artifacts in an audit copy: a SQLite file, or a PostgreSQL
    /// database as a postgres:// URL, where instances also share what a later request
    /// needs (artifacts for views, waiting questions, sessions), so that any instance
    /// behind a load balancer answers any request.
    /// Example: --audit postgres://toolkit@127.0.0.1:5432/audit
    #[arg(long, value_name = "FILE|URL", verbatim_doc_comment)]
    audit: Option<String>,
    /// What the audit copy and the OpenTelemetry export keep of each call: metadata,
    /// redacted or full.
    /// Example: --privacy redacted
    #[arg(long, value_name = "LEVEL", default_value_t = Privacy::Metadata, verbatim_doc_comment)]
    privacy: Privacy,
    /// Also export calls as OpenTelemetry traces to this OTLP/HTTP receiver (to
    /// /v1/traces under it): a span per call, never its artifacts.
    /// Example: --otlp http://127.0.0.1:4318
    #[arg(long, value_name = "URL", verbatim_doc_comment)]
    otlp: Option<String>,
    /// Send secret-shaped strings (API keys, tokens, passwords in URLs, private keys) in
    /// replies as the tools read them, instead of as [REDACTED]: an MCP host forwards
    /// replies to a model.
    /// Example: --show-secrets
    #[arg(long, verbatim_doc_comment)]
    show_secrets: bool,
    /// Offer the tools that change files and records to hosts that answer form
    /// elicitation: each call asks the host's user first (the tool, its arguments, its
    /// preview). Other hosts are not offered them.
    /// Example: --writers
    #[arg(long, verbatim_doc_comment)]
    writers: bool,
    /// How long the host's user has to answer about a writer's call, in seconds from 1
    /// to 86400 (a day); no answer is no approval.
    /// Example: --approval-timeout 600
    #[arg(
        long,
        value_name = "SECONDS",
        default_value = "300",
        value_parser = approval_timeout,
        verbatim_doc_comment
    )]
    approval_timeout: Duration,
    /// Answer calls of TOOL as tasks to hosts that take them (the MCP tasks extension):
    /// a call still running after 100 ms is answered with a task the host polls, and goes
    /// on. fetch_page and git_blame are tasks already. Repeat for more tools.
    /// Example: --task git_log
    #[arg(long = "task", value_name = "TOOL", verbatim_doc_comment)]
    tasks: Vec<String>,
    /// This instance's name in its traces (service.instance.id), so that one OTLP
    /// receiver tells a fleet's instances apart (default: a random UUID).
    /// Example: --instance-id mcp-1
    #[arg(long, value_name = "ID", value_parser = instance_id, verbatim_doc_comment)]
    instance_id: Option<String>,
}

/// `--http`: a port number.
fn port(text: &str) -> Result<u16, String> {
    text.parse()
        .map_err(|_| "give a port number from 0 to 65535 (0: any free port)".to_owned())
}

/// `--workspace`: an existing folder.
fn folder(text: &str) -> Result<PathBuf, String> {
    let folder = PathBuf::from(text);
    if folder.is_dir() {
        Ok(folder)
    } else {
        Err("not a folder (give an existing folder)".to_owned())
    }
}

/// `--database`: an existing file.
fn sqlite_file(text: &str) -> Result<PathBuf, String> {
    let file = PathBuf::from(text);
    if file.is_file() {
        Ok(file)
    } else {
        Err("no such file (give an existing SQLite file)".to_owned())
    }
}

/// `--approval-timeout`: from a second to a day. A person who has not answered in a day will
/// not, and a longer wait would be one no clock can count.
fn approval_timeout(text: &str) -> Result<Duration, String> {
    text.parse::<u64>()
        .ok()
        .filter(|seconds| (1..=86_400).contains(seconds))
        .map(Duration::from_secs)
        .ok_or_else(|| "give a number of seconds from 1 to 86400 (a day)".to_owned())
}

/// `--instance-id`: a name that is not blank.
fn instance_id(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("give a name for this instance (not blank)".to_owned())
    } else {
        Ok(text.to_owned())
    }
}

/// What the tools work on and where the calls are kept: the flags, or with `--playground` the
/// playground's files for those not given.
struct Resources {
    workspace: PathBuf,
    database: Option<PathBuf>,
    audit: Option<String>,
}

impl Resources {
    fn of(cli: &Cli) -> Result<Self, String> {
        if !cli.playground {
            return Ok(Self {
                workspace: cli
                    .workspace
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(toolkit_builtins::files::sample_workspace())),
                database: cli.database.clone(),
                audit: cli.audit.clone(),
            });
        }
        // The playground's folder, its files under the names `playground` gives them.
        let folder = toolkit_builtins::sample::playground_dir();
        let workspace = if let Some(workspace) = &cli.workspace {
            workspace.clone()
        } else {
            let copy = folder.join("workspace");
            toolkit_builtins::sample::copy_sample_workspace(&copy).map_err(|error| {
                format!(
                    "cannot copy the sample workspace to {}: {error}",
                    copy.display()
                )
            })?;
            copy
        };
        let database = if let Some(database) = &cli.database {
            database.clone()
        } else {
            let sample = folder.join("sample.db");
            toolkit_builtins::sample::create_sample_database(&sample)
                .map_err(|error| format!("{error} ({})", sample.display()))?;
            sample
        };
        let audit = cli
            .audit
            .clone()
            .unwrap_or_else(|| folder.join("audit.sqlite3").to_string_lossy().into_owned());
        Ok(Self {
            workspace,
            database: Some(database),
            audit: Some(audit),
        })
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let instance_id = cli
        .instance_id
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    // A bad endpoint is a usage error, said before any file is made or database connected to.
    let export = cli
        .otlp
        .as_deref()
        .map(|endpoint| otlp_export(endpoint, cli.privacy, &instance_id));
    let resources = match Resources::of(&cli) {
        Ok(resources) => resources,
        Err(error) => {
            eprintln!("toolkit-mcp: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut registry = match toolkit_builtins::registry() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("toolkit-mcp: {error}");
            return ExitCode::FAILURE;
        }
    };
    // A host is not shown tools that could only answer that their database is missing.
    if resources.database.is_none() {
        registry.retain(|spec| !DATABASE_TOOLS.contains(&spec.name()));
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("toolkit-mcp: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let service = ToolLoopService::new(registry);
    let (mut service, shared) = match &resources.audit {
        Some(location) => match audited(service, location, cli.privacy, &runtime) {
            Ok(audited) => audited,
            Err(error) => {
                eprintln!("toolkit-mcp: {error}");
                return ExitCode::FAILURE;
            }
        },
        None => (service, None),
    };
    if let Some(export) = &export {
        service = service.with_sink(Arc::clone(export) as _);
    }
    if !cli.show_secrets {
        service = service.with_content_filter(Arc::new(SecretFilter));
    }
    let service = Arc::new(service);
    let mut context = ToolContext::new().with_extension(WorkspaceRoot::new(resources.workspace));
    if let Some(database) = resources.database {
        context = context.with_extension(Database::new(database));
    }
    let chosen = (cli.writers, cli.approval_timeout, cli.tasks);
    let mcp = match mcp_server(service, context, chosen) {
        Ok(mcp) => match shared {
            Some(store) => mcp.with_shared_store(store),
            None => mcp,
        },
        Err(error) => {
            eprintln!("toolkit-mcp: {error}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(async move {
        match cli.http {
            None => mcp.serve_stdio().await,
            Some(port) => {
                eprintln!("toolkit-mcp: instance {instance_id}");
                mcp.serve_http(port, |address| {
                    eprintln!(
                        "toolkit-mcp: serving on http://{address}{}",
                        toolkit_mcp::HTTP_PATH
                    );
                })
                .await
            }
        }
    });
    if let Some(export) = export
        && let Err(error) = export.shutdown()
    {
        eprintln!("toolkit-mcp: warning: {error}");
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("toolkit-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `service` keeping every call in the audit copy at `location`, opened in `runtime` (which
/// serves: a PostgreSQL pool's connections live there), and on PostgreSQL the store the
/// instances share; or why the copy cannot be opened, with the location (its secrets, such as
/// a URL's password, masked).
fn audited(
    service: ToolLoopService,
    location: &str,
    privacy: Privacy,
    runtime: &tokio::runtime::Runtime,
) -> Result<(ToolLoopService, Option<Arc<dyn SharedStore>>), String> {
    let audit = runtime
        .block_on(Audit::open(location, privacy))
        .map_err(|error| format!("{error} ({})", toolkit::secrets::mask_secrets(location)))?;
    let shared = match &audit {
        Audit::Postgres(database) => Some(Arc::new(database.clone()) as Arc<dyn SharedStore>),
        _ => None,
    };
    let audit = Arc::new(audit);
    Ok((
        service.with_sink(audit.clone()).with_replay_store(audit),
        shared,
    ))
}

/// The export to the OTLP/HTTP receiver at `endpoint`; a bad endpoint ends the process with
/// clap's usage error.
fn otlp_export(endpoint: &str, privacy: Privacy, instance_id: &str) -> Arc<OtlpExport> {
    match OtlpExport::for_instance(endpoint, privacy, instance_id) {
        Ok(export) => Arc::new(export),
        Err(error) => Cli::command()
            .error(
                clap::error::ErrorKind::ValueValidation,
                format!(
                    "invalid value '{endpoint}' for '--otlp <URL>': {error} (give an OTLP/HTTP \
                     receiver's URL, such as http://127.0.0.1:4318)"
                ),
            )
            .exit(),
    }
}

/// The server over `service`, with the writers when asked for, and the tasks chosen.
fn mcp_server(
    service: Arc<ToolLoopService>,
    context: ToolContext,
    (writers, approval_timeout, tasks): (bool, Duration, Vec<String>),
) -> Result<McpToolServer, Box<dyn std::error::Error>> {
    let mut mcp = McpToolServer::new(service, context)?;
    if writers {
        mcp = mcp.with_writers()?;
    }
    Ok(mcp
        .with_task_tools(tasks)?
        .with_approval_timeout(approval_timeout))
}
