//! The characters a person could not see, or that change how the text around them is shown,
//! and text with them written out: one set for every surface that shows hostile text (an
//! approval, a terminal, an artifact's `Display`).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `character` is written out where hostile text is shown (an approval's
/// `visible`, a terminal's [`inert`]): a character a person could not see, or that
/// changes how the text around it is shown (a line feed and a tab are neither).
///
/// ```
/// use toolkit::approval::is_hidden;
///
/// assert!(is_hidden('\u{202e}') && is_hidden('\u{200b}') && is_hidden('\u{1b}'));
/// assert!(!is_hidden('\n') && !is_hidden('é') && !is_hidden(' '));
/// ```
pub fn is_hidden(character: char) -> bool {
    match character {
        '\n' | '\t' => false,
        // C0, DEL and C1 controls: the carriage return, the vertical tab, the form feed, the
        // next-line character U+0085, the escape of terminal sequences.
        character if character.is_control() => true,
        // Spaces other than U+0020, soft hyphen, combining grapheme joiner, Arabic letter mark,
        // fillers, Ogham space, Khmer inherent vowels, Mongolian selectors.
        '\u{00A0}' | '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{1680}'
        | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}'
        // Spaces, zero-width characters, direction marks, separators, embeddings, overrides,
        // isolates, invisible operators and deprecated format characters.
        | '\u{2000}'..='\u{200F}' | '\u{2028}'..='\u{202F}' | '\u{205F}'..='\u{206F}'
        | '\u{2800}' | '\u{3000}' | '\u{3164}'
        // Variation selectors, the byte order mark, the halfwidth filler, interlinear
        // annotations and the specials Unicode keeps invisible.
        | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}'
        // Shorthand format controls, musical symbol formats, tags and their selectors.
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}' => true,
        _ => false,
    }
}

/// `text` with every character [`is_hidden`] names (and line feeds and tabs too, unless
/// `keep_lines`) written out as `\u{..}`: printed to a terminal, a value can neither move the
/// cursor nor reorder or hide what is printed around it. Text with none is borrowed as it is.
///
/// ```
/// use toolkit::approval::inert;
///
/// assert_eq!(inert("t\u{202e}ow\u{1b}[2J", false), "t\\u{202e}ow\\u{1b}[2J");
/// assert_eq!(inert("one\ntwo", true), "one\ntwo");
/// assert_eq!(inert("one\ntwo", false), "one\\u{a}two");
/// ```
pub fn inert(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let written_out = |c: char| is_hidden(c) || (!keep_lines && matches!(c, '\n' | '\t'));
    if !text.chars().any(written_out) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if written_out(c) {
            let _ = write!(shown, "\\u{{{:x}}}", u32::from(c));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}
