//! `playground`: the Tool Playground's web inspector and command line.
//!
//! ```text
//! playground                       # = playground serve: the inspector on http://127.0.0.1:7878
//! playground list                  # the registered tools, with group and flags
//! playground call NAME JSON        # one call through the seam: wire content, then artifacts
//!                                  # (JSON inline, @FILE, or - for stdin)
//! playground run [SCRIPT]          # a scripted loop (the embedded script by default)
//! playground run --base-url URL    # a live loop against an OpenAI-compatible server
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use playground::defaults::{
    DEFAULT_QUESTION, DEFAULT_SCRIPT, default_audit_path, sample_context, service,
};
use playground::server::{AppState, Line, LiveModel, Notice};
use playground::terminal;
use toolkit::provider::{HttpOptions, OpenAiProvider, Provider, ScriptedProvider};
use toolkit::{RunEvent, RunRequest, RunStep, ToolCall, ToolRegistry};
use toolkit_audit::{Privacy, SqliteAudit};
use toolkit_builtins as _; // links the builtin tools

#[derive(Parser)]
#[command(
    name = "playground",
    version,
    about = "Tool Playground: inspect and run toolkit tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web inspector on 127.0.0.1 (the default).
    Serve(ServeArgs),
    /// List the registered tools with their group and flags.
    List,
    /// Invoke one tool through the seam and print its wire content, then its artifacts.
    Call {
        /// The tool's name.
        name: String,
        /// The arguments, as a JSON object; `@FILE` reads them from a file, `-` from stdin.
        #[arg(default_value = "{}")]
        json: String,
        #[command(flatten)]
        secrets: SecretArgs,
    },
    /// Run a whole loop, printing a line per step.
    Run(RunArgs),
    /// Serve the tools over MCP (stdio, or streamable HTTP with --http); calls and their
    /// artifacts go to the audit copy, never into the MCP reply.
    Mcp(McpArgs),
}

#[derive(Args)]
struct McpArgs {
    /// Serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio.
    #[arg(long, value_name = "PORT")]
    http: Option<u16>,
    #[command(flatten)]
    audit: AuditArgs,
    #[command(flatten)]
    secrets: SecretArgs,
}

#[derive(Args, Default, Clone, Copy)]
struct SecretArgs {
    /// Send secret-shaped strings (API keys, tokens, passwords in URLs, private keys) to the
    /// model as the tools read them, instead of as `[REDACTED]`. Artifacts always keep them.
    #[arg(long)]
    show_secrets: bool,
}

#[derive(Args, Default)]
struct ServeArgs {
    /// The port on 127.0.0.1.
    #[arg(long, default_value_t = 7878)]
    port: u16,
    #[command(flatten)]
    audit: AuditArgs,
    /// An OpenAI-compatible server for live loops in the inspector.
    #[arg(long)]
    base_url: Option<String>,
    /// The model live loops ask.
    #[arg(long, default_value = "gpt-4o-mini")]
    model: String,
    #[command(flatten)]
    secrets: SecretArgs,
}

#[derive(Args, Default)]
struct AuditArgs {
    /// The audit copy (SQLite); default `audit.sqlite3` in the data folder.
    #[arg(long)]
    audit: Option<PathBuf>,
    /// What the audit copy keeps: metadata, redacted or full.
    #[arg(long, default_value_t = Privacy::Metadata)]
    privacy: Privacy,
}

#[derive(Args)]
struct RunArgs {
    /// A script of turns for the scripted provider (JSON file); the embedded one by default.
    script: Option<PathBuf>,
    /// Ask a live OpenAI-compatible server instead (key from `OPENAI_API_KEY`, if needed).
    #[arg(long, conflicts_with = "script")]
    base_url: Option<String>,
    /// The model to ask.
    #[arg(long, default_value = "gpt-4o-mini", requires = "base_url")]
    model: String,
    /// The user's question.
    #[arg(long)]
    question: Option<String>,
    #[command(flatten)]
    audit: AuditArgs,
    #[command(flatten)]
    secrets: SecretArgs,
}

/// A failure worth one line on stderr, and its exit code.
struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    fn usage(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: 2,
        }
    }

    fn runtime(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: 1,
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            if matches!(
                error.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) {
                let _ = error.print();
                return ExitCode::SUCCESS;
            }
            // One clear line: clap's first line, without the usage block.
            let text = error.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            eprintln!("{first} (see playground --help)");
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command.unwrap_or(Command::Serve(ServeArgs {
        port: 7878,
        model: "gpt-4o-mini".to_owned(),
        ..ServeArgs::default()
    })) {
        Command::Serve(args) => serve(args),
        Command::List => list(),
        Command::Call {
            name,
            json,
            secrets,
        } => call(&name, &json, secrets),
        Command::Run(args) => run(args),
        Command::Mcp(args) => mcp(&args),
    };
    match outcome {
        Ok(code) => code,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| Failure::runtime(format!("cannot start the runtime: {error}")))
}

