//! A tool's documentation as a model should read it.
//!
//! `#[tool]` takes its description from the function's doc comment (or `description = ".."`,
//! or `#[doc = include_str!("..")]`), written for rustdoc. [`for_model`] keeps what helps a model
//! and drops what only helps a Rust reader:
//!
//! - lines of a paragraph join into one line; paragraphs are separated by a blank line;
//! - code blocks stay blocks, line by line, with rustdoc's hidden lines (`# ...`) removed;
//! - intra-doc links lose their brackets (``[`Table`]`` becomes `` `Table` ``,
//!   `[the seam](crate::Seam)` becomes `the seam`), and reference definitions are dropped; links
//!   to web addresses stay;
//! - the sections for Rust callers (`# Examples`, `# Panics`, `# Errors`, `# Safety`) are
//!   dropped, up to the next heading.

/// Headings whose sections are for Rust callers only.
const CALLER_SECTIONS: &[&str] = &["examples", "example", "panics", "errors", "safety"];

/// The description for a model from rustdoc text (see the [module](self) for what changes).
///
/// ```
/// let doc = " Counts the words.\n\n # Examples\n\n ```\n # use x;\n count(\"a b\");\n ```";
/// assert_eq!(toolkit::spec::describe::for_model(doc), "Counts the words.");
/// ```
pub fn for_model(doc: &str) -> String {
    let mut out = Description::default();
    let mut fence: Option<Fence> = None;
    let mut skipping = false;
    for line in doc.lines() {
        let line = line.strip_prefix(' ').unwrap_or(line).trim_end();
        let trimmed = line.trim_start();
        if let Some(open) = &mut fence {
            if trimmed.starts_with(open.marker) {
                open.text.push_str(open.marker);
                let block = std::mem::take(&mut open.text);
                fence = None;
                if !skipping {
                    out.block(block);
                }
            } else if !(open.rust && (trimmed == "#" || trimmed.starts_with("# "))) {
                open.text.push_str(line);
                open.text.push('\n');
            }
            continue;
        }
        if let Some(marker) = ["```", "~~~"]
            .into_iter()
            .find(|marker| trimmed.starts_with(marker))
        {
            let info = trimmed[marker.len()..].trim();
            let rust = is_rust(info);
            let language = if rust { "rust" } else { info };
            fence = Some(Fence {
                marker,
                rust,
                text: format!("{marker}{language}\n"),
            });
            out.end_paragraph();
            continue;
        }
        if let Some(title) = heading(trimmed) {
            out.end_paragraph();
            skipping = CALLER_SECTIONS.contains(&title.to_ascii_lowercase().as_str());
            if !skipping {
                out.block(links(trimmed));
            }
            continue;
        }
        if skipping || is_reference_definition(trimmed) {
            continue;
        }
        if trimmed.is_empty() {
            out.end_paragraph();
        } else {
            out.line(&links(trimmed));
        }
    }
    // An unclosed block is kept as it was written.
    if let Some(open) = fence
        && !skipping
    {
        out.block(open.text.trim_end().to_owned());
    }
    out.finish()
}

struct Fence {
    marker: &'static str,
    rust: bool,
    text: String,
}

#[derive(Default)]
struct Description {
    parts: Vec<String>,
    current: String,
}

impl Description {
    fn line(&mut self, line: &str) {
        if !self.current.is_empty() {
            self.current.push(' ');
        }
        self.current.push_str(line);
    }

    fn end_paragraph(&mut self) {
        if !self.current.is_empty() {
            self.parts.push(std::mem::take(&mut self.current));
        }
    }

    fn block(&mut self, block: String) {
        self.end_paragraph();
        self.parts.push(block);
    }

    fn finish(mut self) -> String {
        self.end_paragraph();
        self.parts.join("\n\n")
    }
}

/// Whether a fence's info string means Rust (rustdoc's default for a bare fence).
fn is_rust(info: &str) -> bool {
    info.is_empty()
        || info.split(',').map(str::trim).all(|word| {
            matches!(
                word,
                "rust"
                    | "ignore"
                    | "no_run"
                    | "compile_fail"
                    | "should_panic"
                    | "edition2021"
                    | "edition2024"
            )
        })
}

/// The title of a Markdown heading (`# Title` to `###### Title`).
fn heading(line: &str) -> Option<&str> {
    let level = line.bytes().take_while(|byte| *byte == b'#').count();
    if (1..=6).contains(&level) && line[level..].starts_with(' ') {
        Some(line[level..].trim())
    } else {
        None
    }
}

