//! `playground`: the Tool Playground's web inspector and command line.
//!
//! ```text
//! playground                       # = playground serve: the inspector on http://127.0.0.1:7878
//! playground list                  # the registered tools: group, flags, first line of help
//! playground describe NAME         # a tool's description, schema and each provider's export
//! playground call NAME JSON        # one call through the seam: wire content, then artifacts
//!                                  # (JSON inline, @FILE, or - for stdin)
//! playground run [SCRIPT]          # a scripted loop (the embedded script by default)
//! playground run --provider NAME   # a live loop: openai-chat, openai-responses, anthropic or
//!                                  # gemini (--base-url URL, --model NAME; --base-url alone:
//!                                  # an OpenAI-compatible server); the answer streams as it comes
//! playground run --writers         # offer the tools that change files and records; a call of
//!                                  # one suspends the run and prints its token
//! playground resume TOKEN --approve ID --deny ID=REASON --edit ID=JSON   # decide and go on
//! playground resume TOKEN --answer ID='{"KEY": {..}}'   # answer a tool's questions
//! playground resume TOKEN --abort  # stop the run: nothing pending runs
//! ```
//!
//! Serving the tools over MCP is `toolkit-mcp`'s (package `toolkit-mcp-cli`): with
//! `--playground` it works on the playground's files and keeps its calls in the playground's
//! audit copy, where `playground serve`'s runs history shows them.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use std::time::{Duration, Instant};

use playground::defaults::{
    DEFAULT_QUESTION, LiveModel, Wire, auto_approve, default_audit_path, offered_tools,
    sample_context, seal_key, service,
};
use playground::server::{
    AppState, Line, Notice, Resolution, ShownCall, not_offered, stream_resume, stream_run,
};
use playground::terminal;
use std::fmt::Write as _;
use std::io::Write as _;

use toolkit::provider::{Delta, Provider, StopReason};
use toolkit::{
    RunEvent, RunOptions, RunRequest, ToolCall, ToolLoopService, ToolRegistry,
    approval::Decision,
    recording::{CallDecision, Decided, Decider, RunStep, Termination},
    run::PendingQuestions,
    talk::{Answer, Answers},
};
use toolkit_audit::{Audit, OtlpExport, Privacy};
use toolkit_builtins::policies::WritesUnder; // and links the builtin tools

#[derive(Parser)]
#[command(
    name = "playground",
    version,
    about = "Tool Playground: inspect and run toolkit tools",
    after_help = "To serve the tools over MCP on the playground's files, its calls kept in the \
                  playground's audit copy: toolkit-mcp --playground \
                  (cargo run -p toolkit-mcp-cli -- --playground; toolkit-mcp --help)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web inspector on 127.0.0.1 (the default).
    Serve(ServeArgs),
    /// List the registered tools with their group, flags and the first line of their help.
    List,
    /// Show one tool: its description, its input schema and what each provider is sent.
    Describe {
        /// The tool's name.
        name: String,
    },
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
    /// Go on with a run that stopped for approvals: approve, deny (with a reason) or edit each
    /// pending call, approve a tool for the rest of the run, or abort the run.
    Resume(ResumeArgs),
}

#[derive(Args, Default, Clone)]
struct PolicyArgs {
    /// Let calls that need approval run without a question when a rule allows them
    /// (repeatable): `writes-under:FOLDER[,FOLDER...]` approves file writes beneath these
    /// workspace folders (no link on the way); every other call still waits for you.
    #[arg(long, value_name = "RULE")]
    auto_approve: Vec<String>,
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
    /// Offer loops the tools that change files and records; each call waits for your approval
    /// in the page.
    #[arg(long)]
    writers: bool,
    #[command(flatten)]
    policy: PolicyArgs,
    #[command(flatten)]
    audit: AuditArgs,
    /// The live model of the inspector's live loops.
    #[command(flatten)]
    live: LiveArgs,
    #[command(flatten)]
    secrets: SecretArgs,
}

