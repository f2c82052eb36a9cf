//! Byte counts of the compact `serde_json` encoding of artifacts, without building it.
//!
//! `serde_json::to_writer` with a counting writer cannot stop early inside one string: it scans a
//! whole string for characters to escape before it writes any of it, so a single 100 MB text would
//! cost O(100 MB) even though the writer gives up after 50 000 bytes. The meter counts the same bytes
//! `serde_json` would write, fragment by fragment, and stops as soon as the count passes its cap, so
//! measuring costs O(cap), never O(artifact size). `tests/meter.rs` checks it against `serde_json`.

use crate::result::{ArtifactData, Table, ToolArtifact};

/// Bytes `serde_json` writes for each byte of a string's contents (compact formatter).
const ESCAPED_LEN: [u8; 256] = {
    let mut table = [1u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = match byte {
            0x08 | 0x09 | 0x0A | 0x0C | 0x0D => 2,
            _ => 6,
        };
        byte += 1;
    }
    table[b'"' as usize] = 2;
    table[b'\\' as usize] = 2;
    table
};

/// How far a string is scanned between two checks against the cap.
const CHUNK: usize = 4096;

// Fixed pieces of `{"type":"table","label":..,"data":{"columns":..,"rows":..}}`.
const ARTIFACT_OPEN: usize = r#"{"type":"#.len() + r#","label":"#.len() + r#","data":"#.len();
const ARTIFACT_CLOSE: usize = 1;
const TYPE_TABLE: usize = r#""table""#.len();
const TYPE_TEXT: usize = r#""text""#.len();
const TABLE_FIXED: usize = r#"{"columns":"#.len() + r#","rows":"#.len() + 1;
const TEXT_FIXED: usize = r#"{"text":"#.len() + 1;

/// The count went past the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Over;

/// Counts encoded bytes up to a cap.
pub(crate) struct Meter {
    used: usize,
    cap: usize,
}

impl Meter {
    pub(crate) fn new(cap: usize) -> Self {
        Self { used: 0, cap }
    }

    pub(crate) fn used(&self) -> usize {
        self.used
    }

    pub(crate) fn add(&mut self, bytes: usize) -> Result<(), Over> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.cap {
            Err(Over)
        } else {
            Ok(())
        }
    }

    /// A JSON string with its quotes.
    pub(crate) fn string(&mut self, text: &str) -> Result<(), Over> {
        self.add(2)?;
        for chunk in text.as_bytes().chunks(CHUNK) {
            self.add(escaped_len(chunk))?;
        }
        Ok(())
    }

    /// A JSON array of strings.
    pub(crate) fn string_list(&mut self, items: &[String]) -> Result<(), Over> {
        self.add(2 + items.len().saturating_sub(1))?;
        items.iter().try_for_each(|item| self.string(item))
    }

    pub(crate) fn table(&mut self, table: &Table) -> Result<(), Over> {
        self.table_skeleton(table)?;
        self.add(table.rows().len().saturating_sub(1))?;
        table
            .rows()
            .iter()
            .try_for_each(|row| self.string_list(row))
    }

    /// A table's data with no rows: `{"columns":[..],"rows":[]}`.
    pub(crate) fn table_skeleton(&mut self, table: &Table) -> Result<(), Over> {
        self.add(TABLE_FIXED + 2)?;
        self.string_list(table.columns())
    }

    pub(crate) fn text(&mut self, text: &str) -> Result<(), Over> {
        self.add(TEXT_FIXED)?;
        self.string(text)
    }

    /// An artifact's fixed parts and label, without its data.
    pub(crate) fn artifact_frame(&mut self, artifact: &ToolArtifact) -> Result<(), Over> {
        let type_len = match artifact.data() {
            ArtifactData::Table(_) => TYPE_TABLE,
            ArtifactData::Text(_) => TYPE_TEXT,
        };
        self.add(ARTIFACT_OPEN + ARTIFACT_CLOSE + type_len)?;
        self.string(artifact.label())
    }

    pub(crate) fn artifact(&mut self, artifact: &ToolArtifact) -> Result<(), Over> {
        self.artifact_frame(artifact)?;
        match artifact.data() {
            ArtifactData::Table(table) => self.table(table),
            ArtifactData::Text(text) => self.text(text),
        }
    }
}

/// Encoded length of a string's contents (without quotes).
pub(crate) fn escaped_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&byte| usize::from(ESCAPED_LEN[usize::from(byte)]))
        .sum()
}

/// Encoded length of one character (without quotes).
pub(crate) fn char_escaped_len(character: char) -> usize {
    if character.is_ascii() {
        usize::from(ESCAPED_LEN[character as usize])
    } else {
        character.len_utf8()
    }
}

/// The compact JSON length of one artifact, or `None` once it passes `cap`.
pub(crate) fn artifact_len(artifact: &ToolArtifact, cap: usize) -> Option<usize> {
    let mut meter = Meter::new(cap);
    meter.artifact(artifact).ok().map(|()| meter.used())
}

/// The compact JSON length of a list of artifacts, or `None` once it passes `cap`.
pub fn artifacts_len(artifacts: &[ToolArtifact], cap: usize) -> Option<usize> {
    let mut meter = Meter::new(cap);
    let measured = meter
        .add(2 + artifacts.len().saturating_sub(1))
        .and_then(|()| artifacts.iter().try_for_each(|a| meter.artifact(a)));
    measured.ok().map(|()| meter.used())
}
