//! Both bounds, checked against `serde_json` itself: sizes, order, nothing lost that fits.

use proptest::prelude::*;
use toolkit::bound::{
    OMITTED_LABEL, TRUNCATION_MARKER, artifacts_len, bound_artifacts, bound_content, cut_artifacts,
    cut_content, echo,
};
use toolkit::limits::{ARTIFACT_BUDGET, CONTENT_LIMIT, MARKER_RESERVE, MEDIA_ARTIFACT_BUDGET};
use toolkit::{Table, ToolArtifact, result::Cell};

/// What the kept artifacts of a cut list may fill: the budget less the marker's reserve.
const ROOM: usize = ARTIFACT_BUDGET - MARKER_RESERVE;

/// The size that counts, measured by `serde_json` itself, never by the meter under test.
fn json_len(artifacts: &[ToolArtifact]) -> usize {
    serde_json::to_vec(artifacts)
        .expect("artifacts serialise")
        .len()
}

/// What counts against [`ARTIFACT_BUDGET`]: the JSON, less media artifacts' base64, which counts
/// against [`MEDIA_ARTIFACT_BUDGET`] instead ([`media_len`]).
fn budget_len(artifacts: &[ToolArtifact]) -> usize {
    json_len(artifacts) - media_len(artifacts)
}

/// Media artifacts' base64, together.
fn media_len(artifacts: &[ToolArtifact]) -> usize {
    artifacts
        .iter()
        .filter_map(ToolArtifact::as_media)
        .map(|(_, base64)| base64.len())
        .sum()
}

/// The least of `artifact` a cut could keep: a table with its columns and no rows, an empty
/// text, and media whole (media is never cut).
fn frame(artifact: &ToolArtifact) -> ToolArtifact {
    if let Some(table) = artifact.as_table() {
        return ToolArtifact::table(artifact.label(), Table::new(table.columns()));
    }
    if artifact.as_media().is_some() {
        return artifact.clone();
    }
    ToolArtifact::text(artifact.label(), "")
}

/// `head` (a cut of `original`) grown by one row or one character.
fn one_more(head: &ToolArtifact, original: &ToolArtifact) -> ToolArtifact {
    if let (Some(cut), Some(full)) = (head.as_table(), original.as_table()) {
        let rows = &full.rows()[..=cut.rows().len()];
        let table = Table::from_rows(full.columns(), rows.iter().cloned()).expect("same width");
        return ToolArtifact::table(original.label(), table);
    }
    let (cut, full) = (head.as_text().unwrap(), original.as_text().unwrap());
    let next = full[cut.len()..]
        .chars()
        .next()
        .expect("a cut text is shorter");
    ToolArtifact::text(original.label(), &full[..cut.len() + next.len_utf8()])
}

/// What the marker says, built from the counts alone.
fn expected_marker(original: &[ToolArtifact], kept: &[ToolArtifact], whole: usize) -> String {
    let misfit = &original[whole];
    let label = echo(misfit.label());
    let kind = misfit.kind().as_str();
    let text = match (kept.get(whole), misfit.as_table()) {
        (None, _) => format!("Artifact \"{label}\" ({kind}) was dropped. "),
        (Some(head), Some(table)) => {
            let (cut, of) = (head.as_table().unwrap().rows().len(), table.rows().len());
            format!(
                "Artifact \"{label}\" ({kind}) was cut to its first {cut} of {of} rows ({} rows omitted). ",
                of - cut
            )
        }
        (Some(head), None) => {
            let (cut, of) = (
                head.as_text().unwrap().len(),
                misfit.as_text().unwrap().len(),
            );
            format!(
                "Artifact \"{label}\" ({kind}) was cut to its first {cut} of {of} bytes ({} bytes omitted). ",
                of - cut
            )
        }
    };
    let later = match original.len() - whole - 1 {
        0 => String::new(),
        1 => "1 later artifact was dropped. ".to_owned(),
        later => format!("{later} later artifacts were dropped. "),
    };
    let media = if original[whole..]
        .iter()
        .any(|artifact| artifact.as_media().is_some())
    {
        ", media artifacts' base64 apart: it is limited to 16777216 bytes"
    } else {
        ""
    };
    text + &later
        + "Artifacts are limited to 50000 bytes of serialised JSON per tool result"
        + media
        + "."
}

