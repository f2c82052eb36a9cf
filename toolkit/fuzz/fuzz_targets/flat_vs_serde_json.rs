//! Whatever the flat decoder decodes, `serde_json` decodes to the same value: for strict and loose
//! argument structs, a map of values and a value. The flat decoder may give up on anything (then
//! `serde_json` decodes alone); it may never decode what `serde_json` refuses or decode it to
//! something else.

#![no_main]

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use toolkit::__private::flat_decode;

/// Arguments as a `#[tool]` with `deny_unknown_fields` takes them.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Strict {
    a: i64,
    b: Option<String>,
    c: Option<bool>,
    d: Option<u64>,
}

/// Arguments as a plain `#[tool]` takes them: unknown fields ignored, a default, a float.
#[derive(Debug, PartialEq, Deserialize)]
struct Loose {
    #[serde(default)]
    name: String,
    count: Option<u32>,
    ratio: Option<f64>,
    flag: Option<bool>,
}

fn agrees<T: DeserializeOwned + PartialEq + Debug>(text: &str) {
    if let Some(flat) = flat_decode::<T>(text) {
        match serde_json::from_str::<T>(text) {
            Ok(reference) => assert_eq!(flat, reference, "{text:?}"),
            Err(error) => panic!("flat decoded {text:?}, serde_json refused it: {error}"),
        }
    }
}

libfuzzer_sys::fuzz_target!(|text: &str| {
    agrees::<Strict>(text);
    agrees::<Loose>(text);
    agrees::<HashMap<String, serde_json::Value>>(text);
    agrees::<BTreeMap<String, i64>>(text);
    agrees::<serde_json::Value>(text);
});
