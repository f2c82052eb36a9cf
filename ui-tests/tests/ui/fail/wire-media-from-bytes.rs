// proves: raw bytes do not convert into `WireMedia`: there is no `From` past the seam.
// control: pass/media-from-seam.rs
// expect: E0277
use toolkit::wire::WireMedia;

pub fn forge(bytes: Vec<u8>) -> WireMedia {
    bytes.into()
}

fn main() {}
