//! What a tool sees besides its arguments: the caller's rights and typed extensions.

use std::any::{Any, TypeId, type_name};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::ask::{Asking, Unanswered};
use crate::filter::ContentFilter;
use crate::report::{CallReporter, LogLevel, ReportSink};

/// The caller's rights and the typed values (resources, policies) tools read while they run.
///
/// The core knows no tool's domain: a workspace folder, a database or a client is an extension
/// of a type its tools define, given with [`with_extension`](Self::with_extension) and read with
/// [`extension`](Self::extension). A `&ToolContext` parameter of a `#[tool]` function is injected
/// and is not part of the argument schema.
///
/// A clone shares every extension with the context it came from: the values themselves, not
/// copies (each is held in an `Arc`), so a pool, a cache or a counter given once is the same
/// one for every clone, every call and a run resumed with the clone. Adding an extension to a
/// clone changes only that clone (and its own clones). The admin flag is copied.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use toolkit::ToolContext;
///
/// struct Greeting(&'static str);
///
/// let context = ToolContext::new()
///     .with_extension(Greeting("hello"))
///     .with_extension(AtomicUsize::new(0));
/// assert_eq!(context.extension::<Greeting>().map(|g| g.0), Some("hello"));
/// assert!(!context.is_admin());
///
/// // A clone reads the same counter, not a copy of it.
/// let clone = context.clone();
/// clone.extension::<AtomicUsize>().unwrap().fetch_add(1, Ordering::SeqCst);
/// assert_eq!(context.extension::<AtomicUsize>().unwrap().load(Ordering::SeqCst), 1);
/// // What is added to the clone stays with it.
/// let clone = clone.with_extension(7u32);
/// assert!(context.extension::<u32>().is_none() && clone.extension::<u32>() == Some(&7));
/// ```
#[derive(Clone, Default)]
pub struct ToolContext {
    admin: bool,
    // False (the default) when people see a call's artifacts; true where nothing shows them.
    artifacts_unseen: bool,
    // Shared: a context is cloned for every call that runs on a worker thread. None until the
    // first extension, so that an empty context (one per run, by default) allocates nothing.
    extensions: Option<Arc<HashMap<TypeId, Extension>>>,
    // The run's content filter, which the seam applies to every content: set by the scope, so
    // that a tool showing part of a longer text can filter the whole text first.
    filter: Option<Arc<dyn ContentFilter>>,
    // Set on the copy of the context a call on a worker gets, and raised when its caller stops
    // waiting (the timeout passed, the scope's cancel signal was given, or the call's future
    // was dropped).
    cancel: Option<Arc<AtomicBool>>,
    // Where the scope's calls report (set by the scope), and this call's reporting (set on the
    // copy of the context one call gets when the scope has a sink).
    reports: Option<Arc<dyn ReportSink>>,
    reporter: Option<Arc<CallReporter>>,
    // The answers a call runs with and the questions it asks, when its caller can ask the
    // person (`Seam::invoke_answering`).
    asking: Option<Arc<Asking>>,
}

#[derive(Clone)]
struct Extension {
    value: Arc<dyn Any + Send + Sync>,
    type_name: &'static str,
}

impl ToolContext {
    /// A context with no extensions and no admin rights.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same context with or without admin rights.
    #[must_use]
    pub fn with_admin(mut self, admin: bool) -> Self {
        self.admin = admin;
        self
    }

    /// The same context holding one value of type `T` for tools to read (it replaces an earlier
    /// value of the same type).
    #[must_use]
    pub fn with_extension<T: Any + Send + Sync>(mut self, value: T) -> Self {
        Arc::make_mut(self.extensions.get_or_insert_default()).insert(
            TypeId::of::<T>(),
            Extension {
                value: Arc::new(value),
                type_name: type_name::<T>(),
            },
        );
        self
    }

    /// Whether the caller has admin rights.
    pub fn is_admin(&self) -> bool {
        self.admin
    }

