//! Your own `#[tool]`s served over MCP: to a host over stdio, or over streamable HTTP with the
//! artifacts view (MCP Apps), where the host's user sees a tool's tables and the model never does.
//!
//! ```text
//! cargo run -p toolkit-mcp --example serve              # serves HTTP, calls it as a host, stops
//! cargo run -p toolkit-mcp --example serve -- stdio     # for a host that starts the command
//! cargo run -p toolkit-mcp --example serve -- http 8931 # http://127.0.0.1:8931/mcp until Ctrl-C
//! ```
//!
//! A reply carries the tool's content only: a host forwards replies to its model. A host that
//! shows views gets, in the reply's `_meta`, a handle by which its view fetches the artifacts
//! from the app-only tool `toolkit_artifacts`. The demo plays that host with rmcp's client.

use std::error::Error;
use std::sync::Arc;

use serde_json::{Value, json};
use toolkit::{Table, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, ToolResult, tool};
use toolkit_mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, JsonObject,
};
use toolkit_mcp::rmcp::{ServiceExt, transport::StreamableHttpClientTransport};
use toolkit_mcp::views::{ARTIFACTS_TOOL, HANDLE_META_KEY, UI_EXTENSION, VIEW_MIME_TYPE};

/// Counts the words of a text: the totals for the model, each word's count in a table.
#[tool(read_only)]
fn count_words(
    /// The text to count.
    text: String,
) -> Result<ToolResult, toolkit::result::TableError> {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_lowercase()).or_default() += 1;
    }
    let total: usize = counts.values().sum();
    let rows = counts.iter().map(|(word, n)| [word.clone(), n.to_string()]);
    let table = Table::from_rows(["word", "count"], rows)?;
    Ok(ToolResult::text_with(
        format!("{total} words, {} distinct", counts.len()),
        [ToolArtifact::table("Words", table)],
    ))
}

/// Says a text in capitals.
#[tool(read_only)]
fn shout(
    /// The text.
    text: String,
) -> String {
    text.to_uppercase()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let service = Arc::new(ToolLoopService::new(ToolRegistry::linked()?));
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["stdio"] => Ok(toolkit_mcp::serve_stdio(service, ToolContext::new()).await?),
        ["http", port] => {
            let bound = |address| eprintln!("serving http://{address}{}", toolkit_mcp::HTTP_PATH);
            Ok(toolkit_mcp::serve_http(service, ToolContext::new(), port.parse()?, bound).await?)
        }
        [] => demo(service).await,
        _ => Err("usage: serve [stdio | http PORT]".into()),
    }
}

/// Serves HTTP on a free port, calls `count_words` as a host that shows views, and stops.
async fn demo(service: Arc<ToolLoopService>) -> Result<(), Box<dyn Error>> {
    let (bound, address) = tokio::sync::oneshot::channel();
    let on_bound = |at| bound.send(at).expect("the demo waits for the address");
    let serving = toolkit_mcp::serve_http(service, ToolContext::new(), 0, on_bound);
    let server = tokio::spawn(serving);
    let url = format!("http://{}{}", address.await?, toolkit_mcp::HTTP_PATH);
    println!("serving {url}");

    // A host that shows MCP Apps views says so in its capabilities.
    let mut capabilities = ClientCapabilities::default();
    let views = json!({ "mimeTypes": [VIEW_MIME_TYPE] });
    capabilities.extensions = Some([(UI_EXTENSION.to_owned(), object(views))].into());
    let host = ClientConfig::new(capabilities, Implementation::new("serve-example", "0.1"));
    let client = host
        .serve(StreamableHttpClientTransport::from_uri(url))
        .await?;
    let tools = client.list_all_tools().await?;
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    println!("tools: {}", names.join(", "));

    let text = "the cat saw the dog and the dog saw the cat";
    let reply = client.call_tool(call("count_words", json!({ "text": text })));
    let reply = serde_json::to_value(reply.await?)?;
    // The host gives `content` (one text block) to its model and `_meta` to the view: no field
    // of the reply holds the table.
    println!("reply: {reply}");

    // What the host's view does with the handle: fetch the artifacts, for the user's eyes only.
    let handle = reply["_meta"][HANDLE_META_KEY]["handle"].clone();
    let fetch = call(ARTIFACTS_TOOL, json!({ "handle": handle }));
    let artifacts = client.call_tool(fetch).await?.structured_content;
    println!("the view gets: {}", artifacts.ok_or("no artifacts")?);

    client.cancel().await?;
    server.abort();
    Ok(())
}

/// A `tools/call` of `name` with `arguments` (a JSON object).
fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(object(arguments))
}

/// The members of a JSON object (none for another value).
fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(members) => members,
        _ => JsonObject::new(),
    }
}
