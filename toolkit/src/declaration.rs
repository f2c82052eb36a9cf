//! A tool's declaration in each wire format, borrowed from its spec's name, description and
//! schema: one type per format serves both the spec's exports (`ToolSpec::openai`,
//! `ToolSpec::anthropic`, ...) and the providers' request bodies, so the two cannot drift apart.

#[cfg(feature = "http")]
use std::sync::OnceLock;

use crate::limits::OPENAI_DESCRIPTION_LIMIT;
use serde::Serialize;
use serde_json::Value;
#[cfg(feature = "http")]
use serde_json::value::RawValue;

/// A schema the target provider cannot express.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool \"{tool}\": the {target} schema cannot express {what} at {path}")]
#[non_exhaustive]
pub struct SchemaError {
    /// The tool's name.
    pub tool: String,
    /// The export, such as `"OpenAI strict"`.
    pub target: &'static str,
    /// JSON Pointer into the tool's input schema.
    pub path: String,
    /// What is there.
    pub what: String,
}

/// A declaration a provider would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The schema has what the export cannot express.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// The description is longer than the provider takes.
    #[error(
        "tool \"{tool}\": its description has {length} characters, past {target}'s limit of \
         {limit}: shorten the doc comment (or `description = \"..\"`), moving detail into the \
         parameters' descriptions"
    )]
    DescriptionTooLong {
        /// The tool's name.
        tool: String,
        /// The export, such as `"OpenAI"`.
        target: &'static str,
        /// The description's length in characters.
        length: usize,
        /// The provider's limit.
        limit: usize,
    },
}

/// Refuses a description OpenAI would refuse.
pub(crate) fn check_openai_description(name: &str, description: &str) -> Result<(), ExportError> {
    // A character is at least a byte: a description of at most the limit in bytes is fine.
    if description.len() <= OPENAI_DESCRIPTION_LIMIT {
        return Ok(());
    }
    let length = description.chars().count();
    if length <= OPENAI_DESCRIPTION_LIMIT {
        return Ok(());
    }
    Err(ExportError::DescriptionTooLong {
        tool: name.to_owned(),
        target: "OpenAI",
        length,
        limit: OPENAI_DESCRIPTION_LIMIT,
    })
}

/// OpenAI Chat Completions: `{"type":"function","function":{name, description, parameters}}`,
/// with `"strict": true` in strict mode.
#[derive(Serialize)]
pub(crate) struct OpenAiTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: OpenAiFunction<'a>,
}

#[derive(Serialize)]
struct OpenAiFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
}

impl<'a> OpenAiTool<'a> {
    /// The declaration of a tool with these parameters (its own schema, or a rewrite of it).
    pub(crate) fn new(
        name: &'a str,
        description: &'a str,
        parameters: &'a Value,
        strict: bool,
    ) -> Self {
        Self {
            kind: "function",
            function: OpenAiFunction {
                name,
                description,
                parameters,
                strict,
            },
        }
    }
}

/// OpenAI Responses: `{"type":"function", name, description, parameters, "strict": false}`
/// (the API takes a missing `strict` as `true`, which needs a schema rewritten for it).
#[cfg(feature = "openai")]
#[derive(Serialize)]
pub(crate) struct ResponsesTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    strict: bool,
}

#[cfg(feature = "openai")]
impl<'a> ResponsesTool<'a> {
    /// The declaration of a tool, its schema as it is.
    pub(crate) fn new(name: &'a str, description: &'a str, parameters: &'a Value) -> Self {
        Self {
            kind: "function",
            name,
            description,
            parameters,
            strict: false,
        }
    }
}

/// Anthropic Messages: `{name, description, input_schema}`.
#[derive(Serialize)]
pub(crate) struct AnthropicTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

impl<'a> AnthropicTool<'a> {
    /// The declaration of a tool, its schema as it is.
    pub(crate) fn new(name: &'a str, description: &'a str, input_schema: &'a Value) -> Self {
        Self {
            name,
            description,
            input_schema,
        }
    }
}

/// Gemini's function declaration: `{name, description, parameters}`.
#[derive(Serialize)]
pub(crate) struct GeminiDeclaration<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

impl<'a> GeminiDeclaration<'a> {
    pub(crate) fn new(name: &'a str, description: &'a str, parameters: &'a Value) -> Self {
        Self {
            name,
            description,
            parameters,
        }
    }
}

/// A spec's declarations as providers' request bodies carry them, each serialised the first time
/// a request needs it and copied as bytes into every request after: a spec's name, description
/// and schema never change once it is built.
#[cfg(feature = "http")]
#[derive(Clone, Default)]
pub(crate) struct Declared {
    #[cfg(feature = "openai")]
    openai: OnceLock<Box<RawValue>>,
    #[cfg(feature = "openai")]
    responses: OnceLock<Box<RawValue>>,
    #[cfg(feature = "anthropic")]
    anthropic: OnceLock<Box<RawValue>>,
    #[cfg(feature = "gemini")]
    gemini: OnceLock<Result<Box<RawValue>, SchemaError>>,
}

#[cfg(feature = "http")]
impl Declared {
    /// The OpenAI declaration (not strict: the schema as it is) of the spec these are its
    /// name, description and schema.
    #[cfg(feature = "openai")]
    pub(crate) fn openai(&self, name: &str, description: &str, schema: &Value) -> &RawValue {
        self.openai
            .get_or_init(|| raw(&OpenAiTool::new(name, description, schema, false)))
    }

    /// The OpenAI Responses declaration of the spec these are its name, description and
    /// schema.
    #[cfg(feature = "openai")]
    pub(crate) fn responses(&self, name: &str, description: &str, schema: &Value) -> &RawValue {
        self.responses
            .get_or_init(|| raw(&ResponsesTool::new(name, description, schema)))
    }

    /// The Gemini declaration, made by `declare` the first time (the schema rewritten for
    /// Gemini, or why it cannot be).
    #[cfg(feature = "gemini")]
    pub(crate) fn gemini(
        &self,
        declare: impl FnOnce() -> Result<Value, SchemaError>,
    ) -> Result<&RawValue, &SchemaError> {
        self.gemini
            .get_or_init(|| declare().map(|declaration| raw(&declaration)))
            .as_deref()
    }

    /// The Anthropic declaration of the spec these are its name, description and schema.
    #[cfg(feature = "anthropic")]
    pub(crate) fn anthropic(&self, name: &str, description: &str, schema: &Value) -> &RawValue {
        self.anthropic
            .get_or_init(|| raw(&AnthropicTool::new(name, description, schema)))
    }
}

#[cfg(feature = "http")]
fn raw(declaration: &impl Serialize) -> Box<RawValue> {
    let text =
        serde_json::to_string(declaration).expect("a declaration of strings and JSON serialises");
    RawValue::from_string(text).expect("serde_json's own output is JSON")
}

/// Derived from the spec's other fields: two specs equal in those declare equally.
#[cfg(feature = "http")]
impl PartialEq for Declared {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(feature = "http")]
impl std::fmt::Debug for Declared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Declared")
    }
}

/// The JSON value of a declaration (for the spec's exports).
pub(crate) fn to_value(declaration: &impl Serialize) -> Value {
    serde_json::to_value(declaration).expect("a declaration of strings and JSON serialises")
}
