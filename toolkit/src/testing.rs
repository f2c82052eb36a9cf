//! A tool written by hand for the crate's own unit tests.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::context::ToolContext;
use crate::result::ToolResult;
use crate::spec::{ExecutePermit, Tool, ToolFuture, ToolSpec};

/// A tool with a given spec that answers every call with `answer()` and counts its runs.
pub(crate) struct Fixed {
    spec: ToolSpec,
    answer: fn() -> ToolResult,
    runs: AtomicUsize,
}

impl Fixed {
    pub(crate) fn new(spec: ToolSpec, answer: fn() -> ToolResult) -> Self {
        Self {
            spec,
            answer,
            runs: AtomicUsize::new(0),
        }
    }

    /// A tool that is only a name (it answers an empty text).
    pub(crate) fn named(name: &str) -> Self {
        Self::answering(name, || ToolResult::text(""))
    }

    /// A tool of that name, without parameters, answering `answer()`.
    pub(crate) fn answering(name: &str, answer: fn() -> ToolResult) -> Self {
        Self::new(
            ToolSpec::new(
                name.to_owned(),
                "A name.",
                serde_json::json!({"type": "object"}),
            ),
            answer,
        )
    }

    /// A registry of this tool alone.
    #[cfg(feature = "loop")]
    pub(crate) fn alone(self) -> crate::ToolRegistry {
        let mut registry = crate::ToolRegistry::new();
        registry.register(self).expect("one tool has no duplicate");
        registry
    }

    /// How many times it ran.
    #[cfg(feature = "loop")]
    pub(crate) fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

impl Tool for Fixed {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        ToolFuture::Ready(Ok((self.answer)()))
    }
}
