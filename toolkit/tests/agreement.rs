//! What the model is told is what the decoder takes. For every kind of parameter `#[tool]`
//! supports, a corpus of argument texts (valid, invalid and edge: integral floats, ranges,
//! duplicates, nulls, unknown keys, lengths) is checked against each export with a JSON Schema
//! validator and given to the decoder. A disagreement is a text one side takes and the other
//! refuses; every one must be listed as deliberate in the table of `toolkit::schema`'s docs, and
//! every row of that table must still occur.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use toolkit::{Tool, ToolRegistry, ToolSpec, tool};
use toolkit_testing::schemas::gemini_as_json_schema;

/// Every integer width.
#[tool]
fn integers(
    /// A byte.
    small: u8,
    /// A signed short.
    signed: i16,
    /// A count.
    count: u32,
    /// An offset.
    offset: i64,
    /// A big one.
    big: u64,
    /// A size.
    size: usize,
) -> String {
    format!("{small} {signed} {count} {offset} {big} {size}")
}

/// Both float widths.
#[tool]
fn floats(
    /// A ratio.
    ratio: f32,
    /// A precise one.
    precise: f64,
) -> String {
    format!("{ratio} {precise}")
}

/// Text, a character and a flag.
#[tool]
fn texts(
    /// A name.
    name: String,
    /// An initial.
    initial: char,
    /// A flag.
    on: bool,
) -> String {
    format!("{name} {initial} {on}")
}

/// Optional arguments.
#[tool]
fn optionals(
    /// A limit.
    limit: Option<u32>,
    /// A label.
    label: Option<String>,
) -> String {
    format!("{limit:?} {label:?}")
}

/// Arguments with defaults.
#[tool]
fn defaults(
    /// A limit.
    #[arg(default = 10)]
    limit: u32,
    /// A scope.
    #[arg(default = "all".to_owned())]
    scope: String,
) -> String {
    format!("{limit} {scope}")
}

/// Arguments with limits of their own.
#[tool]
fn ranged(
    /// Days until due.
    #[schemars(range(min = 1, max = 365))]
    due_in_days: u32,
    /// A short code.
    #[schemars(length(min = 1, max = 8))]
    code: String,
) -> String {
    format!("{due_in_days} {code}")
}

/// Lists and sets.
#[tool]
fn lists(
    /// Ids.
    ids: Vec<u32>,
    /// Tags, each once.
    tags: BTreeSet<String>,
) -> String {
    format!("{ids:?} {tags:?}")
}

/// A point.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Across.
    pub x: i32,
    /// Down.
    pub y: i32,
}

/// A filter whose fields may be left out.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    /// Say more.
    #[serde(default)]
    pub verbose: bool,
    /// A label.
    pub label: Option<String>,
}

/// Structs.
#[tool]
fn structs(
    /// Where.
    point: Point,
    /// Which.
    filter: Filter,
) -> String {
    format!("{point:?} {filter:?}")
}

/// A way to measure.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Along the axes.
    Manhattan,
    /// The largest.
    Chebyshev,
}

/// What to do.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// Renames it.
    Rename {
        /// The new name.
        to: String,
    },
    /// Removes it.
    Remove,
    /// Moves it.
    Move {
        /// How far.
        by: i32,
    },
}

/// Enums.
#[tool]
fn enums(
    /// How.
    metric: Metric,
    /// What.
    action: Action,
) -> String {
    format!("{metric:?} {action:?}")
}

/// A renamed argument.
#[tool]
fn renamed(
    /// When.
    #[serde(rename = "dueDate")]
    due: String,
) -> String {
    due
}

/// Any JSON value.
#[tool]
fn anything(
    /// Anything.
    payload: Value,
) -> String {
    payload.to_string()
}

/// A count per name.
#[tool]
fn counts(
    /// Counts.
    per_name: BTreeMap<String, u32>,
) -> String {
    per_name.len().to_string()
}

