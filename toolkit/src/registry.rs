//! The set of tools a service can run: every `#[tool]` linked into the binary, plus additions.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use crate::limits::TOOL_NAME_LIMIT;
use crate::name::{InvalidToolName, InvalidToolTitle, check_tool_name, check_tool_title};
use crate::spec::{Execution, Tool, ToolFlags, ToolSet, ToolSpec};

/// Tools by name.
///
/// [`linked`](Self::linked) finds every `#[tool]` function linked into the binary without any
/// registration call (a crate that only registers tools must be referenced, e.g. `use
/// toolkit_builtins as _;`, so the linker keeps it). The `#[tool]` methods of a `#[tools]` impl
/// block need an instance: [`register_instance`](Self::register_instance) adds them, and
/// [`check_crates`](Self::check_crates) reports a type that never got one.
/// [`register`](Self::register) adds tools known only at run time.
///
/// A tool's name, flags and [`Execution`] are read once, when it is registered: the seam checks
/// every call against what the registry read then.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Entry>,
    names: NameIndex,
    /// The types whose `#[tools]` methods were registered with an instance.
    instances: Vec<TypeId>,
}

/// One registered tool and what the seam reads of its spec on every call.
struct Entry {
    tool: Handle,
    name: Box<str>,
    policy: Policy,
}

enum Handle {
    Linked(&'static dyn Tool),
    Added(Arc<dyn Tool>),
}

/// A registered tool as [`ToolRegistry::lookup`] finds it.
pub(crate) struct Found<'a> {
    pub(crate) index: usize,
    pub(crate) tool: &'a dyn Tool,
    pub(crate) policy: Policy,
}

/// What the seam checks before running a tool, read from its spec when it was registered.
#[derive(Clone, Copy)]
pub(crate) struct Policy {
    pub(crate) flags: ToolFlags,
    pub(crate) execution: Execution,
}

impl Entry {
    fn new(tool: Handle) -> Self {
        let spec = tool.get().spec();
        Self {
            name: spec.name().into(),
            policy: Policy {
                flags: spec.flags(),
                execution: spec.execution(),
            },
            tool,
        }
    }

    fn tool(&self) -> &dyn Tool {
        self.tool.get()
    }
}

impl Handle {
    fn get(&self) -> &dyn Tool {
        match self {
            Handle::Linked(tool) => *tool,
            Handle::Added(tool) => tool.as_ref(),
        }
    }
}

/// Positions of tools by name. The keys are registered names only, so a model's names never
/// grow it; foldhash is keyed per process, and a name longer than any tool may have is not even
/// hashed.
type NameIndex = HashMap<Box<str>, usize, foldhash::fast::RandomState>;

/// Two tools with one name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("two tools are named \"{name}\": one defined at {first}, the other at {second}")]
#[non_exhaustive]
pub struct DuplicateTool {
    /// The shared name.
    pub name: String,
    /// Where the tool already registered is defined.
    pub first: String,
    /// Where the tool that was refused is defined.
    pub second: String,
}