/// `[name]: target`, a link's reference definition.
fn is_reference_definition(line: &str) -> bool {
    line.starts_with('[')
        && line
            .find("]:")
            .is_some_and(|end| end > 1 && !line[1..end].contains(']'))
}

/// `text` with intra-doc links unwrapped: `[x](path)` and `[x][ref]` become `x`, and `[x]`
/// becomes `x` when `x` names an item (a code span or a path); web links stay.
fn links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &after[..close];
        let tail = &after[close + 1..];
        if let Some(target) = tail.strip_prefix('(')
            && let Some(end) = target.find(')')
        {
            let address = &target[..end];
            if address.contains("://") || address.starts_with("mailto:") {
                // `[`, the text, `](`, the address, `)`.
                let length = close + end + 4;
                out.push_str(&rest[open..open + length]);
            } else {
                out.push_str(inner);
            }
            rest = &target[end + 1..];
        } else if let Some(reference) = tail.strip_prefix('[')
            && let Some(end) = reference.find(']')
        {
            out.push_str(inner);
            rest = &reference[end + 1..];
        } else if names_an_item(inner) {
            out.push_str(inner);
            rest = tail;
        } else {
            out.push('[');
            out.push_str(inner);
            out.push(']');
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

fn names_an_item(text: &str) -> bool {
    let code = text.len() > 2 && text.starts_with('`') && text.ends_with('`');
    let path = text
        .trim_end_matches("()")
        .trim_end_matches('!')
        .split("::")
        .all(|segment| {
            segment
                .chars()
                .next()
                .is_some_and(|first| first.is_alphabetic() || first == '_')
                && segment
                    .chars()
                    .all(|character| character.is_alphanumeric() || character == '_')
        });
    code || (path && !text.is_empty())
}

/// The first sentence of a description (cleaned by [`for_model`]) as a tool's title: up to its
/// first `.`, `!` or `?` followed by a space or the end, outside code spans, or its first `:` or
/// `;` followed by a space or the end, outside code spans and parentheses (what follows is
/// detail), or the end of its first line; without the closing `.`, `:` or `;` (a `!` or `?`
/// stays); a heading's `#`s dropped; cut at a word, ending in `…`, to
/// [`TOOL_TITLE_LIMIT`](crate::limits::TOOL_TITLE_LIMIT) characters. Empty when the description
/// is, or opens with a code block.
pub(crate) fn first_sentence(description: &str) -> std::borrow::Cow<'_, str> {
    let line = description.lines().next().unwrap_or_default().trim();
    if line.starts_with("```") || line.starts_with("~~~") {
        return std::borrow::Cow::Borrowed("");
    }
    let line = heading(line).unwrap_or(line);
    let mut in_code = false;
    let mut depth = 0_usize;
    let mut end = line.len();
    let mut characters = line.char_indices().peekable();
    while let Some((index, character)) = characters.next() {
        let ends = characters
            .peek()
            .is_none_or(|(_, next)| next.is_whitespace());
        match character {
            '`' => in_code = !in_code,
            _ if in_code => {}
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '!' | '?' if ends => {
                end = index + 1;
                break;
            }
            '.' if ends => {
                end = index;
                break;
            }
            ':' | ';' if ends && depth == 0 => {
                end = index;
                break;
            }
            _ => {}
        }
    }
    let sentence = line[..end].trim_end();
    let limit = crate::limits::TOOL_TITLE_LIMIT;
    if sentence.chars().count() <= limit {
        return std::borrow::Cow::Borrowed(sentence);
    }
    // Room for the `…`, then back to the last word that fits whole.
    let room = sentence
        .char_indices()
        .nth(limit - 1)
        .map_or(sentence.len(), |(index, _)| index);
    let head = &sentence[..room];
    let head = if sentence[room..].starts_with(char::is_whitespace) {
        head
    } else {
        head.rsplit_once(char::is_whitespace)
            .map_or(head, |(words, _)| words)
    };
    std::borrow::Cow::Owned(format!("{}…", head.trim_end()))
}

#[cfg(test)]
mod tests {
    use super::{first_sentence, for_model};

