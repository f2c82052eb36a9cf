//! OpenTelemetry export of runs: a span per run, per model call and per tool execution, named
//! and attributed after the GenAI semantic conventions, sent over OTLP (HTTP/protobuf) by the
//! official crates. Artifacts never go into a span: only their count, types and size. Contents
//! (the question, the model's text, arguments, results) follow the privacy level, as in the
//! audit copy.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use opentelemetry::trace::{
    Span as _, SpanKind, Status, TraceContextExt as _, Tracer as _, TracerProvider as _,
};
use opentelemetry::{Array, Context, KeyValue, StringValue, Value};
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use serde_json::json;
use toolkit::{
    RunEvent, Sink,
    recording::{RunKind, RunStep, ToolInvocation},
    shared::BackendFuture,
};

use crate::privacy::Privacy;

/// The export could not be set up or flushed.
#[derive(Debug, thiserror::Error)]
#[error("OTLP export: {0}")]
pub struct OtlpError(String);

/// Where runs go as OpenTelemetry traces: a [`Sink`] for a service's recorder.
///
/// Spans (GenAI semantic conventions):
/// - `invoke_agent toolkit`, one per run (`gen_ai.operation.name` = `invoke_agent`,
///   `gen_ai.conversation.id` = the run id), with events for the request, suspensions, resumes
///   and errors;
/// - `chat {model}`, one per model call, a child of the run (`gen_ai.provider.name`,
///   `gen_ai.request.model`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`,
///   `gen_ai.usage.cache_read.input_tokens` and `gen_ai.usage.cache_creation.input_tokens`
///   and `toolkit.usage.reasoning_tokens` when the provider counted them,
///   `gen_ai.response.finish_reasons` with the turn's [`StopReason`](toolkit::provider::StopReason)
///   name, and `toolkit.llm.thinking_bytes`: what the model thought is never exported);
/// - `execute_tool {name}`, one per tool call, a child of the run (`gen_ai.tool.name`,
///   `gen_ai.tool.call.id`, and `toolkit.artifact.count`, `toolkit.artifact.types`,
///   `toolkit.artifact.bytes`; for a result that showed the model media,
///   `toolkit.tool.media.count`, `toolkit.tool.media.types` and `toolkit.tool.media.bytes`:
///   never the media's bytes, at any level).
///
/// At `redacted` and `full`, the question (`gen_ai.input.messages`), the model's answer
/// (`gen_ai.output.messages`), a tool's arguments and result (`gen_ai.tool.call.arguments`,
/// `gen_ai.tool.call.result`) are added as the audit copy keeps them.
///
/// Spans are sent in batches from a thread of their own; [`shutdown`](Self::shutdown) sends
/// what is left (a program calls it before it exits).
pub struct OtlpExport {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    privacy: Privacy,
    model: Model,
    runs: Mutex<HashMap<String, Context>>,
}

/// Who answers the model calls, as the chat spans name it.
#[derive(Clone, Debug)]
struct Model {
    provider: String,
    name: String,
}

