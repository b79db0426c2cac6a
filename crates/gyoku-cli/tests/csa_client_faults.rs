//! `gyoku csa-client` when things go wrong: a scripted CSA server (loopback) that closes
//! the connection mid-game, sends garbage or falls silent, and engines that crash or hang.
//! Each run must end by itself with a clear message, and leave no engine process (nor an
//! engine's child) behind.

mod kit;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gyoku-faults-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What the engine does on `go`.
#[derive(Clone, Copy)]
enum EngineKind {
    /// Gyoku's built-in engine (random moves).
    Plays,
    /// Exits with status 3.
    Crashes,
    /// Never answers `go`, `stop` or `quit`.
    Hangs,
}

/// A shell script engine that writes its process id and a child's (a `sleep`) to
/// `dir/pids`, so that the test can see both are gone afterwards.
fn engine(dir: &Path, kind: EngineKind) -> String {
    let pids = dir.join("pids");
    let body = match kind {
        EngineKind::Plays => format!("exec '{}' engine --style random", kit::gyoku()),
        EngineKind::Crashes | EngineKind::Hangs => {
            let on_go = match kind {
                EngineKind::Crashes => "exit 3",
                _ => ":",
            };
            let on_quit = match kind {
                EngineKind::Hangs => ":",
                _ => "exit 0",
            };
            format!(
                "trap '' TERM\n\
                 while read -r line; do\n\
                 case \"$line\" in\n\
                 usi) echo 'id name fault'; echo usiok ;;\n\
                 isready) echo readyok ;;\n\
                 go*) {on_go} ;;\n\
                 quit) {on_quit} ;;\n\
                 esac\n\
                 done\n\
                 sleep 1000"
            )
        }
    };
    let script = dir.join("engine.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho $$ > '{p}'\nsleep 1000 &\necho $! >> '{p}'\n{body}\n",
            p = pids.display()
        ),
    )
    .unwrap();
    format!("sh '{}'", script.display())
}

/// The processes the engine script recorded that are still alive (a zombie counts as
/// gone) once they have had 5 s to go: the client kills the engine's whole process group
/// before it exits, and the kernel ends a killed process a moment later (on a loaded
/// machine, after the client has exited: issue 43).
fn engine_processes_left(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("pids")).unwrap_or_default();
    assert!(
        text.lines().count() >= 2,
        "the engine never started: {text:?}"
    );
    let alive = || -> Vec<String> {
        text.lines()
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
                    .is_ok_and(|stat| !stat.contains(") Z "))
            })
            .map(str::to_string)
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    gyoku_testdata::wait_for(
        Duration::from_secs(10),
        || "the engine's processes to go".to_string(),
        || {
            let left = alive();
            (left.is_empty() || Instant::now() >= deadline).then_some(left)
        },
    )
}

fn summary(moves: &[String]) -> String {
    let mut s = String::from(
        "BEGIN Game_Summary\nProtocol_Version:1.2\nProtocol_Mode:Server\nFormat:Shogi 1.0\n\
         Declaration:Jishogi 1.1\nGame_ID:faults+test-2-0+alice+bob+20261123000000\n\
         Name+:alice\nName-:bob\nYour_Turn:+\nRematch_On_Draw:NO\nTo_Move:+\n\
         BEGIN Time\nTime_Unit:1sec\nTotal_Time:2\nByoyomi:0\nLeast_Time_Per_Move:0\n\
         END Time\nBEGIN Position\nPI\n+\n",
    );
    for m in moves {
        s.push_str(m);
        s.push('\n');
    }
    s.push_str("END Position\nEND Game_Summary\n");
    s
}

/// One connection of the scripted server: reads lines, writes what it is told.
struct Peer {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Peer {
    fn accept(listener: &TcpListener) -> Peer {
        let (stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Peer {
            writer: stream.try_clone().unwrap(),
            reader: BufReader::new(stream),
        }
    }

    /// The next line that is not a keep-alive.
    fn read(&mut self) -> String {
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).unwrap_or(0) == 0 {
                return String::new();
            }
            let line = line.trim_end().to_string();
            if !line.is_empty() {
                return line;
            }
        }
    }

    fn say(&mut self, text: &str) {
        let _ = self.writer.write_all(text.as_bytes());
        let _ = self.writer.flush();
    }

    /// Login, the summary, `AGREE` → `START`.
    fn start_game(&mut self, moves: &[String]) {
        let login = self.read();
        assert!(login.starts_with("LOGIN alice "), "{login}");
        self.say("LOGIN:alice OK\n");
        self.say(&summary(moves));
        let agree = self.read();
        assert!(agree.starts_with("AGREE"), "{agree}");
        self.say("START:faults+test-2-0+alice+bob+20261123000000\n");
    }

