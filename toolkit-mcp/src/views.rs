//! Artifacts for MCP Apps views (the `io.modelcontextprotocol/ui` extension): what a host that
//! shows views may fetch of a call, and the two reply types that keep it from the model.
//!
//! A client that declares the extension (with [`VIEW_MIME_TYPE`] among its `mimeTypes`) gets,
//! with the reply of a call that made artifacts, a handle in the reply's `_meta` under
//! [`HANDLE_META_KEY`]: the extension has hosts give a reply's `_meta` to the view, not to the
//! model (a host that does otherwise is outside what a server can enforce). The view
//! calls the app-only tool [`ARTIFACTS_TOOL`] with that handle and gets an [`ArtifactsReply`].
//! The handle names one call's artifacts, is a random (version 4) UUID, 122 random bits, and is
//! forgotten after [`HANDLE_LIFETIME`]; the server's store (see [`store`](crate::store)) keeps
//! them, in memory for one instance (where once [`KEPT_CALLS`] newer calls are kept, too: the
//! seam bounds a call's artifacts to [`ARTIFACT_BUDGET`](toolkit::limits::ARTIFACT_BUDGET) bytes,
//! so what is kept stays under that many bytes times [`KEPT_CALLS`]), or in the store a fleet of
//! instances shares, so that any instance answers the view. Clients that did not declare
//! the extension are not offered the tool and get no handle; their calls of the tool are
//! answered as calls of a tool that is not there.

use std::sync::LazyLock;
use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{
    CallToolResult, ClientCapabilities, ContentBlock, MetaObject, Resource, ResourceContents,
};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use toolkit::result::MediaKind;
use toolkit::wire::WireMedia;
use toolkit::{ToolArtifact, WireString};

use crate::store::{BackendError, HANDLES, SharedStore};

/// The MCP Apps extension, as clients and servers name it in `capabilities.extensions`.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an MCP Apps view; a client shows views if it lists it in the extension's
/// `mimeTypes`.
pub const VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The app-only tool a view calls with a handle to get that call's artifacts.
pub const ARTIFACTS_TOOL: &str = "toolkit_artifacts";

/// The key of a model-facing reply's `_meta` that holds `{"handle": .., "count": ..}` when the
/// call made artifacts and the client shows views.
pub const HANDLE_META_KEY: &str = "toolkit/artifacts";

/// How long a handle answers after its call.
pub const HANDLE_LIFETIME: Duration = Duration::from_mins(30);

/// How many calls' artifacts one instance keeps in memory at once; keeping one more forgets
/// the oldest.
pub const KEPT_CALLS: usize = crate::store::MemoryStore::PER_KIND;

/// The URI of the artifacts view, which every tool names (`_meta.ui.resourceUri`) for clients
/// that show views: any tool's result may carry artifacts.
pub const VIEW_URI: &str = "ui://toolkit/artifacts";

/// The artifacts renderer the view runs: tables sortable, pageable, copyable and exported as
/// CSV, texts with line numbers, anything else as a JSON tree, every value as inert text. The
/// playground's inspector serves the same script.
pub const RENDERER_JS: &str = include_str!("../assets/artifacts.js");

const VIEW_TEMPLATE: &str = include_str!("../assets/view.html");
const VIEW_CSS: &str = include_str!("../assets/view.css");
const VIEW_JS: &str = include_str!("../assets/view.js");

/// The view's HTML: the renderer, the view's script and its style inline, under a
/// Content-Security-Policy that allows exactly those two scripts and that style (by their
/// SHA-256), images and sounds from `data:` URLs (media artifacts), and nothing else: no other
/// script, no eval, no request, no form, no frame.
pub fn view_html() -> &'static str {
    static HTML: LazyLock<String> = LazyLock::new(|| {
        let view = VIEW_JS.replace("{{version}}", env!("CARGO_PKG_VERSION"));
        let csp = format!(
            "default-src 'none'; script-src {} {}; style-src {}; img-src data:; media-src data:; \
             base-uri 'none'; form-action 'none'",
            csp_hash(RENDERER_JS),
            csp_hash(&view),
            csp_hash(VIEW_CSS)
        );
        VIEW_TEMPLATE
            .replace("{{csp}}", &csp)
            .replace("{{style}}", VIEW_CSS)
            .replace("{{renderer}}", RENDERER_JS)
            .replace("{{view}}", &view)
    });
    &HTML
}