/// A live model: its wire, server and model.
#[derive(Args, Default)]
struct LiveArgs {
    /// A live model's wire: openai-chat (OpenAI, Ollama, vLLM, llama.cpp, LM Studio),
    /// openai-responses, anthropic or gemini. Its key comes from `OPENAI_API_KEY`,
    /// `ANTHROPIC_API_KEY` or `GEMINI_API_KEY`.
    #[arg(long, value_name = "NAME")]
    provider: Option<Wire>,
    /// The live model's server (default: the provider's own API; alone: an OpenAI-compatible
    /// server, such as `http://127.0.0.1:11434/v1` for Ollama).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The model to ask (default: gpt-4o-mini, claude-sonnet-4-5 or gemini-2.5-flash).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
}

impl LiveArgs {
    /// The live model these name, if any.
    fn live(&self) -> Result<Option<LiveModel>, Failure> {
        LiveModel::from_args(self.provider, self.base_url.clone(), self.model.clone())
            .map_err(Failure::usage)
    }
}

#[derive(Args, Default)]
struct AuditArgs {
    /// The audit copy: a SQLite file, or a PostgreSQL database as a `postgres://` URL (shared by
    /// every instance on it); default `audit.sqlite3` in the data folder.
    #[arg(long, value_name = "FILE|URL")]
    audit: Option<String>,
    /// What the audit copy (and the OpenTelemetry export) keeps: metadata, redacted or full.
    #[arg(long, default_value_t = Privacy::Metadata)]
    privacy: Privacy,
    /// Also export runs as OpenTelemetry traces to this OTLP/HTTP receiver
    /// (http://host:4318): a span per run, model call and tool call; never artifacts.
    #[arg(long, value_name = "URL")]
    otlp: Option<String>,
}

#[derive(Args)]
struct RunArgs {
    /// A script of turns for the scripted provider (JSON file); the embedded one by default.
    script: Option<PathBuf>,
    /// Ask a live model instead of the script.
    #[command(flatten)]
    live: LiveArgs,
    /// Ask for the model's answer whole instead of streamed (its text then comes at once).
    #[arg(long)]
    no_stream: bool,
    /// The user's question.
    #[arg(long)]
    question: Option<String>,
    /// Offer the tools that change files and records; a call of one stops the run and prints
    /// the token that `playground resume` continues it with.
    #[arg(long)]
    writers: bool,
    #[command(flatten)]
    policy: PolicyArgs,
    #[command(flatten)]
    audit: AuditArgs,
    #[command(flatten)]
    secrets: SecretArgs,
}

