//! Backing up and restoring an SQLite database (`gyoku backup`, `gyoku restore`).
//!
//! A backup is a consistent snapshot taken while the server runs (`VACUUM INTO`, which
//! reads one transaction's view of the database: a game half stored is not in it, a
//! committed move is), written beside its destination and moved into place once synced.
//! A restore checks the backup first (SQLite's own check, a schema this build knows), then
//! takes the database's claim, so that no server starts on it meanwhile, and moves a
//! synced copy into place, the old write-ahead log removed first.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rusqlite::{Connection, OpenFlags};

use super::schema::MIGRATIONS;

/// What a backup or a restore saw.
#[derive(Clone, Debug, PartialEq)]
pub struct Copied {
    /// The file written.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// The schema's version in it.
    pub schema: u32,
    /// Games in it, and of those, being played or suspended.
    pub games: (u64, u64),
    /// How long it took, seconds.
    pub seconds: f64,
}

fn open_read_only(path: &Path) -> Result<Connection, String> {
    if !path.is_file() {
        return Err(format!("{}: no database file there", path.display()));
    }
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| format!("{}: {e}", path.display()))
}

/// The schema's version and the games in a database (all, and those not finished).
fn describe(c: &Connection, shown: &Path) -> Result<(u32, (u64, u64)), String> {
    let err = |e: rusqlite::Error| format!("{}: {e}", shown.display());
    let schema: u32 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(err)?;
    if schema == 0 || schema as usize > MIGRATIONS.len() {
        return Err(format!(
            "{}: schema version {schema}: {}",
            shown.display(),
            if schema == 0 {
                "not a gyoku serve database".to_string()
            } else {
                format!(
                    "made by a newer gyoku (this one knows {}); restore it with that one",
                    MIGRATIONS.len()
                )
            }
        ));
    }
    let games = c
        .query_row(
            "SELECT COUNT(*), COALESCE(SUM(status <> 'finished'), 0) FROM games",
            [],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
        )
        .map_err(err)?;
    Ok((
        schema,
        (
            u64::try_from(games.0).unwrap_or(0),
            u64::try_from(games.1).unwrap_or(0),
        ),
    ))
}

/// A name beside `path` for a file being written, unique to this process.
fn beside(path: &Path, what: &str) -> Result<PathBuf, String> {
    let name = path
        .file_name()
        .ok_or_else(|| format!("{}: not a file name", path.display()))?
        .to_string_lossy();
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|e| format!("the random source failed: {e}"))?;
    let suffix: String = random.iter().map(|b| format!("{b:02x}")).collect();
    Ok(path.with_file_name(format!(".{name}.{what}-{suffix}")))
}

/// Refuses a destination that is there but not a regular file.
fn regular_or_absent(path: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => Err(format!(
            "{}: not a regular file; refusing to replace it",
            path.display()
        )),
        _ => Ok(()),
    }
}

