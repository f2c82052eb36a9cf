//! The one result type of a tool: provider-facing content (a string, and media for the model to
//! see), an error flag and run-only artifacts.

use std::fmt;

use base64::Engine as _;
use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::hidden::inert;
pub use crate::media::{Media, MediaKind, MediaRefusal, MediaType};
use crate::meter::{Meter, Over};

/// What a tool returns: exactly one provider-facing `content` string, the [`Media`] the model
/// is to see with it (images, sounds, files; none by default), an error flag, and a list of
/// run-only [`ToolArtifact`]s.
///
/// Artifacts flow only to the trace, the inspector event stream and the audit copy. Nothing turns a
/// `ToolResult` into wire bytes: it is not `Display`, has no method that merges artifacts into a
/// string, and only [`ToolLoopService::invoke`](crate::ToolLoopService::invoke) turns its content
/// into a [`WireString`](crate::WireString), after bounding both channels.
///
/// ```
/// use toolkit::result::Media;
/// use toolkit::{Table, ToolArtifact, ToolResult};
///
/// let table = Table::from_rows(["name", "size"], [["a.txt", "12"], ["b.txt", "7"]])?;
/// let result = ToolResult::text_with("2 files", [ToolArtifact::table("Files", table)]);
/// assert_eq!(result.content(), "2 files");
/// assert_eq!(result.artifacts().len(), 1);
///
/// let failed = ToolResult::error("Error: no such directory");
/// assert!(failed.is_error() && failed.artifacts().is_empty());
///
/// // The model sees the picture (once the seam checked it); people see the table.
/// let shown = ToolResult::text("the chart").with_media(Media::png(b"\x89PNG\r\n\x1a\n..."));
/// assert_eq!(shown.media()[0].mime_type(), "image/png");
/// # Ok::<(), toolkit::result::TableError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ToolResult {
    content: String,
    is_error: bool,
    media: Vec<Media>,
    artifacts: Vec<ToolArtifact>,
}

impl ToolResult {
    /// A successful result with no artifacts.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            media: Vec::new(),
            artifacts: Vec::new(),
        }
    }

    /// A successful result whose content comes as bytes (say, a subprocess's output): invalid UTF-8
    /// sequences become U+FFFD.
    pub fn text_lossy(content: impl AsRef<[u8]>) -> Self {
        Self::text(String::from_utf8_lossy(content.as_ref()).into_owned())
    }

    /// A successful result that also shows artifacts to people (never to the model).
    pub fn text_with(
        content: impl Into<String>,
        artifacts: impl IntoIterator<Item = ToolArtifact>,
    ) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            media: Vec::new(),
            artifacts: artifacts.into_iter().collect(),
        }
    }

    /// A failed result. It carries no artifacts, and nothing can add any: a failing tool cannot leak a
    /// half-built structure.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: message.into(),
            is_error: true,
            media: Vec::new(),
            artifacts: Vec::new(),
        }
    }

    /// Adds media for the model to see after the text: an image, a sound or a file. The seam
    /// checks its type and bytes and bounds it ([`Media`] says how); what does not
    /// pass reaches the model only as a note. A failed result shows the model its message only:
    /// the seam drops media added to one.
    #[must_use]
    pub fn with_media(mut self, media: Media) -> Self {
        self.media.push(media);
        self
    }

    /// The media for the model, before the seam has checked it.
    pub fn media(&self) -> &[Media] {
        &self.media
    }

    /// The provider-facing string, before the seam has bounded it.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// Whether the tool failed.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The run-only artifacts.
    pub fn artifacts(&self) -> &[ToolArtifact] {
        &self.artifacts
    }

    pub(crate) fn into_parts(self) -> (String, bool, Vec<Media>, Vec<ToolArtifact>) {
        (self.content, self.is_error, self.media, self.artifacts)
    }
}

impl fmt::Debug for ToolResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolResult")
            .field("content", &self.content)
            .field("is_error", &self.is_error)
            .field("media", &self.media)
            .field("artifacts", &self.artifacts)
            .finish()
    }
}

/// The kind of an artifact, as it appears in the `type` field of its serialised form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ArtifactType {
    /// `{"columns": [String], "rows": [[String | null]]}`
    Table,
    /// `{"text": String}`
    Text,
    /// `{"mime_type": String, "base64": String}`: bytes of a MIME type (an image, a sound, a
    /// file), for people to view or download.
    Media,
}

