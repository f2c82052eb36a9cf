//! Arguments generated from a JSON schema (as schemars writes it, or Gemini's subset with
//! `nullable`), as proptest strategies.
//!
//! [`values`] keeps to plain values: strings of up to a dozen characters of any kind, numbers
//! within ±1000. [`hostile_values`] gives the same shapes, biased toward what breaks tools:
//! strings on the topic of their property (read from its name and description: a path, a
//! glob or regex, SQL, an expression, a URL, a date, a revision, a document, ...), half of
//! them names that exist in the sample workspace, database and repository so that calls reach
//! the tools' work, the rest paths that climb (`..`) or leave, globs and regexes that explode,
//! SQL that writes or never ends, markup, multibyte and combining characters, emoji, bidi and
//! zero-width characters, control characters (no NUL), empty strings, pieces repeated to a few
//! KB (folder chains two thousand deep among them); integers small, at the edges of their type
//! (or of the schema's `minimum`/`maximum`), huge and negative; numbers tiny to huge.

use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use serde_json::{Map, Value, json};

/// Which values to favour: plain ones, or hostile ones on the topic of the property they are
/// for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    Plain,
    Hostile(Topic),
}

/// Plain values for `schema`, whose `$ref`s point into `root`; `depth` is how deep `schema` is
/// in the value being built (0 for a tool's arguments).
pub fn values(schema: &Value, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    generate(Flavour::Plain, schema, root, depth)
}

/// Values for `schema` (a tool's whole argument schema, its own root) biased toward hostile
/// content; each is still within the schema.
pub fn hostile_values(schema: &Value) -> BoxedStrategy<Value> {
    generate(Flavour::Hostile(Topic::Any), schema, schema, 0)
}

