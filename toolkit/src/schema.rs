//! A tool's declaration in each provider's format, from one [`ToolSpec`].
//!
//! The argument schema is the JSON Schema schemars derives. Each provider takes a different part
//! of JSON Schema, so each export rewrites only what has an exact equivalent and refuses, with the
//! JSON path, what the target cannot express:
//!
//! | export | shape | rewrites |
//! | --- | --- | --- |
//! | [`ToolSpec::openai`] | `{"type":"function","function":{name, description, parameters}}` | none |
//! | [`ToolSpec::openai_strict`] | the same with `"strict": true` | every object closed and fully required, optional properties nullable unless they have a default (then the model always gives them), `oneOf` of exclusive branches (constants, or objects told apart by a tag) as `anyOf`, a `default` moved into the description, `minLength`/`maxLength` as a `pattern`, numeric `format` annotations dropped |
//! | [`ToolSpec::anthropic`] | `{name, description, input_schema}` | none |
//! | [`ToolSpec::gemini`] | `{name, description, parameters}` | `$ref` inlined and `$defs` removed, type lists as `nullable`, `const` as a one-value `enum`, `oneOf` of exclusive branches as `anyOf`, keywords Gemini does not know and that constrain nothing dropped |
//!
//! Neither strict mode nor Gemini can declare a value of any type (a `serde_json::Value`
//! argument) or a map's value type: both are a [`SchemaError`], never a silent drop. Both
//! OpenAI exports refuse a description past [`OPENAI_DESCRIPTION_LIMIT`](crate::limits::OPENAI_DESCRIPTION_LIMIT) characters
//! ([`ExportError::DescriptionTooLong`]), as OpenAI's API would.

use serde_json::{Map, Value, json};

use crate::declaration::{
    self, AnthropicTool, ExportError, GeminiDeclaration, OpenAiTool, SchemaError,
    check_openai_description,
};
use crate::spec::ToolSpec;

impl ToolSpec {
    /// The OpenAI Chat Completions function tool (also accepted by Ollama, vLLM, llama.cpp and
    /// LM Studio), the input schema as it is; a description past
    /// [`OPENAI_DESCRIPTION_LIMIT`](crate::limits::OPENAI_DESCRIPTION_LIMIT) characters is refused.
    pub fn openai(&self) -> Result<Value, ExportError> {
        check_openai_description(self.name(), self.description())?;
        Ok(declaration::to_value(&OpenAiTool::new(
            self.name(),
            self.description(),
            self.input_schema(),
            false,
        )))
    }

    /// The OpenAI function tool in strict mode: every object has `additionalProperties: false`
    /// and lists every property as required; a property that was optional may be `null`.
    ///
    /// The seam reads `null` for an optional argument as "not given", so strict calls decode.
    /// A description past [`OPENAI_DESCRIPTION_LIMIT`](crate::limits::OPENAI_DESCRIPTION_LIMIT) characters is refused.
    pub fn openai_strict(&self) -> Result<Value, ExportError> {
        check_openai_description(self.name(), self.description())?;
        let rewrite = Rewrite::new(self, "OpenAI strict");
        let parameters = rewrite.strict(self.input_schema(), "")?;
        Ok(declaration::to_value(&OpenAiTool::new(
            self.name(),
            self.description(),
            &parameters,
            true,
        )))
    }

    /// The Anthropic Messages tool, the input schema as it is.
    pub fn anthropic(&self) -> Value {
        declaration::to_value(&AnthropicTool::new(
            self.name(),
            self.description(),
            self.input_schema(),
        ))
    }

    /// The Gemini function declaration: references inlined, only the keywords Gemini's schema
    /// subset knows.
    pub fn gemini(&self) -> Result<Value, SchemaError> {
        let rewrite = Rewrite::new(self, "Gemini");
        let parameters = rewrite.gemini(self.input_schema(), "", &mut Vec::new())?;
        Ok(declaration::to_value(&GeminiDeclaration::new(
            self.name(),
            self.description(),
            &parameters,
        )))
    }
}