impl ArtifactType {
    /// The serialised name: `"table"`, `"text"` or `"media"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactType::Table => "table",
            ArtifactType::Text => "text",
            ArtifactType::Media => "media",
        }
    }
}

/// A run-only, labelled piece of structured output for people: a [`Table`], a text, or media
/// (bytes of a MIME type: an image, a sound, a file).
///
/// Serialises as `{"type": "table" | "text" | "media", "label": .., "data": ..}`. Its `Debug`
/// output shows the label, the type and the serialised size, never the data.
#[derive(Clone, PartialEq, Eq)]
pub struct ToolArtifact {
    label: String,
    data: ArtifactData,
}

#[derive(Clone, PartialEq, Eq)]
pub(crate) enum ArtifactData {
    Table(Table),
    Text(String),
    Media { mime_type: String, base64: String },
}

impl ToolArtifact {
    /// A table artifact.
    pub fn table(label: impl Into<String>, table: Table) -> Self {
        Self {
            label: label.into(),
            data: ArtifactData::Table(table),
        }
    }

    /// A text artifact.
    pub fn text(label: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            data: ArtifactData::Text(text.into()),
        }
    }

    /// A media artifact: `bytes` of `mime_type` (an image, a sound, a file), kept as base64.
    /// People see an image or hear a sound where the page can show it, and can download it.
    pub fn media(
        label: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Self {
            label: label.into(),
            data: ArtifactData::Media {
                mime_type: mime_type.into(),
                base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            },
        }
    }

    /// A text artifact from bytes: invalid UTF-8 sequences become U+FFFD.
    pub fn text_lossy(label: impl Into<String>, text: impl AsRef<[u8]>) -> Self {
        Self::text(label, String::from_utf8_lossy(text.as_ref()).into_owned())
    }

    /// The label people see.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Table, text or media.
    pub fn kind(&self) -> ArtifactType {
        match self.data {
            ArtifactData::Table(_) => ArtifactType::Table,
            ArtifactData::Text(_) => ArtifactType::Text,
            ArtifactData::Media { .. } => ArtifactType::Media,
        }
    }

    /// The table, if this is a table artifact.
    pub fn as_table(&self) -> Option<&Table> {
        match &self.data {
            ArtifactData::Table(table) => Some(table),
            _ => None,
        }
    }

    /// The text, if this is a text artifact.
    pub fn as_text(&self) -> Option<&str> {
        match &self.data {
            ArtifactData::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The MIME type and the bytes in base64, if this is a media artifact.
    pub fn as_media(&self) -> Option<(&str, &str)> {
        match &self.data {
            ArtifactData::Media { mime_type, base64 } => Some((mime_type, base64)),
            _ => None,
        }
    }

    pub(crate) fn data(&self) -> &ArtifactData {
        &self.data
    }

    pub(crate) fn from_parts(label: String, data: ArtifactData) -> Self {
        Self { label, data }
    }

    /// The compact JSON length of this artifact, or `None` once it passes `cap`.
    pub(crate) fn json_len(&self, cap: usize) -> Option<usize> {
        let mut meter = Meter::new(cap);
        self.measure(&mut meter).ok().map(|()| meter.used())
    }

    /// Counts this artifact's JSON, as its `Serialize` writes it.
    pub(crate) fn measure(&self, meter: &mut Meter) -> Result<(), Over> {
        self.measure_frame(meter)?;
        match &self.data {
            ArtifactData::Table(table) => table.measure(meter),
            ArtifactData::Text(text) => measure_text(meter, text),
            ArtifactData::Media { mime_type, base64 } => {
                meter.add(MEDIA_FIXED)?;
                meter.string(mime_type)?;
                // Base64 needs no escape: its characters and two quotes.
                meter.add(base64.len() + 2)
            }
        }
    }

    /// Counts this artifact's JSON as [`measure`](Self::measure) does, less a media artifact's
    /// base64 characters: what counts against the artifact budget (the base64 counts against
    /// the media artifact budget, [`media_len`](Self::media_len)).
    pub(crate) fn measure_apart(&self, meter: &mut Meter) -> Result<(), Over> {
        match &self.data {
            ArtifactData::Media { mime_type, .. } => {
                self.measure_frame(meter)?;
                meter.add(MEDIA_FIXED)?;
                meter.string(mime_type)?;
                meter.add(2)
            }
            _ => self.measure(meter),
        }
    }

    /// A media artifact's base64 length (0 for another artifact).
    pub(crate) fn media_len(&self) -> usize {
        match &self.data {
            ArtifactData::Media { base64, .. } => base64.len(),
            _ => 0,
        }
    }

    /// Counts the fixed parts and the label, without the data.
    pub(crate) fn measure_frame(&self, meter: &mut Meter) -> Result<(), Over> {
        let type_len = match self.data {
            ArtifactData::Table(_) => TYPE_TABLE,
            ArtifactData::Text(_) => TYPE_TEXT,
            ArtifactData::Media { .. } => TYPE_MEDIA,
        };
        meter.add(ARTIFACT_OPEN + ARTIFACT_CLOSE + type_len)?;
        meter.string(&self.label)
    }
}

// Fixed pieces of `{"type":"table","label":..,"data":{"columns":..,"rows":..}}`, as the
// `Serialize` impls below write them.
const ARTIFACT_OPEN: usize = r#"{"type":"#.len() + r#","label":"#.len() + r#","data":"#.len();
const ARTIFACT_CLOSE: usize = 1;
const TYPE_TABLE: usize = r#""table""#.len();
const TYPE_TEXT: usize = r#""text""#.len();
const TYPE_MEDIA: usize = r#""media""#.len();
const TABLE_FIXED: usize = r#"{"columns":"#.len() + r#","rows":"#.len() + 1;
const TEXT_FIXED: usize = r#"{"text":"#.len() + 1;
const MEDIA_FIXED: usize = r#"{"mime_type":"#.len() + r#","base64":"#.len() + 1;

/// Counts a text artifact's data, `{"text":..}`.
pub(crate) fn measure_text(meter: &mut Meter, text: &str) -> Result<(), Over> {
    meter.add(TEXT_FIXED)?;
    meter.string(text)
}

impl Serialize for ToolArtifact {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut artifact = serializer.serialize_struct("ToolArtifact", 3)?;
        artifact.serialize_field("type", &self.kind())?;
        artifact.serialize_field("label", &self.label)?;
        match &self.data {
            ArtifactData::Table(table) => artifact.serialize_field("data", table)?,
            ArtifactData::Text(text) => artifact.serialize_field("data", &TextData { text })?,
            ArtifactData::Media { mime_type, base64 } => {
                artifact.serialize_field("data", &MediaData { mime_type, base64 })?;
            }
        }
        artifact.end()
    }
}

