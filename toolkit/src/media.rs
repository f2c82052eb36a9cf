//! Media a tool shows the model: an image, a sound or a file, checked and bounded by the seam.
//! The types are re-exported by `result` ([`Media`] and what the seam says of it) and `wire`
//! ([`WireMedia`]).

use std::fmt::{self, Write as _};
use std::sync::Arc;

use base64::Engine as _;

use crate::filter::ContentFilter;
use crate::limits::{CONTENT_LIMIT, MEDIA_BUDGET, MEDIA_PARTS};

/// Bytes a tool asks to show the model: an image, a sound or a file of a MIME type.
///
/// A tool adds it to its result ([`ToolResult::with_media`](crate::ToolResult::with_media)).
/// Nothing is checked when it is made: the seam checks the type ([`MediaType`]) and the bytes of
/// every part, bounds them ([`MEDIA_BUDGET`], [`MEDIA_PARTS`]), and gives the parts that pass as
/// [`WireMedia`](crate::wire::WireMedia) inside the result's [`WireString`](crate::WireString),
/// the only form a tool-result message carries. A part the seam does not pass reaches the model
/// only as a note in the text, and people as an artifact. Its `Debug` shows the type and the
/// size, never the bytes.
///
/// ```standalone_crate
/// use toolkit::result::{Media, MediaType};
/// use toolkit::{tool, Seam, ToolContext, ToolRegistry, ToolResult};
///
/// const PNG: &[u8] = b"\x89PNG\r\n\x1a\n and the rest of the image";
///
/// /// Draws the chart.
/// #[tool]
/// fn chart() -> ToolResult {
///     ToolResult::text("The chart:").with_media(Media::png(PNG))
/// }
///
/// /// Draws the logo.
/// #[tool]
/// fn logo() -> ToolResult {
///     ToolResult::text("The logo:").with_media(Media::new("image/svg+xml", "<svg/>"))
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let seam = Seam::new(ToolRegistry::linked().unwrap());
/// let scope = seam.scope(ToolContext::new()).unwrap();
/// let result = seam.invoke(&scope, "chart", "{}").await;
/// assert_eq!(result.content(), "The chart:");
/// assert_eq!(result.wire().media()[0].media_type(), MediaType::Png);
///
/// // An SVG is refused: the model reads why, people can download it.
/// let result = seam.invoke(&scope, "logo", "{}").await;
/// assert_eq!(
///     result.content(),
///     "The logo:\n[media 1 (image/svg+xml, 6 bytes) was not shown: it was refused: \
///      SVG is a document that can run script, not an image a model is shown]"
/// );
/// assert!(result.wire().media().is_empty());
/// let (mime_type, _) = result.artifacts()[0].as_media().unwrap();
/// assert_eq!(mime_type, "application/octet-stream");
/// # });
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Media {
    mime_type: String,
    bytes: Vec<u8>,
    name: Option<String>,
}

impl Media {
    /// `bytes` of `mime_type`, for the model to see.
    pub fn new(mime_type: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            mime_type: mime_type.into(),
            bytes: bytes.into(),
            name: None,
        }
    }

    /// A PNG image.
    pub fn png(bytes: impl Into<Vec<u8>>) -> Self {
        Self::new("image/png", bytes)
    }

    /// A JPEG image.
    pub fn jpeg(bytes: impl Into<Vec<u8>>) -> Self {
        Self::new("image/jpeg", bytes)
    }

    /// Names the part: a file's name where a wire takes one (the Responses API's `filename`), and
    /// over MCP the URI of the embedded resource a file becomes (a name with a scheme, such as
    /// `test://report`, is the URI as it is; another name is `toolkit:media/<name>`). Without a
    /// name a part is `media-<n>.<extension>`, `n` counting the call's parts from 1.
    ///
    /// A name must be 1 to 128 printable ASCII characters, without spaces, quotes or
    /// backslashes; the seam refuses a part with another.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The MIME type, as the tool gave it.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The name, if the tool gave one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

