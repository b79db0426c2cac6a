//! A USI mate engine (YaneuraOu's `TANUKI_MATE_ENGINE`) asked `go mate` about one position,
//! timed from the command to its `checkmate` answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

/// What the engine answered.
#[derive(Clone, Debug, PartialEq)]
pub struct MateAnswer {
    /// `mate`, `no_mate` (proved: its disproof number 0) or `unknown`.
    pub result: &'static str,
    /// The plies of its line, for a mate.
    pub plies: Option<usize>,
    /// From `go mate` to `checkmate`.
    pub seconds: f64,
    /// Its high-water resident memory, from /proc (0 where there is none).
    pub peak_bytes: u64,
}

/// A started engine, killed when dropped (and by the kernel if this process dies).
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start(path: &str, hash_mib: u32) -> Result<Engine, String> {
        let mut command = Command::new(path);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        gyoku_arena::engine::die_with_parent(&mut command);
        let mut child = command.spawn().map_err(|e| format!("{path}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        // Lines are read on a thread of their own, so that every wait can time out; a
        // bounded queue, each line cut at 64 KiB.
        let (tx, lines) = sync_channel(1024);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            loop {
                line.clear();
                match Read::take(&mut reader, 64 << 10).read_line(&mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if tx.send(line.trim_end().to_string()).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut engine = Engine {
            child,
            stdin,
            lines,
        };
        engine.send("usi")?;
        engine.until("usiok", Duration::from_secs(30))?;
        engine.send(&format!("setoption name USI_Hash value {hash_mib}"))?;
        engine.send("isready")?;
        engine.until("readyok", Duration::from_secs(60))?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("writing to the engine: {e}"))
    }

    /// The first line starting with `prefix`, and the disproof number of the last
    /// `info string pn P dn D` before it.
    fn until(&mut self, prefix: &str, wait: Duration) -> Result<(String, Option<u64>), String> {
        let deadline = Instant::now() + wait;
        let mut dn = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(format!("no '{prefix}' in {wait:?}")),
                Err(RecvTimeoutError::Disconnected) => return Err("the engine exited".into()),
            };
            let words: Vec<&str> = line.split_whitespace().collect();
            if let ["info", "string", "pn", _, "dn", d, ..] = words.as_slice() {
                dn = d.parse().ok();
            }
            if line.starts_with(prefix) {
                return Ok((line, dn));
            }
        }
    }

    fn peak_bytes(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kib| kib * 1024)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("stop");
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Asks a fresh engine at `path` (a table of `hash_mib`) for a mate from `sfen`, for at most
/// `millis` (and a margin: this build does not always keep to its time, and what it says
/// when stopped is no answer).
///
/// # Errors
/// The engine does not start or answer `usi`/`isready`.
pub fn ask(path: &str, hash_mib: u32, sfen: &str, millis: u64) -> Result<MateAnswer, String> {
    let mut engine = Engine::start(path, hash_mib)?;
    engine.send(&format!("position sfen {sfen}"))?;
    let start = Instant::now();
    engine.send(&format!("go mate {millis}"))?;
    let answer = engine.until("checkmate", Duration::from_millis(millis + 3_000));
    let seconds = start.elapsed().as_secs_f64();
    let peak_bytes = engine.peak_bytes();
    let (result, plies) = match answer {
        Err(_) => ("unknown", None),
        Ok((line, dn)) => {
            let words: Vec<&str> = line.split_whitespace().skip(1).collect();
            match words.as_slice() {
                ["nomate"] if dn == Some(0) => ("no_mate", None),
                [] | ["nomate"] | ["timeout"] | ["notimplemented"] => ("unknown", None),
                moves => ("mate", Some(moves.len())),
            }
        }
    };
    Ok(MateAnswer {
        result,
        plies,
        seconds,
        peak_bytes,
    })
}