#[derive(Serialize)]
struct TextData<'a> {
    text: &'a str,
}

#[derive(Serialize)]
struct MediaData<'a> {
    mime_type: &'a str,
    base64: &'a str,
}

impl fmt::Debug for ToolArtifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolArtifact")
            .field("label", &self.label)
            .field("type", &self.kind().as_str())
            .field("bytes", &self.json_len(usize::MAX).unwrap_or(usize::MAX))
            .finish_non_exhaustive()
    }
}

/// A rectangular table: every row has exactly as many [`Cell`]s as there are columns.
///
/// ```
/// use toolkit::{result::Cell, Table};
///
/// let mut table = Table::new(["name", "note"]);
/// table.push_row(["a", "ok"])?;
/// table.push_row([Cell::from("b"), Cell::Null])?; // no value: NULL, not the text "null"
/// table.push_row([Some("c"), None])?;
/// assert_eq!(table.rows()[1][1], Cell::Null);
/// assert_eq!(table.rows()[0][1], "ok");
/// assert_eq!(
///     serde_json::to_string(&table).unwrap(),
///     r#"{"columns":["name","note"],"rows":[["a","ok"],["b",null],["c",null]]}"#
/// );
/// # Ok::<(), toolkit::result::TableError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

/// One value of a [`Table`]: a text, or no value at all (SQL's NULL, a JSON `null`).
///
/// Serialises as a JSON string or `null`, so a missing value never reads as the text `"null"`.
/// Its `Display` is the plain-text form terminals and model-facing summaries use: `NULL` for no
/// value, and a text as is, unless it could be mistaken for that (any case of `null`, or a text
/// starting with `"`), in which case it is written as a JSON string.
///
/// ```
/// use toolkit::result::Cell;
///
/// assert_eq!(Cell::Null.to_string(), "NULL");
/// assert_eq!(Cell::from("null").to_string(), r#""null""#);
/// assert_eq!(Cell::from("Paris").to_string(), "Paris");
/// assert_eq!(Cell::from(None::<String>), Cell::Null);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Cell {
    /// No value. Sorts before every text.
    Null,
    /// A text value.
    Text(String),
}

