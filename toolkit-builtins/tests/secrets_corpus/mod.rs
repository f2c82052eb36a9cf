//! The secret corpus planted in every place a builtin reads, and every tool that can show such
//! text ([`toolkit_builtins::shows_sources`], chosen from the registry) read through on the
//! provider wire, with arguments made from each tool's schema.
//!
//! **Places.** The corpus's texts go in chunks of a few shapes, each chunk in every form a tool
//! lays out: a `.env` file, a log file, a CSV of `form,text` rows, a JSON document, an HTTP
//! page as text and as HTML, a database table, a commit (its files, its message, and its
//! subject, which holds the chunk's first shape), and a change staged and one not yet staged. The shapes written `NAME=value` also go as a name and its
//! value in two cells (a CSV of `name,value` rows, a table's columns) and as a key of a JSON
//! object: layouts that part a name from its value. A chunk fits each tool's default page
//! (`read_file`'s 60 lines, `csv_preview`'s 10 rows, `probe_url`'s 2 000 bytes), so that a call
//! with default counts shows it whole.
//!
//! **Arguments.** A tool's properties are read by name, never by tool:
//! - one *source* property per call (`path`, `paths`, `url`, `table`, `sql`), set to each
//!   planted place of its kind in turn;
//! - *knobs* with values of their own (`query`, `pattern`, `revision`, `from`, `contains`,
//!   `where_equals`, `edits`, booleans), each alone beside the first source, except those that
//!   follow the source, beside every one: `query` is each pointer of a JSON document, and
//!   `query` and `contains` are each word that starts a line of any other source (a file, the
//!   names in a table's rows), so that a search finds every plant; `edits` removes a whole
//!   file's text;
//! - text the model writes itself (`text`, `old`, `new`) is a plain text: a model holds only
//!   what it was shown, so a tool that shows its own argument back shows no source;
//! - counts, offsets and enumerations stay at their defaults: a window that starts inside a
//!   shape is not tried.
//!
//! A tool whose required property has no value here cannot be tried, and
//! [`calls`] says which property to teach it.

#![allow(dead_code)] // each test crate uses a part

#[path = "../git_fixture/mod.rs"]
mod git_fixture;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tempfile::TempDir;
use toolkit::provider::{HttpOptions, OpenAiProvider};
use toolkit::{
    RunRequest, ToolContext, ToolLoopService, ToolRegistry, ToolSpec, recording::Termination,
    seam::SecretFilter,
};
use toolkit_builtins::network::NetworkPolicy;
use toolkit_builtins::records::QueryTimeLimit;
use toolkit_builtins::{Database, WorkspaceRoot, shows_sources};
use toolkit_secrets::corpus::CORPUS;
use toolkit_testing::http::Server;

const KEY_VARIABLE: &str = "TOOLKIT_TEST_PROVIDER_KEY";

/// Most shapes in one chunk.
const CHUNK_SHAPES: usize = 6;
/// Most bytes of a chunk's texts: under `probe_url`'s default 2 000 bytes of body, with room
/// for the HTML around them.
const CHUNK_BYTES: usize = 1_200;

/// A shape written `NAME=value`, read as a name and its value.
pub struct Pair {
    pub name: &'static str,
    pub value: &'static str,
}

/// The shapes of one chunk: indices into [`CORPUS`].
type Chunk = Vec<usize>;

/// The corpus in chunks of at most [`CHUNK_SHAPES`] shapes and [`CHUNK_BYTES`] bytes (a larger
/// shape alone).
fn chunks() -> Vec<Chunk> {
    let mut chunks: Vec<Chunk> = vec![Vec::new()];
    let mut bytes = 0;
    for (index, (_, text, _)) in CORPUS.iter().enumerate() {
        let current = chunks.last_mut().expect("a chunk");
        if !current.is_empty()
            && (current.len() == CHUNK_SHAPES || bytes + text.len() > CHUNK_BYTES)
        {
            chunks.push(Vec::new());
            bytes = 0;
        }
        chunks.last_mut().expect("a chunk").push(index);
        bytes += text.len() + 1;
    }
    chunks
}

