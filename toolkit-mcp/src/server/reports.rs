//! What a call's tool reports while it runs, as MCP notifications: `notifications/progress` to a
//! client that gave the request a progress token, `notifications/message` (logging) at or above
//! the level the request asked for (2026-07-28: `io.modelcontextprotocol/logLevel` in its
//! `_meta`) or its 2025-11-25 session set (`logging/setLevel`). Nothing is sent, and no sink is
//! made, for a request that asked for neither.

#![allow(
    deprecated,
    reason = "rmcp marks MCP logging deprecated (SEP-2577, gone in 2026-07-28); 2025-11-25 sessions still use it"
)]

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::RoleServer;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{Peer, RequestContext};
use tokio::sync::mpsc;
use toolkit::talk::{CallReport, LogLevel, ReportSink};

/// The least level of the log lines a session gets, as its client set it (`logging/setLevel`);
/// none before it sets one. Shared by the session's calls.
#[derive(Clone, Default)]
pub(super) struct SessionLogLevel(Arc<AtomicU8>);

impl SessionLogLevel {
    pub(super) fn set(&self, level: LoggingLevel) {
        self.0.store(from_mcp(level) as u8 + 1, Ordering::Relaxed);
    }

    fn get(&self) -> Option<LogLevel> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            stored => Some(LEVELS[usize::from(stored - 1)]),
        }
    }
}

const LEVELS: [LogLevel; 8] = [
    LogLevel::Debug,
    LogLevel::Info,
    LogLevel::Notice,
    LogLevel::Warning,
    LogLevel::Error,
    LogLevel::Critical,
    LogLevel::Alert,
    LogLevel::Emergency,
];

fn from_mcp(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

fn to_mcp(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// One request's listener: the sink its call's scope reports to, and the notifications waiting
/// to be sent.
pub(super) struct Listening {
    sink: Arc<dyn ReportSink>,
    notes: mpsc::UnboundedReceiver<Note>,
    peer: Peer<RoleServer>,
}

/// A notification to send.
enum Note {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

/// The sink: turns reports into notes for the request's client, and drops what it did not ask
/// for. A channel, since reports come from a worker's thread as well as the runtime's.
struct Notes {
    sender: mpsc::UnboundedSender<Note>,
    token: Option<ProgressToken>,
    least: Option<LogLevel>,
    tool: String,
}

impl ReportSink for Notes {
    fn report(&self, _call_id: &str, report: CallReport) {
        let note = match report {
            CallReport::Progress {
                done,
                total,
                message,
                ..
            } => {
                let Some(token) = &self.token else { return };
                #[expect(
                    clippy::cast_precision_loss,
                    reason = "MCP's progress is a JSON number; steps past 2^53 are not counted one by one"
                )]
                let mut param = ProgressNotificationParam::new(token.clone(), done as f64);
                #[expect(clippy::cast_precision_loss, reason = "as above")]
                if let Some(total) = total {
                    param = param.with_total(total as f64);
                }
                param.message = message;
                Note::Progress(param)
            }
            CallReport::Log { level, message, .. } => {
                if self.least.is_none_or(|least| level < least) {
                    return;
                }
                Note::Log(
                    LoggingMessageNotificationParam::new(to_mcp(level), message.into())
                        .with_logger(self.tool.clone()),
                )
            }
            _ => return,
        };
        // The request may be answered already (a tool still running after its cancellation).
        let _ = self.sender.send(note);
    }
}

impl Listening {
    /// The listener of a `tools/call` of `tool`, when its client asked for progress (a token
    /// in `_meta`) or for log lines (a 2026-07-28 request's `io.modelcontextprotocol/logLevel`
    /// in `_meta`, else the level its session set); `None` when it asked for neither.
    pub(super) fn of(
        context: &RequestContext<RoleServer>,
        level: &SessionLogLevel,
        tool: &str,
    ) -> Option<Self> {
        let token = context.meta.get_progress_token();
        let least = context
            .meta
            .log_level()
            .map(from_mcp)
            .or_else(|| level.get());
        if token.is_none() && least.is_none() {
            return None;
        }
        let (sender, notes) = mpsc::unbounded_channel();
        let sink = Arc::new(Notes {
            sender,
            token,
            least,
            tool: tool.to_owned(),
        });
        Some(Self {
            sink,
            notes,
            peer: context.peer.clone(),
        })
    }

    /// The sink the call's scope reports to.
    pub(super) fn sink(&self) -> Arc<dyn ReportSink> {
        Arc::clone(&self.sink)
    }

    /// `answer`, sending each note as it comes while the call runs, and the ones left once it
    /// is answered, so that every notification of the call goes before its reply.
    pub(super) async fn forward_while<T>(mut self, answer: impl Future<Output = T>) -> T {
        let mut answer = std::pin::pin!(answer);
        let answered = loop {
            tokio::select! {
                biased;
                Some(note) = self.notes.recv() => send(&self.peer, note).await,
                answered = &mut answer => break answered,
            }
        };
        while let Ok(note) = self.notes.try_recv() {
            send(&self.peer, note).await;
        }
        answered
    }
}

async fn send(peer: &Peer<RoleServer>, note: Note) {
    let sent = match note {
        Note::Progress(param) => peer.notify_progress(param).await,
        Note::Log(param) => peer.notify_logging_message(param).await,
    };
    if let Err(error) = sent {
        tracing::debug!(%error, "a call's notification could not be sent");
    }
}
