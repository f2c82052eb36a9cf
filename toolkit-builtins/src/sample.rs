//! The sample SQLite database: a small shop (customers, products, orders, order items and an
//! `order_totals` view) built from SQL kept in the repository, so the playground has real data
//! for the [records](crate::records) tools without a script or a download.
//!
//! ```
//! let folder = std::env::temp_dir().join(format!("toolkit-sample-doc-{}", std::process::id()));
//! let path = folder.join("sample.db");
//! # let _ = std::fs::remove_dir_all(&folder);
//! assert!(toolkit_builtins::sample::create_sample_database(&path)?); // created
//! assert!(!toolkit_builtins::sample::create_sample_database(&path)?); // already there: left alone
//! # std::fs::remove_dir_all(&folder)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

/// The SQL that builds the sample database, in one transaction.
pub const SAMPLE_SQL: &str = include_str!("../sample/sample.sql");

/// Why the sample database could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SampleError {
    /// The file or its folder could not be checked, created or renamed.
    #[error("cannot create the sample database: {0}")]
    Io(#[from] io::Error),
    /// SQLite refused the sample SQL.
    #[error("cannot build the sample database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The path names no file.
    #[error("cannot create the sample database at {0}: the path has no file name")]
    NoFileName(PathBuf),
}

/// Creates the sample database at `path` unless something is already there, and says whether it
/// did. Its folder is created if need be. The database is built beside `path` under another
/// name and renamed into place once complete, so `path` never holds half a database.
pub fn create_sample_database(path: &Path) -> Result<bool, SampleError> {
    if path.try_exists()? {
        return Ok(false);
    }
    let Some(name) = path.file_name() else {
        return Err(SampleError::NoFileName(path.to_owned()));
    };
    if let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        std::fs::create_dir_all(folder)?;
    }
    let mut partial_name = OsString::from(".");
    partial_name.push(name);
    partial_name.push(format!(".partial-{}", std::process::id()));
    let partial = path.with_file_name(partial_name);
    remove_if_present(&partial)?;
    let built = build(&partial).and_then(|()| {
        if path.try_exists()? {
            // Another process made it meanwhile; keep theirs.
            return Ok(false);
        }
        std::fs::rename(&partial, path)?;
        Ok(true)
    });
    if !matches!(built, Ok(true)) {
        remove_if_present(&partial)?;
    }
    built
}

fn build(path: &Path) -> Result<(), SampleError> {
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    connection.execute_batch(SAMPLE_SQL)?;
    connection.close().map_err(|(_, error)| error)?;
    Ok(())
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}