impl fmt::Debug for Media {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Media")
            .field("mime_type", &self.mime_type)
            .field("bytes", &self.bytes.len())
            .field("name", &self.name)
            .finish()
    }
}

/// What a part is to a wire: each wire puts images, sounds and files in their own places.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MediaKind {
    /// `image/png`, `image/jpeg`, `image/gif`, `image/webp`.
    Image,
    /// `audio/wav`, `audio/mpeg`.
    Audio,
    /// `application/pdf`, `text/plain`, `application/json`.
    File,
}

/// A MIME type the seam shows a model, each with the check its bytes must pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MediaType {
    /// `image/png`: starts with the PNG signature.
    Png,
    /// `image/jpeg` (or `image/jpg`): starts with `FF D8 FF`.
    Jpeg,
    /// `image/gif`: starts with `GIF87a` or `GIF89a`.
    Gif,
    /// `image/webp`: a RIFF file of form `WEBP`.
    Webp,
    /// `audio/wav` (or `audio/x-wav`, `audio/wave`): a RIFF file of form `WAVE`.
    Wav,
    /// `audio/mpeg` (or `audio/mp3`): an ID3 tag or an MPEG frame header first.
    Mpeg,
    /// `application/pdf`: starts with `%PDF-`.
    Pdf,
    /// `text/plain`: UTF-8.
    Text,
    /// `application/json`: one JSON value in UTF-8.
    Json,
}

impl MediaType {
    /// Every type, in the order of the list an error names.
    pub const ALL: [MediaType; 9] = [
        MediaType::Png,
        MediaType::Jpeg,
        MediaType::Gif,
        MediaType::Webp,
        MediaType::Wav,
        MediaType::Mpeg,
        MediaType::Pdf,
        MediaType::Text,
        MediaType::Json,
    ];