/// The schema a `$ref` points at, with what the referring schema says beside it.
pub fn resolve<'a>(schema: &'a Value, root: &'a Value) -> Value {
    let mut current = schema.clone();
    for _ in 0..16 {
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let target = root
            .pointer(reference.trim_start_matches('#'))
            .cloned()
            .unwrap_or(Value::Bool(true));
        let mut merged = target.as_object().cloned().unwrap_or_default();
        if let Some(beside) = current.as_object() {
            for (key, value) in beside {
                if key != "$ref" {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
        current = Value::Object(merged);
    }
    current
}

fn number(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

fn generate(flavour: Flavour, schema: &Value, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let schema = resolve(schema, root);
    let Some(map) = schema.as_object() else {
        return any_json();
    };
    if map.get("nullable") == Some(&Value::Bool(true)) {
        let mut inner = map.clone();
        inner.remove("nullable");
        return prop_oneof![
            1 => Just(Value::Null),
            3 => generate(flavour, &Value::Object(inner), root, depth),
        ]
        .boxed();
    }
    if let Some(constant) = map.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(Value::Array(choices)) = map.get("enum") {
        return proptest::sample::select(choices.clone()).boxed();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            let strategies: Vec<BoxedStrategy<Value>> = branches
                .iter()
                .map(|branch| generate(flavour, branch, root, depth + 1))
                .collect();
            return proptest::strategy::Union::new(strategies).boxed();
        }
    }
    let types: Vec<String> = match map.get("type") {
        Some(Value::String(kind)) => vec![kind.clone()],
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ if map.contains_key("properties") => vec!["object".to_owned()],
        _ => return any_json(),
    };
    let strategies: Vec<BoxedStrategy<Value>> = types
        .iter()
        .map(|kind| typed(flavour, kind, map, root, depth))
        .collect();
    proptest::strategy::Union::new(strategies).boxed()
}

fn typed(
    flavour: Flavour,
    kind: &str,
    map: &Map<String, Value>,
    root: &Value,
    depth: u32,
) -> BoxedStrategy<Value> {
    let int = |key: &str| map.get(key).and_then(Value::as_f64);
    match kind {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "integer" => {
            // Bounds kept within ±1000 first, so the casts are exact.
            let low = int("minimum")
                .unwrap_or(-1000.0)
                .clamp(-1000.0, 1000.0)
                .ceil();
            let high = int("maximum").unwrap_or(1000.0).clamp(low, 1000.0).floor();
            #[allow(clippy::cast_possible_truncation)]
            let (low, high) = (low as i64, high as i64);
            let plain = (low..=high.max(low)).prop_map(|n| json!(n)).boxed();
            match flavour {
                Flavour::Plain => plain,
                Flavour::Hostile(_) => {
                    let small_low = low.max(-3).min(high);
                    let small = (small_low..=high.min(20).max(small_low)).prop_map(|n| json!(n));
                    prop_oneof![3 => small, 1 => plain, 2 => edge_integers(map)].boxed()
                }
            }
        }
        "number" => {
            let low = int("minimum").unwrap_or(-1000.0).max(-1000.0);
            let high = int("maximum").unwrap_or(1000.0).min(1000.0);
            let plain = (low..=high.max(low)).prop_map(number).boxed();
            match flavour {
                Flavour::Plain => plain,
                Flavour::Hostile(_) => prop_oneof![1 => plain, 1 => edge_numbers(map)].boxed(),
            }
        }
        "string" => {
            if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
                let body = pattern.trim_start_matches('^').trim_end_matches('$');
                if let Ok(strategy) = proptest::string::string_regex(body) {
                    return strategy.prop_map(Value::String).boxed();
                }
            }
            let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            let max = map
                .get("maxLength")
                .and_then(Value::as_u64)
                .unwrap_or(min + 12)
                .min(min + 12);
            let plain = proptest::string::string_regex(&format!("(?s:.{{{min},{max}}})"))
                .expect("a length pattern")
                .prop_map(Value::String)
                .boxed();
            match flavour {
                Flavour::Plain => plain,
                Flavour::Hostile(topic) => {
                    let limit = map.get("maxLength").and_then(Value::as_u64);
                    prop_oneof![
                        1 => plain,
                        4 => hostile_strings(topic)
                            .prop_map(move |text| Value::String(fit(text, min, limit))),
                    ]
                    .boxed()
                }
            }
        }
        "array" => {
            let items = map.get("items").cloned().unwrap_or(Value::Bool(true));
            let count = |key: &str| {
                map.get(key)
                    .and_then(Value::as_u64)
                    .and_then(|count| usize::try_from(count).ok())
            };
            let min = count("minItems").unwrap_or(0).min(3);
            let max = count("maxItems").unwrap_or(min + 3).min(min + 3);
            let max = if depth > 4 { min } else { max };
            proptest::collection::vec(generate(flavour, &items, root, depth + 1), min..=max)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" => object(flavour, map, root, depth),
        _ => any_json(),
    }
}

fn object(
    flavour: Flavour,
    map: &Map<String, Value>,
    root: &Value,
    depth: u32,
) -> BoxedStrategy<Value> {
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, property) in properties {
            let flavour = match flavour {
                Flavour::Plain => Flavour::Plain,
                Flavour::Hostile(_) => {
                    let about = resolve(property, root)
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_lowercase();
                    Flavour::Hostile(Topic::of(name, &about))
                }
            };
            let name = name.clone();
            let value = generate(flavour, property, root, depth + 1);
            if required.contains(&name) {
                fields.push(
                    value
                        .prop_map(move |value| Some((name.clone(), value)))
                        .boxed(),
                );
            } else if depth <= 4 {
                fields.push(
                    proptest::option::of(value.prop_map(move |value| (name.clone(), value)))
                        .boxed(),
                );
            }
        }
    }
    if let Some(extra @ Value::Object(_)) = map.get("additionalProperties") {
        let extra = generate(flavour, extra, root, depth + 1);
        fields.push(
            proptest::option::of(("[a-z]{1,6}", extra).prop_map(|(key, value)| (key, value)))
                .boxed(),
        );
    }
    fields
        .prop_map(|fields| Value::Object(fields.into_iter().flatten().collect()))
        .boxed()
}

fn any_json() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-100i64..100).prop_map(|n| json!(n)),
        "[a-z ]{0,8}".prop_map(Value::String),
        Just(json!({"a": [1, "b"]})),
    ]
    .boxed()
}

/// The integers an integer schema allows: its `minimum`/`maximum`, else its `format`'s range
/// (`uint` for `usize`, `int32` for `i32`, ...), else a 64-bit integer's.
fn integer_range(map: &Map<String, Value>) -> (i128, i128) {
    let (mut low, mut high) = match map.get("format").and_then(Value::as_str) {
        Some("int8") => (i128::from(i8::MIN), i128::from(i8::MAX)),
        Some("int16") => (i128::from(i16::MIN), i128::from(i16::MAX)),
        Some("int32") => (i128::from(i32::MIN), i128::from(i32::MAX)),
        Some("uint8") => (0, i128::from(u8::MAX)),
        Some("uint16") => (0, i128::from(u16::MAX)),
        Some("uint32") => (0, i128::from(u32::MAX)),
        Some("uint" | "uint64") => (0, i128::from(u64::MAX)),
        _ => (i128::from(i64::MIN), i128::from(i64::MAX)),
    };
    #[allow(clippy::cast_possible_truncation)] // clamped to the 64-bit ranges first
    let bound = |value: &Value| {
        value.as_i64().map(i128::from).or_else(|| {
            value.as_u64().map(i128::from).or_else(|| {
                value.as_f64().map(|bound| {
                    bound.clamp(-9_223_372_036_854_775_808.0, 18_446_744_073_709_551_616.0) as i128
                })
            })
        })
    };
    if let Some(minimum) = map.get("minimum").and_then(bound) {
        low = low.max(minimum);
    }
    if let Some(maximum) = map.get("maximum").and_then(bound) {
        high = high.min(maximum);
    }
    (low, high.max(low))
}

