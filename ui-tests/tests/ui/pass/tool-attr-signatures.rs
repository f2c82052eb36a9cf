// control for fail/tool-attr-*.rs (signatures): `#[tool]` takes free `fn`s and `async fn`s whose
// parameters are plain names of owned types, with at most one `&ToolContext` (first, between or
// last, with or without a named lifetime), returning `ToolResult`, `String`,
// `Result<String, E: Display>` or `Result<ToolResult, E>`; a sync tool may use values that are not
// `Send`. Each is linked under its name and runs through the seam.
// What `#[tool]` generates passes the lints a careful crate denies.
#![deny(unused, unused_qualifications, rust_2018_idioms, nonstandard_style)]

use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;

use toolkit::ToolContext as Ctx;
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, ToolResult, tool};

/// Adds two numbers.
#[tool]
pub fn add(a: u8, b: u8) -> ToolResult {
    ToolResult::text((u16::from(a) + u16::from(b)).to_string())
}

/// Greets someone, after letting other tasks run.
#[tool]
pub async fn greet_later(name: String) -> String {
    tokio::task::yield_now().await;
    format!("Hello, {name}!")
}

/// Says who asks, then repeats a text.
#[tool]
pub fn context_first(context: &ToolContext, text: String) -> String {
    format!("admin={} {text}", context.is_admin())
}

/// Wraps a text in brackets of the caller's rank.
#[tool]
pub fn context_between(open: String, context: &ToolContext, close: String) -> String {
    format!("{open}{}{close}", context.is_admin())
}

/// Repeats a text, then says who asked.
#[tool]
pub async fn context_last(text: String, context: &ToolContext) -> String {
    tokio::task::yield_now().await;
    format!("{text} admin={}", context.is_admin())
}

/// Says whether the caller is an admin.
#[tool]
pub fn admin_status<'a>(context: &'a ToolContext) -> String {
    context.is_admin().to_string()
}

/// Decodes bytes as UTF-8, replacing what is not.
#[tool]
pub fn lossy(bytes: Vec<u8>) -> String {
    let text: Cow<'_, str> = String::from_utf8_lossy(&bytes);
    text.into_owned()
}

/// Shouts a text; `Cow<'static, str>` owns what it decodes, so it is an argument like `String`.
#[tool]
pub fn shout(text: Cow<'static, str>) -> String {
    text.to_uppercase()
}

/// Counts the words of a text.
#[tool]
pub fn count_words(text: String) -> String {
    // Not `Send`, and fine: a sync tool finishes before the seam moves on.
    let shared = Rc::new(text);
    shared.split_whitespace().count().to_string()
}

/// Why a number did not parse.
#[derive(Debug)]
pub struct NotANumber(String);

impl fmt::Display for NotANumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error: {:?} is not a number", self.0)
    }
}

/// Doubles a number written as text.
#[tool]
pub fn double(text: String) -> Result<String, NotANumber> {
    let number: i64 = text.trim().parse().map_err(|_| NotANumber(text.clone()))?;
    Ok((number * 2).to_string())
}

/// Halves an even number.
#[tool]
pub async fn halve(number: i64) -> Result<ToolResult, String> {
    if number % 2 == 0 {
        Ok(ToolResult::text((number / 2).to_string()))
    } else {
        Err(format!("Error: {number} is odd"))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    // An alias names the context anywhere but in a tool's parameters.
    let aliased: Ctx = ToolContext::new();
    assert!(!aliased.is_admin());
    let registry = ToolRegistry::linked().expect("no duplicate tools");
    let names = [
        "add",
        "greet_later",
        "context_first",
        "context_between",
        "context_last",
        "admin_status",
        "lossy",
        "count_words",
        "shout",
        "double",
        "halve",
    ];
    for name in names {
        let spec = registry.get(name).map(|tool| tool.spec().clone());
        assert_eq!(spec.as_ref().map(|spec| spec.name()), Some(name));
    }
    // The context is injected, not an argument.
    let schema = registry
        .get("context_between")
        .unwrap()
        .spec()
        .input_schema()
        .clone();
    assert_eq!(schema["required"], serde_json::json!(["open", "close"]));
    assert_eq!(
        registry.get("admin_status").unwrap().spec().input_schema(),
        &serde_json::json!({"type": "object", "additionalProperties": false})
    );

    let service = ToolLoopService::new(registry);
    let scope = service.scope(ToolContext::new().with_admin(true)).unwrap();
    let cases = [
        ("add", r#"{"a": 200, "b": 100}"#, "300", false),
        ("greet_later", r#"{"name": "Ada"}"#, "Hello, Ada!", false),
        ("context_first", r#"{"text": "hi"}"#, "admin=true hi", false),
        (
            "context_between",
            r#"{"open": "[", "close": "]"}"#,
            "[true]",
            false,
        ),
        ("context_last", r#"{"text": "hi"}"#, "hi admin=true", false),
        ("admin_status", "", "true", false),
        (
            "lossy",
            r#"{"bytes": [104, 105, 255]}"#,
            "hi\u{fffd}",
            false,
        ),
        ("count_words", r#"{"text": "one two  three"}"#, "3", false),
        ("double", r#"{"text": " 21 "}"#, "42", false),
        (
            "double",
            r#"{"text": "x"}"#,
            "Error: \"x\" is not a number",
            true,
        ),
        ("halve", r#"{"number": 42}"#, "21", false),
        ("halve", r#"{"number": 7}"#, "Error: 7 is odd", true),
    ];
    for (name, arguments, content, is_error) in cases {
        let result = service.invoke(&scope, name, arguments).await;
        assert_eq!(
            (result.content(), result.is_error()),
            (content, is_error),
            "{name} {arguments}"
        );
    }
}
