//! Every failure a USI engine can show, played against the referee with the scripted
//! `fake-usi-engine` (a program of this project): the right side loses for the right
//! reason, the engine is restarted, and the records written judge again to the same end.

mod common;

use common::*;
use gyoku::Preset;

#[tokio::test(flavor = "multi_thread")]
async fn illegal_move_loses() {
    let dir = out_dir("illegal");
    let s = play(config([fake("illegal"), fake("")], 2, Preset::Csa, &dir)).await;
    assert_eq!(
        reasons(&s),
        [
            (1, Some(1), "illegal_move".into()),
            (2, Some(1), "illegal_move".into())
        ]
    );
    rejudge(&s, Preset::Csa.rules());
}

#[tokio::test(flavor = "multi_thread")]
async fn false_declaration_loses_and_true_one_wins() {
    let dir = out_dir("false-win");
    let s = play(config([fake("declare"), fake("")], 2, Preset::Csa, &dir)).await;
    assert_eq!(
        reasons(&s),
        [
            (1, Some(1), "failed_declaration".into()),
            (2, Some(1), "failed_declaration".into())
        ]
    );
    rejudge(&s, Preset::Csa.rules());
    // Black to move with 28 points and ten pieces in the zone: whoever has Black declares
    // (the fake always, the built-in engine because it can) and wins.
    let dir = out_dir("true-win");
    let mut c = config([fake("declare"), fake("")], 2, Preset::Csa, &dir);
    c.openings = vec![opening("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b GP 1")];
    let s = play(c).await;
    assert_eq!(
        reasons(&s),
        [
            (1, Some(0), "declaration".into()),
            (2, Some(1), "declaration".into())
        ]
    );
    rejudge(&s, Preset::Csa.rules());
    // Under jsa the same 28 points are a no contest (24–30); under lishogi the position
    // is an automatic impasse win before anyone moves, and `bestmove win` where the rules
    // have no declaration is a foul.
    for (preset, sfen, want) in [
        (
            Preset::Jsa,
            Some("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b GP 1"),
            (None, "declaration"),
        ),
        (
            Preset::Lishogi,
            Some("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b GP 1"),
            (Some(0), "automatic_impasse"),
        ),
        (Preset::Lishogi, None, (Some(1), "failed_declaration")),
    ] {
        let dir = out_dir(&format!("win-{preset}-{}", sfen.is_some()));
        let mut c = config([fake("declare"), fake("")], 1, preset, &dir);
        c.openings = sfen.map(opening).into_iter().collect();
        let s = play(c).await;
        assert_eq!(reasons(&s), [(1, want.0, want.1.to_string())], "{preset}");
        rejudge(&s, preset.rules());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn time_loss_and_hangs() {
    let dir = out_dir("slow");
    // 800 ms per move against a 500 ms byoyomi.
    let s = play(config([fake("slow:800"), fake("")], 2, Preset::Csa, &dir)).await;
    assert_eq!(
        reasons(&s),
        [
            (1, Some(1), "time_up".into()),
            (2, Some(1), "time_up".into())
        ]
    );
    rejudge(&s, Preset::Csa.rules());
    // No answer at all to `go`: lost on time when the clock runs out.
    let dir = out_dir("hang-go");
    let s = play(config([fake(""), fake("hang-go")], 1, Preset::Csa, &dir)).await;
    assert_eq!(reasons(&s), [(1, Some(0), "time_up".into())]);
    assert_no_engine_left("hang-go");
    // No `readyok` before the game (the first isready, at the probe, is answered).
    let dir = out_dir("hang-ready");
    let s = play(config(
        [fake("hang-ready --from 2"), fake("")],
        2,
        Preset::Csa,
        &dir,
    ))
    .await;
    assert_eq!(
        reasons(&s),
        [(1, Some(1), "hang".into()), (2, Some(1), "hang".into())]
    );
    assert_no_engine_left("hang-ready");
    rejudge(&s, Preset::Csa.rules());
}

#[tokio::test(flavor = "multi_thread")]
async fn crash_garbage_and_flood_forfeit() {
    for (quirk, reason) in [
        ("crash --from 3", "crash"),
        ("garbage --from 2", "garbage"),
        ("flood:5000", "flood"),
    ] {
        let dir = out_dir(reason);
        let mut engine = fake(quirk);
        engine.limits.max_lines_per_move = 1000;
        let s = play(config([fake(""), engine], 3, Preset::Csa, &dir)).await;
        // The engine is restarted after each failure, and fails again in each game.
        let want: Vec<_> = (1..=3).map(|n| (n, Some(0), reason.to_string())).collect();
        assert_eq!(reasons(&s), want, "{quirk}");
        assert_no_engine_left(quirk);
        rejudge(&s, Preset::Csa.rules());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn mate_on_the_last_allowed_move_is_mate() {
    // Black mates with G*5b at ply 1; the move limit is 1 ply.
    let dir = out_dir("last-move-mate");
    let mut c = config([fake(""), fake("")], 2, Preset::Csa, &dir);
    c.rules.set_max_moves(1);
    c.openings = vec![opening("4k4/9/4P4/9/9/9/9/9/4K4 b G 1")];
    let s = play(c).await;
    assert_eq!(
        reasons(&s),
        [
            (1, Some(0), "checkmate".into()),
            (2, Some(1), "checkmate".into())
        ]
    );
    // The same limit with a quiet last move: a draw by the move limit.
    let dir = out_dir("last-move-quiet");
    let mut c = config([fake("script:5i4h"), fake("")], 1, Preset::Csa, &dir);
    c.rules.set_max_moves(1);
    c.openings = vec![opening("4k4/9/4P4/9/9/9/9/9/4K4 b G 1")];
    let s = play(c).await;
    assert_eq!(reasons(&s), [(1, None, "move_limit".into())]);
}

#[tokio::test(flavor = "multi_thread")]
async fn sennichite_through_the_engines_own_repetition() {
    let dir = out_dir("sennichite");
    let c = config(
        [fake("script:5i4h,4h5i"), fake("script:5a4b,4b5a")],
        1,
        Preset::Csa,
        &dir,
    );
    let s = play(c).await;
    assert_eq!(reasons(&s), [(1, None, "sennichite".into())]);
    assert_eq!(s.games[0].plies, 12);
    rejudge(&s, Preset::Csa.rules());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_match_resumes() {
    let dir = out_dir("resume");
    let s = play(config([fake(""), fake("--random")], 4, Preset::Csa, &dir)).await;
    assert_eq!(s.games.len(), 4);
    // Forget games 2 and 4, as if the runner had been stopped before they finished.
    let results = dir.join("results.jsonl");
    let kept: String = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"game\":1,") || l.contains("\"game\":3,"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&results, kept + "{\"game\":2,\"bla").unwrap();
    let s = play(config([fake(""), fake("--random")], 4, Preset::Csa, &dir)).await;
    assert_eq!((s.resumed, s.games.len()), (2, 4));
    assert_eq!(
        s.games.iter().map(|g| g.number).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    // Issue 11, item 9: the torn line was cut before game 2's line was appended, so a third
    // run finds every game finished, and every line of results.jsonl whole.
    let s = play(config([fake(""), fake("--random")], 4, Preset::Csa, &dir)).await;
    assert_eq!((s.resumed, s.games.len()), (4, 4));
    let text = std::fs::read_to_string(&results).unwrap();
    assert_eq!(text.lines().count(), 4, "{text}");
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
    // A deleted record of a finished game is noticed: that game is played again, once.
    std::fs::remove_file(dir.join("game-0003.kif")).unwrap();
    let s = play(config([fake(""), fake("--random")], 4, Preset::Csa, &dir)).await;
    assert_eq!((s.resumed, s.games.len()), (3, 4));
    assert!(dir.join("game-0003.kif").is_file());
    let text = std::fs::read_to_string(&results).unwrap();
    assert_eq!(text.lines().count(), 4, "{text}");
    assert_eq!(text.matches("\"game\":3,").count(), 1, "{text}");
    // Another match in the same directory is refused.
    let other =
        gyoku_arena::runner::run(config([fake(""), fake("")], 6, Preset::Csa, &dir), |_| {}).await;
    let err = other.unwrap_err();
    assert!(matches!(err, gyoku_arena::runner::MatchError::Input(_)));
    assert!(err.to_string().contains("holds a different match"));
}