/// The bound keeps *as much as fits*, not only less than the budget: a list within the budget
/// passes as it is; of a list over it, the artifacts that fit the room whole are kept whole, the
/// first that does not is cut so that one more row or character would not fit (or dropped when
/// not even its label does), every later one is dropped, and the marker says exactly that.
fn check_keeps_as_much_as_fits(
    original: &[ToolArtifact],
    bounded: &[ToolArtifact],
) -> Result<(), String> {
    let bounded_len = budget_len(bounded);
    if bounded_len > ARTIFACT_BUDGET || media_len(bounded) > MEDIA_ARTIFACT_BUDGET {
        return Err(format!("the bounded list takes {bounded_len} bytes"));
    }
    if budget_len(original) <= ARTIFACT_BUDGET && media_len(original) <= MEDIA_ARTIFACT_BUDGET {
        return if bounded == original {
            Ok(())
        } else {
            Err("a list within the budget was changed".to_owned())
        };
    }
    let (marker, kept) = bounded.split_last().ok_or("no marker")?;
    if marker.label() != OMITTED_LABEL {
        return Err(format!("the last artifact is {:?}", marker.label()));
    }
    let whole = kept
        .iter()
        .zip(original)
        .take_while(|(kept, original)| kept == original)
        .count();
    if budget_len(&original[..=whole]) <= ROOM
        && media_len(&original[..=whole]) <= MEDIA_ARTIFACT_BUDGET
    {
        return Err(format!(
            "artifact {whole} fits whole but was not kept whole"
        ));
    }
    let mut grown = original[..whole].to_vec();
    match kept.len() - whole {
        0 => grown.push(frame(&original[whole])),
        1 => {
            let head = &kept[whole];
            let misfit = &original[whole];
            if head.label() != misfit.label() || head.kind() != misfit.kind() {
                return Err(format!("artifact {whole} was replaced, not cut"));
            }
            let is_head = match (head.as_table(), misfit.as_table()) {
                (Some(cut), Some(full)) => {
                    cut.columns() == full.columns()
                        && full.rows().starts_with(cut.rows())
                        && cut.rows().len() < full.rows().len()
                }
                _ => misfit
                    .as_text()
                    .unwrap()
                    .starts_with(head.as_text().unwrap()),
            };
            if !is_head {
                return Err(format!("artifact {whole} is not a head of the original"));
            }
            grown.push(one_more(head, misfit));
        }
        extra => return Err(format!("{extra} artifacts after the whole ones")),
    }
    let kept_len = budget_len(kept);
    if kept_len > ROOM {
        // What the bound's own meter says of the same list tells a miscount from a wrong cut.
        let metered = artifacts_len(kept, usize::MAX);
        return Err(format!(
            "the kept artifacts take {kept_len} bytes, past the room (the meter counts {metered:?})"
        ));
    }
    let grown_len = budget_len(&grown);
    if grown_len <= ROOM && media_len(&grown) <= MEDIA_ARTIFACT_BUDGET {
        return Err(format!(
            "one more row or character ({grown_len} bytes) would still have fitted"
        ));
    }
    let expected = expected_marker(original, kept, whole);
    if marker.as_text() != Some(expected.as_str()) {
        return Err(format!(
            "the marker says {:?}, not {expected:?}",
            marker.as_text()
        ));
    }
    Ok(())
}

fn assert_keeps_as_much_as_fits(original: &[ToolArtifact]) -> Vec<ToolArtifact> {
    let bounded = bound_artifacts(original.to_vec());
    if let Err(problem) = check_keeps_as_much_as_fits(original, &bounded) {
        panic!("{problem}");
    }
    bounded
}

/// A text artifact labelled `label` whose JSON, as a list of one, takes exactly `len` bytes.
fn text_of_len(label: &str, filler: char, len: usize) -> ToolArtifact {
    let frame = json_len(&[ToolArtifact::text(label, "")]);
    let count = (len - frame) / filler.len_utf8();
    let artifact = ToolArtifact::text(label, filler.to_string().repeat(count));
    assert_eq!(
        json_len(std::slice::from_ref(&artifact)),
        len,
        "filler must divide"
    );
    artifact
}

#[test]
fn artifacts_serialise_as_type_label_data() {
    let table = Table::from_rows(["a", "b"], [["1", "2"]]).unwrap();
    let json = serde_json::to_string(&[
        ToolArtifact::table("T", table),
        ToolArtifact::text("N", "x\"y"),
    ])
    .unwrap();
    assert_eq!(
        json,
        r#"[{"type":"table","label":"T","data":{"columns":["a","b"],"rows":[["1","2"]]}},{"type":"text","label":"N","data":{"text":"x\"y"}}]"#
    );
}

