//! The engine-testing options, by what each engine is sent: `fake-usi-engine --log` keeps
//! every line the runner wrote to it, and the first `go` of each engine in game 1 (engine
//! 1 Black) is checked against the table. A run's overrun tolerance is checked by the
//! result: a move later than its clock by no more than the tolerance is no loss.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use gyoku::{Millis, Preset, TimeControl};
use gyoku_arena::executor::Entrant;
use gyoku_arena::referee::{SearchLimits, forgiven};

/// A fake engine that logs what it is sent to `log`.
fn logged(quirk: &str, log: &Path) -> Entrant {
    Entrant::new(fake(&format!("{quirk} --log {}", log.display())))
}

fn go_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("go"))
        .map(str::to_string)
        .collect()
}

/// Whether `line` reads as `pattern`, word for word, `*` standing for any one word.
fn reads_as(line: &str, pattern: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (
        line.split_whitespace().collect(),
        pattern.split_whitespace().collect(),
    );
    a.len() == b.len() && a.iter().zip(&b).all(|(x, p)| *p == "*" || x == p)
}

struct Case {
    name: &'static str,
    limits: [SearchLimits; 2],
    times: [Option<TimeControl>; 2],
    /// Each engine's first `go` (engine 1 is Black in game 1).
    first_go: [&'static str; 2],
    /// Words every `go` of each engine has.
    every_go: [&'static [&'static str]; 2],
}

const NONE: SearchLimits = SearchLimits {
    nodes: None,
    depth: None,
    movetime: None,
    timemargin: 0,
};

#[tokio::test(flavor = "multi_thread")]
async fn each_option_changes_what_the_engine_is_sent() {
    let cases = [
        Case {
            name: "no limits: the match's clock (0 + 500 ms byoyomi)",
            limits: [NONE, NONE],
            times: [None, None],
            first_go: [
                "go btime 0 wtime 0 byoyomi 500",
                "go btime 0 wtime 0 byoyomi 500",
            ],
            every_go: [&["byoyomi"], &["byoyomi"]],
        },
        Case {
            name: "nodes for both (--nodes 1000)",
            limits: [SearchLimits {
                nodes: Some(1000),
                ..NONE
            }; 2],
            times: [None, None],
            first_go: [
                "go btime 0 wtime 0 byoyomi 500 nodes 1000",
                "go btime 0 wtime 0 byoyomi 500 nodes 1000",
            ],
            every_go: [&["nodes", "1000"], &["nodes", "1000"]],
        },
        Case {
            name: "depth for engine 1 only (--engine-option 1:depth=3)",
            limits: [
                SearchLimits {
                    depth: Some(3),
                    ..NONE
                },
                NONE,
            ],
            times: [None, None],
            first_go: [
                "go btime 0 wtime 0 byoyomi 500 depth 3",
                "go btime 0 wtime 0 byoyomi 500",
            ],
            every_go: [&["depth", "3"], &["byoyomi", "500"]],
        },
        Case {
            name: "movetime for engine 2 (--engine-option 2:movetime=150ms)",
            limits: [
                NONE,
                SearchLimits {
                    movetime: Some(150),
                    ..NONE
                },
            ],
            times: [None, None],
            first_go: ["go btime 0 wtime 0 byoyomi 500", "go movetime 150"],
            every_go: [&["byoyomi", "500"], &["movetime", "150"]],
        },
        Case {
            name: "engine 1's own clock, 10 s + 100 ms (--engine-option 1:tc=10+100ms)",
            limits: [NONE, NONE],
            times: [Some(TimeControl::fischer(10_000, 100)), None],
            first_go: [
                "go btime 10000 wtime 0 binc 100 winc 0",
                "go btime * wtime 0 byoyomi 500",
            ],
            every_go: [&["binc", "100"], &["byoyomi", "500"]],
        },
    ];
    for (k, case) in cases.iter().enumerate() {
        let dir = out_dir(&format!("options-{k}"));
        std::fs::create_dir_all(&dir).unwrap();
        let logs: [PathBuf; 2] = [dir.join("engine1.log"), dir.join("engine2.log")];
        let mut c = config([fake(""), fake("")], 2, Preset::Csa, &dir.join("out"));
        for (e, log) in logs.iter().enumerate() {
            c.engines[e] = Entrant {
                limits: case.limits[e],
                time: case.times[e],
                ..logged("", log)
            };
        }
        c.concurrency = 1;
        let summary = play(c).await;
        assert_eq!(summary.games.len(), 2, "{}", case.name);
        for (e, log) in logs.iter().enumerate() {
            let gos = go_lines(log);
            assert!(
                !gos.is_empty(),
                "{}: engine {} was sent no go",
                case.name,
                e + 1
            );
            assert!(
                reads_as(&gos[0], case.first_go[e]),
                "{}: engine {}'s first go was '{}', not '{}'",
                case.name,
                e + 1,
                gos[0],
                case.first_go[e]
            );
            for go in &gos {
                let words: Vec<&str> = go.split_whitespace().collect();
                assert!(
                    case.every_go[e].iter().all(|w| words.contains(w)),
                    "{}: engine {} was sent '{go}'",
                    case.name,
                    e + 1
                );
            }
        }
    }
}

