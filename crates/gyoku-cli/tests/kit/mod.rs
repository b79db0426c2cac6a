//! The integration tests' kit (issue 40, step 4): `gyoku serve` started on loopback ports
//! and waited for until it says it listens, what it says kept, and killed with the test; a
//! wait on a condition, polled, instead of a sleep. Each test file takes what it uses
//! (`mod kit;`).
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// The `gyoku` binary under test.
pub fn gyoku() -> &'static str {
    env!("CARGO_BIN_EXE_gyoku")
}

/// A loopback port free a moment ago (another test may take it: [`try_serve`] says so).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process killed (SIGKILL) and waited for when dropped: by the test on purpose, or
/// when a failing assertion unwinds, so none outlives the test.
pub struct Killed(pub Child);

impl Killed {
    /// Kills it now and waits for it.
    pub fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A running `gyoku serve`: the process, everything it has said on its standard error so
/// far (read on by a thread, so it never blocks on a full pipe), and the ports it says it
/// listens on.
pub struct Served {
    /// The process.
    pub process: Killed,
    /// What it has said.
    pub said: Arc<Mutex<String>>,
    /// The CSA port's address.
    pub csa: SocketAddr,
    /// The web page's address, when it serves one.
    pub http: Option<SocketAddr>,
}

impl Served {
    /// Everything said so far.
    pub fn said(&self) -> String {
        self.said.lock().unwrap().clone()
    }
}

/// `gyoku serve` with `args`, once it says it listens (its last word at start, `CSA protocol
/// on ADDR`); `None` when it stopped before saying so (a port taken meanwhile), what it
/// said then in `said`.
pub fn try_serve<I, S>(args: I, said: &Arc<Mutex<String>>) -> Option<Served>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut process = Killed(
        Command::new(gyoku())
            .arg("serve")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut err = BufReader::new(process.0.stderr.take().unwrap());
    let mut line = String::new();
    let (mut csa, mut http) = (None, None);
    while csa.is_none() {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        said.lock().unwrap().push_str(&line);
        http = http.or_else(|| address_after(&line, "open http://", '/'));
        csa = address_after(&line, "CSA protocol on ", ' ');
    }
    let keep = Arc::clone(said);
    std::thread::spawn(move || {
        let mut more = String::new();
        while err.read_line(&mut more).is_ok_and(|n| n > 0) {
            keep.lock().unwrap().push_str(&more);
            more.clear();
        }
    });
    Some(Served {
        process,
        said: Arc::clone(said),
        csa: csa?,
        http,
    })
}

/// `gyoku serve` with `args`, once it listens; panics with what it said if it never does.
pub fn serve<I, S>(args: I) -> Served
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let said = Arc::new(Mutex::new(String::new()));
    try_serve(args, &said)
        .unwrap_or_else(|| panic!("the server never listened: {}", said.lock().unwrap()))
}

/// The address written after `marker` in `line`, up to `end`.
fn address_after(line: &str, marker: &str, end: char) -> Option<SocketAddr> {
    let rest = &line[line.find(marker)? + marker.len()..];
    rest.split(end).next()?.trim().parse().ok()
}

/// A `gyoku serve` of any role (a referee, a web instance, a standby) and what it has said
/// on its standard error so far, line by line; killed and waited for when dropped. For a
/// server that waits for nothing before it listens, [`serve`] is shorter.
pub struct Instance {
    /// The process.
    pub child: Child,
    /// Its lines so far.
    pub said: Arc<Mutex<Vec<String>>>,
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Instance {
    /// Starts `gyoku serve` with `args`; what it says is read on by a thread.
    pub fn start(args: &[&str]) -> Instance {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gyoku"))
            .arg("serve")
            .args(args)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let said = Arc::new(Mutex::new(Vec::new()));
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let kept = Arc::clone(&said);
        std::thread::spawn(move || {
            let mut line = String::new();
            while err.read_line(&mut line).is_ok_and(|n| n > 0) {
                kept.lock().unwrap().push(line.trim_end().to_string());
                line.clear();
            }
        });
        Instance { child, said }
    }

    /// The first thing `found` reads in a line it has said (within 30 s).
    pub fn says<T>(&self, found: impl Fn(&str) -> Option<T>) -> T {
        gyoku_testdata::wait_for(
            Duration::from_secs(30),
            || format!("never said it: {:?}", self.said.lock().unwrap()),
            || self.said.lock().unwrap().iter().find_map(|l| found(l)),
        )
    }

    /// The address after `prefix` in what it says (`… http://ADDR/…`).
    pub fn address(&self, prefix: &str) -> SocketAddr {
        self.says(|l| {
            let rest = &l[l.find(prefix)? + prefix.len()..];
            let end = rest.find(['/', ' ']).unwrap_or(rest.len());
            rest[..end].parse().ok()
        })
    }
}

/// Waits until `done` holds ([`gyoku_testdata::wait_until`], shared with the server
/// crate's tests).
#[allow(unused_imports)]
pub use gyoku_testdata::wait_until;

/// Waits for `child` to exit, polled as [`gyoku_testdata::wait_for`] polls; if it is still
/// running after `within`, kills it and fails naming `what`. Its exit status.
pub fn exits_within(child: &mut Child, within: Duration, what: &str) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + within;
    let exited = gyoku_testdata::wait_for(
        within + Duration::from_secs(5),
        || format!("{what} to exit"),
        || match child.try_wait() {
            Ok(Some(status)) => Some(Some(status)),
            Ok(None) if std::time::Instant::now() < deadline => None,
            _ => Some(None),
        },
    );
    exited.unwrap_or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{what} still running after {within:?}");
    })
}