impl Cell {
    /// The text, or `None` for [`Cell::Null`].
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Cell::Null => None,
            Cell::Text(text) => Some(text),
        }
    }

    /// Whether this cell has no value.
    pub fn is_null(&self) -> bool {
        matches!(self, Cell::Null)
    }

    /// Counts this cell's JSON: `null` or a string.
    fn measure(&self, meter: &mut Meter) -> Result<(), Over> {
        match self {
            Cell::Null => meter.add(NULL_LEN),
            Cell::Text(text) => meter.string(text),
        }
    }
}

const NULL_LEN: usize = "null".len();

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell::Text(text)
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Cell::Text(text.to_owned())
    }
}

impl From<&String> for Cell {
    fn from(text: &String) -> Self {
        Cell::Text(text.clone())
    }
}

impl<T: Into<String>> From<Option<T>> for Cell {
    fn from(value: Option<T>) -> Self {
        value.map_or(Cell::Null, |text| Cell::Text(text.into()))
    }
}

impl PartialEq<str> for Cell {
    fn eq(&self, other: &str) -> bool {
        self.as_text() == Some(other)
    }
}

impl PartialEq<&str> for Cell {
    fn eq(&self, other: &&str) -> bool {
        self.as_text() == Some(*other)
    }
}

impl PartialEq<String> for Cell {
    fn eq(&self, other: &String) -> bool {
        self.as_text() == Some(other.as_str())
    }
}

impl Serialize for Cell {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Null => serializer.serialize_unit(),
            Cell::Text(text) => serializer.serialize_str(text),
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => f.write_str("NULL"),
            Cell::Text(text) if text.eq_ignore_ascii_case("null") || text.starts_with('"') => {
                f.write_str(&serde_json::to_string(text).map_err(|_| fmt::Error)?)
            }
            Cell::Text(text) => f.write_str(text),
        }
    }
}

/// A row whose width differs from the table's columns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("row {row} has {found} cells, but the table has {expected} columns")]
#[non_exhaustive]
pub struct TableError {
    /// Index of the offending row (0-based, counting rows already in the table).
    pub row: usize,
    /// Number of columns.
    pub expected: usize,
    /// Number of cells in the row.
    pub found: usize,
}

