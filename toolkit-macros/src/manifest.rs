//! Where the crate being compiled finds toolkit when its `Cargo.toml` renames the dependency
//! (`tk = { package = "toolkit", .. }`, directly or through `workspace = true`): the generated
//! code then reaches it as `::tk` without a `crate = ".."` key.
//!
//! Cargo has already parsed and checked the manifest, so this reads only what it needs: the keys
//! of the dependency tables and their `package` and `workspace` fields. What it cannot read
//! leaves the default, `::toolkit`, and `crate = ".."` says the rest.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

/// The name under which the crate being compiled depends on toolkit, when that is not
/// `toolkit`. Read once per manifest and process: cargo compiles each crate in a process of its
/// own, but a long-lived rust-analyzer sees an edited rename only once it restarts.
pub fn renamed_toolkit() -> Option<String> {
    static SEEN: LazyLock<Mutex<HashMap<PathBuf, Option<String>>>> = LazyLock::new(Mutex::default);
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let mut seen = SEEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    seen.entry(dir).or_insert_with_key(|dir| find(dir)).clone()
}

/// Reads the manifest in `dir`, and the workspace root's (a folder above) when a dependency is
/// inherited.
fn find(dir: &Path) -> Option<String> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let root = || {
        dir.ancestors().skip(1).find_map(|folder| {
            workspace_dependencies(&std::fs::read_to_string(folder.join("Cargo.toml")).ok()?)
        })
    };
    renamed(&manifest, root)
}

/// The `[workspace.dependencies]` of `manifest` when it is a workspace root.
fn workspace_dependencies(manifest: &str) -> Option<Vec<Dependency>> {
    let scanned = scan(manifest);
    scanned.has_workspace.then_some(scanned.workspace)
}

/// The dependency key of the package `toolkit` in `manifest`, when it is not `toolkit`, as a
/// Rust name (`-` becomes `_`). `root` gives the workspace root's dependencies, asked for only
/// when a dependency is inherited and `manifest` is not the root itself.
fn renamed(manifest: &str, root: impl FnOnce() -> Option<Vec<Dependency>>) -> Option<String> {
    let Manifest {
        package,
        workspace,
        has_workspace,
    } = scan(manifest);
    let mut inherited = has_workspace.then_some(workspace);
    let mut root = Some(root);
    let mut found = None;
    for dependency in &package {
        let named = if dependency.workspace {
            inherited
                .get_or_insert_with(|| root.take().and_then(|read| read()).unwrap_or_default())
                .iter()
                .find(|entry| entry.key == dependency.key)
                .map(Dependency::package)
        } else {
            Some(dependency.package())
        };
        if named == Some("toolkit") {
            if dependency.key == "toolkit" {
                return None;
            }
            found.get_or_insert_with(|| dependency.key.replace('-', "_"));
        }
    }
    found
}

/// What a manifest says about dependencies.
#[derive(Default)]
struct Manifest {
    /// The package's dependencies (normal and dev, per target too), in order; build
    /// dependencies are the build script's, not the crate's.
    package: Vec<Dependency>,
    /// `[workspace.dependencies]`.
    workspace: Vec<Dependency>,
    /// Whether it has a `workspace` table (`[workspace]`, or only `[workspace.dependencies]`,
    /// which makes one too): it is a workspace root.
    has_workspace: bool,
}

/// One dependency: its key and the fields that say which package it is.
struct Dependency {
    key: String,
    package: Option<String>,
    workspace: bool,
}

impl Dependency {
    /// The package it names: `package = ".."`, else its key.
    fn package(&self) -> &str {
        self.package.as_deref().unwrap_or(&self.key)
    }

    /// Sets `field` from `value` if it is `package` or `workspace`.
    fn set(&mut self, field: &str, value: &str) {
        match field {
            "package" => self.package = Some(unquote(value)),
            "workspace" => self.workspace = value == "true",
            _ => {}
        }
    }
}