#[derive(Args)]
struct ResumeArgs {
    /// The token `run` printed (or `@FILE`, or `-` for stdin).
    token: String,
    /// Let this pending call run (repeatable).
    #[arg(long, value_name = "CALL_ID")]
    approve: Vec<String>,
    /// Let this pending call run, and the later calls of its tool in this run (repeatable).
    #[arg(long, value_name = "CALL_ID")]
    approve_for_run: Vec<String>,
    /// Refuse this pending call (repeatable); after `=`, the reason the model reads instead of
    /// the standard refusal. Calls without a decision are refused too.
    #[arg(long, value_name = "CALL_ID[=REASON]")]
    deny: Vec<String>,
    /// Run this pending call with these arguments instead (a JSON object, or `@FILE`), once
    /// they pass the tool's checks; a tool with a preview shows the call again with the new
    /// preview first (repeatable).
    #[arg(long, value_name = "CALL_ID=JSON")]
    edit: Vec<String>,
    /// Answer the questions this pending call's tool asked: a JSON object of each question's
    /// key and the fields of its answer (`{"size": {"count": 2}}`), or `@FILE`; a question left
    /// out is dismissed (repeatable).
    #[arg(long, value_name = "CALL_ID=JSON")]
    answer: Vec<String>,
    /// Stop the run instead: nothing pending runs.
    #[arg(long, conflicts_with_all = ["approve", "approve_for_run", "deny", "edit", "answer"])]
    abort: bool,
    /// The script the run was started with (JSON file); the embedded one by default.
    #[arg(long)]
    script: Option<PathBuf>,
    /// The live model the run was started with.
    #[command(flatten)]
    live: LiveArgs,
    #[command(flatten)]
    policy: PolicyArgs,
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
            eprintln!(
                "{} (see playground --help)",
                usage_error(&error.to_string())
            );
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command.unwrap_or(Command::Serve(ServeArgs {
        port: 7878,
        ..ServeArgs::default()
    })) {
        Command::Serve(args) => serve(&args),
        Command::List => list(),
        Command::Describe { name } => describe(&name),
        Command::Call {
            name,
            json,
            secrets,
        } => call(&name, &json, secrets),
        Command::Run(args) => run(args),
        Command::Resume(args) => resume(&args),
    };
    match outcome {
        Ok(code) => code,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// What a model step's line says after `llm: `: its calls, time, tokens (the parts billed apart
/// when counted), why it ended when it is not the usual, and its error.
fn llm_line(step: &RunStep) -> String {
    let RunStep::Llm {
        tool_calls,
        duration: took,
        usage,
        stop_reason,
        error,
        ..
    } = step
    else {
        return String::new();
    };
    let mut notes = String::new();
    for (count, what) in [
        (usage.cache_read_tokens, "read from cache"),
        (usage.cache_write_tokens, "written to cache"),
        (usage.reasoning_tokens, "reasoning"),
    ] {
        if count > 0 {
            let _ = write!(notes, ", {count} {what}");
        }
    }
    if let Some(reason) = stop_reason
        .as_ref()
        .filter(|reason| !matches!(reason, StopReason::Finished | StopReason::ToolCalls))
    {
        let _ = write!(
            notes,
            ", ended: {}",
            terminal::inert(reason.as_str(), false)
        );
    }
    let failed = error
        .as_deref()
        .map(|error| format!(" failed: {}", terminal::inert(error, false)))
        .unwrap_or_default();
    format!(
        "{} ({}, {} in / {} out tokens{notes}){failed}",
        plural(tool_calls.len(), "tool call", "tool calls"),
        duration(*took),
        usage.input_tokens,
        usage.output_tokens,
    )
}

/// Clap's message without its usage block, on one line: `error: ...` and, when clap lists what
/// is missing on the following lines, those names too.
fn usage_error(text: &str) -> String {
    let mut lines = text
        .lines()
        .take_while(|line| !line.starts_with("Usage:") && !line.starts_with("For more"))
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("tip:"));
    let first = lines
        .next()
        .unwrap_or("error: invalid arguments")
        .to_owned();
    lines.fold(first, |joined, line| format!("{joined} {line}"))
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| Failure::runtime(format!("cannot start the runtime: {error}")))
}

fn registry() -> Result<ToolRegistry, Failure> {
    toolkit_builtins::registry().map_err(|error| Failure::runtime(error.to_string()))
}

/// Where a command's runs are kept: the audit copy, and the OpenTelemetry export if asked for.
struct Kept {
    audit: Arc<Audit>,
    export: Option<Arc<OtlpExport>>,
}

impl Kept {
    /// `service` keeping its runs here: in the audit copy (which also records used tokens, see
    /// [`playground::defaults::service`]) and the export.
    fn onto(&self, service: ToolLoopService) -> ToolLoopService {
        match &self.export {
            Some(export) => service.with_sink(Arc::clone(export) as _),
            None => service,
        }
    }

    /// Sends what the export still holds; a failure is reported, not fatal (the runs are done).
    fn finish(&self) {
        if let Some(export) = &self.export
            && let Err(error) = export.shutdown()
        {
            eprintln!("warning: {error}");
        }
    }
}

