//! How long `gyoku backup` and `gyoku restore` take on a large database (issue 50): a
//! database of GAMES finished games (1,000,000), each with its CSA record and PLIES moves
//! (80), made with `gyoku serve`'s schema, then backed up and restored by the `gyoku`
//! binary built beside this one.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Instant;

/// A record of the size a short game's has.
const RECORD: &str = "V2.2\nN+bench_a\nN-bench_b\n$EVENT:bench-600-10\nP1-KY-KE-GI-KI-OU-KI-GI-KE-KY\n\
P2 * -HI *  *  *  *  * -KA * \nP3-FU-FU-FU-FU-FU-FU-FU-FU-FU\nP4 *  *  *  *  *  *  *  *  * \n\
P5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \nP7+FU+FU+FU+FU+FU+FU+FU+FU+FU\n\
P8 * +KA *  *  *  *  * +HI * \nP9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n+\n";

/// Makes `dir/gyoku.sqlite3` with `gyoku serve`'s schema: the server started there until
/// it listens, then stopped.
fn schema(gyoku: &Path, dir: &Path) -> Result<(), String> {
    let mut child = std::process::Command::new(gyoku)
        .args([
            "serve",
            "--csa",
            "127.0.0.1:0",
            "--http",
            "off",
            "--data-dir",
        ])
        .arg(dir)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", gyoku.display()))?;
    let err = child.stderr.take().ok_or("no standard error")?;
    let listening = BufReader::new(err)
        .lines()
        .map_while(Result::ok)
        .any(|l| l.contains("CSA protocol on"));
    let _ = child.kill();
    let _ = child.wait();
    if listening {
        Ok(())
    } else {
        Err("gyoku serve did not start".into())
    }
}

fn run_gyoku(gyoku: &Path, args: &[&std::ffi::OsStr]) -> Result<(f64, String), String> {
    let began = Instant::now();
    let out = std::process::Command::new(gyoku)
        .args(args)
        .output()
        .map_err(|e| format!("{}: {e}", gyoku.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok((
        began.elapsed().as_secs_f64(),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
    ))
}

/// Runs the bench and prints its table.
///
/// # Errors
/// When the database cannot be made, or a command fails.
pub fn run(gyoku: &Path, games: u64, plies: u64) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("gyoku-bench-backup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let result = (|| {
        let data = dir.join("a");
        std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
        schema(gyoku, &data)?;
        let db = data.join("gyoku.sqlite3");
        eprintln!(
            "backup: filling {} with {games} games of {plies} moves…",
            db.display()
        );
        let began = Instant::now();
        let c = rusqlite::Connection::open(&db).map_err(|e| e.to_string())?;
        c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;")
            .map_err(|e| e.to_string())?;
        c.execute(
            "WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < ?1)
             INSERT INTO games (id, name, black, white, rules, max_moves, least_time_per_move,
                 total_time, byoyomi, increment, start_sfen, initial_moves, status, result,
                 reason, started_at, ended_at, record)
             SELECT printf('bench-600-10+%09d', v), 'bench-600-10',
                 'p' || (v % 1000), 'p' || ((v * 7 + 1) % 1000), 'csa', 256, 0, 600, 10, 0,
                 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1', '',
                 'finished', 'black', 'resignation', '2026/11/28 00:00:00',
                 '2026/11/28 00:20:00', ?2 || printf('+7776FU,T%d\n%%TORYO\n', v % 30)
             FROM n",
            rusqlite::params![games, RECORD],
        )
        .map_err(|e| e.to_string())?;
        c.execute(
            "WITH RECURSIVE p(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM p WHERE v < ?1)
             INSERT INTO moves (game_id, ply, csa, seconds)
             SELECT g.id, p.v, CASE p.v % 2 WHEN 1 THEN '+7776FU' ELSE '-3334FU' END, p.v % 20
             FROM games g, p ORDER BY g.id, p.v",
            [plies],
        )
        .map_err(|e| e.to_string())?;
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .map_err(|e| e.to_string())?;
        drop(c);
        let size = std::fs::metadata(&db).map_or(0, |m| m.len());
        eprintln!("backup: made in {:.0} s", began.elapsed().as_secs_f64());
        let out = dir.join("backup.sqlite3");
        let (backed, _) = run_gyoku(
            gyoku,
            &[
                "backup".as_ref(),
                out.as_os_str(),
                "--data-dir".as_ref(),
                data.as_os_str(),
            ],
        )?;
        let restored_dir = dir.join("b");
        let (restored, _) = run_gyoku(
            gyoku,
            &[
                "restore".as_ref(),
                out.as_os_str(),
                "--data-dir".as_ref(),
                restored_dir.as_os_str(),
            ],
        )?;
        let backup_size = std::fs::metadata(&out).map_or(0, |m| m.len());
        println!("| games | moves | database | backup | gyoku backup | gyoku restore |");
        println!("|---|---|---|---|---|---|");
        println!(
            "| {games} | {} | {:.0} MiB | {:.0} MiB | {backed:.1} s | {restored:.1} s |",
            games * plies,
            size as f64 / f64::from(1 << 20),
            backup_size as f64 / f64::from(1 << 20),
        );
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}
