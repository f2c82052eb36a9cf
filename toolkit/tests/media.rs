//! Media for the model: what the seam lets through (exact parts and exact notes for the rest),
//! the budgets, the artifact a refused part becomes, and the exact body each wire posts for a
//! result with an image, a PDF, a sound and a text file.

use std::sync::Arc;

use base64::Engine as _;
use toolkit::limits::{CONTENT_LIMIT, MEDIA_BUDGET, MEDIA_PARTS};
use toolkit::provider::{
    AnthropicProvider, GeminiProvider, HttpOptions, OpenAiProvider, OpenAiResponsesProvider,
    ProviderRequest,
};
use toolkit::result::{Media, MediaType};
use toolkit::seam::SecretFilter;
use toolkit::{
    BoundedResult, ChatMessage, Seam, ToolArtifact, ToolCall, ToolContext, ToolRegistry,
    ToolResult, tool,
};
use toolkit_testing::media::{PDF, PNG, WAV};

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Shows the model a chart, its report, its sound.
#[tool(inline)]
fn chart() -> ToolResult {
    ToolResult::text("The chart, its report and its sound:")
        .with_media(Media::png(PNG))
        .with_media(Media::new("application/pdf", PDF).named("reports/q3.pdf"))
        .with_media(Media::new("audio/wav", WAV))
}

/// Shows the model a text file and nothing else.
#[tool(inline)]
fn notes() -> ToolResult {
    ToolResult::text("").with_media(Media::new("text/plain", "first line\nsecond line"))
}

/// Shows the model what the test puts in `parts`: (MIME type, bytes, name).
#[tool(inline)]
fn parts(
    /// The parts.
    parts: Vec<(String, Vec<u8>, Option<String>)>,
    /// The text.
    text: String,
) -> ToolResult {
    parts
        .into_iter()
        .fold(ToolResult::text(text), |result, (mime, bytes, name)| {
            let media = Media::new(mime, bytes);
            result.with_media(match name {
                Some(name) => media.named(name),
                None => media,
            })
        })
}

/// Shows the model PNG images of `sizes` bytes.
#[tool(inline)]
fn sized(
    /// The sizes.
    sizes: Vec<usize>,
) -> ToolResult {
    sizes
        .into_iter()
        .fold(ToolResult::text("Charts:"), |result, size| {
            let mut png = PNG.to_vec();
            png.resize(size, 0);
            result.with_media(Media::png(png))
        })
}

/// Fails, with an image it should not have added.
#[tool(inline)]
fn failing() -> ToolResult {
    ToolResult::error("Error: no chart").with_media(Media::png(PNG))
}

/// Shows people a screenshot of `bytes` bytes.
#[tool(inline)]
fn screenshot(
    /// Its size.
    bytes: usize,
) -> ToolResult {
    let mut png = PNG.to_vec();
    png.resize(bytes, 0);
    ToolResult::text_with(
        "taken",
        [ToolArtifact::media("Screenshot", "image/png", png)],
    )
}

fn seam() -> Seam {
    Seam::new(ToolRegistry::linked().expect("no duplicates"))
}

fn invoke(seam: &Seam, name: &str, arguments: &serde_json::Value) -> BoundedResult {
    let scope = seam.scope(ToolContext::new()).expect("a scope");
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(seam.invoke(&scope, name, &arguments.to_string()))
}

fn with_parts(parts: &[(&str, &[u8], Option<&str>)], text: &str) -> BoundedResult {
    let parts: Vec<_> = parts
        .iter()
        .map(|(mime, bytes, name)| (*mime, bytes.to_vec(), *name))
        .collect();
    invoke(
        &seam(),
        "parts",
        &serde_json::json!({"parts": parts, "text": text}),
    )
}