/// Integers at the edges: the range's ends and their neighbours, powers of two and ten and
/// their neighbours, signed both ways, and any integer of the range.
fn edge_integers(map: &Map<String, Value>) -> BoxedStrategy<Value> {
    let (low, high) = integer_range(map);
    let mut edges = vec![low, low + 1, high - 1, high, 0, 1, -1];
    for power in [8, 16, 31, 32, 53, 63, 64] {
        let value = 1_i128 << power;
        edges.extend([value - 1, value, value + 1, -value, 1 - value]);
    }
    for power in [3, 4, 5, 6, 9, 12, 15, 18] {
        let value = 10_i128.pow(power);
        edges.extend([value, value + 1, -value]);
    }
    edges.retain(|value| (low..=high).contains(value));
    edges.sort_unstable();
    edges.dedup();
    let integer = |value: i128| {
        i64::try_from(value).map_or_else(
            |_| u64::try_from(value).map_or(Value::Null, |value| json!(value)),
            |value| json!(value),
        )
    };
    prop_oneof![
        2 => proptest::sample::select(edges).prop_map(integer),
        1 => (low..=high).prop_map(integer),
    ]
    .boxed()
}

/// Finite numbers of any magnitude, tiny to huge, within the schema's bounds.
fn edge_numbers(map: &Map<String, Value>) -> BoxedStrategy<Value> {
    let low = map
        .get("minimum")
        .and_then(Value::as_f64)
        .unwrap_or(f64::MIN);
    let high = map
        .get("maximum")
        .and_then(Value::as_f64)
        .unwrap_or(f64::MAX)
        .max(low);
    let edges = [
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        5e-324,
        0.1,
        0.5,
        1.5,
        1e15 + 0.5,
        9_007_199_254_740_993.0,
        1e300,
        f64::MAX,
        -1e300,
        f64::MIN,
    ];
    let finite = proptest::num::f64::POSITIVE
        | proptest::num::f64::NEGATIVE
        | proptest::num::f64::NORMAL
        | proptest::num::f64::SUBNORMAL
        | proptest::num::f64::ZERO;
    prop_oneof![
        proptest::sample::select(edges.to_vec()),
        finite.prop_filter("finite", |value| value.is_finite()),
    ]
    .prop_map(move |value| number(value.clamp(low, high)))
    .boxed()
}

/// What a string property is about, read from its name and description; it picks the words
/// hostile strings favour, so that many calls get past a tool's first checks and reach its
/// work.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Topic {
    Any,
    Paths,
    Patterns,
    Sql,
    Schema,
    Queries,
    Expressions,
    Units,
    Dates,
    Revisions,
    Urls,
    Documents,
    Names,
    Delimiters,
}

impl Topic {
    /// The topic of the property `name`, whose description is `about` (lowercase): by the
    /// name, or by the description for names that say little (`from`, `to`, `value`).
    fn of(name: &str, about: &str) -> Self {
        let named = |part: &str| name.contains(part);
        let told = |part: &str| about.contains(part);
        if named("url") {
            Topic::Urls
        } else if named("expression") {
            Topic::Expressions
        } else if named("sql") {
            Topic::Sql
        } else if named("pattern") || named("glob") || named("regex") {
            Topic::Patterns
        } else if named("path") {
            Topic::Paths
        } else if named("table") || named("column") || named("field") {
            Topic::Schema
        } else if named("query") {
            Topic::Queries
        } else if named("revision") || told("commit") || told("revision") {
            Topic::Revisions
        } else if told("unit") {
            Topic::Units
        } else if told("path") || told("file") || told("folder") {
            Topic::Paths
        } else if named("zone")
            || named("date")
            || named("time")
            || ["at", "start", "end"].contains(&name)
        {
            Topic::Dates
        } else if named("text") || named("content") || named("contains") || told("text") {
            Topic::Documents
        } else if named("name") || named("prefix") {
            Topic::Names
        } else if named("delimiter") || named("separator") {
            Topic::Delimiters
        } else {
            Topic::Any
        }
    }

