// proves: `WireString` is not `Deserialize`, so bytes from outside cannot become bounded content.
// control: pass/wire-string-from-seam.rs
// expect: E0277
use toolkit::WireString;

pub fn forge() -> serde_json::Result<WireString> {
    serde_json::from_str::<WireString>(r#""forged""#)
}

fn main() {}