/// Keywords OpenAI's strict mode accepts.
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// String formats OpenAI's strict mode accepts; other formats are schemars annotations of
/// numeric widths (`uint`, `int64`, `double`, ...) and carry no constraint.
const STRICT_STRING_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords Gemini's schema subset knows; others are dropped.
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Formats Gemini knows.
const GEMINI_FORMATS: &[&str] = &["enum", "date-time", "int32", "int64", "float", "double"];

struct Rewrite<'a> {
    spec: &'a ToolSpec,
    target: &'static str,
}

impl<'a> Rewrite<'a> {
    fn new(spec: &'a ToolSpec, target: &'static str) -> Self {
        Self { spec, target }
    }

    fn error(&self, path: &str, what: impl Into<String>) -> SchemaError {
        SchemaError {
            tool: self.spec.name().to_owned(),
            target: self.target,
            path: if path.is_empty() {
                "/".to_owned()
            } else {
                path.to_owned()
            },
            what: what.into(),
        }
    }

    fn object<'v>(
        &self,
        schema: &'v Value,
        path: &str,
    ) -> Result<&'v Map<String, Value>, SchemaError> {
        match schema {
            Value::Object(map) => Ok(map),
            Value::Bool(true) => Err(self.error(path, "a schema that accepts anything (`true`)")),
            Value::Bool(false) => Err(self.error(path, "a schema that accepts nothing (`false`)")),
            _ => Err(self.error(path, "a value that is not a schema")),
        }
    }

    /// Rewrites every schema of a `properties` or `$defs` map.
    fn each_property(
        &self,
        value: &Value,
        here: &str,
        mut rewrite: impl FnMut(&Value, &str) -> Result<Value, SchemaError>,
    ) -> Result<Value, SchemaError> {
        let mut rewritten = Map::new();
        for (name, child) in self.object(value, here)? {
            rewritten.insert(
                name.clone(),
                rewrite(child, &format!("{here}/{}", escape(name)))?,
            );
        }
        Ok(Value::Object(rewritten))
    }

    /// Rewrites the branches of an `anyOf`, or of a `oneOf` whose branches exclude each other
    /// (so that it means the same as an `anyOf`).
    fn branches(
        &self,
        key: &str,
        value: &Value,
        here: &str,
        mut rewrite: impl FnMut(&Value, &str) -> Result<Value, SchemaError>,
    ) -> Result<Value, SchemaError> {
        let branches = value
            .as_array()
            .ok_or_else(|| self.error(here, format!("a `{key}` that is not a list")))?;
        if key == "oneOf" && !exclusive(branches) {
            return Err(self.error(here, "a `oneOf` whose branches may overlap"));
        }
        let rewritten = branches
            .iter()
            .enumerate()
            .map(|(index, branch)| rewrite(branch, &format!("{here}/{index}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Value::Array(rewritten))
    }

    fn strict(&self, schema: &Value, path: &str) -> Result<Value, SchemaError> {
        let map = self.object(schema, path)?;
        let mut out = Map::new();
        let mut default = None;
        for (key, value) in map {
            let here = format!("{path}/{}", escape(key));
            match key.as_str() {
                "properties" | "$defs" | "definitions" => {
                    let rewritten =
                        self.each_property(value, &here, |child, path| self.strict(child, path))?;
                    out.insert(key.clone(), rewritten);
                }
                "items" => {
                    out.insert(key.clone(), self.strict(value, &here)?);
                }
                "anyOf" | "oneOf" => {
                    let rewritten =
                        self.branches(key, value, &here, |branch, path| self.strict(branch, path))?;
                    out.insert("anyOf".to_owned(), rewritten);
                }
                "additionalProperties" => match value {
                    Value::Bool(false) => {}
                    _ => {
                        return Err(self.error(
                            &here,
                            "an object with open or typed extra properties (a map)",
                        ));
                    }
                },
                "default" => default = Some(value.clone()),
                "format" => {
                    if value
                        .as_str()
                        .is_some_and(|format| STRICT_STRING_FORMATS.contains(&format))
                    {
                        out.insert(key.clone(), value.clone());
                    }
                }
                other if STRICT_KEYWORDS.contains(&other) => {
                    out.insert(key.clone(), value.clone());
                }
                "minLength" | "maxLength" => {}
                other => return Err(self.error(&here, format!("the keyword `{other}`"))),
            }
        }
        self.typed(map, path)?;
        length_as_pattern(map, &mut out);
        if let Some(default) = default {
            add_note(&mut out, format!("Default: {default}."));
        }
        if is_object_type(&out) {
            close_object(&mut out, map.get("properties"));
        }
        Ok(Value::Object(out))
    }

    /// Refuses a schema that says nothing of its value's type (a `serde_json::Value`): neither
    /// strict mode nor Gemini can declare "any JSON value".
    fn typed(&self, map: &Map<String, Value>, path: &str) -> Result<(), SchemaError> {
        const TYPING: &[&str] = &[
            "type",
            "anyOf",
            "oneOf",
            "allOf",
            "enum",
            "const",
            "$ref",
            "properties",
            "items",
        ];
        if TYPING.iter().any(|key| map.contains_key(*key)) {
            Ok(())
        } else {
            Err(self.error(path, "a value of any type (a schema without `type`)"))
        }
    }

    fn gemini(
        &self,
        schema: &Value,
        path: &str,
        refs: &mut Vec<String>,
    ) -> Result<Value, SchemaError> {
        let map = self.object(schema, path)?;
        if let Some(reference) = map.get("$ref") {
            let target = reference
                .as_str()
                .ok_or_else(|| self.error(path, "a `$ref` that is not a string"))?;
            if refs.iter().any(|seen| seen == target) {
                return Err(self.error(path, format!("a recursive reference to `{target}`")));
            }
            let resolved = self.resolve(target, path)?;
            refs.push(target.to_owned());
            let mut inlined = self.gemini(&resolved, path, refs)?;
            refs.pop();
            // Keywords beside the reference (a property's own description) win.
            if let Value::Object(inlined_map) = &mut inlined {
                for (key, value) in map {
                    if key != "$ref" && GEMINI_KEYWORDS.contains(&key.as_str()) {
                        inlined_map.insert(key.clone(), value.clone());
                    }
                }
            }
            return Ok(inlined);
        }
        self.typed(map, path)?;
        let mut out = Map::new();
        for (key, value) in map {
            let here = format!("{path}/{}", escape(key));
            match key.as_str() {
                "properties" => {
                    let rewritten = self.each_property(value, &here, |child, path| {
                        self.gemini(child, path, refs)
                    })?;
                    out.insert(key.clone(), rewritten);
                }
                // A closed object says nothing Gemini needs; a map's value type it cannot say.
                "additionalProperties" if value != &Value::Bool(false) => {
                    return Err(self.error(
                        &here,
                        "an object with open or typed extra properties (a map)",
                    ));
                }
                "items" => {
                    out.insert(key.clone(), self.gemini(value, &here, refs)?);
                }
                "anyOf" | "oneOf" => {
                    let rewritten = self.branches(key, value, &here, |branch, path| {
                        self.gemini(branch, path, refs)
                    })?;
                    out.insert("anyOf".to_owned(), rewritten);
                }
                "type" => match value {
                    Value::String(_) => {
                        out.insert(key.clone(), value.clone());
                    }
                    Value::Array(types) => {
                        let named: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                        let non_null: Vec<&str> =
                            named.iter().copied().filter(|t| *t != "null").collect();
                        if non_null.len() != 1 || named.len() != types.len() {
                            return Err(self.error(&here, format!("the type list {value}")));
                        }
                        out.insert(key.clone(), Value::String(non_null[0].to_owned()));
                        if named.len() > 1 {
                            out.insert("nullable".to_owned(), Value::Bool(true));
                        }
                    }
                    _ => return Err(self.error(&here, "a `type` that is not a name")),
                },
                "const" => {
                    out.insert("enum".to_owned(), Value::Array(vec![value.clone()]));
                }
                "format"
                    if value
                        .as_str()
                        .is_some_and(|format| GEMINI_FORMATS.contains(&format)) =>
                {
                    out.insert(key.clone(), value.clone());
                }
                other if other != "format" && GEMINI_KEYWORDS.contains(&other) => {
                    out.insert(key.clone(), value.clone());
                }
                // Not in Gemini's subset (`$defs`, `additionalProperties`, `$schema`, ...).
                _ => {}
            }
        }
        self.collapse_nullable(&mut out, path)?;
        Ok(Value::Object(out))
    }

    /// An `anyOf` of `{"type": "null"}` and one schema is that schema, `nullable`.
    fn collapse_nullable(
        &self,
        out: &mut Map<String, Value>,
        path: &str,
    ) -> Result<(), SchemaError> {
        if let Some(Value::Array(branches)) = out.get("anyOf")
            && branches.len() == 2
            && let Some(null_at) = branches.iter().position(is_null_schema)
        {
            let Value::Object(mut inner) = branches[1 - null_at].clone() else {
                return Err(self.error(path, "an `anyOf` branch that is not a schema"));
            };
            inner.insert("nullable".to_owned(), Value::Bool(true));
            out.remove("anyOf");
            for (key, value) in inner {
                out.entry(key).or_insert(value);
            }
        }
        Ok(())
    }

    fn resolve(&self, reference: &str, path: &str) -> Result<Value, SchemaError> {
        let pointer = reference
            .strip_prefix('#')
            .ok_or_else(|| self.error(path, format!("the external reference `{reference}`")))?;
        self.spec
            .input_schema()
            .pointer(pointer)
            .cloned()
            .ok_or_else(|| self.error(path, format!("the dangling reference `{reference}`")))
    }
}

/// Whether a schema is `{"type": "null"}`.
fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

fn is_object_type(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
        _ => map.contains_key("properties"),
    }
}

/// Appends `note` to the schema's description (or makes it the description): what the target
/// cannot say as a keyword, said in words.
fn add_note(out: &mut Map<String, Value>, note: String) {
    let description = match out.get("description").and_then(Value::as_str) {
        Some(text) if !text.is_empty() => format!("{text} {note}"),
        _ => note,
    };
    out.insert("description".to_owned(), Value::String(description));
}

/// A string's `minLength`/`maxLength` (which strict mode does not take) as the equivalent
/// `pattern` (which it does), when the schema has no pattern of its own; else said in the
/// description.
fn length_as_pattern(schema: &Map<String, Value>, out: &mut Map<String, Value>) {
    let min = schema.get("minLength").and_then(Value::as_u64);
    let max = schema.get("maxLength").and_then(Value::as_u64);
    if min.is_none() && max.is_none() {
        return;
    }
    if out.contains_key("pattern") {
        let note = match (min, max) {
            (Some(min), Some(max)) => format!("From {min} to {max} characters."),
            (Some(min), None) => format!("At least {min} characters."),
            (_, max) => format!("At most {} characters.", max.unwrap_or_default()),
        };
        add_note(out, note);
        return;
    }
    let min = min.unwrap_or(0);
    let range = match max {
        Some(max) if max == min => format!("{{{min}}}"),
        Some(max) => format!("{{{min},{max}}}"),
        None => format!("{{{min},}}"),
    };
    out.insert(
        "pattern".to_owned(),
        Value::String(format!("^[\\s\\S]{range}$")),
    );
}

/// Closes an object for strict mode: no extra properties, every property required, those that
/// were optional nullable unless they have a default (`original` is the properties before the
/// rewrite moved their defaults into descriptions): a value the model must then always give,
/// since the decoder reads `null` for such a field as a wrong type.
fn close_object(map: &mut Map<String, Value>, original: Option<&Value>) {
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
    let mut all = Vec::new();
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            all.push(Value::String(name.clone()));
            let has_default = original
                .and_then(|properties| properties.get(name))
                .is_some_and(|property| property.get("default").is_some());
            if !required.contains(name) && !has_default {
                make_nullable(property);
            }
        }
    }
    map.insert("additionalProperties".to_owned(), Value::Bool(false));
    map.insert("required".to_owned(), Value::Array(all));
    if !map.contains_key("properties") {
        map.insert("properties".to_owned(), Value::Object(Map::new()));
    }
}

fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    match map.get_mut("type") {
        Some(Value::String(kind)) if kind != "null" => {
            let kind = kind.clone();
            map.insert("type".to_owned(), json!([kind, "null"]));
            if let Some(Value::Array(values)) = map.get_mut("enum")
                && !values.contains(&Value::Null)
            {
                values.push(Value::Null);
            }
        }
        Some(Value::Array(kinds)) => {
            if !kinds.contains(&json!("null")) {
                kinds.push(json!("null"));
            }
        }
        _ => {
            if map
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(is_null_schema))
            {
                return;
            }
            let description = map.remove("description");
            let inner = Value::Object(std::mem::take(map));
            map.insert("anyOf".to_owned(), json!([inner, {"type": "null"}]));
            if let Some(description) = description {
                map.insert("description".to_owned(), description);
            }
        }
    }
}

/// Whether `oneOf` branches are pairwise exclusive in a way that makes `anyOf` equivalent:
/// distinct constants; objects each requiring a single distinct property (serde's externally
/// tagged enums); objects that all require one property with a distinct constant value
/// (internally and adjacently tagged enums); or constants beside objects of one of those kinds.
fn exclusive(branches: &[Value]) -> bool {
    let mut constants = Vec::new();
    let mut objects = Vec::new();
    for branch in branches {
        if let Some(constant) = branch.get("const") {
            if constants.contains(&constant) {
                return false;
            }
            constants.push(constant);
        } else if let Some(Value::Array(values)) = branch.get("enum") {
            for value in values {
                if constants.contains(&value) {
                    return false;
                }
                constants.push(value);
            }
        } else {
            objects.push(branch);
        }
    }
    // A constant string could equal nothing an object matches, so the two kinds never overlap.
    objects.is_empty() || externally_tagged(&objects) || tagged_by_a_property(&objects)
}

