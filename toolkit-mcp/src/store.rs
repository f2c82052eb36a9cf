//! What an [`McpToolServer`](crate::McpToolServer) keeps for later requests: the artifacts a
//! view asks for by handle, the questions waiting for a person's answer, the tasks clients
//! poll, and the sessions of 2025-11-25 clients, in a [`SharedStore`]. One instance keeps them in memory (a
//! [`MemoryStore`], the default); a fleet of instances behind a load balancer shares one
//! ([`McpToolServer::with_shared_store`](crate::McpToolServer::with_shared_store); with
//! `toolkit-mcp --audit postgres://..`, the audit copy's database), so that any instance answers
//! any request.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};
pub use toolkit::shared::{BackendError, BackendFuture, MemoryStore, SharedStore};

/// The kinds this crate keeps.
pub(crate) const HANDLES: &str = "mcp_artifacts";
pub(crate) const QUESTIONS: &str = "mcp_questions";
/// A task's state, under its id, written by the instance that runs it.
pub(crate) const TASKS: &str = "mcp_tasks";
/// An answer to a task's question, under the task's id, round and key.
pub(crate) const TASK_ANSWERS: &str = "mcp_task_answers";
/// A cancellation of a task another instance runs, under its id.
pub(crate) const TASK_CANCELS: &str = "mcp_task_cancels";
const SESSIONS: &str = "mcp_sessions";

/// How long a 2025-11-25 session is kept for other instances after its last `initialize`.
const SESSION_LIFETIME: Duration = Duration::from_hours(24);

/// The 2025-11-25 sessions, in a shared store: an instance that gets a request of a session
/// another instance opened finds its `initialize` here and takes the session on.
pub(crate) struct Sessions(pub(crate) Arc<dyn SharedStore>);

#[async_trait::async_trait]
impl SessionStore for Sessions {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let Some(bytes) = self.0.get(SESSIONS, session_id).await? else {
            return Ok(None);
        };
        Ok(Some(serde_json::from_slice(&bytes)?))
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let bytes = serde_json::to_vec(state)?;
        self.0
            .put(SESSIONS, session_id, bytes, SESSION_LIFETIME)
            .await?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        self.0.take(SESSIONS, session_id).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_session_stored_by_one_instance_is_loaded_by_another_until_deleted() {
        let shared: Arc<dyn SharedStore> = Arc::new(MemoryStore::default());
        let (one, other) = (Sessions(Arc::clone(&shared)), Sessions(shared));
        let state: SessionState = serde_json::from_value(serde_json::json!({
            "initialize_params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "fleet", "version": "1"},
            }
        }))
        .expect("a session's state");
        assert!(other.load("s1").await.expect("answered").is_none());
        one.store("s1", &state).await.expect("stored");
        let loaded = other.load("s1").await.expect("answered").expect("stored");
        assert_eq!(
            serde_json::to_value(&loaded).expect("JSON"),
            serde_json::to_value(&state).expect("JSON")
        );
        assert!(other.load("s2").await.expect("answered").is_none());
        other.delete("s1").await.expect("deleted");
        assert!(one.load("s1").await.expect("answered").is_none());
    }
}
