//! The utility group: arithmetic, units, digests, Base64, UUIDs, URLs and dates, through the
//! seam.

mod workspace_fixture;

use serde_json::json;
use toolkit_builtins as _;
use workspace_fixture::Fixture;

fn strings<const N: usize>(cells: [&str; N]) -> Vec<String> {
    cells.iter().map(|cell| (*cell).to_owned()).collect()
}

#[tokio::test]
async fn calculate_evaluates_expressions() {
    let fixture = Fixture::new();
    for (expression, answer) in [
        ("2 * (3 + 4)", "2 * (3 + 4) = 14"),
        ("7 / 2", "7 / 2 = 3"),
        ("7.0 / 2", "7.0 / 2 = 3.5"),
        ("sqrt(16) + 1", "sqrt(16) + 1 = 5"),
        ("2 ^ 10", "2 ^ 10 = 1024"),
        ("pi", "pi = 3.141592654"),
        ("round(e * 100) / 100", "round(e * 100) / 100 = 2.72"),
        ("max(3, 9, 4)", "max(3, 9, 4) = 9"),
        ("1 > 2 || 3 >= 3", "1 > 2 || 3 >= 3 = true"),
        ("  10 % 4  ", "10 % 4 = 2"),
    ] {
        let outcome = fixture
            .call("calculate", json!({"expression": expression}))
            .await;
        assert_eq!(outcome.text(), answer, "{expression}");
    }
    // A long chain of unary minus is evaluated, not a crash.
    let negations = format!("{}1", "-".repeat(400));
    let outcome = fixture
        .call("calculate", json!({"expression": negations}))
        .await;
    assert_eq!(outcome.text(), format!("{negations} = 1"));
}

#[tokio::test]
async fn calculate_refuses_what_is_not_arithmetic() {
    let fixture = Fixture::new();
    let call = |expression: String| fixture.call("calculate", json!({"expression": expression}));
    assert_eq!(
        call("a = 1".to_owned()).await.error(),
        "Error: cannot evaluate: assignments are not allowed; write the value itself."
    );
    assert_eq!(
        call("   ".to_owned()).await.error(),
        "Error: the expression is empty."
    );
    assert_eq!(
        call(format!("{}1{}", "(".repeat(33), ")".repeat(33)))
            .await
            .error(),
        "Error: parentheses nest 33 deep; the limit is 32."
    );
    assert_eq!(
        call("1+".repeat(250) + "1").await.error(),
        "Error: the expression is 501 bytes long; the limit is 500."
    );
    let unknown = call("x + 1".to_owned()).await;
    assert!(
        unknown.error().starts_with("Error: cannot evaluate: "),
        "{}",
        unknown.content
    );
    let division = call("1 / 0".to_owned()).await;
    assert!(
        division.error().starts_with("Error: cannot evaluate: "),
        "{}",
        division.content
    );
}

#[tokio::test]
async fn convert_units_converts_within_a_dimension() {
    let fixture = Fixture::new();
    for (value, from, to, answer) in [
        (5.0, "km", "mi", "5 km = 3.106855961 mi"),
        (1.0, "mile", "km", "1 mile = 1.609344 km"),
        (100.0, "C", "F", "100 C = 212 F"),
        (-40.0, "°F", "celsius", "-40 °F = -40 celsius"),
        (0.0, "K", "C", "0 K = -273.15 C"),
        (1.0, "GiB", "MB", "1 GiB = 1073.741824 MB"),
        (8.0, "bits", "byte", "8 bits = 1 byte"),
        (2.5, "h", "min", "2.5 h = 150 min"),
        (1.0, "kWh", "J", "1 kWh = 3600000 J"),
        (1.0, "atm", "psi", "1 atm = 14.69594878 psi"),
        (100.0, "km/h", "mph", "100 km/h = 62.13711922 mph"),
        (1.0, "acre", "m2", "1 acre = 4046.856422 m2"),
        (1.0, "gal", "l", "1 gal = 3.785411784 l"),
        (1.0, "lb", "g", "1 lb = 453.59237 g"),
    ] {
        let outcome = fixture
            .call(
                "convert_units",
                json!({"value": value, "from": from, "to": to}),
            )
            .await;
        assert_eq!(outcome.text(), answer);
    }
}

