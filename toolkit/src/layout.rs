//! The crate's own layout, checked: no two top-level modules of `src/` import each other, directly
//! or around a circle, so that each can be read (and changed) knowing only those below it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Each top-level module of `src/` (a file, or a folder with every file in it) and the other
/// top-level modules its code (not its tests, not its comments) names through `crate::`.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files: Vec<(String, String)> = Vec::new();
    for entry in fs::read_dir(src).expect("src/ lists") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .expect("a UTF-8 name")
            .to_owned();
        if path.is_dir() {
            for inner in fs::read_dir(&path).expect("a module folder lists") {
                let inner = inner.expect("an entry").path();
                files.push((
                    name.clone(),
                    fs::read_to_string(inner).expect("a source file"),
                ));
            }
        } else if name != "lib" {
            files.push((name, fs::read_to_string(path).expect("a source file")));
        }
    }
    let modules: BTreeSet<String> = files.iter().map(|(name, _)| name.clone()).collect();
    let root = root_items(&fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in &files {
        let edges = graph.entry(module.clone()).or_default();
        for name in crate_paths(&code_of(text)) {
            let target = match name.as_str() {
                "__private" => "private".to_owned(),
                _ if modules.contains(&name) => name,
                _ => match root.get(&name) {
                    Some(target) => target.clone(),
                    // A macro or function defined in lib.rs itself.
                    None => continue,
                },
            };
            if target != *module {
                edges.insert(target);
            }
        }
    }
    graph
}

/// The code of a source file: without its `mod tests` and without comment lines.
fn code_of(text: &str) -> String {
    let text = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at]);
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of every `crate::` path of `code`, each name of a `crate::{..}` group too.
fn crate_paths(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            names.push(head(rest));
            continue;
        };
        let (mut depth, mut item) = (0, String::new());
        for c in group.chars() {
            match c {
                '}' if depth == 0 => break,
                ',' if depth == 0 => {
                    names.push(head(&item));
                    item.clear();
                    continue;
                }
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            item.push(c);
        }
        names.push(head(&item));
    }
    names.retain(|name| !name.is_empty());
    names
}

/// The name a path starts with.
fn head(path: &str) -> String {
    path.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Every name lib.rs re-exports (`pub use module::{A, B};`), and the top-level module it comes
/// from.
fn root_items(lib: &str) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    let code = code_of(lib);
    for statement in code.split("pub use ").skip(1) {
        let statement = &statement[..statement.find(';').unwrap_or(statement.len())];
        let Some((module, names)) = statement.split_once("::") else {
            continue;
        };
        let names = names.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_' || c == ':');
        let names = names.trim_matches(|c: char| c == '{' || c == '}' || c.is_whitespace());
        let listed: Vec<&str> = if names.is_empty() {
            vec![statement.rsplit("::").next().expect("a last segment")]
        } else {
            names.split(',').collect()
        };
        for name in listed {
            let name = name.trim();
            if !name.is_empty() {
                items.insert(name.to_owned(), module.trim().to_owned());
            }
        }
    }
    items
}

/// The first circle of `graph` found, as the modules around it (the first again at the end).
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|on| on == module) {
            let mut circle = path[at..].to_vec();
            circle.push(module.to_owned());
            return Some(circle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_owned());
        for next in graph.get(module).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(module.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|module| visit(module, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_two_modules_import_each_other_around_a_circle() {
    let graph = imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.len() > 20, "{graph:?}");
    // The seam sits on the registry and the tools, the loop on the seam and the recording.
    assert!(graph["seam"].contains("registry"));
    assert!(graph["recording"].contains("seam"));
    assert!(graph["run"].contains("recording"));
    if let Some(circle) = circle(&graph) {
        panic!("an import circle: {}", circle.join(" -> "));
    }
}

#[test]
fn the_check_sees_paths_groups_and_root_names_and_finds_circles() {
    let code = "use crate::a::B;\nuse crate::{c::D, e, f::{G, H}};\n// crate::comment\nlet x = crate::I::new();";
    assert_eq!(crate_paths(&code_of(code)), ["a", "c", "e", "f", "I"]);
    let root = root_items("pub use a::{B, C};\n#[cfg(x)]\npub use d::E;\npub use f::g::H;");
    assert_eq!(
        root.into_iter().collect::<Vec<_>>(),
        [
            ("B".to_owned(), "a".to_owned()),
            ("C".to_owned(), "a".to_owned()),
            ("E".to_owned(), "d".to_owned()),
            ("H".to_owned(), "f".to_owned())
        ]
    );
    let graph = |edges: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in edges {
            graph
                .entry((*from).to_owned())
                .or_default()
                .insert((*to).to_owned());
            graph.entry((*to).to_owned()).or_default();
        }
        graph
    };
    assert_eq!(circle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
    assert_eq!(
        circle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

#[test]
fn the_root_lists_at_most_forty_items() {
    let lib = code_of(
        &fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
            .expect("lib.rs"),
    );
    let modules = lib
        .lines()
        .filter(|line| line.starts_with("pub mod ") && !line.contains("__private"))
        .count();
    // Every re-export, the two macros among them.
    let items = root_items(&lib).len();
    assert!(modules + items <= 40, "{modules} modules and {items} items");
    assert_eq!((modules, items), (13, 24));
}