/// The shape at `index` as a name and a value, when it is one line `NAME=value` whose value is
/// its secret.
fn pair(index: usize) -> Option<Pair> {
    let (_, text, secret) = CORPUS[index];
    let (name, value) = text.split_once('=')?;
    let is_name = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    (is_name && value == secret && !text.contains('\n')).then_some(Pair { name, value })
}

/// A CSV cell: quoted, its quotes doubled.
fn cell(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Every place one chunk is planted in, as text.
struct ChunkTexts {
    env: String,
    log: String,
    texts_csv: String,
    pairs_csv: Option<String>,
    /// The pairs as columns: a header of their names, a row of their values.
    columns_csv: Option<String>,
    json: String,
    html: String,
}

fn chunk_texts(chunk: &Chunk, number: usize) -> ChunkTexts {
    let texts: Vec<&str> = chunk.iter().map(|&i| CORPUS[i].1).collect();
    let pairs: Vec<Pair> = chunk.iter().filter_map(|&i| pair(i)).collect();
    let log = chunk
        .iter()
        .enumerate()
        .map(|(line, &i)| {
            format!(
                "2024-05-02 09:{number:02}:{line:02} WARN {}",
                CORPUS[i].1.replace('\n', "\\n")
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut texts_csv = String::from("form,text\n");
    for &i in chunk {
        let _ = writeln!(texts_csv, "{},{}", cell(CORPUS[i].0), cell(CORPUS[i].1));
    }
    let pairs_csv = (!pairs.is_empty()).then(|| {
        let mut csv = String::from("name,value\n");
        for pair in &pairs {
            let _ = writeln!(csv, "{},{}", pair.name, pair.value);
        }
        csv
    });
    // An `id` column first: a table of one column has no delimiter, and is two lines of text.
    let columns_csv = (!pairs.is_empty()).then(|| {
        let names: Vec<&str> = pairs.iter().map(|pair| pair.name).collect();
        let values: Vec<&str> = pairs.iter().map(|pair| pair.value).collect();
        format!("id,{}\n1,{}\n", names.join(","), values.join(","))
    });
    let mut document = Map::new();
    document.insert(
        "texts".into(),
        chunk
            .iter()
            .map(|&i| (CORPUS[i].0.to_owned(), json!(CORPUS[i].1)))
            .collect::<Map<_, _>>()
            .into(),
    );
    if !pairs.is_empty() {
        document.insert(
            "env".into(),
            pairs
                .iter()
                .map(|pair| (pair.name.to_owned(), json!(pair.value)))
                .collect::<Map<_, _>>()
                .into(),
        );
    }
    let json = serde_json::to_string_pretty(&Value::Object(document)).expect("json");
    let mut html = String::from("<html><body><h1>Plants</h1>\n");
    for text in &texts {
        let escaped = text
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        let _ = writeln!(html, "<p>{escaped}</p>");
    }
    html.push_str("</body></html>\n");
    ChunkTexts {
        env: texts.join("\n") + "\n",
        log: log + "\n",
        texts_csv,
        pairs_csv,
        columns_csv,
        json,
        html,
    }
}

/// Runs git in `dir` at one fixed date (with the fixture's identity, no user configuration).
fn git(dir: &Path, args: &[&str]) {
    git_fixture::git_at(dir, "2024-05-02T09:00:00Z", args);
}

/// Serves each page at its path (`/page/N` as text, `/html/N` as HTML) to every request,
/// forever; gives the base URL.
fn responder(pages: BTreeMap<String, (String, &'static str)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request_line = String::new();
            let mut reader = BufReader::new(&stream);
            let _ = reader.read_line(&mut request_line);
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|read| read > 2) {
                header.clear();
            }
            let page = request_line
                .split_whitespace()
                .nth(1)
                .and_then(|path| pages.get(path));
            let (status, body, kind) = match page {
                Some((body, kind)) => ("200 OK", body.as_str(), *kind),
                None => ("404 Not Found", "", "text/plain"),
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// The planted places, and the values each source property and knob takes.
pub struct Plants {
    folder: TempDir,
    database: PathBuf,
    /// Workspace files, relative to its root.
    pub files: Vec<String>,
    /// The texts of all of them, joined.
    all_text: String,
    pub pages: Vec<String>,
    pub tables: Vec<String>,
    /// `HEAD`, `HEAD~1`, ... down to the first commit.
    pub revisions: Vec<String>,
}

impl Plants {
    /// The workspace folder.
    pub fn root(&self) -> &Path {
        self.folder.path()
    }
}

/// Plants one chunk in the database: its texts in table `texts_N`, its pairs in `pairs_N`,
/// each row with `shown` 1 (a filter every row matches).
fn plant_tables(
    connection: &rusqlite::Connection,
    chunk: &Chunk,
    number: usize,
    tables: &mut Vec<String>,
) {
    let table = format!("texts_{number}");
    connection
        .execute_batch(&format!(
            "CREATE TABLE {table} (id INTEGER PRIMARY KEY, shown INTEGER, form TEXT, text TEXT);"
        ))
        .expect("table");
    for &i in chunk {
        connection
            .execute(
                &format!("INSERT INTO {table} (shown, form, text) VALUES (1, ?1, ?2)"),
                [CORPUS[i].0, CORPUS[i].1],
            )
            .expect("row");
    }
    tables.push(table);
    let pairs: Vec<Pair> = chunk.iter().filter_map(|&i| pair(i)).collect();
    if !pairs.is_empty() {
        let table = format!("pairs_{number}");
        connection
            .execute_batch(&format!(
                "CREATE TABLE {table} (id INTEGER PRIMARY KEY, shown INTEGER, name TEXT, value TEXT);"
            ))
            .expect("table");
        for pair in pairs {
            connection
                .execute(
                    &format!("INSERT INTO {table} (shown, name, value) VALUES (1, ?1, ?2)"),
                    [pair.name, pair.value],
                )
                .expect("row");
        }
        tables.push(table);
        // The pairs as columns: each value under a column of its name (a name once).
        let mut pairs: Vec<Pair> = chunk.iter().filter_map(|&i| pair(i)).collect();
        let mut seen = BTreeSet::new();
        pairs.retain(|pair| seen.insert(pair.name.to_ascii_lowercase()));
        let table = format!("columns_{number}");
        let names: Vec<String> = pairs
            .iter()
            .map(|pair| format!("\"{}\" TEXT", pair.name))
            .collect();
        let marks: Vec<String> = (1..=pairs.len()).map(|n| format!("?{n}")).collect();
        connection
            .execute_batch(&format!(
                "CREATE TABLE {table} (id INTEGER PRIMARY KEY, shown INTEGER, {});",
                names.join(", ")
            ))
            .expect("table");
        connection
            .execute(
                &format!("INSERT INTO {table} VALUES (NULL, 1, {})", marks.join(", ")),
                rusqlite::params_from_iter(pairs.iter().map(|pair| pair.value)),
            )
            .expect("row");
        tables.push(table);
    }
}

/// Plants every chunk in every place.
pub fn plant() -> Plants {
    let folder = tempfile::tempdir().expect("temp dir");
    let root = folder.path();
    let write = |relative: &str, text: &str| {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folders");
        std::fs::write(path, text).expect("a file");
    };
    let chunks = chunks();
    git(root, &["init", "-q"]);
    // Files a later change fills: committed empty, then written (unstaged) or staged.
    for number in 0..chunks.len() {
        write(&format!("drafts/draft-{number}.env"), "");
    }
    write("README.md", "# Plants\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "Start"]);
    let database = root.join("vault.db");
    let connection = rusqlite::Connection::open(&database).expect("database");
    let mut files = Vec::new();
    let mut pages = BTreeMap::new();
    let mut tables = Vec::new();
    for (number, chunk) in chunks.iter().enumerate() {
        let planted = chunk_texts(chunk, number);
        let mut place = |relative: String, text: &str| {
            write(&relative, text);
            files.push(relative);
        };
        place(format!("plants/secrets-{number}.env"), &planted.env);
        place(format!("plants/app-{number}.log"), &planted.log);
        place(format!("plants/texts-{number}.csv"), &planted.texts_csv);
        if let Some(pairs) = &planted.pairs_csv {
            place(format!("plants/pairs-{number}.csv"), pairs);
        }
        if let Some(columns) = &planted.columns_csv {
            place(format!("plants/columns-{number}.csv"), columns);
        }
        place(format!("plants/config-{number}.json"), &planted.json);
        git(root, &["add", "plants"]);
        git(
            root,
            &[
                "commit",
                "-q",
                "-m",
                &format!(
                    "Plants {number}: {}\n\n{}",
                    planted.env.lines().next().unwrap_or(""),
                    planted.env
                ),
            ],
        );
        pages.insert(
            format!("/page/{number}"),
            (planted.env.clone(), "text/plain"),
        );
        pages.insert(format!("/html/{number}"), (planted.html, "text/html"));
        plant_tables(&connection, chunk, number, &mut tables);
        // A change not staged, and one staged.
        let draft = format!("drafts/draft-{number}.env");
        write(&draft, &planted.env);
        files.push(draft);
        let staged = format!("staged/staged-{number}.env");
        write(&staged, &planted.env);
        git(root, &["add", &staged]);
        files.push(staged);
    }
    let revisions = (0..=chunks.len())
        .map(|back| {
            if back == 0 {
                "HEAD".to_owned()
            } else {
                format!("HEAD~{back}")
            }
        })
        .collect();
    let all_text = files
        .iter()
        .map(|file| std::fs::read_to_string(root.join(file)).expect("a planted file"))
        .collect();
    let url = responder(pages.clone());
    let pages = pages.keys().map(|path| format!("{url}{path}")).collect();
    Plants {
        folder,
        database,
        files,
        all_text,
        pages,
        tables,
        revisions,
    }
}

/// The properties that name what a call reads; one is set per call.
const SOURCES: &[&str] = &["path", "paths", "url", "table", "sql"];

/// The values of source property `name`.
fn source_values(name: &str, plants: &Plants) -> Vec<Value> {
    match name {
        "path" => plants.files.iter().map(|file| json!(file)).collect(),
        "paths" => plants.files.chunks(10).map(|files| json!(files)).collect(),
        "url" => plants.pages.iter().map(|page| json!(page)).collect(),
        "table" => plants.tables.iter().map(|table| json!(table)).collect(),
        "sql" => plants
            .tables
            .iter()
            .map(|table| json!(format!("SELECT * FROM {table}")))
            .collect(),
        _ => Vec::new(),
    }
}

/// The text a source names, when it is a planted file or text.
fn source_text(plants: &Plants, name: &str, value: &Value) -> Option<String> {
    match name {
        "path" => std::fs::read_to_string(plants.root().join(value.as_str()?)).ok(),
        // A table's names (its `form` or `name` column): a search for one finds its row.
        "table" => {
            let connection = rusqlite::Connection::open(&plants.database).ok()?;
            let table = value.as_str()?;
            let mut statement = connection.prepare(&format!("SELECT * FROM {table}")).ok()?;
            let column = statement
                .column_names()
                .position(|name| name == "form" || name == "name")?;
            let names = statement
                .query_map([], |row| row.get::<_, String>(column))
                .ok()?;
            Some(names.flatten().map(|name| name + "\n").collect())
        }
        _ => None,
    }
}

/// The first word (2 to 20 characters) of each line of `text`, each once: texts to search for
/// that find every planted line. A word holding a planted secret is left out: a model writes
/// only what it was shown, and a tool that repeats its query would show the model its own words.
fn first_words(text: &str) -> Vec<Value> {
    let mut words: Vec<String> = Vec::new();
    for line in text.lines() {
        let word: String = line
            .split_whitespace()
            .next()
            .unwrap_or("")
            .chars()
            .take(20)
            .collect();
        let holds_a_secret = CORPUS.iter().any(|(_, _, secret)| word.contains(secret));
        if word.chars().count() >= 2 && !holds_a_secret && !words.contains(&word) {
            words.push(word);
        }
    }
    words.into_iter().map(Value::from).collect()
}

/// Every JSON Pointer to a value of `document`, the whole document first.
fn pointers(document: &Value) -> Vec<String> {
    fn walk(value: &Value, at: &str, out: &mut Vec<String>) {
        out.push(at.to_owned());
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    let escaped = key.replace('~', "~0").replace('/', "~1");
                    walk(inner, &format!("{at}/{escaped}"), out);
                }
            }
            Value::Array(items) => {
                for (index, inner) in items.iter().enumerate() {
                    walk(inner, &format!("{at}/{index}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(document, "", &mut out);
    out
}

/// The values of knob `name` beside a source whose text is `source` (when it has one).
fn knob_values(name: &str, plants: &Plants, source: Option<&str>) -> Vec<Value> {
    match name {
        // A document's own pointers, or words that start its lines.
        "query" | "contains" => {
            let document = source.and_then(|text| serde_json::from_str::<Value>(text).ok());
            match (document, source) {
                (Some(document), _) if name == "query" => {
                    pointers(&document).into_iter().map(Value::from).collect()
                }
                (_, Some(text)) => first_words(text),
                // Beside no source (a search of the whole workspace): every planted file's words.
                _ => first_words(&plants.all_text),
            }
        }
        "pattern" => vec![json!(".+"), json!("*")],
        "revision" | "from" => plants.revisions.iter().map(|r| json!(r)).collect(),
        "where_equals" => vec![json!([{"column": "shown", "value": 1}])],
        "edits" => source
            .filter(|text| !text.is_empty())
            .map(|text| vec![json!([{"old_text": text, "new_text": ""}])])
            .unwrap_or_default(),
        // Text the model writes itself holds only what it was shown: a plain text.
        "text" | "old" | "new" => vec![json!("name,value\nmode,plain\n")],
        // The process's environment holds no plant: an environment tool is tried on `PATH`.
        "name" => vec![json!("PATH")],
        _ => Vec::new(),
    }
}

/// Whether a knob's values depend on the source beside it.
fn follows_the_source(name: &str) -> bool {
    matches!(name, "query" | "contains" | "edits")
}

/// The type a property's schema gives, when it names one (`["string", "null"]` gives
/// `"string"`).
fn kind(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(kind) => Some(kind),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null"),
        _ => None,
    }
}

/// The calls that try `spec`, or the name of a required property no value here fits.
pub fn calls(spec: &ToolSpec, plants: &Plants) -> Result<Vec<Value>, String> {
    let schema = spec.input_schema();
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    let required: BTreeSet<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let sources: Vec<&str> = properties
        .keys()
        .map(String::as_str)
        .filter(|name| SOURCES.contains(name))
        .collect();
    let knobs: Vec<(&str, &Value)> = properties
        .iter()
        .map(|(name, schema)| (name.as_str(), schema))
        .filter(|(name, _)| !SOURCES.contains(name))
        .collect();
    // Each source value alone (a tool whose sources are all optional also runs with none).
    let mut bases: Vec<(Map<String, Value>, Option<String>)> = Vec::new();
    if sources.iter().all(|name| !required.contains(name)) {
        bases.push((Map::new(), None));
    }
    for name in &sources {
        for value in source_values(name, plants) {
            let text = source_text(plants, name, &value);
            let mut arguments = Map::new();
            arguments.insert((*name).to_owned(), value);
            bases.push((arguments, text));
        }
    }
    let mut calls = Vec::new();
    for (position, (base, text)) in bases.iter().enumerate() {
        // Required knobs at their first value.
        let mut arguments = base.clone();
        for (name, _) in &knobs {
            if required.contains(name) {
                let Some(value) = knob_values(name, plants, text.as_deref())
                    .into_iter()
                    .next()
                else {
                    if text.is_none() && follows_the_source(name) {
                        continue;
                    }
                    return Err(format!(
                        "{}: no value for its required property `{name}`",
                        spec.name()
                    ));
                };
                arguments.insert((*name).to_owned(), value);
            }
        }
        if knobs
            .iter()
            .any(|(name, _)| required.contains(name) && !arguments.contains_key(*name))
        {
            continue;
        }
        calls.push(Value::Object(arguments.clone()));
        // Each knob's other values alone: beside every source for the knobs that follow it,
        // beside the first one for the others.
        for &(name, schema) in &knobs {
            if position > 0 && !follows_the_source(name) {
                continue;
            }
            let mut values = knob_values(name, plants, text.as_deref());
            if kind(schema) == Some("boolean") {
                values = vec![json!(true)];
            }
            let first = usize::from(required.contains(name));
            for value in values.into_iter().skip(first) {
                let mut varied = arguments.clone();
                varied.insert((*name).to_owned(), value);
                calls.push(Value::Object(varied));
            }
        }
    }
    if calls.is_empty() {
        return Err(format!("{}: no call could be made", spec.name()));
    }
    Ok(calls)
}

/// The builtins (and tools of the test's own) that can show a source, by name.
pub fn source_tools(registry: &ToolRegistry) -> Vec<String> {
    let mut names: Vec<String> = registry
        .specs()
        .filter(|spec| shows_sources(spec))
        .map(|spec| spec.name().to_owned())
        .collect();
    names.sort();
    names
}

/// What one tool's calls carried.
pub struct Reading {
    pub calls: usize,
    /// Calls that answered with an error.
    pub errors: usize,
    /// The first of them, to say why.
    pub first_error: Option<String>,
    /// The tool results the provider received, as its last request carried them: the wire
    /// less what the model itself sent (a call's arguments may hold a planted text).
    pub results: Vec<String>,
    /// The calls' artifacts, as JSON.
    pub artifacts: String,
}

/// Runs a model that calls `tool` with each of `calls` in one turn, over real HTTP, through
/// `service`.
pub async fn read_through(
    service: &ToolLoopService,
    plants: &Plants,
    tool: &str,
    calls: &[Value],
) -> Reading {
    let tool_calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(n, arguments)| json!({"id": format!("call-{n}"), "type": "function", "function": {"name": tool, "arguments": arguments.to_string()}}))
        .collect();
    let turn = |message: Value| {
        (
            200,
            Vec::new(),
            json!({"choices": [{"message": message}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}),
        )
    };
    let server = Server::start(vec![
        turn(json!({"role": "assistant", "content": null, "tool_calls": tool_calls})),
        turn(json!({"role": "assistant", "content": "read"})),
    ])
    .await;
    let options = HttpOptions::default().with_timeout(Duration::from_mins(1));
    let model =
        OpenAiProvider::from_env_var(KEY_VARIABLE, &format!("{}/v1", server.url), "m", options)
            .expect("provider");
    let context = ToolContext::new()
        .with_admin(true)
        .with_extension(WorkspaceRoot::new(plants.root()))
        .with_extension(Database::new(&plants.database))
        .with_extension(NetworkPolicy::allowing(["127.0.0.1"]))
        // A filtered run's record tools copy the whole database masked, per call, inside the
        // query time limit (5 s by default). The survey is about secrets, not time.
        .with_extension(QueryTimeLimit(Duration::from_mins(1)));
    let request = RunRequest::new("Read the plants.")
        .with_tools([tool])
        .with_options(
            toolkit::RunOptions::default()
                .with_remote_budget(u32::try_from(calls.len()).expect("few calls"))
                // Every call is in one turn, and the turn's calls wait for worker threads
                // together: with the filter, each search_records call copies the database
                // masked, so the last of its hundreds of calls waited past one minute and
                // failed ("Error: tool \"search_records\" failed.": a timeout) with the filter
                // only.
                .with_tool_timeout(Duration::from_mins(10)),
        )
        .with_context(context);
    let result = service.run(&model, request).await.expect("runs");
    assert_eq!(
        result.termination,
        Termination::Answered,
        "{tool}: {}",
        result.content
    );
    let invocations: Vec<&toolkit::recording::ToolInvocation> =
        result.trace.invocations().collect();
    assert_eq!(invocations.len(), calls.len(), "{tool}");
    let artifacts = invocations
        .iter()
        .map(|call| serde_json::to_string(call.artifacts()).expect("json"))
        .collect::<Vec<_>>()
        .join("\n");
    let requests = server.requests();
    let last: Value =
        serde_json::from_slice(&requests.last().expect("requests").body).expect("a JSON request");
    let results: Vec<String> = last["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| {
            message["content"]
                .as_str()
                .expect("text content")
                .to_owned()
        })
        .collect();
    assert_eq!(results.len(), calls.len(), "{tool}: a result per call");
    Reading {
        calls: calls.len(),
        errors: invocations.iter().filter(|call| call.is_error()).count(),
        first_error: invocations
            .iter()
            .find(|call| call.is_error())
            .map(|call| call.content().to_owned()),
        results,
        artifacts,
    }
}

/// The shapes whose secret part one of `texts` holds, as written or JSON-escaped.
pub fn shapes_in(texts: &[String]) -> Vec<&'static str> {
    CORPUS
        .iter()
        .filter(|(_, _, secret)| {
            let escaped = serde_json::to_string(secret).expect("json");
            let escaped = escaped.trim_matches('"');
            texts
                .iter()
                .any(|text| text.contains(secret) || text.contains(escaped))
        })
        .map(|(form, _, _)| *form)
        .collect()
}

/// The lines of `texts` that hold a planted secret part, each with the text it is in.
pub fn leaking_lines(texts: &[String]) -> Vec<String> {
    texts
        .iter()
        .flat_map(|text| text.lines())
        .filter(|line| !shapes_in(&[(*line).to_owned()]).is_empty())
        .map(str::to_owned)
        .collect()
}

/// Each source tool's calls, read through with and without the filter.
pub struct Survey {
    /// By tool: the calls made, the shapes that reached the wire without the filter, the
    /// shapes that reached it with the filter.
    pub tools: BTreeMap<String, ToolFigures>,
    /// Every tool's artifacts with the filter on, joined.
    pub artifacts: String,
}

/// What the corpus found through one tool.
pub struct ToolFigures {
    pub calls: usize,
    pub errors: usize,
    /// Shapes on the wire without the filter.
    pub shown: Vec<&'static str>,
    /// Shapes on the wire with it.
    pub leaked: Vec<&'static str>,
    /// The lines that carried them.
    pub leaking_lines: Vec<String>,
}

/// Plants the corpus and reads it through every source tool of the registry `registry` makes,
/// with and without [`SecretFilter`].
pub async fn survey(registry: fn() -> ToolRegistry) -> Survey {
    let open_service = ToolLoopService::new(registry());
    let filtered_service =
        ToolLoopService::new(registry()).with_content_filter(Arc::new(SecretFilter));
    let registry = registry();
    let plants = plant();
    let mut tools = BTreeMap::new();
    let mut artifacts = String::new();
    for tool in source_tools(&registry) {
        let spec = registry.get(&tool).expect("registered").spec();
        let calls = calls(spec, &plants).unwrap_or_else(|error| panic!("{error}"));
        let open = read_through(&open_service, &plants, &tool, &calls).await;
        let filtered = read_through(&filtered_service, &plants, &tool, &calls).await;
        assert_eq!(
            open.errors, filtered.errors,
            "{tool}: errors differ (the first without the filter: {:?}; with it: {:?})",
            open.first_error, filtered.first_error
        );
        artifacts.push_str(&filtered.artifacts);
        tools.insert(
            tool,
            ToolFigures {
                calls: calls.len(),
                errors: filtered.errors,
                shown: shapes_in(&open.results),
                leaked: shapes_in(&filtered.results),
                leaking_lines: leaking_lines(&filtered.results),
            },
        );
    }
    Survey { tools, artifacts }
}
