//! What a running tool reports: its progress and its log lines, paced, masked and cut (the
//! items are public in [`talk`](crate::talk)).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::filter::ContentFilter;
use crate::limits::{FILTER_MARGIN, PROGRESS_INTERVAL, REPORT_LIMIT, REPORT_LOG_LINES};

/// How much a log line matters, lowest first: the eight levels of syslog (RFC 5424), which MCP
/// logging uses too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(
    clippy::exhaustive_enums,
    reason = "the eight syslog levels, which MCP fixes too"
)]
pub enum LogLevel {
    /// Detail for whoever debugs the tool.
    Debug,
    /// What the tool is doing.
    Info,
    /// Normal but worth noticing.
    Notice,
    /// Something may be wrong; the call goes on.
    Warning,
    /// Something failed.
    Error,
    /// A part of the system failed.
    Critical,
    /// Someone must act at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The level's name as MCP and syslog write it: `debug`, `info`, ..., `emergency`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing a running call reported, as a [`ReportSink`] hears it: already paced, masked by
/// the run's content filter and cut to [`REPORT_LIMIT`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallReport {
    /// How far the call is: `done` of `total` (when the tool knows the total), and what it is
    /// doing.
    #[non_exhaustive]
    Progress {
        /// The steps done; more than the last report's.
        done: u64,
        /// The steps in all, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<u64>,
        /// What the step is, when the tool said (an empty message is none).
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// A line of the call's log.
    #[non_exhaustive]
    Log {
        /// How much it matters.
        level: LogLevel,
        /// The line.
        message: String,
    },
}

/// Hears what the calls of a scope report while they run
/// ([`RunScope::with_reports`](crate::RunScope::with_reports)). It is called on the thread
/// that reports (a worker's, for a blocking tool), so it does not block: it hands the report
/// on (a channel, a broadcast) and returns.
pub trait ReportSink: Send + Sync {
    /// `report` from the call `call_id` (the model's id of the call in a loop; the id the
    /// caller of [`Seam::invoke_call`](crate::Seam::invoke_call) gave; empty for
    /// [`Seam::invoke`](crate::Seam::invoke), which takes none).
    fn report(&self, call_id: &str, report: CallReport);
}

/// One call's reporting: where its reports go, under which id, and its pace so far.
pub(crate) struct CallReporter {
    sink: Arc<dyn ReportSink>,
    call_id: Box<str>,
    pace: Mutex<Pace>,
}

/// What a call reported so far, for pacing the next report.
#[derive(Default)]
struct Pace {
    /// When the last progress report was sent, and how far it said the call was.
    progress: Option<(Instant, u64)>,
    /// Log lines sent; past [`REPORT_LOG_LINES`], lines dropped.
    lines: usize,
}

impl CallReporter {
    pub(crate) fn new(sink: Arc<dyn ReportSink>, call_id: &str) -> Self {
        Self {
            sink,
            call_id: call_id.into(),
            pace: Mutex::default(),
        }
    }

    /// Sends a progress step unless it comes too soon after the last or does not move forward.
    pub(crate) fn progress(
        &self,
        filter: Option<&dyn ContentFilter>,
        done: u64,
        total: Option<u64>,
        message: &str,
    ) {
        let now = Instant::now();
        {
            let mut pace = self.pace.lock().unwrap_or_else(PoisonError::into_inner);
            let last = total.is_some_and(|total| done >= total);
            if let Some((at, before)) = pace.progress
                && (done <= before || (!last && now.duration_since(at) < PROGRESS_INTERVAL))
            {
                return;
            }
            pace.progress = Some((now, done));
        }
        let message = (!message.is_empty()).then(|| bounded(filter, message));
        self.sink.report(
            &self.call_id,
            CallReport::Progress {
                done,
                total,
                message,
            },
        );
    }

    /// Sends a log line while the call has lines left; the first line past them says how many
    /// it may send.
    pub(crate) fn log(&self, filter: Option<&dyn ContentFilter>, level: LogLevel, message: &str) {
        let line = {
            let mut pace = self.pace.lock().unwrap_or_else(PoisonError::into_inner);
            pace.lines = pace.lines.saturating_add(1);
            pace.lines
        };
        let report = match line {
            line if line <= REPORT_LOG_LINES => CallReport::Log {
                level,
                message: bounded(filter, message),
            },
            line if line == REPORT_LOG_LINES + 1 => CallReport::Log {
                level: LogLevel::Warning,
                message: format!(
                    "this call has logged {REPORT_LOG_LINES} lines, the most one call may; its \
                     later lines are dropped"
                ),
            },
            _ => return,
        };
        self.sink.report(&self.call_id, report);
    }
}

impl fmt::Debug for CallReporter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallReporter")
            .field("call_id", &self.call_id)
            .finish_non_exhaustive()
    }
}

