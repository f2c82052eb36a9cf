//! Tools over JSON documents, from a workspace file or passed in.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

use serde_json::{Map, Value, json};
use toolkit::secrets::SECRET_MASK;
use toolkit::{Table, ToolArtifact, ToolContext, ToolResult, result::Cell, tool};

use crate::shared::{cut, plural, refusal, settle, shown_and_kept, table_error};
use crate::workspace::source_text;

/// Largest document read, in bytes.
const DOCUMENT_LIMIT: u64 = 5 * 1024 * 1024;
/// Longest JSON shown in the content, in characters.
const SHOWN_LIMIT: usize = 4_000;
/// Longest table cell, in characters.
const CELL_LIMIT: usize = 300;
/// Longest query, in bytes.
const QUERY_LIMIT: usize = 1_000;
/// Most columns of a table of items; keys past them are counted, not shown.
const TABLE_COLUMNS: usize = 100;
/// Bytes of cells a table holds at most: twice what the seam keeps of artifacts, so no work is
/// spent on rows that would be cut anyway.
const TABLE_BYTES: usize = 2 * toolkit::limits::ARTIFACT_BUDGET;
/// Most places (object keys and array items at each depth) `json_infer_schema` describes.
pub const SCHEMA_PLACES: usize = 2_000;

fn document(
    context: &ToolContext,
    path: Option<&str>,
    text: Option<String>,
) -> Result<(String, Value), ToolResult> {
    let (label, text) = source_text(context, path, text, DOCUMENT_LIMIT)?;
    let value = serde_json::from_str(&text).map_err(|error| {
        ToolResult::error(format!("Error: {label} is not valid JSON: {error}."))
    })?;
    Ok((label, value))
}

/// The document as the run's content filter passes it, when the filter masks part of it: the
/// filter reads the document pretty-printed (each value beside its key), and each mask that
/// replaced a whole string (quotes and all) becomes the string `"[REDACTED]"`. Where a mask ran
/// past the end of a string, each line the filter changed keeps its key and has its value
/// masked whole; a document that is still not JSON (a filter with another mask than
/// `[REDACTED]`, say) is refused, so that nothing unfiltered is shown.
fn masked_document(
    context: &ToolContext,
    label: &str,
    root: &Value,
) -> Result<Option<Value>, ToolResult> {
    let pretty = serde_json::to_string_pretty(root).unwrap_or_else(|_| root.to_string());
    let Cow::Owned(masked) = context.filter_content(&pretty) else {
        return Ok(None);
    };
    if let Ok(document) = serde_json::from_str(&quote_masks(&masked)) {
        return Ok(Some(document));
    }
    // A mask ran past the end of a string: each line the filter changed shows its whole value
    // masked instead (a pretty-printed line holds one key and one value).
    let lines: Vec<&str> = pretty.lines().collect();
    let masked_lines: Vec<&str> = masked.lines().collect();
    if lines.len() == masked_lines.len() {
        let repaired: Vec<String> = lines
            .iter()
            .zip(&masked_lines)
            .map(|(line, masked)| {
                if line == masked {
                    (*line).to_owned()
                } else {
                    masked_line(line, masked)
                }
            })
            .collect();
        if let Ok(document) = serde_json::from_str(&repaired.join("\n")) {
            return Ok(Some(document));
        }
    }
    Err(ToolResult::error(format!(
        "Error: {label} holds text the run's content filter masks, and masked it is no longer JSON; read it with read_file instead."
    )))
}

/// A line of pretty-printed JSON (`"key": value,`) whose masked form broke it, as the same key
/// (masked whole when the filter changed it) with the value masked whole.
fn masked_line(line: &str, masked: &str) -> String {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let comma = if body.ends_with(',') { "," } else { "" };
    let mut tokens = serde_json::Deserializer::from_str(body).into_iter::<Value>();
    let key = match (tokens.next(), body.get(tokens.byte_offset()..)) {
        (Some(Ok(Value::String(key))), Some(rest)) if rest.trim_start().starts_with(':') => {
            let quoted = Value::String(key).to_string();
            Some(if masked.trim_start().starts_with(&quoted) {
                quoted
            } else {
                format!("\"{SECRET_MASK}\"")
            })
        }
        _ => None,
    };
    // A line that opens an object or an array keeps its opening.
    let opens = [" {", " ["]
        .into_iter()
        .find(|open| body.trim_end_matches(',').ends_with(open.trim()) && body.len() > 1);
    match (key, opens) {
        (Some(key), Some(open)) => format!("{indent}{key}:{open}"),
        (Some(key), None) => format!("{indent}{key}: \"{SECRET_MASK}\"{comma}"),
        (None, _) => format!("{indent}\"{SECRET_MASK}\"{comma}"),
    }
}

