//! One secret policy at the seam, tried on every builtin that can show text read from a
//! workspace, a repository, a web page or a database ([`toolkit_builtins::shows_sources`]: the
//! registry chooses them, not a list here). The corpus of secret shapes is planted in each
//! place, in each layout (see `secrets_corpus`), and read through each tool with arguments made
//! from its schema, over the provider wire: with [`SecretFilter`] on, no planted secret reaches
//! the wire in a tool result, while the artifacts (for people) keep every one; without it, the
//! tools that read the places carry every shape, so the plants are real.
//!
//! The builtins guide's table of builtins (`toolkit/docs/guide/builtins.md`) is generated here,
//! with each tool's figures: `UPDATE_README=1 cargo test -p toolkit-builtins --test
//! secrets_wire` rewrites it.

mod secrets_corpus;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use secrets_corpus::{Survey, shapes_in, survey};
use toolkit::{ToolRegistry, ToolSpec};
use toolkit_secrets::corpus::CORPUS;

const START: &str = "<!-- tools:start (generated from the registry by toolkit-builtins/tests/secrets_wire.rs) -->\n";
const END: &str = "<!-- tools:end -->";

/// The description's first sentence, on one line, with `|` escaped for a Markdown table.
fn first_sentence(description: &str) -> String {
    let flat = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = flat.find(". ").map_or(flat.len(), |at| at + 1);
    flat[..end].replace('|', "\\|")
}