#[tokio::test]
async fn convert_units_explains_what_it_cannot_do() {
    let fixture = Fixture::new();
    let call = |value: f64, from: &str, to: &str| {
        fixture.call(
            "convert_units",
            json!({"value": value, "from": from, "to": to}),
        )
    };
    assert_eq!(
        call(1.0, "kg", "m").await.error(),
        "Error: cannot convert kg (mass) to m (length)."
    );
    assert_eq!(
        call(1.0, "parsec", "m").await.error(),
        "Error: unknown unit \"parsec\"; try a symbol such as km, mi, kg, lb, s, h, MB, GiB, ha, l, gal, km/h, C, F, K, kWh, bar or psi."
    );
    assert_eq!(
        call(-300.0, "C", "K").await.error(),
        "Error: -300 C is below absolute zero."
    );
}

#[tokio::test]
async fn hash_text_digests_text() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture
            .call("hash_text", json!({"text": "abc"}))
            .await
            .text(),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        fixture
            .call("hash_text", json!({"text": "abc", "algorithm": "sha512"}))
            .await
            .text(),
        "sha512:ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
    );
}

#[tokio::test]
async fn base64_encodes_and_decodes() {
    let fixture = Fixture::new();
    let call = |arguments| fixture.call("base64", arguments);
    assert_eq!(call(json!({"text": "hello?"})).await.text(), "aGVsbG8/");
    assert_eq!(
        call(json!({"text": "hello?", "alphabet": "url_safe"}))
            .await
            .text(),
        "aGVsbG8_"
    );
    assert_eq!(
        call(json!({"text": "aGVs\nbG8", "mode": "decode"}))
            .await
            .text(),
        "hello"
    );
    assert_eq!(
        call(json!({"text": "aGVsbG8=", "mode": "decode"}))
            .await
            .text(),
        "hello"
    );
    assert_eq!(
        call(json!({"text": "/w==", "mode": "decode"})).await.text(),
        "1 byte, not UTF-8 text; hex: ff"
    );
    assert_eq!(
        call(json!({"text": "!!!!", "mode": "decode"}))
            .await
            .error(),
        "Error: not valid Base64: Invalid symbol 33, offset 0."
    );
}

#[tokio::test]
async fn uuid_generates_versions_4_and_7() {
    let fixture = Fixture::new();
    let outcome = fixture.call("uuid", json!({"count": 3})).await;
    let ids: Vec<&str> = outcome.text().lines().collect();
    assert_eq!(ids.len(), 3);
    let shape =
        regex::Regex::new("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
            .expect("regex");
    assert!(ids.iter().all(|id| shape.is_match(id)), "{ids:?}");
    assert!(ids[0] != ids[1] && ids[1] != ids[2]);
    let outcome = fixture
        .call("uuid", json!({"version": "v7", "count": 5}))
        .await;
    let ids: Vec<&str> = outcome.text().lines().collect();
    assert!(ids.iter().all(|id| id.as_bytes()[14] == b'7'), "{ids:?}");
    assert!(
        ids.windows(2).all(|pair| pair[0] < pair[1]),
        "time-ordered: {ids:?}"
    );
    assert_eq!(
        fixture.call("uuid", json!({"count": 101})).await.error(),
        "Error: count must be between 1 and 100, not 101."
    );
    assert_eq!(
        fixture.call("uuid", json!({"count": 0})).await.error(),
        "Error: count must be between 1 and 100, not 0."
    );
}

#[tokio::test]
async fn url_parse_splits_a_url_and_masks_its_secrets() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "url_parse",
            json!({"url": "https://ada:pw@example.com:8443/a/b?q=1&token=abc&x=%C3%A9#top"}),
        )
        .await;
    assert_eq!(
        outcome.content,
        "scheme: https\nusername: ada\npassword: [REDACTED]\nhost: example.com\nport: 8443\npath: /a/b\nquery: q=1&token=[REDACTED]&x=%C3%A9\nfragment: top\n3 query parameters: q=1, token=[REDACTED], x=é"
    );
    assert_eq!(outcome.artifacts.len(), 2);
    let parts = outcome.artifacts[0].as_table().expect("a table");
    assert_eq!(outcome.artifacts[0].label(), "URL parts");
    assert_eq!(parts.columns(), strings(["part", "value"]));
    assert_eq!(
        parts.rows(),
        vec![
            strings(["scheme", "https"]),
            strings(["username", "ada"]),
            strings(["password", "[REDACTED]"]),
            strings(["host", "example.com"]),
            strings(["port", "8443"]),
            strings(["path", "/a/b"]),
            strings(["query", "q=1&token=[REDACTED]&x=%C3%A9"]),
            strings(["fragment", "top"]),
        ]
    );
    assert_eq!(outcome.artifacts[1].label(), "Query parameters");
    assert_eq!(
        outcome.artifacts[1].as_table().expect("a table").rows(),
        vec![
            strings(["q", "1"]),
            strings(["token", "[REDACTED]"]),
            strings(["x", "é"])
        ]
    );
    let artifacts = serde_json::to_string(&outcome.artifacts).expect("serialise");
    assert!(!artifacts.contains("pw@") && !artifacts.contains("abc"));

    let outcome = fixture
        .call("url_parse", json!({"url": "https://example.com"}))
        .await;
    assert_eq!(
        outcome.content,
        "scheme: https\nhost: example.com\nport: 443 (default)\npath: /"
    );
    assert_eq!(outcome.label(), "URL parts");
    assert_eq!(
        fixture
            .call("url_parse", json!({"url": "example.com"}))
            .await
            .error(),
        "Error: not a valid URL: relative URL without a base."
    );
}