fn registry() -> Result<ToolRegistry, Failure> {
    ToolRegistry::linked().map_err(|error| Failure::runtime(error.to_string()))
}

fn open_audit(args: &AuditArgs) -> Result<Arc<SqliteAudit>, Failure> {
    let path = args.audit.clone().unwrap_or_else(default_audit_path);
    let audit = SqliteAudit::open(&path, args.privacy)
        .map_err(|error| Failure::runtime(format!("{} ({})", error, path.display())))?;
    Ok(Arc::new(audit))
}

fn serve(args: ServeArgs) -> Result<ExitCode, Failure> {
    let audit = open_audit(&args.audit)?;
    let live = args.base_url.map(|base_url| LiveModel {
        base_url,
        model: args.model,
    });
    let context = sample_context().map_err(|error| Failure::runtime(error.to_string()))?;
    let state = AppState::new(
        registry()?,
        context,
        Some(audit),
        live,
        args.secrets.show_secrets,
    );
    let runtime = runtime()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
            .await
            .map_err(|error| {
                Failure::runtime(format!("cannot listen on 127.0.0.1:{}: {error}", args.port))
            })?;
        let address = listener
            .local_addr()
            .map_err(|error| Failure::runtime(error.to_string()))?;
        println!("Tool Playground: open http://{address}/  (Ctrl-C stops it)");
        tokio::select! {
            served = playground::server::serve(listener, state) => {
                served.map_err(|error| Failure::runtime(error.to_string()))?;
            }
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// Serves the registry over MCP. On stdio, stdout is the protocol: everything else goes to
/// stderr. Every call (its artifacts included) is kept in the audit copy by the service's
/// recorder, where `playground serve` shows it in the runs history.
fn mcp(args: &McpArgs) -> Result<ExitCode, Failure> {
    let audit = open_audit(&args.audit)?;
    let context = sample_context().map_err(|error| Failure::runtime(error.to_string()))?;
    let service = Arc::new(service(
        registry()?,
        Some(&audit),
        args.secrets.show_secrets,
    ));
    let runtime = runtime()?;
    runtime.block_on(async {
        let served = match args.http {
            None => toolkit_mcp::serve_stdio(service, context).await,
            Some(port) => {
                toolkit_mcp::serve_http(service, context, port, |address| {
                    eprintln!(
                        "playground mcp: serving on http://{address}{}",
                        toolkit_mcp::HTTP_PATH
                    );
                })
                .await
            }
        };
        served.map_err(|error| Failure::runtime(format!("MCP: {error}")))?;
        Ok(ExitCode::SUCCESS)
    })
}

fn list() -> Result<ExitCode, Failure> {
    let registry = registry()?;
    let width = registry
        .specs()
        .map(|spec| spec.name().len())
        .max()
        .unwrap_or(0);
    for spec in registry.specs() {
        let flags = spec.flags();
        let mut names = Vec::new();
        if flags.requires_approval() {
            names.push("requires_approval");
        }
        if flags.requires_admin() {
            names.push("requires_admin");
        }
        if !flags.enabled_by_default() {
            names.push("not_enabled_by_default");
        }
        if flags.remote() {
            names.push("remote");
        }
        println!(
            "{:<width$}  {:<10}  {}",
            spec.name(),
            spec.group(),
            names.join(",")
        );
    }
    println!("{} tools", registry.len());
    Ok(ExitCode::SUCCESS)
}

/// The arguments as given: inline, `@FILE`, or `-` for stdin.
fn arguments(given: &str) -> Result<String, Failure> {
    if given == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|error| {
            Failure::usage(format!("cannot read the arguments from stdin: {error}"))
        })?;
        return Ok(text);
    }
    match given.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path).map_err(|error| {
            Failure::usage(format!("cannot read the arguments from {path}: {error}"))
        }),
        None => Ok(given.to_owned()),
    }
}

