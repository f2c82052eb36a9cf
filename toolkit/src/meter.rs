//! Byte counts of the compact `serde_json` encoding of strings, without building it.
//!
//! `serde_json::to_writer` with a counting writer cannot stop early inside one string: it scans a
//! whole string for characters to escape before it writes any of it, so a single 100 MB text would
//! cost O(100 MB) even though the writer gives up after 50 000 bytes. The meter counts the same bytes
//! `serde_json` would write, fragment by fragment, and stops as soon as the count passes its cap, so
//! measuring costs O(cap), never O(artifact size). It knows strings and lists of strings; the
//! artifact types measure their own shape with it (`result.rs`, beside their `Serialize`), and
//! `tests/bounds.rs` checks every count against `serde_json`.

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