/// `message` as the filter passes it (its head only: what a cut keeps, and a margin so that a
/// secret across the cut is whole when the filter reads it), cut to [`REPORT_LIMIT`] bytes.
pub(crate) fn bounded(filter: Option<&dyn ContentFilter>, message: &str) -> String {
    let head = &message[..message.floor_char_boundary(REPORT_LIMIT + FILTER_MARGIN)];
    let filtered = match filter {
        Some(filter) => filter.filter(head),
        None => head.into(),
    };
    if filtered.len() <= REPORT_LIMIT && head.len() == message.len() {
        return filtered.into_owned();
    }
    let cut = filtered.floor_char_boundary(REPORT_LIMIT - '…'.len_utf8());
    let mut text = filtered[..cut].to_owned();
    text.push('…');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[derive(Default)]
    struct Heard(Mutex<Vec<(String, CallReport)>>);

    impl ReportSink for Heard {
        fn report(&self, call_id: &str, report: CallReport) {
            self.0.lock().unwrap().push((call_id.to_owned(), report));
        }
    }

    fn reporter() -> (Arc<Heard>, CallReporter) {
        let heard = Arc::new(Heard::default());
        let reporter = CallReporter::new(heard.clone(), "call_9");
        (heard, reporter)
    }

    fn progress(report: &CallReport) -> (u64, Option<u64>, Option<&str>) {
        match report {
            CallReport::Progress {
                done,
                total,
                message,
            } => (*done, *total, message.as_deref()),
            CallReport::Log { .. } => panic!("a log line, not progress: {report:?}"),
        }
    }

    #[test]
    fn progress_is_paced_forward_only_and_its_last_step_always_goes() {
        let (heard, reporter) = reporter();
        reporter.progress(None, 0, Some(100), "start");
        // Too soon after the first.
        reporter.progress(None, 10, Some(100), "");
        // Not forward, however late.
        std::thread::sleep(PROGRESS_INTERVAL);
        reporter.progress(None, 0, Some(100), "again");
        reporter.progress(None, 50, Some(100), "");
        // Too soon, but the last step.
        reporter.progress(None, 100, Some(100), "done");
        // Too soon too, forward and at or past the total: a last step again.
        reporter.progress(None, 120, Some(100), "");
        let heard = heard.0.lock().unwrap();
        let steps: Vec<_> = heard.iter().map(|(_, report)| progress(report)).collect();
        assert_eq!(
            steps,
            [
                (0, Some(100), Some("start")),
                (50, Some(100), None),
                (100, Some(100), Some("done")),
                (120, Some(100), None),
            ]
        );
        assert!(heard.iter().all(|(call_id, _)| call_id == "call_9"));
    }

    #[test]
    fn progress_without_a_total_is_paced_by_time_alone() {
        let (heard, reporter) = reporter();
        reporter.progress(None, 1, None, "");
        reporter.progress(None, 2, None, "");
        std::thread::sleep(PROGRESS_INTERVAL);
        reporter.progress(None, 3, None, "");
        let heard = heard.0.lock().unwrap();
        let done: Vec<u64> = heard.iter().map(|(_, report)| progress(report).0).collect();
        assert_eq!(done, [1, 3]);
    }

    #[test]
    fn a_call_logs_its_lines_then_one_warning_then_nothing() {
        let (heard, reporter) = reporter();
        for line in 0..REPORT_LOG_LINES + 5 {
            reporter.log(None, LogLevel::Debug, &format!("line {line}"));
        }
        let heard = heard.0.lock().unwrap();
        assert_eq!(heard.len(), REPORT_LOG_LINES + 1);
        assert_eq!(
            heard[REPORT_LOG_LINES - 1].1,
            CallReport::Log {
                level: LogLevel::Debug,
                message: format!("line {}", REPORT_LOG_LINES - 1)
            }
        );
        assert_eq!(
            heard[REPORT_LOG_LINES].1,
            CallReport::Log {
                level: LogLevel::Warning,
                message: "this call has logged 1000 lines, the most one call may; its later \
                          lines are dropped"
                    .to_owned()
            }
        );
    }

    struct Masks;

    impl ContentFilter for Masks {
        fn filter<'a>(&self, content: &'a str) -> Cow<'a, str> {
            Cow::Owned(content.replace("hunter2", "[REDACTED]"))
        }
    }

    #[test]
    fn messages_are_masked_then_cut_on_a_character_boundary() {
        assert_eq!(bounded(Some(&Masks), "pw hunter2"), "pw [REDACTED]");
        assert_eq!(bounded(None, "short"), "short");
        // A secret across the cut is masked before the cut, not cut in half and shown.
        let across = format!("{}hunter2{}", "a".repeat(REPORT_LIMIT - 4), "b".repeat(10));
        let cut = bounded(Some(&Masks), &across);
        assert_eq!(cut.len(), REPORT_LIMIT);
        assert!(cut.ends_with("aaa[…"), "{}", &cut[cut.len() - 16..]);
        // Multi-byte characters are never split.
        let wide = "é".repeat(REPORT_LIMIT);
        let cut = bounded(None, &wide);
        assert_eq!(cut.len(), REPORT_LIMIT - 1);
        assert!(cut.ends_with("é…"));
        // A message far past the limit is read only up to the margin.
        let long = "x".repeat(REPORT_LIMIT + FILTER_MARGIN + 100);
        assert_eq!(bounded(None, &long).len(), REPORT_LIMIT);
    }

    #[test]
    fn levels_are_ordered_and_named_as_mcp_names_them() {
        assert!(LogLevel::Debug < LogLevel::Info && LogLevel::Alert < LogLevel::Emergency);
        assert_eq!(
            serde_json::to_string(&LogLevel::Warning).unwrap(),
            "\"warning\""
        );
        assert_eq!(LogLevel::Critical.to_string(), "critical");
        let report = CallReport::Progress {
            done: 2,
            total: None,
            message: None,
        };
        assert_eq!(
            serde_json::to_string(&report).unwrap(),
            r#"{"kind":"progress","done":2}"#
        );
    }
}
