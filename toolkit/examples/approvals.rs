//! Approvals from code: a tool that needs an approval before it runs, a policy that approves the
//! small calls itself, and a run that stops for the rest and is resumed with an operator's
//! decision.
//!
//! ```text
//! cargo run -p toolkit --example approvals      # a scripted run: offline, no key
//! ```
//!
//! A `#[tool(requires_approval)]` never runs without an approval of that exact call: the seam
//! refuses it otherwise. In a run, each such call is first put to the service's policies; when
//! none answers, the run suspends with a sealed token and the calls waiting. Whoever decides
//! (a page, a chat, a terminal) resumes it with one `Decision` per waiting call.

use std::error::Error;

use toolkit::approval::{ApprovalPolicy, Decision, PendingCall, PolicyAnswer};
use toolkit::provider::ScriptedProvider;
use toolkit::recording::RunStep;
use toolkit::{RunRequest, ToolContext, ToolLoopResult, ToolLoopService, ToolRegistry, tool};

/// Refunds part of an order (a stand-in: a real tool would call the payment service).
#[tool(requires_approval)]
fn refund(
    /// The order.
    order: String,
    /// How much to refund, in cents.
    cents: u64,
) -> String {
    format!(
        "refunded {}.{:02} on order {order}",
        cents / 100,
        cents % 100
    )
}

/// Approves refunds up to a limit; asks the operator about the others.
struct SmallRefunds {
    limit_cents: u64,
}

impl ApprovalPolicy for SmallRefunds {
    fn name(&self) -> &'static str {
        "small-refunds"
    }

    fn decide(&self, pending: &PendingCall<'_>) -> PolicyAnswer {
        // The seam has checked the call: the arguments decode as the tool's.
        let arguments: serde_json::Value =
            serde_json::from_str(pending.call.arguments()).unwrap_or_default();
        match arguments["cents"].as_u64() {
            Some(cents) if cents <= self.limit_cents => {
                PolicyAnswer::Approve(format!("{cents} cents is within the limit"))
            }
            _ => PolicyAnswer::Ask,
        }
    }
}

/// The model asks for two refunds in one turn, then answers.
const SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [
    {"id": "r1", "name": "refund", "arguments": {"order": "A-17", "cents": 1250}},
    {"id": "r2", "name": "refund", "arguments": {"order": "B-42", "cents": 48000}}
  ]},
  {"content": "Both refunds are done: 12.50 on A-17 and 480.00 on B-42."}
]}"#;

/// The decisions and the tool calls a run recorded, a line each.
fn print_steps(result: &ToolLoopResult) {
    for step in result.trace.steps() {
        match step {
            RunStep::Decided { decisions, .. } | RunStep::Resumed { decisions, .. } => {
                for decision in decisions {
                    println!(
                        "  decided: {}",
                        serde_json::to_string(decision).expect("a record serialises")
                    );
                }
            }
            RunStep::Tool(call) => println!("  tool {} -> {}", call.name(), call.content()),
            _ => {}
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let service = ToolLoopService::new(ToolRegistry::linked()?)
        .with_approval_policy(SmallRefunds { limit_cents: 5000 });
    let provider = ScriptedProvider::from_json(SCRIPT)?;

    // The policy approves r1, which runs; nobody has answered for r2, so the run suspends.
    let first = service
        .run(&provider, RunRequest::new("Refund A-17 and B-42."))
        .await?;
    println!("first run: {:?}", first.termination);
    print_steps(&first);
    let suspension = first.suspension.ok_or("the run waits for r2")?;
    for call in &suspension.pending {
        println!(
            "  waiting: {} {} {}",
            call.id(),
            call.name(),
            call.arguments()
        );
    }

    // The token is the run's state, authenticated (not encrypted) with the service's key: keep
    // it where the conversation may be kept until someone decides; it opens once, within its
    // lifetime, in a service with the same key (`with_seal_key`). Here the operator approves;
    // `Decision::deny_with_reason` would tell the model why not.
    let decisions: Vec<Decision> = suspension
        .pending
        .iter()
        .map(|call| Decision::approve(call.id()))
        .collect();
    let resumed = service
        .resume(&provider, &suspension.token, &decisions, ToolContext::new())
        .await?;
    println!("resumed run: {:?}", resumed.termination);
    print_steps(&resumed);
    println!("model: {}", resumed.content);
    Ok(())
}