#[test]
fn what_passes_reaches_the_wire_string_exactly_in_order() {
    let result = invoke(&seam(), "chart", &serde_json::json!({}));
    assert_eq!(result.content(), "The chart, its report and its sound:");
    assert!(result.artifacts().is_empty());
    let shown: Vec<_> = result
        .wire()
        .media()
        .iter()
        .map(|part| (part.media_type(), part.name(), part.file_name(), part.len()))
        .collect();
    assert_eq!(
        shown,
        [
            (MediaType::Png, "media-1.png", "media-1.png", 69),
            (MediaType::Pdf, "reports/q3.pdf", "q3.pdf", 69),
            (MediaType::Wav, "media-3.wav", "media-3.wav", 52),
        ]
    );
    assert_eq!(result.wire().media()[0].base64(), base64(PNG));
    assert_eq!(
        result.wire().media()[0].data_url(),
        format!("data:image/png;base64,{}", base64(PNG))
    );
    // A message's JSON names the media by type and size, never by bytes.
    let message = ChatMessage::tool_result("call_1", result.wire().clone()).expect("an id");
    assert_eq!(
        serde_json::to_string(&message).unwrap(),
        r#"{"role":"tool_result","call_id":"call_1","content":"The chart, its report and its sound:","media":[{"mime_type":"image/png","bytes":69},{"mime_type":"application/pdf","bytes":69},{"mime_type":"audio/wav","bytes":52}]}"#
    );
}

#[test]
fn hostile_media_is_refused_with_an_exact_note_and_kept_for_people_as_a_download() {
    let result = with_parts(
        &[
            ("image/svg+xml", b"<svg onload=alert(1)/>", None),
            ("text/html", b"<script>alert(1)</script>", None),
            ("image/png\u{202e}gnp", PNG, None),
            ("image/png; charset=x", PNG, None),
            ("image/jpeg", PNG, None),
            ("image/bmp", b"BM..", None),
            ("image/png", b"", None),
            ("application/json", b"{\"unclosed\": ", None),
            ("text/plain", b"\xff\xfe not UTF-8", None),
            ("image/png", PNG, Some("a name\nwith a line")),
            ("IMAGE/PNG", PNG, Some("chart.png")),
        ],
        "Here:",
    );
    assert_eq!(
        result.content(),
        "Here:\
         \n[media 1 (image/svg+xml, 22 bytes) was not shown: it was refused: SVG is a document that can run script, not an image a model is shown]\
         \n[media 2 (text/html, 25 bytes) was not shown: it was refused: HTML is a page that can run script, not media a model is shown]\
         \n[media 3 (a type that is not plain, 69 bytes) was not shown: it was refused: its MIME type is not a plain type/subtype]\
         \n[media 4 (a type that is not plain, 69 bytes) was not shown: it was refused: its MIME type is not a plain type/subtype]\
         \n[media 5 (image/jpeg, 69 bytes) was not shown: it was refused: its bytes are not what its MIME type says]\
         \n[media 6 (image/bmp, 4 bytes) was not shown: it was refused: a model is shown only image/png, image/jpeg, image/gif, image/webp, audio/wav, audio/mpeg, application/pdf, text/plain and application/json]\
         \n[media 7 (image/png, 0 bytes) was not shown: it was refused: it is empty]\
         \n[media 8 (application/json, 13 bytes) was not shown: it was refused: its bytes are not what its MIME type says]\
         \n[media 9 (text/plain, 12 bytes) was not shown: it was refused: its bytes are not what its MIME type says]\
         \n[media 10 (image/png, 69 bytes) was not shown: it was refused: its name is not 1 to 128 printable ASCII characters without spaces, quotes or backslashes]"
    );
    // The last part passed, its type as the wire carries it.
    let shown = result.wire().media();
    assert_eq!(shown.len(), 1);
    assert_eq!(
        (shown[0].mime_type(), shown[0].name()),
        ("image/png", "chart.png")
    );
    // Every refused part is an artifact people can only download.
    let kept: Vec<_> = result
        .artifacts()
        .iter()
        .map(|artifact| {
            let (mime, _) = artifact.as_media().expect("media");
            (artifact.label().to_owned(), mime.to_owned())
        })
        .collect();
    let expected: Vec<_> = (1..=10)
        .map(|index| {
            (
                format!("Not shown to the model: media {index} (refused)"),
                "application/octet-stream".to_owned(),
            )
        })
        .collect();
    assert_eq!(kept, expected);
    assert_eq!(
        result.artifacts()[0]
            .as_media()
            .map(|(_, data)| data.to_owned()),
        Some(base64(b"<svg onload=alert(1)/>"))
    );
}