#[test]
fn media_serialises_as_its_mime_type_and_base64_and_is_kept_whole_or_dropped() {
    let media = ToolArtifact::media("pixel", "image/png", [0x89, b'P', b'N', b'G']);
    assert_eq!(media.as_media(), Some(("image/png", "iVBORw==")));
    assert_eq!(media.kind().as_str(), "media");
    assert_eq!(
        serde_json::to_string(&media).unwrap(),
        r#"{"type":"media","label":"pixel","data":{"mime_type":"image/png","base64":"iVBORw=="}}"#
    );
    assert_eq!(
        artifacts_len(std::slice::from_ref(&media), usize::MAX),
        Some(json_len(std::slice::from_ref(&media)))
    );

    // Media's base64 has a budget of its own: far past the artifact budget is kept whole...
    let screenshot = ToolArtifact::media("screenshot", "image/png", vec![7u8; 2_000_000]);
    let kept = vec![media.clone(), screenshot, ToolArtifact::text("later", "x")];
    assert_eq!(bound_artifacts(kept.clone()), kept);

    // ...and past its own budget, media is dropped, never cut: part of an image is none of it.
    // 12 582 915 bytes are 16 777 220 of base64, four past the budget.
    let big = ToolArtifact::media(
        "big",
        "audio/wav",
        vec![0u8; MEDIA_ARTIFACT_BUDGET / 4 * 3 + 3],
    );
    let bounded = bound_artifacts(vec![media.clone(), big, ToolArtifact::text("later", "x")]);
    assert_eq!(bounded.len(), 2);
    assert_eq!(bounded[0], media);
    assert_eq!(
        bounded[1].as_text(),
        Some(
            "Artifact \"big\" (media) was dropped. 1 later artifact was dropped. Artifacts are \
             limited to 50000 bytes of serialised JSON per tool result, media artifacts' base64 \
             apart: it is limited to 16777216 bytes."
        )
    );
    // Exactly the budget passes.
    let exact = ToolArtifact::media(
        "exact",
        "audio/wav",
        vec![0u8; MEDIA_ARTIFACT_BUDGET / 4 * 3],
    );
    assert_eq!(
        exact.as_media().map(|(_, base64)| base64.len()),
        Some(MEDIA_ARTIFACT_BUDGET)
    );
    assert_eq!(bound_artifacts(vec![exact.clone()]), [exact]);
}

#[test]
fn ragged_rows_are_refused_with_their_position() {
    let error = Table::from_rows(["a", "b"], [vec!["1", "2"], vec!["3"]]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "row 1 has 1 cells, but the table has 2 columns"
    );
    let mut table = Table::new(["a"]);
    assert!(table.push_row(["1", "2"]).is_err());
    assert_eq!(table.rows().len(), 0);
}

#[test]
fn a_list_that_fits_is_not_copied() {
    let artifacts = vec![ToolArtifact::text("small", "x")];
    assert!(cut_artifacts(&artifacts).is_none());
    assert_eq!(bound_artifacts(artifacts.clone()), artifacts);
    assert!(cut_content("short").is_none());
}

#[test]
fn a_list_of_exactly_the_budget_passes_unchanged() {
    let frame = json_len(&[ToolArtifact::text("t", "")]);
    let exact = vec![ToolArtifact::text("t", "x".repeat(ARTIFACT_BUDGET - frame))];
    assert_eq!(json_len(&exact), ARTIFACT_BUDGET);
    assert_eq!(bound_artifacts(exact.clone()), exact);

    let over = vec![ToolArtifact::text(
        "t",
        "x".repeat(ARTIFACT_BUDGET - frame + 1),
    )];
    let bounded = bound_artifacts(over);
    assert_eq!(bounded.len(), 2);
    assert!(json_len(&bounded) <= ARTIFACT_BUDGET);
}

#[test]
fn a_huge_text_is_cut_on_a_character_boundary_and_later_artifacts_dropped() {
    let artifacts = vec![
        ToolArtifact::text("first", "kept"),
        ToolArtifact::text("big", "é".repeat(1_000_000)),
        ToolArtifact::table("later", Table::new(["x"])),
        ToolArtifact::text("last", "y"),
    ];
    let bounded = bound_artifacts(artifacts);
    assert_eq!(bounded.len(), 3);
    assert_eq!(bounded[0], ToolArtifact::text("first", "kept"));
    let cut = bounded[1].as_text().unwrap();
    assert!(cut.chars().all(|c| c == 'é'));
    let kept = cut.len();
    assert_eq!(
        bounded[2].as_text().unwrap(),
        format!(
            "Artifact \"big\" (text) was cut to its first {kept} of 2000000 bytes ({} bytes omitted). \
             2 later artifacts were dropped. Artifacts are limited to 50000 bytes of serialised JSON per tool result.",
            2_000_000 - kept
        )
    );
    assert_eq!(bounded[2].label(), OMITTED_LABEL);
    assert!(json_len(&bounded) <= ARTIFACT_BUDGET);
}

