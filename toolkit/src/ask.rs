//! A running tool's questions to the person: the form of an answer from a Rust type, and the
//! answers a call runs with (the items are public in [`talk`](crate::talk)).

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::bound::echo;
use crate::filter::ContentFilter;

/// The longest key a question may have.
const KEY_LIMIT: usize = 64;

/// A question a call's tool asked and is waiting for: its key (the same in every round of the
/// call), its text for the person, and the form of its answer, a JSON Schema of a flat object
/// (MCP's `requestedSchema`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asked {
    key: String,
    message: String,
    form: Value,
}

impl Asked {
    /// The key the tool gave, which its answer comes under.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The question as the person reads it: masked by the run's content filter, and cut.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same question with its text as a surface that asks shows it (every hidden
    /// character written out: `service::run` gives [`visible`](crate::approval::visible)'s).
    #[cfg(feature = "loop")]
    pub(crate) fn shown_as(&self, message: String) -> Self {
        Self {
            message,
            ..self.clone()
        }
    }

    /// The form of the answer: `{"type": "object", "properties": {..}, "required": [..]}`,
    /// each property a string, a number, an integer, a boolean, a choice among strings, or a
    /// list of such choices.
    pub fn form(&self) -> &Value {
        &self.form
    }
}

/// What the person did with a question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", content = "content", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Answer {
    /// They answered: the form's fields, as JSON.
    Accept(Value),
    /// They chose not to answer.
    Decline,
    /// They dismissed the question.
    Cancel,
}

impl Answer {
    /// An answer of these fields.
    pub fn accept(fields: Value) -> Self {
        Answer::Accept(fields)
    }
}

/// The answers a call has so far, by the key of their question.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answers(BTreeMap<String, Answer>);

impl Answers {
    /// No answers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same answers with `answer` for the question `key` (replacing an earlier one).
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, answer: Answer) -> Self {
        self.insert(key, answer);
        self
    }

    /// Gives the question `key` its answer (replacing an earlier one).
    pub fn insert(&mut self, key: impl Into<String>, answer: Answer) {
        self.0.insert(key.into(), answer);
    }

    /// The answer to the question `key`.
    pub fn get(&self, key: &str) -> Option<&Answer> {
        self.0.get(key)
    }

    /// How many questions are answered.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Why [`ToolContext::ask`](crate::ToolContext::ask) gave no answer. Its text says so to the
/// model, should the tool return it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unanswered {
    /// The question goes to the person; the call runs again with the answer. What the tool
    /// returns now is not seen by anyone but the audit copy.
    #[error("the question \"{0}\" waits for the person's answer")]
    Waiting(String),
    /// The person chose not to answer.
    #[error("the person declined to answer the question \"{0}\"")]
    Declined(String),
    /// The person dismissed the question.
    #[error("the person dismissed the question \"{0}\"")]
    Cancelled(String),
    /// This call runs where no person is asked (a plain invoke, an approved call, an MCP
    /// client that answers no forms).
    #[error("nobody can answer the question \"{0}\" here: this call runs where no person is asked")]
    NobodyToAsk(String),
    /// The question cannot be put as a form: its key or its type is not one a form can ask.
    #[error("the question \"{key}\" cannot be asked: {why}")]
    NotAForm {
        /// The question's key.
        key: String,
        /// What is wrong, and the fix.
        why: String,
    },
}

/// One call's asking: the answers it runs with, and the questions it asked without one.
#[derive(Debug, Default)]
pub(crate) struct Asking {
    answers: Answers,
    asked: Mutex<Vec<Asked>>,
}

impl Asking {
    pub(crate) fn new(answers: Answers) -> Self {
        Self {
            answers,
            asked: Mutex::default(),
        }
    }

