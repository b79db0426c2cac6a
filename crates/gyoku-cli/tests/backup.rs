//! `gyoku backup` and `gyoku restore` (issue 50, item 3), through the real binary: a
//! backup taken while a game is played holds the moves echoed before it; restored into
//! another data directory, the server started there resumes that game from those moves
//! when both players log in again, and it is played to its end. A restore is refused while
//! a server holds the database, and over one that is there without --force.

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

mod kit;

/// A player logged in and waiting for `game`: its connection, once the summary is read
/// (the moves it lists, CSA) and the game agreed to and started.
fn join(csa: u16, name: &str, sign: char) -> (TcpStream, BufReader<TcpStream>, Vec<String>) {
    let (mut s, mut r) = kit::csa_login(csa, &format!("LOGIN {name} pw x1"));
    s.write_all(format!("%%GAME kept-600-0 {sign}\n").as_bytes())
        .unwrap();
    let summary = kit::read_until(&mut r, "END Game_Summary");
    let moves = summary
        .iter()
        .filter(|l| l.len() >= 7 && gyoku_proto::csa::move_shaped(&l[..7]))
        .map(|l| l[..7].to_string())
        .collect();
    (s, r, moves)
}

fn agree(players: &mut [(TcpStream, BufReader<TcpStream>, Vec<String>); 2]) {
    for p in players.iter_mut() {
        p.0.write_all(b"AGREE\n").unwrap();
    }
    for p in players.iter_mut() {
        kit::read_until(&mut p.1, "START:");
    }
}

/// Each move sent by its side and read back, echoed, by both.
fn play(players: &mut [(TcpStream, BufReader<TcpStream>, Vec<String>); 2], moves: &[&str]) {
    let [(b, br, _), (w, wr, _)] = players;
    kit::csa_moves([(b, br), (w, wr)], moves);
}

fn serve(dir: &Path) -> kit::Served {
    kit::serve([
        "--csa".as_ref(),
        "127.0.0.1:0".as_ref(),
        "--http".as_ref(),
        "off".as_ref(),
        "--data-dir".as_ref(),
        dir.as_os_str(),
    ])
}

fn gyoku(args: &[&std::ffi::OsStr]) -> std::process::Output {
    kit::output_within(
        Command::new(kit::gyoku()).args(args),
        Duration::from_secs(60),
        "gyoku backup/restore",
    )
}

#[test]
fn a_backup_taken_mid_game_restores_and_the_game_resumes_from_it() {
    let root = std::env::temp_dir().join(format!("gyoku-backup-it-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (a, b) = (root.join("a"), root.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    let backup = root.join("kept.sqlite3");

    let mut server = serve(&a);
    let csa = server.csa.port();
    let black = std::thread::spawn(move || join(csa, "kept_b", '+'));
    let white = join(csa, "kept_w", '-');
    let mut players = [black.join().unwrap(), white];
    agree(&mut players);
    let before = [
        "+7776FU", "-3334FU", "+2726FU", "-8384FU", "+2625FU", "-8485FU",
    ];
    play(&mut players, &before);
    // The backup, while the game is played.
    let out = gyoku(&[
        "backup".as_ref(),
        backup.as_os_str(),
        "--data-dir".as_ref(),
        a.as_os_str(),
        "--json".as_ref(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (said["games"].as_u64(), said["unfinished"].as_u64()),
        (Some(1), Some(1)),
        "{said}"
    );
    // Two moves more, not in the backup; then the machine is lost.
    play(&mut players, &["+6978KI", "-4132KI"]);
    // A restore is refused while the server holds the database.
    let busy = gyoku(&[
        "restore".as_ref(),
        backup.as_os_str(),
        "--data-dir".as_ref(),
        a.as_os_str(),
        "--force".as_ref(),
    ]);
    assert!(
        !busy.status.success() && String::from_utf8_lossy(&busy.stderr).contains("stop it first")
    );
    server.process.kill();
    drop(players);

    let out = gyoku(&[
        "restore".as_ref(),
        backup.as_os_str(),
        "--data-dir".as_ref(),
        b.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Not over a database that is there, without --force.
    let again = gyoku(&[
        "restore".as_ref(),
        backup.as_os_str(),
        "--data-dir".as_ref(),
        b.as_os_str(),
    ]);
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("--force"));

    let server = serve(&b);
    let csa = server.csa.port();
    let black = std::thread::spawn(move || join(csa, "kept_b", '+'));
    let white = join(csa, "kept_w", '-');
    let mut players = [black.join().unwrap(), white];
    assert_eq!(
        players[0].2, before,
        "the game resumes from the backup's moves"
    );
    assert_eq!(players[1].2, before);
    agree(&mut players);
    play(&mut players, &["+6978KI", "-4132KI"]);
    players[0].0.write_all(b"%TORYO\n").unwrap();
    let end = kit::read_until(&mut players[0].1, "#LOSE");
    assert!(end.iter().any(|l| l == "#RESIGN"), "{end:?}");
    kit::read_until(&mut players[1].1, "#WIN");
    let db = rusqlite::Connection::open(b.join("gyoku.sqlite3")).unwrap();
    kit::wait_until(
        Duration::from_secs(10),
        "the resumed game stored as finished",
        || {
            db.query_row("SELECT status, result FROM games", [], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
            })
            .is_ok_and(|(s, r)| s == "finished" && r.as_deref() == Some("white"))
        },
    );
    let plies: i64 = db
        .query_row("SELECT COUNT(*) FROM moves", [], |r| r.get(0))
        .unwrap();
    assert_eq!(plies, 8);
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}

/// An upgrade's other side: a database whose schema is newer than this build (one a later
/// `gyoku` migrated) is refused at start, saying so, and left as it was (restore the
/// backup taken before the upgrade to go back).
#[test]
fn a_database_newer_than_the_build_is_refused_and_left_alone() {
    let dir = std::env::temp_dir().join(format!("gyoku-newer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    drop(serve(&dir));
    let db = dir.join("gyoku.sqlite3");
    let newer = {
        let c = rusqlite::Connection::open(&db).unwrap();
        let known: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert!(known > 0, "the server migrated the new database");
        c.pragma_update(None, "user_version", known + 1).unwrap();
        known + 1
    };
    let out = kit::output_within(
        Command::new(kit::gyoku()).args([
            "serve".as_ref(),
            "--csa".as_ref(),
            "127.0.0.1:0".as_ref(),
            "--http".as_ref(),
            "off".as_ref(),
            "--data-dir".as_ref(),
            dir.as_os_str(),
        ]),
        Duration::from_secs(60),
        "gyoku serve on a newer database",
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(&format!("schema version {newer}, newer than this gyoku's")),
        "{said}"
    );
    let c = rusqlite::Connection::open(&db).unwrap();
    let stored: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, newer);
    let _ = std::fs::remove_dir_all(&dir);
}
