//! Shared helpers: run a match into a fresh directory and judge its records again.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use gyoku::{Preset, RuleSet, TimeControl};
use gyoku_arena::engine::EngineConfig;
use gyoku_arena::executor::Entrant;
use gyoku_arena::openings::Opening;
use gyoku_arena::runner::{self, MatchConfig, MatchSummary};
use gyoku_kifu::{Format, judge::judge, read_bytes};

pub fn fake(args: &str) -> EngineConfig {
    let mut c = EngineConfig::new(format!("{} {args}", env!("CARGO_BIN_EXE_fake-usi-engine")));
    c.limits.ready = std::time::Duration::from_secs(2);
    c.limits.handshake = std::time::Duration::from_secs(5);
    c
}

/// A fresh directory for a test's match, under cargo's scratch directory for integration
/// tests (in `target/`, replaced by the next run: nothing is left in the system's temp).
pub fn out_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("gyoku-arena-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

pub fn config(engines: [EngineConfig; 2], games: u32, preset: Preset, out: &Path) -> MatchConfig {
    MatchConfig {
        engines: engines.map(Entrant::new),
        games,
        preset: preset.to_string(),
        rules: preset.rules(),
        time: TimeControl::byoyomi(0, 500),
        margin: 0,
        openings: vec![],
        out: Some(out.to_path_buf()),
        concurrency: 2,
        sprt: None,
        adjudication: Default::default(),
        log_usi: None,
    }
}

pub fn opening(sfen: &str) -> Opening {
    Opening {
        start: gyoku::Position::from_sfen(sfen).unwrap(),
        moves: vec![],
    }
}

pub async fn play(config: MatchConfig) -> MatchSummary {
    runner::run(config, |_| {}).await.expect("the match runs")
}

/// Every game's KIF and CSA records, judged again under `rules`, give the match's result
/// and reason.
pub fn rejudge(summary: &MatchSummary, rules: RuleSet) {
    let dir = summary.out.as_ref().expect("an output directory");
    for g in &summary.games {
        for ext in ["csa", "kif"] {
            let path = dir.join(format!("game-{:04}.{ext}", g.number));
            let bytes = std::fs::read(&path).unwrap();
            let records = read_bytes(&bytes, Format::from_path(&path))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let j = judge(&records[0], gyoku_arena::runner::match_rules(rules));
            let engine_of = |r: Option<gyoku::GameResult>| match r {
                Some(gyoku::GameResult::Win(c)) => {
                    Some(if (c == gyoku::Color::Black) == (g.black == 0) {
                        0
                    } else {
                        1
                    })
                }
                _ => None,
            };
            if matches!(g.reason.as_str(), "crash" | "hang" | "garbage" | "flood") {
                // A forfeit is no move the judge can replay: the record says who lost
                // (%+ILLEGAL_ACTION / 反則負け), and the judge applies it as that side's forfeit.
                let forfeit = j
                    .game
                    .outcome()
                    .is_some_and(|o| matches!(o.reason, gyoku::EndReason::Forfeit { .. }));
                assert!(forfeit || ext == "kif", "{}", path.display());
                assert_eq!(engine_of(j.recorded_result), g.winner, "{}", path.display());
                if forfeit {
                    assert_eq!(engine_of(j.result), g.winner, "{}", path.display());
                }
                continue;
            }
            let outcome = j
                .game
                .outcome()
                .unwrap_or_else(|| panic!("{}: not over when judged", path.display()));
            assert_eq!(
                (engine_of(Some(outcome.result)), outcome.reason.code()),
                (g.winner, g.reason.as_str()),
                "{} judged again",
                path.display()
            );
        }
    }
}

pub fn reasons(summary: &MatchSummary) -> Vec<(u32, Option<usize>, String)> {
    summary
        .games
        .iter()
        .map(|g| (g.number, g.winner, g.reason.clone()))
        .collect()
}

/// No engine process of ours whose command line holds `marker` is alive (zombies count as
/// gone): engines never outlive the match that started them. Waits up to 3 s for the kill
/// to land. Linux only (it reads /proc).
pub fn assert_no_engine_left(marker: &str) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let ours = std::process::id().to_string();
    let alive = || -> Vec<String> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let dir = e.path();
                let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
                let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
                let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
                // pid (comm) state ppid ...
                let after = stat.rsplit_once(") ")?.1;
                let mut fields = after.split(' ');
                let state = fields.next()?;
                let ppid = fields.next()?;
                (cmdline.contains("fake-usi-engine")
                    && cmdline.contains(marker)
                    && ppid == ours
                    && state != "Z")
                    .then_some(cmdline)
            })
            .collect()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    loop {
        let left = alive();
        if left.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "engine processes outlived their match: {left:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