#[test]
fn an_artifact_whose_label_alone_is_too_big_is_dropped() {
    let artifacts = vec![ToolArtifact::text("x".repeat(60_000), "body")];
    let bounded = bound_artifacts(artifacts);
    assert_eq!(bounded.len(), 1);
    assert_eq!(
        bounded[0].as_text().unwrap(),
        format!(
            "Artifact \"{}\" (text) was dropped. Artifacts are limited to 50000 bytes of serialised JSON per tool result.",
            "x".repeat(64)
        )
    );
}

#[test]
fn escapes_count_as_the_bytes_serde_writes() {
    // Each control character takes six bytes (\u0001), a quote two.
    let artifacts = vec![ToolArtifact::text("esc", "\u{1}\"".repeat(10_000))];
    assert_eq!(
        artifacts_len(&artifacts, usize::MAX),
        Some(json_len(&artifacts))
    );
    let bounded = bound_artifacts(artifacts);
    assert!(json_len(&bounded) <= ARTIFACT_BUDGET);
    assert!(
        json_len(&bounded) > ARTIFACT_BUDGET - 1024 - 8,
        "the cut uses the room it has"
    );
}

#[test]
fn several_artifacts_of_exactly_the_budget_pass_and_one_byte_more_is_cut_to_the_room() {
    let table = Table::from_rows(
        ["naïve", "quote\"d", "tab\t"],
        [["é€🦀", "\u{1}\\", "\u{2028}"], ["plain", "", "\n\r"]],
    )
    .unwrap();
    let notes = ToolArtifact::text("notes", "line\nwith \"quotes\" and \u{7f} and ж");
    let sized = |filler: usize| {
        vec![
            ToolArtifact::table("table", table.clone()),
            notes.clone(),
            ToolArtifact::text("pad", "x".repeat(filler)),
        ]
    };
    let base = json_len(&sized(0));
    let exact = sized(ARTIFACT_BUDGET - base);
    assert_eq!(json_len(&exact), 50_000);
    assert_eq!(artifacts_len(&exact, ARTIFACT_BUDGET), Some(50_000));
    assert!(cut_artifacts(&exact).is_none());
    assert_eq!(bound_artifacts(exact.clone()), exact);

    let over = sized(ARTIFACT_BUDGET - base + 1);
    assert_eq!(json_len(&over), 50_001);
    assert_eq!(artifacts_len(&over, ARTIFACT_BUDGET), None);
    let bounded = assert_keeps_as_much_as_fits(&over);
    let (marker, kept) = bounded.split_last().unwrap();
    assert_eq!(&kept[..2], &over[..2]);
    // ASCII filler: the cut fills the room to the byte.
    assert_eq!(json_len(kept), ROOM);
    let pad = over[2].as_text().unwrap().len();
    assert_eq!(kept[2].as_text().unwrap().len(), pad - (50_001 - ROOM));
    assert_eq!(
        marker.as_text().unwrap(),
        format!(
            "Artifact \"pad\" (text) was cut to its first {} of {pad} bytes (1025 bytes omitted). \
             Artifacts are limited to 50000 bytes of serialised JSON per tool result.",
            pad - 1025
        )
    );
}

#[test]
fn a_prefix_that_fills_the_room_exactly_is_kept_whole() {
    let first = text_of_len("a", 'x', ROOM);
    let list = [first.clone(), ToolArtifact::text("b", "y".repeat(10_000))];
    let bounded = assert_keeps_as_much_as_fits(&list);
    assert_eq!(bounded.len(), 2);
    assert_eq!(bounded[0], first);
    assert_eq!(
        bounded[1].as_text().unwrap(),
        "Artifact \"b\" (text) was dropped. \
         Artifacts are limited to 50000 bytes of serialised JSON per tool result."
    );
}

#[test]
fn a_prefix_one_byte_past_the_room_loses_exactly_one_byte() {
    let first = text_of_len("a", 'x', ROOM + 1);
    let len = first.as_text().unwrap().len();
    let list = [first, ToolArtifact::text("b", "y".repeat(2_000))];
    let bounded = assert_keeps_as_much_as_fits(&list);
    assert_eq!(bounded.len(), 2);
    assert_eq!(bounded[0].as_text().unwrap().len(), len - 1);
    assert_eq!(json_len(&bounded[..1]), ROOM);
    assert_eq!(
        bounded[1].as_text().unwrap(),
        format!(
            "Artifact \"a\" (text) was cut to its first {} of {len} bytes (1 bytes omitted). \
             1 later artifact was dropped. \
             Artifacts are limited to 50000 bytes of serialised JSON per tool result.",
            len - 1
        )
    );
}

