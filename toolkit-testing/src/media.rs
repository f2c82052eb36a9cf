//! Small real media files for tests: a PNG, a WAV and a PDF, each what its type says (the seam
//! checks their first bytes), and a marker for canaries hidden in media bytes.

/// A 1×1 red PNG (69 bytes).
pub const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82";

/// Eight silent samples as a WAV file (8 kHz, 8 bits, one channel; 52 bytes).
pub const WAV: &[u8] = b"RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x40\x1f\x00\x00\x01\x00\x08\x00data\x08\x00\x00\x00\x80\x80\x80\x80\x80\x80\x80\x80";

/// A one-page PDF with no content (its header and trailer; 69 bytes).
pub const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";

/// A PNG whose bytes carry `canary` after the signature: for artifacts that must never reach a
/// model, found on a wire as the base64 of these bytes.
pub fn png_with(canary: &str) -> Vec<u8> {
    let mut bytes = PNG[..8].to_vec();
    bytes.extend_from_slice(canary.as_bytes());
    bytes.extend_from_slice(&PNG[8..]);
    bytes
}
