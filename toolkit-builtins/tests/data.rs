//! The data group: CSV, JSON, diffs, text statistics and regular expressions, through the seam.

mod workspace_fixture;

use serde_json::json;
use std::fmt::Write as _;
use toolkit::result::Cell;
use toolkit_builtins as _;
use workspace_fixture::{Fixture, assert_escapes_refused};

fn strings<const N: usize>(cells: [&str; N]) -> Vec<String> {
    cells.iter().map(|cell| (*cell).to_owned()).collect()
}

#[tokio::test]
async fn csv_preview_shows_the_first_rows_in_content_and_table() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call("csv_preview", json!({"path": "data/people.csv", "rows": 2}))
        .await;
    assert_eq!(
        outcome.content,
        "\"data/people.csv\": 3 columns (name, age, city), 3 rows; the first 2:\nAda | 36 | London\nGrace | 45 | Arlington"
    );
    assert_eq!(outcome.label(), "Rows");
    assert_eq!(
        outcome.table(),
        (
            strings(["name", "age", "city"]),
            vec![
                strings(["Ada", "36", "London"]),
                strings(["Grace", "45", "Arlington"])
            ]
        )
    );
}

#[tokio::test]
async fn csv_preview_reads_text_with_another_delimiter_and_pads_ragged_rows() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "csv_preview",
            json!({"text": "a;b\n1;2\n3\n", "delimiter": ";"}),
        )
        .await;
    assert_eq!(
        outcome.content,
        "the text: 2 columns (a, b), 2 rows (1 row with another number of cells than the header, padded or cut):\n1 | 2\n3 | "
    );
    assert_eq!(
        outcome.table().1,
        vec![strings(["1", "2"]), strings(["3", ""])]
    );
    let outcome = fixture
        .call(
            "csv_preview",
            json!({"text": "a\tb\nx\ty\n", "delimiter": "tab"}),
        )
        .await;
    assert_eq!(outcome.content, "the text: 2 columns (a, b), 1 row:\nx | y");
    assert_eq!(
        fixture
            .call("csv_preview", json!({"text": "a,b\n"}))
            .await
            .text(),
        "the text: 2 columns (a, b), 0 rows."
    );
}

#[tokio::test]
async fn csv_preview_validates_its_arguments() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture
            .call("csv_preview", json!({"text": "a\n1\n", "rows": 101}))
            .await
            .error(),
        "Error: rows must be between 1 and 100, not 101."
    );
    assert_eq!(
        fixture
            .call("csv_preview", json!({"text": "a\n1\n", "delimiter": "::"}))
            .await
            .error(),
        "Error: delimiter must be one ASCII character (or \"tab\"), not \"::\"."
    );
    assert_eq!(
        fixture.call("csv_preview", json!({})).await.error(),
        "Error: give exactly one of `path` (a workspace file) or `text`."
    );
    assert_eq!(
        fixture
            .call(
                "csv_preview",
                json!({"path": "data/people.csv", "text": "a"})
            )
            .await
            .error(),
        "Error: give exactly one of `path` (a workspace file) or `text`."
    );
    assert_eq!(
        fixture
            .call("csv_preview", json!({"path": "missing.csv"}))
            .await
            .error(),
        "No file or folder at \"missing.csv\" in the workspace; list_directory shows what is there."
    );
}

