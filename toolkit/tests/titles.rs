//! A tool's title, the label people read: `#[tool(title = "..")]` (on a function or a `#[tools]`
//! method) or `ToolSpec::with_title`, else the description's first sentence; a registry refuses a
//! title given that breaks the rule. And the two flags that only describe a tool to hosts,
//! `idempotent` and `open_world`.

use serde_json::json;
use toolkit::{
    Tool, ToolContext, ToolRegistry, ToolResult, ToolSpec,
    registry::RegistryError,
    spec::{ExecutePermit, InvalidToolTitle, ToolFlags, ToolFuture},
    tool, tools,
};

/// Reads a text file of the workspace. Numbered from line 1; at most 200 lines a call.
#[tool(read_only, idempotent, group = "files")]
fn read_text() -> String {
    String::new()
}

/// Fetches a web page with HTTP(S) GET and gives its text, `max_length` characters from
/// `start_index`: HTML laid out as readable text.
#[tool(read_only, open_world, remote, title = "Fetch a web page")]
fn fetch() -> String {
    String::new()
}

/// Evaluates an arithmetic expression: `+ - * /`, parentheses, `sqrt`. Integers stay integers.
#[tool(read_only, idempotent)]
fn evaluate() -> String {
    String::new()
}

/// A notebook of one note, whose tools are methods.
struct Notebook(&'static str);

#[tools]
impl Notebook {
    /// Writes the note; the same note twice changes nothing more.
    #[tool(requires_approval, idempotent, title = "Write the note")]
    fn write_note(&self) -> String {
        self.0.to_owned()
    }

    /// Says whether the note is there? It only reads.
    #[tool(read_only)]
    fn has_note(&self) -> String {
        (!self.0.is_empty()).to_string()
    }
}

#[test]
fn the_title_is_the_attributes_else_the_descriptions_first_sentence() {
    let registry =
        ToolRegistry::of([READ_TEXT_TOOL, FETCH_TOOL, EVALUATE_TOOL]).expect("valid tools");
    let title = |name: &str| registry.get(name).expect(name).spec().title().into_owned();
    assert_eq!(title("read_text"), "Reads a text file of the workspace");
    assert_eq!(title("fetch"), "Fetch a web page");
    // A colon ends the label: what follows is detail.
    assert_eq!(title("evaluate"), "Evaluates an arithmetic expression");
    // The description is the doc comment's, whatever the title.
    assert_eq!(
        registry.get("fetch").expect("fetch").spec().description(),
        "Fetches a web page with HTTP(S) GET and gives its text, `max_length` characters from \
         `start_index`: HTML laid out as readable text."
    );
}

#[test]
fn the_flags_that_describe_a_tool_to_hosts_are_the_attributes() {
    let flags = |tool: &dyn Tool| tool.spec().flags();
    assert_eq!(
        flags(READ_TEXT_TOOL),
        ToolFlags::new().with_read_only(true).with_idempotent(true)
    );
    assert_eq!(
        flags(FETCH_TOOL),
        ToolFlags::new()
            .with_read_only(true)
            .with_open_world(true)
            .with_remote(true)
    );
    let fetch = flags(FETCH_TOOL);
    assert_eq!(
        (fetch.idempotent(), fetch.open_world(), fetch.remote()),
        (false, true, true)
    );
}

#[test]
fn a_tools_method_has_its_title_and_flags() {
    let mut registry = ToolRegistry::new();
    registry
        .register_instance(Notebook("note"))
        .expect("new names");
    let write = registry.get("write_note").expect("registered").spec();
    assert_eq!(write.title(), "Write the note");
    assert_eq!(
        write.flags(),
        ToolFlags::new()
            .with_requires_approval(true)
            .with_idempotent(true)
    );
    // A `?` ends the first sentence and stays.
    let has = registry.get("has_note").expect("registered").spec();
    assert_eq!(has.title(), "Says whether the note is there?");
}

/// A hand-written tool with this spec.
struct Written(ToolSpec);

impl Tool for Written {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        ToolFuture::Ready(Ok(ToolResult::text("written")))
    }
}

fn spec(name: &'static str, description: &'static str) -> ToolSpec {
    ToolSpec::new(name, description, json!({"type": "object"}))
}

#[test]
fn a_hand_written_tool_has_its_title_else_its_first_sentence_else_its_name() {
    assert_eq!(
        spec("weather", "Gets the forecast. For one city.").title(),
        "Gets the forecast"
    );
    assert_eq!(
        spec("weather", "Gets the forecast. For one city.")
            .with_title("Weather forecast")
            .title(),
        "Weather forecast"
    );
    assert_eq!(spec("weather", "").title(), "weather");
    let long = spec(
        "weather",
        "Gets the forecast of one city for the next days, hour by hour, with the temperature, \
         the wind and the rain expected.",
    );
    assert_eq!(
        long.title(),
        "Gets the forecast of one city for the next days, hour by hour, with the temperature, the \
         wind and…"
    );
    assert_eq!(long.title().chars().count(), 98);

    let mut registry = ToolRegistry::new();
    registry
        .register(Written(
            spec("weather", "Gets the forecast.").with_title("Weather forecast"),
        ))
        .expect("a valid title");
    assert_eq!(
        registry.get("weather").expect("registered").spec().title(),
        "Weather forecast"
    );
}

#[test]
fn a_registry_refuses_a_title_that_breaks_the_rule_saying_what_to_do() {
    for (title, error, message) in [
        (
            " ",
            InvalidToolTitle::Empty,
            "a tool title cannot be empty: give a short label people read (\"Read a file\"), or \
             none, and the description's first sentence is the title",
        ),
        (
            "Weather\nforecast",
            InvalidToolTitle::MultiLine,
            "a tool title is one line: keep it a short label and put the details in the \
             description",
        ),
        (
            "Weather forecast for one city, hour by hour, with the temperature, the wind and the rain expected now",
            InvalidToolTitle::TooLong(101),
            "a tool title is at most 100 characters long; this one is 101: keep it a short label \
             and put the details in the description",
        ),
    ] {
        let mut registry = ToolRegistry::new();
        let refused = registry
            .register(Written(
                spec("weather", "Gets the forecast.")
                    .with_title(title)
                    .defined_at("weather.rs:7"),
            ))
            .expect_err(title);
        assert_eq!(
            refused,
            RegistryError::InvalidTitle {
                tool: "weather".to_owned(),
                place: "weather.rs:7".to_owned(),
                error,
            }
        );
        assert_eq!(
            refused.to_string(),
            format!("tool \"weather\" (defined at weather.rs:7) cannot be registered: {message}")
        );
        assert!(registry.get("weather").is_none());
    }
}
