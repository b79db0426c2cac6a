//! `gyoku backup` and `gyoku restore`: the server's SQLite database copied while it runs,
//! and put back while it does not (docs/operations.md). PostgreSQL has its own tools.

use std::path::{Path, PathBuf};

use gyoku_server::store::DbUrl;
use gyoku_server::store::backup::Copied;
use serde_json::json;

use crate::Failure;

/// The SQLite file `--db` or `--data-dir` names, as `gyoku serve` finds it.
fn sqlite_path(db: Option<&str>, data_dir: Option<&Path>) -> Result<PathBuf, Failure> {
    let url = match db {
        Some(d) => DbUrl::parse(d).ok_or_else(|| {
            Failure::Input("--db: give an SQLite file or a postgres:// URL".into())
        })?,
        None => DbUrl::Sqlite(
            data_dir
                .map_or_else(crate::serve::default_data_dir, Path::to_path_buf)
                .join("gyoku.sqlite3"),
        ),
    };
    match url {
        DbUrl::Sqlite(p) => Ok(p),
        DbUrl::Postgres(_) => Err(Failure::Input(
            "--db postgres://: use PostgreSQL's own tools while the server runs: \
             pg_dump --format=custom --file OUT URL, and pg_restore --clean --if-exists \
             --dbname URL OUT with the server stopped (docs/operations.md)"
                .into(),
        )),
    }
}

fn said(what: &str, c: &Copied, json: bool) -> String {
    if json {
        return format!(
            "{}\n",
            json!({
                "path": c.path.display().to_string(), "bytes": c.bytes, "schema": c.schema,
                "games": c.games.0, "unfinished": c.games.1, "seconds": c.seconds,
            })
        );
    }
    format!(
        "{what} {} ({} bytes, schema {}, {} games of which {} not finished) in {:.2} s\n",
        c.path.display(),
        c.bytes,
        c.schema,
        c.games.0,
        c.games.1,
        c.seconds
    )
}

/// `gyoku backup OUT [--db FILE | --data-dir DIR] [--json]`.
pub fn run_backup(
    out: &Path,
    db: Option<&str>,
    data_dir: Option<&Path>,
    json: bool,
) -> Result<(), Failure> {
    let path = sqlite_path(db, data_dir)?;
    let copied = gyoku_server::store::backup::backup(&path, out).map_err(Failure::Run)?;
    crate::emit(&said("backed up to", &copied, json));
    Ok(())
}

/// `gyoku restore BACKUP [--db FILE | --data-dir DIR] [--force] [--json]`.
pub fn run_restore(
    backup: &Path,
    db: Option<&str>,
    data_dir: Option<&Path>,
    force: bool,
    json: bool,
) -> Result<(), Failure> {
    let path = sqlite_path(db, data_dir)?;
    let copied =
        gyoku_server::store::backup::restore(backup, &path, force).map_err(Failure::Run)?;
    crate::emit(&said("restored", &copied, json));
    Ok(())
}