    /// The MIME type wires carry.
    pub fn mime_type(self) -> &'static str {
        match self {
            MediaType::Png => "image/png",
            MediaType::Jpeg => "image/jpeg",
            MediaType::Gif => "image/gif",
            MediaType::Webp => "image/webp",
            MediaType::Wav => "audio/wav",
            MediaType::Mpeg => "audio/mpeg",
            MediaType::Pdf => "application/pdf",
            MediaType::Text => "text/plain",
            MediaType::Json => "application/json",
        }
    }

    /// Image, sound or file.
    pub fn kind(self) -> MediaKind {
        match self {
            MediaType::Png | MediaType::Jpeg | MediaType::Gif | MediaType::Webp => MediaKind::Image,
            MediaType::Wav | MediaType::Mpeg => MediaKind::Audio,
            MediaType::Pdf | MediaType::Text | MediaType::Json => MediaKind::File,
        }
    }

    /// Whether the model reads it as text (`text/plain`, `application/json`): such parts count
    /// against [`CONTENT_LIMIT`] rather than [`MEDIA_BUDGET`].
    pub fn is_text(self) -> bool {
        matches!(self, MediaType::Text | MediaType::Json)
    }

    /// The extension of a part's default name.
    pub fn extension(self) -> &'static str {
        match self {
            MediaType::Png => "png",
            MediaType::Jpeg => "jpg",
            MediaType::Gif => "gif",
            MediaType::Webp => "webp",
            MediaType::Wav => "wav",
            MediaType::Mpeg => "mp3",
            MediaType::Pdf => "pdf",
            MediaType::Text => "txt",
            MediaType::Json => "json",
        }
    }

    /// The type a MIME type names, or why a model is not shown it.
    ///
    /// ```
    /// use toolkit::result::{MediaRefusal, MediaType};
    ///
    /// assert_eq!(MediaType::parse("IMAGE/PNG"), Ok(MediaType::Png));
    /// assert_eq!(MediaType::parse("image/svg+xml"), Err(MediaRefusal::Svg));
    /// assert_eq!(MediaType::parse("image/png; q=1"), Err(MediaRefusal::NotAToken));
    /// ```
    pub fn parse(mime_type: &str) -> Result<Self, MediaRefusal> {
        let plain = mime_type.split_once('/').is_some_and(|(kind, subtype)| {
            is_token(kind) && is_token(subtype) && mime_type.len() <= 127
        });
        if !plain {
            return Err(MediaRefusal::NotAToken);
        }
        let lower = mime_type.to_ascii_lowercase();
        Ok(match lower.as_str() {
            "image/png" => MediaType::Png,
            "image/jpeg" | "image/jpg" => MediaType::Jpeg,
            "image/gif" => MediaType::Gif,
            "image/webp" => MediaType::Webp,
            "audio/wav" | "audio/x-wav" | "audio/wave" => MediaType::Wav,
            "audio/mpeg" | "audio/mp3" => MediaType::Mpeg,
            "application/pdf" => MediaType::Pdf,
            "text/plain" => MediaType::Text,
            "application/json" => MediaType::Json,
            "image/svg+xml" => return Err(MediaRefusal::Svg),
            "text/html" | "application/xhtml+xml" => return Err(MediaRefusal::Html),
            _ => return Err(MediaRefusal::Unsupported),
        })
    }

    /// Whether `bytes` are what this type says, by their first bytes (or, for text, by being
    /// UTF-8, and for JSON, by parsing).
    pub fn check(self, bytes: &[u8]) -> Result<(), MediaRefusal> {
        let riff =
            |form: &[u8]| bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == form;
        let matches = match self {
            MediaType::Png => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            MediaType::Jpeg => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
            MediaType::Gif => bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a"),
            MediaType::Webp => riff(b"WEBP"),
            MediaType::Wav => riff(b"WAVE"),
            MediaType::Mpeg => {
                bytes.starts_with(b"ID3")
                    || (bytes.len() >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0)
            }
            MediaType::Pdf => bytes.starts_with(b"%PDF-"),
            MediaType::Text => std::str::from_utf8(bytes).is_ok(),
            MediaType::Json => serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok(),
        };
        if matches {
            Ok(())
        } else {
            Err(MediaRefusal::NotWhatItSays)
        }
    }
}

/// RFC 9110's token: what a MIME type's halves are made of.
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte))
}

/// Why the seam refused a part as model content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum MediaRefusal {
    /// The MIME type is not `type/subtype` of plain tokens (parameters, spaces, controls).
    #[error("its MIME type is not a plain type/subtype")]
    NotAToken,
    /// `image/svg+xml`: a document that runs script, not a picture.
    #[error("SVG is a document that can run script, not an image a model is shown")]
    Svg,
    /// `text/html` or `application/xhtml+xml`.
    #[error("HTML is a page that can run script, not media a model is shown")]
    Html,
    /// A type no wire shows a model.
    #[error(
        "a model is shown only image/png, image/jpeg, image/gif, image/webp, audio/wav, audio/mpeg, application/pdf, text/plain and application/json"
    )]
    Unsupported,
    /// The bytes are not of the type they claim.
    #[error("its bytes are not what its MIME type says")]
    NotWhatItSays,
    /// No bytes at all.
    #[error("it is empty")]
    Empty,
    /// The name is not 1 to 128 printable ASCII characters without spaces, quotes or backslashes.
    #[error(
        "its name is not 1 to 128 printable ASCII characters without spaces, quotes or backslashes"
    )]
    BadName,
}

/// Media that passed the seam: a checked type, bytes that are what it says, within the budget.
///
/// Only the seam makes one (and the opening of a verified token, which checks again); it has no
/// public constructor, so a tool-result message carries only media the seam let through. Clones
/// share the bytes. Its `Debug` shows the type, the size and the name, never the bytes.
///
/// ```compile_fail
/// let forged = toolkit::wire::WireMedia::from(vec![0x89_u8, b'P', b'N', b'G']);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct WireMedia {
    media_type: MediaType,
    base64: Arc<str>,
    len: usize,
    name: Arc<str>,
}