#[test]
fn past_the_budget_a_part_is_not_shown_whole_and_people_get_it_as_it_is() {
    let sizes = [MEDIA_BUDGET - 100, 101, 100];
    let result = invoke(&seam(), "sized", &serde_json::json!({ "sizes": sizes }));
    assert_eq!(
        result.content(),
        "Charts:\n[media 2 (image/png, 101 bytes) was not shown: a tool result shows the model \
         at most 3932160 bytes of media]"
    );
    let lens: Vec<_> = result
        .wire()
        .media()
        .iter()
        .map(toolkit::wire::WireMedia::len)
        .collect();
    assert_eq!(
        lens,
        [MEDIA_BUDGET - 100, 100],
        "the third part still fits, exactly"
    );
    let artifact = &result.artifacts()[0];
    assert_eq!(artifact.label(), "Not shown to the model: media 2");
    let mut second = PNG.to_vec();
    second.resize(101, 0);
    assert_eq!(
        artifact.as_media(),
        Some(("image/png", base64(&second).as_str()))
    );
}

#[test]
fn past_the_count_parts_are_not_shown_and_past_it_again_only_counted() {
    let many: Vec<(&str, &[u8], Option<&str>)> = (0..=MEDIA_PARTS)
        .map(|_| ("image/png", PNG, None))
        .collect();
    let result = with_parts(&many, "Many:");
    assert_eq!(result.wire().media().len(), MEDIA_PARTS);
    assert_eq!(
        result.content(),
        "Many:\n[media 17 (image/png, 69 bytes) was not shown: a tool result shows the model at \
         most 16 media parts]"
    );

    let refused: Vec<(&str, &[u8], Option<&str>)> = (0..40)
        .map(|_| ("image/svg+xml", &b"<svg/>"[..], None))
        .collect();
    let result = with_parts(&refused, "");
    let lines: Vec<&str> = result.content().lines().collect();
    assert_eq!(lines.len(), MEDIA_PARTS + 1);
    assert!(lines[0].starts_with("[media 1 (image/svg+xml, 6 bytes) was not shown"));
    assert_eq!(
        lines[MEDIA_PARTS],
        "[24 more media parts were not shown: a tool result names at most 16 parts it does not show]"
    );
    assert_eq!(result.artifacts().len(), 40, "each is kept for people");
}

#[test]
fn text_files_count_against_the_content_limit_and_pass_the_secret_mask() {
    let half = "x".repeat(CONTENT_LIMIT / 2);
    let result = with_parts(
        &[
            ("text/plain", half.as_bytes(), None),
            ("text/plain", half.as_bytes(), None),
            ("text/plain", b"y", None),
        ],
        "",
    );
    assert_eq!(result.wire().media().len(), 2);
    assert_eq!(
        result.content(),
        "[media 3 (text/plain, 1 bytes) was not shown: a tool result shows the model at most \
         50000 bytes of text files]"
    );

    let secret = "password=hunter2-Very-Secret-9f8e7d";
    let seam = seam().with_content_filter(Arc::new(SecretFilter));
    let parts = [("text/plain", secret.as_bytes().to_vec(), None::<String>)];
    let result = invoke(
        &seam,
        "parts",
        &serde_json::json!({"parts": parts, "text": ""}),
    );
    let text = result.wire().media()[0].text().expect("a text file");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("[REDACTED]"), "{text}");
}

#[test]
fn notes_share_the_content_limit_so_the_text_is_cut_to_make_room() {
    let long = "z".repeat(CONTENT_LIMIT);
    let result = with_parts(&[("image/bmp", b"BM", None)], &long);
    assert_eq!(result.content().len(), CONTENT_LIMIT);
    assert!(result.content().ends_with(
        "\n…[tool result truncated at 50000 bytes]\n[media 1 (image/bmp, 2 bytes) was not shown: it was refused: a model is shown only image/png, image/jpeg, image/gif, image/webp, audio/wav, audio/mpeg, application/pdf, text/plain and application/json]"
    ));
}

#[test]
fn a_failed_result_shows_its_message_only() {
    let result = invoke(&seam(), "failing", &serde_json::json!({}));
    assert!(result.is_error());
    assert_eq!(result.content(), "Error: no chart");
    assert!(result.wire().media().is_empty() && result.artifacts().is_empty());
}