    /// Reads the client's move and echoes it with `T1`; returns it without its comment.
    fn echo_move(&mut self) -> String {
        let line = self.read();
        let mv = line.split(',').next().unwrap().to_string();
        assert!(mv.starts_with('+') && mv.len() == 7, "not a move: {line}");
        self.say(&format!("{mv},T1\n"));
        mv
    }
}

struct Run {
    status: std::process::ExitStatus,
    stderr: String,
    took: Duration,
}

/// Runs `gyoku csa-client` against `port` with `engine`, killed if it runs past 60 s.
fn client(port: u16, engine: &str, out: &Path) -> Run {
    let start = Instant::now();
    let ran = kit::output_within(
        Command::new(kit::gyoku())
            .args(["csa-client", "--engine", engine, "--host", "127.0.0.1"])
            .args([
                "--port",
                &port.to_string(),
                "--id",
                "alice",
                "--password",
                "pw",
            ])
            .args(["--retry", "50ms", "--server-grace", "1s", "--out"])
            .arg(out),
        Duration::from_secs(60),
        "gyoku csa-client",
    );
    Run {
        status: ran.status,
        stderr: String::from_utf8_lossy(&ran.stderr).into_owned(),
        took: start.elapsed(),
    }
}

fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

/// The client gives up after its reconnections fail, with a message that says so.
fn assert_gives_up(run: &Run, because: &str) {
    assert!(!run.status.success(), "{}", run.stderr);
    assert!(run.stderr.contains(because), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("10 connections in a row gave no game; giving up"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_server_closes_mid_game_and_the_client_resumes_the_game() {
    let dir = work_dir("resume");
    let (l, port) = listener();
    let server = std::thread::spawn(move || {
        let mut first = Peer::accept(&l);
        first.start_game(&[]);
        let mine = first.echo_move();
        drop(first);
        // Logged in again: the game goes on from where it was (as gyoku serve resumes a
        // suspended game), and the server's side resigns after one more move each.
        let mut second = Peer::accept(&l);
        second.start_game(&[format!("{mine},T1")]);
        second.say("-3334FU,T1\n");
        second.echo_move();
        second.say("%TORYO,T1\n#RESIGN\n#WIN\n");
        assert_eq!(second.read(), "LOGOUT");
        second.say("LOGOUT:completed\n");
    });
    let run = client(port, &engine(&dir, EngineKind::Plays), &dir.join("out"));
    server.join().unwrap();
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the server closed the connection; logging in again"),
        "{}",
        run.stderr
    );
    let results = std::fs::read_to_string(dir.join("out/results.jsonl")).unwrap();
    assert!(results.contains("\"result\":\"#WIN\""), "{results}");
    assert!(results.contains("\"plies\":3"), "{results}");
    assert_eq!(engine_processes_left(&dir), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_server_closes_mid_game_for_good() {
    let dir = work_dir("closed");
    let (l, port) = listener();
    let server = std::thread::spawn(move || {
        let mut peer = Peer::accept(&l);
        peer.start_game(&[]);
        peer.echo_move();
        // The listener goes with the connection: every reconnection is refused.
    });
    let run = client(port, &engine(&dir, EngineKind::Plays), &dir.join("out"));
    server.join().unwrap();
    assert_gives_up(&run, "the server closed the connection; logging in again");
    assert!(run.took < Duration::from_secs(20), "{:?}", run.took);
    assert_eq!(engine_processes_left(&dir), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_server_sends_garbage() {
    let dir = work_dir("garbage");
    let (l, port) = listener();
    let server = std::thread::spawn(move || {
        let mut peer = Peer::accept(&l);
        peer.start_game(&[]);
        peer.echo_move();
        // 100 KB without a line break, then bytes that are not text.
        peer.say(&"x".repeat(100_000));
        let _ = peer.writer.write_all(&[0xff, 0xfe, 0, 1, b'\n']);
        // The connection stays open until the client gives up and closes it.
        let _ = std::io::Read::read_to_end(peer.reader.get_mut(), &mut Vec::new());
    });
    let run = client(port, &engine(&dir, EngineKind::Plays), &dir.join("out"));
    server.join().unwrap();
    assert_gives_up(
        &run,
        "the server sent what cannot be read: a line longer than 65536 bytes",
    );
    assert_eq!(engine_processes_left(&dir), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_server_stops_answering() {
    let dir = work_dir("silent");
    let (l, port) = listener();
    let server = std::thread::spawn(move || {
        let mut peer = Peer::accept(&l);
        peer.start_game(&[]);
        peer.echo_move();
        // Not a word more, the connection open: Black's 2 s, then the 1 s grace.
        let _ = peer.reader.read_line(&mut String::new());
    });
    let run = client(port, &engine(&dir, EngineKind::Plays), &dir.join("out"));
    assert_gives_up(&run, "the server stopped answering; logging in again");
    server.join().unwrap();
    assert_eq!(engine_processes_left(&dir), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 43: a server that drips its Game_Summary a line every 0.5 s held the client
/// without end. A summary begun must end within 10 s; past that the client logs in again,
/// and gives up when every connection does the same.
#[test]
fn the_server_drips_its_game_summary() {
    let dir = work_dir("drip");
    let (l, port) = listener();
    let server = std::thread::spawn(move || {
        let mut peer = Peer::accept(&l);
        let login = peer.read();
        assert!(login.starts_with("LOGIN alice "), "{login}");
        peer.say("LOGIN:alice OK\nBEGIN Game_Summary\n");
        // A line every half second for 15 s, unless the client has gone.
        for k in 0..30 {
            peer.say(&format!("X_Line_{k}:drip\n"));
            std::thread::sleep(Duration::from_millis(500));
        }
    });
    let run = client(port, &engine(&dir, EngineKind::Plays), &dir.join("out"));
    assert_gives_up(
        &run,
        "the server's Game_Summary did not arrive whole within 10 s",
    );
    assert!(run.took < Duration::from_secs(40), "{:?}", run.took);
    server.join().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The server rules the engine's silence a time-up, as a CSA server does when the clock
/// (2 s) runs out; the client must have said why its engine gave no move.
fn engine_fault(kind: EngineKind, name: &str, says: &str) {
    let dir = work_dir(name);
    let (l, port) = listener();
    let server = std::thread::spawn(move || {
        let mut peer = Peer::accept(&l);
        peer.start_game(&[]);
        std::thread::sleep(Duration::from_millis(2500));
        peer.say("#TIME_UP\n#LOSE\n");
        assert_eq!(peer.read(), "LOGOUT");
        peer.say("LOGOUT:completed\n");
    });
    let run = client(port, &engine(&dir, kind), &dir.join("out"));
    server.join().unwrap();
    assert!(run.status.success(), "{}", run.stderr);
    assert!(run.stderr.contains(says), "{}", run.stderr);
    let results = std::fs::read_to_string(dir.join("out/results.jsonl")).unwrap();
    assert!(results.contains("\"reason\":\"#TIME_UP\""), "{results}");
    assert_eq!(engine_processes_left(&dir), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_engine_crashes() {
    engine_fault(
        EngineKind::Crashes,
        "crash",
        "engine: crashed: exited (exit status: 3); waiting for the server's ruling",
    );
}

#[test]
fn the_engine_hangs() {
    engine_fault(
        EngineKind::Hangs,
        "hang",
        "the engine gave no move within its time; waiting for the server's ruling",
    );
}

/// Issue 28, item 21: the client never compared the server's echo of its own move with
/// what it sent, so a server that echoed another move was recorded as the engine's. It is
/// a disagreement, and the game is stopped there: the client logs out.
#[test]
fn the_server_echoes_another_move_than_the_one_sent() {
    let dir = work_dir("false-echo");
    let (l, port) = listener();
    let server = std::thread::spawn(move || {
        let mut peer = Peer::accept(&l);
        peer.start_game(&[]);
        let line = peer.read();
        let sent = line.split(',').next().unwrap().to_string();
        let other = if sent == "+9796FU" {
            "+1716FU"
        } else {
            "+9796FU"
        };
        peer.say(&format!("{other},T1\n"));
        let next = peer.read();
        peer.say("LOGOUT:completed\n");
        (sent, other.to_string(), next)
    });
    let run = client(port, &engine(&dir, EngineKind::Plays), &dir.join("out"));
    let (sent, other, next) = server.join().unwrap();
    assert_eq!(next, "LOGOUT", "{}", run.stderr);
    let said = format!(
        "the server echoed {other} as this engine's move, but it sent {sent}; the game is stopped"
    );
    assert!(run.stderr.contains(&said), "{}", run.stderr);
    let results = std::fs::read_to_string(dir.join("out/results.jsonl")).unwrap();
    assert!(results.contains(&said), "{results}");
    // The record has no move the engine did not make.
    let kif: Vec<PathBuf> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csa"))
        .collect();
    let record = std::fs::read_to_string(&kif[0]).unwrap();
    assert!(
        !record.lines().any(|l| l.starts_with(other.as_str())),
        "{record}"
    );
    assert_eq!(engine_processes_left(&dir), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}
