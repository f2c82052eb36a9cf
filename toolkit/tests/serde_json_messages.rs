//! The argument decoder (`toolkit/src/decode/`) reads some of `serde_json`'s error messages: it
//! takes `number out of range` and `recursion limit exceeded` for errors of valid JSON (which
//! `serde_json` counts as syntax), names the key of an `unknown field`, names the variant of an
//! `invalid type: unit variant`, says a whole `floating point` past 64 bits is out of range, and
//! cuts the ` at line L column C` off every message. Each test here pins the `serde_json` words one
//! of those steps reads, and the error a tool's caller then gets: when a `serde_json` release
//! words a message otherwise, a test here fails before any caller sees a worse error.

use schemars::JsonSchema;
use serde::Deserialize;
use toolkit::spec::ArgumentError;
use toolkit::tool;

/// A choice with a variant of each kind.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code, reason = "only its errors are read")]
enum Mode {
    /// Fast.
    Fast,
    /// By a factor.
    Scaled(u8),
    /// Within bounds.
    Bounded {
        /// The lower bound.
        low: u8,
    },
}

/// Takes a number of each kind, a choice and any value.
#[tool]
fn take(
    /// A count.
    count: Option<u64>,
    /// A ratio.
    ratio: Option<f64>,
    /// A mode.
    mode: Option<Mode>,
    /// Anything.
    anything: Option<serde_json::Value>,
) -> String {
    format!("{count:?} {ratio:?} {mode:?} {anything:?}")
}

/// `serde_json`'s error for `text` as `T`, its position included.
fn serde_json_error<T: for<'de> Deserialize<'de> + std::fmt::Debug>(text: &str) -> String {
    serde_json::from_str::<T>(text).unwrap_err().to_string()
}

/// What the tool's caller gets for `arguments`: the path and the message.
fn refused(arguments: &str) -> (String, String) {
    let error: ArgumentError = TAKE_TOOL.check_arguments(arguments).unwrap_err();
    (error.path().to_owned(), error.message().to_owned())
}

fn pair(path: &str, message: &str) -> (String, String) {
    (path.to_owned(), message.to_owned())
}

#[test]
fn a_number_past_f64_is_out_of_range_and_read_as_valid_json() {
    let error = serde_json::from_str::<f64>("1e400").unwrap_err();
    assert_eq!(error.to_string(), "number out of range at line 1 column 5");
    assert!(error.is_syntax(), "serde_json counts it as syntax");
    assert_eq!(
        refused(r#"{"ratio": 1e400}"#),
        pair("ratio", "number out of range")
    );
}

#[test]
fn nesting_past_the_limit_is_said_as_depth_at_its_argument() {
    let deep = "[".repeat(200);
    let error = serde_json::from_str::<serde_json::Value>(&deep).unwrap_err();
    assert_eq!(
        error.to_string(),
        "recursion limit exceeded at line 1 column 128"
    );
    assert!(error.is_syntax(), "serde_json counts it as syntax");
    let arguments = format!(r#"{{"anything": {deep}}}"#);
    // Located where `serde_json` stopped: 127 arrays down (the object is the 128th level).
    assert_eq!(
        refused(&arguments),
        pair(
            &format!("anything{}", "[0]".repeat(127)),
            "nested more than 128 levels deep"
        )
    );
}

#[test]
fn an_unknown_field_is_located_at_its_key() {
    /// Arguments that take `a` only.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code, reason = "only its errors are read")]
    struct OnlyA {
        a: u64,
    }
    assert_eq!(
        serde_json_error::<OnlyA>(r#"{"b": 1}"#),
        "unknown field `b`, expected `a` at line 1 column 4"
    );
    assert_eq!(
        refused(r#"{"count": 1, "speed": 2}"#),
        pair(
            "speed",
            "unknown field `speed`, expected one of `count`, `ratio`, `mode`, `anything`"
        )
    );
}

#[test]
fn a_variant_of_the_wrong_kind_is_located_at_the_variant() {
    assert_eq!(
        serde_json_error::<Mode>(r#""Bounded""#),
        "invalid type: unit variant, expected struct variant"
    );
    assert_eq!(
        serde_json_error::<Mode>(r#""Scaled""#),
        "invalid type: unit variant, expected newtype variant"
    );
    // Last in its object, where `serde_json` places the error past the object's end, and not
    // last.
    for arguments in [
        r#"{"mode": "Bounded"}"#,
        r#"{"mode": "Bounded", "count": 1}"#,
    ] {
        assert_eq!(
            refused(arguments),
            pair(
                "mode.Bounded",
                "invalid type: unit variant, expected struct variant"
            ),
            "{arguments}"
        );
    }
}

#[test]
fn a_whole_number_past_64_bits_is_out_of_range_not_a_float() {
    assert_eq!(
        serde_json_error::<u64>("18446744073709551616"),
        "invalid type: floating point `1.8446744073709552e+19`, expected u64 at line 1 column 20"
    );
    assert_eq!(
        refused(r#"{"count": 18446744073709551616}"#),
        pair(
            "count",
            "invalid value: number `1.8446744073709552e+19` is out of range, expected u64"
        )
    );
    // A number with a fraction stays a float of the wrong type.
    assert_eq!(
        serde_json_error::<u64>("1.5"),
        "invalid type: floating point `1.5`, expected u64 at line 1 column 3"
    );
    assert_eq!(
        refused(r#"{"count": 1.5}"#),
        pair("count", "invalid type: floating point `1.5`, expected u64")
    );
}

#[test]
fn the_position_is_cut_off_and_syntax_errors_keep_it() {
    assert_eq!(
        serde_json_error::<u64>(r#""7""#),
        "invalid type: string \"7\", expected u64 at line 1 column 3"
    );
    assert_eq!(
        refused(r#"{"count": "7"}"#),
        pair("count", "invalid type: string \"7\", expected u64")
    );
    let error = serde_json::from_str::<serde_json::Value>(r#"{"count": 1"#).unwrap_err();
    assert_eq!(
        error.to_string(),
        "EOF while parsing an object at line 1 column 11"
    );
    assert!(error.is_eof());
    assert_eq!(
        refused(r#"{"count": 1"#),
        pair(
            ".",
            "the arguments are not valid JSON: EOF while parsing an object at line 1 column 11"
        )
    );
    // Text that is not JSON is said so at the model's own position, also when a whole number
    // written `1.0` failed first and was rewritten before the broken syntax was reached.
    assert_eq!(
        refused(r#"{"count": 1.0, "ratio" 2}"#),
        pair(
            ".",
            "the arguments are not valid JSON: expected `:` at line 1 column 24"
        )
    );
    assert_eq!(
        refused(r#"{"count": 1.0"#),
        pair(
            ".",
            "the arguments are not valid JSON: EOF while parsing an object at line 1 column 13"
        )
    );
}