impl WireMedia {
    /// Checks one part; `index` counts the call's parts from 1 (for the default name).
    /// Checks one part's type, bytes and name, without encoding it: its type, and its name
    /// (`index` counts the call's parts from 1, for the default name).
    fn check(media: &Media, index: usize) -> Result<(MediaType, String), MediaRefusal> {
        let media_type = MediaType::parse(&media.mime_type)?;
        if media.bytes.is_empty() {
            return Err(MediaRefusal::Empty);
        }
        media_type.check(&media.bytes)?;
        let name = match &media.name {
            Some(name) if is_plain_name(name) => name.clone(),
            Some(_) => return Err(MediaRefusal::BadName),
            None => format!("media-{index}.{}", media_type.extension()),
        };
        Ok((media_type, name))
    }

    /// A checked part, its bytes encoded once for every wire.
    fn encoded(media_type: MediaType, name: String, bytes: &[u8]) -> Self {
        Self {
            media_type,
            base64: base64::engine::general_purpose::STANDARD
                .encode(bytes)
                .into(),
            len: bytes.len(),
            name: name.into(),
        }
    }

    /// The checked type.
    pub fn media_type(&self) -> MediaType {
        self.media_type
    }

    /// The MIME type wires carry.
    pub fn mime_type(&self) -> &'static str {
        self.media_type.mime_type()
    }

    /// Image, sound or file.
    pub fn kind(&self) -> MediaKind {
        self.media_type.kind()
    }

    /// The bytes in standard base64, as every wire carries them.
    pub fn base64(&self) -> &str {
        &self.base64
    }

    /// How many bytes (before base64).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never: the seam refuses empty media.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The part's name (see [`Media::named`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The last segment of the name: what a wire that takes a file name gets.
    pub fn file_name(&self) -> &str {
        self.name.rsplit('/').next().unwrap_or(&self.name)
    }

    /// A `data:` URL of the bytes, as the OpenAI wires take images and files.
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime_type(), self.base64)
    }

    /// A PNG part whose bytes are not a PNG, as the seam never makes: for the tests of what
    /// checks media again.
    #[cfg(all(test, feature = "loop"))]
    pub(crate) fn forged_for_tests(bytes: &[u8]) -> Self {
        Self {
            media_type: MediaType::Png,
            base64: base64::engine::general_purpose::STANDARD
                .encode(bytes)
                .into(),
            len: bytes.len(),
            name: "forged.png".into(),
        }
    }

    /// The bytes as text, for a text type (`text/plain`, `application/json`).
    pub fn text(&self) -> Option<String> {
        if !self.media_type.is_text() {
            return None;
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(self.base64.as_bytes())
            .ok()?;
        String::from_utf8(bytes).ok()
    }
}

impl fmt::Debug for WireMedia {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WireMedia")
            .field("mime_type", &self.mime_type())
            .field("bytes", &self.len)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

fn is_plain_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_graphic() && !matches!(byte, b'"' | b'\'' | b'\\'))
}

/// What the seam made of a result's media: the parts the model sees, the notes the model
/// reads about the others, and the others for people: a label, a MIME type and the bytes of
/// each, which the seam makes media artifacts.
#[derive(Debug, Default)]
pub(crate) struct BoundedMedia {
    pub(crate) shown: Vec<WireMedia>,
    pub(crate) notes: String,
    pub(crate) not_shown: Vec<(String, String, Vec<u8>)>,
}

/// Label of the artifact that keeps a part the model was not shown; `{n}` is its index.
const NOT_SHOWN_LABEL: &str = "Not shown to the model: media";