#[tokio::test]
async fn csv_stats_describes_each_column_in_content_and_table() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call("csv_stats", json!({"path": "data/people.csv"}))
        .await;
    assert_eq!(
        outcome.content,
        "\"data/people.csv\": 3 rows, 3 columns:\n\
         - name: text, 3 values, 0 empty, 3 distinct, min Ada, max Linus\n\
         - age: integer, 3 values, 0 empty, 3 distinct, min 28, max 45, mean 36.33333333\n\
         - city: text, 3 values, 0 empty, 3 distinct, min Arlington, max London"
    );
    assert_eq!(outcome.label(), "Column statistics");
    assert_eq!(
        outcome.table(),
        (
            strings([
                "column", "type", "values", "empty", "distinct", "min", "max", "mean"
            ]),
            vec![
                strings(["name", "text", "3", "0", "3", "Ada", "Linus", ""]),
                strings(["age", "integer", "3", "0", "3", "28", "45", "36.33333333"]),
                strings(["city", "text", "3", "0", "3", "Arlington", "London", ""]),
            ]
        )
    );
    let outcome = fixture
        .call(
            "csv_stats",
            json!({"text": "x,flag,note\n1.5,true,\n2,FALSE,\n2,true,\n"}),
        )
        .await;
    assert_eq!(
        outcome.table().1,
        vec![
            strings(["x", "number", "3", "0", "2", "1.5", "2", "1.833333333"]),
            strings(["flag", "boolean", "3", "0", "2", "FALSE", "true", ""]),
            strings(["note", "empty", "0", "3", "0", "", "", ""]),
        ]
    );
    // Whole numbers past 2^53 (ids) keep every digit as their least and greatest.
    let outcome = fixture
        .call(
            "csv_stats",
            json!({"text": "id\n9007199254740993\n-9223372036854775808\n9223372036854775807\n"}),
        )
        .await;
    assert_eq!(
        outcome.table().1[0][..7],
        strings([
            "id",
            "integer",
            "3",
            "0",
            "3",
            "-9223372036854775808",
            "9223372036854775807"
        ])
    );
}