#[test]
fn a_two_megabyte_screenshot_survives_as_an_artifact_and_past_its_budget_is_named() {
    let result = invoke(
        &seam(),
        "screenshot",
        &serde_json::json!({"bytes": 2_000_000}),
    );
    assert_eq!(result.artifacts().len(), 1);
    let (mime, data) = result.artifacts()[0].as_media().expect("media");
    assert_eq!((mime, data.len()), ("image/png", 2_666_668));

    // 13 MB is past 16 MiB of base64 (17 333 336 bytes).
    let result = invoke(
        &seam(),
        "screenshot",
        &serde_json::json!({"bytes": 13_000_000}),
    );
    assert_eq!(result.artifacts().len(), 1);
    assert_eq!(result.artifacts()[0].label(), "Artifacts omitted");
    assert_eq!(
        result.artifacts()[0].as_text(),
        Some(
            "Artifact \"Screenshot\" (media) was dropped. Artifacts are limited to 50000 bytes of \
             serialised JSON per tool result, media artifacts' base64 apart: it is limited to \
             16777216 bytes."
        )
    );
}

/// The conversation of the golden media bodies: a turn of two calls, answered by a chart
/// (text, PNG, PDF, WAV) and a text file.
fn conversation() -> Vec<ChatMessage> {
    let seam = seam();
    vec![
        ChatMessage::system("Describe what the tools show."),
        ChatMessage::user("Chart the quarter."),
        ChatMessage::assistant(
            "",
            vec![
                ToolCall::new("call_1", "chart", "{}"),
                ToolCall::new("call_2", "notes", "{}"),
            ],
        ),
        ChatMessage::tool_result(
            "call_1",
            invoke(&seam, "chart", &serde_json::json!({}))
                .wire()
                .clone(),
        )
        .expect("an id"),
        ChatMessage::tool_result(
            "call_2",
            invoke(&seam, "notes", &serde_json::json!({}))
                .wire()
                .clone(),
        )
        .expect("an id"),
    ]
}

/// The bytes of `body` against `tests/golden/bodies/NAME`; `UPDATE_GOLDEN=1` rewrites the file.
fn golden_body(name: &str, body: &[u8]) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/bodies");
    toolkit_testing::golden::assert_golden(&path.join(name), body);
}

/// Each wire's body for a result with media is exactly its golden file, streamed or not: the
/// image, the PDF and the text file where the wire takes them, and a note for what it does not.
#[test]
fn every_wire_posts_media_exactly_as_its_golden_body_says() {
    let messages = conversation();
    let request = ProviderRequest::new(&messages, &[]);
    let url = "http://127.0.0.1:9";
    let options = HttpOptions::default;
    let chat = OpenAiProvider::new(&format!("{url}/v1"), "m", options()).unwrap();
    let anthropic = AnthropicProvider::new(url, "m", options()).unwrap();
    let responses = OpenAiResponsesProvider::new(&format!("{url}/v1"), "m", options()).unwrap();
    let gemini = GeminiProvider::new(url, "m", options()).unwrap();
    let bodies = [
        (
            "media.openai-chat.json",
            chat.request_body(&request),
            chat.stream_request_body(&request),
        ),
        (
            "media.anthropic.json",
            anthropic.request_body(&request),
            anthropic.stream_request_body(&request),
        ),
        (
            "media.openai-responses.json",
            responses.request_body(&request),
            responses.stream_request_body(&request),
        ),
        (
            "media.gemini.json",
            gemini.request_body(&request),
            gemini.request_body(&request),
        ),
    ];
    for (name, whole, streamed) in bodies {
        let whole = whole.expect("a body");
        golden_body(name, &whole);
        // Streaming changes the stream flags only: the media is the same.
        let streamed: serde_json::Value =
            serde_json::from_slice(&streamed.expect("a body")).unwrap();
        let whole_value: serde_json::Value = serde_json::from_slice(&whole).unwrap();
        let key = ["messages", "input", "contents"]
            .into_iter()
            .find(|key| whole_value.get(key).is_some())
            .expect("a conversation");
        assert_eq!(streamed[key], whole_value[key], "{name}");
        // The PNG's bytes are on every wire, once.
        let png = base64(PNG);
        let text = String::from_utf8(whole).unwrap();
        assert_eq!(text.matches(&png).count(), 1, "{name}");
    }
}
