//! `toolkit-mcp`: serves toolkit's builtin tools to MCP hosts, over stdio or (`--http PORT`)
//! streamable HTTP on 127.0.0.1, on `--workspace DIR` (default: the builtins' sample workspace)
//! and, with `--database FILE`, a SQLite database; without one, the record tools are not listed.
//! With `--audit FILE|URL`, every call and its artifacts are kept in an audit copy (a SQLite
//! file, or a PostgreSQL database given as a `postgres://` URL) at `--privacy` (default
//! `metadata`); with `--otlp URL`, calls are also exported as OpenTelemetry traces. MCP replies
//! never carry artifacts.
//! Secret-shaped strings in what tools answer are masked (`[REDACTED]`) unless
//! `--show-secrets`: an MCP host forwards replies to a model. With `--writers`, the tools that
//! change files and records are offered to hosts that answer form elicitation: each call asks
//! the host's user first, who has `--approval-timeout` seconds (default 300, a day at most) to
//! answer.
//! On a PostgreSQL audit copy, what a later request may need (the artifacts a view asks for, the
//! questions waiting for an answer, 2025-11-25 sessions) is kept in that database too, so that
//! several instances behind a load balancer answer any request (`scripts/fleet`);
//! `--instance-id` names this one in its traces (default: a random UUID).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use std::path::PathBuf;

use toolkit::seam::{ScopeError, SecretFilter};
use toolkit::{ToolContext, ToolLoopService};
use toolkit_audit::{Audit, OtlpExport, Privacy};
use toolkit_builtins::{DATABASE_TOOLS, Database, WorkspaceRoot};
use toolkit_mcp::McpToolServer;
use toolkit_mcp::store::SharedStore;

const USAGE: &str = "usage: toolkit-mcp [--http PORT] [--workspace DIR] [--database FILE] [--audit FILE|URL] [--privacy LEVEL] [--otlp URL] [--show-secrets] [--writers] [--approval-timeout SECONDS] [--instance-id ID]\n\nServes toolkit's builtin tools over MCP: on stdin and stdout, or with --http on\nhttp://127.0.0.1:PORT/mcp (streamable HTTP). The file tools work in --workspace (default: the\nsample workspace); the record tools on --database (a SQLite file), and are not listed without\none. With --audit, every call and its artifacts are kept in an audit copy: a SQLite file, or a\nPostgreSQL database as a postgres:// URL, at --privacy metadata (default), redacted or full.\nWith --otlp, calls are also exported as OpenTelemetry traces to that OTLP/HTTP receiver.\nSecret-shaped strings in replies are masked unless --show-secrets. With --writers, the tools\nthat change files and records are offered to hosts that answer form elicitation: each call\nasks the host's user first (the tool, its arguments, its preview), who has --approval-timeout\nseconds (default 300, a day at most) to answer; no answer is no approval. With a PostgreSQL\n--audit, instances share what a later request needs (artifacts for views, waiting questions,\nsessions), so any instance behind a load balancer answers any request; --instance-id names\nthis instance in its traces (service.instance.id; default a random UUID).";

/// What the command line asks for.
struct Options {
    port: Option<u16>,
    show_secrets: bool,
    writers: bool,
    approval_timeout: Duration,
    workspace: PathBuf,
    database: Option<PathBuf>,
    audit: Option<String>,
    privacy: Privacy,
    otlp: Option<String>,
    instance_id: String,
}