#[test]
fn a_second_artifact_that_misses_the_room_by_its_separator_is_cut_by_one_byte() {
    let first = ToolArtifact::text("a", "first");
    // With the separator before it, the second artifact fills the room and one byte more.
    let second_len = ROOM + 1 - json_len(std::slice::from_ref(&first)) - 1 + 2;
    let second = text_of_len("b", 'x', second_len);
    assert_eq!(json_len(&[first.clone(), second.clone()]), ROOM + 1);
    let list = [
        first.clone(),
        second,
        ToolArtifact::text("c", "z".repeat(2_000)),
    ];
    let bounded = assert_keeps_as_much_as_fits(&list);
    assert_eq!(bounded[0], first);
    assert_eq!(json_len(&bounded[..2]), ROOM);
    assert!(
        bounded[2]
            .as_text()
            .unwrap()
            .contains("(1 bytes omitted). 1 later artifact was dropped.")
    );
}

#[test]
fn a_cut_after_several_artifacts_counts_every_separator() {
    // Three small artifacts, then a text that must be cut: the room holds the three, their
    // three separators (one before the cut text), and the head, to the byte.
    let small = [
        ToolArtifact::text("one", "1"),
        ToolArtifact::table("two", Table::from_rows(["c"], [["2"], ["22"]]).unwrap()),
        ToolArtifact::text("three", "333"),
    ];
    let mut list = small.to_vec();
    list.push(ToolArtifact::text("big", "z".repeat(60_000)));
    list.push(ToolArtifact::text("after", "dropped"));
    let bounded = assert_keeps_as_much_as_fits(&list);
    assert_eq!(&bounded[..3], &small);
    assert_eq!(json_len(&bounded[..4]), ROOM);
    let expected_head =
        ROOM - json_len(&small) - 1 - json_len(&[ToolArtifact::text("big", "")]) + 2;
    assert_eq!(bounded[3].as_text().unwrap().len(), expected_head);
    assert!(
        bounded[4]
            .as_text()
            .unwrap()
            .contains("1 later artifact was dropped.")
    );
}

#[test]
fn a_multibyte_text_is_cut_before_the_character_that_would_not_fit() {
    let frame = json_len(&[ToolArtifact::text("euro", "")]);
    // One character more than the room holds, whatever the remainder.
    let count = (ROOM - frame) / 3 + 1;
    let list = [
        ToolArtifact::text("euro", "€".repeat(count)),
        ToolArtifact::text("next", "n".repeat(5_000)),
    ];
    assert!(json_len(&list) > ARTIFACT_BUDGET);
    let bounded = assert_keeps_as_much_as_fits(&list);
    assert_eq!(bounded[0].as_text().unwrap(), "€".repeat(count - 1));
}

#[test]
fn a_table_keeps_every_leading_row_that_fits_and_an_escaped_row_counts_its_escapes() {
    let rows = (0..4_000).map(|id| [format!("{id:04}"), "\"\u{1}é".to_owned()]);
    let table = Table::from_rows(["id", "cell"], rows).unwrap();
    let list = [ToolArtifact::table("rows", table)];
    let bounded = assert_keeps_as_much_as_fits(&list);
    // Each row is `["0000","\"\u0001é"]`: 4 + 2 + 2 + 6 + 2 + 2 + 3 brackets and commas.
    let row = json_len(&[ToolArtifact::table(
        "rows",
        Table::from_rows(["id", "cell"], [["0000", "\"\u{1}é"]]).unwrap(),
    )]) - json_len(&[ToolArtifact::table("rows", Table::new(["id", "cell"]))]);
    assert_eq!(row, 21);
    let skeleton = json_len(&[ToolArtifact::table("rows", Table::new(["id", "cell"]))]);
    // Rows after the first take one more byte, their separator.
    let expected = (ROOM - skeleton - row) / (row + 1) + 1;
    assert_eq!(bounded[0].as_table().unwrap().rows().len(), expected);
}

