//! The crate's own layout, checked: no two top-level modules of `src/` import each other, directly
//! or around a circle, so that each can be read (and changed) knowing only those below it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use syn::visit::{self, Visit};

/// Each top-level module of `src/` (a file, or a folder with every file in it) and the other
/// top-level modules its code (not its tests) names through `crate::`, read with `syn`.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files: Vec<(String, syn::File)> = Vec::new();
    for entry in fs::read_dir(src).expect("src/ lists") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .expect("a UTF-8 name")
            .to_owned();
        if path.is_dir() {
            for inner in fs::read_dir(&path).expect("a module folder lists") {
                files.push((name.clone(), parse(&inner.expect("an entry").path())));
            }
        } else if name != "lib" {
            files.push((name, parse(&path)));
        }
    }
    let modules: BTreeSet<String> = files.iter().map(|(name, _)| name.clone()).collect();
    let root = root_items(&parse(&src.join("lib.rs")));
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &files {
        let edges = graph.entry(module.clone()).or_default();
        for name in crate_paths(file) {
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

fn parse(path: &Path) -> syn::File {
    let text = fs::read_to_string(path).expect("a source file");
    syn::parse_file(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Whether an item is compiled for tests only.
fn test_only(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        attribute.path().is_ident("cfg")
            && attribute
                .parse_args::<syn::Ident>()
                .is_ok_and(|flag| flag == "test")
    })
}

/// The first segment after `crate::` of every path in `file` outside its tests, each name of a
/// `use crate::{..}` group too.
fn crate_paths(file: &syn::File) -> Vec<String> {
    paths(file)
        .into_iter()
        .filter(|path| path[0] == "crate")
        .map(|path| path[1].clone())
        .collect()
}

/// Every path of two segments or more in `file` outside its tests that starts with `crate` or
/// `super`, as its segments (a `use` tree gives one path per name it brings in).
fn paths(file: &syn::File) -> Vec<Vec<String>> {
    struct Paths(Vec<Vec<String>>);

    impl<'ast> Visit<'ast> for Paths {
        fn visit_item(&mut self, item: &'ast syn::Item) {
            let attributes = match item {
                syn::Item::Mod(item) => &item.attrs,
                syn::Item::Fn(item) => &item.attrs,
                syn::Item::Impl(item) => &item.attrs,
                syn::Item::Use(item) => &item.attrs,
                _ => return visit::visit_item(self, item),
            };
            if !test_only(attributes) {
                visit::visit_item(self, item);
            }
        }

        fn visit_path(&mut self, path: &'ast syn::Path) {
            let segments: Vec<String> = path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect();
            if segments.len() > 1 && matches!(segments[0].as_str(), "crate" | "super") {
                self.0.push(segments);
            }
            visit::visit_path(self, path);
        }

        fn visit_use_tree(&mut self, tree: &'ast syn::UseTree) {
            if let syn::UseTree::Path(path) = tree
                && (path.ident == "crate" || path.ident == "super")
            {
                for mut rest in use_paths(&path.tree) {
                    rest.insert(0, path.ident.to_string());
                    self.0.push(rest);
                }
            }
        }
    }

    let mut paths = Paths(Vec::new());
    paths.visit_file(file);
    paths.0
}

/// Each path a `use` tree (below its root) names, as its segments.
fn use_paths(tree: &syn::UseTree) -> Vec<Vec<String>> {
    match tree {
        syn::UseTree::Path(path) => use_paths(&path.tree)
            .into_iter()
            .map(|mut rest| {
                rest.insert(0, path.ident.to_string());
                rest
            })
            .collect(),
        syn::UseTree::Name(name) => vec![vec![name.ident.to_string()]],
        syn::UseTree::Rename(rename) => vec![vec![rename.ident.to_string()]],
        syn::UseTree::Group(group) => group.items.iter().flat_map(use_paths).collect(),
        syn::UseTree::Glob(_) => Vec::new(),
    }
}

/// For each folder of `src/`, each file of it (`mod.rs` aside: it declares the others) and the
/// files beside it that its code names (`super::sibling::..`, `crate::folder::sibling::..`).
fn folder_imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in fs::read_dir(src).expect("src/ lists") {
        let folder = entry.expect("an entry").path();
        if !folder.is_dir() {
            continue;
        }
        let folder_name = stem(&folder);
        let files: Vec<(String, syn::File)> = fs::read_dir(&folder)
            .expect("a module folder lists")
            .map(|inner| inner.expect("an entry").path())
            .filter(|path| stem(path) != "mod")
            .map(|path| (stem(&path), parse(&path)))
            .collect();
        let siblings: BTreeSet<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        for (name, file) in &files {
            let edges = graph.entry(format!("{folder_name}/{name}")).or_default();
            for path in paths(file) {
                let sibling = match path[0].as_str() {
                    "super" => path.get(1),
                    _ if path[1] == folder_name => path.get(2),
                    _ => None,
                };
                if let Some(sibling) = sibling
                    && siblings.contains(sibling.as_str())
                    && sibling != name
                {
                    edges.insert(format!("{folder_name}/{sibling}"));
                }
            }
        }
    }
    graph
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .and_then(|stem| stem.to_str())
        .expect("a UTF-8 name")
        .to_owned()
}

/// The names a `use` tree brings in.
fn last_name(tree: &syn::UseTree) -> Vec<String> {
    match tree {
        syn::UseTree::Path(path) => last_name(&path.tree),
        syn::UseTree::Name(name) => vec![name.ident.to_string()],
        syn::UseTree::Rename(rename) => vec![rename.rename.to_string()],
        syn::UseTree::Group(group) => group.items.iter().flat_map(last_name).collect(),
        syn::UseTree::Glob(_) => Vec::new(),
    }
}

/// Every name lib.rs re-exports (`pub use module::{A, B};`), and the top-level module it comes
/// from.
fn root_items(lib: &syn::File) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    for item in &lib.items {
        if let syn::Item::Use(used) = item
            && matches!(used.vis, syn::Visibility::Public(_))
            && let syn::UseTree::Path(path) = &used.tree
        {
            for name in last_name(&path.tree) {
                items.insert(name, path.ident.to_string());
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
fn no_two_files_of_a_folder_import_each_other_around_a_circle() {
    let graph = folder_imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    // The providers share the HTTP client, which reads server-sent events.
    assert!(graph["provider/openai"].contains("provider/http"));
    assert!(graph["provider/http"].contains("provider/sse"));
    if let Some(circle) = circle(&graph) {
        panic!("an import circle inside a folder: {}", circle.join(" -> "));
    }
}

#[test]
fn the_check_sees_paths_groups_and_root_names_and_finds_circles() {
    let code = syn::parse_file(
        "use crate::a::B;\nuse crate::{c::D, e, f::{G, H}};\n// crate::comment\n\
         fn x() { crate::I::new(); }\n#[cfg(test)]\nmod tests { use crate::t; }",
    )
    .unwrap();
    assert_eq!(crate_paths(&code), ["a", "c", "e", "f", "f", "I"]);
    // Inside a folder, a sibling is named through `super::` or the folder's path.
    let inner = syn::parse_file(
        "use super::{http::Answer, Error};\nuse crate::provider::stream::Delta;\n\
         fn x() { super::sse::events(); }",
    )
    .unwrap();
    assert_eq!(
        paths(&inner),
        [
            vec!["super", "http", "Answer"],
            vec!["super", "Error"],
            vec!["crate", "provider", "stream", "Delta"],
            vec!["super", "sse", "events"],
        ]
    );
    let lib = syn::parse_file(
        "pub use a::{B, C};\n#[cfg(x)]\npub use d::E;\npub use f::g::H;\nuse p::Q;",
    )
    .unwrap();
    assert_eq!(
        root_items(&lib).into_iter().collect::<Vec<_>>(),
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
    let lib = parse(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"));
    let modules = lib
        .items
        .iter()
        .filter(|item| match item {
            // `guide` holds pages of documentation and no item of the API.
            syn::Item::Mod(module) => {
                matches!(module.vis, syn::Visibility::Public(_))
                    && module.ident != "__private"
                    && module.ident != "guide"
            }
            // A crate re-exported as a module (`pub use toolkit_secrets as secrets;`).
            syn::Item::Use(used) => {
                matches!(used.vis, syn::Visibility::Public(_))
                    && matches!(used.tree, syn::UseTree::Rename(_))
            }
            _ => false,
        })
        .count();
    // Every re-export, the two macros among them.
    let items = root_items(&lib).len();
    assert!(modules + items <= 40, "{modules} modules and {items} items");
    assert_eq!((modules, items), (16, 24));
    // What the count leaves out is documentation only: `guide`'s pages are empty modules.
    let guide = parse(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/guide.rs"));
    assert!(guide.items.iter().all(|item| matches!(
        item,
        syn::Item::Mod(page) if page.content.as_ref().is_some_and(|(_, items)| items.is_empty())
    )));
}