/// A tool the registry refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Its name is taken.
    #[error(transparent)]
    Duplicate(#[from] DuplicateTool),
    /// Its name breaks the rule every provider needs (see [`check_tool_name`]).
    #[error("the tool defined at {place} cannot be registered: {error}")]
    InvalidName {
        /// Where the tool is defined.
        place: String,
        /// What is wrong with its name.
        error: InvalidToolName,
    },
    /// The title its spec gives breaks the rule (see [`check_tool_title`]).
    #[error("tool \"{tool}\" (defined at {place}) cannot be registered: {error}")]
    InvalidTitle {
        /// The tool.
        tool: String,
        /// Where the tool is defined.
        place: String,
        /// What is wrong with its title.
        error: InvalidToolTitle,
    },
    /// A tool names a preview tool that cannot preview it.
    #[error("tool \"{tool}\" (defined at {place}) cannot be previewed by \"{preview}\": {problem}")]
    Preview {
        /// The tool whose spec names the preview.
        tool: String,
        /// Where that tool is defined.
        place: String,
        /// The preview tool it names.
        preview: String,
        /// What is wrong.
        problem: PreviewProblem,
    },
    /// A `#[tool]` whose schema constrains its arguments beyond their types (a range, a length,
    /// a pattern), in a build without toolkit's `constraints` feature, which checks them: the
    /// tool would otherwise get values its schema told the model it would not.
    #[error(
        "tool \"{tool}\" (defined at {place}) constrains its arguments (`{keyword}` at `{path}`), \
         which this build cannot check: enable toolkit's `constraints` feature (on by default)"
    )]
    Unchecked {
        /// The tool.
        tool: String,
        /// Where it is defined.
        place: String,
        /// The first constraining keyword of its schema (`maximum`, `pattern`, ...).
        keyword: String,
        /// The argument it constrains (`days`, `window.days`; `.` for the whole).
        path: String,
    },
    /// A `#[tools]` type of a crate expected to contribute tools has no instance registered.
    #[error(
        "the `#[tools]` type `{type_name}` of crate `{crate_name}` (defined at {place}) has no \
         instance registered, so its tools are missing: add one with \
         `registry.register_instance(..)`, then check with \
         `registry.check_crates(&[\"{crate_name}\"])` (`linked_expecting` checks before any \
         instance can be registered)"
    )]
    InstanceMissing {
        /// The type, as its impl block writes it.
        type_name: String,
        /// Its crate.
        crate_name: String,
        /// Where its impl block is.
        place: String,
    },
    /// A crate expected to contribute tools contributed none.
    #[error(
        "no tool of crate `{crate_name}` is linked: reference the crate from the binary \
         (`use {crate_name} as _;`), or enable the features that give its tools"
    )]
    NothingLinked {
        /// The crate, as Rust spells it.
        crate_name: String,
    },
}