#[test]
fn a_null_cell_counts_as_its_four_bytes_and_the_cut_is_exact() {
    // Rows of `[null,"1",null]` and `[null,null,null]` in turn: 15 and 16 bytes.
    let rows = (0..5_000).map(|id| {
        let middle = if id % 2 == 0 {
            Cell::from("1")
        } else {
            Cell::Null
        };
        [Cell::Null, middle, Cell::Null]
    });
    let table = Table::from_rows(["a", "b", "c"], rows).unwrap();
    assert_eq!(
        serde_json::to_string(&table.rows()[..2]).unwrap(),
        r#"[[null,"1",null],[null,null,null]]"#
    );
    let list = [ToolArtifact::table("nulls", table)];
    let bounded = assert_keeps_as_much_as_fits(&list);
    let skeleton = json_len(&[ToolArtifact::table("nulls", Table::new(["a", "b", "c"]))]);
    // The first row has no separator; every later row takes one more byte, its comma.
    let mut used = skeleton;
    let mut expected = 0;
    for id in 0..5_000 {
        let row = if id % 2 == 0 { 15 } else { 16 } + usize::from(id > 0);
        if used + row > ROOM {
            break;
        }
        used += row;
        expected += 1;
    }
    assert_eq!(bounded[0].as_table().unwrap().rows().len(), expected);
    assert_eq!(json_len(&bounded[..1]), used);
}

#[test]
fn a_table_whose_columns_alone_do_not_fit_is_dropped_and_an_empty_head_is_kept_when_they_do() {
    let wide: Vec<String> = (0..10_000).map(|index| format!("column {index}")).collect();
    let list = [ToolArtifact::table("wide", Table::new(wide))];
    let bounded = assert_keeps_as_much_as_fits(&list);
    assert_eq!(bounded.len(), 1);
    assert_eq!(
        bounded[0].as_text().unwrap(),
        "Artifact \"wide\" (table) was dropped. \
         Artifacts are limited to 50000 bytes of serialised JSON per tool result."
    );

    // Columns that fit, a first row that does not: the head keeps the columns and no row.
    let row = vec!["r".repeat(60_000)];
    let list = [ToolArtifact::table(
        "tall",
        Table::from_rows(["only"], [row]).unwrap(),
    )];
    let bounded = assert_keeps_as_much_as_fits(&list);
    assert_eq!(bounded[0].as_table().unwrap().columns(), ["only"]);
    assert!(bounded[0].as_table().unwrap().rows().is_empty());
}

#[test]
fn the_meter_agrees_with_serde_on_every_ascii_byte_and_stops_exactly_at_its_cap() {
    let every: String = (0u8..=0x7f).map(char::from).collect();
    let list = [
        ToolArtifact::text(every.clone(), every.clone()),
        ToolArtifact::table(
            "t",
            Table::from_rows(
                [every.clone()],
                [[every.clone()], ["é€🦀\u{2028}".to_owned()]],
            )
            .unwrap(),
        ),
        ToolArtifact::table("empty", Table::new(Vec::<String>::new())),
    ];
    let len = json_len(&list);
    assert_eq!(artifacts_len(&list, usize::MAX), Some(len));
    assert_eq!(artifacts_len(&list, len), Some(len));
    assert_eq!(artifacts_len(&list, len - 1), None);
    assert_eq!(artifacts_len(&[], 2), Some(2));
    assert_eq!(artifacts_len(&[], 1), None);
    for artifact in &list {
        let one = std::slice::from_ref(artifact);
        assert_eq!(artifacts_len(one, usize::MAX), Some(json_len(one)));
    }
}

#[test]
fn content_at_the_limit_is_not_copied_and_past_it_keeps_the_longest_head_that_fits() {
    let head_room = CONTENT_LIMIT - TRUNCATION_MARKER.len();
    assert_eq!(head_room, 49_958);
    for len in [0, head_room, head_room + 1, CONTENT_LIMIT] {
        assert_eq!(cut_content(&"a".repeat(len)), None, "{len} bytes");
    }
    assert_eq!(
        cut_content(&"a".repeat(CONTENT_LIMIT + 1)),
        Some(format!("{}{TRUNCATION_MARKER}", "a".repeat(head_room)))
    );
    // 2-, 3- and 4-byte characters: the head ends on the last whole character that fits.
    for (character, kept) in [('é', 24_979), ('€', 16_652), ('🦀', 12_489)] {
        let content = character.to_string().repeat(CONTENT_LIMIT);
        let cut = cut_content(&content).expect("past the limit");
        assert_eq!(
            cut,
            format!("{}{TRUNCATION_MARKER}", character.to_string().repeat(kept)),
            "{character}"
        );
        assert!(cut.len() <= CONTENT_LIMIT);
        assert!(cut.len() + character.len_utf8() > CONTENT_LIMIT);
    }
    // Mixed: an ASCII head, then a 4-byte character straddling the cut.
    let content = format!("{}🦀{}", "a".repeat(head_room - 2), "b".repeat(100));
    assert_eq!(
        cut_content(&content),
        Some(format!("{}{TRUNCATION_MARKER}", "a".repeat(head_room - 2)))
    );
}

