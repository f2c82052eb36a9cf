//! The threads blocking tools run on.
//!
//! A tool whose [`Execution`](crate::spec::Execution) is `Blocking` runs here, and its caller waits on
//! a channel under the per-tool timeout. A worker is a plain thread of toolkit's own, not the
//! async runtime's blocking pool: a tool stuck past its timeout holds only its worker, and
//! neither a runtime's shutdown nor the process's exit waits for it. When the caller stops
//! waiting, the seam raises the call's flag (`ToolContext::is_cancelled`), which a tool that
//! works long checks to stop. Idle workers are kept a
//! while for the next call and end after [`IDLE`]; a busy pool grows, up to [`MAX_WORKERS`],
//! beyond which calls queue.

use std::collections::VecDeque;
use std::sync::{Condvar, LazyLock, Mutex, PoisonError};

use crate::limits::{MAX_WORKERS, WORKER_IDLE};

type Job = Box<dyn FnOnce() + Send>;

struct Pool {
    state: Mutex<State>,
    work: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    idle: usize,
    workers: usize,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| Pool {
    state: Mutex::new(State::default()),
    work: Condvar::new(),
});

/// Runs `job` on a worker; `Err` gives the job back when no thread could be started.
pub(crate) fn submit(job: Job) -> Result<(), Job> {
    let mut state = POOL.state.lock().unwrap_or_else(PoisonError::into_inner);
    // Every idle worker may already be promised to a queued job.
    if state.idle <= state.queue.len() && state.workers < MAX_WORKERS {
        let started = std::thread::Builder::new()
            .name("toolkit-worker".to_owned())
            .spawn(work);
        match started {
            Ok(_) => state.workers += 1,
            Err(_) if state.workers == 0 => return Err(job),
            // Others are running: the job waits for one of them.
            Err(_) => {}
        }
    }
    state.queue.push_back(job);
    drop(state);
    POOL.work.notify_one();
    Ok(())
}

fn work() {
    let mut state = POOL.state.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(job) = state.queue.pop_front() {
            drop(state);
            // The job catches its own panics: it sends the outcome to its caller.
            job();
            state = POOL.state.lock().unwrap_or_else(PoisonError::into_inner);
            continue;
        }
        state.idle += 1;
        let (next, timeout) = POOL
            .work
            .wait_timeout(state, WORKER_IDLE)
            .unwrap_or_else(PoisonError::into_inner);
        state = next;
        state.idle -= 1;
        if timeout.timed_out() && state.queue.is_empty() {
            state.workers -= 1;
            return;
        }
    }
}
