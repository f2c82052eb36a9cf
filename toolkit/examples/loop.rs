//! Runs the tool loop with two small tools and prints a line per step as it happens.
//!
//! ```text
//! cargo run -p toolkit --example loop                          # a scripted run: offline, no key
//! cargo run -p toolkit --example loop -- --script my.json      # your own script of turns
//! cargo run -p toolkit --example loop -- --base-url http://127.0.0.1:11434/v1 --model llama3.2 \
//!     "How many words are in 'to be or not to be'?"            # any OpenAI-compatible server
//! ```
//! A key, when the server needs one, comes from `OPENAI_API_KEY`.

mod shared;

use std::process::ExitCode;

use toolkit::provider::{HttpOptions, OpenAiProvider, Provider, ScriptedProvider};
use toolkit::{RunEvent, RunRequest, ToolLoopService, ToolRegistry, recording::RunStep};

const DEMO_SCRIPT: &str = r#"{"turns": [
  {"content": "I will count the words and find the numbers.", "tool_calls": [
    {"name": "count_words", "arguments": {"text": "width=640 height=480 depth=24"}},
    {"name": "find_numbers", "arguments": {"text": "width=640 height=480 depth=24"}}
  ]},
  {"content": "The text has 3 words, all key=value pairs: width 640, height 480, depth 24."}
]}"#;

const DEMO_QUESTION: &str = "Measure 'width=640 height=480 / depth=24' and list its numbers.";

struct Args {
    base_url: Option<String>,
    model: String,
    script: Option<String>,
    question: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        base_url: None,
        model: "gpt-4o-mini".to_owned(),
        script: None,
        question: DEMO_QUESTION.to_owned(),
    };
    let mut words = std::env::args().skip(1);
    while let Some(word) = words.next() {
        let mut value = |flag: &str| words.next().ok_or(format!("{flag} needs a value"));
        match word.as_str() {
            "--base-url" => args.base_url = Some(value("--base-url")?),
            "--model" => args.model = value("--model")?,
            "--script" => args.script = Some(value("--script")?),
            flag if flag.starts_with("--") => return Err(format!("unknown flag {flag}")),
            _ => args.question = word,
        }
    }
    Ok(args)
}

fn provider(args: &Args) -> Result<Box<dyn Provider>, String> {
    if let Some(base_url) = &args.base_url {
        let provider = OpenAiProvider::from_env(base_url, &args.model, HttpOptions::default())
            .map_err(|e| e.to_string())?;
        return Ok(Box::new(provider));
    }
    let script = match &args.script {
        Some(path) => {
            std::fs::read_to_string(path).map_err(|error| format!("cannot read {path}: {error}"))?
        }
        None => DEMO_SCRIPT.to_owned(),
    };
    Ok(Box::new(
        ScriptedProvider::from_json(&script).map_err(|error| error.to_string())?,
    ))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(error) => {
            eprintln!(
                "error: {error}\nusage: loop [--script FILE | --base-url URL [--model NAME]] [QUESTION]"
            );
            return ExitCode::from(2);
        }
    };
    let (registry, provider) = match (ToolRegistry::linked(), provider(&args)) {
        (Ok(registry), Ok(provider)) => (registry, provider),
        (Err(error), _) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
        (_, Err(error)) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let service = ToolLoopService::new(registry);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut events = service.subscribe();
    let result = runtime.block_on(async {
        let progress = tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                if !print_progress(&event) {
                    break;
                }
            }
        });
        let result = service
            .run(provider.as_ref(), RunRequest::new(args.question))
            .await;
        let _ = progress.await;
        result
    });
    match result {
        Ok(result) => {
            println!(
                "== {:?} after {} iterations, {} tool calls",
                result.termination,
                result.iterations,
                result.trace.invocations().count()
            );
            println!("{}", result.content);
            for invocation in result.trace.invocations() {
                println!(
                    "== artifacts of {} (run-only, never sent):",
                    invocation.name()
                );
                invocation
                    .artifacts()
                    .iter()
                    .for_each(shared::print_artifact);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// One line per finished step; `false` once the run is done.
fn print_progress(event: &RunEvent) -> bool {
    match event {
        RunEvent::StepFinished {
            index,
            step:
                RunStep::Llm {
                    iteration,
                    tool_calls,
                    duration,
                    error,
                    ..
                },
            ..
        } => match error {
            Some(error) => {
                println!("[{index}] llm #{iteration} failed after {duration:?}: {error}");
            }
            None => println!(
                "[{index}] llm #{iteration}: {} tool calls ({duration:?})",
                tool_calls.len()
            ),
        },
        RunEvent::ToolInvoked {
            index, invocation, ..
        } => {
            let first_line = invocation.content().lines().next().unwrap_or_default();
            println!(
                "[{index}] tool {}{}: {first_line} | {} artifacts (run-only) ({:?})",
                invocation.name(),
                if invocation.is_error() { " failed" } else { "" },
                invocation.artifacts().len(),
                invocation.duration()
            );
        }
        RunEvent::Done { .. } => return false,
        _ => {}
    }
    true
}