impl Table {
    /// An empty table with these columns.
    pub fn new<C: Into<String>>(columns: impl IntoIterator<Item = C>) -> Self {
        Self {
            columns: columns.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// A table with these columns and rows; a row of the wrong width is an error. Cells are
    /// anything that becomes a [`Cell`]: `&str`, `String`, `Option<String>`, `Cell`.
    pub fn from_rows<C, R, V>(
        columns: impl IntoIterator<Item = C>,
        rows: impl IntoIterator<Item = R>,
    ) -> Result<Self, TableError>
    where
        C: Into<String>,
        R: IntoIterator<Item = V>,
        V: Into<Cell>,
    {
        let mut table = Self::new(columns);
        for row in rows {
            table.push_row(row)?;
        }
        Ok(table)
    }

    /// Appends one row; a row of the wrong width is an error and leaves the table unchanged.
    pub fn push_row<V: Into<Cell>>(
        &mut self,
        row: impl IntoIterator<Item = V>,
    ) -> Result<(), TableError> {
        let cells: Vec<Cell> = row.into_iter().map(Into::into).collect();
        if cells.len() != self.columns.len() {
            return Err(TableError {
                row: self.rows.len(),
                expected: self.columns.len(),
                found: cells.len(),
            });
        }
        self.rows.push(cells);
        Ok(())
    }

    /// The column names.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The rows, each as wide as [`columns`](Self::columns).
    pub fn rows(&self) -> &[Vec<Cell>] {
        &self.rows
    }

    /// Counts this table's JSON, `{"columns":[..],"rows":[[..],..]}`.
    pub(crate) fn measure(&self, meter: &mut Meter) -> Result<(), Over> {
        self.measure_skeleton(meter)?;
        meter.add(self.rows.len().saturating_sub(1))?;
        self.rows.iter().try_for_each(|row| measure_row(meter, row))
    }

    /// Counts this table's JSON with no rows: `{"columns":[..],"rows":[]}`.
    pub(crate) fn measure_skeleton(&self, meter: &mut Meter) -> Result<(), Over> {
        meter.add(TABLE_FIXED + 2)?;
        meter.string_list(&self.columns)
    }

    /// A copy holding only the first `len` rows.
    pub(crate) fn head(&self, len: usize) -> Self {
        Self {
            columns: self.columns.clone(),
            rows: self.rows[..len.min(self.rows.len())].to_vec(),
        }
    }
}

impl fmt::Display for Table {
    /// The table as aligned columns for a terminal, a rule under the header; each cell as its
    /// [`Cell`]'s `Display` (`NULL` for no value), with control characters and the characters
    /// that reorder text written out (`\u{202e}`). Widths count characters.
    ///
    /// ```
    /// use toolkit::Table;
    ///
    /// let table = Table::from_rows(["city", "people"], [["Paris", "2.1 M"], ["Lyon", "0.5 M"]])?;
    /// assert_eq!(
    ///     table.to_string(),
    ///     "city  | people\n------+-------\nParis | 2.1 M\nLyon  | 0.5 M\n"
    /// );
    /// # Ok::<(), toolkit::result::TableError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header: Vec<String> = self
            .columns
            .iter()
            .map(|column| inert(column, false).into_owned())
            .collect();
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|cell| inert(&cell.to_string(), false).into_owned())
                    .collect()
            })
            .collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|at| {
                rows.iter()
                    .map(|row| row[at].chars().count())
                    .chain([header[at].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |f: &mut fmt::Formatter<'_>, cells: &[String]| -> fmt::Result {
            for (at, cell) in cells.iter().enumerate() {
                if at > 0 {
                    f.write_str(" | ")?;
                }
                if at + 1 == cells.len() {
                    f.write_str(cell)?;
                } else {
                    write!(f, "{cell:<width$}", width = widths[at])?;
                }
            }
            f.write_str("\n")
        };
        line(f, &header)?;
        let rule: Vec<String> = widths.iter().map(|width| "-".repeat(*width)).collect();
        f.write_str(&rule.join("-+-"))?;
        f.write_str("\n")?;
        for row in &rows {
            line(f, row)?;
        }
        Ok(())
    }
}

impl fmt::Display for ToolArtifact {
    /// The artifact as a person reads it in a terminal: its label and type, then a table as
    /// aligned columns, a text as is (line breaks kept), or a media artifact's type and size
    /// (never its bytes), control characters (but a text's line breaks) and the characters that
    /// reorder text written out (`\u{202e}`).
    ///
    /// ```
    /// use toolkit::ToolArtifact;
    ///
    /// let note = ToolArtifact::text("Note", "first line\nsecond line");
    /// assert_eq!(note.to_string(), "Note (text)\nfirst line\nsecond line\n");
    /// let logo = ToolArtifact::media("Logo", "image/png", [0u8; 2048]);
    /// assert_eq!(logo.to_string(), "Logo (media: image/png, 2048 bytes)\n");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = inert(&self.label, false);
        match &self.data {
            ArtifactData::Table(table) => {
                let rows = table.rows.len();
                let noun = if rows == 1 { "row" } else { "rows" };
                write!(f, "{label} (table, {rows} {noun})\n{table}")
            }
            ArtifactData::Text(text) => {
                let text = inert(text, true);
                let end = if text.ends_with('\n') { "" } else { "\n" };
                write!(f, "{label} (text)\n{text}{end}")
            }
            ArtifactData::Media { mime_type, base64 } => {
                // Padded base64: three bytes per four characters, less one per `=`.
                let padding = base64
                    .bytes()
                    .rev()
                    .take_while(|byte| *byte == b'=')
                    .count();
                let bytes = (base64.len() / 4 * 3).saturating_sub(padding);
                writeln!(
                    f,
                    "{label} (media: {}, {bytes} bytes)",
                    inert(mime_type, false)
                )
            }
        }
    }
}

/// Counts one row's JSON, `[..]`.
pub(crate) fn measure_row(meter: &mut Meter, row: &[Cell]) -> Result<(), Over> {
    meter.add(2 + row.len().saturating_sub(1))?;
    row.iter().try_for_each(|cell| cell.measure(meter))
}