    /// The words of this topic.
    fn words(self) -> Vec<&'static str> {
        let lists: &[&[&str]] = match self {
            Topic::Any => WORDS,
            Topic::Paths => &[PATHS, CHARACTERS],
            Topic::Patterns => &[PATTERNS, PATHS],
            Topic::Sql => &[SQL, SCHEMA],
            Topic::Schema => &[SCHEMA],
            Topic::Queries => &[QUERIES, SQL, SCHEMA],
            Topic::Expressions => &[EXPRESSIONS],
            Topic::Units => &[UNITS],
            Topic::Dates => &[DATES],
            Topic::Revisions => &[REVISIONS, PATHS],
            Topic::Urls => &[URLS],
            Topic::Documents => &[DOCUMENTS, CHARACTERS, SAMPLE_TEXT],
            Topic::Names => &[NAMES, CHARACTERS],
            Topic::Delimiters => &[DELIMITERS],
        };
        lists.iter().flat_map(|list| list.iter().copied()).collect()
    }

    /// What a long string on this topic repeats: a chain of folders for a path, nesting for
    /// markup and patterns, and so on.
    fn pieces(self) -> &'static [&'static str] {
        match self {
            Topic::Paths | Topic::Revisions => &["a/", "é/", "🦀/", "../", "./", "/", "a"],
            Topic::Patterns => &["(", "a*", "**/", "[a-", "(a|", "\\", ".*", "{a,"],
            Topic::Sql | Topic::Schema => &["(", "SELECT ", "x,", "'", "\"", "a"],
            Topic::Queries => &["[0]", ".a", "[", "a"],
            Topic::Expressions => &["(", "1+", "-", "str::trim(", "\""],
            Topic::Documents => &["<div>", "{\"a\":", "[", "\n", "é", "a,", "\"", "<p>"],
            _ => REPEATED,
        }
    }

    /// What exists or is valid on this topic (the sample's files, tables and columns, units,
    /// dates, revisions, ...): a call made of these gets past the checks to the tool's work.
    fn real(self) -> &'static [&'static str] {
        match self {
            Topic::Any | Topic::Expressions => &[],
            Topic::Paths => &[
                ".",
                "README.md",
                "data",
                "data/cities.csv",
                "data/inventory.json",
                "logs/app.log",
                "notes",
                "notes/todo.txt",
                "notes/meeting.md",
                "notes/archive/2023-retro.txt",
                "staged.txt",
                "new.txt",
                "notes/new.md",
                "é.txt",
            ],
            Topic::Patterns => &[
                "*", "**/*", "**/*.md", "*.csv", "needle", "é", "(?i)todo", "\\w+",
            ],
            Topic::Sql => &[
                "SELECT * FROM customers",
                "SELECT name, email FROM customers WHERE country = 'Japan'",
                "SELECT * FROM order_totals ORDER BY total DESC",
                "SELECT count(*), status FROM orders GROUP BY status",
                "SELECT * FROM products WHERE name LIKE '%é%'",
            ],
            Topic::Schema => &[
                "customers",
                "products",
                "orders",
                "order_items",
                "order_totals",
                "id",
                "name",
                "email",
                "country",
                "price",
                "status",
                "notes",
            ],
            Topic::Queries => &[
                "items",
                "items[0]",
                "items[0].name",
                "warehouse",
                "Ada",
                "Tokyo",
            ],
            Topic::Units => &[
                "m", "km", "mi", "ft", "kg", "lb", "°C", "F", "K", "GB", "KiB", "h", "s",
            ],
            Topic::Dates => &[
                "2024-01-31",
                "2024-02-29",
                "2024-03-31T02:30:00Z",
                "1970-01-01T00:00:00Z",
                "9999-12-31",
                "UTC",
                "Europe/Paris",
                "America/St_Johns",
            ],
            Topic::Revisions => &["HEAD", "HEAD~1", "HEAD^", "main", "@", ""],
            Topic::Urls => &[
                "http://example.com/",
                "https://example.com/a?b=c#d",
                "http://127.0.0.1/page",
                "http://example.com/é/../x",
            ],
            Topic::Documents => SAMPLE_TEXT,
            Topic::Names => &[
                "PATH",
                "HOME",
                "CARGO",
                "TOOLKIT_TEST_PROVIDER_KEY",
                "cargo",
            ],
            Topic::Delimiters => &[",", ";", "\t", "|"],
        }
    }
}

/// Hostile strings on `topic`: a word of the topic or of any topic, a few words or characters
/// joined, control characters, empty, a piece repeated to up to 4 KB, and for expressions, an
/// expression of functions, operators and hostile literals.
fn hostile_strings(topic: Topic) -> BoxedStrategy<String> {
    let all = proptest::sample::select(Topic::Any.words()).prop_map(str::to_owned);
    let words = proptest::sample::select(topic.words()).prop_map(str::to_owned);
    let own = if topic.real().is_empty() {
        words.boxed()
    } else {
        let real = proptest::sample::select(topic.real()).prop_map(str::to_owned);
        prop_oneof![1 => real, 1 => words].boxed()
    };
    let piece = prop_oneof![
        4 => own.clone(),
        2 => all.clone(),
        1 => "(?s:.{1,3})",
        1 => "[\u{1}-\u{1f}\u{7f}\u{80}-\u{9f}]{1,3}",
    ];
    let separator = proptest::sample::select(vec!["", "/", " ", "\n", ".", ","]);
    let strings = prop_oneof![
        1 => Just(String::new()),
        12 => own,
        2 => all,
        3 => (proptest::collection::vec(piece, 2..=4), separator)
            .prop_map(|(pieces, separator)| pieces.join(separator)),
        1 => "[\u{1}-\u{8}\u{b}-\u{1f}\u{7f}]{1,16}",
        2 => (proptest::sample::select(topic.pieces()), 1..=4096_usize)
            .prop_map(|(piece, bytes)| piece.repeat(bytes / piece.len() + 1)),
    ];
    match topic {
        Topic::Expressions => prop_oneof![1 => strings, 3 => expressions()].boxed(),
        Topic::Paths => prop_oneof![8 => strings, 1 => deep_chains()].boxed(),
        _ => strings.boxed(),
    }
}