/// The options, or the exit code for `--help` or a misuse (its message printed).
fn options() -> Result<Options, ExitCode> {
    let mut arguments = std::env::args().skip(1);
    let mut port = None;
    let mut show_secrets = false;
    let mut writers = false;
    let mut approval_timeout = toolkit_mcp::approvals::APPROVAL_TIMEOUT;
    let mut workspace = PathBuf::from(toolkit_builtins::files::sample_workspace());
    let mut database = None;
    let mut audit = None;
    let mut privacy = Privacy::Metadata;
    let mut otlp = None;
    let mut instance_id = uuid::Uuid::new_v4().to_string();
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--show-secrets" => show_secrets = true,
            "--writers" => writers = true,
            "--approval-timeout" => match arguments.next().map(|seconds| seconds.parse::<u64>()) {
                // A day at most: a person who has not answered by then will not.
                Some(Ok(seconds)) if (1..=86_400).contains(&seconds) => {
                    approval_timeout = Duration::from_secs(seconds);
                }
                _ => {
                    return Err(usage_error(
                        "--approval-timeout needs a number of seconds from 1 to 86400 (a day)",
                    ));
                }
            },
            "--workspace" => match arguments.next().map(PathBuf::from) {
                Some(folder) if folder.is_dir() => workspace = folder,
                Some(folder) => {
                    return Err(usage_error(&format!(
                        "--workspace {}: not a folder",
                        folder.display()
                    )));
                }
                None => return Err(usage_error("--workspace needs a folder")),
            },
            "--database" => match arguments.next().map(PathBuf::from) {
                Some(file) if file.is_file() => database = Some(file),
                Some(file) => {
                    return Err(usage_error(&format!(
                        "--database {}: no such file (give an existing SQLite file)",
                        file.display()
                    )));
                }
                None => return Err(usage_error("--database needs a SQLite file")),
            },
            "--audit" => match arguments.next() {
                Some(location) => audit = Some(location),
                None => {
                    return Err(usage_error(
                        "--audit needs a SQLite file or a postgres:// URL",
                    ));
                }
            },
            "--otlp" => match arguments.next() {
                Some(endpoint) => otlp = Some(endpoint),
                None => return Err(usage_error("--otlp needs an OTLP/HTTP receiver's URL")),
            },
            "--instance-id" => match arguments.next() {
                Some(id) if !id.trim().is_empty() => instance_id = id,
                _ => return Err(usage_error("--instance-id needs a name for this instance")),
            },
            "--privacy" => match arguments.next().map(|level| level.parse::<Privacy>()) {
                Some(Ok(level)) => privacy = level,
                Some(Err(error)) => return Err(usage_error(&format!("--privacy: {error}"))),
                None => return Err(usage_error("--privacy needs metadata, redacted or full")),
            },
            "--http" => match arguments.next().map(|port| port.parse::<u16>()) {
                Some(Ok(number)) => port = Some(number),
                _ => return Err(usage_error("--http needs a port number (0 to 65535)")),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return Err(ExitCode::SUCCESS);
            }
            other => {
                return Err(usage_error(&format!(
                    "unknown argument \"{}\"",
                    other.escape_debug()
                )));
            }
        }
    }
    Ok(Options {
        port,
        show_secrets,
        writers,
        approval_timeout,
        workspace,
        database,
        audit,
        privacy,
        otlp,
        instance_id,
    })
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(code) => return code,
    };
    let mut registry = match toolkit_builtins::registry() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("toolkit-mcp: {error}");
            return ExitCode::FAILURE;
        }
    };
    // A host is not shown tools that could only answer that their database is missing.
    if options.database.is_none() {
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
    // A bad endpoint is a usage error, said before any database is connected to.
    let export =
        match options.otlp.as_deref().map(|endpoint| {
            OtlpExport::for_instance(endpoint, options.privacy, &options.instance_id)
        }) {
            Some(Ok(export)) => Some(Arc::new(export)),
            Some(Err(error)) => return usage_error(&format!("--otlp: {error}")),
            None => None,
        };
    let mut service = ToolLoopService::new(registry);
    let mut shared = None;
    if let Some(location) = &options.audit {
        // Opened in the runtime that serves: a PostgreSQL pool's connections live there.
        match runtime.block_on(Audit::open(location, options.privacy)) {
            Ok(audit) => {
                if let Audit::Postgres(database) = &audit {
                    shared = Some(Arc::new(database.clone()) as Arc<dyn SharedStore>);
                }
                let audit = Arc::new(audit);
                service = service.with_sink(audit.clone()).with_replay_store(audit);
            }
            Err(error) => {
                // Said with the location, its secrets (a URL's password) masked.
                eprintln!(
                    "toolkit-mcp: {error} ({})",
                    toolkit::secrets::mask_secrets(location)
                );
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(export) = &export {
        service = service.with_sink(Arc::clone(export) as _);
    }
    if !options.show_secrets {
        service = service.with_content_filter(Arc::new(SecretFilter));
    }
    let service = Arc::new(service);
    let mut context = ToolContext::new().with_extension(WorkspaceRoot::new(options.workspace));
    if let Some(database) = options.database {
        context = context.with_extension(Database::new(database));
    }
    let mcp = match mcp_server(service, context, options.writers, options.approval_timeout) {
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
        match options.port {
            None => mcp.serve_stdio().await,
            Some(port) => {
                eprintln!("toolkit-mcp: instance {}", options.instance_id);
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

fn usage_error(message: &str) -> ExitCode {
    eprintln!("toolkit-mcp: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

/// The server over `service`, with the writers when asked for.
fn mcp_server(
    service: Arc<ToolLoopService>,
    context: ToolContext,
    writers: bool,
    approval_timeout: Duration,
) -> Result<McpToolServer, ScopeError> {
    let mut mcp = McpToolServer::new(service, context)?;
    if writers {
        mcp = mcp.with_writers()?;
    }
    Ok(mcp.with_approval_timeout(approval_timeout))
}
