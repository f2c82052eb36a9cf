//! Both bounds, checked against `serde_json` itself: sizes, order, nothing lost that fits.

use proptest::prelude::*;
use toolkit::bound::{
    ARTIFACT_BUDGET, CONTENT_LIMIT, OMITTED_LABEL, TRUNCATION_MARKER, bound_artifacts,
    bound_content, cut_artifacts, cut_content,
};
use toolkit::{Table, ToolArtifact, artifacts_len};

fn json_len(artifacts: &[ToolArtifact]) -> usize {
    serde_json::to_vec(artifacts)
        .expect("artifacts serialise")
        .len()
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
                        palette_text(cell_seed, (cell * 7919) % (cell_len + 1))
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
        let bounded_len = json_len(&bounded);
        prop_assert!(bounded_len <= ARTIFACT_BUDGET, "bounded list is {} bytes", bounded_len);
        prop_assert_eq!(artifacts_len(&bounded, usize::MAX), Some(bounded_len));

        if original_len <= ARTIFACT_BUDGET {
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
                } else {
                    let (cut, full) = (last.as_text().unwrap(), original.as_text().unwrap());
                    prop_assert!(full.starts_with(cut));
                }
            }
        }
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