/// Checks and bounds a result's media, in order: at most [`MEDIA_PARTS`] parts, images, sounds
/// and PDFs within [`MEDIA_BUDGET`] bytes together, text files within [`CONTENT_LIMIT`] bytes
/// together. A part that does not pass is not shown, whole: the model reads one note line for
/// it, and people get it as an artifact (refused parts as `application/octet-stream`, so a page
/// offers them only as a download).
///
/// With a content filter (the secret mask), a text file is filtered as content is before it is
/// checked: the model reads it as it reads content.
pub(crate) fn bound_media(media: Vec<Media>, filter: Option<&dyn ContentFilter>) -> BoundedMedia {
    let mut bounded = BoundedMedia::default();
    let mut media_used = 0_usize;
    let mut text_used = 0_usize;
    let mut noted = 0_usize;
    for (offset, mut part) in media.into_iter().enumerate() {
        let index = offset + 1;
        if let Some(filter) = filter {
            filter_text(&mut part, filter);
        }
        // Parts past a bound are never encoded: only what the model is shown is.
        let why = match WireMedia::check(&part, index) {
            Ok(_) if bounded.shown.len() == MEDIA_PARTS => Err(format!(
                "a tool result shows the model at most {MEDIA_PARTS} media parts"
            )),
            Ok((media_type, name)) => {
                let (used, limit, what) = if media_type.is_text() {
                    (&mut text_used, CONTENT_LIMIT, "bytes of text files")
                } else {
                    (&mut media_used, MEDIA_BUDGET, "bytes of media")
                };
                if *used + part.bytes.len() > limit {
                    Err(format!(
                        "a tool result shows the model at most {limit} {what}"
                    ))
                } else {
                    *used += part.bytes.len();
                    Ok(WireMedia::encoded(media_type, name, &part.bytes))
                }
            }
            Err(refusal) => {
                let label = format!("{NOT_SHOWN_LABEL} {index} (refused)");
                let note = format!("it was refused: {refusal}");
                note_part(&mut bounded.notes, &mut noted, index, &part, &note);
                bounded
                    .not_shown
                    .push((label, "application/octet-stream".to_owned(), part.bytes));
                continue;
            }
        };
        match why {
            Ok(wire) => bounded.shown.push(wire),
            Err(note) => {
                note_part(&mut bounded.notes, &mut noted, index, &part, &note);
                bounded.not_shown.push((
                    format!("{NOT_SHOWN_LABEL} {index}"),
                    part.mime_type,
                    part.bytes,
                ));
            }
        }
    }
    if noted > MEDIA_PARTS {
        let _ = write!(
            bounded.notes,
            "\n[{} more media parts were not shown: a tool result names at most {MEDIA_PARTS} parts it does not show]",
            noted - MEDIA_PARTS
        );
    }
    bounded
}

/// A text file within [`CONTENT_LIMIT`], filtered; other parts are left as they are (a larger
/// text file is not shown to the model).
fn filter_text(part: &mut Media, filter: &dyn ContentFilter) {
    let is_text = MediaType::parse(&part.mime_type).is_ok_and(MediaType::is_text);
    if !is_text || part.bytes.len() > CONTENT_LIMIT {
        return;
    }
    if let Ok(text) = std::str::from_utf8(&part.bytes)
        && let std::borrow::Cow::Owned(filtered) = filter.filter(text)
    {
        part.bytes = filtered.into_bytes();
    }
}

/// One line for a part the model is not shown, for the first [`MEDIA_PARTS`] such parts; later
/// ones are only counted. The type is echoed only when it is a plain MIME type, so a hostile one
/// (controls, a right-to-left override, a paragraph) never reaches the model.
fn note_part(notes: &mut String, count: &mut usize, index: usize, part: &Media, why: &str) {
    *count += 1;
    if *count > MEDIA_PARTS {
        return;
    }
    let mime_type = if MediaType::parse(&part.mime_type) == Err(MediaRefusal::NotAToken) {
        "a type that is not plain"
    } else {
        part.mime_type.as_str()
    };
    let _ = write!(
        notes,
        "\n[media {index} ({mime_type}, {} bytes) was not shown: {why}]",
        part.bytes.len()
    );
}
