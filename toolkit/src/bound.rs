//! The bounds the seam applies to both channels of every result.
//!
//! Content and artifacts each get an independent budget of 50 000 bytes; media artifacts'
//! bytes have a budget of their own (16 MiB of base64), and media for the model is bounded in
//! `media.rs`. The bounds cost O(budget), never O(size): content is cut in place, and artifacts
//! are measured with a meter (`meter.rs`) that stops counting once past the budget.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::filter::ContentFilter;
use crate::limits::{
    ARTIFACT_BUDGET, CONTENT_LIMIT, ECHO_LIMIT, FILTER_MARGIN, MARKER_RESERVE,
    MEDIA_ARTIFACT_BUDGET,
};
use crate::meter::{self, Meter};
use crate::result::{self, ArtifactData, ArtifactType, ToolArtifact};

/// Appended to content cut at [`CONTENT_LIMIT`]; its 42 bytes count inside the limit.
pub const TRUNCATION_MARKER: &str = "\n…[tool result truncated at 50000 bytes]";

/// Label of the text artifact that says what the artifact budget cut.
pub const OMITTED_LABEL: &str = "Artifacts omitted";

/// Bounds content to [`CONTENT_LIMIT`] bytes: at most that passes unchanged (not copied); longer
/// content keeps its head, cut on a character boundary, followed by [`TRUNCATION_MARKER`].
///
/// ```
/// use toolkit::bound::{bound_content, TRUNCATION_MARKER};
/// use toolkit::limits::CONTENT_LIMIT;
///
/// let bounded = bound_content("x".repeat(CONTENT_LIMIT + 1));
/// assert_eq!(bounded.len(), CONTENT_LIMIT);
/// assert!(bounded.ends_with(TRUNCATION_MARKER));
/// ```
pub fn bound_content(content: String) -> String {
    bound_content_to(content, CONTENT_LIMIT)
}

/// [`bound_content`] to `limit` bytes (at most [`CONTENT_LIMIT`]): the room left beside the notes
/// about media the model is not shown.
pub(crate) fn bound_content_to(content: String, limit: usize) -> String {
    cut_content_to(&content, limit).unwrap_or(content)
}

/// Filters content, then bounds it like [`bound_content`]. The filter sees at most
/// [`CONTENT_LIMIT`] + [`FILTER_MARGIN`] bytes, so its cost does not grow with the content; what
/// lay beyond is cut whatever the filter made of the rest.
pub fn bound_filtered_content(content: String, filter: &dyn ContentFilter) -> String {
    bound_filtered_content_to(content, filter, CONTENT_LIMIT)
}

/// [`bound_filtered_content`] to `limit` bytes (at most [`CONTENT_LIMIT`]).
pub(crate) fn bound_filtered_content_to(
    content: String,
    filter: &dyn ContentFilter,
    limit: usize,
) -> String {
    let window = limit + FILTER_MARGIN;
    if content.len() <= window {
        return match filter.filter(&content) {
            Cow::Borrowed(_) => bound_content_to(content, limit),
            Cow::Owned(filtered) => bound_content_to(filtered, limit),
        };
    }
    let head = &content[..floor_char_boundary(&content, window)];
    let filtered = filter.filter(head);
    let cut = floor_char_boundary(&filtered, limit - TRUNCATION_MARKER.len());
    let mut bounded = String::with_capacity(cut + TRUNCATION_MARKER.len());
    bounded.push_str(&filtered[..cut]);
    bounded.push_str(TRUNCATION_MARKER);
    bounded
}

/// The bounded copy of content longer than [`CONTENT_LIMIT`], or `None` when it fits as it is.
///
/// It reads at most [`CONTENT_LIMIT`] bytes of `content` and copies fewer, whatever its size.
/// Hidden: [`bound_content`] is the API; this form lets tests and benchmarks see that content
/// within the limit is not copied.
#[doc(hidden)]
pub fn cut_content(content: &str) -> Option<String> {
    cut_content_to(content, CONTENT_LIMIT)
}

fn cut_content_to(content: &str, limit: usize) -> Option<String> {
    if content.len() <= limit {
        return None;
    }
    let cut = floor_char_boundary(content, limit - TRUNCATION_MARKER.len());
    let mut bounded = String::with_capacity(cut + TRUNCATION_MARKER.len());
    bounded.push_str(&content[..cut]);
    bounded.push_str(TRUNCATION_MARKER);
    Some(bounded)
}

/// Bounds an artifact list so that its compact JSON takes at most [`ARTIFACT_BUDGET`] bytes,
/// not counting media artifacts' base64, which takes at most [`MEDIA_ARTIFACT_BUDGET`] bytes.
///
/// A list that fits passes unchanged (not copied). Otherwise artifacts are kept in order while
/// they fit; the first that does not is cut (a table to the leading rows that fit, a text on a
/// character boundary) or, when not even its label fits or it is media, dropped; every later
/// artifact is dropped; and one text artifact labelled [`OMITTED_LABEL`] says what was cut.
pub fn bound_artifacts(artifacts: Vec<ToolArtifact>) -> Vec<ToolArtifact> {
    cut_artifacts(&artifacts).unwrap_or(artifacts)
}