#[tokio::test]
async fn date_diff_counts_calendar_units_and_totals() {
    let fixture = Fixture::new();
    let call =
        |start: &str, end: &str| fixture.call("date_diff", json!({"start": start, "end": end}));
    for (start, end, answer) in [
        (
            "2024-01-31",
            "2024-03-01",
            "From 2024-01-31 to 2024-03-01: 1 month, 1 day (in all 30 days).",
        ),
        (
            "2020-02-29",
            "2024-02-28",
            "From 2020-02-29 to 2024-02-28: 3 years, 11 months, 30 days (in all 1460 days).",
        ),
        (
            "2024-03-01",
            "2024-01-31",
            "From 2024-03-01 to 2024-01-31: minus 1 month, 1 day (in all -30 days).",
        ),
        (
            "2024-05-05",
            "2024-05-05",
            "From 2024-05-05 to 2024-05-05: no time (in all 0 days).",
        ),
        (
            "2024-01-01T08:00",
            "2024-01-02T09:30:15",
            "From 2024-01-01T08:00 to 2024-01-02T09:30:15: 1 day, 1 hour, 30 minutes, 15 seconds (in all 91815 seconds).",
        ),
        (
            "2024-03-30T12:00:00Z",
            "2024-03-31T12:00:00Z",
            "From 2024-03-30T12:00:00Z to 2024-03-31T12:00:00Z: 1 day (in all 86400 seconds).",
        ),
        (
            "2024-03-30T12:00[Europe/Paris]",
            "2024-03-31T12:00[Europe/Paris]",
            "From 2024-03-30T12:00[Europe/Paris] to 2024-03-31T12:00[Europe/Paris]: 1 day (in all 82800 seconds).",
        ),
    ] {
        assert_eq!(call(start, end).await.text(), answer);
    }
    assert_eq!(
        call("2024-01-01", "2024-01-01T00:00Z").await.error(),
        "Error: compare like with like: both with an offset or zone, or neither."
    );
    assert_eq!(
        call("2024-13-01", "2024-01-01").await.error(),
        "Error: cannot read \"2024-13-01\" as a date (2024-01-31), a date-time (2024-01-31T09:30) or an instant (2024-01-31T09:30:00Z)."
    );
}

/// Pieces of expressions: numbers at the edges of i64 and f64, every operator, the functions
/// the calculator knows (builtins and its own), brackets and commas.
const PIECES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "64",
    "-64",
    "63",
    "65",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    "-1e308",
    "0.5",
    "NaN",
    "pi",
    "e",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "==",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "&&",
    "||",
    "!",
    "(",
    ")",
    ",",
    "shl",
    "shr",
    "bitand",
    "bitor",
    "bitxor",
    "bitnot",
    "min",
    "max",
    "floor",
    "round",
    "ceil",
    "sqrt",
    "ln",
    "math::pow",
    "math::abs",
    "abs",
    "exp",
    "if",
    "len",
    "str::to_uppercase",
    "true",
    "false",
    "\"text\"",
];