/// The builtins guide's table: every builtin, and for those that can show a source, the shapes of the
/// corpus each shows without the filter and with it.
fn table(registry: &ToolRegistry, survey: &Survey) -> String {
    let mut specs: Vec<&ToolSpec> = registry.specs().collect();
    specs.sort_by(|a, b| (a.group(), a.name()).cmp(&(b.group(), b.name())));
    let mut table = format!(
        "{} builtin tools. The corpus column: of the {} secret shapes planted in the workspace, \
         the repository, pages and records, how many a tool shows without the secret filter · \
         with it (`tests/secrets_wire.rs`).\n\n\
         | tool | group | what it does | approval | corpus |\n|---|---|---|---|---|\n",
        specs.len(),
        CORPUS.len()
    );
    for spec in specs {
        let approval = if spec.flags().requires_approval() {
            "yes"
        } else {
            ""
        };
        let corpus = survey
            .tools
            .get(spec.name())
            .map(|figures| format!("{} · {}", figures.shown.len(), figures.leaked.len()))
            .unwrap_or_default();
        let _ = writeln!(
            table,
            "| `{}` | {} | {} | {approval} | {corpus} |",
            spec.name(),
            spec.group(),
            first_sentence(spec.description())
        );
    }
    table
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_secret_reaches_the_wire_through_any_source_tool() {
    let survey = survey(|| toolkit_builtins::registry().expect("the builtins")).await;
    // With the filter: nothing, tool by tool (with the lines that leak when something does).
    let leaks: BTreeMap<&str, Vec<&str>> = survey
        .tools
        .iter()
        .filter(|(_, figures)| !figures.leaked.is_empty())
        .map(|(tool, figures)| (tool.as_str(), figures.leaked.clone()))
        .collect();
    let lines: BTreeMap<&str, &[String]> = survey
        .tools
        .iter()
        .filter(|(_, figures)| !figures.leaking_lines.is_empty())
        .map(|(tool, figures)| (tool.as_str(), figures.leaking_lines.as_slice()))
        .collect();
    assert_eq!(
        leaks,
        BTreeMap::new(),
        "shapes on the wire, by tool; the lines: {lines:#?}"
    );
    // Without it: the tools that read each place whole carry every shape (`csv_preview` cuts
    // a cell at 100 characters, `csv_stats` shows a column's extremes).
    let everything: Vec<&str> = CORPUS.iter().map(|(form, _, _)| *form).collect();
    let partial: Vec<(&str, usize)> = [
        "read_file",
        "read_files",
        "search_files",
        "git_show",
        "git_diff",
        "git_blame",
        "preview_edit",
        "json_query",
        "fetch_page",
        "probe_url",
        "read_records",
        "search_records",
        "query_sql",
        "preview_record_change",
    ]
    .into_iter()
    .map(|tool| (tool, survey.tools[tool].shown.len()))
    .filter(|(_, shown)| *shown != everything.len())
    .collect();
    assert_eq!(
        partial,
        Vec::new(),
        "tools that read only part of the corpus"
    );
    // `fetch_logs` masks each line itself, with the same rules, filter or not.
    assert!(
        survey.tools["fetch_logs"].shown.len() < CORPUS.len() / 10,
        "{:?}",
        survey.tools["fetch_logs"].shown
    );
    // People keep every value.
    assert_eq!(
        shapes_in(std::slice::from_ref(&survey.artifacts)),
        everything,
        "shapes the artifacts keep"
    );
    // The builtins guide's table says the same.
    let registry = toolkit_builtins::registry().expect("the builtins");
    let expected = table(&registry, &survey);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolkit/docs/guide/builtins.md");
    let readme = std::fs::read_to_string(&path).expect("the builtins guide");
    let start = readme.find(START).expect("the guide marks the tools table") + START.len();
    let end = start + readme[start..].find(END).expect("the table's end mark");
    if std::env::var_os("UPDATE_README").is_some() {
        let updated = format!("{}{expected}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).expect("write the guide");
        return;
    }
    assert_eq!(
        &readme[start..end],
        expected,
        "the builtins guide's tools table differs from the registry and the corpus: run \
         UPDATE_README=1 cargo test -p toolkit-builtins --test secrets_wire"
    );
}

/// SQL answers questions about values, and a question can show a secret in a form no filter
/// can tell (`hex(value)`, `substr(value, 1, 4)`, how many values start with `p`). With the
/// filter on, the records tools answer over the values as the filter passes them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_over_a_filtered_run_sees_only_masked_values() {
    use std::sync::Arc;

    use serde_json::json;
    use toolkit::{ToolLoopService, seam::SecretFilter};

    let plants = secrets_corpus::plant();
    let secret = "plainpass123";
    let connection = rusqlite::Connection::open(plants.root().join("vault.db")).expect("database");
    let table = plants
        .tables
        .iter()
        .find(|table| {
            table.starts_with("pairs_")
                && connection
                    .query_row(
                        &format!("SELECT count(*) FROM {table} WHERE value = ?1"),
                        [secret],
                        |row| row.get::<_, i64>(0),
                    )
                    .expect("count")
                    == 1
        })
        .expect("the table holding the secret")
        .clone();
    let questions = [
        format!("SELECT name, hex(value) FROM {table}"),
        format!(
            "SELECT name, substr(value, 1, 4), substr(value, 5, 4), substr(value, 9) FROM {table}"
        ),
        format!("SELECT name, replace(value, 'a', '@') FROM {table}"),
        format!("SELECT count(*) FROM {table} WHERE value LIKE 'plai%'"),
    ];
    let calls: Vec<serde_json::Value> = questions.iter().map(|sql| json!({"sql": sql})).collect();
    let answers = |filtered: bool| {
        let mut service =
            ToolLoopService::new(toolkit_builtins::registry().expect("no duplicates"));
        if filtered {
            service = service.with_content_filter(Arc::new(SecretFilter));
        }
        let plants = &plants;
        let calls = &calls;
        async move {
            secrets_corpus::read_through(&service, plants, "query_sql", calls)
                .await
                .results
        }
    };
    let hex = secret.bytes().fold(String::new(), |mut hex, byte| {
        let _ = write!(hex, "{byte:02X}");
        hex
    });
    // Without the filter, each question shows the secret, in its own form.
    let open = answers(false).await;
    assert!(open[0].contains(&hex), "{}", open[0]);
    assert!(open[1].contains("plai | npas | s123"), "{}", open[1]);
    assert!(open[2].contains("pl@inp@ss123"), "{}", open[2]);
    assert!(open[3].contains("\n1"), "{}", open[3]);
    // With it, none does.
    let masked = answers(true).await;
    assert!(!masked[0].contains(&hex), "{}", masked[0]);
    assert!(!masked[1].contains("plai"), "{}", masked[1]);
    assert!(!masked[2].contains("pl@inp@ss123"), "{}", masked[2]);
    assert!(masked[3].contains("\n0"), "{}", masked[3]);
}