#[test]
fn content_bound_keeps_short_content_and_cuts_long_content() {
    assert_eq!(
        bound_content("a".repeat(CONTENT_LIMIT)),
        "a".repeat(CONTENT_LIMIT)
    );
    let cut = bound_content("b".repeat(10 * CONTENT_LIMIT));
    assert_eq!(cut.len(), CONTENT_LIMIT);
    assert!(cut.ends_with(TRUNCATION_MARKER));
}

/// Characters that stress the encoding: controls, quotes, backslashes, 2-, 3- and 4-byte UTF-8.
const PALETTE: [char; 12] = [
    'a', 'Z', ' ', '"', '\\', '\n', '\u{1}', '\u{7f}', 'é', '€', '\u{2028}', '🦀',
];

/// `len` characters drawn from [`PALETTE`] by a small generator seeded from `seed`: cheap to
/// make in bulk, unlike a regex strategy per cell.
fn palette_text(mut seed: u64, len: usize) -> String {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            PALETTE[usize::from(seed.to_le_bytes()[0]) % PALETTE.len()]
        })
        .collect()
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        // Any characters at all.
        prop::collection::vec(any::<char>(), 0..40).prop_map(String::from_iter),
        // Long runs of one character, often past the budget.
        (any::<char>(), 0usize..30_000).prop_map(|(c, n)| c.to_string().repeat(n)),
        // Mixed text of any length up to past the budget.
        (1u64.., 0usize..20_000).prop_map(|(seed, len)| palette_text(seed, len)),
    ]
}

fn table() -> impl Strategy<Value = Table> {
    (
        1usize..5,
        0usize..400,
        0usize..100,
        1u64..,
        prop::collection::vec(text(), 4),
    )
        .prop_map(|(width, rows, cell_len, seed, columns)| {
            let rows = (0..rows).map(|row| {
                (0..width)
                    .map(|column| {
                        let cell = row * width + column;
                        let cell_seed = seed.rotate_left(u32::try_from(cell % 64).unwrap_or(0)) | 1;
                        // About one cell in seven has no value.
                        if cell_seed % 7 == 0 {
                            Cell::Null
                        } else {
                            Cell::from(palette_text(cell_seed, (cell * 7919) % (cell_len + 1)))
                        }
                    })
                    .collect::<Vec<_>>()
            });
            Table::from_rows(columns.into_iter().take(width), rows)
                .expect("rows of the table's width")
        })
}

