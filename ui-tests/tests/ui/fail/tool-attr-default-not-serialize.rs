// proves: a defaulted parameter's type must be `serde::Serialize`, because the schema shows the
// default; without it the default would silently vanish from what the model sees.
// control: pass/tool-attr-arguments.rs
// expect: E0277
// span: Mode
use toolkit::tool;

/// How to compare.
#[derive(Clone, Copy, serde::Deserialize, schemars::JsonSchema)]
pub enum Mode {
    /// Exactly.
    Exact,
    /// Loosely.
    Loose,
}

/// Compares two texts.
#[tool]
pub fn compare(
    /// The first text.
    a: String,
    /// The second text.
    b: String,
    /// How to compare.
    #[arg(default = Mode::Exact)]
    mode: Mode,
) -> String {
    let same = match mode {
        Mode::Exact => a == b,
        Mode::Loose => a.eq_ignore_ascii_case(&b),
    };
    same.to_string()
}

fn main() {}
