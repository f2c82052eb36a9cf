// proves: a tool's unchecked `Media` does not convert into `WireMedia`: only the seam checks
// and bounds it into one.
// control: pass/media-from-seam.rs
// expect: E0277
use toolkit::result::Media;
use toolkit::wire::WireMedia;

pub fn skip_the_checks(media: Media) -> WireMedia {
    media.into()
}

fn main() {}