#[tokio::test]
async fn json_query_tables_show_null_and_missing_keys_as_no_value() {
    let fixture = Fixture::new();
    let items = fixture
        .call(
            "json_query",
            json!({"text": r#"[{"a": null, "b": "null"}, {"b": 1}]"#, "query": ""}),
        )
        .await;
    let table = items.artifacts[0].as_table().expect("a table");
    assert_eq!(table.columns(), ["a", "b"]);
    assert_eq!(
        table.rows(),
        [
            vec![Cell::Null, Cell::from("null")],
            vec![Cell::Null, Cell::from("1")]
        ]
    );
    let keys = fixture
        .call(
            "json_query",
            json!({"text": r#"{"a": null, "b": "null"}"#, "query": ""}),
        )
        .await;
    assert_eq!(
        keys.artifacts[0].as_table().expect("a table").rows(),
        [
            vec![Cell::from("a"), Cell::from("null"), Cell::Null],
            vec![Cell::from("b"), Cell::from("string"), Cell::from("null")]
        ]
    );
}

#[tokio::test]
async fn json_query_follows_paths_and_pointers() {
    let fixture = Fixture::new();
    let call = |query: &str| {
        fixture.call(
            "json_query",
            json!({"path": "data/config.json", "query": query}),
        )
    };
    assert_eq!(
        call("servers[1].host").await.text(),
        "servers[1].host in \"data/config.json\" is a string:\n\"b.example\""
    );
    assert_eq!(
        call("/servers/0/port").await.text(),
        "/servers/0/port in \"data/config.json\" is a number:\n80"
    );
    assert_eq!(
        call("$.servers[-1].port").await.text(),
        "servers[-1].port in \"data/config.json\" is a number:\n8080"
    );
    let servers = call("servers").await;
    assert_eq!(
        servers.content,
        "servers in \"data/config.json\" is an array of 2 items:\n[\n  {\n    \"host\": \"a.example\",\n    \"port\": 80\n  },\n  {\n    \"host\": \"b.example\",\n    \"port\": 8080\n  }\n]"
    );
    assert_eq!(servers.label(), "Items");
    assert_eq!(
        servers.table(),
        (
            strings(["host", "port"]),
            vec![strings(["a.example", "80"]), strings(["b.example", "8080"])]
        )
    );
    let root = call("").await;
    assert!(
        root.content
            .starts_with("$ in \"data/config.json\" is an object with 3 keys:\n{")
    );
    assert_eq!(root.label(), "Keys");
    assert_eq!(
        root.table(),
        (
            strings(["key", "type", "value"]),
            vec![
                strings(["debug", "boolean", "false"]),
                strings(["name", "string", "demo"]),
                strings([
                    "servers",
                    "array",
                    "[{\"host\":\"a.example\",\"port\":80},{\"host\":\"b.example\",\"port\":8080}]"
                ]),
            ]
        )
    );
}

#[tokio::test]
async fn json_query_says_why_nothing_is_there() {
    let fixture = Fixture::new();
    let call = |query: &str| {
        fixture.call(
            "json_query",
            json!({"path": "data/config.json", "query": query}),
        )
    };
    assert_eq!(
        call("servers[5]").await.error(),
        "Nothing at servers[5] in \"data/config.json\": servers has 2 items. json_infer_schema shows the document's shape."
    );
    assert_eq!(
        call("name.first").await.error(),
        "Nothing at name.first in \"data/config.json\": name is a string, not an object. json_infer_schema shows the document's shape."
    );
    assert_eq!(
        call("owner").await.error(),
        "Nothing at owner in \"data/config.json\": $ has no key \"owner\". json_infer_schema shows the document's shape."
    );
    assert_eq!(
        call("servers[x]").await.error(),
        "Error: cannot read the query \"servers[x]\": `[x]` is neither an index nor a quoted key."
    );
    let outcome = fixture
        .call(
            "json_query",
            json!({"text": "{\"a.b\": [1, 2, 3]}", "query": "[\"a.b\"][-1]"}),
        )
        .await;
    assert_eq!(outcome.text(), "[\"a.b\"][-1] in the text is a number:\n3");
    assert_eq!(
        fixture
            .call("json_query", json!({"text": "{", "query": ""}))
            .await
            .error(),
        "Error: the text is not valid JSON: EOF while parsing an object at line 1 column 1."
    );
}

#[tokio::test]
async fn json_infer_schema_merges_the_shapes_it_sees() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "json_infer_schema",
            json!({"text": "[{\"id\": 1, \"tags\": [\"a\"]}, {\"id\": 2.5, \"name\": null}]"}),
        )
        .await;
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "id": {"type": "number"},
                "name": {"type": "null"},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["id"]
        }
    });
    assert_eq!(
        outcome.content,
        format!(
            "Schema of the text (6 places):\n{}",
            serde_json::to_string_pretty(&schema).expect("serialise")
        )
    );
    assert_eq!(outcome.label(), "Fields");
    assert_eq!(
        outcome.table(),
        (
            strings(["path", "type", "seen", "required", "example"]),
            vec![
                strings(["$", "array", "1", "", ""]),
                strings(["$[]", "object", "2", "", ""]),
                strings(["$[].id", "number", "2", "yes", "1"]),
                strings(["$[].name", "null", "1", "no", "null"]),
                strings(["$[].tags", "array", "1", "no", ""]),
                strings(["$[].tags[]", "string", "1", "", "\"a\""]),
            ]
        )
    );
    let config = fixture
        .call("json_infer_schema", json!({"path": "data/config.json"}))
        .await;
    assert_eq!(
        config.table().1,
        vec![
            strings(["$", "object", "1", "", ""]),
            strings(["$.debug", "boolean", "1", "yes", "false"]),
            strings(["$.name", "string", "1", "yes", "\"demo\""]),
            strings(["$.servers", "array", "1", "yes", ""]),
            strings(["$.servers[]", "object", "2", "", ""]),
            strings(["$.servers[].host", "string", "2", "yes", "\"a.example\""]),
            strings(["$.servers[].port", "integer", "2", "yes", "80"]),
        ]
    );
}

#[tokio::test]
async fn diff_text_shows_a_unified_diff() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "diff_text",
            json!({"old": "a\nb\nc\n", "new": "a\nB\nc\nd\n"}),
        )
        .await;
    assert_eq!(
        outcome.text(),
        "1 line removed, 2 added:\n--- old\n+++ new\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d"
    );
    let outcome = fixture
        .call(
            "diff_text",
            json!({"old": "1\n2\n3\n4\n5\n6\n7\n", "new": "1\n2\n3\nfour\n5\n6\n7\n", "context_lines": 1, "old_label": "a.txt", "new_label": "b.txt"}),
        )
        .await;
    assert_eq!(
        outcome.text(),
        "1 line removed, 1 added:\n--- a.txt\n+++ b.txt\n@@ -3,3 +3,3 @@\n 3\n-4\n+four\n 5"
    );
    assert_eq!(
        fixture
            .call("diff_text", json!({"old": "same", "new": "same"}))
            .await
            .text(),
        "The texts are identical."
    );
    assert_eq!(
        fixture
            .call(
                "diff_text",
                json!({"old": "a", "new": "b", "context_lines": 21})
            )
            .await
            .error(),
        "Error: context_lines must be between 0 and 20, not 21."
    );
}

