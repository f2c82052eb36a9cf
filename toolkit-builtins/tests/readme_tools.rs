//! The README's table of builtin tools is generated from the registry: this test fails when the
//! two differ. `UPDATE_README=1 cargo test -p toolkit-builtins --test readme_tools` rewrites it.

use std::fmt::Write as _;
use std::path::Path;

use toolkit::{ToolRegistry, ToolSpec};
use toolkit_builtins as _;

const START: &str = "<!-- tools:start (generated from the registry by toolkit-builtins/tests/readme_tools.rs) -->\n";
const END: &str = "<!-- tools:end -->";

/// The description's first sentence, on one line, with `|` escaped for a Markdown table.
fn first_sentence(description: &str) -> String {
    let flat = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = flat.find(". ").map_or(flat.len(), |at| at + 1);
    flat[..end].replace('|', "\\|")
}

fn table(registry: &ToolRegistry) -> String {
    let mut specs: Vec<&ToolSpec> = registry.specs().collect();
    specs.sort_by(|a, b| (a.group(), a.name()).cmp(&(b.group(), b.name())));
    let mut table = format!(
        "{} builtin tools.\n\n| tool | group | what it does | approval |\n|---|---|---|---|\n",
        specs.len()
    );
    for spec in specs {
        let approval = if spec.flags().requires_approval() {
            "yes"
        } else {
            ""
        };
        let _ = writeln!(
            table,
            "| `{}` | {} | {} | {approval} |",
            spec.name(),
            spec.group(),
            first_sentence(spec.description())
        );
    }
    table
}

#[test]
fn the_readme_lists_exactly_the_registrys_builtins() {
    let registry = ToolRegistry::linked_expecting(&["toolkit_builtins"]).expect("the builtins");
    let expected = table(&registry);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).expect("the README");
    let start = readme
        .find(START)
        .expect("the README marks the tools table")
        + START.len();
    let end = start + readme[start..].find(END).expect("the table's end mark");
    if std::env::var_os("UPDATE_README").is_some() {
        let updated = format!("{}{expected}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).expect("write the README");
        return;
    }
    assert_eq!(
        &readme[start..end],
        expected,
        "the README's tools table differs from the registry: run \
         UPDATE_README=1 cargo test -p toolkit-builtins --test readme_tools"
    );
}
