//! `gyoku event-keys FILE`: a key for each participant of an organised event, so that its
//! seats belong to the people the organiser hands the keys to rather than to whoever logs
//! in first with a participant's name (issue 43). The keys go to a new file only its owner
//! may read; the event file gets a `[seats]` table of their digests, which is all the
//! server ever holds.

use std::path::{Path, PathBuf};

use gyoku_server::event::EventFile;
use gyoku_server::event::file::MAX_EVENT_FILE;
use gyoku_server::event::seats;

use crate::Failure;

/// Makes the keys of the event in `file`, writes them to `keys_out` (default: the event
/// file with the extension `.keys`) and adds their digests to `file`.
pub fn run_event_keys(file: &Path, keys_out: Option<&Path>, json: bool) -> Result<(), Failure> {
    let shown = file.display();
    let bytes = gyoku_kifu::files::read_regular(file, MAX_EVENT_FILE as u64)
        .map_err(|e| Failure::Input(e.to_string()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| Failure::Input(format!("{shown}: not UTF-8 text")))?;
    let event = EventFile::parse(&text).map_err(|e| Failure::Input(format!("{shown}: {e}")))?;
    if !event.seats.is_empty() {
        return Err(Failure::Input(format!(
            "{shown}: the event's seats have keys already ([seats]); delete that table to \
             make new ones (the old keys then stop working)"
        )));
    }
    let keys_path: PathBuf =
        keys_out.map_or_else(|| file.with_extension("keys"), Path::to_path_buf);
    if keys_path == file {
        return Err(Failure::Input(format!(
            "--keys-out {}: that is the event file",
            keys_path.display()
        )));
    }
    let keys: Vec<(String, String)> = event
        .participants
        .iter()
        .map(|p| (p.clone(), gyoku_server::tickets::new_secret()))
        .collect();
    let mut with_table = text.clone();
    if !with_table.ends_with('\n') {
        with_table.push('\n');
    }
    with_table.push_str(&seats::table(&keys));
    // What is written must read back with every seat keyed, before anything is written.
    let reread = EventFile::parse(&with_table)
        .map_err(|e| Failure::Run(format!("{shown} with its keys does not read: {e}")))?;
    debug_assert!(!reread.seats.is_empty());
    let mut listing = format!(
        "# The keys of the event {}: each participant logs in with its name and its key as\n\
         # the password (LOGIN name {},key in CSA mode, LOGIN name key x1 in x1 mode).\n\
         # Hand each its own line.\n",
        event.name, event.game
    );
    for (name, key) in &keys {
        listing.push_str(&format!("{name} {key}\n"));
    }
    let keys_shown = keys_path.display();
    crate::private_file::write_new_private(&keys_path, listing.as_bytes()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            Failure::Input(format!(
                "{keys_shown} exists; the keys are written to a new file only (--keys-out \
                 another, or move it away)"
            ))
        } else {
            Failure::Run(format!("{keys_shown}: {e}"))
        }
    })?;
    if let Err(e) = gyoku_kifu::files::write_atomic(file, with_table.as_bytes()) {
        // The keys without their digests in the event file would open no seat.
        let _ = std::fs::remove_file(&keys_path);
        return Err(Failure::Run(e));
    }
    if json {
        outln!(
            "{}",
            serde_json::json!({
                "event": event.name,
                "participants": keys.len(),
                "keys_file": keys_path.display().to_string(),
                "event_file": file.display().to_string(),
            })
        );
    } else {
        eprintln!(
            "gyoku: event {}: {} keys written to {keys_shown} (readable by you only; hand each \
             participant its line). {shown} now holds their digests in [seats]: gyoku serve \
             --event-file {shown} gives each seat to its key alone.",
            event.name,
            keys.len()
        );
    }
    Ok(())
}