/// Opens the audit copy in `runtime`, which then serves everything that uses it (a PostgreSQL
/// pool's connections live in the runtime that made them), and the export when `--otlp` names
/// one; `model` names the chat spans' provider and model (`None` where nothing calls a model).
fn open_audit(
    args: &AuditArgs,
    runtime: &tokio::runtime::Runtime,
    model: Option<(&str, &str)>,
) -> Result<Kept, Failure> {
    let location = args
        .audit
        .clone()
        .unwrap_or_else(|| default_audit_path().to_string_lossy().into_owned());
    // A bad endpoint is a usage error, said before any database is connected to.
    let export = args
        .otlp
        .as_deref()
        .map(|endpoint| {
            OtlpExport::new(endpoint, args.privacy)
                .map(|export| match model {
                    Some((provider, model)) => Arc::new(export.with_model(provider, model)),
                    None => Arc::new(export),
                })
                .map_err(|error| Failure::usage(format!("--otlp {endpoint}: {error}")))
        })
        .transpose()?;
    let audit = runtime
        .block_on(Audit::open(&location, args.privacy))
        // Said with the location, its secrets (a URL's password) masked.
        .map_err(|error| {
            Failure::runtime(format!(
                "{error} ({})",
                toolkit::secrets::mask_secrets(&location)
            ))
        })?;
    Ok(Kept {
        audit: Arc::new(audit),
        export,
    })
}

/// What every command that runs loops starts with: the runtime, the audit copy (and export)
/// opened in it, and the sealing service keeping its runs there. The chat spans name the live
/// model's wire and model, or the script.
fn loop_setup(
    audit: &AuditArgs,
    live: Option<&LiveModel>,
    secrets: SecretArgs,
    policy: Option<WritesUnder>,
) -> Result<(tokio::runtime::Runtime, Kept, Arc<ToolLoopService>), Failure> {
    let runtime = runtime()?;
    let model = match live {
        Some(live) => (live.wire.as_str(), live.model.as_str()),
        None => ("scripted", "scripted"),
    };
    let kept = open_audit(audit, &runtime, Some(model))?;
    let service = sealing_service(&kept, secrets, policy)?;
    Ok((runtime, kept, service))
}

/// The service every command that runs loops uses: the default one (see
/// [`playground::defaults::service`]) sealing with the key kept in the data folder, so a run
/// suspended by one process resumes in another; with `policy`, it answers calls that need
/// approval before anyone is asked.
fn sealing_service(
    kept: &Kept,
    secrets: SecretArgs,
    policy: Option<WritesUnder>,
) -> Result<Arc<ToolLoopService>, Failure> {
    let key = seal_key().map_err(|error| {
        Failure::runtime(format!(
            "cannot keep the key that seals suspended runs: {error}"
        ))
    })?;
    let mut service = kept
        .onto(service(
            registry()?,
            Some(&kept.audit),
            secrets.show_secrets,
        ))
        .with_seal_key(key);
    if let Some(policy) = policy {
        service = service.with_approval_policy(policy);
    }
    Ok(Arc::new(service))
}

fn sample() -> Result<toolkit::ToolContext, Failure> {
    sample_context().map_err(|error| Failure::runtime(error.to_string()))
}

fn serve(args: &ServeArgs) -> Result<ExitCode, Failure> {
    let policy = policy(&args.policy)?;
    let described = policy.as_ref().map(ToString::to_string);
    let live = args.live.live()?;
    let (runtime, kept, service) = loop_setup(&args.audit, live.as_ref(), args.secrets, policy)?;
    let state = AppState::over(service, sample()?, Some(Arc::clone(&kept.audit)), live)
        .with_writers(args.writers)
        .with_auto_approve(described);
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
            .await
            .map_err(|error| {
                Failure::runtime(format!("cannot listen on 127.0.0.1:{}: {error}", args.port))
            })?;
        let address = listener
            .local_addr()
            .map_err(|error| Failure::runtime(error.to_string()))?;
        println!("Tool Playground: open http://{address}/  (Ctrl-C stops it)");
        println!(
            "API clients send the header {}: {}",
            playground::guard::TOKEN_HEADER,
            state.token()
        );
        tokio::select! {
            served = playground::server::serve(listener, state) => {
                served.map_err(|error| Failure::runtime(error.to_string()))?;
            }
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok(ExitCode::SUCCESS)
    });
    kept.finish();
    served
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
        // The first sentence of the first line.
        let first = spec.description().lines().next().unwrap_or_default();
        let summary = first.find(". ").map_or(first, |end| &first[..=end]);
        println!(
            "{:<width$}  {:<10}  {}{}{}",
            spec.name(),
            spec.group(),
            terminal::inert(summary, false),
            if names.is_empty() { "" } else { "  " },
            names.join(",")
        );
    }
    println!("{}", plural(registry.len(), "tool", "tools"));
    Ok(ExitCode::SUCCESS)
}