/// Why a preview tool cannot preview a tool (see [`ToolSpec::with_preview`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PreviewProblem {
    /// No tool of that name is registered (or it is registered after the tool naming it).
    #[error(
        "no tool of that name is registered (a tool added with `register` needs its preview tool registered first)"
    )]
    NotRegistered,
    /// The preview tool may change things.
    #[error(
        "it is not marked read-only, and a preview runs before anyone approves: name a tool that only reads, marked `#[tool(read_only)]`"
    )]
    NotReadOnly,
    /// The preview tool needs an operator's approval itself.
    #[error("it requires approval itself, and a preview runs before anyone approves")]
    RequiresApproval,
    /// The tool runs without approval, so no run ever stops to show a preview.
    #[error(
        "the tool requires no approval, so no run stops to show a preview: add `requires_approval` or remove `preview`"
    )]
    NothingToPreview,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every `#[tool]` function linked into this binary, in name order, except those of crates
    /// that offer their tools on request ([`tools_on_request!`](crate::tools_on_request), as
    /// `toolkit_builtins` does): linking such a crate never changes what `linked` offers; add
    /// its tools with [`add_crate`](Self::add_crate). The methods of a `#[tools]` block come
    /// with an instance: [`register_instance`](Self::register_instance).
    ///
    /// ```standalone_crate
    /// /// Says hello.
    /// #[toolkit::tool]
    /// fn hello() -> toolkit::ToolResult {
    ///     toolkit::ToolResult::text("hello")
    /// }
    ///
    /// let registry = toolkit::ToolRegistry::linked()?;
    /// assert!(registry.get("hello").is_some());
    /// # Ok::<(), toolkit::registry::RegistryError>(())
    /// ```
    pub fn linked() -> Result<Self, RegistryError> {
        let on_request = &crate::__private::ON_REQUEST;
        let mut registry = Self::new();
        registry.insert_all(linked_tools(|name| !on_request.contains(&name)))?;
        Ok(registry)
    }

    /// Adds every `#[tool]` function of crate `crate_name` (as Rust spells it:
    /// `toolkit_builtins`) linked into this binary, in name order: how a binary takes the tools
    /// of a crate that offers them on request ([`tools_on_request!`](crate::tools_on_request)).
    /// Such a crate usually wraps this in a function of its own (`toolkit_builtins::register`),
    /// which also makes sure the linker keeps it.
    ///
    /// # Errors
    /// [`RegistryError::NothingLinked`] when no tool of that crate is linked, and the errors of
    /// [`register`](Self::register) (a name taken twice, a preview tool missing).
    pub fn add_crate(&mut self, crate_name: &str) -> Result<&mut Self, RegistryError> {
        let before = self.tools.len();
        self.insert_all(linked_tools(|name| name == crate_name))?;
        if self.tools.len() == before {
            return Err(RegistryError::NothingLinked {
                crate_name: crate_name.to_owned(),
            });
        }
        Ok(self)
    }

    /// Every `#[tool]` linked into this binary, like [`linked`](Self::linked), then
    /// [`check_crates`](Self::check_crates): each crate named in `crates` (as Rust spells it:
    /// `toolkit_builtins`) must have contributed. A crate that nothing in the binary references
    /// is not linked, and its tools would be missing without a word. A crate with `#[tools]`
    /// types fails here, since no instance is registered yet: build with `linked`, register the
    /// instances, then call `check_crates`.
    ///
    /// ```
    /// let error = toolkit::ToolRegistry::linked_expecting(&["no_such_crate"]).unwrap_err();
    /// assert_eq!(
    ///     error.to_string(),
    ///     "no tool of crate `no_such_crate` is linked: reference the crate from the binary \
    ///      (`use no_such_crate as _;`), or enable the features that give its tools"
    /// );
    /// ```
    pub fn linked_expecting(crates: &[&str]) -> Result<Self, RegistryError> {
        let registry = Self::linked()?;
        registry.check_crates(crates)?;
        Ok(registry)
    }

    /// Checks that every crate named in `crates` (as Rust spells it) gave this registry all it
    /// has: at least one `#[tool]` function or `#[tools]` impl block of it is linked into the
    /// binary, and every `#[tools]` type it defines has an instance registered. Call it once
    /// the registry is built.
    pub fn check_crates(&self, crates: &[&str]) -> Result<(), RegistryError> {
        for &name in crates {
            let tools = crate::__private::TOOLS
                .iter()
                .any(|tool| crate_of(tool.spec().place()) == Some(name));
            let mut sets = crate::__private::TOOL_SETS
                .iter()
                .filter(|set| crate_of(set.place) == Some(name))
                .peekable();
            if !tools && sets.peek().is_none() {
                return Err(RegistryError::NothingLinked {
                    crate_name: name.to_owned(),
                });
            }
            // The linker orders the slice as the build splits code into units: the type named
            // is the first by name, the same whatever the build.
            let missing = sets
                .filter(|set| !self.instances.contains(&(set.type_id)()))
                .min_by_key(|set| (set.written, set.place));
            if let Some(set) = missing {
                return Err(RegistryError::InstanceMissing {
                    type_name: set.written.to_owned(),
                    crate_name: name.to_owned(),
                    place: set.place.to_owned(),
                });
            }
        }
        Ok(())
    }

    /// The crates whose `#[tool]` functions or `#[tools]` methods this registry holds, in name
    /// order: what [`linked`](Self::linked) found, to see that no crate is missing.
    pub fn crates(&self) -> Vec<&str> {
        let mut crates: Vec<&str> = self
            .specs()
            .filter_map(|spec| crate_of(spec.place()))
            .collect();
        crates.sort_unstable();
        crates.dedup();
        crates
    }

    /// Exactly these tools: the handles `#[tool]` generates (`READ_FILE_TOOL` for `read_file`),
    /// checked like [`register`](Self::register), in the order given. For a registry of chosen
    /// tools, or a test of one spec.
    pub fn of(tools: impl IntoIterator<Item = &'static dyn Tool>) -> Result<Self, RegistryError> {
        let mut registry = Self::new();
        registry.insert_all(tools.into_iter().map(Handle::Linked))?;
        Ok(registry)
    }

    /// Adds a tool; a name already present is an error naming both places, a name that breaks
    /// the rule is refused, and so is a preview tool that cannot preview it (see
    /// [`ToolSpec::with_preview`]: the preview tool must be registered already).
    pub fn register(&mut self, tool: impl Tool + 'static) -> Result<(), RegistryError> {
        self.insert_all([Handle::Added(Arc::new(tool))])
    }

    /// Adds every tool of `instance` (the `#[tool]` methods of its `#[toolkit::tools]` impl),
    /// sharing the one instance. All or nothing: a name taken or invalid, or a preview that
    /// cannot be, adds none of them.
    pub fn register_instance<S: ToolSet>(&mut self, instance: S) -> Result<(), RegistryError> {
        self.insert_all(Arc::new(instance).tools().into_iter().map(Handle::Added))?;
        self.instances.push(TypeId::of::<S>());
        Ok(())
    }

    /// Adds a shared tool, checked like [`register`](Self::register).
    pub fn register_shared(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.insert_all([Handle::Added(tool)])
    }

    /// Adds tools, all or nothing; each preview is checked once all of them are in, so tools
    /// added together may name each other in any order.
    fn insert_all(&mut self, tools: impl IntoIterator<Item = Handle>) -> Result<(), RegistryError> {
        let before = self.tools.len();
        let inserted = tools
            .into_iter()
            .try_for_each(|tool| self.insert(tool))
            .and_then(|()| self.check_previews(before));
        if inserted.is_err() {
            self.tools.truncate(before);
            self.reindex();
        }
        inserted
    }

    /// Checks the preview of each tool from position `from` on. Tools before it were checked
    /// when they were added, and a tool added later cannot change what they name.
    fn check_previews(&self, from: usize) -> Result<(), RegistryError> {
        for entry in &self.tools[from..] {
            let spec = entry.tool().spec();
            let Some(preview) = spec.preview() else {
                continue;
            };
            let problem = match self.lookup(preview) {
                _ if !entry.policy.flags.requires_approval() => PreviewProblem::NothingToPreview,
                None => PreviewProblem::NotRegistered,
                Some(found) if !found.policy.flags.read_only() => PreviewProblem::NotReadOnly,
                Some(found) if found.policy.flags.requires_approval() => {
                    PreviewProblem::RequiresApproval
                }
                Some(_) => continue,
            };
            return Err(RegistryError::Preview {
                tool: entry.name.to_string(),
                place: spec.place().to_owned(),
                preview: preview.to_owned(),
                problem,
            });
        }
        Ok(())
    }

    fn insert(&mut self, tool: Handle) -> Result<(), RegistryError> {
        let entry = Entry::new(tool);
        let spec = entry.tool().spec();
        if let Err(error) = check_tool_name(&entry.name) {
            return Err(RegistryError::InvalidName {
                place: spec.place().to_owned(),
                error,
            });
        }
        if let Some(Err(error)) = spec.given_title().map(check_tool_title) {
            return Err(RegistryError::InvalidTitle {
                tool: entry.name.to_string(),
                place: spec.place().to_owned(),
                error,
            });
        }
        #[cfg(not(feature = "constraints"))]
        if let Some(constraint) = spec.unchecked_constraint() {
            return Err(RegistryError::Unchecked {
                tool: entry.name.to_string(),
                place: spec.place().to_owned(),
                keyword: constraint.keyword.clone(),
                path: constraint.path.clone(),
            });
        }
        if let Some(index) = self.index_of(&entry.name) {
            return Err(RegistryError::Duplicate(DuplicateTool {
                name: entry.name.to_string(),
                first: self.tools[index].tool().spec().place().to_owned(),
                second: spec.place().to_owned(),
            }));
        }
        self.names.insert(entry.name.clone(), self.tools.len());
        self.tools.push(entry);
        Ok(())
    }

    /// Builds the name index anew from the tools.
    fn reindex(&mut self) {
        self.names = self
            .tools
            .iter()
            .enumerate()
            .map(|(position, entry)| (entry.name.clone(), position))
            .collect();
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.index_of(name).map(|index| self.tools[index].tool())
    }

    #[inline]
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        // No registered name is longer: a model's megabyte of name is not even hashed.
        if name.len() > TOOL_NAME_LIMIT {
            return None;
        }
        self.names.get(name).copied()
    }

    /// The tool of that name with its position and the policy read from its spec when it was
    /// registered.
    #[inline]
    pub(crate) fn lookup(&self, name: &str) -> Option<Found<'_>> {
        let index = self.index_of(name)?;
        let entry = &self.tools[index];
        Some(Found {
            index,
            tool: entry.tool(),
            policy: entry.policy,
        })
    }

    pub(crate) fn at(&self, index: usize) -> &dyn Tool {
        self.tools[index].tool()
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools, linked ones in name order first, then additions in the order added.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &dyn Tool> + '_ {
        self.tools.iter().map(Entry::tool)
    }

    /// The names of the registered tools, in the registry's order (to offer them all:
    /// [`Seam::scope_offering`](crate::Seam::scope_offering)).
    ///
    /// ```
    /// use toolkit::{Seam, ToolContext, ToolRegistry, tool};
    ///
    /// /// Says hello.
    /// #[tool]
    /// fn hello() -> String {
    ///     "hello".to_owned()
    /// }
    ///
    /// let seam = Seam::new(ToolRegistry::of([HELLO_TOOL]).unwrap());
    /// assert_eq!(seam.registry().names().collect::<Vec<_>>(), ["hello"]);
    /// let scope = seam.scope_offering(ToolContext::new(), seam.registry().names()).unwrap();
    /// assert_eq!(scope.offered().collect::<Vec<_>>(), ["hello"]);
    /// ```
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.tools.iter().map(|entry| &*entry.name)
    }

    /// The specs, in the order of [`iter`](Self::iter).
    pub fn specs(&self) -> impl ExactSizeIterator<Item = &ToolSpec> + '_ {
        self.iter().map(Tool::spec)
    }

    /// Keeps only the tools whose spec `keep` accepts (say, those whose resources a server
    /// has), in their order, and the preview tool of each tool kept, so that a kept tool never
    /// names a preview that is gone.
    ///
    /// ```
    /// let mut registry = toolkit::ToolRegistry::linked().unwrap();
    /// registry.retain(|spec| spec.group() != "files");
    /// assert!(registry.specs().all(|spec| spec.group() != "files"));
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(&ToolSpec) -> bool) {
        let mut kept: Vec<bool> = self.specs().map(&mut keep).collect();
        let previews: Vec<usize> = self
            .specs()
            .zip(&kept)
            .filter(|(_, kept)| **kept)
            .filter_map(|(spec, _)| spec.preview().and_then(|name| self.index_of(name)))
            .collect();
        for preview in previews {
            kept[preview] = true;
        }
        let mut kept = kept.into_iter();
        self.tools.retain(|_| kept.next().unwrap_or(false));
        self.reindex();
    }
}

