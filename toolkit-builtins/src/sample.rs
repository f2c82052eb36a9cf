//! The sample SQLite database: a small shop (customers, products, orders, order items and an
//! `order_totals` view) built from SQL kept in the repository, so the playground has real data
//! for the [records](crate::records) tools without a script or a download; and where the Tool
//! Playground (and `toolkit-mcp --playground`) keep their copies of the sample data
//! ([`playground_dir`], [`copy_sample_workspace`]).
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

/// The folder where the Tool Playground keeps its files (its copy of the sample workspace in
/// `workspace`, the sample database `sample.db`, its audit copy `audit.sqlite3`), which
/// `toolkit-mcp --playground` works on too: `$XDG_DATA_HOME/toolkit-playground`, else
/// `$HOME/.local/share/toolkit-playground`, else `.toolkit-playground` in the current folder.
pub fn playground_dir() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|value| !value.is_empty())
                .map(|home| PathBuf::from(home).join(".local").join("share"))
        });
    match base {
        Some(base) => base.join("toolkit-playground"),
        None => PathBuf::from(".toolkit-playground"),
    }
}

/// Copies the sample workspace ([`sample_workspace`](crate::files::sample_workspace)) to
/// `target` unless a folder is there already, so that the tools that write change the copy,
/// never the files this crate was built from. The copy is made in a folder beside `target`
/// first, then renamed into place, so `target` holds a whole copy or nothing.
#[cfg(feature = "files")]
#[cfg_attr(docsrs, doc(cfg(feature = "files")))]
pub fn copy_sample_workspace(target: &Path) -> io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Tells apart the copies one process makes at once (the process id tells processes apart).
    static COPIES: AtomicU64 = AtomicU64::new(0);

    if target.is_dir() {
        return Ok(());
    }
    let Some(name) = target.file_name() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: the path has no folder name", target.display()),
        ));
    };
    let parent = target
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let mut aside_name = OsString::from(".");
    aside_name.push(name);
    aside_name.push(format!(
        ".partial-{}-{}",
        std::process::id(),
        COPIES.fetch_add(1, Ordering::Relaxed)
    ));
    let aside = parent.join(aside_name);
    // Left by a process that stopped halfway and had this one's id: no one else uses the name.
    if aside.try_exists()? {
        std::fs::remove_dir_all(&aside)?;
    }
    let copied = copy_tree(crate::files::sample_workspace(), &aside);
    let placed = copied.and_then(|()| match std::fs::rename(&aside, target) {
        // Another process put its copy there first: the same files.
        Err(_) if target.is_dir() => Ok(()),
        renamed => renamed,
    });
    if aside.try_exists().unwrap_or(false) {
        let _ = std::fs::remove_dir_all(&aside);
    }
    placed
}

#[cfg(feature = "files")]
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::create_dir(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}
