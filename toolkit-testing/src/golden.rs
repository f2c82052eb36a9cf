//! Golden files: bytes a test compares with a file kept in the repository. `UPDATE_GOLDEN=1`
//! rewrites the file instead (read the diff after).

use std::path::Path;

/// Asserts that `actual` is exactly the bytes of the file at `path`; with `UPDATE_GOLDEN` set,
/// writes them there first.
///
/// # Panics
///
/// When the bytes differ (showing `actual` as text), or the file cannot be read or written.
pub fn assert_golden(path: &Path, actual: &[u8]) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).expect("the golden file's folder");
        }
        std::fs::write(path, actual).expect("write golden file");
    }
    let expected = std::fs::read(path)
        .unwrap_or_else(|error| panic!("{}: {error}; run with UPDATE_GOLDEN=1", path.display()));
    assert!(
        expected == actual,
        "{} differs; run with UPDATE_GOLDEN=1 and read the diff:\n{}",
        path.display(),
        String::from_utf8_lossy(actual)
    );
}