/// Which table the lines being read belong to.
enum Table {
    /// A table of dependencies, one per line (`[dependencies]`, `[workspace.dependencies]`).
    Dependencies { workspace: bool },
    /// The table of one dependency (`[dependencies.tk]`), at this index.
    Dependency { workspace: bool, index: usize },
    /// Any other table.
    Other,
}

/// The dependency tables of `manifest`, line by line.
fn scan(manifest: &str) -> Manifest {
    let mut found = Manifest::default();
    let mut table = Table::Other;
    // The delimiter of a multi-line string being read: its lines are text, not tables or keys.
    let mut open_string: Option<&str> = None;
    for line in manifest.lines() {
        if let Some(delimiter) = open_string {
            if line.contains(delimiter) {
                open_string = None;
            }
            continue;
        }
        let line = uncomment(line).trim();
        if let Some(header) = line.strip_prefix('[') {
            let arrayed = header.starts_with('[');
            let name = header.trim_start_matches('[').trim_end_matches(']');
            let parts = split_outside(name, '.');
            let parts: Vec<String> = parts.iter().map(|part| unquote(part)).collect();
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            if parts.first() == Some(&"workspace") {
                found.has_workspace = true;
            }
            table = if arrayed {
                Table::Other
            } else {
                dependency_table(&parts, &mut found)
            };
            continue;
        }
        let Some((key, value)) = split_once_outside(line, '=') else {
            continue;
        };
        let key: Vec<String> = split_outside(key, '.')
            .iter()
            .map(|part| unquote(part))
            .collect();
        let value = value.trim();
        open_string = ["\"\"\"", "'''"].into_iter().find(|delimiter| {
            value
                .strip_prefix(delimiter)
                .is_some_and(|rest| !rest.contains(delimiter))
        });
        match table {
            Table::Dependencies { workspace } => {
                let list = if workspace {
                    &mut found.workspace
                } else {
                    &mut found.package
                };
                let mut dependency = Dependency {
                    key: key[0].clone(),
                    package: None,
                    workspace: false,
                };
                if let [_, field] = key.as_slice() {
                    // A dotted key (`tk.package = "toolkit"`) adds to the entry it names.
                    if let Some(existing) = list.iter_mut().find(|entry| entry.key == key[0]) {
                        existing.set(field, value);
                        continue;
                    }
                    dependency.set(field, value);
                } else if let Some(inline) = value.strip_prefix('{') {
                    for pair in split_outside(inline.trim_end_matches('}'), ',') {
                        if let Some((field, value)) = split_once_outside(&pair, '=') {
                            dependency.set(&unquote(field), value.trim());
                        }
                    }
                }
                list.push(dependency);
            }
            Table::Dependency { workspace, index } => {
                let list = if workspace {
                    &mut found.workspace
                } else {
                    &mut found.package
                };
                if let [field] = key.as_slice() {
                    list[index].set(field, value);
                }
            }
            Table::Other => {}
        }
    }
    found
}

/// The table a header opens: a list of dependencies, one dependency's own table, or another.
fn dependency_table(parts: &[&str], found: &mut Manifest) -> Table {
    let kinds = ["dependencies", "dev-dependencies", "dev_dependencies"];
    let (workspace, rest) = match parts {
        ["workspace", "dependencies", rest @ ..] => (true, rest),
        [kind, rest @ ..] if kinds.contains(kind) => (false, rest),
        ["target", _, kind, rest @ ..] if kinds.contains(kind) => (false, rest),
        _ => return Table::Other,
    };
    match rest {
        [] => Table::Dependencies { workspace },
        [key] => {
            let list = if workspace {
                &mut found.workspace
            } else {
                &mut found.package
            };
            list.push(Dependency {
                key: (*key).to_owned(),
                package: None,
                workspace: false,
            });
            Table::Dependency {
                workspace,
                index: list.len() - 1,
            }
        }
        _ => Table::Other,
    }
}