/// Well-formed expressions: numbers at the edges, nested operators and calls of every function
/// with one or two arguments.
fn expression() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        proptest::sample::select(vec![
            "0",
            "1",
            "-1",
            "2",
            "63",
            "64",
            "65",
            "-64",
            "9223372036854775807",
            "-9223372036854775808",
            "1e308",
            "0.5",
            "pi",
            "true",
            "\"s\"",
        ])
        .prop_map(str::to_owned),
        any::<i64>().prop_map(|number| number.to_string()),
        any::<f64>().prop_map(|number| format!("{number:?}")),
    ];
    let operators =
        proptest::sample::select(vec!["+", "-", "*", "/", "%", "^", "==", "<", "&&", "||"]);
    let unary = proptest::sample::select(vec![
        "sqrt",
        "ln",
        "abs",
        "floor",
        "round",
        "ceil",
        "exp",
        "bitnot",
        "math::abs",
        "len",
        "!",
        "-",
    ]);
    let binary = proptest::sample::select(vec![
        "shl",
        "shr",
        "bitand",
        "bitor",
        "bitxor",
        "min",
        "max",
        "math::pow",
    ]);
    leaf.prop_recursive(4, 32, 3, move |inner| {
        prop_oneof![
            (inner.clone(), operators.clone(), inner.clone())
                .prop_map(|(a, operator, b)| format!("({a} {operator} {b})")),
            (unary.clone(), inner.clone()).prop_map(|(function, a)| format!("{function}({a})")),
            (binary.clone(), inner.clone(), inner)
                .prop_map(|(function, a, b)| format!("{function}({a}, {b})")),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    #[test]
    fn calculate_never_panics_on_token_soup(pieces in proptest::collection::vec(0..PIECES.len(), 1..24)) {
        let expression: Vec<&str> = pieces.iter().map(|&index| PIECES[index]).collect();
        let expression = expression.join(" ");
        let result = std::panic::catch_unwind(|| toolkit_builtins::utility::calculate(expression.clone()));
        proptest::prop_assert!(result.is_ok(), "calculate panicked on {:?}", expression);
    }

    #[test]
    fn calculate_never_panics_on_well_formed_expressions(expression in expression()) {
        let result = std::panic::catch_unwind(|| toolkit_builtins::utility::calculate(expression.clone()));
        proptest::prop_assert!(result.is_ok(), "calculate panicked on {:?}", expression);
    }
}

#[test]
fn calculate_shifts_and_absolute_values_out_of_range_are_errors_not_panics() {
    let calculate = |expression: &str| {
        let result = toolkit_builtins::utility::calculate(expression.to_owned());
        (result.content().to_owned(), result.is_error())
    };
    for (expression, by) in [
        ("shl(1, 64)", "64"),
        ("shl(1, -1)", "-1"),
        ("shr(1, 64)", "64"),
        ("shr(-1, -5)", "-5"),
    ] {
        assert_eq!(
            calculate(expression),
            (
                format!("Error: cannot evaluate: a shift is by 0 to 63 bits, not {by}."),
                true
            ),
            "{expression}"
        );
    }
    assert_eq!(calculate("shl(1, 3)"), ("shl(1, 3) = 8".to_owned(), false));
    // The smallest integer has no absolute value among integers (evalexpr's own panicked).
    assert_eq!(
        calculate("math::abs(bitnot(9223372036854775807))"),
        (
            "Error: cannot evaluate: the absolute value of -9223372036854775808 is not a 64-bit integer.".to_owned(),
            true
        )
    );
    assert_eq!(
        calculate("math::abs(-3)"),
        ("math::abs(-3) = 3".to_owned(), false)
    );
    assert_eq!(
        calculate("math::abs(-2.5)"),
        ("math::abs(-2.5) = 2.5".to_owned(), false)
    );
    assert_eq!(
        calculate("shr(-16, 2)"),
        ("shr(-16, 2) = -4".to_owned(), false)
    );
}

#[tokio::test]
async fn calculate_answers_a_result_that_is_not_a_finite_number_with_an_error() {
    let fixture = Fixture::new();
    let infinite = "Error: cannot evaluate: the result is not a finite number (infinity; floats reach about ±1.8e308).";
    for (expression, answer) in [
        ("2^100000", infinite),
        ("2.0 ^ 1024", infinite),
        ("1.0 / 0", infinite),
        ("exp(1000)", infinite),
        ("(1, 2^100000)", infinite),
        (
            "-(2^100000)",
            "Error: cannot evaluate: the result is not a finite number (-infinity; floats reach about ±1.8e308).",
        ),
        (
            "ln(0)",
            "Error: cannot evaluate: the result is not a finite number (-infinity; floats reach about ±1.8e308).",
        ),
        (
            "0.0 / 0",
            "Error: cannot evaluate: the result is not a finite number (NaN).",
        ),
        (
            "sqrt(-1)",
            "Error: cannot evaluate: the result is not a finite number (NaN).",
        ),
    ] {
        let outcome = fixture
            .call("calculate", json!({"expression": expression}))
            .await;
        assert_eq!(outcome.error(), answer, "{expression}");
    }
    // Finite results, even of infinite parts, are answers as before.
    for (expression, answer) in [
        ("2^1023", "2^1023 = 8.98846567431158e307"),
        ("1 / 2^100000", "1 / 2^100000 = 0"),
        ("2^100000 > 1", "2^100000 > 1 = true"),
        ("min(2^100000, 3)", "min(2^100000, 3) = 3"),
    ] {
        let outcome = fixture
            .call("calculate", json!({"expression": expression}))
            .await;
        assert_eq!(outcome.text(), answer, "{expression}");
    }
}

#[tokio::test]
async fn calculate_substring_inside_a_character_is_an_error_not_a_panic() {
    let fixture = Fixture::new();
    let call =
        |expression: &str| fixture.call("calculate", json!({"expression": expression.to_owned()}));
    assert_eq!(
        call("str::substring(\"é\", 0, 1)").await.error(),
        "Error: cannot evaluate: str::substring takes byte offsets on character boundaries; 0..1 cuts a character of \"é\"."
    );
    assert_eq!(
        call("str::substring(\"日本\", 4)").await.error(),
        "Error: cannot evaluate: str::substring takes byte offsets on character boundaries; 4..6 cuts a character of \"日本\"."
    );
    assert_eq!(
        call("str::substring(\"héllo\", 0, 3)").await.text(),
        "str::substring(\"héllo\", 0, 3) = \"hé\""
    );
    assert_eq!(
        call("str::substring(\"héllo\", 3)").await.text(),
        "str::substring(\"héllo\", 3) = \"llo\""
    );
    for expression in [
        "str::substring(\"abc\", 2, 1)",
        "str::substring(\"abc\", 0, 4)",
        "str::substring(\"abc\", -1)",
    ] {
        assert_eq!(
            call(expression).await.error(),
            "Error: cannot evaluate: Tried to access a tuple or string at an invalid index",
            "{expression}"
        );
    }
}

#[tokio::test]
async fn calculate_evaluates_the_longest_chains_of_unary_operators_on_a_worker() {
    let fixture = Fixture::new();
    for (expression, value) in [
        (format!("{}1", "-".repeat(499)), "-1"),
        (format!("{}true", "!".repeat(496)), "true"),
        (format!("{}1", "-!".repeat(249)), ""),
        (format!("{}1", "- ".repeat(249)), "-1"),
    ] {
        assert!(
            expression.len() >= 499 && expression.len() <= 500,
            "{expression}"
        );
        let outcome = fixture
            .call("calculate", json!({"expression": expression}))
            .await;
        if value.is_empty() {
            assert!(
                outcome.error().starts_with("Error: cannot evaluate: "),
                "{}",
                outcome.content
            );
        } else {
            assert_eq!(outcome.text(), format!("{expression} = {value}"));
        }
    }
}

/// Every function evalexpr knows (its builtins and the calculator's own), for the property
/// test below.
const FUNCTIONS: &[&str] = &[
    "math::ln",
    "math::log",
    "math::log2",
    "math::log10",
    "math::exp",
    "math::exp2",
    "math::pow",
    "math::cos",
    "math::acos",
    "math::cosh",
    "math::acosh",
    "math::sin",
    "math::asin",
    "math::sinh",
    "math::asinh",
    "math::tan",
    "math::atan",
    "math::tanh",
    "math::atanh",
    "math::atan2",
    "math::sqrt",
    "math::cbrt",
    "math::hypot",
    "math::is_nan",
    "math::is_finite",
    "math::is_infinite",
    "math::is_normal",
    "math::abs",
    "floor",
    "round",
    "ceil",
    "typeof",
    "min",
    "max",
    "if",
    "contains",
    "contains_any",
    "len",
    "str::regex_matches",
    "str::regex_replace",
    "str::to_lowercase",
    "str::to_uppercase",
    "str::trim",
    "str::from",
    "str::substring",
    "random",
    "bitand",
    "bitor",
    "bitxor",
    "bitnot",
    "shl",
    "shr",
    "sqrt",
    "cbrt",
    "abs",
    "ln",
    "log10",
    "log2",
    "exp",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "trunc",
];

/// Expressions calling any function with 0 to 3 arguments: strings of multibyte characters
/// (escapes included), integers and floats at every size and sign, booleans, tuples, and such
/// calls nested, joined by any operator.
fn calls() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let text = proptest::collection::vec(
        proptest::sample::select(vec![
            "a", "é", "日", "😀", "ß", "İ", " ", "\\\"", "\\\\", "\u{301}",
        ]),
        0..6,
    )
    .prop_map(|pieces| format!("\"{}\"", pieces.concat()));
    // A text function of a text and small offsets: where a multibyte character is cut.
    let text_call = (
        proptest::sample::select(vec![
            "str::substring",
            "str::from",
            "str::trim",
            "str::to_uppercase",
            "len",
            "str::regex_matches",
            "str::regex_replace",
        ]),
        text.clone(),
        proptest::collection::vec((-1_i64..12).prop_map(|number| number.to_string()), 0..3),
    )
        .prop_map(|(function, text, offsets)| {
            let mut arguments = vec![text];
            arguments.extend(offsets);
            format!("{function}({})", arguments.join(", "))
        });
    let leaf = prop_oneof![
        text_call,
        text,
        (-3_i64..9).prop_map(|number| number.to_string()),
        any::<i64>().prop_map(|number| number.to_string()),
        any::<f64>().prop_map(|number| format!("{number:?}")),
        proptest::sample::select(vec![
            "1e308",
            "-1e308",
            "2^100000",
            "0.0",
            "-0.0",
            "true",
            "false",
            "()",
            "(1, \"é\")",
        ])
        .prop_map(str::to_owned),
    ];
    let function = proptest::sample::select(FUNCTIONS.to_vec());
    let operator = proptest::sample::select(vec![
        "+", "-", "*", "/", "%", "^", "==", "!=", "<", ">=", "&&", "||", ",",
    ]);
    leaf.prop_recursive(3, 24, 3, move |inner| {
        prop_oneof![
            (
                function.clone(),
                proptest::collection::vec(inner.clone(), 0..4)
            )
                .prop_map(|(function, arguments)| format!("{function}({})", arguments.join(", "))),
            (inner.clone(), operator.clone(), inner)
                .prop_map(|(a, operator, b)| format!("({a} {operator} {b})")),
        ]
    })
}

/// Chains of unary operators and calls without parentheses, as long as an expression may be.
fn chains() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    (
        proptest::collection::vec(
            proptest::sample::select(vec![
                "-",
                "!",
                "- ",
                "! ",
                "-!",
                "abs ",
                "sqrt ",
                "str::from ",
            ]),
            0..250,
        ),
        proptest::sample::select(vec!["1", "true", "\"é\"", "1e308"]),
    )
        .prop_map(|(pieces, leaf)| {
            let mut expression = pieces.concat();
            let room = 500 - leaf.len();
            while expression.len() > room {
                expression.pop();
            }
            expression + leaf
        })
}

/// `calculate` neither panics nor answers a number that is not finite.
fn check_calculate(expression: &str) -> Result<(), proptest::test_runner::TestCaseError> {
    let result =
        std::panic::catch_unwind(|| toolkit_builtins::utility::calculate(expression.to_owned()));
    proptest::prop_assert!(result.is_ok(), "calculate panicked on {:?}", expression);
    let Ok(result) = result else { return Ok(()) };
    if !result.is_error()
        && let Some(value) = result
            .content()
            .strip_prefix(expression.trim())
            .and_then(|rest| rest.strip_prefix(" = "))
        && !value.starts_with('"')
    {
        proptest::prop_assert!(
            !value.contains("infinity") && !value.contains("NaN"),
            "calculate answered {:?} for {:?}",
            value,
            expression
        );
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    #[test]
    fn calculate_never_panics_on_any_function_of_any_arguments(expression in calls()) {
        check_calculate(&expression)?;
    }

    #[test]
    fn calculate_never_panics_on_chains_as_long_as_allowed(expression in chains()) {
        check_calculate(&expression)?;
    }
}
