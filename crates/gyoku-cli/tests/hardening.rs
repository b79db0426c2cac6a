//! Issue 11: no input, file or signal crashes, hangs, exhausts memory or destroys a file.
//! One test per defect found; each failed before its fix. Every run has a time limit, so a
//! hang fails the test instead of stalling the suite.

mod kit;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/records");

/// Runs `gyoku` with a time limit; a run still going after it is killed and fails.
fn gyoku_within(limit: Duration, args: &[&str]) -> Output {
    kit::output_within(
        Command::new(kit::gyoku()).args(args),
        limit,
        &format!("gyoku {args:?}"),
    )
}

fn gyoku(args: &[&str]) -> Output {
    gyoku_within(Duration::from_secs(60), args)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gyoku-hardening-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Item 1: an opening that ends the game is refused when loaded, with file, line and ply
/// (it used to panic in the referee).
#[test]
fn an_opening_that_ends_the_game_is_refused() {
    let kif = format!("{DATA}/kif/sjis.kif");
    let engine = format!("{} engine", env!("CARGO_BIN_EXE_gyoku"));
    let out = gyoku(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--openings",
        &kif,
        "--max-moves",
        "3",
        "--games",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("sjis.kif:1: opening 1: the game is over at ply 3"),
        "{err}"
    );
    // An openings line that reaches sennichite and goes on: line 2 of the file.
    let dir = scratch("openings");
    let file = dir.join("openings.usi");
    let cycle = "2h3h 8b7b 3h2h 7b8b ".repeat(4);
    std::fs::write(
        &file,
        format!("startpos moves 7g7f\nstartpos moves {cycle}7g7f\n"),
    )
    .unwrap();
    let out = gyoku(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--openings",
        s(&file),
        "--games",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("openings.usi:2: opening 2: the game is over at ply 12 of the opening (draw by sennichite"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 3: a FIFO in a judged directory is passed over; named directly (as a record or as
/// --openings) it is an error at once.
#[test]
fn a_fifo_never_blocks() {
    let dir = scratch("fifo");
    std::fs::copy(format!("{DATA}/kif/sjis.kif"), dir.join("a.kif")).unwrap();
    let fifo = dir.join("b.kif");
    mkfifo(&fifo);
    let limit = Duration::from_secs(20);
    let out = gyoku_within(limit, &["judge", s(&dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("1 record judged"), "{}", stdout(&out));
    let out = gyoku_within(limit, &["judge", s(&fifo)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a regular file (a FIFO)"));
    let out = gyoku_within(limit, &["convert", s(&fifo), "--to", "csa"]);
    assert_eq!(out.status.code(), Some(2));
    let engine = format!("{} engine", env!("CARGO_BIN_EXE_gyoku"));
    let out = gyoku_within(
        limit,
        &[
            "match",
            "--engine",
            &engine,
            "--engine",
            &engine,
            "--openings",
            s(&fifo),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a regular file (a FIFO)"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 4: symbolic link loops: each directory and each file is visited once.
#[test]
fn symlink_loops_end_and_judge_each_record_once() {
    let dir = scratch("links");
    std::fs::copy(format!("{DATA}/kif/sjis.kif"), dir.join("a.kif")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("self")).unwrap();
    std::os::unix::fs::symlink("a.kif", dir.join("again.kif")).unwrap();
    for d in ["d1", "d2"] {
        std::fs::create_dir(dir.join(d)).unwrap();
    }
    std::os::unix::fs::symlink("../d2", dir.join("d1/x")).unwrap();
    std::os::unix::fs::symlink("../d1", dir.join("d2/y")).unwrap();
    std::os::unix::fs::symlink("../d1", dir.join("d1/z")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("d2/up")).unwrap();
    let out = gyoku_within(Duration::from_secs(20), &["judge", s(&dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("1 record judged"), "{}", stdout(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 5: one record file is read up to a cap (64 MiB by default, --max-file-size to change
/// it), and a device is not read at all.
#[test]
fn record_files_are_read_up_to_a_cap() {
    let out = gyoku_within(Duration::from_secs(20), &["judge", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/dev/zero: not a regular file (a character device)"));
    let dir = scratch("cap");
    let big = dir.join("big.csa");
    std::fs::write(&big, vec![b'\''; 2 << 20]).unwrap();
    let out = gyoku(&["judge", s(&big), "--max-file-size", "1MiB"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "larger than the 1048576-byte limit for one record file (raise it with --max-file-size)"
        ),
        "{}",
        stderr(&out)
    );
    // Under the default cap it is read (a CSA file of comments only: no game in it).
    let out = gyoku(&["judge", s(&big)]);
    assert!(!stderr(&out).contains("limit"), "{}", stderr(&out));
    let out = gyoku(&["judge", s(&big), "--max-file-size", "lots"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 8: `--out` replaces only a regular file, atomically; a symlink is followed, a FIFO
/// refused, a device written in place (never replaced); no temporary file is left, and a
/// chart that cannot be written leaves no empty file.
#[test]
fn outputs_never_replace_what_is_not_a_regular_file() {
    let dir = scratch("out");
    let kif = format!("{DATA}/kif/sjis.kif");
    std::fs::write(dir.join("real.csa"), "old").unwrap();
    std::os::unix::fs::symlink("real.csa", dir.join("link.csa")).unwrap();
    let out = gyoku(&[
        "convert",
        &kif,
        "--to",
        "csa",
        "--out",
        s(&dir.join("link.csa")),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(dir.join("link.csa"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(dir.join("real.csa"))
            .unwrap()
            .contains("%TORYO")
    );
    let fifo = dir.join("fifo.csa");
    mkfifo(&fifo);
    let out = gyoku_within(
        Duration::from_secs(20),
        &["convert", &kif, "--to", "csa", "--out", s(&fifo)],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("refusing to replace it"),
        "{}",
        stderr(&out)
    );
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }
    // /dev/full: the write fails, the device stays a device.
    let out = gyoku(&["convert", &kif, "--to", "csa", "--out", "/dev/full"]);
    assert_eq!(out.status.code(), Some(1));
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata("/dev/full")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
    // A chart into a missing directory: an error, and no file anywhere.
    let chart = dir.join("missing").join("chart.svg");
    let out = gyoku(&["impasse", &kif, "--chart", s(&chart)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!chart.exists());
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("gyoku-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `sh -c script` with a time limit, for tests that need a pipe or a resource limit.
fn shell_within(limit: Duration, script: &str) -> Output {
    kit::output_within(
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .env("GYOKU", kit::gyoku()),
        limit,
        script,
    )
}

/// Item 11: the built-in engine reads bounded lines and ignores one it cannot read, as a
/// robust USI engine does: a non-UTF-8 line, and a 100 MB line under a 64 MB memory limit.
#[test]
fn the_builtin_engine_survives_bad_lines() {
    let out = shell_within(
        Duration::from_secs(30),
        r#"printf 'usi\n\377\376 bad\nisready\nquit\n' | "$GYOKU" engine"#,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("readyok"), "{}", stdout(&out));
    assert!(stderr(&out).contains("not UTF-8"));
    let out = shell_within(
        Duration::from_secs(60),
        r#"ulimit -v 65536; { echo usi; head -c 100000000 /dev/zero | tr '\0' 'a'; echo; echo isready; echo quit; } | "$GYOKU" engine"#,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("readyok"), "{}", stdout(&out));
    assert!(stderr(&out).contains("a line over 1048576 bytes ignored"));
}

/// Item 12: control characters read from a record (or a file name) are escaped in every
/// message, never sent to the terminal.
#[test]
fn control_characters_are_escaped_in_messages() {
    let dir = scratch("escape");
    let csa = dir.join("x.csa");
    std::fs::write(&csa, "V2.2\nPI\n+\n+7776FU\n\x1b[2J\x1b]0;pwned\x07\n").unwrap();
    let kif = dir.join("y.kif");
    std::fs::write(
        &kif,
        "手数----指手---------消費時間--\n   1 ７六歩\x1b[31m(77)\n",
    )
    .unwrap();
    for file in [&csa, &kif] {
        let out = gyoku(&["judge", s(file)]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
        assert!(err.contains("\\x1b"), "{err}");
    }
    let named = dir.join("name\x1b[2J.usi");
    std::fs::write(&named, "startpos moves 7g7f\n").unwrap();
    let out = gyoku(&["judge", s(&dir)]);
    assert!(!stdout(&out).contains('\x1b'), "{:?}", stdout(&out));
    assert!(
        stdout(&out).contains("name\\x1b[2J.usi"),
        "{}",
        stdout(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 13: one rule for an empty record in every format (an error, status 2); an
/// --option for an engine that does not exist is refused; write failures exit 1.
#[test]
fn one_rule_and_one_exit_status_per_kind() {
    let dir = scratch("consistent");
    for ext in ["kif", "kifu", "ki2", "csa", "usi", "jkf"] {
        let file = dir.join(format!("empty.{ext}"));
        std::fs::write(&file, "\n").unwrap();
        let out = gyoku(&["judge", s(&file)]);
        assert_eq!(out.status.code(), Some(2), "{ext}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("empty file: no game in it"),
            "{ext}: {}",
            stderr(&out)
        );
    }
    let engine = format!("{} engine", env!("CARGO_BIN_EXE_gyoku"));
    let out = gyoku(&[
        "match", "--engine", &engine, "--engine", &engine, "--option", "3:X=Y",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("there is no engine 3 (1 or 2)"),
        "{}",
        stderr(&out)
    );
    // Write failures: status 1 for convert, a chart and a match's output directory.
    let kif = format!("{DATA}/kif/sjis.kif");
    let out = gyoku(&[
        "convert",
        &kif,
        "--to",
        "csa",
        "--out",
        "/proc/version/x.csa",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = gyoku(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--games",
        "1",
        "--out",
        "/proc/version/match",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The pids of live processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        // A zombie has an empty command line: it is gone, only not yet reaped.
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(marker) && pid != std::process::id() {
            pids.push(pid);
        }
    }
    pids
}

/// Whether `done` holds within `limit`, polled ([`gyoku_testdata::wait_for`]).
fn holds_within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    gyoku_testdata::wait_for(
        limit + Duration::from_secs(5),
        || "a condition".to_string(),
        || {
            if done() {
                Some(true)
            } else {
                (Instant::now() >= deadline).then_some(false)
            }
        },
    )
}

/// An engine command whose processes carry `marker`: the built-in engine run by a
/// wrapper script that does not `exec`, and that also starts a helper of its own.
fn wrapped_engine(dir: &Path, marker: &str) -> String {
    let script = dir.join(format!("engine-{marker}.sh"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nsleep {marker} &\n\"{}\" engine --seed 7\n",
            env!("CARGO_BIN_EXE_gyoku")
        ),
    )
    .unwrap();
    format!("sh {}", script.display())
}

/// Item 10: no engine process (nor anything a wrapper started) outlives the runner, whether
/// it finishes, or is stopped by SIGINT, SIGTERM or SIGHUP; and SIGKILL of the runner takes
/// a directly started engine with it (its parent-death signal).
#[test]
fn no_engine_outlives_the_runner() {
    let dir = scratch("processes");
    let pid = std::process::id() % 1000;
    // A normal finish, through a wrapper.
    let marker = format!("600.{pid}1");
    let engine = wrapped_engine(&dir, &marker);
    let out = gyoku(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--games",
        "2",
        "--byoyomi",
        "20ms",
        "--max-moves",
        "20",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        holds_within(Duration::from_secs(5), || processes_with(&marker)
            .is_empty()),
        "left after a normal finish: {:?}",
        processes_with(&marker)
    );
    // Stopped by a signal, through a wrapper (and SIGKILL with a direct engine).
    for (k, signal) in ["INT", "TERM", "HUP", "KILL"].into_iter().enumerate() {
        let marker = format!("600.{pid}{}", k + 2);
        let engine = if signal == "KILL" {
            format!(
                "{} engine --seed {pid}{}",
                env!("CARGO_BIN_EXE_gyoku"),
                k + 2
            )
        } else {
            wrapped_engine(&dir, &marker)
        };
        let marker = if signal == "KILL" {
            format!("--seed {pid}{}", k + 2)
        } else {
            marker
        };
        let mut runner = Command::new(env!("CARGO_BIN_EXE_gyoku"))
            .args([
                "match",
                "--engine",
                &engine,
                "--engine",
                &engine,
                "--games",
                "1000",
                "--byoyomi",
                "300ms",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        assert!(
            holds_within(Duration::from_secs(20), || processes_with(&marker).len()
                >= 2),
            "{signal}: the engines did not start"
        );
        std::thread::sleep(Duration::from_millis(300));
        let sent = Command::new("kill")
            .args([format!("-{signal}"), runner.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        assert!(
            holds_within(Duration::from_secs(15), || runner
                .try_wait()
                .unwrap()
                .is_some()),
            "{signal}: the runner did not stop"
        );
        assert!(
            holds_within(Duration::from_secs(5), || processes_with(&marker)
                .is_empty()),
            "{signal}: left after the runner: {:?}",
            processes_with(&marker)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