/// Runs `command` to its end with its standard output and error gathered (read as it
/// writes, so a full pipe never stalls it), within `within`: past it the process is killed
/// and the test fails naming `what` ([`exits_within`]).
pub fn output_within(command: &mut Command, within: Duration, what: &str) -> std::process::Output {
    use std::io::Read;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what} cannot start: {e}"));
    let gather = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = gather(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = gather(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let status = exits_within(&mut child, within, what);
    std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Reads lines from `r` until one contains `what` (each read waits up to its timeout);
/// every line read, that one last.
pub fn read_until(r: &mut BufReader<TcpStream>, what: &str) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        let n = r.read_line(&mut line).unwrap_or(0);
        assert!(n > 0, "the connection ended before '{what}': {lines:?}");
        let done = line.contains(what);
        lines.push(line.trim_end().to_string());
        if done {
            return lines;
        }
    }
}

/// Each CSA move sent by its side (`+` Black, the first of `players`; `-` White) and read
/// back, echoed, by both.
#[allow(dead_code)]
pub fn csa_moves(players: [(&mut TcpStream, &mut BufReader<TcpStream>); 2], moves: &[&str]) {
    let [(black, black_r), (white, white_r)] = players;
    for m in moves {
        let mover = if m.starts_with('-') {
            &mut *white
        } else {
            &mut *black
        };
        mover.write_all(format!("{m}\n").as_bytes()).unwrap();
        for r in [&mut *black_r, &mut *white_r] {
            read_until(r, &format!("{m},T"));
        }
    }
}

/// A CSA connection that has sent `login` (a whole line), read through.
pub fn csa_login(csa: u16, login: &str) -> (TcpStream, BufReader<TcpStream>) {
    let s = TcpStream::connect(("127.0.0.1", csa)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    (&s).write_all(format!("{login}\n").as_bytes()).unwrap();
    let r = BufReader::new(s.try_clone().unwrap());
    (s, r)
}

/// One HTTP request with extra headers: the status and the JSON body.
pub fn request(
    at: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> (u16, Value) {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let mut s = TcpStream::connect(at).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {at}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let (_, json) = answer.split_once("\r\n\r\n").unwrap();
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

/// A database of its own on the PostgreSQL `GYOKU_TEST_POSTGRES` names, made for `what`
/// (skipped, saying so, when it names none): an admin connection, its name and its URL.
pub fn fresh_database(prefix: &str, what: &str) -> Option<(postgres::Client, String, String)> {
    let Ok(admin) = std::env::var("GYOKU_TEST_POSTGRES") else {
        gyoku_testdata::skipped("GYOKU_TEST_POSTGRES is not set", what);
        return None;
    };
    let name = format!("{prefix}_{}", std::process::id());
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    let url = format!("{base}/{name}");
    Some((c, name, url))
}

/// A game of the page against `opponent` (an engine's name), asked for through `ask`
/// (method, path, body → status and JSON: plain HTTP or TLS): the seat's token and the
/// game's id once it has started.
pub fn game_against(
    opponent: &str,
    max_moves: u32,
    ask: impl Fn(&str, &str, &Value) -> (u16, Value),
) -> (String, String) {
    let (status, seat) = ask(
        "POST",
        "/api/play",
        &serde_json::json!({"opponent": opponent, "rules": "csa", "color": "black",
            "max_moves": max_moves, "time": {"total": 600, "byoyomi": 10}, "name": "Taro"}),
    );
    assert_eq!(status, 201, "{seat}");
    let token = seat["token"].as_str().unwrap().to_string();
    let game = gyoku_testdata::wait_for(
        Duration::from_secs(30),
        || "the game to start".to_string(),
        || {
            let (_, v) = ask("GET", &format!("/api/seats/{token}"), &Value::Null);
            v["game"]["id"].as_str().map(str::to_string)
        },
    );
    (token, game)
}