    /// The questions asked without an answer, in the order asked (each key once).
    pub(crate) fn take_asked(&self) -> Vec<Asked> {
        std::mem::take(&mut *self.asked.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn ask(&self, asked: Asked) {
        let mut all = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
        if !all.iter().any(|earlier| earlier.key == asked.key) {
            all.push(asked);
        }
    }

    /// The answer to `key` as a `T`, or why there is none (the question noted when the person
    /// is to be asked).
    pub(crate) fn answer<T: DeserializeOwned + JsonSchema>(
        &self,
        filter: Option<&dyn ContentFilter>,
        key: &str,
        message: &str,
    ) -> Result<T, Unanswered> {
        check_key(key)?;
        let form = form_of::<T>().map_err(|why| Unanswered::NotAForm {
            key: key.to_owned(),
            why,
        })?;
        let message = crate::report::bounded(filter, message);
        let asked = |message: String| Asked {
            key: key.to_owned(),
            message,
            form: form.clone(),
        };
        match self.answers.get(key) {
            None => {
                self.ask(asked(message));
                Err(Unanswered::Waiting(key.to_owned()))
            }
            Some(Answer::Accept(fields)) => {
                serde_json::from_value::<T>(fields.clone()).map_err(|error| {
                    let again = format!("That answer was not taken ({error}). {message}");
                    self.ask(asked(crate::report::bounded(None, &again)));
                    Unanswered::Waiting(key.to_owned())
                })
            }
            Some(Answer::Decline) => Err(Unanswered::Declined(key.to_owned())),
            Some(Answer::Cancel) => Err(Unanswered::Cancelled(key.to_owned())),
        }
    }
}

/// A key a question may have: 1 to 64 letters, digits, `_`, `-` or `.`.
fn check_key(key: &str) -> Result<(), Unanswered> {
    let fits = !key.is_empty()
        && key.len() <= KEY_LIMIT
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.'));
    if fits {
        Ok(())
    } else {
        Err(Unanswered::NotAForm {
            key: echo(key),
            why: format!(
                "a key is 1 to {KEY_LIMIT} letters, digits, '_', '-' or '.'; give another key"
            ),
        })
    }
}

/// The form of `T`'s answer: its JSON Schema with sub-schemas inlined, checked to be a flat
/// object whose fields a form can ask (an `Option` field is not required).
pub(crate) fn form_of<T: JsonSchema>() -> Result<Value, String> {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let schema = generator.into_root_schema_for::<T>().to_value();
    let name = std::any::type_name::<T>();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Err(format!(
            "a form is a struct of named fields, and `{name}` is not one; ask for a struct"
        ));
    };
    let mut fields = Map::new();
    for (field, property) in properties {
        let property = field_form(property).ok_or_else(|| {
            format!(
                "field `{field}` of `{name}` is not a string, a number, an integer, a boolean, \
                 an enum of unit variants or a list of one; a form asks only those"
            )
        })?;
        fields.insert(field.clone(), property);
    }
    let mut form = Map::new();
    form.insert("type".to_owned(), "object".into());
    form.insert("properties".to_owned(), Value::Object(fields));
    if let Some(required) = schema.get("required") {
        form.insert("required".to_owned(), required.clone());
    }
    Ok(Value::Object(form))
}

/// One field as a form asks it, or `None` when a form cannot: a primitive type (one, or one and
/// `null` for an `Option`), a choice of strings, or a list of choices.
fn field_form(property: &Value) -> Option<Value> {
    let mut property = property.as_object()?.clone();
    // `Option<T>`: the type without `null` (the field is not required).
    if let Some(Value::Array(types)) = property.get("type") {
        let types: Vec<&Value> = types.iter().filter(|kind| *kind != "null").collect();
        let [kind] = types[..] else { return None };
        let kind = kind.clone();
        property.insert("type".to_owned(), kind);
    }
    if let Some(Value::Array(branches)) = property.get("anyOf") {
        // schemars writes `Option<Enum>` as `anyOf: [enum, null]`.
        let branches: Vec<&Value> = branches.iter().filter(|b| b["type"] != "null").collect();
        let [branch] = branches[..] else { return None };
        let mut inner = branch.as_object()?.clone();
        for key in ["description", "title", "default"] {
            if let Some(value) = property.get(key) {
                inner.insert(key.to_owned(), value.clone());
            }
        }
        return field_form(&Value::Object(inner));
    }
    // A choice of titled values (an enum whose variants have docs or titles): MCP's titled
    // single choice, `oneOf` of `const` and `title`.
    if let Some(choices) = titled_choices(&property) {
        property.remove("oneOf");
        property.insert("type".to_owned(), "string".into());
        property.insert("oneOf".to_owned(), choices);
    }
    // A list of titled values: MCP's titled multiple choice, `items.anyOf`.
    if let Some(items) = property.get("items").and_then(Value::as_object)
        && let Some(choices) = titled_choices(items)
    {
        property.insert("items".to_owned(), serde_json::json!({"anyOf": choices}));
    }
    let primitive = |kind: &Value| {
        matches!(
            kind.as_str(),
            Some("string" | "number" | "integer" | "boolean")
        )
    };
    let choice = |schema: &Map<String, Value>| {
        schema.get("type").is_some_and(|kind| kind == "string")
            && (schema.contains_key("enum") || schema.contains_key("oneOf"))
    };
    let kind = property.get("type")?;
    let fits = if kind == "array" {
        property
            .get("items")
            .and_then(Value::as_object)
            .is_some_and(|items| choice(items) || items.contains_key("anyOf"))
    } else {
        primitive(kind)
    };
    fits.then_some(Value::Object(property))
}

/// The choices of a schema whose `oneOf` branches are each one string (`const`), as MCP's
/// forms write titled choices: each `{"const", "title"}`, its title the branch's title, else its
/// description, else the value itself.
fn titled_choices(schema: &Map<String, Value>) -> Option<Value> {
    let branches = schema.get("oneOf")?.as_array()?;
    let choices: Option<Vec<Value>> = branches
        .iter()
        .map(|branch| {
            let value = branch.get("const")?.as_str()?;
            let title = branch
                .get("title")
                .or_else(|| branch.get("description"))
                .and_then(Value::as_str)
                .unwrap_or(value);
            Some(serde_json::json!({"const": value, "title": title}))
        })
        .collect();
    choices.map(Value::Array)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code, reason = "only the schema is read")]
    struct Contact {
        /// The name.
        name: String,
        age: u32,
        score: Option<f64>,
        verified: bool,
        status: Status,
        tags: Vec<Status>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    #[allow(dead_code, reason = "only the schema is read")]
    enum Status {
        Active,
        Inactive,
    }

    #[test]
    fn a_struct_of_simple_fields_is_a_flat_form() {
        let form = form_of::<Contact>().unwrap();
        assert_eq!(form["type"], "object");
        assert_eq!(
            form["required"],
            json!(["name", "age", "verified", "status", "tags"])
        );
        let properties = &form["properties"];
        assert_eq!(properties["name"]["type"], "string");
        assert_eq!(properties["name"]["description"], "The name.");
        assert_eq!(properties["age"]["type"], "integer");
        assert_eq!(properties["score"]["type"], "number");
        assert_eq!(properties["verified"]["type"], "boolean");
        assert_eq!(properties["status"]["enum"], json!(["active", "inactive"]));
        assert_eq!(
            properties["tags"]["items"]["enum"],
            json!(["active", "inactive"])
        );
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code, reason = "only the schema is read")]
    enum Titled {
        /// First Option
        #[serde(rename = "value1")]
        One,
        #[schemars(title = "Second Option")]
        #[serde(rename = "value2")]
        Two,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code, reason = "only the schema is read")]
    struct Choices {
        single: Titled,
        many: Vec<Titled>,
    }

    #[test]
    fn titled_choices_are_written_as_mcp_forms_write_them() {
        let form = form_of::<Choices>().unwrap();
        let choices = json!([
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
        ]);
        assert_eq!(
            form["properties"]["single"],
            json!({"type": "string", "oneOf": choices})
        );
        assert_eq!(
            form["properties"]["many"],
            json!({"type": "array", "items": {"anyOf": choices}})
        );
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code, reason = "only the schema is read")]
    struct Nested {
        inner: Contact,
    }

    #[test]
    fn what_a_form_cannot_ask_is_refused_naming_the_field() {
        let refused = form_of::<Nested>().unwrap_err();
        assert!(refused.starts_with("field `inner` of `"), "{refused}");
        assert_eq!(
            form_of::<String>().unwrap_err(),
            "a form is a struct of named fields, and `alloc::string::String` is not one; ask for a struct"
        );
    }

    #[test]
    fn an_answer_is_given_once_it_fits_its_form_and_asked_again_when_not() {
        #[derive(Deserialize, JsonSchema, Debug, PartialEq)]
        struct Age {
            age: u8,
        }
        let asking = Asking::new(
            Answers::new()
                .with("ok", Answer::accept(json!({"age": 7})))
                .with("bad", Answer::accept(json!({"age": "seven"})))
                .with("no", Answer::Decline),
        );
        assert_eq!(
            asking.answer::<Age>(None, "ok", "How old?"),
            Ok(Age { age: 7 })
        );
        assert_eq!(
            asking.answer::<Age>(None, "no", "How old?"),
            Err(Unanswered::Declined("no".to_owned()))
        );
        assert_eq!(
            asking.answer::<Age>(None, "bad", "How old?"),
            Err(Unanswered::Waiting("bad".to_owned()))
        );
        assert_eq!(
            asking.answer::<Age>(None, "new", "How old?"),
            Err(Unanswered::Waiting("new".to_owned()))
        );
        // Asked twice, listed once.
        assert!(asking.answer::<Age>(None, "new", "How old?").is_err());
        let asked = asking.take_asked();
        let keys: Vec<&str> = asked.iter().map(Asked::key).collect();
        assert_eq!(keys, ["bad", "new"]);
        assert!(
            asked[0]
                .message()
                .starts_with("That answer was not taken (invalid type: string \"seven\""),
            "{}",
            asked[0].message()
        );
        assert_eq!(asked[1].message(), "How old?");
        assert_eq!(
            asking.answer::<Age>(None, "", "How old?"),
            Err(Unanswered::NotAForm {
                key: String::new(),
                why: "a key is 1 to 64 letters, digits, '_', '-' or '.'; give another key"
                    .to_owned()
            })
        );
    }
}
