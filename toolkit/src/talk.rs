//! What a running tool tells the people watching it and asks them, never the model: how far it
//! is ([`ToolContext::progress`](crate::ToolContext::progress)), lines of its log
//! ([`ToolContext::log`](crate::ToolContext::log)), and questions
//! ([`ToolContext::ask`](crate::ToolContext::ask)).
//!
//! # Progress and log lines
//!
//! A scope given a [`ReportSink`] ([`RunScope::with_reports`](crate::RunScope::with_reports))
//! hears every report of its calls: a loop run's scope has one that turns each report into a
//! [`RunEvent::ToolReport`](crate::RunEvent::ToolReport) for subscribers (the playground's page
//! draws a progress bar and the log lines on the running call); an MCP server's has one that
//! sends `notifications/progress` to a client that gave a progress token and
//! `notifications/message` at or above the level the client set. Without a sink, reporting
//! costs a check of one field.
//!
//! Every message is the run's content filter's output (secrets masked, as in content), cut to
//! [`REPORT_LIMIT`](crate::limits::REPORT_LIMIT) bytes; a call's progress is paced (at most one
//! report every [`PROGRESS_INTERVAL`](crate::limits::PROGRESS_INTERVAL), a report that does not
//! move forward dropped, the last step always sent) and its log holds at most
//! [`REPORT_LOG_LINES`](crate::limits::REPORT_LOG_LINES) lines. Nothing reported is an artifact
//! or model content: the model reads only what the tool returns, and the audit copy keeps the
//! finished call, not its reports.
//!
//! ```standalone_crate
//! use std::sync::{Arc, Mutex};
//! use toolkit::talk::{CallReport, LogLevel, ReportSink};
//! use toolkit::{tool, Seam, ToolContext, ToolRegistry, ToolResult};
//!
//! /// Counts to three.
//! #[tool]
//! fn count(context: &ToolContext) -> ToolResult {
//!     for step in 1..=3 {
//!         context.progress(step, Some(3), &format!("step {step}"));
//!     }
//!     context.log(LogLevel::Info, "counted");
//!     ToolResult::text("3")
//! }
//!
//! #[derive(Default)]
//! struct Heard(Mutex<Vec<(String, CallReport)>>);
//!
//! impl ReportSink for Heard {
//!     fn report(&self, call_id: &str, report: CallReport) {
//!         self.0.lock().unwrap().push((call_id.to_owned(), report));
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let seam = Seam::new(ToolRegistry::linked().unwrap());
//! let heard = Arc::new(Heard::default());
//! let scope = seam.scope(ToolContext::new()).unwrap().with_reports(heard.clone());
//! let call = toolkit::ToolCall::new("call_1", "count", "{}");
//! assert_eq!(seam.invoke_call(&scope, &call).await.content(), "3");
//!
//! let heard = heard.0.lock().unwrap();
//! // The first step and the last one; the second came too soon after the first.
//! assert_eq!(heard.len(), 3);
//! assert!(heard.iter().all(|(call_id, _)| call_id == "call_1"));
//! assert!(matches!(&heard[1].1, CallReport::Progress { done: 3, total: Some(3), .. }));
//! assert!(matches!(&heard[2].1, CallReport::Log { level: LogLevel::Info, message, .. } if message == "counted"));
//! # });
//! ```
//!
//! # Questions
//!
//! [`ToolContext::ask`](crate::ToolContext::ask) asks the person for a typed answer, a form
//! whose fields come from a Rust type.
//!
//! A question is answered the way MCP's multi round-trip requests answer one: the call ends
//! waiting, whoever runs it asks the person (a loop run suspends, sealed as for an approval;
//! an MCP client shows a form: `input_required` on 2026-07-28, elicitation on 2025-11-25), and
//! the call runs again from the start with the answers given so far, where `ask` returns the
//! answer at once. A tool that asks therefore
//! does before its questions only what it may do twice (reading, checking), and what it must do
//! once after them. A caller that can ask runs a call with
//! [`Seam::invoke_answering`](crate::Seam::invoke_answering) and its answers, and gets the
//! questions left ([`Invoked::Asking`]), or records it with
//! [`ToolLoopService::call_observed_answering`](crate::ToolLoopService::call_observed_answering);
//! everywhere else (a plain [`Seam::invoke`](crate::Seam::invoke), an MCP client that
//! answers no forms) `ask` returns [`Unanswered::NobodyToAsk`] at once, and the tool says what
//! it can do without an answer. A call that needs an operator's approval runs once approved,
//! with nobody to answer its questions.
//!
//! A question's text passes the run's content filter and is cut like a log line
//! ([`REPORT_LIMIT`](crate::limits::REPORT_LIMIT)); an answer is checked against its form (it
//! must decode into the type) before the tool sees it, and one that does not is asked again,
//! saying why.
//!
//! ```standalone_crate
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use toolkit::talk::{Answer, Answers, Invoked};
//! use toolkit::{tool, Seam, ToolCall, ToolContext, ToolRegistry};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Name {
//!     /// Your name.
//!     name: String,
//! }
//!
//! /// Greets the person by the name they give.
//! #[tool]
//! fn greet(context: &ToolContext) -> Result<String, String> {
//!     let answer: Name = context
//!         .ask("user_name", "What is your name?")
//!         .map_err(|unanswered| unanswered.to_string())?;
//!     Ok(format!("Hello, {}!", answer.name))
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let seam = Seam::new(ToolRegistry::linked().unwrap());
//! let scope = seam.scope(ToolContext::new()).unwrap();
//! let call = ToolCall::new("call_1", "greet", "{}");
//!
//! // The first round asks.
//! let Invoked::Asking { asked, .. } = seam.invoke_answering(&scope, &call, Answers::new()).await else {
//!     panic!("the tool asks");
//! };
//! assert_eq!((asked[0].key(), asked[0].message()), ("user_name", "What is your name?"));
//! assert_eq!(asked[0].form()["required"], serde_json::json!(["name"]));
//!
//! // The second runs with the answer.
//! let answers = Answers::new().with("user_name", Answer::accept(serde_json::json!({"name": "Ada"})));
//! let Invoked::Done(result) = seam.invoke_answering(&scope, &call, answers).await else {
//!     panic!("the tool has its answer");
//! };
//! assert_eq!(result.content(), "Hello, Ada!");
//!
//! // Where nobody can answer, the tool hears so at once.
//! let result = seam.invoke_call(&scope, &call).await;
//! assert_eq!(result.content(), "nobody can answer the question \"user_name\" here: this call runs where no person is asked");
//! # });
//! ```

pub use crate::ask::{Answer, Answers, Asked, Unanswered};
pub use crate::report::{CallReport, LogLevel, ReportSink};
pub use crate::seam::Invoked;