#[cfg(test)]
mod tests {
    use super::Cell;
    use super::{Table, ToolArtifact};

    #[test]
    fn a_cell_is_a_text_or_no_value_and_says_which() {
        let null = Cell::from(None::<&str>);
        assert_eq!(null, Cell::Null);
        assert!(null.is_null() && null.as_text().is_none());
        let text = Cell::from(Some(String::from("null")));
        assert!(!text.is_null());
        assert_eq!(text.as_text(), Some("null"));
        assert_eq!(Cell::from(&String::from("x")), Cell::Text("x".to_owned()));
        assert_eq!(Cell::from(String::from("x")), Cell::from("x"));
        // A text equals the same string in every form, no value equals none of them.
        let (same, other, empty) = (String::from("null"), String::from("NULL"), String::new());
        assert!(text == "null" && text == *"null" && text == same);
        assert!(text != "nul" && text != *"nul" && text != other);
        assert!(null != "" && null != *"" && null != empty);
        let first = [Cell::from("a"), Cell::from(""), Cell::Null]
            .iter()
            .min()
            .cloned();
        assert_eq!(first, Some(Cell::Null));
    }

    #[test]
    fn no_value_serialises_as_null_and_displays_apart_from_every_text() {
        let row = [Cell::Null, Cell::from("null"), Cell::from("")];
        assert_eq!(serde_json::to_string(&row).unwrap(), r#"[null,"null",""]"#);
        let shown: Vec<String> = [
            Cell::Null,
            Cell::from("null"),
            Cell::from("NuLl"),
            Cell::from("\"quoted\""),
            Cell::from("nullable"),
            Cell::from("say \"hi\""),
            Cell::from(""),
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            shown,
            [
                "NULL",
                r#""null""#,
                r#""NuLl""#,
                r#""\"quoted\"""#,
                "nullable",
                r#"say "hi""#,
                ""
            ]
        );
    }

    #[test]
    fn a_table_prints_aligned_with_no_value_apart_from_every_text() {
        let mut table = Table::new(["name", "note"]);
        table.push_row(["Åsa", "ok"]).unwrap();
        table.push_row([Cell::from("b"), Cell::Null]).unwrap();
        table.push_row(["null", "\"quoted"]).unwrap();
        assert_eq!(
            table.to_string(),
            "name   | note\n-------+-----------\nÅsa    | ok\nb      | NULL\n\"null\" | \"\\\"quoted\"\n"
        );
        let artifact = ToolArtifact::table("People", table.head(1));
        assert_eq!(
            artifact.to_string(),
            "People (table, 1 row)\nname | note\n-----+-----\nÅsa  | ok\n"
        );
        let empty = Table::new(["only"]);
        assert_eq!(empty.to_string(), "only\n----\n");
    }

    #[test]
    fn hostile_text_cannot_drive_the_terminal_or_reorder_what_it_shows() {
        let table = Table::from_rows(
            ["a\u{1b}[2Jb"],
            [["x\ny\rz"], ["t\u{202e}ow"], ["\u{2066}is\u{2069}"]],
        )
        .unwrap();
        let shown = table.to_string();
        assert_eq!(
            shown,
            "a\\u{1b}[2Jb\n------------------\nx\\u{a}y\\u{d}z\nt\\u{202e}ow\n\\u{2066}is\\u{2069}\n"
        );
        assert!(!shown.contains('\u{1b}') && !shown.contains('\u{202e}') && !shown.contains('\r'));
        // A text artifact keeps its line breaks, and nothing else that moves the cursor.
        let text = ToolArtifact::text("N\u{202e}ote", "one\ntwo\r\u{7}");
        assert_eq!(
            text.to_string(),
            "N\\u{202e}ote (text)\none\ntwo\\u{d}\\u{7}\n"
        );
        // The set every surface writes out: invisible characters too (a zero-width space, a
        // tag), not only controls and reordering ones.
        let hidden = ToolArtifact::text("Hidden", "a\u{200b}b\u{e0041}c");
        assert_eq!(
            hidden.to_string(),
            "Hidden (text)\na\\u{200b}b\\u{e0041}c\n"
        );
        let media = ToolArtifact::media("Clip", "audio/\u{1b}wav", [1u8, 2, 3, 4]);
        assert_eq!(
            media.to_string(),
            "Clip (media: audio/\\u{1b}wav, 4 bytes)\n"
        );
    }
}