impl std::fmt::Debug for OtlpExport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtlpExport")
            .field("privacy", &self.privacy)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl OtlpExport {
    /// Exports to the OTLP/HTTP receiver at `endpoint` (`http://host:4318`; traces go to
    /// `/v1/traces` under it), keeping contents as `privacy` allows, as service `toolkit`.
    pub fn new(endpoint: &str, privacy: Privacy) -> Result<Self, OtlpError> {
        Self::exporting(endpoint, privacy, None)
    }

    /// [`new`](Self::new), for one instance of several: every span's resource carries
    /// `service.instance.id` = `instance`, so that one receiver of a fleet's traces tells the
    /// instances apart.
    pub fn for_instance(
        endpoint: &str,
        privacy: Privacy,
        instance: &str,
    ) -> Result<Self, OtlpError> {
        Self::exporting(endpoint, privacy, Some(instance))
    }

    fn exporting(
        endpoint: &str,
        privacy: Privacy,
        instance: Option<&str>,
    ) -> Result<Self, OtlpError> {
        let endpoint = endpoint.trim_end_matches('/');
        let url = if endpoint.ends_with("/v1/traces") {
            endpoint.to_owned()
        } else {
            format!("{endpoint}/v1/traces")
        };
        // The exporter's blocking HTTP client cannot be made on an async runtime's thread: it is
        // made on a thread of its own.
        let exporter = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    opentelemetry_otlp::SpanExporter::builder()
                        .with_http()
                        .with_endpoint(url.as_str())
                        .with_timeout(Duration::from_secs(10))
                        .build()
                })
                .join()
        })
        .map_err(|_| OtlpError("the exporter's setup panicked".to_owned()))?
        .map_err(|error| OtlpError(error.to_string()))?;
        let mut resource = Resource::builder().with_service_name("toolkit");
        if let Some(instance) = instance {
            resource =
                resource.with_attribute(KeyValue::new("service.instance.id", instance.to_owned()));
        }
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.build())
            .build();
        let tracer = provider.tracer("toolkit");
        Ok(Self {
            provider,
            tracer,
            privacy,
            model: Model {
                provider: "unknown".to_owned(),
                name: "unknown".to_owned(),
            },
            runs: Mutex::new(HashMap::new()),
        })
    }

    /// Names the model calls' provider (`openai`, `anthropic`, ...) and model.
    #[must_use]
    pub fn with_model(mut self, provider: &str, model: &str) -> Self {
        self.model = Model {
            provider: provider.to_owned(),
            name: model.to_owned(),
        };
        self
    }

    /// Sends what is left and stops; spans of runs not yet done are ended first, marked
    /// unfinished. Blocks: call it outside async code (or on a blocking thread).
    pub fn shutdown(&self) -> Result<(), OtlpError> {
        let open: Vec<Context> = self
            .runs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .map(|(_, context)| context)
            .collect();
        for context in open {
            let span = context.span();
            span.set_attribute(KeyValue::new("toolkit.run.termination", "unfinished"));
            span.end();
        }
        self.provider
            .shutdown()
            .map_err(|error| OtlpError(error.to_string()))
    }

    /// The run span's context, started now if this is the first the export hears of the run
    /// (a run resumed in this process, say).
    fn run_context(&self, run_id: &str, kind: Option<RunKind>, title: Option<&str>) -> Context {
        let mut runs = self.runs.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(context) = runs.get(run_id) {
            return context.clone();
        }
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "invoke_agent"),
            KeyValue::new("gen_ai.agent.name", "toolkit"),
            KeyValue::new("gen_ai.conversation.id", run_id.to_owned()),
        ];
        if let Some(kind) = kind {
            attributes.push(KeyValue::new("toolkit.run.kind", kind.as_str()));
        }
        if let (Some(RunKind::Run), Some(question)) = (kind, title)
            && let Some(question) = self.privacy.keep(question)
        {
            let messages =
                json!([{"role": "user", "parts": [{"type": "text", "content": question}]}]);
            attributes.push(KeyValue::new("gen_ai.input.messages", messages.to_string()));
        }
        let span = self
            .tracer
            .span_builder("invoke_agent toolkit")
            .with_kind(SpanKind::Internal)
            .with_attributes(attributes)
            .start(&self.tracer);
        let context = Context::new().with_span(span);
        runs.insert(run_id.to_owned(), context.clone());
        context
    }

    /// A finished child of the run: it began `duration` ago.
    fn child(
        &self,
        parent: &Context,
        name: String,
        kind: SpanKind,
        duration: Duration,
        attributes: Vec<KeyValue>,
        error: Option<(&'static str, String)>,
    ) {
        let now = SystemTime::now();
        let mut span = self
            .tracer
            .span_builder(name)
            .with_kind(kind)
            .with_start_time(now.checked_sub(duration).unwrap_or(now))
            .with_attributes(attributes)
            .start_with_context(&self.tracer, parent);
        if let Some((kind, description)) = error {
            span.set_attribute(KeyValue::new("error.type", kind));
            span.set_status(Status::error(description));
        }
        span.end_with_timestamp(now);
    }

    fn tool_span(&self, parent: &Context, index: usize, invocation: &ToolInvocation) {
        let artifacts = invocation.artifacts();
        let types: Vec<StringValue> = artifacts
            .iter()
            .map(|artifact| StringValue::from(artifact.kind().as_str()))
            .collect();
        // Measured as serialised, without serialising them.
        let bytes = toolkit::bound::artifacts_len(artifacts, usize::MAX).unwrap_or(usize::MAX);
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.name", invocation.name().to_owned()),
            KeyValue::new("gen_ai.tool.call.id", invocation.call_id().to_owned()),
            KeyValue::new("gen_ai.tool.type", "function"),
            KeyValue::new("toolkit.step.index", count(index)),
            KeyValue::new(
                "toolkit.tool.content_bytes",
                count(invocation.content().len()),
            ),
            KeyValue::new("toolkit.artifact.count", count(artifacts.len())),
            KeyValue::new("toolkit.artifact.types", Value::Array(Array::String(types))),
            KeyValue::new("toolkit.artifact.bytes", count(bytes)),
        ];
        // The media the model was shown: how many, their types and their bytes, never the
        // bytes themselves, at every level.
        let media = invocation.wire().media();
        if !media.is_empty() {
            let types: Vec<StringValue> = media
                .iter()
                .map(|part| StringValue::from(part.mime_type()))
                .collect();
            let bytes: usize = media.iter().map(toolkit::wire::WireMedia::len).sum();
            attributes.extend([
                KeyValue::new("toolkit.tool.media.count", count(media.len())),
                KeyValue::new(
                    "toolkit.tool.media.types",
                    Value::Array(Array::String(types)),
                ),
                KeyValue::new("toolkit.tool.media.bytes", count(bytes)),
            ]);
        }
        if let Some(arguments) = self.privacy.keep(invocation.arguments()) {
            attributes.push(KeyValue::new("gen_ai.tool.call.arguments", arguments));
        }
        // Kept (masked) once, for the attribute and the error description alike.
        let result = self.privacy.keep(invocation.content());
        if let Some(result) = &result {
            attributes.push(KeyValue::new("gen_ai.tool.call.result", result.clone()));
        }
        let error = invocation.is_error().then(|| {
            (
                "tool_error",
                result.unwrap_or_else(|| "the tool's result is an error".to_owned()),
            )
        });
        self.child(
            parent,
            format!("execute_tool {}", invocation.name()),
            SpanKind::Internal,
            invocation.duration(),
            attributes,
            error,
        );
    }

    /// The span of one model call.
    fn chat_span(&self, parent: &Context, index: usize, step: &RunStep) {
        let RunStep::Llm {
            iteration,
            content,
            tool_calls,
            usage,
            stop_reason,
            thinking,
            error,
            duration,
            ..
        } = step
        else {
            return;
        };
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.provider.name", self.model.provider.clone()),
            KeyValue::new("gen_ai.request.model", self.model.name.clone()),
            KeyValue::new("gen_ai.usage.input_tokens", count(usage.input_tokens)),
            KeyValue::new("gen_ai.usage.output_tokens", count(usage.output_tokens)),
            KeyValue::new("toolkit.step.index", count(index)),
            KeyValue::new("toolkit.llm.iteration", i64::from(*iteration)),
            KeyValue::new("toolkit.llm.tool_calls", count(tool_calls.len())),
        ];
        attributes.extend(turn_attributes(usage, stop_reason.as_ref(), thinking));
        if self.privacy != Privacy::Metadata {
            let mut parts = vec![json!({"type": "text", "content": self.privacy.keep(content)})];
            parts.extend(tool_calls.iter().map(|call| {
                json!({
                    "type": "tool_call",
                    "id": call.id(),
                    "name": call.name(),
                    "arguments": self.privacy.keep(call.arguments()),
                })
            }));
            let messages = json!([{"role": "assistant", "parts": parts}]);
            attributes.push(KeyValue::new(
                "gen_ai.output.messages",
                messages.to_string(),
            ));
        }
        let error = error.as_ref().map(|message| {
            (
                "provider_error",
                self.privacy
                    .keep(message)
                    .unwrap_or_else(|| "the model call failed".to_owned()),
            )
        });
        self.child(
            parent,
            format!("chat {}", self.model.name),
            SpanKind::Client,
            *duration,
            attributes,
            error,
        );
    }

    fn step(&self, parent: &Context, index: usize, step: &RunStep) {
        match step {
            RunStep::Tool(invocation) => self.tool_span(parent, index, invocation),
            RunStep::Llm { .. } => self.chat_span(parent, index, step),
            RunStep::Request {
                messages, tools, ..
            } => {
                let offered: Vec<StringValue> = tools
                    .iter()
                    .map(|name| StringValue::from(name.clone()))
                    .collect();
                parent.span().add_event(
                    "toolkit.request",
                    vec![
                        KeyValue::new("toolkit.request.messages", count(*messages)),
                        KeyValue::new(
                            "toolkit.request.tools",
                            Value::Array(Array::String(offered)),
                        ),
                    ],
                );
            }
            RunStep::Suspended { pending, .. } => {
                let names: Vec<StringValue> = pending
                    .iter()
                    .map(|call| StringValue::from(call.name().to_owned()))
                    .collect();
                parent.span().add_event(
                    "toolkit.suspended",
                    vec![KeyValue::new(
                        "toolkit.pending.tools",
                        Value::Array(Array::String(names)),
                    )],
                );
            }
            // `toolkit.resumed` or `toolkit.decided`: each decision as metadata.
            RunStep::Resumed { decisions, .. } | RunStep::Decided { decisions, .. } => {
                let summaries: Vec<StringValue> = decisions
                    .iter()
                    .map(|decision| StringValue::from(crate::rows::decision_summary(decision)))
                    .collect();
                let decisions = Value::Array(Array::String(summaries));
                parent.span().add_event(
                    format!("toolkit.{}", step.kind().as_str()),
                    vec![KeyValue::new("toolkit.decisions", decisions)],
                );
            }
            _ => {}
        }
    }
}