/// The tolerance itself, to the millisecond: a move 30 ms over its deadline with 50 ms
/// forgiven is charged just before the deadline; 50 ms or 60 ms over is charged as it came
/// (late); with no margin, a move at the deadline is late, as the clock has it.
#[test]
fn a_move_within_the_margin_is_charged_at_its_deadline() {
    // (stopped at, turn started, deadline, timemargin, charged at)
    let table: [(Millis, Millis, Millis, Millis, Millis); 7] = [
        (1_030, 0, 1_000, 50, 999),
        (1_049, 0, 1_000, 50, 999),
        (1_050, 0, 1_000, 50, 1_050),
        (1_000, 0, 1_000, 0, 1_000),
        (1_060, 0, 1_000, 50, 1_060),
        (990, 0, 1_000, 50, 990),
        (5_000, 4_000, 5_000, 10, 4_999),
    ];
    for (stopped, start, due, margin, charged) in table {
        assert_eq!(
            forgiven(stopped, start, due, margin),
            charged,
            "{stopped} {start} {due} {margin}"
        );
    }
}

/// End to end: engine 1 answers every move 260 ms after `go` under a 200 ms byoyomi.
/// Without a margin, or with 30 ms, it loses on time at its first move; with 200 ms
/// forgiven it plays on to the move limit (the margin leaves ~140 ms for a loaded
/// machine's scheduling).
#[tokio::test(flavor = "multi_thread")]
async fn a_late_move_within_the_timemargin_is_no_loss() {
    for (margin, loses) in [(0, true), (30, true), (200, false)] {
        let dir = out_dir(&format!("timemargin-{margin}"));
        let mut c = config([fake("slow:260"), fake("")], 2, Preset::Csa, &dir);
        c.time = TimeControl::byoyomi(0, 200);
        c.engines[0].limits.timemargin = margin;
        let mut limit = c.rules.move_limit.expect("csa has a move limit");
        limit.plies = 6;
        c.rules.move_limit = Some(limit);
        let s = play(c).await;
        for g in &s.games {
            if loses {
                assert_eq!(
                    (g.winner, g.reason.as_str()),
                    (Some(1), "time_up"),
                    "margin {margin}: game {}",
                    g.number
                );
            } else {
                assert_ne!(g.reason, "time_up", "margin {margin}: game {}", g.number);
                assert_eq!(g.plies, 6, "margin {margin}: game {}", g.number);
            }
        }
    }
}

/// Issue 41, items 5 and 6 (the match runner's part): an engine that offers YaneuraOu's
/// `MaxMovesToDraw` and `EnteringKingRule` is told the rules' move limit and entering-king
/// rule, as docs/matches.md's table says; one that does not offer `MaxMovesToDraw` is not
/// sent it. (No limit is told as 0: `derived_options`' own test.)
#[tokio::test(flavor = "multi_thread")]
async fn an_engine_that_offers_max_moves_to_draw_is_told_the_limit() {
    for (preset, limit, rule) in [
        (Preset::Csa, 256, "CSARule27"),
        (Preset::Jsa, 500, "CSARule24"),
        (Preset::Csa24, 256, "CSARule24"),
        (Preset::Csa24H, 256, "CSARule24H"),
        (Preset::Csa27H, 256, "CSARule27H"),
        (Preset::Wcsc, 320, "CSARule27"),
        (Preset::Denryu, 512, "CSARule27"),
        (Preset::Floodgate, 256, "CSARule27"),
    ] {
        let dir = out_dir(&format!("max-moves-{preset}"));
        std::fs::create_dir_all(&dir).unwrap();
        let logs = [dir.join("offers.log"), dir.join("plain.log")];
        let mut c = config([fake(""), fake("")], 2, preset, &dir.join("out"));
        c.engines[0] = logged(
            "--declare MaxMovesToDraw --declare EnteringKingRule",
            &logs[0],
        );
        c.engines[1] = logged("", &logs[1]);
        play(c).await;
        let sent = |log: &Path| std::fs::read_to_string(log).unwrap_or_default();
        for told in [
            format!("setoption name MaxMovesToDraw value {limit}"),
            format!("setoption name EnteringKingRule value {rule}"),
        ] {
            assert!(
                sent(&logs[0]).lines().any(|l| l == told),
                "{preset}: {told} in {}",
                sent(&logs[0])
            );
        }
        assert!(
            !sent(&logs[1]).contains("MaxMovesToDraw"),
            "{preset}: sent to an engine that does not offer it"
        );
    }
}
