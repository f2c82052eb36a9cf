// control for fail/tool-attr-*.rs (attribute keys and names): every `#[tool]` key, bare or
// `= true` / `= false`; a name of exactly 64 characters with `-` and `_`; the doc comment as the
// description, or `description = ".."`, or `#[doc = include_str!(..)]` (cleaned for a model);
// `preview = ".."` naming a read-only tool; `crate = ".."` for the path to toolkit; `title = ".."`
// of one line and exactly 100 characters, or none (the description's first sentence); `task`, bare
// or `= "optional"` / `= "required"`. The registry
// reports each tool with the name, title and flags it was given.
use toolkit::spec::{Execution, TaskSupport, ToolFlags};
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, ToolResult, tool};

/// The longest name a tool may have.
const LONGEST: &str = "a-name-of-exactly_sixty-four_characters-is-what-providers-accept";

/// Reads a file.
///
/// Only inside the workspace.
#[tool(name = "read_file", group = "files")]
pub fn read() -> ToolResult {
    ToolResult::text("read")
}

/// Deletes everything.
#[tool(requires_approval, requires_admin, enabled_by_default = false, remote)]
pub fn delete_everything() -> ToolResult {
    ToolResult::text("deleted")
}

/// Spells every flag out.
#[tool(
    name = "a-name-of-exactly_sixty-four_characters-is-what-providers-accept",
    group = "long-names_1",
    requires_approval = false,
    requires_admin = false,
    enabled_by_default = true,
    remote = false,
    read_only = false,
    idempotent = false,
    open_world = false,
    inline = false
)]
pub fn longest() -> ToolResult {
    ToolResult::text("long")
}

/// Changes a setting; an operator sees `looks`'s answer first.
#[tool(requires_approval, preview = "looks")]
pub fn previewed() -> ToolResult {
    ToolResult::text("changed")
}

/// Says what a change would do, changing nothing.
#[tool(read_only)]
pub fn looks() -> ToolResult {
    ToolResult::text("would change")
}

/// Writes the note, the same each time: a second call changes nothing more.
#[tool(requires_approval, idempotent, title = "Write the note")]
pub fn write_note() -> ToolResult {
    ToolResult::text("written")
}

/// Looks a word up on the web. Pages change, so it is not idempotent.
#[tool(read_only, open_world = true, remote, idempotent = false)]
pub fn look_up() -> ToolResult {
    ToolResult::text("looked up")
}

/// Counts for a long time; a client that takes tasks polls for the count.
#[tool(task)]
pub fn count_long() -> ToolResult {
    ToolResult::text("counted")
}

/// Counts the same way, the task spelt out.
#[tool(task = "optional", read_only)]
pub fn count_spelt() -> ToolResult {
    ToolResult::text("counted")
}

/// Counts for longer than any request waits: only as a task.
#[tool(task = "required")]
pub fn count_forever() -> ToolResult {
    ToolResult::text("counted")
}

/// Has the longest title.
#[tool(
    title = "A title of exactly one hundred characters, on one line, is the longest a tool may have as its label."
)]
pub fn longest_title() -> ToolResult {
    ToolResult::text("titled")
}

/// Names the path to toolkit, as a crate that renames the dependency does.
#[tool(crate = "::toolkit")]
pub fn through_path() -> ToolResult {
    ToolResult::text("through a path")
}

/// Keeps every default.
#[tool]
pub fn plain() -> ToolResult {
    ToolResult::text("plain")
}

/// For Rust readers; the model reads the attribute's description.
#[tool(description = "Given to the model.")]
pub fn described() -> ToolResult {
    ToolResult::text("described")
}

#[doc = include_str!("tool-attr-keys.md")]
#[tool]
pub fn described_in_a_file() -> ToolResult {
    ToolResult::text("from a file")
}

/// Adds, on the caller's thread.
#[tool(inline)]
pub fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    assert_eq!(LONGEST.len(), 64);
    let registry = ToolRegistry::linked().expect("no duplicate tools");
    let spec = |name: &str| registry.get(name).expect(name).spec().clone();

    let read = spec("read_file");
    assert!(registry.get("read").is_none());
    assert_eq!(read.group(), "files");
    assert_eq!(
        read.description(),
        "Reads a file.\n\nOnly inside the workspace."
    );
    assert_eq!(read.flags(), ToolFlags::default());
    assert_eq!(read.title(), "Reads a file");

    let delete = spec("delete_everything");
    assert_eq!(delete.group(), "default");
    assert_eq!(
        delete.flags(),
        ToolFlags::new()
            .with_requires_approval(true)
            .with_requires_admin(true)
            .with_enabled_by_default(false)
            .with_remote(true)
    );

    let longest = spec(LONGEST);
    assert_eq!(longest.group(), "long-names_1");
    assert_eq!(longest.flags(), ToolFlags::default());

    assert_eq!(spec("add").execution(), Execution::Inline);
    assert_eq!(spec(LONGEST).execution(), Execution::Blocking);
    let plain = spec("plain");
    assert_eq!(
        (plain.group(), plain.description()),
        ("default", "Keeps every default.")
    );
    assert_eq!(plain.flags(), ToolFlags::new());
    assert_eq!(plain.title(), "Keeps every default");

    let write_note = spec("write_note");
    assert_eq!(write_note.title(), "Write the note");
    assert_eq!(
        write_note.flags(),
        ToolFlags::new()
            .with_requires_approval(true)
            .with_idempotent(true)
    );
    let look_up = spec("look_up");
    assert_eq!(look_up.title(), "Looks a word up on the web");
    assert_eq!(
        look_up.flags(),
        ToolFlags::new()
            .with_read_only(true)
            .with_open_world(true)
            .with_remote(true)
    );
    let longest_title = spec("longest_title");
    assert_eq!(longest_title.title().chars().count(), 100);
    assert_eq!(
        longest_title.title(),
        "A title of exactly one hundred characters, on one line, is the longest a tool may have as its label."
    );
    assert_eq!(spec("previewed").preview(), Some("looks"));
    assert_eq!(
        spec("looks").flags(),
        ToolFlags::new().with_read_only(true)
    );

    let optional = ToolFlags::new().with_task_support(TaskSupport::Optional);
    assert_eq!(spec("count_long").flags(), optional);
    assert_eq!(spec("count_spelt").flags(), optional.with_read_only(true));
    assert_eq!(
        spec("count_forever").flags(),
        ToolFlags::new().with_task_support(TaskSupport::Required)
    );
    assert_eq!(plain.flags().task_support(), TaskSupport::Forbidden);

    assert_eq!(spec("described").description(), "Given to the model.");
    assert_eq!(spec("described").title(), "Given to the model");
    assert_eq!(
        spec("described_in_a_file").description(),
        "Described in a Markdown file beside the code."
    );

    let service = ToolLoopService::new(registry);
    let scope = service
        .scope_offering(ToolContext::new(), service.registry().names())
        .unwrap();
    for (name, content) in [("read_file", "read"), (LONGEST, "long"), ("plain", "plain")] {
        let result = service.invoke(&scope, name, "{}").await;
        assert_eq!(
            (result.content(), result.is_error()),
            (content, false),
            "{name}"
        );
    }
}
