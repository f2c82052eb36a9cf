//! What may be part of a suspended run's sealed state: a sealed trait, implemented only here and
//! by [`resumable_state!`] structs, never for an artifact type.

use crate::provider::Usage;
use crate::recording::RunId;
use crate::seam::Shown;
use crate::wire::{ChatMessage, ToolCall, WireString};

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Types that may be part of resumable state. Sealed: only this crate implements it, and never
/// for an artifact type, so a [`SuspendedRunState`](crate::seal::SuspendedRunState) provably
/// holds no artifact.
///
/// ```compile_fail
/// fn resumable<T: toolkit::seal::Resumable>() {}
/// resumable::<toolkit::ToolArtifact>();
/// ```
pub trait Resumable: sealed::Sealed {}

macro_rules! resumable {
    ($($type:ty),* $(,)?) => {
        $(impl sealed::Sealed for $type {} impl Resumable for $type {})*
    };
}

resumable!(
    String,
    bool,
    u32,
    u64,
    usize,
    f32,
    std::time::Duration,
    ChatMessage,
    ToolCall,
    WireString,
    Usage,
    RunId,
    Shown,
    // A person's answers and a tool's questions: text and forms, never an artifact.
    crate::ask::Answers,
    crate::ask::Asked,
);
impl<T: Resumable> sealed::Sealed for Vec<T> {}
impl<T: Resumable> Resumable for Vec<T> {}
impl<T: Resumable> sealed::Sealed for Option<T> {}
impl<T: Resumable> Resumable for Option<T> {}

/// Defines a state struct and proves at compile time that every field type is [`Resumable`].
macro_rules! resumable_state {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident { $($(#[$field_meta:meta])* $field_vis:vis $field:ident: $type:ty,)* }
    ) => {
        $(#[$meta])*
        $vis struct $name { $($(#[$field_meta])* $field_vis $field: $type,)* }

        const _: () = {
            const fn resumable<T: $crate::resumable::Resumable>() {}
            $(resumable::<$type>();)*
        };

        impl $crate::resumable::sealed::Sealed for $name {}
        impl $crate::resumable::Resumable for $name {}
    };
}
pub(crate) use resumable_state;
