//! Calls answered as tasks: the `io.modelcontextprotocol/tasks` extension (SEP-2663), for
//! the tools whose [`TaskSupport`](toolkit::spec::TaskSupport) allows it and the clients that
//! declare the extension (in the request's `_meta` on 2026-07-28, at `initialize` before).
//!
//! A call of such a tool runs as any call for [`TASK_AFTER`]. What it answers by then is its
//! reply, as for any call: its result (a tool whose every answer is a task gets a task that is
//! completed already), or, on 2026-07-28, the questions its tool asked (`input_required`, no
//! task yet). A call still running then becomes a task: the reply is a `CreateTaskResult`,
//! the call goes on in the background, and the client polls `tasks/get` for it.
//!
//! A task's state is kept in the server's [store](crate::store), so that any instance of a
//! fleet answers `tasks/get`, `tasks/update` and `tasks/cancel` for it; only the instance that
//! runs the call writes the state. The others leave what the client sent beside it, under the
//! task's id: an answer under its round and key, a cancellation. The running instance hears
//! of them at once when it got them itself, and otherwise within [`WATCH_INTERVAL`].
//!
//! - A question the tool asks in a task sets the task `input_required`, each form under the
//!   question's key; `tasks/update` answers some or all (a key not asked is ignored), and the
//!   call runs again with the answers once each question has one, or the person's time to
//!   answer passed (an unanswered question is then dismissed).
//! - `tasks/cancel` raises the call's cancel signal: its tool sees
//!   [`is_cancelled`](toolkit::ToolContext::is_cancelled) (an async tool is dropped), the call
//!   is recorded as cancelled, and the task ends `cancelled`.
//! - A tool's progress becomes the task's `statusMessage`, written at most once per
//!   [`STATUS_INTERVAL`].
//! - A task lives [`TASK_LIFETIME`] from its creation (its `ttlMs`): past it, its call is
//!   cancelled and the store forgets it. The tasks of a stdio connection are cancelled when it
//!   ends, since no client can poll them any more.
//! - A task ends `completed` with the call's result (an error result is completed too, with
//!   `isError`), or `failed` with a JSON-RPC error when the server could not do its part: the
//!   audit copy did not keep the call, or the store did not keep the task's state.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, GetTaskResult, InputRequest, InputRequests,
    InputResponses, JsonObject, Task, TaskPayload, TaskStatus,
};
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;
use toolkit::recording::{Answering, ObservedCall};
use toolkit::seam::CancelSignal;
use toolkit::talk::{Answer, Answers, Asked, CallReport, ReportSink};
use toolkit::{RunScope, ToolCall};

use super::{MAX_FORMS, McpToolServer, questions, too_many_rounds};
use crate::store::{BackendError, SharedStore, TASK_ANSWERS, TASK_CANCELS, TASKS};

/// How long a call of a task tool runs before it becomes a task: what it answers by then is
/// answered in its request.
pub const TASK_AFTER: Duration = Duration::from_millis(100);

/// How long a task is kept from its creation (its `ttlMs`); its call is cancelled when it
/// passes.
pub const TASK_LIFETIME: Duration = Duration::from_hours(1);

/// How often a client is asked to poll a task (its `pollIntervalMs`).
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// How often the instance that runs a task looks in a shared store for what other instances
/// got for it (answers, a cancellation).
pub(super) const WATCH_INTERVAL: Duration = Duration::from_millis(200);

/// How often a task's `statusMessage` is written at most, from its tool's progress.
const STATUS_INTERVAL: Duration = Duration::from_secs(1);

/// A task's state as its running instance writes it: what `tasks/get` shows, less the
/// questions answered since, and the round of questions it is in.
#[derive(Serialize, Deserialize)]
struct Kept {
    task: DetailedTask,
    /// The round of questions the task is in (each `input_required` state is one more).
    round: u32,
    /// When the task ends, in milliseconds since the Unix epoch.
    until_ms: u64,
}

