//! A whole number the model writes with a fraction or an exponent (`1.0`, `1e2`) reaches a tool
//! as exactly that number, never as a float's neighbour of it, and anything else is refused:
//! checked against an arbitrary-precision reference (`bigdecimal`) on number texts of every
//! shape, through the seam as a model's call goes.

use std::str::FromStr;

use bigdecimal::BigDecimal;
use proptest::prelude::*;
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tool};

/// Says the id it was given.
#[tool]
fn take_u64(
    /// The id.
    n: u64,
) -> String {
    n.to_string()
}

/// Says the offset it was given.
#[tool]
fn take_i64(
    /// The offset.
    n: i64,
) -> String {
    n.to_string()
}

/// What the tool of `name` says for `{"n": TEXT}`, or `None` when the call is refused.
fn decoded(name: &str, text: &str) -> Option<String> {
    let service = ToolLoopService::new(ToolRegistry::of([TAKE_U64_TOOL, TAKE_I64_TOOL]).unwrap());
    let scope = service.scope(ToolContext::new()).expect("no state");
    let arguments = format!(r#"{{"n": {text}}}"#);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let result = runtime.block_on(service.invoke(&scope, name, &arguments));
    (!result.is_error()).then(|| result.content().to_owned())
}

/// What the reference makes of `text`: the integer it is, when it is whole and within
/// `low..=high`.
fn reference(text: &str, low: &BigDecimal, high: &BigDecimal) -> Option<String> {
    let value = BigDecimal::from_str(text).expect("a decimal");
    (value.is_integer() && value >= *low && value <= *high).then(|| value.with_scale(0).to_string())
}

/// JSON number texts: a sign, whole digits, often a fraction (often of zeros), often an
/// exponent, around the edges of 64 bits.
fn number() -> impl Strategy<Value = String> {
    let whole = prop_oneof![
        Just("0".to_owned()),
        "[1-9][0-9]{0,24}",
        Just("9007199254740993".to_owned()),
        Just("18446744073709551615".to_owned()),
        Just("9223372036854775808".to_owned()),
    ];
    let fraction = prop_oneof![
        Just(String::new()),
        "\\.0{1,20}",
        "\\.[0-9]{1,25}",
        "\\.0{0,18}[1-9]",
    ];
    let exponent = prop_oneof![
        Just(String::new()),
        (
            prop_oneof![Just("e"), Just("E")],
            prop_oneof![Just(""), Just("+"), Just("-")],
            0u32..30
        )
            .prop_map(|(e, sign, power)| format!("{e}{sign}{power}")),
    ];
    (any::<bool>(), whole, fraction, exponent).prop_map(|(negative, whole, fraction, exponent)| {
        let sign = if negative { "-" } else { "" };
        format!("{sign}{whole}{fraction}{exponent}")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_number_decodes_to_exactly_the_number_written_or_is_refused(text in number()) {
        let u64_range = (BigDecimal::from(0), BigDecimal::from(u64::MAX));
        let i64_range = (BigDecimal::from(i64::MIN), BigDecimal::from(i64::MAX));
        prop_assert_eq!(decoded("take_u64", &text), reference(&text, &u64_range.0, &u64_range.1), "u64 {}", text);
        prop_assert_eq!(decoded("take_i64", &text), reference(&text, &i64_range.0, &i64_range.1), "i64 {}", text);
    }
}

#[test]
fn the_numbers_that_once_decoded_to_a_neighbour_decode_to_themselves() {
    for (name, text, expected) in [
        ("take_u64", "9007199254740993.0", Some("9007199254740993")),
        ("take_u64", "9007199254740993e0", Some("9007199254740993")),
        ("take_u64", "12345678901234567.0", Some("12345678901234567")),
        (
            "take_u64",
            "18446744073709551615.0",
            Some("18446744073709551615"),
        ),
        ("take_i64", "-9007199254740993.0", Some("-9007199254740993")),
        ("take_u64", "1.00000000000000001", None),
        ("take_u64", "0.9999999999999999999", None),
    ] {
        assert_eq!(decoded(name, text).as_deref(), expected, "{name} {text}");
    }
}