/// A count as OpenTelemetry's integer (`i64::MAX` past it).
/// What a model turn says besides its counts of prompt and answer: the parts billed apart when
/// the provider counted them, why it ended, and how much the model thought (never what).
fn turn_attributes(
    usage: &toolkit::provider::Usage,
    stop_reason: Option<&toolkit::provider::StopReason>,
    thinking: &str,
) -> Vec<KeyValue> {
    let mut attributes = vec![KeyValue::new(
        "toolkit.llm.thinking_bytes",
        count(thinking.len()),
    )];
    for (name, tokens) in [
        (
            "gen_ai.usage.cache_read.input_tokens",
            usage.cache_read_tokens,
        ),
        (
            "gen_ai.usage.cache_creation.input_tokens",
            usage.cache_write_tokens,
        ),
        ("toolkit.usage.reasoning_tokens", usage.reasoning_tokens),
    ] {
        if tokens > 0 {
            attributes.push(KeyValue::new(name, count(tokens)));
        }
    }
    if let Some(reason) = stop_reason {
        attributes.push(KeyValue::new(
            "gen_ai.response.finish_reasons",
            Value::Array(Array::String(vec![StringValue::from(
                reason.as_str().to_owned(),
            )])),
        ));
    }
    attributes
}

fn count(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

impl Sink for OtlpExport {
    /// Turns the event into spans; ended spans wait for the batch thread, so this never waits
    /// for the network.
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        match event {
            RunEvent::RunStarted {
                run_id,
                kind,
                title,
                ..
            } => {
                self.run_context(run_id.as_str(), Some(*kind), Some(title));
            }
            RunEvent::ToolInvoked {
                run_id,
                index,
                invocation,
                ..
            } => {
                let parent = self.run_context(run_id.as_str(), None, None);
                self.tool_span(&parent, *index, invocation);
            }
            RunEvent::StepFinished {
                run_id,
                index,
                step,
                ..
            } => {
                let parent = self.run_context(run_id.as_str(), None, None);
                self.step(&parent, *index, step);
            }
            RunEvent::Error {
                run_id, message, ..
            } => {
                let parent = self.run_context(run_id.as_str(), None, None);
                let mut attributes = Vec::new();
                if let Some(message) = self.privacy.keep(message) {
                    attributes.push(KeyValue::new("toolkit.error.message", message));
                }
                parent.span().add_event("toolkit.error", attributes);
            }
            RunEvent::Done {
                run_id,
                termination,
                ..
            } => {
                let context = self
                    .runs
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(run_id.as_str());
                if let Some(context) = context {
                    let span = context.span();
                    span.set_attribute(KeyValue::new(
                        "toolkit.run.termination",
                        termination.as_str(),
                    ));
                    span.end();
                }
            }
            _ => {}
        }
        Box::pin(std::future::ready(Ok(())))
    }
}