    /// The same context saying whether the people the content reaches also see the artifacts
    /// (by default yes). A server whose replies carry only the content, such as an MCP server,
    /// says no (its recorder may still keep them), so that tools do not tell the model "the
    /// user sees every row".
    #[must_use]
    pub fn with_artifacts_shown(mut self, shown: bool) -> Self {
        self.artifacts_unseen = !shown;
        self
    }

    /// Whether the people the content reaches also see the artifacts.
    pub fn artifacts_shown(&self) -> bool {
        !self.artifacts_unseen
    }

    /// `text` as the run's content filter passes it to the model (secrets masked, say), or
    /// `text` itself when the run filters nothing.
    ///
    /// The seam filters every content anyway; a tool that shows only part of a longer text (a
    /// page of it from an offset, whether a pattern matches it) filters the whole text first
    /// and cuts or searches the result, so that no slice and no answer reveals what the filter
    /// hides. The same holds for a layout that parts a name from its value (a CSV cell beside
    /// its column, a column's minimum, a JSON value without its key, lines in another order):
    /// the tool filters the source and lays out the result, since the filter, reading the
    /// content, can no longer tell the value is a secret. Artifacts, for people, may keep the
    /// source as it is.
    pub fn filter_content<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match &self.filter {
            Some(filter) => filter.filter(text),
            None => Cow::Borrowed(text),
        }
    }

    /// Whether the run filters content ([`filter_content`](Self::filter_content) may change a
    /// text). A tool that answers questions about a source rather than showing it (SQL over a
    /// database: `hex(password)` shows no secret's shape) works on the source as the filter
    /// passes it whenever this is true.
    ///
    /// ```
    /// assert!(!toolkit::ToolContext::new().filters_content());
    /// ```
    pub fn filters_content(&self) -> bool {
        self.filter.is_some()
    }

    /// Whether the caller has stopped waiting for this call: its timeout passed, the call's
    /// future was dropped, or its scope's [cancel signal](crate::RunScope::with_cancel) was
    /// given (a loop run cancelled, an MCP client's `notifications/cancelled` or closed
    /// connection). Always false outside a blocking tool's call.
    ///
    /// A tool that runs on a worker (a plain `fn` under `#[tool]`) and may work long checks it
    /// between steps and stops, so that no work outlives the call: its caller has its answer
    /// already (the timeout's, or the cancellation's), and what the tool returns after is
    /// dropped. An `async` tool is stopped by dropping its future, at its next `.await`; work
    /// it hands to a thread of its own needs a flag of its own.
    pub fn is_cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|cancel| cancel.load(Ordering::Relaxed))
    }

    /// The flag behind [`is_cancelled`](Self::is_cancelled), for a library that takes one
    /// (gix's `should_interrupt`, say); a flag nothing raises when the call has none.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone().unwrap_or_default()
    }

    /// Reports how far the call is: `done` steps of `total` (when known), and what it is doing
    /// (`""` for nothing). An MCP client that gave a progress token gets
    /// `notifications/progress`; a loop run's subscribers get a
    /// [`RunEvent::ToolReport`](crate::RunEvent::ToolReport) (the playground draws a progress
    /// bar on the running call); the model and the audit copy get nothing. See
    /// [`talk`](crate::talk) for the pace (a report that does not move forward, or comes
    /// sooner than [`PROGRESS_INTERVAL`](crate::limits::PROGRESS_INTERVAL) after the last one
    /// sent, is dropped, unless `done` reaches `total`) and the masking. Does nothing where
    /// nobody listens.
    ///
    /// ```
    /// use toolkit::{tool, ToolContext, ToolResult};
    ///
    /// /// Checks each file.
    /// #[tool]
    /// fn check(files: Vec<String>, context: &ToolContext) -> ToolResult {
    ///     let total = files.len() as u64;
    ///     for (done, file) in files.iter().enumerate() {
    ///         if context.is_cancelled() {
    ///             break;
    ///         }
    ///         context.progress(done as u64, Some(total), &format!("checking {file}"));
    ///     }
    ///     context.progress(total, Some(total), "");
    ///     ToolResult::text(format!("{total} files checked"))
    /// }
    /// # let _ = CHECK_TOOL;
    /// ```
    pub fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        if let Some(reporter) = &self.reporter {
            reporter.progress(self.filter(), done, total, message);
        }
    }

    /// Logs a line of the call for the people and clients watching it: an MCP client gets
    /// `notifications/message` at or above the level it set (`logging/setLevel`); a loop run's
    /// subscribers get a [`RunEvent::ToolReport`](crate::RunEvent::ToolReport) (the playground
    /// lists the lines on the running call); never the model. Masked like content and cut to
    /// [`REPORT_LIMIT`](crate::limits::REPORT_LIMIT) bytes; a call logs at most
    /// [`REPORT_LOG_LINES`](crate::limits::REPORT_LOG_LINES) lines. Does nothing where nobody
    /// listens.
    pub fn log(&self, level: LogLevel, message: &str) {
        if let Some(reporter) = &self.reporter {
            reporter.log(self.filter(), level, message);
        }
    }

    /// Asks the person a question and gives their answer, a `T` (a struct of simple fields:
    /// strings, numbers, booleans, enums of unit variants, lists of those; each field's doc
    /// comment is its help), or why there is none. `key` names the question among the call's
    /// (1 to 64 letters, digits, `_`, `-`, `.`) and stays the same in every round.
    ///
    /// The call ends waiting for the answer and runs again with it, from the start, where this
    /// returns it at once (see [`talk`](crate::talk)): return the error as it is
    /// ([`Unanswered::Waiting`]) and do nothing before a question that may not be done twice.
    /// Where nobody can answer it returns [`Unanswered::NobodyToAsk`] at once.
    ///
    /// ```
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    /// use toolkit::{tool, ToolContext};
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Confirm {
    ///     /// Delete it?
    ///     delete: bool,
    /// }
    ///
    /// /// Deletes a file once the person confirms.
    /// #[tool]
    /// fn delete_after_asking(path: String, context: &ToolContext) -> Result<String, String> {
    ///     let confirm: Confirm = context
    ///         .ask("confirm", &format!("Delete {path}?"))
    ///         .map_err(|unanswered| unanswered.to_string())?;
    ///     Ok(if confirm.delete { format!("{path} deleted") } else { "kept".to_owned() })
    /// }
    /// # let _ = DELETE_AFTER_ASKING_TOOL;
    /// ```
    ///
    /// # Errors
    /// [`Unanswered`]: the question waits, was declined or dismissed, nobody can answer here,
    /// or `T` is no form.
    pub fn ask<T: serde::de::DeserializeOwned + schemars::JsonSchema>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<T, Unanswered> {
        match &self.asking {
            Some(asking) => asking.answer(self.filter(), key, message),
            None => Err(Unanswered::NobodyToAsk(crate::bound::echo(key))),
        }
    }

    /// The same context whose calls report to `sink`.
    pub(crate) fn with_reports(mut self, sink: Arc<dyn ReportSink>) -> Self {
        self.reports = Some(sink);
        self
    }

    /// The context one call gets when its scope has a report sink or its caller can ask: this
    /// one, reporting as `call_id` and asking with `asking`; `None` when neither (the call then
    /// gets this context itself).
    pub(crate) fn for_one_call(&self, call_id: &str, asking: Option<&Arc<Asking>>) -> Option<Self> {
        if self.reports.is_none() && asking.is_none() {
            return None;
        }
        let reporter = self
            .reports
            .as_ref()
            .map(|sink| Arc::new(CallReporter::new(Arc::clone(sink), call_id)));
        Some(Self {
            reporter,
            asking: asking.cloned(),
            ..self.clone()
        })
    }

    /// The same context filtering content with `filter` (`None`: not at all).
    pub(crate) fn with_filter(mut self, filter: Option<Arc<dyn ContentFilter>>) -> Self {
        self.filter = filter;
        self
    }

    /// The run's content filter.
    pub(crate) fn filter(&self) -> Option<&dyn ContentFilter> {
        self.filter.as_deref()
    }

    /// The same context for one call that `cancel` stops.
    pub(crate) fn for_call(&self, cancel: Arc<AtomicBool>) -> Self {
        Self {
            cancel: Some(cancel),
            ..self.clone()
        }
    }

    /// Whether the context holds a value of this state type.
    pub fn has_state(&self, state: StateType) -> bool {
        self.holds(state.id())
    }

    /// Whether the context holds a value of the type `id` names.
    pub(crate) fn holds(&self, id: TypeId) -> bool {
        self.extensions
            .as_ref()
            .is_some_and(|extensions| extensions.contains_key(&id))
    }

    /// The value of type `T` given with [`with_extension`](Self::with_extension).
    pub fn extension<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.extension_of()
    }

    /// The same lookup with no `Send + Sync` bound (only a value that has it is ever stored),
    /// so that a `#[state]` type that lacks it is reported once, where the spec declares it.
    pub(crate) fn extension_of<T: Any>(&self) -> Option<&T> {
        self.extensions
            .as_ref()?
            .get(&TypeId::of::<T>())
            .and_then(|extension| extension.value.downcast_ref())
    }
}