/// The bounded copy of an artifact list over its budgets, or `None` when it fits as it is.
///
/// Measuring stops once past the budget and the copy holds at most the budget's worth of data,
/// so the cost is O(budget) whatever the size of the list. Hidden like [`cut_content`].
#[doc(hidden)]
pub fn cut_artifacts(artifacts: &[ToolArtifact]) -> Option<Vec<ToolArtifact>> {
    if artifacts.is_empty() {
        return None;
    }
    let mut sizes = Vec::with_capacity(artifacts.len());
    let mut meter = Meter::new(ARTIFACT_BUDGET);
    let mut media = Meter::new(MEDIA_ARTIFACT_BUDGET);
    let mut fits = meter.add(2).is_ok();
    for (index, artifact) in artifacts.iter().enumerate() {
        let before = meter.used();
        let separator = usize::from(index > 0);
        if meter
            .add(separator)
            .and_then(|()| artifact.measure_apart(&mut meter))
            .and_then(|()| media.add(artifact.media_len()))
            .is_err()
        {
            fits = false;
            break;
        }
        sizes.push(meter.used() - before - separator);
    }
    if fits {
        return None;
    }

    // Something is cut, so the marker must fit as well.
    let room = ARTIFACT_BUDGET - MARKER_RESERVE;
    let mut used = 2;
    let mut media_used = 0;
    let mut kept = 0;
    for (size, artifact) in sizes.iter().zip(artifacts) {
        let separator = usize::from(kept > 0);
        let media_len = artifact.media_len();
        if used + separator + size > room || media_used + media_len > MEDIA_ARTIFACT_BUDGET {
            break;
        }
        used += separator + size;
        media_used += media_len;
        kept += 1;
    }
    let mut bounded = artifacts[..kept].to_vec();
    let mut summary = None;
    if let Some(misfit) = artifacts.get(kept) {
        let available = room.saturating_sub(used + usize::from(kept > 0));
        let (head, outcome) = cut_to_fit(misfit, available);
        bounded.extend(head);
        summary = Some(outcome.summary(misfit));
    }
    let dropped_after = artifacts.len() - kept - usize::from(summary.is_some());
    let media_dropped = artifacts[kept..]
        .iter()
        .any(|artifact| artifact.kind() == ArtifactType::Media);
    bounded.push(ToolArtifact::text(
        OMITTED_LABEL,
        omitted_text(summary.as_deref(), dropped_after, media_dropped),
    ));
    debug_assert!(within_budgets(&bounded));
    Some(bounded)
}

/// Whether a list keeps both budgets (for the debug check of [`cut_artifacts`]).
fn within_budgets(artifacts: &[ToolArtifact]) -> bool {
    let mut meter = Meter::new(ARTIFACT_BUDGET);
    let apart = meter
        .add(2 + artifacts.len().saturating_sub(1))
        .and_then(|()| {
            artifacts
                .iter()
                .try_for_each(|a| a.measure_apart(&mut meter))
        });
    let media: usize = artifacts.iter().map(ToolArtifact::media_len).sum();
    apart.is_ok() && media <= MEDIA_ARTIFACT_BUDGET
}

/// What became of the first artifact that did not fit.
enum Outcome {
    Rows {
        kept: usize,
        of: usize,
    },
    Bytes {
        kept: usize,
        of: usize,
    },
    /// Not even its label fits.
    Dropped,
}

impl Outcome {
    fn summary(&self, original: &ToolArtifact) -> String {
        let label = echo(original.label());
        let kind = original.kind().as_str();
        match *self {
            Outcome::Rows { kept, of } => format!(
                "Artifact \"{label}\" ({kind}) was cut to its first {kept} of {of} rows ({} rows omitted).",
                of - kept
            ),
            Outcome::Bytes { kept, of } => format!(
                "Artifact \"{label}\" ({kind}) was cut to its first {kept} of {of} bytes ({} bytes omitted).",
                of - kept
            ),
            Outcome::Dropped => format!("Artifact \"{label}\" ({kind}) was dropped."),
        }
    }
}

/// The head of one artifact whose JSON takes at most `available` bytes, if even its label fits.
fn cut_to_fit(artifact: &ToolArtifact, available: usize) -> (Option<ToolArtifact>, Outcome) {
    let mut meter = Meter::new(available);
    if artifact.measure_frame(&mut meter).is_err() {
        return (None, Outcome::Dropped);
    }
    let label = artifact.label().to_owned();
    match artifact.data() {
        ArtifactData::Table(table) => {
            if table.measure_skeleton(&mut meter).is_err() {
                return (None, Outcome::Dropped);
            }
            let mut kept = 0;
            for (index, row) in table.rows().iter().enumerate() {
                let fits = meter
                    .add(usize::from(index > 0))
                    .and_then(|()| result::measure_row(&mut meter, row));
                if fits.is_err() {
                    break;
                }
                kept += 1;
            }
            let head = ToolArtifact::from_parts(label, ArtifactData::Table(table.head(kept)));
            let of = table.rows().len();
            (Some(head), Outcome::Rows { kept, of })
        }
        ArtifactData::Text(text) => {
            if result::measure_text(&mut meter, "").is_err() {
                return (None, Outcome::Dropped);
            }
            let mut room = available - meter.used();
            let mut end = 0;
            for (index, character) in text.char_indices() {
                let cost = meter::char_escaped_len(character);
                if cost > room {
                    break;
                }
                room -= cost;
                end = index + character.len_utf8();
            }
            let head = ToolArtifact::from_parts(label, ArtifactData::Text(text[..end].to_owned()));
            (
                Some(head),
                Outcome::Bytes {
                    kept: end,
                    of: text.len(),
                },
            )
        }
        // Part of an image or a sound is none of it: media is kept whole or not at all.
        ArtifactData::Media { .. } => (None, Outcome::Dropped),
    }
}

