// proves: `WireMedia`, the media a tool-result message carries, cannot be assembled by struct
// literal: only the seam makes one, after checking the type and the bytes.
// control: pass/media-from-seam.rs
// expect: E0451
use toolkit::wire::WireMedia;

pub fn forge(base64: std::sync::Arc<str>, name: std::sync::Arc<str>) -> WireMedia {
    WireMedia {
        media_type: toolkit::result::MediaType::Png,
        base64,
        len: 4,
        name,
    }
}

fn main() {}