fn artifact() -> impl Strategy<Value = ToolArtifact> {
    prop_oneof![
        (text(), table()).prop_map(|(label, table)| ToolArtifact::table(label, table)),
        (text(), text()).prop_map(|(label, body)| ToolArtifact::text(label, body)),
        // Media of a hostile MIME type, up to past the budget if it counted there (its base64
        // counts against a budget of its own).
        (text(), text(), 0usize..40_000, any::<u8>()).prop_map(|(label, mime, len, byte)| {
            ToolArtifact::media(label, mime, vec![byte; len])
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn bounded_artifacts_serialise_within_budget_and_keep_what_fits(
        artifacts in prop::collection::vec(artifact(), 0..6)
    ) {
        let original_len = json_len(&artifacts);
        prop_assert_eq!(artifacts_len(&artifacts, usize::MAX), Some(original_len));
        let bounded = bound_artifacts(artifacts.clone());
        let bounded_len = budget_len(&bounded);
        prop_assert!(bounded_len <= ARTIFACT_BUDGET, "bounded list is {} bytes", bounded_len);
        prop_assert_eq!(artifacts_len(&bounded, usize::MAX), Some(json_len(&bounded)));

        let maximal = check_keeps_as_much_as_fits(&artifacts, &bounded);
        prop_assert!(maximal.is_ok(), "{}", maximal.unwrap_err());
        if budget_len(&artifacts) <= ARTIFACT_BUDGET {
            prop_assert_eq!(bounded, artifacts);
        } else {
            let (marker, kept) = bounded.split_last().expect("a marker at the end");
            prop_assert_eq!(marker.label(), OMITTED_LABEL);
            prop_assert!(kept.len() <= artifacts.len());
            // Every kept artifact but the last is the original, unchanged; the last is the
            // original or its head.
            if let Some((last, whole)) = kept.split_last() {
                prop_assert_eq!(whole, &artifacts[..whole.len()]);
                let original = &artifacts[whole.len()];
                prop_assert_eq!(last.label(), original.label());
                if let (Some(cut), Some(full)) = (last.as_table(), original.as_table()) {
                    prop_assert_eq!(cut.columns(), full.columns());
                    prop_assert_eq!(cut.rows(), &full.rows()[..cut.rows().len()]);
                } else if last != original {
                    // Only a text is cut short: media is kept whole or dropped.
                    let (cut, full) = (last.as_text().unwrap(), original.as_text().unwrap());
                    prop_assert!(full.starts_with(cut));
                }
            }
        }
    }

    #[test]
    fn an_echo_is_the_head_of_64_bytes_with_every_control_character_escaped(
        name in prop_oneof!["[ -~]{0,80}", "[\\x00-\\x7f]{0,80}", "(?s).{0,80}"]
    ) {
        let mut cut = name.len().min(64);
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        let expected: String = name[..cut]
            .chars()
            .map(|c| if c.is_control() { c.escape_debug().to_string() } else { c.to_string() })
            .collect();
        prop_assert_eq!(echo(&name), expected);
    }

    #[test]
    fn bounded_content_is_valid_within_limit_and_a_prefix(content in text(), extra in 0usize..60_000) {
        let content = format!("{content}{}", "ж".repeat(extra / 2));
        let bounded = bound_content(content.clone());
        prop_assert!(bounded.len() <= CONTENT_LIMIT);
        if content.len() <= CONTENT_LIMIT {
            prop_assert_eq!(bounded, content);
        } else {
            let head = bounded.strip_suffix(TRUNCATION_MARKER).expect("marker at the end");
            prop_assert!(content.starts_with(head));
            prop_assert!(head.len() > CONTENT_LIMIT - TRUNCATION_MARKER.len() - 4);
        }
    }
}

/// A filter that replaces every `x` by `yy` (it grows what it sees) and remembers how many bytes
/// it was given.
struct Doubling(std::sync::atomic::AtomicUsize);

impl toolkit::seam::ContentFilter for Doubling {
    fn filter<'a>(&self, content: &'a str) -> std::borrow::Cow<'a, str> {
        self.0
            .store(content.len(), std::sync::atomic::Ordering::SeqCst);
        if content.contains('x') {
            std::borrow::Cow::Owned(content.replace('x', "yy"))
        } else {
            std::borrow::Cow::Borrowed(content)
        }
    }
}

fn filtered(content: String) -> (String, usize) {
    let filter = Doubling(std::sync::atomic::AtomicUsize::new(usize::MAX));
    let bounded = toolkit::bound::bound_filtered_content(content, &filter);
    (bounded, filter.0.load(std::sync::atomic::Ordering::SeqCst))
}

#[test]
fn the_filter_sees_the_limit_and_exactly_sixteen_kib_more() {
    use toolkit::limits::FILTER_MARGIN;
    assert_eq!(FILTER_MARGIN, 16 * 1024);
    let window = CONTENT_LIMIT + FILTER_MARGIN;
    // Short content: filtered whole, returned as the filter made it.
    assert_eq!(filtered("a x b".to_owned()), ("a yy b".to_owned(), 5));
    assert_eq!(filtered("plain".to_owned()), ("plain".to_owned(), 5));
    // Exactly the window: seen whole.
    let (bounded, seen) = filtered("a".repeat(window));
    assert_eq!(seen, window);
    assert_eq!(bounded.len(), CONTENT_LIMIT);
    assert!(bounded.ends_with(TRUNCATION_MARKER));
    // One byte more: the filter sees the window only.
    let (bounded, seen) = filtered("a".repeat(window + 1));
    assert_eq!(seen, window);
    assert_eq!(
        bounded,
        format!(
            "{}{TRUNCATION_MARKER}",
            "a".repeat(CONTENT_LIMIT - TRUNCATION_MARKER.len())
        )
    );
    // What the filter grew is cut to the limit, on both paths.
    let (bounded, _) = filtered("x".repeat(window * 3));
    assert_eq!(
        bounded,
        format!(
            "{}{TRUNCATION_MARKER}",
            "y".repeat(CONTENT_LIMIT - TRUNCATION_MARKER.len())
        )
    );
    let (bounded, _) = filtered("x".repeat(CONTENT_LIMIT - 10));
    assert_eq!(bounded.len(), CONTENT_LIMIT);
    assert!(bounded.starts_with("yyyy") && bounded.ends_with(TRUNCATION_MARKER));
    // A multi-byte character straddling the cut is left out whole.
    let (bounded, _) = filtered(format!(
        "{}é{}",
        "a".repeat(CONTENT_LIMIT - TRUNCATION_MARKER.len() - 1),
        "a".repeat(window)
    ));
    assert_eq!(bounded.len(), CONTENT_LIMIT - 1);
    assert!(bounded.ends_with(&format!("a{TRUNCATION_MARKER}")));
}