/// Each object closed, with one required property, and no two with the same one.
fn externally_tagged(objects: &[&Value]) -> bool {
    let mut tags = Vec::new();
    for branch in objects {
        let closed = branch.get("additionalProperties") == Some(&Value::Bool(false));
        let Some(Value::Array(required)) = branch.get("required") else {
            return false;
        };
        let [Value::String(tag)] = required.as_slice() else {
            return false;
        };
        let only_property = branch
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| properties.len() == 1);
        if !closed || !only_property || tags.contains(&tag) {
            return false;
        }
        tags.push(tag);
    }
    true
}

/// Some property that every object requires, each with a different single constant value.
fn tagged_by_a_property(objects: &[&Value]) -> bool {
    let constant = |branch: &Value, name: &str| -> Option<Value> {
        let property = branch.get("properties")?.get(name)?;
        let required = branch
            .get("required")?
            .as_array()?
            .iter()
            .any(|required| required == name);
        if !required {
            return None;
        }
        match (property.get("const"), property.get("enum")) {
            (Some(value), _) => Some(value.clone()),
            (None, Some(Value::Array(values))) if values.len() == 1 => Some(values[0].clone()),
            _ => None,
        }
    };
    let Some(first) = objects
        .first()
        .and_then(|branch| branch.get("properties")?.as_object())
    else {
        return false;
    };
    first.keys().any(|name| {
        let mut seen = Vec::new();
        objects.iter().all(|branch| match constant(branch, name) {
            Some(value) if !seen.contains(&value) => {
                seen.push(value);
                true
            }
            _ => false,
        })
    })
}

/// Escapes one JSON Pointer segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