fn describe(name: &str) -> Result<ExitCode, Failure> {
    let registry = registry()?;
    let Some(tool) = registry.get(name) else {
        return Err(Failure::usage(format!(
            "unknown tool {name:?} (playground list shows the tools)"
        )));
    };
    let spec = tool.spec();
    let pretty = |value: &serde_json::Value| {
        serde_json::to_string_pretty(value).unwrap_or_else(|error| error.to_string())
    };
    println!("{} ({})", spec.name(), spec.group());
    println!("{}", terminal::inert(spec.description(), true));
    println!("\n== input schema\n{}", pretty(spec.input_schema()));
    match spec.openai() {
        Ok(openai) => println!("\n== OpenAI\n{}", pretty(&openai)),
        Err(error) => println!("\n== OpenAI: not possible: {error}"),
    }
    match spec.openai_strict() {
        Ok(strict) => println!("\n== OpenAI, strict\n{}", pretty(&strict)),
        Err(error) => println!("\n== OpenAI, strict: not possible: {error}"),
    }
    println!("\n== Anthropic\n{}", pretty(&spec.anthropic()));
    match spec.gemini() {
        Ok(gemini) => println!("\n== Gemini\n{}", pretty(&gemini)),
        Err(error) => println!("\n== Gemini: not possible: {error}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `1 step`, `2 steps`.
fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// A duration as people read it: `0.2 ms`, `12.5 ms`, `1.31 s`.
fn duration(duration: Duration) -> String {
    let ms = duration.as_secs_f64() * 1000.0;
    if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

/// The arguments as given: inline, `@FILE`, or `-` for stdin.
fn given_text(given: &str, what: &str) -> Result<String, Failure> {
    if given == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|error| Failure::usage(format!("cannot read {what} from stdin: {error}")))?;
        return Ok(text);
    }
    match given.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|error| Failure::usage(format!("cannot read {what} from {path}: {error}"))),
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
    if let Some(why) = not_offered(&registry, name, false) {
        return Err(Failure::usage(why.replace(
            "start the playground with --writers, then ask for it in a loop",
            "ask for it in a loop: playground run --writers",
        )));
    }
    let json = &given_text(given, "the arguments")?;
    if let Err(error) = serde_json::from_str::<serde_json::Value>(json) {
        return Err(Failure::usage(format!(
            "the arguments are not JSON: {error}"
        )));
    }
    let context = sample()?;
    let service = service(registry, None, secrets.show_secrets);
    let runtime = runtime()?;
    let call = ToolCall::new("call_1", name, json);
    let scope = service
        .scope(context)
        .map_err(|error| Failure::usage(error.to_string()))?;
    // No audit copy keeps a `call`: nothing is recorded, so the call is timed here.
    let started = Instant::now();
    let observed = runtime.block_on(service.call_observed(&scope, "cli", &call));
    let took = started.elapsed();
    let wire = observed.wire();
    println!(
        "== wire content (what the model sees){}, {}",
        if wire.is_error() { ", error" } else { "" },
        duration(took)
    );
    println!("{}", terminal::inert(wire.as_str(), true));
    println!(
        "== artifacts (run-only, never sent to the model): {}",
        observed.artifacts().len()
    );
    for artifact in observed.artifacts() {
        print!("{}", terminal::render(artifact));
    }
    Ok(if wire.is_error() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The provider a run or a resume asks (see [`playground::defaults::provider`]), its script
/// read from a file; a script and a live model exclude each other.
fn provider(
    live: Option<&LiveModel>,
    script: Option<&PathBuf>,
) -> Result<Arc<dyn Provider>, Failure> {
    if live.is_some() && script.is_some() {
        return Err(Failure::usage(
            "a script and a live model (--provider, --base-url) exclude each other",
        ));
    }
    let script = script
        .map(|path| {
            std::fs::read_to_string(path)
                .map_err(|error| Failure::usage(format!("cannot read {}: {error}", path.display())))
        })
        .transpose()?;
    playground::defaults::provider(live, script.as_deref()).map_err(Failure::usage)
}

fn run(args: RunArgs) -> Result<ExitCode, Failure> {
    let live = args.live.live()?;
    let provider = provider(live.as_ref(), args.script.as_ref())?;
    let (runtime, kept, service) = loop_setup(
        &args.audit,
        live.as_ref(),
        args.secrets,
        policy(&args.policy)?,
    )?;
    let offered = offered_tools(service.registry(), args.writers);
    let question = args.question.unwrap_or_else(|| DEFAULT_QUESTION.to_owned());
    let request = RunRequest::new(question)
        .with_tools(offered)
        .with_context(sample()?)
        .with_options(RunOptions::default().with_streaming(!args.no_stream));
    println!("run {}", request.run_id());
    let outcome = runtime.block_on(async { follow(stream_run(&service, provider, request)).await });
    kept.finish();
    outcome
}

fn resume(args: &ResumeArgs) -> Result<ExitCode, Failure> {
    let live = args.live.live()?;
    let provider = provider(live.as_ref(), args.script.as_ref())?;
    let token = given_text(&args.token, "the token")?;
    let token = token.trim();
    let resolution = if args.abort {
        Resolution::Abort
    } else {
        Resolution::Decide(decisions(args)?)
    };
    let (runtime, kept, service) = loop_setup(
        &args.audit,
        live.as_ref(),
        args.secrets,
        policy(&args.policy)?,
    )?;
    let context = sample()?;
    let outcome = runtime.block_on(async {
        let lines = stream_resume(&service, provider, token, resolution, context)
            .map_err(|error| Failure::usage(format!("the token does not open: {error}")))?;
        follow(lines).await
    });
    kept.finish();
    outcome
}

/// The policy `--auto-approve` names, if any.
fn policy(args: &PolicyArgs) -> Result<Option<WritesUnder>, Failure> {
    auto_approve(&args.auto_approve).map_err(Failure::usage)
}

/// The decisions `resume`'s flags give, in the order of the flags' kinds.
fn decisions(args: &ResumeArgs) -> Result<Vec<Decision>, Failure> {
    let mut decisions: Vec<Decision> = args.approve.iter().map(Decision::approve).collect();
    decisions.extend(args.approve_for_run.iter().map(Decision::approve_for_run));
    for given in &args.deny {
        decisions.push(match given.split_once('=') {
            Some((id, reason)) => Decision::deny_with_reason(id, reason),
            None => Decision::deny(given),
        });
    }
    for given in &args.edit {
        let Some((id, arguments)) = given.split_once('=') else {
            return Err(Failure::usage(format!(
                "--edit {given:?}: expected CALL_ID=JSON (or CALL_ID=@FILE)"
            )));
        };
        let arguments = given_text(arguments, "the edited arguments")?;
        if let Err(error) = serde_json::from_str::<serde_json::Value>(&arguments) {
            return Err(Failure::usage(format!(
                "--edit {id}: the arguments are not JSON: {error}"
            )));
        }
        decisions.push(Decision::edit(id, arguments));
    }
    for given in &args.answer {
        let Some((id, fields)) = given.split_once('=') else {
            return Err(Failure::usage(format!(
                "--answer {given:?}: expected CALL_ID=JSON (or CALL_ID=@FILE)"
            )));
        };
        let fields = given_text(fields, "the answers")?;
        let by_key: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&fields)
            .map_err(|error| {
                Failure::usage(format!(
                    "--answer {id}: expected a JSON object of each question's key and the fields \
                     of its answer: {error}"
                ))
            })?;
        let answers = by_key
            .into_iter()
            .fold(Answers::new(), |answers, (key, fields)| {
                answers.with(key, Answer::accept(fields))
            });
        decisions.push(Decision::answer(id, answers));
    }
    Ok(decisions)
}

/// Prints a run's lines as they come; the exit code says how it ended.
async fn follow(
    mut lines: tokio::sync::mpsc::UnboundedReceiver<Line>,
) -> Result<ExitCode, Failure> {
    let mut printer = Printer::default();
    while let Some(line) = lines.recv().await {
        printer.line(&line);
    }
    match printer.end {
        Some(End::Answered(text)) => {
            println!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        // The suspension was printed with its token: waiting is not a failure, and neither is
        // an operator's stopping the run.
        Some(End::Suspended | End::Aborted) => Ok(ExitCode::SUCCESS),
        Some(End::Failed(text)) => Err(Failure::runtime(text)),
        // The error was printed as it came.
        Some(End::NotStarted) => Ok(ExitCode::FAILURE),
        None => Err(Failure::runtime("the run ended without an answer")),
    }
}

enum End {
    Answered(String),
    Suspended,
    Aborted,
    Failed(String),
    NotStarted,
}

/// One decision for the terminal: `w1  write_file  approved by policy writes-under: ...`.
fn decision_line(decision: &CallDecision) -> String {
    let text = |value: &str| terminal::inert(value, false);
    let by = match &decision.by {
        Decider::Policy { policy, why } => format!(" by policy {}: {}", text(policy), text(why)),
        Decider::ApprovedForRun => " (approved for the run)".to_owned(),
        _ => String::new(),
    };
    let detail = match &decision.decided {
        Decided::Denied {
            reason: Some(reason),
        } if !matches!(decision.by, Decider::Policy { .. }) => {
            format!(": {}", text(reason))
        }
        Decided::Edited {
            original,
            arguments,
        } => format!(": {} -> {}", text(original), text(arguments)),
        Decided::PreviewChanged => {
            ": what it would do changed after it was shown, so it did not run".to_owned()
        }
        _ => String::new(),
    };
    format!(
        "{}  {}  {}{by}{detail}",
        text(&decision.call_id),
        text(&decision.tool),
        decision.decided.as_str()
    )
}

/// Prints a line per finished step, and a model's text as it streams in; remembers how the run
/// ended.
#[derive(Default)]
struct Printer {
    end: Option<End>,
    errors: Vec<String>,
    /// The model step whose text is being printed, its line not yet ended.
    streaming: Option<usize>,
}

impl Printer {
    fn line(&mut self, line: &Line) {
        let text = |value: &str| terminal::inert(value, false);
        let event = match line {
            Line::Event(event) => event,
            Line::Notice(Notice::Error { message }) => {
                self.error(text(message));
                return;
            }
            Line::Notice(Notice::NotStarted) => {
                self.end = Some(End::NotStarted);
                return;
            }
            Line::Notice(Notice::Suspended {
                token,
                pending,
                shown,
                questions,
                ..
            }) => {
                self.suspended(token, pending, shown, questions);
                return;
            }
        };
        if !matches!(&**event, RunEvent::ModelDelta { .. }) {
            self.end_stream();
        }
        match &**event {
            RunEvent::ModelDelta { index, delta, .. } => self.delta(*index, delta),
            RunEvent::StepFinished { index, step, .. } => match step {
                RunStep::Llm { .. } => println!("[{index}] llm: {}", llm_line(step)),
                RunStep::Request { tools, .. } => {
                    println!(
                        "[{index}] request: {} offered",
                        plural(tools.len(), "tool", "tools")
                    );
                }
                RunStep::Resumed { decisions, .. } | RunStep::Decided { decisions, .. } => {
                    println!("[{index}] {}:", step.kind().as_str());
                    for decision in decisions {
                        println!("  {}", decision_line(decision));
                    }
                }
                other => println!("[{index}] {}", other.kind().as_str()),
            },
            RunEvent::ToolInvoked {
                index, invocation, ..
            } => {
                let content = text(invocation.content());
                let first = content.split("\\u{a}").next().unwrap_or_default();
                println!(
                    "[{index}] tool {}{}: {first} | {} (run-only) ({})",
                    text(invocation.name()),
                    if invocation.is_error() { " failed" } else { "" },
                    plural(invocation.artifacts().len(), "artifact", "artifacts"),
                    duration(invocation.duration())
                );
            }
            RunEvent::Error { message, .. } => self.error(text(message)),
            RunEvent::Done {
                termination,
                content,
                ..
            } => {
                // A suspension is announced with its calls and token instead.
                if *termination != Termination::Suspended {
                    println!("== {}", termination.as_str());
                }
                self.end = Some(match termination {
                    Termination::Answered | Termination::MaxIterations => {
                        End::Answered(terminal::inert(content, true))
                    }
                    // Printed with its token when the notice comes (before or after this).
                    Termination::Suspended => End::Suspended,
                    Termination::Aborted => End::Aborted,
                    _ => {
                        let content = terminal::inert(content, true);
                        // Said once: the error event before it already printed the same text.
                        if self.errors.contains(&content) {
                            End::NotStarted
                        } else {
                            End::Failed(content)
                        }
                    }
                });
            }
            _ => {}
        }
    }

    fn suspended(
        &mut self,
        token: &str,
        pending: &[ToolCall],
        shown: &[ShownCall],
        questions: &[PendingQuestions],
    ) {
        self.end_stream();
        let text = |value: &str| terminal::inert(value, false);
        let what = match questions.len() {
            0 => "your approval",
            asking if asking == pending.len() => "your answers",
            _ => "your approval or answers",
        };
        println!(
            "== suspended: {} for {what}",
            plural(pending.len(), "call waits", "calls wait")
        );
        // What runs, every character shown: the hidden ones written out as ⟨U+XXXX⟩.
        for (call, shown) in pending.iter().zip(shown) {
            if let Some(warning) = shown.warning {
                println!("  {warning}");
            }
            println!(
                "  {}  {}  {}",
                text(call.id()),
                text(call.name()),
                shown.arguments
            );
            if let Some(preview) = &shown.preview {
                println!("  preview of {}:", text(call.id()));
                for line in preview.lines() {
                    println!("    {line}");
                }
            }
            // A call whose tool asked questions: each one, and the fields of its answer.
            let asked = questions
                .iter()
                .filter(|waiting| waiting.call_id == call.id())
                .flat_map(|waiting| &waiting.asked);
            for question in asked {
                println!(
                    "  {} asks ({}): {}",
                    text(call.id()),
                    text(question.key()),
                    text(question.message())
                );
                println!("    answer with the fields {}", question.form());
            }
        }
        println!("token: {token}");
        let first = text(pending.first().map_or("ID", |call| call.id()));
        if let Some(waiting) = questions.first() {
            let call = text(&waiting.call_id);
            let key = waiting
                .asked
                .first()
                .map_or_else(|| "KEY".to_owned(), |asked| text(asked.key()));
            println!(
                "answer with: playground resume TOKEN --answer {call}='{{\"{key}\": {{..fields..}}}}' \
                 (or --deny {call} to decline)"
            );
        }
        println!(
            "go on with: playground resume TOKEN --approve {first} (or --deny {first}[=REASON], \
             --edit {first}=JSON, --approve-for-run {first}; or --abort), with the same --script \
             or live model (--provider, --base-url, --model); the token opens once, within an \
             hour"
        );
        self.end = Some(End::Suspended);
    }

    fn error(&mut self, message: String) {
        self.end_stream();
        eprintln!("error: {message}");
        self.errors.push(message);
    }

    /// A piece of a model step's answer: its text printed as it comes (inert, lines kept),
    /// each call on a line of its own as it starts.
    fn delta(&mut self, index: usize, delta: &Delta) {
        match delta {
            Delta::Text { text } => {
                if self.streaming != Some(index) {
                    self.end_stream();
                    print!("[{index}] model: ");
                    self.streaming = Some(index);
                }
                print!("{}", terminal::inert(text, true));
                let _ = std::io::stdout().flush();
            }
            Delta::CallStarted { name, .. } => {
                self.end_stream();
                println!("[{index}] model calls {}", terminal::inert(name, false));
            }
            _ => {}
        }
    }

    /// Ends the line of streamed text, if one is open.
    fn end_stream(&mut self) {
        if self.streaming.take().is_some() {
            println!();
        }
    }
}
