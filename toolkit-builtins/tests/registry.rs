//! The registry holds exactly the `#[tool]` functions written in this crate's sources.

use std::collections::BTreeSet;
use std::path::Path;

/// Tool names declared in the sources: each `#[tool]` or `#[tool(...)]` attribute (on one line or
/// several), with its `name = "..."` if it has one, else the name of the `fn` that follows.
fn declared_in(dir: &Path, names: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            declared_in(&path, names);
            continue;
        }
        if path.extension().is_none_or(|extension| extension != "rs") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("readable source file");
        let mut lines = source.lines().map(str::trim);
        while let Some(line) = lines.next() {
            let Some(rest) = line.strip_prefix("#[tool") else {
                continue;
            };
            if !(rest.starts_with(']') || rest.starts_with('(')) {
                continue;
            }
            // The whole attribute, which rustfmt spreads over several lines when it is long.
            let mut attribute = rest.to_owned();
            while !attribute.ends_with(']') {
                let Some(next) = lines.next() else { break };
                attribute.push(' ');
                attribute.push_str(next);
            }
            if let Some(name) = attribute
                .split(&['(', ','][..])
                .find_map(|key| key.trim().strip_prefix("name = \""))
                .and_then(|tail| tail.split('"').next())
            {
                names.insert(name.to_owned());
                continue;
            }
            let function = lines
                .by_ref()
                .find_map(|line| line.split("fn ").nth(1).filter(|_| line.contains("fn ")))
                .expect("a fn after #[tool]");
            let name: String = function
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.insert(name);
        }
    }
}

#[test]
fn every_tool_in_the_sources_is_linked_and_nothing_else() {
    let mut declared = BTreeSet::new();
    declared_in(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut declared,
    );
    assert!(!declared.is_empty());

    let registry = toolkit_builtins::registry().expect("no duplicate names");
    let linked: BTreeSet<String> = registry
        .specs()
        .filter(|spec| spec.place().starts_with("toolkit_builtins::"))
        .map(|spec| spec.name().to_owned())
        .collect();
    assert_eq!(linked, declared);
}

#[test]
fn every_builtin_has_a_description_and_a_schema_for_every_provider() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
    for spec in registry.specs() {
        assert!(!spec.description().is_empty(), "{}", spec.name());
        assert_eq!(spec.input_schema()["type"], "object", "{}", spec.name());
        assert_eq!(
            spec.openai().expect("a short description")["function"]["name"],
            spec.name()
        );
        assert_eq!(spec.anthropic()["name"], spec.name());
        spec.openai_strict()
            .unwrap_or_else(|error| panic!("{error}"));
        spec.gemini().unwrap_or_else(|error| panic!("{error}"));
    }
}

/// A tool of the binary's own, beside the builtins.
#[toolkit::tool]
fn own_tool() -> toolkit::ToolResult {
    toolkit::ToolResult::text("mine")
}

#[test]
fn linking_the_builtins_leaves_linked_as_it_was_until_they_are_registered() {
    let mut registry = toolkit::ToolRegistry::linked().expect("no duplicate names");
    // This binary links the crate (the tests above call it), yet `linked` offers only its own.
    assert_eq!(
        registry
            .specs()
            .map(toolkit::ToolSpec::name)
            .collect::<Vec<_>>(),
        ["own_tool"]
    );

    toolkit_builtins::register(&mut registry).expect("no name taken");
    let all = toolkit_builtins::registry().expect("no duplicate names");
    assert_eq!(registry.len(), all.len());
    assert!(registry.get("get_env").is_some());
    assert!(registry.get("fetch_page").is_some());

    // Twice is a name taken (the first builtin by name), and the registry stays as it was.
    let first = all
        .specs()
        .map(toolkit::ToolSpec::name)
        .filter(|name| *name != "own_tool")
        .min()
        .expect("builtins");
    let error = toolkit_builtins::register(&mut registry).unwrap_err();
    assert!(
        matches!(
            &error,
            toolkit::registry::RegistryError::Duplicate(duplicate) if duplicate.name == first
        ),
        "{error}"
    );
    assert_eq!(registry.len(), all.len());
}