/// `text` (JSON with masks) with each mask that stands outside a string quoted.
fn quote_masks(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if !in_string && rest.starts_with(SECRET_MASK) {
            out.push('"');
            out.push_str(SECRET_MASK);
            out.push('"');
            rest = &rest[SECRET_MASK.len()..];
            continue;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// One step of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(i64),
}

/// Reads a query: empty or `$` (the whole document), a JSON Pointer (`/servers/0/host`), or a
/// path (`servers[0].host`, `$.servers[-1]`, `a["key with.dots"]`).
fn steps(query: &str) -> Result<Vec<Step>, String> {
    let query = query.trim();
    if let Some(pointer) = query.strip_prefix('/') {
        return Ok(pointer
            .split('/')
            .map(|token| Step::Key(token.replace("~1", "/").replace("~0", "~")))
            .collect());
    }
    let mut rest = query.strip_prefix('$').unwrap_or(query);
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            rest = after;
            if rest.is_empty() || rest.starts_with('.') || rest.starts_with('[') {
                return Err("a `.` must be followed by a key".to_owned());
            }
            continue;
        }
        if let Some(after) = rest.strip_prefix('[') {
            let close = after
                .find(']')
                .ok_or_else(|| "a `[` without its `]`".to_owned())?;
            let inside = after[..close].trim();
            rest = &after[close + 1..];
            let quoted = inside
                .strip_prefix('"')
                .and_then(|key| key.strip_suffix('"'))
                .or_else(|| {
                    inside
                        .strip_prefix('\'')
                        .and_then(|key| key.strip_suffix('\''))
                });
            if let Some(key) = quoted {
                steps.push(Step::Key(key.to_owned()));
            } else {
                let index = inside
                    .parse::<i64>()
                    .map_err(|_| format!("`[{inside}]` is neither an index nor a quoted key"))?;
                steps.push(Step::Index(index));
            }
            continue;
        }
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        steps.push(Step::Key(rest[..end].to_owned()));
        rest = &rest[end..];
    }
    Ok(steps)
}

/// The query as a path, for messages: `servers[0].host`, `$` for the root.
fn shown_path(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(key) if is_plain_key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Key(key) => {
                let _ = write!(out, "[{}]", Value::String(key.clone()));
            }
            Step::Index(index) => {
                let _ = write!(out, "[{index}]");
            }
        }
    }
    if out.is_empty() { "$".to_owned() } else { out }
}

fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// "a string", "an array of 2 items", ...
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(_) => "a boolean".to_owned(),
        Value::Number(_) => "a number".to_owned(),
        Value::String(_) => "a string".to_owned(),
        Value::Array(items) => format!("an array of {}", plural(items.len(), "item", "items")),
        Value::Object(map) => format!("an object with {}", plural(map.len(), "key", "keys")),
    }
}

/// Walks the steps; on a miss, why, naming the place.
fn walk<'v>(root: &'v Value, steps: &[Step]) -> Result<&'v Value, String> {
    let mut here = root;
    for (done, step) in steps.iter().enumerate() {
        let place = shown_path(&steps[..done]);
        here = match (here, step) {
            (Value::Object(map), Step::Key(key)) => map
                .get(key)
                .ok_or_else(|| format!("{place} has no key \"{key}\""))?,
            (Value::Array(items), Step::Index(index)) => index_into(items, *index)
                .ok_or_else(|| format!("{place} has {}", plural(items.len(), "item", "items")))?,
            // A pointer's number token indexes an array.
            (Value::Array(items), Step::Key(key)) => key
                .parse::<i64>()
                .ok()
                .filter(|index| *index >= 0)
                .and_then(|index| index_into(items, index))
                .ok_or_else(|| {
                    format!(
                        "{place} is an array of {}, and \"{key}\" is not one of its indexes",
                        plural(items.len(), "item", "items")
                    )
                })?,
            (other, Step::Key(_)) => {
                return Err(format!("{place} is {}, not an object", describe(other)));
            }
            (other, Step::Index(_)) => {
                return Err(format!("{place} is {}, not an array", describe(other)));
            }
        };
    }
    Ok(here)
}

