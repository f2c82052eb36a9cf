//! What a run is asked to do: its question, tools, context, options and cancel signal.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::context::ToolContext;
use crate::limits::{DEFAULT_MAX_ITERATIONS, DEFAULT_REMOTE_BUDGET, DEFAULT_TOOL_TIMEOUT};
use crate::recording::RunId;
use crate::resumable::resumable_state;
use crate::seam::CancelSignal;

resumable_state! {
    /// Limits and model settings of one run, built with `with_*` from the defaults.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::RunOptions;
    ///
    /// let options = RunOptions::default().with_max_iterations(3).with_model("gpt-4o-mini");
    /// assert_eq!(options.max_iterations(), 3);
    /// assert_eq!(options.tool_timeout(), Duration::from_secs(30));
    /// ```
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct RunOptions {
        pub(crate) max_iterations: u32,
        pub(crate) tool_timeout: Duration,
        pub(crate) remote_budget: u32,
        pub(crate) model: Option<String>,
        pub(crate) temperature: Option<f32>,
        /// Absent from tokens sealed before runs could stream: those stream.
        #[serde(default = "streams_by_default")]
        pub(crate) stream: bool,
    }
}

fn streams_by_default() -> bool {
    true
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            max_iterations: DEFAULT_MAX_ITERATIONS,
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
            remote_budget: DEFAULT_REMOTE_BUDGET,
            model: None,
            temperature: None,
            stream: true,
        }
    }
}

impl RunOptions {
    /// At most this many provider calls (default 5).
    #[must_use]
    pub fn with_max_iterations(mut self, iterations: u32) -> Self {
        self.max_iterations = iterations;
        self
    }

    /// This long per tool call (default 30 s).
    #[must_use]
    pub fn with_tool_timeout(mut self, timeout: Duration) -> Self {
        self.tool_timeout = timeout;
        self
    }

    /// At most this many calls to remote tools (default 20).
    #[must_use]
    pub fn with_remote_budget(mut self, calls: u32) -> Self {
        self.remote_budget = calls;
        self
    }

    /// This model instead of the provider's default.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// This sampling temperature instead of the provider's default.
    #[must_use]
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Whether the provider is asked to stream its answers (default yes): the model's text
    /// reaches subscribers as it arrives ([`RunEvent::ModelDelta`]); the turn, the trace and
    /// the result are the same either way.
    ///
    /// [`RunEvent::ModelDelta`]: crate::recording::RunEvent::ModelDelta
    #[must_use]
    pub fn with_streaming(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Whether the provider is asked to stream.
    pub fn streaming(&self) -> bool {
        self.stream
    }

    /// Provider calls at most.
    pub fn max_iterations(&self) -> u32 {
        self.max_iterations
    }

    /// Time per tool call.
    pub fn tool_timeout(&self) -> Duration {
        self.tool_timeout
    }

    /// Calls to remote tools at most.
    pub fn remote_budget(&self) -> u32 {
        self.remote_budget
    }

    /// The model, when the run names one.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// The sampling temperature, when the run sets one.
    pub fn temperature(&self) -> Option<f32> {
        self.temperature
    }
}

/// What to run.
#[derive(Debug)]
pub struct RunRequest {
    pub(crate) run_id: RunId,
    pub(crate) system: Option<String>,
    pub(crate) user: String,
    pub(crate) tools: Option<Vec<String>>,
    pub(crate) options: RunOptions,
    pub(crate) context: ToolContext,
    pub(crate) cancel: Option<CancelSignal>,
}

impl RunRequest {
    /// A run answering `user`, with the default tools, options and an empty context. The run's
    /// id is made here, so a caller can follow its events before it starts.
    pub fn new(user: impl Into<String>) -> Self {
        Self {
            run_id: RunId::new("run"),
            system: None,
            user: user.into(),
            tools: None,
            options: RunOptions::default(),
            context: ToolContext::new(),
            cancel: None,
        }
    }

    /// The same request with a system message.
    #[must_use]
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// The same request offering exactly these tools (default: the enabled-by-default tools the
    /// caller may use).
    #[must_use]
    pub fn with_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// The same request with other options.
    #[must_use]
    pub fn with_options(mut self, options: RunOptions) -> Self {
        self.options = options;
        self
    }

    /// The same request with the context tools see.
    #[must_use]
    pub fn with_context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
    }

    /// The same request, cancellable by `signal`: once it is given, the run ends at its next
    /// wait with [`Termination::Cancelled`](crate::recording::Termination::Cancelled), and a
    /// call it is running ends at once, recorded as cancelled (a blocking tool sees
    /// [`ToolContext::is_cancelled`], an async tool's future is dropped).
    #[must_use]
    pub fn with_cancel(mut self, signal: CancelSignal) -> Self {
        self.cancel = Some(signal);
        self
    }

    /// The id the run will have.
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::RunOptions;

    #[test]
    fn options_are_the_defaults_with_what_each_builder_changes() {
        let fields = |options: &RunOptions| {
            (
                options.max_iterations(),
                options.tool_timeout(),
                options.remote_budget(),
                options.model().map(str::to_owned),
                options.temperature(),
            )
        };
        assert_eq!(
            fields(&RunOptions::default()),
            (5, Duration::from_secs(30), 20, None, None)
        );
        let options = RunOptions::default()
            .with_max_iterations(3)
            .with_tool_timeout(Duration::from_millis(1500))
            .with_remote_budget(2)
            .with_model("m-1")
            .with_temperature(0.25);
        assert_eq!(
            fields(&options),
            (
                3,
                Duration::from_millis(1500),
                2,
                Some("m-1".to_owned()),
                Some(0.25)
            )
        );
    }
}