fn omitted_text(cut: Option<&str>, dropped_after: usize, media_dropped: bool) -> String {
    let mut text = String::new();
    if let Some(cut) = cut {
        text.push_str(cut);
        text.push(' ');
    }
    if dropped_after > 0 {
        let noun = if dropped_after == 1 {
            "artifact was"
        } else {
            "artifacts were"
        };
        let _ = write!(text, "{dropped_after} later {noun} dropped. ");
    }
    let _ = write!(
        text,
        "Artifacts are limited to {ARTIFACT_BUDGET} bytes of serialised JSON per tool result"
    );
    if media_dropped {
        let _ = write!(
            text,
            ", media artifacts' base64 apart: it is limited to {MEDIA_ARTIFACT_BUDGET} bytes"
        );
    }
    text.push('.');
    text
}

/// The compact JSON length of a list of artifacts, measured in O(`cap`), or `None` once it
/// passes `cap`.
///
/// ```
/// use toolkit::ToolArtifact;
/// use toolkit::bound::artifacts_len;
///
/// let artifacts = [ToolArtifact::text("Note", "a \"quoted\" word")];
/// let json = serde_json::to_vec(&artifacts).unwrap();
/// assert_eq!(artifacts_len(&artifacts, usize::MAX), Some(json.len()));
/// assert_eq!(artifacts_len(&artifacts, json.len() - 1), None);
/// ```
pub fn artifacts_len(artifacts: &[ToolArtifact], cap: usize) -> Option<usize> {
    let mut meter = Meter::new(cap);
    let measured = meter
        .add(2 + artifacts.len().saturating_sub(1))
        .and_then(|()| artifacts.iter().try_for_each(|a| a.measure(&mut meter)));
    measured.ok().map(|()| meter.used())
}

/// A name or label fit to be echoed inside a message: cut to [`ECHO_LIMIT`] bytes on a character
/// boundary, control characters escaped.
pub fn echo(name: &str) -> String {
    echoed(name).into_owned()
}

/// [`echo`] without a copy when the name needs no escape: its head, borrowed.
pub(crate) fn echoed(name: &str) -> Cow<'_, str> {
    let head = &name[..floor_char_boundary(name, ECHO_LIMIT)];
    // Names are printable ASCII almost always: one byte scan says so.
    if head.bytes().all(|byte| matches!(byte, b' '..=b'~')) || !head.chars().any(char::is_control) {
        return Cow::Borrowed(head);
    }
    let mut echoed = String::with_capacity(head.len() + 8);
    for character in head.chars() {
        if character.is_control() {
            echoed.extend(character.escape_debug());
        } else {
            echoed.push(character);
        }
    }
    Cow::Owned(echoed)
}

/// The largest character boundary at or below `index`.
fn floor_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    (0..=index)
        .rev()
        .find(|&at| text.is_char_boundary(at))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_case_marker_fits_its_reserve() {
        let label: String = "\u{1}\"\\".repeat(64);
        let originals = [
            ToolArtifact::table(label.clone(), crate::Table::new(["c"])),
            ToolArtifact::text(label.clone(), ""),
        ];
        let outcomes = [
            Outcome::Dropped,
            Outcome::Rows {
                kept: usize::MAX / 2,
                of: usize::MAX,
            },
            Outcome::Bytes {
                kept: usize::MAX / 2,
                of: usize::MAX,
            },
        ];
        for original in &originals {
            for outcome in &outcomes {
                let text = omitted_text(Some(&outcome.summary(original)), usize::MAX, true);
                let marker = ToolArtifact::text(OMITTED_LABEL, text);
                // The list's brackets are counted elsewhere; its separator is part of the reserve.
                let len = artifacts_len(&[marker], usize::MAX).unwrap() - 2 + 1;
                assert!(len <= MARKER_RESERVE, "marker takes {len} bytes");
            }
        }
    }

    #[test]
    fn echo_cuts_and_escapes() {
        assert_eq!(echo("a\nb\u{7}"), "a\\nb\\u{7}");
        assert_eq!(echo(&"é".repeat(40)).len(), 64);
        assert_eq!(echo(&"x".repeat(65)), "x".repeat(64));
    }
}
