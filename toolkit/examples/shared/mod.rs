//! Two small tools the examples share: what each returns to the model is one line, and what it
//! shows people is a table.

use toolkit::{Table, ToolArtifact, ToolResult, tool};

/// Counts the words of a text and lists each distinct word with how often it occurs.
#[tool]
pub fn count_words(
    /// The text to count.
    text: String,
) -> Result<ToolResult, toolkit::result::TableError> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for word in text.split_whitespace() {
        let word = word
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        match counts.iter_mut().find(|(seen, _)| *seen == word) {
            Some((_, count)) => *count += 1,
            None => counts.push((word, 1)),
        }
    }
    let total: usize = counts.iter().map(|(_, count)| count).sum();
    let rows = counts
        .iter()
        .map(|(word, count)| [word.clone(), count.to_string()]);
    let table = Table::from_rows(["word", "count"], rows)?;
    Ok(ToolResult::text_with(
        format!("{total} words, {} distinct", counts.len()),
        [ToolArtifact::table("Words", table)],
    ))
}

/// Finds the `key=number` pairs in a text.
#[tool]
pub fn find_numbers(
    /// The text to search.
    text: String,
) -> Result<ToolResult, toolkit::result::TableError> {
    let pairs: Vec<(&str, &str)> = text
        .split_whitespace()
        .filter_map(|word| word.split_once('='))
        .filter(|(_, value)| !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    let listed: Vec<String> = pairs
        .iter()
        .map(|(key, value)| format!("{key} {value}"))
        .collect();
    let table = Table::from_rows(["key", "value"], pairs.iter().map(|(k, v)| [*k, *v]))?;
    Ok(ToolResult::text_with(
        format!("{} pairs: {}", pairs.len(), listed.join(", ")),
        [ToolArtifact::table("Pairs", table)],
    ))
}

/// One artifact as terminal text: a table with aligned columns, or the text.
pub fn print_artifact(artifact: &ToolArtifact) {
    println!("-- {} ({})", artifact.label(), artifact.kind().as_str());
    if let Some(table) = artifact.as_table() {
        // `Cell`'s `Display` writes NULL so that it cannot be taken for a text.
        let rows: Vec<Vec<String>> = table
            .rows()
            .iter()
            .map(|row| row.iter().map(ToString::to_string).collect())
            .collect();
        let widths: Vec<usize> = (0..table.columns().len())
            .map(|column| {
                std::iter::once(&table.columns()[column])
                    .chain(rows.iter().map(|row| &row[column]))
                    .map(|cell| cell.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(cell, width)| format!("{cell:<width$}"))
                .collect();
            println!("| {} |", padded.join(" | "));
        };
        line(table.columns());
        let rule: Vec<String> = widths.iter().map(|width| "-".repeat(width + 2)).collect();
        println!("|{}|", rule.join("|"));
        for row in &rows {
            line(row);
        }
    } else if let Some(text) = artifact.as_text() {
        println!("{text}");
    }
}