fn index_into(items: &[Value], index: i64) -> Option<&Value> {
    let position = if index < 0 {
        let back = usize::try_from(index.unsigned_abs()).ok()?;
        items.len().checked_sub(back)?
    } else {
        usize::try_from(index).ok()?
    };
    items.get(position)
}

/// A cell for a table: `null` as no value, strings as they are, anything else as compact JSON.
fn cell(value: &Value) -> Cell {
    let text = match value {
        Value::Null => return Cell::Null,
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    Cell::Text(cut(&text, CELL_LIMIT))
}

/// Picks a value out of a JSON document (a workspace file or text) with a JSON Pointer
/// (`/servers/0/host`) or a path (`servers[0].host`, `servers[-1]`, `a["key.with.dots"]`; empty
/// or `$` is the whole document). An array of objects also comes as a table, one row per item;
/// an object as a table of its keys.
#[tool(
    read_only,
    idempotent,
    group = "data",
    title = "Picks a value out of a JSON document"
)]
pub fn json_query(
    /// The query.
    query: String,
    /// A JSON file in the workspace (give this or `text`).
    path: Option<String>,
    /// The JSON document itself (give this or `path`).
    text: Option<String>,
    context: &ToolContext,
) -> ToolResult {
    settle(json_query_in(context, &query, path.as_deref(), text))
}

fn json_query_in(
    context: &ToolContext,
    query: &str,
    path: Option<&str>,
    text: Option<String>,
) -> Result<ToolResult, ToolResult> {
    if query.len() > QUERY_LIMIT {
        return Err(ToolResult::error(format!(
            "Error: the query is {} bytes long; the limit is {QUERY_LIMIT}.",
            query.len()
        )));
    }
    let steps = steps(query).map_err(|why| {
        ToolResult::error(format!("Error: cannot read the query \"{query}\": {why}."))
    })?;
    let (label, root) = document(context, path, text)?;
    let masked = masked_document(context, &label, &root)?;
    let where_ = if query.trim().starts_with('/') {
        query.trim().to_owned()
    } else {
        shown_path(&steps)
    };
    // What the filter masked whole (a value become a string, a key renamed) is there all the
    // same: the answer says it is hidden, not that nothing is there, which would be a refusal.
    if let Some(masked) = &masked
        && walk(masked, &steps).is_err()
        && walk(&root, &steps).is_ok()
    {
        return Ok(ToolResult::text(format!(
            "{where_} in {label} is hidden by the run's content filter."
        )));
    }
    shown_and_kept(&root, masked.as_ref(), |root| {
        Ok(query_answer(&label, &where_, &steps, root))
    })
}

/// What `json_query` answers: the value at `steps` of `root`.
fn query_answer(label: &str, where_: &str, steps: &[Step], root: &Value) -> ToolResult {
    let value = match walk(root, steps) {
        Ok(value) => value,
        Err(why) => {
            return refusal(format!(
                "Nothing at {where_} in {label}: {why}. json_infer_schema shows the document's shape."
            ));
        }
    };
    let answer = format!(
        "{where_} in {label} is {}:\n{}",
        describe(value),
        pretty_head(value, SHOWN_LIMIT)
    );
    let table = match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            Some(items_table(items))
        }
        Value::Object(map) if !map.is_empty() => Some(keys_table(map)),
        _ => None,
    };
    match table {
        None => ToolResult::text(answer),
        Some(Ok((label, table))) => {
            ToolResult::text_with(answer, [ToolArtifact::table(label, table)])
        }
        Some(Err(error)) => table_error(&error),
    }
}