/// What a function of an expression takes.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Text,
    Integer,
    Number,
    Truth,
    Any,
}

/// Chains of folders a few to two thousand deep, within 4096 bytes (the longest path a tool
/// takes): a writer makes them, a walker then goes down them.
fn deep_chains() -> BoxedStrategy<String> {
    (
        proptest::sample::select(vec![2047_usize, 1800, 1024, 100]),
        proptest::sample::select(vec!["a", "a", "é"]),
    )
        .prop_map(|(levels, name)| {
            let chain = format!("{name}/").repeat(levels);
            let cut = chain.floor_char_boundary(4096);
            chain[..cut].trim_end_matches('/').to_owned()
        })
        .boxed()
}

/// Expressions such as `calculate` evaluates: functions given arguments of the kinds they
/// take (strings full of multibyte characters, integers near the edges), operators,
/// parentheses, nested a few deep.
fn expressions() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        3 => literal(Kind::Integer),
        1 => literal(Kind::Number),
        2 => literal(Kind::Text),
        1 => literal(Kind::Truth),
        1 => proptest::sample::select(vec!["pi", "e", "tau", "()", "x"]).prop_map(str::to_owned),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        let nested = inner.clone();
        let call = proptest::sample::select(FUNCTIONS).prop_flat_map(move |(function, kinds)| {
            let arguments: Vec<BoxedStrategy<String>> = kinds
                .iter()
                .map(|kind| prop_oneof![3 => literal(*kind), 1 => nested.clone()].boxed())
                .collect();
            arguments.prop_map(move |arguments| format!("{function}({})", arguments.join(", ")))
        });
        prop_oneof![
            4 => call,
            2 => (inner.clone(), proptest::sample::select(OPERATORS), inner.clone())
                .prop_map(|(left, operator, right)| format!("{left} {operator} {right}")),
            1 => inner.clone().prop_map(|inner| format!("({inner})")),
            1 => inner.prop_map(|inner| format!("-{inner}")),
        ]
    })
    .boxed()
}

/// A literal of `kind` in an expression.
fn literal(kind: Kind) -> BoxedStrategy<String> {
    let integers = prop_oneof![
        3 => (-3_i64..12).prop_map(|n| n.to_string()),
        1 => proptest::sample::select(vec![
            "9223372036854775807",
            "-9223372036854775808",
            "4294967296",
            "64",
            "-64",
        ])
        .prop_map(str::to_owned),
    ];
    match kind {
        Kind::Text => proptest::sample::select(LITERALS).prop_map(quoted).boxed(),
        Kind::Integer => integers.boxed(),
        Kind::Number => prop_oneof![
            2 => integers,
            1 => proptest::sample::select(vec!["0.5", "-0.0", "1e308", "-1e308", "1e-320", "2.5"])
                .prop_map(str::to_owned),
        ]
        .boxed(),
        Kind::Truth => proptest::sample::select(vec!["true", "false", "1 < 2"])
            .prop_map(str::to_owned)
            .boxed(),
        Kind::Any => prop_oneof![
            literal(Kind::Text),
            literal(Kind::Number),
            literal(Kind::Truth)
        ]
        .boxed(),
    }
}