#[tokio::test]
async fn text_stats_counts_in_content_and_table() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call("text_stats", json!({"text": "one two\n\nthree"}))
        .await;
    assert_eq!(
        outcome.content,
        "lines: 3, words: 3, characters: 14, bytes: 14, blank lines: 1"
    );
    assert_eq!(
        outcome.table(),
        (
            strings(["metric", "value"]),
            vec![
                strings(["lines", "3"]),
                strings(["words", "3"]),
                strings(["characters", "14"]),
                strings(["bytes", "14"]),
                strings(["blank lines", "1"]),
            ]
        )
    );
}

#[tokio::test]
async fn regex_test_lists_matches_and_groups() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "regex_test",
            json!({"pattern": "(?P<user>\\w+)@(\\w+)", "text": "ada@x bob@y"}),
        )
        .await;
    assert_eq!(
        outcome.content,
        "2 matches of /(?P<user>\\w+)@(\\w+)/:\n1. 0..5 \"ada@x\"\n2. 6..11 \"bob@y\""
    );
    assert_eq!(
        outcome.table(),
        (
            strings(["#", "start", "end", "match", "user", "group 2"]),
            vec![
                strings(["1", "0", "5", "ada@x", "ada", "x"]),
                strings(["2", "6", "11", "bob@y", "bob", "y"]),
            ]
        )
    );
    assert_eq!(
        fixture
            .call("regex_test", json!({"pattern": "z", "text": "abc"}))
            .await
            .text(),
        "No match for /z/ in 3 bytes of text."
    );
    assert_eq!(
        fixture
            .call(
                "regex_test",
                json!({"pattern": "a", "text": "a", "max_matches": 0})
            )
            .await
            .error(),
        "Error: max_matches must be between 1 and 1000, not 0."
    );
}

#[tokio::test]
async fn regex_test_pages_its_matches_for_the_model() {
    let fixture = Fixture::new();
    let text = "x".repeat(25);
    let first = fixture
        .call("regex_test", json!({"pattern": "x", "text": text}))
        .await;
    let mut expected = "25 matches of /x/:\n(rows 1 to 20 of 25)".to_owned();
    for n in 1..=20 {
        let _ = write!(expected, "\n{n}. {}..{n} \"x\"", n - 1);
    }
    expected.push_str("\n… 5 more: call again with offset 20 for the next page.");
    assert_eq!(first.content, expected);
    assert_eq!(first.table().1.len(), 25);
    let next = fixture
        .call(
            "regex_test",
            json!({"pattern": "x", "text": text, "offset": 20, "max_matches": 3}),
        )
        .await;
    assert_eq!(
        next.content,
        "23 matches (the limit) of /x/:\n(rows 21 to 23 of 23)\n21. 20..21 \"x\"\n22. 21..22 \"x\"\n23. 22..23 \"x\""
    );
}

#[tokio::test]
async fn data_tools_reading_files_refuse_every_escape() {
    let fixture = Fixture::new();
    assert_escapes_refused(&fixture, "csv_preview", |path| json!({"path": path})).await;
    assert_escapes_refused(&fixture, "csv_stats", |path| json!({"path": path})).await;
    assert_escapes_refused(
        &fixture,
        "json_query",
        |path| json!({"path": path, "query": ""}),
    )
    .await;
    assert_escapes_refused(&fixture, "json_infer_schema", |path| json!({"path": path})).await;
}

/// An array of `count` objects, each with its own key: the input that made the table of items
/// grow with the square of its size.
fn distinct_keys(count: usize) -> String {
    let items: Vec<String> = (0..count)
        .map(|index| format!("{{\"key_{index}\":{index}}}"))
        .collect();
    format!("[{}]", items.join(","))
}