/// Syncs `file`, moves it to `to`, and syncs the directory.
fn sync_and_move(file: &Path, to: &Path) -> Result<(), String> {
    std::fs::File::open(file)
        .and_then(|f| f.sync_all())
        .map_err(|e| format!("{}: {e}", file.display()))?;
    std::fs::rename(file, to).map_err(|e| format!("{}: {e}", to.display()))?;
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// Backs up the database `db` to `out` while a server may be using it.
///
/// # Errors
/// What could not be read or written, and where.
pub fn backup(db: &Path, out: &Path) -> Result<Copied, String> {
    let began = Instant::now();
    regular_or_absent(out)?;
    let source = open_read_only(db)?;
    describe(&source, db)?;
    let part = beside(out, "backup")?;
    let text = part
        .to_str()
        .ok_or_else(|| format!("{}: not a UTF-8 path", part.display()))?;
    let made = source.execute("VACUUM INTO ?1", [text]);
    if let Err(e) = made {
        let _ = std::fs::remove_file(&part);
        return Err(format!("{}: {e}", db.display()));
    }
    drop(source);
    let described = open_read_only(&part).and_then(|c| describe(&c, &part));
    let (schema, games) = match described {
        Ok(d) => d,
        Err(e) => {
            let _ = std::fs::remove_file(&part);
            return Err(e);
        }
    };
    if let Err(e) = sync_and_move(&part, out) {
        let _ = std::fs::remove_file(&part);
        return Err(e);
    }
    Ok(Copied {
        path: out.to_path_buf(),
        bytes: std::fs::metadata(out).map_or(0, |m| m.len()),
        schema,
        games,
        seconds: began.elapsed().as_secs_f64(),
    })
}

/// Restores `backup` as the database `db`: refused while a server holds `db`, and over an
/// existing database unless `replace`.
///
/// # Errors
/// Why not, or what could not be done, and where.
pub fn restore(backup: &Path, db: &Path, replace: bool) -> Result<Copied, String> {
    let began = Instant::now();
    let (schema, games) = {
        let c = open_read_only(backup)?;
        let check: String = c
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(|e| format!("{}: {e}", backup.display()))?;
        if check != "ok" {
            return Err(format!(
                "{}: damaged ({check}); not restored",
                backup.display()
            ));
        }
        describe(&c, backup)?
    };
    regular_or_absent(db)?;
    if db.exists() && !replace {
        return Err(format!(
            "{} exists: give --force to replace it with the backup",
            db.display()
        ));
    }
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // The server's claim, held while the file is replaced: none starts meanwhile, and
    // one running now is found.
    let lock_path = PathBuf::from(format!("{}.lock", db.display()));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(format!(
                "a gyoku serve is using {} (it holds {}): stop it first",
                db.display(),
                lock_path.display()
            ));
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(format!("{}: {e}", lock_path.display()));
        }
    }
    let part = beside(db, "restore")?;
    if let Err(e) = std::fs::copy(backup, &part) {
        let _ = std::fs::remove_file(&part);
        return Err(format!("{}: {e}", part.display()));
    }
    // The old database's log belongs to it: left there, it would be read into the new one.
    for ext in ["-wal", "-shm"] {
        let side = PathBuf::from(format!("{}{ext}", db.display()));
        match std::fs::remove_file(&side) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                let _ = std::fs::remove_file(&part);
                return Err(format!("{}: {e}", side.display()));
            }
        }
    }
    if let Err(e) = sync_and_move(&part, db) {
        let _ = std::fs::remove_file(&part);
        return Err(e);
    }
    drop(lock);
    Ok(Copied {
        path: db.to_path_buf(),
        bytes: std::fs::metadata(db).map_or(0, |m| m.len()),
        schema,
        games,
        seconds: began.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SqliteStore;

    #[test]
    fn a_backup_restores_and_what_is_not_a_backup_is_refused() {
        let dir = std::env::temp_dir().join(format!("gyoku-backup-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("g.sqlite3");
        drop(SqliteStore::open(&db).unwrap());
        let out = dir.join("backup.sqlite3");
        let b = backup(&db, &out).unwrap();
        assert_eq!((b.schema as usize, b.games), (MIGRATIONS.len(), (0, 0)));
        // Again over the same file: replaced atomically, nothing left beside it.
        backup(&db, &out).unwrap();
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        // A directory is not replaced; a database that is there is not, without leave.
        std::fs::create_dir_all(dir.join("d")).unwrap();
        assert!(
            backup(&db, &dir.join("d"))
                .unwrap_err()
                .contains("not a regular file")
        );
        assert!(restore(&out, &db, false).unwrap_err().contains("--force"));
        restore(&out, &db, true).unwrap();
        let fresh = dir.join("new/g.sqlite3");
        assert_eq!(restore(&out, &fresh, false).unwrap().schema, b.schema);
        // A server's claim is respected.
        let mut running = SqliteStore::open(&fresh).unwrap();
        crate::store::port::Backend::claim(&mut running).unwrap();
        assert!(
            restore(&out, &fresh, true)
                .unwrap_err()
                .contains("stop it first")
        );
        drop(running);
        // Not a database, and a damaged one.
        std::fs::write(dir.join("x"), b"not a database").unwrap();
        assert!(restore(&dir.join("x"), &db, true).is_err());
        let mut bytes = std::fs::read(&out).unwrap();
        let n = bytes.len();
        bytes.truncate(n / 2);
        std::fs::write(dir.join("cut"), &bytes).unwrap();
        assert!(restore(&dir.join("cut"), &db, true).is_err());
        assert!(
            backup(&dir.join("none"), &out)
                .unwrap_err()
                .contains("no database")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
