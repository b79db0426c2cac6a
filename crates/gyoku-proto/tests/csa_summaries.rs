//! Every `Game_Summary` of the 34 scripted ShogiHome bridge sessions
//! (`tests/data/csa-protocol/shogihome-bridge-scenarios/*/csa.log`, MIT) reads, and writes
//! back line for line as the server sent it (a trailing blank of a board row aside).

use gyoku::Color;
use gyoku_proto::csa::{GameSummary, SummaryTimes};

fn scenarios() -> std::path::PathBuf {
    gyoku_testdata::repo_data().join("csa-protocol/shogihome-bridge-scenarios")
}

#[test]
fn every_summary_of_the_bridge_scenarios_reads_and_writes_back() {
    let dir = scenarios();
    let mut seen = 0;
    let mut per_side = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let Ok(log) = std::fs::read_to_string(entry.path().join("csa.log")) else {
            continue;
        };
        let sent: Vec<&str> = log
            .lines()
            .filter_map(|l| l.strip_prefix("send:"))
            .collect();
        let mut i = 0;
        while let Some(start) = sent[i..].iter().position(|l| *l == "BEGIN Game_Summary") {
            let from = i + start;
            let end = from
                + sent[from..]
                    .iter()
                    .position(|l| *l == "END Game_Summary")
                    .expect("closed");
            let block = &sent[from..=end];
            let s = GameSummary::parse(block.iter().copied())
                .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
            assert!(s.your_turn().is_some() && s.to_move().is_some());
            if matches!(s.time, SummaryTimes::PerSide(_)) {
                per_side += 1;
            }
            let t = s.time.of(Color::Black);
            assert!(t.ms(t.total_time).is_some(), "{}", entry.path().display());
            let written = s.to_string();
            let original: Vec<&str> = block.iter().map(|l| l.trim_end()).collect();
            let ours: Vec<&str> = written.lines().map(str::trim_end).collect();
            assert_eq!(ours, original, "{}", entry.path().display());
            seen += 1;
            i = end + 1;
        }
    }
    eprintln!("{seen} summaries, {per_side} with per-side clocks");
    assert!(seen >= 34, "{seen} summaries");
    assert!(per_side >= 1);
}