impl Kept {
    /// How long the store keeps it from now: until the task ends (at least a moment, so that a
    /// task written as it ends is still read).
    fn lifetime(&self) -> Duration {
        Duration::from_millis(self.until_ms.saturating_sub(now_ms())).max(Duration::from_secs(1))
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

fn timestamp() -> String {
    rmcp::task_manager::current_timestamp()
}

/// Where an answer to a task's question is left: the task, the round, the question's key.
fn answer_key(task_id: &str, round: u32, key: &str) -> String {
    format!("{task_id}/{round}/{key}")
}

/// The tasks this instance runs: how to cancel each and to wake it for its answers.
#[derive(Clone, Default)]
pub(super) struct LocalTasks(Arc<Mutex<HashMap<String, Local>>>);

#[derive(Clone)]
struct Local {
    cancel: CancelSignal,
    wake: Arc<Notify>,
}

impl LocalTasks {
    fn with<T>(&self, work: impl FnOnce(&mut HashMap<String, Local>) -> T) -> T {
        work(&mut self.0.lock().expect("never poisoned: no panic while held"))
    }

    fn get(&self, task_id: &str) -> Option<Local> {
        self.with(|tasks| tasks.get(task_id).cloned())
    }

    /// Cancels every task this instance runs (its connection closed, so none can be read).
    pub(super) fn cancel_all(&self) {
        self.with(|tasks| {
            for local in tasks.values() {
                local.cancel.cancel();
            }
        });
    }
}

/// A call's progress, kept for the task's `statusMessage`.
#[derive(Default)]
pub(super) struct Progress(Mutex<Option<String>>);

impl Progress {
    fn take(&self) -> Option<String> {
        self.0.lock().expect("never poisoned").take()
    }
}

impl ReportSink for Progress {
    fn report(&self, _call_id: &str, report: CallReport) {
        if let CallReport::Progress {
            done,
            total,
            message,
            ..
        } = report
        {
            let line = match (total, message) {
                (Some(total), Some(message)) => format!("{done} of {total}: {message}"),
                (Some(total), None) => format!("{done} of {total}"),
                (None, Some(message)) => format!("{done}: {message}"),
                (None, None) => done.to_string(),
            };
            *self.0.lock().expect("never poisoned") = Some(line);
        }
    }
}

/// A round of a call running, or to run.
pub(super) type RoundFuture = Pin<Box<dyn Future<Output = Answering> + Send>>;

/// A task's call, as the instance that runs it needs it.
pub(super) struct Running {
    pub(super) server: McpToolServer,
    pub(super) scope: RunScope,
    pub(super) call: ToolCall,
    pub(super) views: bool,
    /// Whether the client answers forms: otherwise its tool's questions are unanswered.
    pub(super) forms: bool,
    pub(super) cancel: CancelSignal,
    pub(super) progress: Arc<Progress>,
}

impl Running {
    /// A round of the call with `answers`.
    pub(super) fn round(self: &Arc<Self>, answers: Answers) -> RoundFuture {
        let running = Arc::clone(self);
        Box::pin(async move {
            running
                .server
                .round(&running.scope, &running.call, running.forms, answers)
                .await
        })
    }

    fn store(&self) -> &dyn SharedStore {
        &*self.server.store
    }
}

/// A task just written, still working: what its call's run starts from.
pub(super) struct Created {
    task_id: String,
    kept: Kept,
    local: Local,
}

/// Writes a new task, `working` or, when `ended` is given, ended so, and keeps one still
/// working in this instance's tasks: the reply that names it, and, for one still working, what
/// [`run`] goes on from.
pub(super) async fn create(
    server: &McpToolServer,
    cancel: &CancelSignal,
    ended: Option<TaskPayload>,
) -> Result<(CreateTaskResult, Option<Created>), BackendError> {
    let task_id = uuid::Uuid::new_v4().simple().to_string();
    let now = timestamp();
    let task = Task::new(&task_id, TaskStatus::Working, &now, &now)
        .with_ttl_ms(millis(TASK_LIFETIME))
        .with_poll_interval_ms(millis(POLL_INTERVAL));
    let kept = Kept {
        task: DetailedTask::new(task, ended.unwrap_or(TaskPayload::Working)),
        round: 0,
        until_ms: now_ms().saturating_add(millis(TASK_LIFETIME)),
    };
    write(&*server.store, &task_id, &kept).await?;
    let reply = CreateTaskResult::new(kept.task.task.clone());
    if kept.task.status().is_terminal() {
        return Ok((reply, None));
    }
    let local = Local {
        cancel: cancel.clone(),
        wake: Arc::new(Notify::new()),
    };
    let inserted = local.clone();
    server
        .tasks
        .with(|tasks| tasks.insert(task_id.clone(), inserted));
    Ok((
        reply,
        Some(Created {
            task_id,
            kept,
            local,
        }),
    ))
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// How a task whose call ended with `observed` ends: cancelled when it was, failed when the
/// audit copy did not keep the call, and otherwise completed with the call's reply.
pub(super) async fn ended(running: &Running, observed: &ObservedCall) -> TaskPayload {
    if running.cancel.is_cancelled() {
        TaskPayload::Cancelled
    } else if observed.unkept() {
        failed(&format!(
            "the audit copy did not keep the call, so it is not answered: {}",
            observed.content()
        ))
    } else {
        let name = running.call.name();
        let reply = running
            .server
            .model_reply(name, observed, running.views)
            .await;
        completed(&CallToolResult::from(reply))
    }
}

fn completed(result: &CallToolResult) -> TaskPayload {
    let result = match serde_json::to_value(result) {
        Ok(serde_json::Value::Object(result)) => result,
        _ => JsonObject::new(),
    };
    TaskPayload::Completed { result }
}

fn failed(message: &str) -> TaskPayload {
    let error = ErrorData::internal_error(message.to_owned(), None);
    let error = match serde_json::to_value(error) {
        Ok(serde_json::Value::Object(error)) => error,
        _ => JsonObject::new(),
    };
    TaskPayload::Failed { error }
}

async fn write(store: &dyn SharedStore, task_id: &str, kept: &Kept) -> Result<(), BackendError> {
    let value = serde_json::to_vec(kept).map_err(BackendError::new)?;
    store.put(TASKS, task_id, value, kept.lifetime()).await
}

async fn read(store: &dyn SharedStore, task_id: &str) -> Result<Option<Kept>, ErrorData> {
    let value = store
        .get(TASKS, task_id)
        .await
        .map_err(|error| unavailable(&error))?;
    value
        .map(|value| {
            serde_json::from_slice(&value).map_err(|error| unavailable(&BackendError::new(error)))
        })
        .transpose()
}

fn unavailable(error: &BackendError) -> ErrorData {
    tracing::error!(%error, "the store that keeps tasks did not answer");
    ErrorData::internal_error(
        "the store that keeps tasks did not answer; try again later",
        None,
    )
}

/// What a call answers whose task the store did not keep: an error, the call stopped.
pub(super) fn unkept(error: &BackendError) -> rmcp::model::CallToolResponse {
    tracing::error!(%error, "a call's task could not be kept");
    CallToolResult::error(vec![rmcp::model::ContentBlock::text(
        "Error: the call was stopped: the store that keeps tasks did not answer, so its answer \
         could not be kept for the client to read. Try again later.",
    )])
    .into()
}

fn unknown(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "no task \"{}\": the id is unknown, or the task's ttlMs passed",
            toolkit::bound::echo(task_id)
        ),
        None,
    )
}

/// Runs the call of the task `created` to its end from `first` (its round running now),
/// writing each state, and forgets it in this instance's tasks when it ends.
pub(super) async fn run(
    running: Arc<Running>,
    created: Created,
    first: RoundFuture,
    answers: Answers,
    rounds: usize,
) {
    let Created {
        task_id,
        kept,
        local,
    } = created;
    if let Err(error) = drive(&running, (&task_id, kept, &local), first, answers, rounds).await {
        tracing::error!(%error, task = %task_id, "a task's state could not be written");
        // Its last state may not be written: the task fails, where the store takes it.
        if let Ok(Some(mut kept)) = read(running.store(), &task_id).await {
            let payload = failed("the store that keeps the task did not answer");
            kept.task = DetailedTask::new(kept.task.task, payload);
            if let Err(error) = write(running.store(), &task_id, &kept).await {
                tracing::error!(%error, task = %task_id, "a task's failure could not be written");
            }
        }
    }
    running.server.tasks.with(|tasks| tasks.remove(&task_id));
}

async fn drive(
    running: &Arc<Running>,
    (task_id, mut kept, local): (&str, Kept, &Local),
    first: RoundFuture,
    mut answers: Answers,
    mut rounds: usize,
) -> Result<(), BackendError> {
    let until =
        tokio::time::Instant::now() + Duration::from_millis(kept.until_ms.saturating_sub(now_ms()));
    let mut current = first;
    loop {
        let outcome = watch_round(running, task_id, &mut kept, &mut current, until).await?;
        let asked = match outcome {
            Answering::Done(observed) => {
                let payload = ended(running, &observed).await;
                return settle(running.store(), task_id, &mut kept, payload).await;
            }
            Answering::Asking(asked) => asked,
            _ => unreachable!("a call is done or asking"),
        };
        rounds += 1;
        if rounds >= MAX_FORMS {
            let payload = completed(&too_many_rounds(running.call.name()));
            return settle(running.store(), task_id, &mut kept, payload).await;
        }
        let keys = ask(running.store(), task_id, &mut kept, &mut answers, &asked).await?;
        wait_for_answers(running, task_id, local, &kept, &keys).await?;
        if running.cancel.is_cancelled() {
            return settle(running.store(), task_id, &mut kept, TaskPayload::Cancelled).await;
        }
        // Working again before the answers are taken, so that no state shows them unanswered;
        // a question without an answer by now (the person's time passed) is dismissed.
        kept.task = DetailedTask::new(kept.task.task, TaskPayload::Working);
        kept.task.task.last_updated_at = timestamp();
        write(running.store(), task_id, &kept).await?;
        for key in &keys {
            let answer = take_answer(running.store(), task_id, kept.round, key).await?;
            answers.insert(key.clone(), answer.unwrap_or(Answer::Cancel));
        }
        current = running.round(answers.clone());
    }
}

/// Waits for the round `current` to end, writing the tool's progress as the task's status and
/// cancelling the call when the task's time passes or another instance got a cancellation.
async fn watch_round(
    running: &Running,
    task_id: &str,
    kept: &mut Kept,
    current: &mut RoundFuture,
    until: tokio::time::Instant,
) -> Result<Answering, BackendError> {
    let mut status = tokio::time::interval(STATUS_INTERVAL);
    let mut watch = tokio::time::interval(WATCH_INTERVAL);
    loop {
        tokio::select! {
            outcome = &mut *current => return Ok(outcome),
            () = tokio::time::sleep_until(until), if !running.cancel.is_cancelled() => {
                running.cancel.cancel();
            }
            _ = status.tick() => {
                if let Some(line) = running.progress.take() {
                    kept.task.task.status_message = Some(line);
                    kept.task.task.last_updated_at = timestamp();
                    write(running.store(), task_id, kept).await?;
                }
            }
            _ = watch.tick(), if running.server.shared && !running.cancel.is_cancelled() => {
                cancel_if_asked_elsewhere(running, task_id).await?;
            }
        }
    }
}

/// Cancels the task's call when another instance got a `tasks/cancel` for it.
async fn cancel_if_asked_elsewhere(running: &Running, task_id: &str) -> Result<(), BackendError> {
    if running.store().get(TASK_CANCELS, task_id).await?.is_some() {
        running.cancel.cancel();
    }
    Ok(())
}

/// Whether the question `key` of the task's round `round` has an answer waiting.
async fn answered(
    store: &dyn SharedStore,
    task_id: &str,
    round: u32,
    key: &str,
) -> Result<bool, BackendError> {
    let left = answer_key(task_id, round, key);
    Ok(store.get(TASK_ANSWERS, &left).await?.is_some())
}

/// Writes the task `input_required` with a form for each of `asked` that MCP can ask (one it
/// cannot is dismissed at once): the keys asked.
async fn ask(
    store: &dyn SharedStore,
    task_id: &str,
    kept: &mut Kept,
    answers: &mut Answers,
    asked: &[Asked],
) -> Result<Vec<String>, BackendError> {
    let mut requests = InputRequests::new();
    for question in asked {
        match questions::form(question) {
            Ok(form) => {
                requests.insert(
                    question.key().to_owned(),
                    InputRequest::Elicitation(rmcp::model::ElicitRequest::new(form)),
                );
            }
            Err(why) => {
                tracing::warn!(key = question.key(), %why, "a tool's question cannot be asked");
                answers.insert(question.key(), Answer::Cancel);
            }
        }
    }
    let keys: Vec<String> = requests.keys().cloned().collect();
    kept.round += 1;
    if !requests.is_empty() {
        kept.task = DetailedTask::new(
            kept.task.task.clone(),
            TaskPayload::InputRequired {
                input_requests: requests,
            },
        );
        kept.task.task.last_updated_at = timestamp();
        write(store, task_id, kept).await?;
    }
    Ok(keys)
}

/// Waits until each of `keys` has an answer, the person's time to answer passed, or the task
/// was cancelled.
async fn wait_for_answers(
    running: &Running,
    task_id: &str,
    local: &Local,
    kept: &Kept,
    keys: &[String],
) -> Result<(), BackendError> {
    let deadline = tokio::time::Instant::now() + running.server.approval_timeout;
    let mut watch = tokio::time::interval(WATCH_INTERVAL);
    loop {
        // Made before the store is read, so that an answer left meanwhile still wakes it.
        let notified = local.wake.notified();
        let mut unanswered = false;
        for key in keys {
            if !answered(running.store(), task_id, kept.round, key).await? {
                unanswered = true;
                break;
            }
        }
        if !unanswered || running.cancel.is_cancelled() {
            return Ok(());
        }
        tokio::select! {
            () = notified => {}
            () = running.cancel.cancelled() => return Ok(()),
            () = tokio::time::sleep_until(deadline) => return Ok(()),
            _ = watch.tick(), if running.server.shared => {
                cancel_if_asked_elsewhere(running, task_id).await?;
            }
        }
    }
}

async fn take_answer(
    store: &dyn SharedStore,
    task_id: &str,
    round: u32,
    key: &str,
) -> Result<Option<Answer>, BackendError> {
    let taken = store
        .take(TASK_ANSWERS, &answer_key(task_id, round, key))
        .await?;
    Ok(taken.map(|(value, _)| {
        questions::answer_sent(&serde_json::from_slice(&value).unwrap_or_default())
    }))
}

/// Writes the task's last state.
async fn settle(
    store: &dyn SharedStore,
    task_id: &str,
    kept: &mut Kept,
    payload: TaskPayload,
) -> Result<(), BackendError> {
    if matches!(payload, TaskPayload::Cancelled) {
        kept.task.task.status_message = Some("The task was cancelled.".to_owned());
    } else {
        kept.task.task.status_message = None;
    }
    kept.task = DetailedTask::new(kept.task.task.clone(), payload);
    kept.task.task.last_updated_at = timestamp();
    write(store, task_id, kept).await
}

/// `tasks/get`: the task as its running instance last wrote it, less the questions answered
/// since (a task whose every question has an answer is working again).
pub(super) async fn get(
    store: &dyn SharedStore,
    task_id: &str,
) -> Result<GetTaskResult, ErrorData> {
    let kept = read(store, task_id)
        .await?
        .ok_or_else(|| unknown(task_id))?;
    let Kept { task, round, .. } = kept;
    let DetailedTask {
        task: base,
        payload,
        ..
    } = task;
    let payload = match payload {
        TaskPayload::InputRequired { input_requests } => {
            let mut open = InputRequests::new();
            for (key, request) in input_requests {
                let answered = answered(store, task_id, round, &key).await;
                if !answered.map_err(|error| unavailable(&error))? {
                    open.insert(key, request);
                }
            }
            if open.is_empty() {
                TaskPayload::Working
            } else {
                TaskPayload::InputRequired {
                    input_requests: open,
                }
            }
        }
        other => other,
    };
    Ok(GetTaskResult::new(DetailedTask::new(base, payload)))
}

/// `tasks/update`: leaves the answers to the questions the task asks now (a key it does not
/// ask is ignored), and wakes the task when this instance runs it.
pub(super) async fn update(
    store: &dyn SharedStore,
    local: &LocalTasks,
    task_id: &str,
    responses: &InputResponses,
) -> Result<(), ErrorData> {
    let kept = read(store, task_id)
        .await?
        .ok_or_else(|| unknown(task_id))?;
    let TaskPayload::InputRequired { input_requests } = &kept.task.payload else {
        return Ok(());
    };
    for (key, response) in responses {
        if !input_requests.contains_key(key) {
            continue;
        }
        let value =
            serde_json::to_vec(response).map_err(|error| unavailable(&BackendError::new(error)))?;
        let left = answer_key(task_id, kept.round, key);
        store
            .put(TASK_ANSWERS, &left, value, kept.lifetime())
            .await
            .map_err(|error| unavailable(&error))?;
    }
    if let Some(running) = local.get(task_id) {
        running.wake.notify_waiters();
    }
    Ok(())
}

/// `tasks/cancel`: cancels the task's call where it runs (at once on this instance, within
/// [`WATCH_INTERVAL`] on another); a task that ended is left as it is.
pub(super) async fn cancel(
    store: &dyn SharedStore,
    local: &LocalTasks,
    task_id: &str,
) -> Result<(), ErrorData> {
    let kept = read(store, task_id)
        .await?
        .ok_or_else(|| unknown(task_id))?;
    if kept.task.status().is_terminal() {
        return Ok(());
    }
    if let Some(running) = local.get(task_id) {
        running.cancel.cancel();
        running.wake.notify_waiters();
        return Ok(());
    }
    store
        .put(TASK_CANCELS, task_id, Vec::new(), kept.lifetime())
        .await
        .map_err(|error| unavailable(&error))
}