/// The first `limit` characters of a value as pretty JSON, with `…` when cut, written no
/// further than that: a large document is never printed whole to show its head.
fn pretty_head(value: &Value, limit: usize) -> String {
    /// Keeps the first bytes written and stops the writer past them.
    struct Head(Vec<u8>, usize);
    impl std::io::Write for Head {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let room = self.1.saturating_sub(self.0.len());
            if room == 0 {
                return Err(std::io::Error::other("enough"));
            }
            let taken = bytes.len().min(room);
            self.0.extend_from_slice(&bytes[..taken]);
            Ok(taken)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // Four bytes per character at most, and one more character to know it was cut.
    let mut head = Head(Vec::new(), limit.saturating_add(1) * 4);
    let _ = serde_json::to_writer_pretty(&mut head, value);
    let text = String::from_utf8_lossy(&head.0);
    cut(&text, limit)
}

/// A table of the items' keys, one row per item: at most [`TABLE_COLUMNS`] columns (the keys
/// in the order first met) and [`TABLE_BYTES`] of cells; the label says what was left out.
/// Its cost is bounded by those limits and one pass over the items, whatever their keys.
fn items_table(items: &[Value]) -> Result<(String, Table), toolkit::result::TableError> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut columns: Vec<String> = Vec::new();
    for item in items {
        if let Value::Object(map) = item {
            for key in map.keys() {
                if seen.insert(key) && columns.len() < TABLE_COLUMNS {
                    columns.push(key.clone());
                }
            }
        }
    }
    let mut table = Table::new(columns.clone());
    let mut bytes = 0;
    for item in items {
        // A key the item lacks has no value, like a `null`.
        let row: Vec<Cell> = columns
            .iter()
            .map(|column| item.get(column).map_or(Cell::Null, cell))
            .collect();
        bytes += row
            .iter()
            .map(|cell| cell.as_text().map_or(0, str::len))
            .sum::<usize>()
            + row.len();
        table.push_row(row)?;
        if bytes > TABLE_BYTES {
            break;
        }
    }
    let mut label = "Items".to_owned();
    let (rows, keys) = (table.rows().len(), seen.len());
    if rows < items.len() || keys > columns.len() {
        let _ = write!(
            label,
            " (the first {rows} of {} items, {} of {} keys)",
            items.len(),
            columns.len(),
            keys
        );
    }
    Ok((label, table))
}

/// A table of an object's keys, their types and values, within [`TABLE_BYTES`] of cells.
fn keys_table(map: &Map<String, Value>) -> Result<(String, Table), toolkit::result::TableError> {
    let mut table = Table::new(["key", "type", "value"]);
    let mut bytes = 0;
    for (key, value) in map {
        let kind = type_name(value);
        let value = cell(value);
        bytes += key.len() + kind.len() + value.as_text().map_or(0, str::len) + 3;
        let row = [Cell::from(key), Cell::from(kind), value];
        table.push_row(row)?;
        if bytes > TABLE_BYTES {
            break;
        }
    }
    let label = if table.rows().len() < map.len() {
        format!("Keys (the first {} of {})", table.rows().len(), map.len())
    } else {
        "Keys".to_owned()
    };
    Ok((label, table))
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// What was seen at one place of a document.
#[derive(Debug, Default)]
struct Shape {
    seen: usize,
    types: BTreeSet<&'static str>,
    objects: usize,
    properties: BTreeMap<String, Shape>,
    items: Option<Box<Shape>>,
    example: Option<String>,
}

/// More places than [`SCHEMA_PLACES`].
struct TooManyPlaces;

impl Shape {
    /// Records `value` here; `places` counts the places made so far, and making one past
    /// [`SCHEMA_PLACES`] stops the walk.
    fn observe(&mut self, value: &Value, places: &mut usize) -> Result<(), TooManyPlaces> {
        self.seen += 1;
        self.types.insert(type_name(value));
        match value {
            Value::Object(map) => {
                self.objects += 1;
                for (key, child) in map {
                    if !self.properties.contains_key(key) {
                        *places += 1;
                        if *places > SCHEMA_PLACES {
                            return Err(TooManyPlaces);
                        }
                    }
                    self.properties
                        .entry(key.clone())
                        .or_default()
                        .observe(child, places)?;
                }
            }
            Value::Array(items) => {
                if self.items.is_none() {
                    *places += 1;
                    if *places > SCHEMA_PLACES {
                        return Err(TooManyPlaces);
                    }
                }
                let shape = self.items.get_or_insert_with(Box::default);
                for item in items {
                    shape.observe(item, places)?;
                }
            }
            scalar => {
                if self.example.is_none() {
                    self.example = Some(cut(&scalar.to_string(), 60));
                }
            }
        }
        Ok(())
    }

    /// The JSON types, an integer that is sometimes fractional counted as a number.
    fn type_names(&self) -> Vec<&'static str> {
        let mut types = self.types.clone();
        if types.contains("number") {
            types.remove("integer");
        }
        types.into_iter().collect()
    }

    fn schema(&self) -> Value {
        let types = self.type_names();
        let mut schema = Map::new();
        match types.as_slice() {
            [] => {}
            [only] => {
                schema.insert("type".to_owned(), json!(only));
            }
            many => {
                schema.insert("type".to_owned(), json!(many));
            }
        }
        if self.objects > 0 {
            let properties: Map<String, Value> = self
                .properties
                .iter()
                .map(|(key, shape)| (key.clone(), shape.schema()))
                .collect();
            let required: Vec<&String> = self
                .properties
                .iter()
                .filter(|(_, shape)| shape.seen == self.objects)
                .map(|(key, _)| key)
                .collect();
            schema.insert("properties".to_owned(), Value::Object(properties));
            if !required.is_empty() {
                schema.insert("required".to_owned(), json!(required));
            }
        }
        if let Some(items) = &self.items
            && items.seen > 0
        {
            schema.insert("items".to_owned(), items.schema());
        }
        Value::Object(schema)
    }

    /// One row per place, parents first: path, types, times seen, required, example.
    fn rows(&self, path: &str, required: &str, rows: &mut Vec<[String; 5]>) {
        rows.push([
            path.to_owned(),
            self.type_names().join(" | "),
            self.seen.to_string(),
            required.to_owned(),
            self.example.clone().unwrap_or_default(),
        ]);
        for (key, shape) in &self.properties {
            let child = if is_plain_key(key) {
                format!("{path}.{key}")
            } else {
                format!("{path}[{}]", Value::String(key.clone()))
            };
            let required = if shape.seen == self.objects {
                "yes"
            } else {
                "no"
            };
            shape.rows(&child, required, rows);
        }
        if let Some(items) = &self.items
            && items.seen > 0
        {
            items.rows(&format!("{path}[]"), "", rows);
        }
    }
}