/// The crate a `#[tool]` is defined in, from its place (`crate::module (file:line)`).
/// The linked `#[tool]` functions whose crate `keep` accepts, by name, then by place: the
/// linker's order depends on how the build splits code into units, so it never decides which of
/// two tools of one name is called the first.
fn linked_tools(keep: impl Fn(&str) -> bool) -> Vec<Handle> {
    let mut linked: Vec<&'static dyn Tool> = crate::__private::TOOLS
        .iter()
        .copied()
        .filter(|tool| keep(crate_of(tool.spec().place()).unwrap_or_default()))
        .collect();
    linked.sort_by(|a, b| {
        let (a, b) = (a.spec(), b.spec());
        (a.name(), a.place()).cmp(&(b.name(), b.place()))
    });
    linked.into_iter().map(Handle::Linked).collect()
}

fn crate_of(place: &str) -> Option<&str> {
    let path = place.split_once(" (")?.0;
    path.split("::").next()
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.specs().map(ToolSpec::name))
            .finish()
    }
}

/// Put once in the root of a crate of tools meant for other binaries to pick (as
/// `toolkit_builtins` does): linking the crate then never grows
/// [`ToolRegistry::linked`] in those binaries; a binary adds its tools on request with
/// [`ToolRegistry::add_crate`], usually through a function of the crate:
///
/// ```ignore
/// // In the tool crate's lib.rs:
/// toolkit::tools_on_request!();
///
/// /// Adds this crate's tools to `registry`.
/// pub fn register(registry: &mut toolkit::ToolRegistry) -> Result<(), toolkit::registry::RegistryError> {
///     registry.add_crate(module_path!()).map(|_| ())
/// }
/// ```
///
/// The crate is the one the macro is written in (the first segment of its module path).
#[macro_export]
macro_rules! tools_on_request {
    () => {
        const _: () = {
            #[$crate::__private::linkme::distributed_slice($crate::__private::ON_REQUEST)]
            #[linkme(crate = $crate::__private::linkme)]
            static __TOOLKIT_ON_REQUEST: &str =
                $crate::__private::crate_name(::core::module_path!());
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Fixed;

    /// An instance of two tools: `fresh`, then `tool_27`.
    struct Both;

    impl ToolSet for Both {
        fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>> {
            vec![
                Arc::new(Fixed::named("fresh")),
                Arc::new(Fixed::named("tool_27")),
            ]
        }
    }

    /// Names that share prefixes, lengths, their first or last eight bytes, or all but one
    /// byte in the middle: what a hash or a compare eight bytes at a time could confuse.
    fn lookalikes() -> Vec<String> {
        let long = "a".repeat(64);
        let mut names: Vec<String> = (0..2000).map(|index| format!("tool_{index}")).collect();
        names.extend(["a", "b", "ab", "ba", "tool", "tool_", "toolx", "x"].map(str::to_owned));
        names.push(long.clone());
        for at in [0, 7, 8, 9, 31, 56, 63] {
            let mut near = long.clone().into_bytes();
            near[at] = b'b';
            names.push(String::from_utf8(near).expect("ASCII"));
        }
        names.extend((1..=17).map(|length| "q".repeat(length)));
        names
    }

    #[test]
    fn every_registered_name_is_found_where_it_was_added_and_no_other_name_is() {
        let names = lookalikes();
        let mut registry = ToolRegistry::new();
        for name in &names {
            registry
                .register(Fixed::named(name))
                .expect("distinct valid names");
        }
        for (position, name) in names.iter().enumerate() {
            assert_eq!(registry.index_of(name), Some(position), "{name}");
            assert_eq!(
                registry.get(name).map(|tool| tool.spec().name()),
                Some(name.as_str())
            );
        }
        let long = "a".repeat(64);
        let strangers = (2000..12_000)
            .map(|index| format!("tool_{index}"))
            .chain(
                [
                    "", "TOOL_1", "tool_1 ", " tool_1", "tool_1\0", "tool__1", "c",
                ]
                .map(str::to_owned),
            )
            .chain([format!("{long}a"), long[..63].to_owned(), "q".repeat(18)])
            .chain(["a".repeat(1024 * 1024)]);
        for stranger in strangers {
            assert_eq!(registry.index_of(&stranger), None, "{stranger:?}");
        }
    }

    #[test]
    fn the_index_follows_what_is_kept_and_what_is_refused() {
        let mut registry = ToolRegistry::new();
        assert_eq!(registry.index_of("anything"), None);
        for index in 0..100 {
            registry
                .register(Fixed::named(&format!("tool_{index}")))
                .expect("valid");
        }
        registry.retain(|spec| spec.name().ends_with('7'));
        let kept: Vec<String> = (0..100)
            .filter(|index| index % 10 == 7)
            .map(|index| format!("tool_{index}"))
            .collect();
        assert_eq!(registry.len(), kept.len());
        for (position, name) in kept.iter().enumerate() {
            assert_eq!(registry.index_of(name), Some(position));
        }
        assert_eq!(registry.index_of("tool_8"), None);

        // A duplicate is refused and leaves the index as it was.
        let duplicate = registry.register(Fixed::named("tool_17")).unwrap_err();
        assert!(
            matches!(duplicate, RegistryError::Duplicate(_)),
            "{duplicate}"
        );
        assert_eq!(registry.index_of("tool_17"), Some(1));
        assert_eq!(registry.len(), kept.len());

        // An instance whose second tool is refused adds neither, and its first is not found.
        registry.register_instance(Both).unwrap_err();
        assert_eq!(registry.index_of("fresh"), None);
        assert_eq!(registry.index_of("tool_27"), Some(2));
        assert_eq!(registry.len(), kept.len());
        registry
            .register(Fixed::named("fresh"))
            .expect("the name is free again");
        assert_eq!(registry.index_of("fresh"), Some(kept.len()));
    }

    #[test]
    fn the_policy_is_what_the_spec_said_when_the_tool_was_registered() {
        let mut registry = ToolRegistry::new();
        registry
            .register(Fixed::new(
                ToolSpec::new("guarded", "Guarded.", serde_json::json!({"type": "object"}))
                    .with_flags(
                        ToolFlags::new()
                            .with_requires_approval(true)
                            .with_remote(true),
                    )
                    .with_execution(Execution::Inline),
                || crate::ToolResult::text(""),
            ))
            .expect("valid");
        registry.register(Fixed::named("plain")).expect("valid");
        let guarded = registry.lookup("guarded").expect("registered");
        assert_eq!(guarded.index, 0);
        assert!(guarded.policy.flags.requires_approval() && guarded.policy.flags.remote());
        assert_eq!(guarded.policy.execution, Execution::Inline);
        let plain = registry.lookup("plain").expect("registered");
        assert_eq!(plain.index, 1);
        assert!(!plain.policy.flags.requires_approval() && !plain.policy.flags.remote());
        assert_eq!(plain.policy.execution, Execution::Async);
        assert!(registry.lookup("neither").is_none());
    }
}