/// A CSP source that allows exactly this inline script or style.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The `_meta` of the view and of its contents: no domain of any kind may be reached from it
/// (the host's CSP then allows nothing beyond the page), and a border suits it.
fn view_meta() -> MetaObject {
    let mut meta = MetaObject::default();
    meta.0
        .insert("ui".to_owned(), json!({"csp": {}, "prefersBorder": true}));
    meta
}

/// The view as `resources/list` gives it.
pub(crate) fn view_resource() -> Resource {
    Resource::new(VIEW_URI, "artifacts")
        .with_title("Artifacts")
        .with_description(
            "Shows a call's artifacts (tables, texts) to the person using the host; the model \
             never receives them.",
        )
        .with_mime_type(VIEW_MIME_TYPE)
        .with_meta(view_meta())
}

/// The view as `resources/read` gives it.
pub(crate) fn view_contents() -> ResourceContents {
    ResourceContents::text(view_html(), VIEW_URI)
        .with_mime_type(VIEW_MIME_TYPE)
        .with_meta(view_meta())
}

/// A tool's declaration as a client that shows views gets it: naming the view.
pub(crate) fn with_view(tool: rmcp::model::Tool) -> rmcp::model::Tool {
    let mut meta = tool.meta.clone().unwrap_or_default();
    meta.0
        .insert("ui".to_owned(), json!({"resourceUri": VIEW_URI}));
    tool.with_meta(meta)
}

/// Whether these client capabilities declare MCP Apps views.
pub(crate) fn shows_views(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extensions
        .as_ref()
        .and_then(|extensions| extensions.get(UI_EXTENSION))
        .and_then(|settings| settings.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|kind| kind == VIEW_MIME_TYPE))
}

/// The app-only tool's declaration: `visibility: ["app"]` tells hosts to keep it from models.
pub(crate) fn artifacts_tool() -> rmcp::model::Tool {
    let schema = json!({
        "type": "object",
        "properties": {"handle": {
            "type": "string",
            "description": "The handle from the `_meta` of a call's reply.",
        }},
        "required": ["handle"],
        "additionalProperties": false,
    });
    let Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    let mut meta = MetaObject::default();
    meta.0
        .insert("ui".to_owned(), json!({"visibility": ["app"]}));
    rmcp::model::Tool::new(
        ARTIFACTS_TOOL,
        "For the artifacts view only: the artifacts of one call, by the handle in its reply.",
        schema,
    )
    .with_title("Artifacts of a call")
    // It reads what the server keeps, and a handle gives the same artifacts while they are kept.
    .with_annotations(crate::server::annotations(
        toolkit::spec::ToolFlags::new()
            .with_read_only(true)
            .with_idempotent(true),
    ))
    .with_meta(meta)
}

/// What a model-facing `tools/call` reply carries: the wire string, as one text block with
/// `isError` (left out when the result is media alone), then each of its media as an `image`,
/// `audio` or embedded `resource` block, and for a client that shows views the handle of the
/// call's artifacts (in `_meta`). It is made from a [`WireString`] and a handle only: no
/// artifact can go into it.
#[derive(Debug)]
pub struct ModelReply {
    wire: WireString,
    handle: Option<(String, usize)>,
}

impl ModelReply {
    pub(crate) fn new(wire: WireString, handle: Option<(String, usize)>) -> Self {
        Self { wire, handle }
    }

    /// The text the model reads.
    pub fn text(&self) -> &str {
        self.wire.as_str()
    }

    /// The media the model sees after the text.
    pub fn media(&self) -> &[WireMedia] {
        self.wire.media()
    }

    /// Whether the reply is an error.
    pub fn is_error(&self) -> bool {
        self.wire.is_error()
    }

    /// The handle under which a view may fetch the call's artifacts, if it made any and the
    /// client shows views.
    pub fn handle(&self) -> Option<&str> {
        self.handle.as_ref().map(|(handle, _)| handle.as_str())
    }
}