/// Infers a JSON Schema from a JSON document (a workspace file or text): the types seen at each
/// place, the properties of objects (required when every object has them) and the items of
/// arrays. The fields also come as a table, one row per place.
#[tool(read_only, idempotent, group = "data")]
pub fn json_infer_schema(
    /// A JSON file in the workspace (give this or `text`).
    path: Option<String>,
    /// The JSON document itself (give this or `path`).
    text: Option<String>,
    context: &ToolContext,
) -> ToolResult {
    settle(json_infer_schema_in(context, path.as_deref(), text))
}

fn json_infer_schema_in(
    context: &ToolContext,
    path: Option<&str>,
    text: Option<String>,
) -> Result<ToolResult, ToolResult> {
    let (label, root) = document(context, path, text)?;
    let masked = masked_document(context, &label, &root)?;
    shown_and_kept(&root, masked.as_ref(), |root| schema_answer(&label, root))
}

/// What `json_infer_schema` answers for `root`.
fn schema_answer(label: &str, root: &Value) -> Result<ToolResult, ToolResult> {
    let mut shape = Shape::default();
    if shape.observe(root, &mut 1).is_err() {
        return Err(ToolResult::error(format!(
            "Error: {label} has more than {SCHEMA_PLACES} places (object keys and array items at every depth); json_infer_schema describes at most {SCHEMA_PLACES}."
        )));
    }
    let mut schema = shape.schema();
    if let Value::Object(map) = &mut schema {
        map.insert(
            "$schema".to_owned(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
    }
    let pretty = serde_json::to_string_pretty(&schema).unwrap_or_else(|_| schema.to_string());
    let mut rows = Vec::new();
    shape.rows("$", "", &mut rows);
    let table = Table::from_rows(["path", "type", "seen", "required", "example"], rows)
        .map_err(|error| table_error(&error))?;
    let places = table.rows().len();
    Ok(ToolResult::text_with(
        format!(
            "Schema of {label} ({}):\n{}",
            plural(places, "place", "places"),
            cut(&pretty, SHOWN_LIMIT * 2)
        ),
        [ToolArtifact::table("Fields", table)],
    ))
}