fn call(name: &str, given: &str, secrets: SecretArgs) -> Result<ExitCode, Failure> {
    let registry = registry()?;
    if registry.get(name).is_none() {
        return Err(Failure::usage(format!(
            "unknown tool {name:?} (playground list shows the tools)"
        )));
    }
    let json = &arguments(given)?;
    if let Err(error) = serde_json::from_str::<serde_json::Value>(json) {
        return Err(Failure::usage(format!(
            "the arguments are not JSON: {error}"
        )));
    }
    let context = sample_context().map_err(|error| Failure::runtime(error.to_string()))?;
    let service = service(registry, None, secrets.show_secrets);
    let runtime = runtime()?;
    let call = ToolCall::new("call_1", name, json);
    let (wire, record) = runtime.block_on(async {
        let scope = service.scope(context);
        service.call_observed(&scope, "cli", &call).await
    });
    println!(
        "== wire content (what the model sees){}, {:?}",
        if wire.is_error() { ", error" } else { "" },
        record.duration()
    );
    println!("{}", terminal::inert(wire.as_str(), true));
    println!(
        "== artifacts (run-only, never sent to the model): {}",
        record.artifacts().len()
    );
    for artifact in record.artifacts() {
        print!("{}", terminal::render(artifact));
    }
    Ok(if wire.is_error() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn run(args: RunArgs) -> Result<ExitCode, Failure> {
    let provider: Arc<dyn Provider> = if let Some(base_url) = &args.base_url {
        Arc::new(
            OpenAiProvider::from_env(base_url, &args.model, HttpOptions::default())
                .map_err(|error| Failure::usage(error.to_string()))?,
        )
    } else {
        let script = match &args.script {
            Some(path) => std::fs::read_to_string(path).map_err(|error| {
                Failure::usage(format!("cannot read {}: {error}", path.display()))
            })?,
            None => DEFAULT_SCRIPT.to_owned(),
        };
        Arc::new(
            ScriptedProvider::from_json(&script)
                .map_err(|error| Failure::usage(error.to_string()))?,
        )
    };
    let audit = open_audit(&args.audit)?;
    let context = sample_context().map_err(|error| Failure::runtime(error.to_string()))?;
    let service = Arc::new(service(
        registry()?,
        Some(&audit),
        args.secrets.show_secrets,
    ));
    let question = args.question.unwrap_or_else(|| DEFAULT_QUESTION.to_owned());
    let request = RunRequest::new(question).with_context(context);
    let runtime = runtime()?;
    let mut final_line = None;
    runtime.block_on(async {
        let mut lines = playground::server::stream_run(service, provider, request);
        while let Some(line) = lines.recv().await {
            if let Some(done) = progress(&line) {
                final_line = Some(done);
                break;
            }
        }
    });
    match final_line {
        Some((true, text)) => {
            println!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Some((false, text)) => Err(Failure::runtime(text)),
        None => Err(Failure::runtime("the run ended without an answer")),
    }
}

/// Prints a line per finished step; at the end, whether the run answered and its final text.
fn progress(line: &Line) -> Option<(bool, String)> {
    let text = |value: &str| terminal::inert(value, false);
    let event = match line {
        Line::Event(event) => event,
        Line::Notice(Notice::Error { message }) => {
            eprintln!("error: {}", text(message));
            return None;
        }
        Line::Notice(Notice::NotStarted) => {
            return Some((false, "the run did not start".to_owned()));
        }
    };
    match &**event {
        RunEvent::StepFinished { index, step, .. } => match step {
            RunStep::Llm {
                tool_calls,
                duration,
                error,
                ..
            } => println!(
                "[{index}] llm: {} tool calls ({:.1} ms){}",
                tool_calls.len(),
                duration.as_secs_f64() * 1000.0,
                error
                    .as_deref()
                    .map(|error| format!(" failed: {}", text(error)))
                    .unwrap_or_default()
            ),
            RunStep::Request { tools, .. } => {
                println!("[{index}] request: {} tools offered", tools.len());
            }
            other => println!("[{index}] {}", other.kind().as_str()),
        },
        RunEvent::ToolInvoked {
            index, invocation, ..
        } => {
            let content = text(invocation.content());
            let first = content.split("\\u{a}").next().unwrap_or_default();
            println!(
                "[{index}] tool {}{}: {first} | {} artifacts (run-only) ({:.1} ms)",
                text(invocation.name()),
                if invocation.is_error() { " failed" } else { "" },
                invocation.artifacts().len(),
                invocation.duration().as_secs_f64() * 1000.0
            );
        }
        RunEvent::Error { message, .. } => eprintln!("error: {}", text(message)),
        RunEvent::Done {
            termination,
            content,
            ..
        } => {
            let ok = matches!(
                termination,
                toolkit::Termination::Answered | toolkit::Termination::MaxIterations
            );
            println!("== {}", termination.as_str());
            return Some((ok, terminal::inert(content, true)));
        }
        _ => {}
    }
    None
}