impl From<ModelReply> for CallToolResult {
    fn from(reply: ModelReply) -> Self {
        let media = reply.wire.media();
        let mut content = Vec::with_capacity(1 + media.len());
        // The text, unless the reply is media alone.
        if !reply.wire.is_empty() || media.is_empty() {
            content.push(ContentBlock::text(reply.wire.as_str()));
        }
        content.extend(media.iter().map(media_block));
        let mut result = if reply.wire.is_error() {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        if let Some((handle, count)) = reply.handle {
            let mut meta = MetaObject::default();
            meta.0.insert(
                HANDLE_META_KEY.to_owned(),
                json!({"handle": handle, "count": count}),
            );
            result.meta = Some(meta);
        }
        result
    }
}

/// One media part as MCP content: an image as `image`, a sound as `audio`, a file as an embedded
/// `resource` (a text file as its text, a PDF as its `blob`), under the URI its name gives
/// ([`resource_uri`]).
fn media_block(part: &WireMedia) -> ContentBlock {
    match (part.kind(), part.text()) {
        (MediaKind::Image, _) => ContentBlock::image(part.base64(), part.mime_type()),
        (MediaKind::Audio, _) => ContentBlock::audio(part.base64(), part.mime_type()),
        (_, Some(text)) => ContentBlock::resource(ResourceContents::TextResourceContents {
            uri: resource_uri(part.name()),
            mime_type: Some(part.mime_type().to_owned()),
            text,
            meta: None,
        }),
        (_, None) => ContentBlock::resource(ResourceContents::BlobResourceContents {
            uri: resource_uri(part.name()),
            mime_type: Some(part.mime_type().to_owned()),
            blob: part.base64().to_owned(),
            meta: None,
        }),
    }
}

/// The URI of the resource a media part's name gives: a name that starts with a scheme
/// (`test://report`, `file:///tmp/a.pdf`) as it is, another as `toolkit:media/<name>`. A
/// scheme a host might run or load (`javascript:`, `data:`, `vbscript:`, `blob:`) is not taken
/// as one: such a name is prefixed too.
fn resource_uri(name: &str) -> String {
    const ACTIVE: [&str; 4] = ["javascript", "data", "vbscript", "blob"];
    let scheme = name.split_once(':').map(|(scheme, _)| scheme);
    let has_scheme = scheme.is_some_and(|scheme| {
        scheme.starts_with(|first: char| first.is_ascii_alphabetic())
            && scheme
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'-' | b'.'))
            && !ACTIVE
                .iter()
                .any(|active| scheme.eq_ignore_ascii_case(active))
    });
    if has_scheme {
        name.to_owned()
    } else {
        format!("toolkit:media/{name}")
    }
}

/// The reply of [`ARTIFACTS_TOOL`] to a view: the artifacts of the call a handle names, in
/// `structuredContent` as `{"tool": .., "artifacts": [..]}` (each artifact as it serialises),
/// and one text block that says what it is. Only the server makes one, from a handle it gave.
#[derive(Debug)]
pub struct ArtifactsReply {
    tool: String,
    artifacts: Vec<Value>,
}

impl ArtifactsReply {
    /// The tool whose call made the artifacts.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The artifacts, in the order the call made them, each as it serialises.
    pub fn artifacts(&self) -> &[Value] {
        &self.artifacts
    }
}

impl From<ArtifactsReply> for CallToolResult {
    fn from(reply: ArtifactsReply) -> Self {
        let text = format!(
            "{} artifact(s) of a call of tool \"{}\", for the artifacts view.",
            reply.artifacts.len(),
            toolkit::bound::echo(&reply.tool)
        );
        let structured = json!({"tool": reply.tool, "artifacts": reply.artifacts});
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(structured);
        result
    }
}

/// Keeps a call's artifacts in `store`, as the view will get them: the handle to ask for them
/// with.
pub(crate) async fn keep(
    store: &dyn SharedStore,
    tool: &str,
    artifacts: &[ToolArtifact],
) -> Result<String, BackendError> {
    let handle = uuid::Uuid::new_v4().simple().to_string();
    let kept = serde_json::to_vec(&json!({"tool": tool, "artifacts": artifacts}))
        .map_err(BackendError::new)?;
    store.put(HANDLES, &handle, kept, HANDLE_LIFETIME).await?;
    Ok(handle)
}

