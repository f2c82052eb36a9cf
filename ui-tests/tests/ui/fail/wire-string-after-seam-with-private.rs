// proves: the seam's constructor of a `WireString` with media is private to `toolkit`, so no
// media joins a wire string outside the seam.
// control: pass/media-from-seam.rs
// expect: E0624
use toolkit::WireString;
use toolkit::wire::WireMedia;

pub fn forge(media: Vec<WireMedia>) -> WireString {
    WireString::after_seam_with(String::from("forged"), false, media)
}

fn main() {}