/// `text` as a string literal of an expression.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Functions an expression may call (evalexpr's and the calculator's own), with what they
/// take; some on purpose with too few or too many arguments.
const FUNCTIONS: &[(&str, &[Kind])] = {
    use Kind::{Any, Integer, Number, Text, Truth};
    &[
        ("str::substring", &[Text, Integer, Integer]),
        ("str::substring", &[Text, Integer]),
        ("str::to_lowercase", &[Text]),
        ("str::to_uppercase", &[Text]),
        ("str::trim", &[Text]),
        ("str::from", &[Any]),
        ("str::regex_matches", &[Text, Text]),
        ("str::regex_replace", &[Text, Text, Text]),
        ("len", &[Text]),
        ("len", &[Any, Any]),
        ("min", &[Number, Number]),
        ("max", &[Number, Number, Number]),
        ("min", &[]),
        ("floor", &[Number]),
        ("round", &[Number]),
        ("ceil", &[Number]),
        ("if", &[Truth, Any, Any]),
        ("contains", &[Any, Any]),
        ("contains_any", &[Any, Any]),
        ("typeof", &[Any]),
        ("math::abs", &[Number]),
        ("abs", &[Number]),
        ("math::pow", &[Number, Number]),
        ("math::ln", &[Number]),
        ("math::log", &[Number, Number]),
        ("math::sqrt", &[Number]),
        ("sqrt", &[Number]),
        ("math::exp", &[Number]),
        ("math::hypot", &[Number, Number]),
        ("math::is_nan", &[Number]),
        ("math::atanh", &[Number]),
        ("sin", &[Number]),
        ("bitand", &[Integer, Integer]),
        ("bitor", &[Integer, Integer]),
        ("bitxor", &[Integer, Integer]),
        ("bitnot", &[Integer]),
        ("shl", &[Integer, Integer]),
        ("shr", &[Integer, Integer]),
        ("random", &[]),
    ]
};

const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "^", "==", "!=", "<", ">=", "&&", "||", ",", ";", "=",
];

/// Strings inside expressions: multibyte, combining, empty, regexes.
const LITERALS: &[&str] = &[
    "é",
    "aé",
    "éa",
    "🦀",
    "a🦀b",
    "e\u{301}",
    "日本語",
    "İ",
    "ß",
    "👩‍👩‍👧",
    "",
    "abc",
    "(a+)+$",
    "[",
    ".*",
    "\\",
];

/// Pieces that a long string repeats.
const REPEATED: &[&str] = &[
    "a", "a/", "../", "é", "🦀", "(", ")", "[", "{", "<div>", "\\", "*", "x,", "\n", "$.a", "%",
    "{\"a\":", "1+", "e\u{301}", "\u{1b}", " ",
];

/// Every topic's words.
const WORDS: &[&[&str]] = &[
    PATHS,
    PATTERNS,
    SQL,
    SCHEMA,
    QUERIES,
    EXPRESSIONS,
    UNITS,
    DATES,
    REVISIONS,
    URLS,
    DOCUMENTS,
    NAMES,
    DELIMITERS,
    CHARACTERS,
];

/// The sample workspace's paths, paths that climb, leave or are not paths.
const PATHS: &[&str] = &[
    ".",
    "./",
    "",
    "README.md",
    "./README.md",
    ".gitignore",
    "data",
    "data/",
    "data/cities.csv",
    "data/inventory.json",
    "logs",
    "logs/app.log",
    "notes",
    "notes/todo.txt",
    "notes/meeting.md",
    "notes/ideas.md",
    "notes/archive",
    "notes/archive/2023-retro.txt",
    "staged.txt",
    "untracked.txt",
    "new.txt",
    "a",
    "a/b",
    "a/b/c.txt",
    "é",
    "é/🦀.txt",
    "🦀.txt",
    "build/out.tmp",
    ".git",
    ".git/config",
    ".git/HEAD",
    ".git/hooks/post-checkout",
    "..",
    "../",
    "../..",
    "../../etc/passwd",
    "notes/../..",
    "notes/../README.md",
    "a/../b",
    "/",
    "//",
    "/etc/passwd",
    "/proc/self/environ",
    "/dev/zero",
    "~",
    "~/.ssh/id_rsa",
    "\\",
    "..\\..\\windows",
    "C:\\Windows\\win.ini",
    "C:",
    "\\\\server\\share",
    "%2e%2e%2f",
    "file:///etc/passwd",
    "notes/todo.txt/",
    "notes//todo.txt",
    "notes/./todo.txt",
    " notes",
    "README.md ",
    "CON",
    "nul",
];

/// Globs and regexes.
const PATTERNS: &[&str] = &[
    "*",
    "**",
    "**/*",
    "**/*.md",
    "*.csv",
    "**/**/**/*.txt",
    "?",
    "[",
    "]",
    "[!a]",
    "[z-a]",
    "{a,b}",
    "{",
    "}",
    "{,,,,,,,,}",
    ".*",
    "(a+)+$",
    "(a|a)*b",
    "(.*a){20}",
    "(?i)é",
    "\\p{Greek}+",
    "\\b\\w+\\b",
    "a{1000}{1000}",
    "\\w{100000}",
    "(?x) # a comment",
    "[\\s\\S]*",
    "^$",
    "^",
    "$",
    "(",
    ")",
    "\\1",
    "(?<name>x)",
    "(?=x)",
    "\\",
    "TODO|FIXME",
    "needle",
    "é",
    "password",
];

