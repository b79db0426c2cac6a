//! Short matches between two real engines nobody on this project wrote, GPSShogi's
//! `gpsusi` and Fairy-Stockfish (Debian packages `gpsshogi`, `fairy-stockfish`; CI installs
//! them), under csa, jsa and try, each record judged again to the same end.
//!
//! Runs when `GYOKU_REAL_ENGINES=1` (as CI sets it), and then fails if an engine is
//! missing; otherwise it says it was skipped.

mod common;

use common::*;
use gyoku::{Preset, TimeControl};
use gyoku_arena::engine::EngineConfig;

const GPSUSI: &str = "/usr/games/gpsusi";
const FAIRY: &str = "/usr/games/fairy-stockfish";

fn wanted() -> bool {
    if std::env::var("GYOKU_REAL_ENGINES").as_deref() == Ok("1") {
        for e in [GPSUSI, FAIRY] {
            assert!(std::path::Path::new(e).exists(), "{e} is not installed");
        }
        true
    } else {
        gyoku_testdata::skipped(
            "GYOKU_REAL_ENGINES is not 1",
            "matches between gpsusi and Fairy-Stockfish (CI installs them and sets it)",
        );
        false
    }
}

fn gps() -> EngineConfig {
    let mut e = EngineConfig::new(GPSUSI);
    // The shallowest search and one thread, so two games can run on two cores.
    e.options = vec![
        ("LimitDepth".into(), "4".into()),
        ("Thread".into(), "1".into()),
    ];
    e
}

#[tokio::test(flavor = "multi_thread")]
async fn gpsusi_and_fairy_stockfish_play_to_the_end() {
    if !wanted() {
        return;
    }
    for preset in [Preset::Csa, Preset::Jsa, Preset::Try] {
        let dir = out_dir(&format!("real-{preset}"));
        let mut c = config([gps(), EngineConfig::new(FAIRY)], 2, preset, &dir);
        // gpsusi overruns a short byoyomi: tell it 300 ms of the 1 s it has.
        c.time = TimeControl::byoyomi(0, 1000);
        c.margin = 700;
        c.concurrency = 1;
        let s = play(c).await;
        assert_eq!(s.games.len(), 2, "{preset}");
        assert!(!s.interrupted);
        assert_eq!(s.names[0], "gpsshogi (smp) vm r3033 wordsize 64 gcc 12.2.0");
        assert_eq!(s.names[1], "Fairy-Stockfish 11.1 LB 64");
        eprintln!("{preset}: {:?}", reasons(&s));
        for g in &s.games {
            // Real engines end games by the rules (or the clock), never by a forfeit.
            assert!(
                !matches!(g.reason.as_str(), "crash" | "hang" | "garbage" | "flood"),
                "{preset}: {g:?}"
            );
            assert!(g.plies > 10, "{preset}: {g:?}");
        }
        rejudge(&s, preset.rules());
    }
}
