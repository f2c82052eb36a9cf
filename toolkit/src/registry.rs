//! The set of tools a service can run: every `#[tool]` linked into the binary, plus additions.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::name::{InvalidToolName, check_tool_name};
use crate::tool::{Tool, ToolSet, ToolSpec};

/// Tools by name.
///
/// [`linked`](Self::linked) finds every `#[tool]` function linked into the binary without any
/// registration call (a crate that only registers tools must be referenced, e.g. `use
/// toolkit_builtins as _;`, so the linker keeps it). [`register`](Self::register) adds tools known
/// only at run time.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Entry>,
    by_name: HashMap<Box<str>, usize, BuildHasherDefault<NameHasher>>,
}

/// FNV-1a over tool names. The table is built from registered tools only and never grows from
/// what a model sends, so a keyed hash buys nothing here and costs on every call.
#[derive(Default)]
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &byte in bytes {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = hash;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

enum Entry {
    Linked(&'static dyn Tool),
    Added(Arc<dyn Tool>),
}

impl Entry {
    fn tool(&self) -> &dyn Tool {
        match self {
            Entry::Linked(tool) => *tool,
            Entry::Added(tool) => tool.as_ref(),
        }
    }
}

/// Two tools with one name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("two tools are named \"{name}\": one defined at {first}, the other at {second}")]
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

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every `#[tool]` linked into this binary, in name order.
    pub fn linked() -> Result<Self, RegistryError> {
        let mut linked: Vec<&'static dyn Tool> = crate::__private::TOOLS.iter().copied().collect();
        linked.sort_by(|a, b| a.spec().name().cmp(b.spec().name()));
        let mut registry = Self::new();
        for tool in linked {
            registry.insert(Entry::Linked(tool))?;
        }
        Ok(registry)
    }

    /// Every `#[tool]` linked into this binary, like [`linked`](Self::linked), checking that each
    /// crate named in `crates` (as Rust spells it: `toolkit_builtins`) contributed at least one:
    /// a crate that nothing in the binary references is not linked, and its tools would be
    /// missing without a word.
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
        for &name in crates {
            let contributed = crate::__private::TOOLS
                .iter()
                .any(|tool| crate_of(tool.spec().place()) == Some(name));
            if !contributed {
                return Err(RegistryError::NothingLinked {
                    crate_name: name.to_owned(),
                });
            }
        }
        Ok(registry)
    }

    /// Exactly these tools: the handles `#[tool]` generates (`READ_FILE_TOOL` for `read_file`),
    /// checked like [`register`](Self::register), in the order given. For a registry of chosen
    /// tools, or a test of one spec.
    pub fn of(tools: impl IntoIterator<Item = &'static dyn Tool>) -> Result<Self, RegistryError> {
        let mut registry = Self::new();
        for tool in tools {
            registry.insert(Entry::Linked(tool))?;
        }
        Ok(registry)
    }

    /// Adds a tool; a name already present is an error naming both places, and a name that
    /// breaks the rule is refused.
    pub fn register(&mut self, tool: impl Tool + 'static) -> Result<(), RegistryError> {
        self.insert(Entry::Added(Arc::new(tool)))
    }

    /// Adds every tool of `instance` (the `#[tool]` methods of its `#[toolkit::tools]` impl),
    /// sharing the one instance. All or nothing: a name taken or invalid adds none of them.
    pub fn register_instance<S: ToolSet>(&mut self, instance: S) -> Result<(), RegistryError> {
        let before = self.tools.len();
        for tool in Arc::new(instance).tools() {
            if let Err(error) = self.insert(Entry::Added(tool)) {
                for entry in self.tools.drain(before..) {
                    self.by_name.remove(entry.tool().spec().name());
                }
                return Err(error);
            }
        }
        Ok(())
    }

    /// Adds a shared tool, checked like [`register`](Self::register).
    pub fn register_shared(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.insert(Entry::Added(tool))
    }

    fn insert(&mut self, entry: Entry) -> Result<(), RegistryError> {
        let spec = entry.tool().spec();
        if let Err(error) = check_tool_name(spec.name()) {
            return Err(RegistryError::InvalidName {
                place: spec.place().to_owned(),
                error,
            });
        }
        if let Some(&index) = self.by_name.get(spec.name()) {
            return Err(RegistryError::Duplicate(DuplicateTool {
                name: spec.name().to_owned(),
                first: self.tools[index].tool().spec().place().to_owned(),
                second: spec.place().to_owned(),
            }));
        }
        self.by_name.insert(spec.name().into(), self.tools.len());
        self.tools.push(entry);
        Ok(())
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.index_of(name).map(|index| self.tools[index].tool())
    }

    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
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

    /// The specs, in the order of [`iter`](Self::iter).
    pub fn specs(&self) -> impl ExactSizeIterator<Item = &ToolSpec> + '_ {
        self.iter().map(Tool::spec)
    }

    /// Keeps only the tools whose spec `keep` accepts (say, those whose resources a server
    /// has), in their order.
    ///
    /// ```
    /// let mut registry = toolkit::ToolRegistry::linked().unwrap();
    /// registry.retain(|spec| spec.group() != "files");
    /// assert!(registry.specs().all(|spec| spec.group() != "files"));
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(&ToolSpec) -> bool) {
        self.tools.retain(|entry| keep(entry.tool().spec()));
        self.by_name.clear();
        for (index, entry) in self.tools.iter().enumerate() {
            self.by_name
                .insert(entry.tool().spec().name().into(), index);
        }
    }
}

/// The crate a `#[tool]` is defined in, from its place (`crate::module (file:line)`).
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