/// SQL.
const SQL: &[&str] = &[
    "SELECT * FROM customers",
    "SELECT 1",
    "SELECT name, email FROM customers WHERE country = 'Japan'",
    "select name from sqlite_master",
    "SELECT * FROM order_totals ORDER BY total DESC",
    "PRAGMA table_info(customers)",
    "PRAGMA writable_schema = 1",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
    "SELECT randomblob(1000000000)",
    "SELECT zeroblob(2000000000)",
    "SELECT printf('%.*c', 1000000000, 'x')",
    "SELECT * FROM customers a, customers b, customers c, customers d, customers e",
    "SELECT load_extension('x')",
    "DELETE FROM customers",
    "DROP TABLE customers",
    "INSERT INTO customers (name) VALUES ('x')",
    "ATTACH DATABASE '/tmp/x.db' AS x",
    "VACUUM INTO '/tmp/x.db'",
    "SELECT 1; DELETE FROM customers",
    "BEGIN",
    "'; DROP TABLE customers; --",
    "' OR 1=1 --",
    "SELECT",
    "--",
    "/*",
];

/// Names in the sample database, and names that are not.
const SCHEMA: &[&str] = &[
    "customers",
    "products",
    "orders",
    "order_items",
    "order_totals",
    "sqlite_master",
    "sqlite_sequence",
    "id",
    "name",
    "email",
    "country",
    "price",
    "status",
    "customer_id",
    "quantity",
    "notes",
    "rowid",
    "\"customers\"",
    "customers\"; DROP TABLE orders; --",
    "[customers]",
    "`id`",
    "main.customers",
    "temp.x",
    "NULL",
    "*",
];

/// JSON paths, search words.
const QUERIES: &[&str] = &[
    "items",
    "items[0]",
    "items[0].name",
    "items[-1]",
    "items[99999999999]",
    "items[*].price",
    "items.0.sku",
    "warehouse",
    "$",
    "$.items",
    "$[0]",
    ".",
    "..",
    "a.b.c",
    "[",
    "]]",
    "items[",
    "Tokyo",
    "Ada",
    "needle",
    "%",
    "_",
];

/// Expressions written out.
const EXPRESSIONS: &[&str] = &[
    "1 + 1",
    "2 ^ 1000",
    "2 ^ 63",
    "1 / 0",
    "0 / 0",
    "1.0 / 0",
    "10 % 0",
    "-9223372036854775808 / -1",
    "-9223372036854775808 % -1",
    "9223372036854775807 + 1",
    "-9223372036854775808 - 1",
    "9223372036854775807 * 2",
    "-(-9223372036854775808)",
    "math::sqrt(-1)",
    "math::pow(2, 1024)",
    "str::substring(\"é\", 0, 1)",
    "str::substring(\"abc\", 2, 1)",
    "str::substring(\"abc\", 0, 99)",
    "str::from(1.5)",
    "str::regex_replace(\"aaa\", \"(a+)+$\", \"b\")",
    "a = 1; a",
    "if(true, 1, 2)",
    "len(\"🦀\")",
    "floor(-0.5)",
    "shl(1, 64)",
    "min()",
    "1 +",
    "()",
    "random()",
];

const UNITS: &[&str] = &[
    "m",
    "km",
    "mi",
    "ft",
    "in",
    "°C",
    "C",
    "celsius",
    "F",
    "K",
    "kg",
    "lb",
    "g",
    "s",
    "h",
    "day",
    "KiB",
    "GB",
    "byte",
    "bit",
    "m2",
    "l",
    "gal",
    "km/h",
    "mph",
    "J",
    "kWh",
    "Pa",
    "bar",
    "psi",
    "µm",
    "um",
    "M",
    "KM",
    "°",
    "",
    "meters per second",
];

const DATES: &[&str] = &[
    "2024-01-31",
    "2024-03-31T02:30:00Z",
    "2024-10-27T01:30:00+01:00",
    "2000-01-01T00:00:00.123456789Z",
    "1969-12-31T23:59:59Z",
    "2024-05-02T09:30:00Z",
    "2024-02-29",
    "2023-02-29",
    "2024-13-01",
    "2024-00-10",
    "0000-01-01",
    "9999-12-31",
    "-009999-01-01",
    "+010000-01-01",
    "2024-01-01T00:00:00Z",
    "2024-01-01T24:00:00",
    "2024-01-01T23:59:60Z",
    "2024-03-31T02:30:00[Europe/Paris]",
    "2024-01-01T00:00:00+25:00",
    "1970-01-01",
    "1970-01-01T00:00:00-00:01",
    "now",
    "today",
    "yesterday",
    "UTC",
    "utc",
    "Europe/Paris",
    "America/St_Johns",
    "Pacific/Kiritimati",
    "Etc/GMT+14",
    "Etc/GMT-14",
    "Mars/Olympus",
    "../../etc/passwd",
    "+14:00",
    "-23:59",
    "+99:99",
    "24:00",
    "1712345678",
    "-62167219200",
];