/// No arguments.
#[tool]
fn nothing() -> String {
    String::new()
}

/// The edges of both 64-bit unsigned kinds.
const U64: &[&str] = &[
    "1",
    "-1",
    "1.0",
    "1e19",
    "18446744073709551615",
    "18446744073709551616",
    "1e20",
    "null",
];

/// The edge texts of each kind of parameter; the first is valid and fills the parameter while
/// another is varied.
const EDGES: &[(&str, &[&str])] = &[
    (
        "u8",
        &[
            "1", "0", "-1", "1.0", "1e2", "-0", "1.5", "255", "256", r#""1""#, "true", "null",
        ],
    ),
    (
        "i16",
        &[
            "1", "-1", "1.0", "-0", "1.5", "-32768", "-32769", "32767", "32768", r#""1""#, "null",
        ],
    ),
    (
        "u32",
        &[
            "1",
            "0",
            "-1",
            "1.0",
            "1e2",
            "-0",
            "1.5",
            "4294967295",
            "4294967296",
            r#""1""#,
            "true",
            "null",
            "[1]",
        ],
    ),
    (
        "i64",
        &[
            "1",
            "-1",
            "1.0",
            "-1e2",
            "-9223372036854775808",
            "-9223372036854775809",
            "9223372036854775807",
            "9223372036854775808",
            "null",
        ],
    ),
    ("u64", U64),
    ("usize", U64),
    (
        "f32",
        &[
            "1.5",
            "0",
            "-0.0",
            "1e40",
            "-1e40",
            "3.4028235e38",
            "1e-50",
            r#""1.5""#,
            "null",
            "true",
        ],
    ),
    ("f64", &["1.5", "1", "1e308", "-0.0", r#""1.5""#, "null"]),
    (
        "String",
        &[
            r#""x""#,
            r#""""#,
            r#""123456789""#,
            r#""é""#,
            "1",
            "null",
            "true",
            r#"["x"]"#,
        ],
    ),
    (
        "char",
        &[
            r#""a""#,
            r#""ab""#,
            r#""""#,
            r#""é""#,
            r#""😀""#,
            "1",
            "null",
        ],
    ),
    ("bool", &["true", "false", "0", "1", r#""true""#, "null"]),
    (
        "Option<u32>",
        &["1", "null", "1.0", "-1", "4294967296", r#""1""#],
    ),
    ("Option<String>", &[r#""x""#, "null", r#""""#, "1"]),
    ("u32 with a default", &["1", "null", "1.0", "-1", r#""1""#]),
    ("String with a default", &[r#""x""#, "null", r#""""#, "1"]),
    (
        "u32 in 1..=365",
        &["1", "365", "0", "366", "400", "1.0", "365.0", "null"],
    ),
    (
        "String of 1 to 8 characters",
        &[
            r#""a""#,
            r#""12345678""#,
            r#""""#,
            r#""123456789""#,
            r#""éééééééé""#,
            r#""ééééééééé""#,
            "null",
        ],
    ),
    (
        "Vec<u32>",
        &[
            "[1, 2]", "[]", "[1, 1]", "[1.0]", "[-1]", r#"["1"]"#, "[null]", "null", "{}", "1",
        ],
    ),
    (
        "BTreeSet<String>",
        &[r#"["a", "b"]"#, "[]", r#"["a", "a"]"#, "[1]", "null"],
    ),
    (
        "struct",
        &[
            r#"{"x": 1, "y": 2}"#,
            r#"{"x": 1}"#,
            r#"{"x": 1, "y": 2, "z": 3}"#,
            r#"{"x": 1, "y": 2, "x": 3}"#,
            r#"{"x": 1.0, "y": 2}"#,
            r#"{"x": 2147483648, "y": 2}"#,
            "null",
            "[1, 2]",
        ],
    ),
    (
        "struct with optional fields",
        &[
            r#"{"verbose": true, "label": "x"}"#,
            "{}",
            r#"{"verbose": true}"#,
            r#"{"verbose": null}"#,
            r#"{"label": null}"#,
            r#"{"label": "x"}"#,
            r#"{"other": 1}"#,
            "null",
        ],
    ),
    (
        "unit enum",
        &[
            r#""manhattan""#,
            r#""chebyshev""#,
            r#""Manhattan""#,
            r#""euclid""#,
            "null",
            "1",
        ],
    ),
    (
        "tagged enum",
        &[
            r#"{"kind": "remove"}"#,
            r#"{"kind": "rename", "to": "x"}"#,
            r#"{"kind": "remove", "extra": 1}"#,
            r#"{"kind": "move", "by": 1.0}"#,
            r#"{"kind": "fly"}"#,
            r#"{"to": "x"}"#,
            "null",
        ],
    ),
    ("renamed String", &[r#""2026-01-01""#, "null", "1"]),
    (
        "serde_json::Value",
        &["1", "null", r#"{"a": [1, 2]}"#, r#""x""#],
    ),
    (
        "BTreeMap<String, u32>",
        &[
            r#"{"a": 1}"#,
            "{}",
            r#"{"a": -1}"#,
            r#"{"a": 1.0}"#,
            r#"{"a": null}"#,
            "[]",
        ],
    ),
];

fn edges(kind: &str) -> &'static [&'static str] {
    EDGES
        .iter()
        .find(|(name, _)| *name == kind)
        .map_or_else(|| panic!("no edges for {kind}"), |(_, edges)| *edges)
}

/// Each tool's parameters: the name the model writes and the kind of value.
const TOOLS: &[(&str, &[(&str, &str)])] = &[
    (
        "integers",
        &[
            ("small", "u8"),
            ("signed", "i16"),
            ("count", "u32"),
            ("offset", "i64"),
            ("big", "u64"),
            ("size", "usize"),
        ],
    ),
    ("floats", &[("ratio", "f32"), ("precise", "f64")]),
    (
        "texts",
        &[("name", "String"), ("initial", "char"), ("on", "bool")],
    ),
    (
        "optionals",
        &[("limit", "Option<u32>"), ("label", "Option<String>")],
    ),
    (
        "defaults",
        &[
            ("limit", "u32 with a default"),
            ("scope", "String with a default"),
        ],
    ),
    (
        "ranged",
        &[
            ("due_in_days", "u32 in 1..=365"),
            ("code", "String of 1 to 8 characters"),
        ],
    ),
    (
        "lists",
        &[("ids", "Vec<u32>"), ("tags", "BTreeSet<String>")],
    ),
    (
        "structs",
        &[
            ("point", "struct"),
            ("filter", "struct with optional fields"),
        ],
    ),
    (
        "enums",
        &[("metric", "unit enum"), ("action", "tagged enum")],
    ),
    ("renamed", &[("dueDate", "renamed String")]),
    ("anything", &[("payload", "serde_json::Value")]),
    ("counts", &[("per_name", "BTreeMap<String, u32>")]),
    ("nothing", &[]),
];

/// A JSON object of these fields, in order, written as given (so a key may repeat).
fn object(fields: &[(&str, &str)]) -> String {
    let fields: Vec<String> = fields
        .iter()
        .map(|(name, value)| format!("\"{name}\": {value}"))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// One argument text and what it tests, such as `u32: 1.0` or `any tool: unknown key`.
struct Case {
    label: String,
    text: String,
}

/// The corpus of one tool: each edge of each parameter with the others valid, then the texts
/// whose shape is wrong whatever the parameters.
fn corpus(parameters: &[(&'static str, &'static str)]) -> Vec<Case> {
    let valid: Vec<(&str, &str)> = parameters
        .iter()
        .map(|&(name, kind)| (name, edges(kind)[0]))
        .collect();
    let mut cases = Vec::new();
    for (position, &(name, kind)) in parameters.iter().enumerate() {
        for edge in edges(kind) {
            let mut fields = valid.clone();
            fields[position] = (name, edge);
            cases.push(Case {
                label: format!("{kind}: {edge}"),
                text: object(&fields),
            });
        }
        let mut without = valid.clone();
        without.remove(position);
        cases.push(Case {
            label: format!("{kind}: left out"),
            text: object(&without),
        });
    }
    let mut shapes = vec![
        ("unknown key", {
            let mut fields = valid.clone();
            fields.push(("zzz", "1"));
            object(&fields)
        }),
        ("empty text", String::new()),
        ("an array", "[]".to_owned()),
        ("null", "null".to_owned()),
        ("not JSON", r#"{"a": "#.to_owned()),
    ];
    if let Some(&first) = valid.first() {
        let mut fields = vec![first];
        fields.extend(valid.iter().copied());
        shapes.push(("duplicate key", object(&fields)));
    }
    cases.extend(shapes.into_iter().map(|(label, text)| Case {
        label: format!("any tool: {label}"),
        text,
    }));
    cases
}

/// Each export's parameters as JSON Schema a validator reads, or why there is none.
fn exports(spec: &ToolSpec) -> Vec<(&'static str, Option<Value>)> {
    let parameters = |tool: Value, key: &str| tool["function"][key].clone();
    vec![
        (
            "OpenAI",
            spec.openai()
                .ok()
                .map(|tool| parameters(tool, "parameters")),
        ),
        (
            "OpenAI strict",
            spec.openai_strict()
                .ok()
                .map(|tool| parameters(tool, "parameters")),
        ),
        ("Anthropic", Some(spec.anthropic()["input_schema"].clone())),
        (
            "Gemini",
            spec.gemini()
                .ok()
                .map(|tool| gemini_as_json_schema(&tool["parameters"])),
        ),
    ]
}

/// Which side takes a text the other refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    /// The export's schema takes it; the decoder refuses it.
    Schema,
    /// The decoder takes it; the export's schema refuses it.
    Decoder,
}

#[test]
fn every_export_and_the_decoder_agree_on_every_text_but_the_documented_ones() {
    let registry = ToolRegistry::linked().expect("no duplicates");
    // (label, side) -> the exports where it happens.
    let mut disagreements: BTreeMap<(String, Side), BTreeSet<&str>> = BTreeMap::new();
    let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
    // (export, side) -> how many texts.
    let mut tallies: BTreeMap<(&str, Side), usize> = BTreeMap::new();
    for &(name, parameters) in TOOLS {
        let tool: &dyn Tool = registry.get(name).expect("linked");
        let cases = corpus(parameters);
        for (export, schema) in exports(tool.spec()) {
            let Some(schema) = schema else {
                continue;
            };
            let validator = jsonschema::validator_for(&schema)
                .unwrap_or_else(|error| panic!("{name} {export}: {error}"));
            *sizes.entry(export).or_default() += cases.len();
            for case in &cases {
                let by_schema = serde_json::from_str::<Value>(&case.text)
                    .is_ok_and(|value| validator.is_valid(&value));
                let by_decoder = tool.check_arguments(&case.text).is_ok();
                let side = match (by_schema, by_decoder) {
                    (true, false) => Side::Schema,
                    (false, true) => Side::Decoder,
                    _ => continue,
                };
                disagreements
                    .entry((case.label.clone(), side))
                    .or_default()
                    .insert(export);
                *tallies.entry((export, side)).or_default() += 1;
            }
        }
    }
    for (export, size) in &sizes {
        let schema = tallies.get(&(export, Side::Schema)).copied().unwrap_or(0);
        let decoder = tallies.get(&(export, Side::Decoder)).copied().unwrap_or(0);
        println!(
            "{export}: {size} texts, {schema} taken by the schema only, {decoder} by the decoder only"
        );
    }
    let found: BTreeSet<String> = disagreements
        .iter()
        .map(|((label, side), exports)| {
            let exports: Vec<&str> = exports.iter().copied().collect();
            format!("{side:?} | {label} | {}", exports.join(", "))
        })
        .collect();
    let documented = documented();
    let undocumented: Vec<&String> = found.difference(&documented).collect();
    let stale: Vec<&String> = documented.difference(&found).collect();
    assert!(
        undocumented.is_empty() && stale.is_empty(),
        "disagreements not in toolkit/docs/agreement.md: {undocumented:#?}\nrows there that no longer happen: {stale:#?}"
    );
}

/// The rows of the table of deliberate disagreements in `toolkit/docs/agreement.md`, as
/// `side | case | exports`.
fn documented() -> BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/agreement.md");
    let text = std::fs::read_to_string(path).expect("the agreement docs");
    text.lines()
        .filter(|line| line.starts_with("| Decoder |") || line.starts_with("| Schema |"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            format!(
                "{} | {} | {}",
                cells[0],
                cells[1].trim_matches('`'),
                cells[2]
            )
        })
        .collect()
}

/// The decoder's message for one text given to one tool, as `path: message`.
fn refusal(tool: &str, text: &str) -> String {
    let registry = ToolRegistry::linked().expect("no duplicates");
    let error = registry
        .get(tool)
        .expect("linked")
        .check_arguments(text)
        .expect_err(text);
    format!("{}: {}", error.path(), error.message())
}

#[test]
fn each_refusal_says_what_is_wrong_and_not_valid_json_only_of_text_that_is_not() {
    let integers = |field: &str, value: &str| {
        let mut fields = vec![
            ("small", "1"),
            ("signed", "1"),
            ("count", "1"),
            ("offset", "1"),
            ("big", "1"),
            ("size", "1"),
        ];
        for (name, given) in &mut fields {
            if *name == field {
                *given = value;
            }
        }
        object(&fields)
    };
    for (tool, text, expected) in [
        (
            "floats",
            r#"{"ratio": 1e40, "precise": 1.5}"#.to_owned(),
            "ratio: number out of range",
        ),
        (
            "integers",
            integers("big", "18446744073709551616"),
            "big: invalid value: number `1.8446744073709552e+19` is out of range, expected u64",
        ),
        (
            "integers",
            integers("count", "1.5"),
            "count: invalid type: floating point `1.5`, expected u32",
        ),
        (
            "integers",
            integers("count", "4294967296"),
            "count: invalid value: integer `4294967296`, expected u32",
        ),
        // A whole number written as a float is read as an integer, even out of range.
        (
            "integers",
            integers("small", "1e3"),
            "small: invalid value: integer `1000`, expected u8",
        ),
        (
            "ranged",
            r#"{"due_in_days": 400, "code": "a"}"#.to_owned(),
            "due_in_days: 400 is greater than the maximum of 365",
        ),
        (
            "ranged",
            r#"{"due_in_days": 4, "code": ""}"#.to_owned(),
            "code: \"\" is shorter than 1 character",
        ),
        (
            "integers",
            r#"{"small": 1, "small": 1}"#.to_owned(),
            ".: duplicate field `small`",
        ),
        (
            "integers",
            r#"{"small": "#.to_owned(),
            ".: the arguments are not valid JSON: EOF while parsing a value at line 1 column 10",
        ),
    ] {
        assert_eq!(refusal(tool, &text), expected, "{text}");
    }
    // Valid JSON nested past serde_json's limit is said to be that, at the place, not invalid.
    let deep = format!(
        r#"{{"payload": {}1{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let refused = refusal("anything", &deep);
    let inside = format!("payload{}", "[0]".repeat(127));
    assert_eq!(
        refused,
        format!("{inside}: nested more than 128 levels deep")
    );
}
