//! Artifacts for a terminal: tables with aligned columns, texts as they are. Control characters
//! from tool data are escaped, so a cell cannot move the cursor or recolour the terminal.

use std::fmt::Write as _;

use toolkit::ToolArtifact;

/// Widest column printed, in characters (a longer cell is cut and ends with `…`).
pub const COLUMN_WIDTH: usize = 40;

/// Most rows printed per table.
pub const ROW_LIMIT: usize = 50;

/// `text` with every character a person could not see or that reorders text around it (the
/// set an approval shows written out: [`toolkit::approval::is_hidden`]; newlines and tabs too
/// unless `keep_lines`) escaped as `\u{..}`: a value can neither move the cursor nor reorder or
/// hide what is printed around it.
pub fn inert(text: &str, keep_lines: bool) -> String {
    toolkit::approval::inert(text, keep_lines).into_owned()
}

fn cell(text: &str) -> String {
    let text = inert(text, false);
    if text.chars().count() > COLUMN_WIDTH {
        let mut cut: String = text.chars().take(COLUMN_WIDTH - 1).collect();
        cut.push('…');
        cut
    } else {
        text
    }
}

/// One artifact as terminal text, ending with a newline.
pub fn render(artifact: &ToolArtifact) -> String {
    let mut out = format!(
        "-- {} ({})\n",
        inert(artifact.label(), false),
        artifact.kind().as_str()
    );
    if let Some(table) = artifact.as_table() {
        let columns: Vec<String> = table.columns().iter().map(|name| cell(name)).collect();
        let rows: Vec<Vec<String>> = table
            .rows()
            .iter()
            .take(ROW_LIMIT)
            .map(|row| row.iter().map(|value| cell(&value.to_string())).collect())
            .collect();
        let mut widths: Vec<usize> = columns.iter().map(|name| name.chars().count()).collect();
        for row in &rows {
            for (width, value) in widths.iter_mut().zip(row) {
                *width = (*width).max(value.chars().count());
            }
        }
        let line = |values: &[String], out: &mut String| {
            let padded: Vec<String> = values
                .iter()
                .zip(&widths)
                .map(|(value, width)| format!("{value:<width$}"))
                .collect();
            let _ = writeln!(out, "| {} |", padded.join(" | "));
        };
        line(&columns, &mut out);
        let rule: Vec<String> = widths.iter().map(|width| "-".repeat(*width)).collect();
        let _ = writeln!(out, "|-{}-|", rule.join("-|-"));
        for row in &rows {
            line(row, &mut out);
        }
        let total = table.rows().len();
        if total > ROW_LIMIT {
            let _ = writeln!(out, "({} more rows not shown)", total - ROW_LIMIT);
        }
        let _ = writeln!(out, "({total} {})", if total == 1 { "row" } else { "rows" });
    } else if let Some(text) = artifact.as_text() {
        out.push_str(&inert(text, true));
        if !text.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use toolkit::{Table, ToolArtifact, result::Cell};

    use super::{inert, render};

    #[test]
    fn tables_align_and_escape_control_characters() {
        let table = Table::from_rows(["name", "n"], [["a\u{1b}[31m", "10"], ["bcd", "2"]])
            .expect("two columns");
        let shown = render(&ToolArtifact::table("T", table));
        assert_eq!(
            shown,
            "-- T (table)\n| name        | n  |\n|-------------|----|\n| a\\u{1b}[31m | 10 |\n| bcd         | 2  |\n(2 rows)\n"
        );
    }

    #[test]
    fn bidi_controls_and_invisible_characters_are_escaped() {
        assert_eq!(
            inert("a\u{202e}b\u{2066}c\u{200b}d\u{feff}e\u{61c}f", true),
            "a\\u{202e}b\\u{2066}c\\u{200b}d\\u{feff}e\\u{61c}f"
        );
        let table = Table::from_rows(["n\u{202e}ame"], [["x\u{2067}y"]]).expect("one column");
        assert_eq!(
            render(&ToolArtifact::table("T\u{200d}", table)),
            "-- T\\u{200d} (table)\n| n\\u{202e}ame |\n|--------------|\n| x\\u{2067}y   |\n(1 row)\n"
        );
    }

    #[test]
    fn null_reads_as_null_and_a_text_that_looks_like_it_is_quoted() {
        let table = Table::from_rows(
            ["v"],
            [[Cell::Null], [Cell::from("null")], [Cell::from("\"x")]],
        )
        .expect("one column");
        assert_eq!(
            render(&ToolArtifact::table("T", table)),
            "-- T (table)\n| v      |\n|--------|\n| NULL   |\n| \"null\" |\n| \"\\\"x\"  |\n(3 rows)\n"
        );
    }

    #[test]
    fn texts_keep_lines_only() {
        assert_eq!(inert("a\nb\u{7}", true), "a\nb\\u{7}");
        assert_eq!(inert("a\nb", false), "a\\u{a}b");
    }
}