/// The characters of `text` outside strings (basic `"..."` with escapes, literal `'...'`), each
/// with its byte index and how deep in arrays and inline tables it is.
fn outside_strings(text: &str) -> impl Iterator<Item = (usize, char, usize)> + '_ {
    let mut quote = None;
    let mut escaped = false;
    let mut depth = 0_usize;
    text.char_indices().filter_map(move |(at, c)| {
        if let Some(open) = quote {
            if escaped {
                escaped = false;
            } else if open == '"' && c == '\\' {
                escaped = true;
            } else if c == open {
                quote = None;
            }
            return None;
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                return None;
            }
            '[' | '{' => depth += 1,
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        Some((at, c, depth))
    })
}

/// The line without its comment (a `#` outside a string).
fn uncomment(line: &str) -> &str {
    outside_strings(line)
        .find(|&(_, c, _)| c == '#')
        .map_or(line, |(at, _, _)| &line[..at])
}

/// Splits `text` at each `separator` outside strings, arrays and inline tables.
fn split_outside(text: &str, separator: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some((part, after)) = split_once_outside(rest, separator) {
        parts.push(part.to_owned());
        rest = after;
    }
    parts.push(rest.to_owned());
    parts
}

/// `text` before and after the first `separator` outside strings, arrays and inline tables.
fn split_once_outside(text: &str, separator: char) -> Option<(&str, &str)> {
    outside_strings(text)
        .find(|&(_, c, depth)| c == separator && depth == 0)
        .map(|(at, c, _)| (&text[..at], &text[at + c.len_utf8()..]))
}