#[tokio::test]
async fn json_tools_work_within_budgets_whatever_the_keys() {
    let fixture = Fixture::new();
    let text = distinct_keys(20_000);
    let outcome = fixture
        .call("json_query", json!({"query": "$", "text": text}))
        .await;
    assert!(
        outcome.content.starts_with(
            "$ in the text is an array of 20000 items:\n[\n  {\n    \"key_0\": 0\n  },"
        ),
        "{}",
        &outcome.content[..200]
    );
    // The table stops at its budget; the seam cuts it further to the artifact budget.
    assert_eq!(
        outcome.artifacts[0].label(),
        "Items (the first 999 of 20000 items, 100 of 20000 keys)"
    );
    let table = outcome.artifacts[0].as_table().expect("a table");
    assert_eq!(table.columns().len(), 100);
    assert_eq!(table.columns()[99], "key_99");
    assert_eq!(table.rows()[0][0], "0");
    assert_eq!(outcome.artifacts[1].label(), "Artifacts omitted");

    // 2000 places at most: the root, its items, and a key per item.
    let fits = fixture
        .call("json_infer_schema", json!({"text": distinct_keys(1_998)}))
        .await;
    assert!(
        fits.content
            .starts_with("Schema of the text (2000 places):"),
        "{}",
        &fits.content[..80]
    );
    let over = fixture
        .call("json_infer_schema", json!({"text": distinct_keys(1_999)}))
        .await;
    assert_eq!(
        over.error(),
        "Error: the text has more than 2000 places (object keys and array items at every depth); json_infer_schema describes at most 2000."
    );
}

#[tokio::test]
async fn csv_tools_refuse_more_columns_than_the_limit() {
    let fixture = Fixture::new();
    let header: Vec<String> = (0..1_001).map(|index| format!("c{index}")).collect();
    let text = format!("{}\n{}\n", header.join(","), vec!["1"; 1_001].join(","));
    for tool in ["csv_preview", "csv_stats"] {
        let outcome = fixture.call(tool, json!({"text": text})).await;
        assert_eq!(
            outcome.error(),
            "Error: the text has 1001 columns; the limit is 1000.",
            "{tool}"
        );
    }
    let wide = format!("{}\n", header[..1_000].join(","));
    let outcome = fixture.call("csv_stats", json!({"text": wide})).await;
    assert!(
        outcome
            .content
            .starts_with("the text: 0 rows, 1000 columns:"),
        "{}",
        &outcome.content[..60]
    );
}

/// Arrays nested `depth` deep, the innermost empty.
fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[tokio::test]
async fn json_tools_on_documents_nested_past_the_parsers_limit_answer_exactly() {
    let fixture = Fixture::new();
    // serde_json reads at most 127 levels, so nothing after it recurses deeper than that.
    for (tool, arguments) in [
        ("json_query", json!({"query": "$", "text": nested(10_000)})),
        ("json_infer_schema", json!({"text": nested(10_000)})),
    ] {
        let outcome = fixture.call(tool, arguments).await;
        assert_eq!(
            outcome.error(),
            "Error: the text is not valid JSON: recursion limit exceeded at line 1 column 128.",
            "{tool}"
        );
    }
    std::fs::write(fixture.root.join("deep.json"), nested(100_000)).expect("a deep document");
    let outcome = fixture
        .call("json_query", json!({"query": "$", "path": "deep.json"}))
        .await;
    assert_eq!(
        outcome.error(),
        "Error: \"deep.json\" is not valid JSON: recursion limit exceeded at line 1 column 128."
    );

    // 127 levels are read and described, on a worker's stack.
    let deepest = nested(127);
    let outcome = fixture
        .call("json_query", json!({"query": "$", "text": deepest}))
        .await;
    let value: serde_json::Value = serde_json::from_str(&deepest).expect("127 levels parse");
    let pretty = serde_json::to_string_pretty(&value).expect("pretty");
    let head: String = pretty.chars().take(4_000).collect();
    assert_eq!(
        outcome.text(),
        format!("$ in the text is an array of 1 item:\n{head}…")
    );
    let outcome = fixture
        .call("json_infer_schema", json!({"text": deepest}))
        .await;
    let (_, rows) = outcome.table();
    assert_eq!(rows.len(), 127);
    assert_eq!(rows[126][0], format!("${}", "[]".repeat(126)));
    assert!(
        outcome
            .ok()
            .starts_with("Schema of the text (127 places):\n{\n  \"$schema\""),
        "{}",
        &outcome.content[..80]
    );
}