/// Git revisions.
const REVISIONS: &[&str] = &[
    "HEAD",
    "HEAD~1",
    "HEAD~2",
    "HEAD^",
    "HEAD^2",
    "HEAD~100000",
    "HEAD^{tree}",
    "HEAD^{blob}",
    "HEAD:README.md",
    "HEAD:notes",
    "main",
    "master",
    "main..HEAD",
    "HEAD...main",
    "@",
    "@{-1}",
    "@{upstream}",
    "HEAD@{0}",
    ":/Update",
    "0000000000000000000000000000000000000000",
    "deadbeef",
    "d",
    "--all",
    "--output=/tmp/pwned",
    "-p",
    "refs/heads/main",
    "refs/../../etc/passwd",
];

const URLS: &[&str] = &[
    "http://example.com/",
    "https://example.com:443/a?b=c#d",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://0x7f.1/",
    "http://2130706433/",
    "http://127.0.0.1:1/",
    "http://127.0.0.1/",
    "http://127.0.0.2/",
    "http://10.0.0.1/",
    "http://localhost/",
    "http://user:pass@example.com/",
    "http://é.example/é?é=é",
    "http://example.com/a/../../b",
    "http://example.com/%00",
    "http://example.com:99999/",
    "http:///",
    "http://",
    "//example.com",
    "http://a b/",
    "ftp://example.com/",
    "javascript:alert(1)",
    "data:text/html,<h1>x</h1>",
    "file:///etc/passwd",
    "mailto:ada@example.com",
];

/// Markup, data and text.
const DOCUMENTS: &[&str] = &[
    "<script>alert(1)</script>",
    "<div>",
    "</div>",
    "<!--",
    "&amp;",
    "{\"a\":",
    "{\"a\": [1, {\"b\": null}]}",
    "{}",
    "[]",
    "null",
    "[[[[",
    "a,b\n1,2",
    "a,b\n1,2,3\n\"x\n",
    "\"unterminated",
    ",,,\n,,",
    "a;b;c",
    "\u{feff}a,b\n1,2",
    "%s%n%x",
    "{{7*7}}",
    "${HOME}",
    "$(id)",
    "sk-test-FAKE1234567890abcdef",
    "password=hunter2",
    "ada@example.com",
    "aGVsbG8=",
    "====",
    "/w==",
    "-_",
    "2024-05-02 09:00:00 ERROR boom",
    "ERROR",
    "line\nline\nline\n",
    "\r\n\r\n",
];

/// Lines of the sample workspace, so that edits find what they replace.
const SAMPLE_TEXT: &[&str] = &[
    "{\"items\": [{\"name\": \"é\", \"price\": 1.5, \"tags\": []}], \"warehouse\": \"North\"}",
    "city,country,population\nTokyo,Japan,13960000\nSão Paulo,Brazil,\n",
    "<html><body><h1>Title</h1><p>é <b>and</b> 🦀</p></body></html>",
    "# Sample workspace",
    "Sample",
    "- restock standing mats at the north site",
    "Attendees: Ada, Grace, Linus.",
    "Tokyo,Japan,13960000,2194,true",
    "\"warehouse\": \"North\"",
    "INFO",
    "\n",
    "a",
    "e",
];

/// Environment variable and process names.
const NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "AWS_SECRET_ACCESS_KEY",
    "TOOLKIT_TEST_PROVIDER_KEY",
    "CARGO",
    "RUST",
    "=",
    "A=B",
    "cargo",
    "properties",
    "git",
    "new",
    "label",
];

const DELIMITERS: &[&str] = &[
    ",", ";", "\t", "|", "", "é", "🦀", "\"", "\n", "ab", " ", "\r",
];

/// Characters that change size, shape or direction, and control characters (no NUL).
const CHARACTERS: &[&str] = &[
    "é",
    "e\u{301}",
    "🦀",
    "👩‍👩‍👧",
    "🏳️‍🌈",
    "\u{202e}evil",
    "\u{200b}",
    "\u{fffd}",
    "İ",
    "ß",
    "ﬃ",
    "ǅ",
    "ﷺ",
    "\u{10ffff}",
    "Ω",
    "日本語",
    "\u{85}",
    "\u{2028}",
    "\u{1}\u{2}\u{7f}",
    "\u{1b}[31mred\u{1b}[0m",
    "\r\n",
    "\t",
    "\r",
    "\u{8}",
    "\n",
    " ",
];

/// `text` cut or padded to the schema's length bounds, counted in characters.
fn fit(text: String, min: u64, max: Option<u64>) -> String {
    let min = usize::try_from(min).unwrap_or(usize::MAX);
    let mut text = match max.and_then(|max| usize::try_from(max).ok()) {
        Some(max) => text.chars().take(max).collect(),
        None => text,
    };
    while text.chars().count() < min {
        text.push('é');
    }
    text
}