/// The artifacts a live handle names, from `store`.
pub(crate) async fn kept(
    store: &dyn SharedStore,
    handle: &str,
) -> Result<Option<ArtifactsReply>, BackendError> {
    /// What [`keep`] wrote. Not an `ArtifactsReply`: no one outside the server may make one
    /// of any JSON.
    #[derive(serde::Deserialize)]
    struct KeptCall {
        tool: String,
        artifacts: Vec<Value>,
    }
    let Some(bytes) = store.get(HANDLES, handle).await? else {
        return Ok(None);
    };
    let KeptCall { tool, artifacts } = serde_json::from_slice(&bytes).map_err(BackendError::new)?;
    Ok(Some(ArtifactsReply { tool, artifacts }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_media_name_is_a_resource_uri_only_with_a_scheme_a_host_will_not_run() {
        assert_eq!(resource_uri("test://embedded"), "test://embedded");
        assert_eq!(resource_uri("file:///tmp/a.pdf"), "file:///tmp/a.pdf");
        assert_eq!(resource_uri("report.pdf"), "toolkit:media/report.pdf");
        assert_eq!(resource_uri("1x:y"), "toolkit:media/1x:y");
        for active in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "data:text/html,x",
            "vbscript:x",
            "blob:x",
        ] {
            assert_eq!(resource_uri(active), format!("toolkit:media/{active}"));
        }
    }

    /// The contents of each `<tag>..</tag>` in `html`, in order.
    fn inline(html: &str, tag: &str) -> Vec<String> {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        html.split(&open)
            .skip(1)
            .map(|rest| rest.split(&close).next().expect("closed").to_owned())
            .collect()
    }

    #[test]
    fn the_views_csp_allows_its_own_two_scripts_and_style_and_nothing_else() {
        let html = view_html();
        let csp = html
            .split("http-equiv=\"Content-Security-Policy\" content=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a CSP meta element");
        let scripts = inline(html, "script");
        let styles = inline(html, "style");
        assert_eq!((scripts.len(), styles.len()), (2, 1));
        assert_eq!(html.matches("<script").count(), 2);
        assert_eq!(html.matches("<style").count(), 1);
        assert_eq!(
            csp,
            format!(
                "default-src 'none'; script-src {} {}; style-src {}; img-src data:; media-src data:; base-uri 'none'; form-action 'none'",
                csp_hash(&scripts[0]),
                csp_hash(&scripts[1]),
                csp_hash(&styles[0])
            )
        );
        assert_eq!(scripts[0], RENDERER_JS);
        assert!(scripts[1].contains(&format!("version: '{}'", env!("CARGO_PKG_VERSION"))));
        assert!(!html.contains("{{"), "every placeholder is filled");
        // A known digest, so the hash is SHA-256 in standard base64 and not something else.
        assert_eq!(
            csp_hash("abc"),
            "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='"
        );
    }

    #[test]
    fn the_views_scripts_never_parse_markup_fetch_or_navigate() {
        for script in [RENDERER_JS, VIEW_JS] {
            for forbidden in [
                "innerHTML",
                "outerHTML",
                "insertAdjacentHTML",
                "document.write",
                "eval(",
                "new Function",
                "fetch(",
                "XMLHttpRequest",
                "location",
                "</script",
            ] {
                assert!(!script.contains(forbidden), "{forbidden}");
            }
        }
        assert!(!VIEW_CSS.contains("</style"));
    }

    #[test]
    fn tools_name_the_view_beside_their_own_meta() {
        let mut meta = MetaObject::default();
        meta.0.insert("other".to_owned(), json!(1));
        let tool = rmcp::model::Tool::new("t", "T.", serde_json::Map::new()).with_meta(meta);
        assert_eq!(
            serde_json::to_value(with_view(tool).meta).expect("JSON"),
            json!({"other": 1, "ui": {"resourceUri": "ui://toolkit/artifacts"}})
        );
    }
}
