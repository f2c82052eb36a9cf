//! The field path of a decoding error, read from the text (`toolkit`'s own reader), against
//! `serde_path_to_error`'s, which decodes again to track it: the same for every error of a
//! corpus of argument types and texts (nested objects, arrays, maps, enums of each tagging,
//! options, keys with escapes, several lines).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use toolkit::__private::parse_arguments;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Open {
    label: Option<String>,
    #[serde(default)]
    verbose: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum External {
    Rename { to: String },
    Remove,
    Move(i32),
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Internal {
    Rename { to: String },
    Remove,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", content = "with", rename_all = "snake_case")]
#[allow(dead_code)]
enum Adjacent {
    Rename { to: String },
    Count(u8),
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum Either {
    Number(u8),
    Text(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Arguments {
    count: u32,
    point: Point,
    points: Vec<Point>,
    open: Option<Open>,
    labels: BTreeMap<String, u8>,
    grid: Vec<Vec<u8>>,
    external: Option<External>,
    internal: Option<Internal>,
    adjacent: Option<Adjacent>,
    either: Option<Either>,
    #[serde(rename = "a.b \"c\"")]
    odd: Option<u8>,
}

/// A valid text, each field on its line so that errors fall on several lines.
const VALID: &str = r#"{
  "count": 1,
  "point": {"x": 1, "y": 2},
  "points": [{"x": 1, "y": 2}, {"x": 3, "y": 4}],
  "open": {"label": "a", "verbose": true},
  "labels": {"a": 1, "b\"c": 2},
  "grid": [[1, 2], [3]],
  "internal": {"kind": "rename", "to": "x"},
  "adjacent": {"kind": "count", "with": 3},
  "either": 3,
  "a.b \"c\"": 1,
  "external": {"rename": {"to": "x"}}
}"#;

/// Each broken value, put in place of the valid one it names.
const BROKEN: &[(&str, &str)] = &[
    (r#""count": 1"#, r#""count": "one""#),
    (r#""count": 1"#, r#""count": -1"#),
    (r#""count": 1"#, r#""count": 1.5"#),
    (r#""count": 1"#, r#""count": null"#),
    (r#""count": 1,"#, ""),
    (r#""count": 1"#, r#""count": 1, "count": 2"#),
    (r#""count": 1"#, r#""count": 1, "zzz": 2"#),
    (r#""count": 1"#, r#""zzz": {"deep": [1, 2]}, "count": 1"#),
    (r#"{"x": 1, "y": 2}"#, r#"{"x": 1}"#),
    (r#"{"x": 1, "y": 2}"#, r#"{"x": 1, "y": "2"}"#),
    (r#"{"x": 1, "y": 2}"#, r#"{"x": 1, "y": 2, "z": 3}"#),
    (r#"{"x": 1, "y": 2}"#, r#"{"x": 1, "x": 2, "y": 2}"#),
    (r#"{"x": 1, "y": 2}"#, "[1, 2, 3]"),
    (r#"{"x": 1, "y": 2}"#, "null"),
    (r#"{"x": 3, "y": 4}"#, r#"{"x": 3, "y": true}"#),
    (r#"{"x": 3, "y": 4}"#, r#"{"x": 3}"#),
    (r#"[{"x": 1, "y": 2}, {"x": 3, "y": 4}]"#, "[1]"),
    (r#"[{"x": 1, "y": 2}, {"x": 3, "y": 4}]"#, "{}"),
    (r#"{"label": "a", "verbose": true}"#, r#"{"label": 1}"#),
    (r#"{"label": "a", "verbose": true}"#, r#"{"verbose": null}"#),
    (
        r#"{"label": "a", "verbose": true}"#,
        r#"{"other": 1, "label": 2}"#,
    ),
    (r#"{"a": 1, "b\"c": 2}"#, r#"{"a": 1, "b\"c": 300}"#),
    (r#"{"a": 1, "b\"c": 2}"#, r#"{"a\n": -1}"#),
    (r#"{"a": 1, "b\"c": 2}"#, "[]"),
    ("[[1, 2], [3]]", r#"[[1, 2], [3, "x"]]"#),
    ("[[1, 2], [3]]", "[[1, 2], 3]"),
    (r#"{"rename": {"to": "x"}}"#, r#"{"rename": {"to": 1}}"#),
    (r#"{"rename": {"to": "x"}}"#, r#"{"fly": {}}"#),
    (r#"{"rename": {"to": "x"}}"#, r#"{"move": "far"}"#),
    // Last in the object: `serde_json` places this error past the object's end.
    (r#"{"rename": {"to": "x"}}"#, r#""rename""#),
    (r#"{"rename": {"to": "x"}}"#, r#""rename"  "#),
    (
        r#"{"kind": "rename", "to": "x"}"#,
        r#"{"kind": "rename", "to": 1}"#,
    ),
    (r#"{"kind": "rename", "to": "x"}"#, r#"{"kind": "fly"}"#),
    (r#"{"kind": "rename", "to": "x"}"#, r#"{"to": "x"}"#),
    (
        r#"{"kind": "count", "with": 3}"#,
        r#"{"kind": "count", "with": "x"}"#,
    ),
    (
        r#"{"kind": "count", "with": 3}"#,
        r#"{"kind": "fly", "with": 3}"#,
    ),
    (r#""either": 3"#, r#""either": [3]"#),
    (r#""a.b \"c\"": 1"#, r#""a.b \"c\"": "x""#),
    (r#""a.b \"c\"": 1"#, r#""a.b \u0022c\"": "x""#),
    (r#"{"a": 1, "b\"c": 2}"#, r#"{"\u0061": 1, "b\\": [2]}"#),
    (r#"{"x": 1, "y": 2}"#, "{\"x\":\n1,\n\"y\":\n\"2\"\n}"),
];

/// The path each locates at, or `None` when the text decodes or is not JSON.
fn paths<T: DeserializeOwned>(text: &str) -> Option<(String, String)> {
    let ours = parse_arguments::<T>(text).err()?;
    if ours
        .message()
        .starts_with("the arguments are not valid JSON")
    {
        return None;
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let theirs = serde_path_to_error::deserialize::<_, T>(&mut deserializer)
        .err()
        .map_or_else(|| ".".to_owned(), |error| error.path().to_string());
    Some((ours.path().to_owned(), theirs))
}

#[test]
fn every_error_is_located_where_serde_path_to_error_locates_it() {
    assert!(parse_arguments::<Arguments>(VALID).is_ok());
    let mut compared = 0;
    let mut differ = Vec::new();
    for (valid, broken) in BROKEN {
        assert!(VALID.contains(valid), "{valid}");
        // Each occurrence in turn, so that the same value is broken in every place it has.
        for (at, _) in VALID.match_indices(valid) {
            let text = format!("{}{broken}{}", &VALID[..at], &VALID[at + valid.len()..]);
            // The same on one line, where positions are columns only.
            for text in [text.clone(), text.replace('\n', " ")] {
                if let Some((ours, theirs)) = paths::<Arguments>(&text) {
                    compared += 1;
                    if ours != theirs {
                        differ.push(format!(
                            "{broken}: ours {ours}, serde_path_to_error {theirs}"
                        ));
                    }
                }
            }
        }
    }
    println!("{compared} errors compared");
    assert!(compared >= 60, "{compared} errors compared");
    assert_eq!(differ, Vec::<String>::new());
}
