//! A tool's declaration in each wire format, borrowed from its [`ToolSpec`]: one type per format
//! serves both the spec's exports ([`ToolSpec::openai`], [`ToolSpec::anthropic`], ...) and the
//! providers' request bodies, so the two cannot drift apart.

use serde::Serialize;
use serde_json::Value;

use crate::tool::ToolSpec;

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
    /// The declaration of `spec` with these parameters (its own schema, or a rewrite of it).
    pub(crate) fn new(spec: &'a ToolSpec, parameters: &'a Value, strict: bool) -> Self {
        Self {
            kind: "function",
            function: OpenAiFunction {
                name: spec.name(),
                description: spec.description(),
                parameters,
                strict,
            },
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
    /// The declaration of `spec`, its schema as it is.
    pub(crate) fn new(spec: &'a ToolSpec) -> Self {
        Self {
            name: spec.name(),
            description: spec.description(),
            input_schema: spec.input_schema(),
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
    pub(crate) fn new(spec: &'a ToolSpec, parameters: &'a Value) -> Self {
        Self {
            name: spec.name(),
            description: spec.description(),
            parameters,
        }
    }
}

/// The JSON value of a declaration (for the spec's exports).
pub(crate) fn to_value(declaration: &impl Serialize) -> Value {
    serde_json::to_value(declaration).expect("a declaration of strings and JSON serialises")
}
