//! Record files in shogi-server's layout (`YYYY/MM/DD/<Game_ID>.csa`): written by a thread
//! of their own in the order their games ended, off the moves' path, and written again at
//! start where the server stopped between a game's commit and its file.

use std::path::PathBuf;

use crate::lobby::{ConnId, record};
use crate::store::{Archive, StoreError};

/// Ended games whose record files are checked at start, and written again from the
/// database if missing or different (the server stopped between the commit and the file).
pub const RECORDS_CHECKED_AT_START: u32 = 10_000;

/// Writes again the record files of the latest ended games that are missing or differ
/// from the database's record (the server stopped after committing a game's end and
/// before its file was written).
pub(crate) fn restore_record_files(
    store: &mut dyn Archive,
    records: &std::path::Path,
) -> Result<usize, StoreError> {
    let mut restored = 0;
    for (path, text) in store.latest_records(RECORDS_CHECKED_AT_START)? {
        let path = records.join(path);
        let bytes = record::encode(&text);
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            write_record_file(&path, &bytes);
            restored += 1;
        }
    }
    Ok(restored)
}

fn write_record_file(path: &std::path::Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // Synced, although the record is durable in the database already: unsynced, the
    // files' metadata rode on the database's own commits (one filesystem journal) and the
    // moves' p99 at 9,900 games grew from 12-15 ms to 89 ms.
    if let Err(e) = gyoku_kifu::files::write_atomic(path, bytes) {
        // The record is in the database; the file is a copy.
        tracing::warn!("record file {}: {e}", path.display());
    }
}

/// Record files to write, and the players who wait for them.
pub(crate) struct RecordJob {
    /// Each file's path, relative to the records directory, and its bytes.
    pub(crate) files: Vec<(PathBuf, Vec<u8>)>,
    /// The players whose messages wait for these files.
    pub(crate) players: Vec<ConnId>,
}

/// Starts the thread that writes record files in the order their games ended and calls
/// `written` with each batch's players once its files are on disk. It drains its queue
/// and ends when the sender is dropped; join the handle to know every file is written.
pub(crate) fn spawn_record_writer(
    records: PathBuf,
    written: impl Fn(Vec<ConnId>) + Send + 'static,
) -> std::io::Result<(
    std::sync::mpsc::Sender<RecordJob>,
    std::thread::JoinHandle<()>,
)> {
    let (jobs, queue) = std::sync::mpsc::channel::<RecordJob>();
    let thread = std::thread::Builder::new()
        .name("gyoku-records".into())
        .spawn(move || {
            while let Ok(job) = queue.recv() {
                for (path, bytes) in &job.files {
                    write_record_file(&records.join(path), bytes);
                }
                written(job.players);
            }
        })?;
    Ok((jobs, thread))
}
