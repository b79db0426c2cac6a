//! Crash safety of `gyoku serve`: many games at once, the server killed with SIGKILL (or
//! stopped with SIGTERM) at random moments and started again, the players logging in again
//! to resume. Every move a player saw echoed must still be in the game, no move is stored
//! twice or skipped, every game finishes, and every record file judges to the result
//! stored for it. Stopped by SIGTERM, the server must also exit cleanly (status 0) within
//! seconds and leave no temporary file behind.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gyoku::{Color, Position};

const GAMES: usize = 12;
const KILLS: usize = 4;

mod kit;

/// The server, killed (SIGKILL) when dropped: by the test on purpose, or when a failing
/// assertion unwinds, so no server outlives the test.
struct Server(kit::Served);

impl Server {
    fn kill(&mut self) {
        self.0.process.kill();
    }

    /// SIGTERM, then its exit: it must stop by itself, cleanly, within 15 s.
    fn terminate(&mut self) {
        let process = &mut self.0.process.0;
        let sent = Command::new("kill")
            .args(["-TERM", &process.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        kit::wait_until(
            Duration::from_secs(15),
            "the server's exit on SIGTERM",
            || {
                process
                    .try_wait()
                    .unwrap()
                    .inspect(|status| {
                        assert!(
                            status.success(),
                            "stopped by SIGTERM, it exited with {status}"
                        );
                    })
                    .is_some()
            },
        );
    }
}

/// How the test stops the server each time.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    Kill,
    Terminate,
}

/// `gyoku serve` on `port` (its own choice for 0), once it listens there (tried again
/// while a port just freed is still held): the server and its CSA port.
fn start_server(port: u16, dir: &Path, db: &Db) -> (Server, u16) {
    let mut args: Vec<std::ffi::OsString> = vec![
        "--csa".into(),
        format!("127.0.0.1:{port}").into(),
        "--http".into(),
        "off".into(),
        "--max-moves".into(),
        "70".into(),
        "--data-dir".into(),
        dir.as_os_str().to_owned(),
    ];
    if let Db::Postgres { url, .. } = db {
        args.extend(["--db".into(), url.into()]);
    }
    let said = Arc::new(Mutex::new(String::new()));
    let mut server = None;
    kit::wait_until(Duration::from_secs(10), "the server listening", || {
        server = kit::try_serve(&args, &said);
        server.is_some()
    });
    let server = server.expect("listening");
    let port = server.csa.port();
    (Server(server), port)
}

/// What a player saw: for each Game_ID, the moves it saw echoed (or listed in a resumed
/// Game_Summary), in order.
#[derive(Default, Debug)]
struct Seen {
    games: HashMap<String, Vec<String>>,
    /// A resumed Game_Summary that did not start with every move seen echoed before.
    lost: Vec<String>,
    finished: bool,
    /// Game_Summaries that resumed a game with moves already played.
    resumed: usize,
}

/// A tiny deterministic random source.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// One player: logs in, asks for its game, plays random legal moves with a little pause,
/// and logs in again whenever the connection drops, until its game ends.
fn player(port: u16, game: String, color: Color, seed: u64, seen: Arc<Mutex<Seen>>) {
    let name = format!("{game}_{}", if color == Color::Black { "b" } else { "w" });
    let mut rng = Rng(seed | 1);
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) else {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        stream
            .set_read_timeout(Some(Duration::from_secs(8)))
            .unwrap();
        let mut w = stream.try_clone().unwrap();
        let mut r = BufReader::new(stream);
        let sign = if color == Color::Black { '+' } else { '-' };
        let hello = format!("LOGIN {name} pw x1\n%%GAME {game}-600-0 {sign}\n");
        if w.write_all(hello.as_bytes()).is_err() {
            continue;
        }
        match play_one_connection(&mut r, &mut w, color, &mut rng, &seen) {
            Some(true) => return,
            Some(false) | None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// `Some(true)`: the game ended; `Some(false)`/`None`: the connection dropped.
fn play_one_connection(
    r: &mut BufReader<TcpStream>,
    w: &mut TcpStream,
    color: Color,
    rng: &mut Rng,
    seen: &Mutex<Seen>,
) -> Option<bool> {
    let mut line = String::new();
    let mut id = String::new();
    let mut listed: Vec<String> = Vec::new();
    let mut in_position = false;
    // The Game_Summary.
    loop {
        line.clear();
        if r.read_line(&mut line).ok()? == 0 {
            return Some(false);
        }
        let l = line.trim_end();
        if let Some(v) = l.strip_prefix("Game_ID:") {
            id = v.to_string();
        } else if l == "BEGIN Position" {
            in_position = true;
        } else if l == "END Position" {
            in_position = false;
        } else if in_position && l.len() >= 7 && gyoku_proto::csa::move_shaped(&l[..7]) {
            listed.push(l[..7].to_string());
        } else if l == "END Game_Summary" {
            break;
        }
    }
    {
        let mut s = seen.lock().unwrap();
        let before = s.games.entry(id.clone()).or_default().clone();
        if !listed.starts_with(&before) {
            let msg = format!("{id}: saw {before:?} echoed, resumed with {listed:?}");
            s.lost.push(msg);
        }
        if !listed.is_empty() {
            s.resumed += 1;
        }
        s.games.insert(id.clone(), listed.clone());
    }
    w.write_all(b"AGREE\n").ok()?;
    let mut pos = Position::startpos();
    for m in &listed {
        let (_, mv) = gyoku_kifu::csa::parse_move(m, &pos).ok()?;
        pos.play(mv).ok()?;
    }
    let mut started = false;
    loop {
        if started && pos.turn() == color {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                // Mated: the server has said so already or will; wait for it.
            } else {
                let mv = moves[rng.below(moves.len())];
                std::thread::sleep(Duration::from_millis(15));
                let text = gyoku_kifu::csa::move_text(&pos, mv, color);
                w.write_all(format!("{text}\n").as_bytes()).ok()?;
            }
        }
        // Read until the turn changes or the game ends.
        let turn = pos.turn();
        loop {
            line.clear();
            if r.read_line(&mut line).ok()? == 0 {
                return Some(false);
            }
            let l = line.trim_end();
            if l.starts_with("START:") {
                started = true;
                break;
            }
            if l.len() > 8 && gyoku_proto::csa::move_shaped(&l[..7]) && l[7..].starts_with(",T") {
                let (_, mv) = gyoku_kifu::csa::parse_move(&l[..7], &pos).ok()?;
                pos.play(mv).ok()?;
                seen.lock()
                    .unwrap()
                    .games
                    .get_mut(&id)
                    .unwrap()
                    .push(l[..7].to_string());
                if pos.turn() != turn {
                    break;
                }
            }
            if matches!(l, "#WIN" | "#LOSE" | "#DRAW" | "#CENSORED") {
                seen.lock().unwrap().finished = true;
                return Some(true);
            }
            if l.starts_with("REJECT:") {
                return Some(false);
            }
        }
    }
}

/// The database the server under test uses, and how the test reads it.
enum Db {
    Sqlite(PathBuf),
    Postgres {
        url: String,
        admin: String,
        name: String,
    },
}

impl Db {
    /// Every row of `sql` (one `$1` parameter at most), each column cast to text by the
    /// query itself.
    fn rows(&self, sql: &str, param: Option<&str>) -> Vec<Vec<Option<String>>> {
        match self {
            Db::Sqlite(path) => {
                let c = rusqlite::Connection::open(path).unwrap();
                let mut stmt = c.prepare(sql).unwrap();
                let n = stmt.column_count();
                let params: Vec<&str> = param.into_iter().collect();
                stmt.query_map(rusqlite::params_from_iter(params), |r| {
                    (0..n).map(|i| r.get::<_, Option<String>>(i)).collect()
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
            }
            Db::Postgres { url, .. } => {
                let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
                let rows = match param {
                    Some(p) => c.query(sql, &[&p]).unwrap(),
                    None => c.query(sql, &[]).unwrap(),
                };
                rows.iter()
                    .map(|r| {
                        (0..r.len())
                            .map(|i| r.get::<_, Option<String>>(i))
                            .collect()
                    })
                    .collect()
            }
        }
    }

    fn strings(&self, sql: &str, param: Option<&str>) -> Vec<String> {
        self.rows(sql, param)
            .into_iter()
            .map(|mut r| r.remove(0).unwrap_or_default())
            .collect()
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Db::Postgres { admin, name, .. } = self
            && let Ok(mut c) = postgres::Client::connect(admin, postgres::NoTls)
        {
            let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        }
    }
}

#[test]
fn killed_at_random_under_sqlite_the_server_loses_no_echoed_move() {
    let dir = std::env::temp_dir().join(format!("gyoku-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = Db::Sqlite(dir.join("gyoku.sqlite3"));
    crash_test(&dir, &db, Stop::Kill);
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGTERM reaches every part of the server: it stops accepting, finishes the batch it is
/// committing, writes the record files it was handed and exits 0; started again, it takes
/// up the games.
#[test]
fn stopped_by_sigterm_the_server_exits_cleanly_and_loses_no_echoed_move() {
    let dir = std::env::temp_dir().join(format!("gyoku-term-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = Db::Sqlite(dir.join("gyoku.sqlite3"));
    crash_test(&dir, &db, Stop::Terminate);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same under PostgreSQL: `GYOKU_TEST_POSTGRES` names a server and a user that may
/// create databases (`postgres://postgres:pw@127.0.0.1/postgres`; `.ci/run` starts one).
#[test]
fn killed_at_random_under_postgres_the_server_loses_no_echoed_move() {
    let Ok(admin) = std::env::var("GYOKU_TEST_POSTGRES") else {
        gyoku_testdata::skipped(
            "GYOKU_TEST_POSTGRES is not set",
            "the crash test under PostgreSQL",
        );
        return;
    };
    let name = format!("gyoku_crash_{}", std::process::id());
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    let db = Db::Postgres {
        url: format!("{base}/{name}"),
        admin: admin.clone(),
        name,
    };
    let dir = std::env::temp_dir().join(format!("gyoku-crash-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    crash_test(&dir, &db, Stop::Kill);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every file under `dir`, walked.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn crash_test(dir: &Path, db: &Db, stop: Stop) {
    let (mut server, port) = start_server(0, dir, db);
    let mut players = Vec::new();
    let mut seen = Vec::new();
    for g in 0..GAMES {
        for color in [Color::Black, Color::White] {
            let s = Arc::new(Mutex::new(Seen::default()));
            seen.push(Arc::clone(&s));
            let game = format!("crash{g}");
            let seed = (g as u64 + 1) * 7919 + u64::from(color == Color::Black);
            players.push(std::thread::spawn(move || {
                player(port, game, color, seed, s)
            }));
        }
    }
    let mut rng = Rng(0x5eed);
    for _ in 0..KILLS {
        std::thread::sleep(Duration::from_millis(300 + rng.below(900) as u64));
        match stop {
            Stop::Kill => server.kill(),
            Stop::Terminate => server.terminate(),
        }
        server = start_server(port, dir, db).0;
    }
    for p in players {
        p.join().unwrap();
    }
    match stop {
        Stop::Kill => server.kill(),
        Stop::Terminate => server.terminate(),
    }
    if stop == Stop::Terminate {
        // Record files are written whole (a temporary file renamed) before it exits.
        let left: Vec<PathBuf> = files_under(&dir.join("records"))
            .into_iter()
            .filter(|p| p.extension().is_none_or(|e| e != "csa"))
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    // Every move a player saw echoed is stored, at its ply.
    let mut echoed = 0;
    for s in &seen {
        let s = s.lock().unwrap();
        assert!(s.lost.is_empty(), "{:?}", s.lost);
        for (id, moves) in &s.games {
            let stored = db.strings(
                "SELECT csa FROM moves WHERE game_id = $1 ORDER BY ply",
                Some(id),
            );
            assert!(
                stored.starts_with(moves),
                "{id}: echoed {moves:?}, stored {stored:?}"
            );
            echoed += moves.len();
        }
    }
    let resumed: usize = seen.iter().map(|s| s.lock().unwrap().resumed).sum();
    eprintln!("{echoed} moves seen echoed, {resumed} resumptions with moves played");
    assert!(
        resumed >= GAMES / 2,
        "too few games were resumed to test anything: {resumed}"
    );
    assert!(
        echoed > GAMES * 10,
        "too few moves played to test anything: {echoed}"
    );
    // No ply skipped or stored twice (the primary key forbids twice).
    let gaps = db.strings(
        "SELECT CAST(COUNT(*) AS TEXT) FROM (SELECT game_id, MAX(ply) AS m, COUNT(*) AS n \
         FROM moves GROUP BY game_id) AS per_game WHERE m != n",
        None,
    );
    assert_eq!(gaps, ["0"]);
    // Every game started is finished (a game left suspended has a player that never came
    // back, which these players always do).
    let unfinished = db.strings(
        "SELECT id || ' ' || status FROM games WHERE status != 'finished'",
        None,
    );
    assert!(unfinished.is_empty(), "{unfinished:?}");
    let rows = db.rows("SELECT record_path, result, reason FROM games", None);
    assert!(rows.len() >= GAMES, "{} games stored", rows.len());
    // Each record file judges (by `gyoku judge`) to the result stored for its game.
    let records = dir.join("records");
    for row in rows {
        let [path, result, reason] = [0, 1, 2].map(|i| row[i].clone().unwrap_or_default());
        let file: PathBuf = records.join(&path);
        let out = Command::new(env!("CARGO_BIN_EXE_gyoku"))
            .args(["judge", "--json", "--max-moves", "70"])
            .arg(&file)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let json: serde_json::Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: {text} {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert_eq!(
            json["result"],
            result.as_str(),
            "{}: {json} ({reason})",
            file.display()
        );
    }
}