    #[test]
    fn a_title_is_the_first_sentence_without_its_period() {
        for (description, title) in [
            (
                "Reads a file.\n\nOnly inside the workspace.",
                "Reads a file",
            ),
            ("Counts. Then stops.", "Counts"),
            ("Is it up? Asks once.", "Is it up?"),
            ("Stop! Now.", "Stop!"),
            ("No period at all", "No period at all"),
            (
                "Evaluates `7.0 / 2. x` and `a. b`. Then more.",
                "Evaluates `7.0 / 2. x` and `a. b`",
            ),
            ("Version 1.2 of it.", "Version 1.2 of it"),
            ("Runs a query:\n\n```sql\nSELECT 1\n```", "Runs a query"),
            ("Lists a folder: each entry's name. More.", "Lists a folder"),
            (
                "Edits a file in order; each edit once.",
                "Edits a file in order",
            ),
            (
                "Encodes text (padded or not; spaces ignored) as Base64. More.",
                "Encodes text (padded or not; spaces ignored) as Base64",
            ),
            (
                "Matches `a: b; c` literally. More.",
                "Matches `a: b; c` literally",
            ),
            ("At 09:30 sharp. More.", "At 09:30 sharp"),
            ("# Weather\n\nGets it.", "Weather"),
            ("```sql\nSELECT 1\n```", ""),
            ("", ""),
        ] {
            assert_eq!(first_sentence(description), title, "{description:?}");
        }
    }

    #[test]
    fn a_long_first_sentence_is_cut_at_a_word_to_the_limit() {
        let long = format!("{} end.", "word ".repeat(30));
        let title = first_sentence(&long);
        assert_eq!(title, format!("{}…", ["word"; 20].join(" ")));
        assert_eq!(title.chars().count(), 100);
        // A word that would not fit whole is left out.
        let long = format!("{} end.", "words ".repeat(30));
        assert_eq!(
            first_sentence(&long),
            format!("{}…", ["words"; 16].join(" "))
        );
        // One word longer than the limit is cut inside it.
        let word = "x".repeat(150);
        let title = first_sentence(&word);
        assert_eq!(title, format!("{}…", "x".repeat(99)));
        assert_eq!(title.chars().count(), 100);
        // Exactly the limit stays whole.
        let exact = "é".repeat(100);
        assert_eq!(first_sentence(&exact), exact);
    }

    #[test]
    fn paragraphs_join_and_keep_their_breaks() {
        assert_eq!(
            for_model(" Searches orders by conditions.\n\n Returns at most `limit`\n orders."),
            "Searches orders by conditions.\n\nReturns at most `limit` orders."
        );
        assert_eq!(for_model(""), "");
    }

    #[test]
    fn intra_doc_links_lose_their_brackets_and_web_links_stay() {
        assert_eq!(
            for_model(
                " Reads a [`Table`], see [the seam](crate::Seam), [Self::run] and [docs][d];\n see [RFC 4180](https://www.rfc-editor.org/rfc/rfc4180) and [1, 2].\n\n [d]: crate::docs"
            ),
            "Reads a `Table`, see the seam, Self::run and docs; see [RFC 4180](https://www.rfc-editor.org/rfc/rfc4180) and [1, 2]."
        );
    }

    #[test]
    fn code_blocks_stay_blocks_without_hidden_lines() {
        assert_eq!(
            for_model(
                " Runs a query:\n\n ```sql\n SELECT *\n   FROM t\n ```\n\n ```\n # let x = 1;\n call(x);\n ```\n Then done."
            ),
            "Runs a query:\n\n```sql\nSELECT *\n  FROM t\n```\n\n```rust\ncall(x);\n```\n\nThen done."
        );
    }

    #[test]
    fn unbalanced_markup_is_kept_as_written() {
        assert_eq!(
            for_model(" A [half link and ](no end\n\n ```\n open block"),
            "A [half link and ](no end\n\n```rust\nopen block"
        );
        assert_eq!(for_model(" [] and [`x`"), "[] and [`x`");
        assert_eq!(for_model(" ####### not a heading"), "####### not a heading");
    }

    #[test]
    fn sections_for_rust_callers_are_dropped_up_to_the_next_heading() {
        assert_eq!(
            for_model(
                " Counts.\n\n # Examples\n\n ```\n count();\n ```\n\n # Errors\n\n When it fails.\n\n # Limits\n\n At most 5."
            ),
            "Counts.\n\n# Limits\n\nAt most 5."
        );
    }
}
