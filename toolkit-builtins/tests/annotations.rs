//! What the builtins tell hosts of themselves (MCP's annotations and a title): which are open
//! world, which idempotent, and a title for each that is whole (a first sentence too long to be
//! one is replaced by a title given).

use std::collections::BTreeSet;

/// The builtins whose answer depends only on their arguments and the state they read (a reader)
/// or whose repeated call changes nothing more (a writer).
const IDEMPOTENT: [&str; 38] = [
    "base64",
    "calculate",
    "convert_units",
    "count_records",
    "create_directory",
    "csv_preview",
    "csv_stats",
    "date_diff",
    "describe_database",
    "diff_text",
    "fetch_logs",
    "file_hash",
    "file_info",
    "find_files",
    "get_env",
    "get_table_schema",
    "git_blame",
    "git_diff",
    "git_log",
    "git_show",
    "git_status",
    "hash_text",
    "json_infer_schema",
    "json_query",
    "list_directory",
    "list_tables",
    "preview_edit",
    "preview_record_change",
    "read_file",
    "read_files",
    "read_records",
    "regex_test",
    "search_files",
    "search_records",
    "text_stats",
    "tree",
    "url_parse",
    "write_file",
];

#[test]
fn only_the_network_tools_are_open_world() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
    let open: Vec<&str> = registry
        .specs()
        .filter(|spec| spec.flags().open_world())
        .map(toolkit::ToolSpec::name)
        .collect();
    assert_eq!(open, ["fetch_page", "probe_url"]);
    for name in open {
        let flags = registry.get(name).expect("registered").spec().flags();
        assert!(
            flags.remote() && flags.read_only() && !flags.idempotent(),
            "{name}"
        );
    }
}

#[test]
fn the_idempotent_builtins_are_those_whose_repeated_call_does_nothing_more() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
    let idempotent: BTreeSet<&str> = registry
        .specs()
        .filter(|spec| spec.flags().idempotent())
        .map(toolkit::ToolSpec::name)
        .collect();
    assert_eq!(idempotent, BTreeSet::from(IDEMPOTENT));
    // Of the writers, only the two whose second call writes the same again.
    let writers: Vec<&str> = registry
        .specs()
        .filter(|spec| spec.flags().requires_approval() && spec.flags().idempotent())
        .map(toolkit::ToolSpec::name)
        .collect();
    assert_eq!(writers, ["create_directory", "write_file"]);
}

#[test]
fn every_builtin_has_a_whole_title() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
    for spec in registry.specs() {
        let title = spec.title();
        assert!(
            title.chars().count() <= toolkit::limits::TOOL_TITLE_LIMIT
                && !title.ends_with('…')
                && !title.contains('\n'),
            "{}: {title:?}",
            spec.name()
        );
    }
    let title = |name: &str| {
        registry
            .get(name)
            .expect("registered")
            .spec()
            .title()
            .into_owned()
    };
    // Given, where the first sentence is long; else the first sentence.
    assert_eq!(title("fetch_page"), "Fetches a web page as readable text");
    assert_eq!(
        title("read_file"),
        "Reads lines of a text file in the workspace, numbered from 1"
    );
}