/// A key or string value without its quotes (escapes other than `\"` and `\\` are kept as
/// written: package and dependency names have none).
fn unquote(text: &str) -> String {
    let text = text.trim();
    for quote in ['"', '\''] {
        if let Some(inner) = text
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return if quote == '"' {
                inner.replace("\\\"", "\"").replace("\\\\", "\\")
            } else {
                inner.to_owned()
            };
        }
    }
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::{renamed, workspace_dependencies};

    fn with_root(manifest: &str, root: &str) -> Option<String> {
        renamed(manifest, || workspace_dependencies(root))
    }

    fn alone(manifest: &str) -> Option<String> {
        renamed(manifest, || panic!("the workspace's manifest was read"))
    }

    #[test]
    fn a_plain_dependency_is_not_renamed() {
        let manifest = "[package]\nname = \"app\"\n\n[dependencies]\ntoolkit = { path = \"../toolkit\" }\nserde = \"1\"\n";
        assert_eq!(alone(manifest), None);
        assert_eq!(alone("[dependencies]\ntoolkit = \"0.1\"\n"), None);
        assert_eq!(alone("[package]\nname = \"toolkit\"\n"), None);
    }

    #[test]
    fn an_inline_rename_is_found_in_every_dependency_table() {
        for table in [
            "dependencies",
            "dev-dependencies",
            "target.'cfg(unix)'.dependencies",
            "target.\"cfg(any(unix, windows))\".dev-dependencies",
        ] {
            let manifest = format!(
                "[package]\nname = \"app\" # [dependencies]\n\n[{table}]\nserde = {{ version = \"1\", features = [\"derive\", \"rc\"] }}\ntk = {{ package = \"toolkit\", path = \"../toolkit\", default-features = false }} # the toolkit\n"
            );
            assert_eq!(alone(&manifest).as_deref(), Some("tk"), "{table}");
        }
    }

    #[test]
    fn a_renamed_key_becomes_a_rust_name() {
        assert_eq!(
            alone("[dependencies]\n\"my-toolkit\" = { version = \"0.1\", package = 'toolkit' }\n")
                .as_deref(),
            Some("my_toolkit")
        );
        assert_eq!(
            alone("[dependencies]\nmy-tk.package = \"toolkit\"\nmy-tk.version = \"0.1\"\n")
                .as_deref(),
            Some("my_tk")
        );
    }

    #[test]
    fn a_dependency_table_of_its_own_is_read() {
        let manifest = "[dependencies.tk]\nversion = \"0.1\"\nfeatures = [\n  \"a=b\",\n]\npackage = \"toolkit\"\n\n[features]\npackage = \"toolkit\"\n";
        assert_eq!(alone(manifest).as_deref(), Some("tk"));
    }

    #[test]
    fn look_alikes_are_not_taken_for_toolkit() {
        for manifest in [
            // Another package under a name, toolkit named only in a comment or a string.
            "[dependencies]\ntk = { package = \"toolkit-builtins\" }\n# tk = { package = \"toolkit\" }\n",
            "[dependencies]\ntk = { version = \"1\", features = [\"package = \\\"toolkit\\\"\"] }\n",
            // Not a dependency table.
            "[package.metadata.tk]\npackage = \"toolkit\"\n[[bin]]\nname = \"tk\"\npackage = \"toolkit\"\n",
            "[patch.crates-io]\ntk = { package = \"toolkit\", path = \"x\" }\n",
        ] {
            assert_eq!(alone(manifest), None, "{manifest}");
        }
    }

    #[test]
    fn a_multi_line_string_is_text_not_tables() {
        for quote in ["\"\"\"", "'''"] {
            let manifest = format!(
                "[package]\nname = \"app\"\ndescription = {quote}\nUse it like this:\n[dependencies]\ntk = {{ package = \"toolkit\" }}\n{quote}\n[dependencies]\nserde = \"1\"\n"
            );
            assert_eq!(alone(&manifest), None, "{quote}");
            // After the string closes, tables are read again.
            let manifest = format!(
                "[package]\ndescription = {quote}one\ntwo{quote}\n[dependencies]\ntk = {{ package = \"toolkit\" }}\n"
            );
            assert_eq!(alone(&manifest).as_deref(), Some("tk"), "{quote}");
        }
        let one_line = "[package]\ndescription = \"\"\"one line\"\"\"\n[dependencies]\ntk = { package = \"toolkit\" }\n";
        assert_eq!(alone(one_line).as_deref(), Some("tk"));
    }

    #[test]
    fn a_build_dependency_is_the_build_scripts_not_the_crates() {
        let manifest = "[build-dependencies]\ntb = { package = \"toolkit\", path = \"x\" }\n[target.'cfg(unix)'.build-dependencies.tu]\npackage = \"toolkit\"\n";
        assert_eq!(alone(manifest), None);
        let both =
            format!("{manifest}[dependencies]\ntk = {{ package = \"toolkit\", path = \"x\" }}\n");
        assert_eq!(alone(&both).as_deref(), Some("tk"));
    }

    #[test]
    fn an_inherited_rename_is_read_from_the_workspace() {
        let member = "[package]\nname = \"app\"\n[dependencies]\nserde.workspace = true\ntk = { workspace = true, features = [\"x\"] }\n";
        let root = "[workspace]\nmembers = [\"app\"]\n[workspace.dependencies]\nserde = \"1\"\ntk = { package = \"toolkit\", path = \"toolkit\" }\n";
        assert_eq!(with_root(member, root).as_deref(), Some("tk"));
        // Inherited under its own name, or from a root that does not rename it.
        let plain = "[workspace]\n[workspace.dependencies.toolkit]\npath = \"toolkit\"\n";
        let member = "[dependencies]\ntoolkit.workspace = true\n";
        assert_eq!(with_root(member, plain), None);
        // A root with only `[workspace.dependencies]` is a root too.
        let implicit =
            "[workspace.dependencies]\ntk = { package = \"toolkit\", path = \"toolkit\" }\n";
        let member = "[dependencies]\ntk.workspace = true\n";
        assert_eq!(with_root(member, implicit).as_deref(), Some("tk"));
        let own =
            format!("[package]\nname = \"app\"\n{implicit}[dependencies]\ntk.workspace = true\n");
        assert_eq!(alone(&own).as_deref(), Some("tk"));
        // No workspace found: nothing is guessed.
        assert_eq!(
            renamed("[dependencies]\ntk.workspace = true\n", || None),
            None
        );
    }

    #[test]
    fn a_package_that_is_its_workspace_root_reads_its_own_table() {
        let manifest = "[package]\nname = \"app\"\n[workspace]\n[workspace.dependencies]\ntk = { package = \"toolkit\", path = \"toolkit\" }\n[dependencies]\ntk = { workspace = true }\n";
        assert_eq!(alone(manifest).as_deref(), Some("tk"));
    }
}