/// A type of state a tool reads from the [`ToolContext`]: declared in its spec (a `#[state]`
/// parameter of a `#[tool]` function, or [`ToolSpec::with_state`](crate::ToolSpec::with_state))
/// and checked when a scope is built, so that a missing one fails once, before any call, naming
/// the tool and the type. Two are equal when their types are, however they are written.
#[derive(Clone, Copy, Debug)]
pub struct StateType {
    id: TypeId,
    /// `Arc<T>`'s, to tell someone who gave the context an `Arc` of the state.
    in_arc: TypeId,
    name: &'static str,
    written: &'static str,
}

impl StateType {
    /// The state type `T`.
    pub fn of<T: Any + Send + Sync>() -> Self {
        Self::new::<T>(type_name::<T>())
    }

    /// The same without the bound `#[tool]` checks itself (see `__private::StateValue`), and
    /// with the type as the tool's code writes it.
    pub(crate) fn new<T: Any>(written: &'static str) -> Self {
        Self {
            id: TypeId::of::<T>(),
            in_arc: TypeId::of::<Arc<T>>(),
            name: type_name::<T>(),
            written,
        }
    }

    /// The type's name, as `std::any::type_name` gives it.
    pub fn type_name(self) -> &'static str {
        self.name
    }

    /// The type as the tool's code writes it (`Db` for `#[state] db: &Db`); for a state
    /// declared with [`ToolSpec::with_state`](crate::ToolSpec::with_state), its
    /// [`type_name`](Self::type_name).
    pub fn written(self) -> &'static str {
        self.written
    }

    pub(crate) fn id(self) -> TypeId {
        self.id
    }

    pub(crate) fn in_arc(self) -> TypeId {
        self.in_arc
    }
}

impl PartialEq for StateType {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for StateType {}

impl std::hash::Hash for StateType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self
            .extensions
            .iter()
            .flat_map(|extensions| extensions.values())
            .map(|extension| extension.type_name)
            .collect();
        names.sort_unstable();
        f.debug_struct("ToolContext")
            .field("admin", &self.admin)
            .field("artifacts_unseen", &self.artifacts_unseen)
            .field("extensions", &names)
            .field("filtered", &self.filter.is_some())
            .field("reported", &self.reports.is_some())
            .finish_non_exhaustive()
    }
}
