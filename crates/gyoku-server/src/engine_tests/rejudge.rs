//! A worker's game judged again: its CSA record read, checked to be the game the batch
//! asked for (the opening, the engines by colour), and replayed under the test's rules and
//! clock. The referee's verdict is what counts; the worker's claim is only compared.

use gyoku::{Color, GameResult, Position};
use gyoku_kifu::judge::{DecidedBy, judge_with_clock};
use gyoku_kifu::{Format, Record};

use super::spec::{Checked, black_of};

/// The largest record a worker may upload, bytes.
pub const MAX_RECORD_BYTES: usize = 512 * 1024;

/// What the referee found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The winning engine (0 or 1), `None` a draw or no contest.
    pub winner: Option<usize>,
    /// Why (an end reason's code: `checkmate`, `resignation`, `time_up`, `crash`, …).
    pub reason: String,
    /// The game's length in plies.
    pub plies: u32,
}

impl Verdict {
    /// Engine 1's half-points: 2 a win, 1 a draw, 0 a loss.
    pub fn half_points(&self) -> u8 {
        match self.winner {
            Some(0) => 2,
            Some(_) => 0,
            None => 1,
        }
    }

    /// Whether the loser's engine failed (crashed, hung, flooded, wrote garbage, ran out of
    /// time, played an illegal move): what throttles a worker.
    pub fn is_failure(&self) -> bool {
        matches!(
            self.reason.as_str(),
            "crash" | "hang" | "garbage" | "flood" | "illegal_action" | "time_up" | "illegal_move"
        )
    }
}

/// Judges game `number` of `test` from its CSA record.
///
/// # Errors
/// Why the record is not that game, or cannot be judged (it is not CSA, it does not
/// end).
pub fn judge(test: &Checked, number: u32, csa: &str) -> Result<Verdict, String> {
    if csa.len() > MAX_RECORD_BYTES {
        return Err(format!("the record is over {} KiB", MAX_RECORD_BYTES >> 10));
    }
    let mut records =
        gyoku_kifu::read_str(csa, Format::Csa).map_err(|e| format!("not a CSA record: {e}"))?;
    if records.len() != 1 {
        return Err(format!(
            "{} records: one game is uploaded at a time",
            records.len()
        ));
    }
    let record: Record = records.remove(0);
    if record.damage.is_some() {
        return Err("the record is damaged (a move or line that cannot be read)".into());
    }
    let black = black_of(number);
    let names = [
        &test.spec.engines[black].name,
        &test.spec.engines[1 - black].name,
    ];
    for (key, want) in [("先手", names[0]), ("後手", names[1])] {
        let given = record.header.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        if given != Some(want) {
            return Err(format!(
                "game {number}: {} is {want} (N{}{want}), the record says {}",
                if key == "先手" { "Black" } else { "White" },
                if key == "先手" { '+' } else { '-' },
                given.map_or("nothing".to_string(), |g| format!("'{g}'"))
            ));
        }
    }
    let opening = test.opening_of(number);
    if !same_position(&record.start, &opening.start) {
        return Err(format!(
            "game {number} does not start from its opening's position"
        ));
    }
    let played: Vec<_> = record.moves.iter().map(|m| m.mv).collect();
    if !played.starts_with(&opening.moves) {
        return Err(format!(
            "game {number} does not begin with its opening's {} moves",
            opening.moves.len()
        ));
    }
    let j = judge_with_clock(&record, test.rules, test.time);
    let result = j.result.ok_or_else(|| {
        format!(
            "game {number} does not end: {} moves and no ending the rules or the record give",
            record.moves.len()
        )
    })?;
    let reason = match (j.decided_by, j.game.outcome()) {
        (DecidedBy::Rules | DecidedBy::Clock { .. }, Some(o)) => o.reason.code().to_string(),
        (DecidedBy::Record(word), _) => word.code().to_string(),
        (other, _) => other.code().to_string(),
    };
    let winner = match result {
        GameResult::Win(Color::Black) => Some(black),
        GameResult::Win(Color::White) => Some(1 - black),
        GameResult::Draw | GameResult::NoContest => None,
    };
    Ok(Verdict {
        winner,
        reason,
        plies: j.game.plies().len() as u32,
    })
}

fn same_position(a: &Position, b: &Position) -> bool {
    // Move numbers aside: a record may restart the count.
    let strip = |p: &Position| {
        let s = p.to_sfen();
        s.rsplit_once(' ')
            .map_or(s.clone(), |(head, _)| head.to_string())
    };
    strip(a) == strip(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine_tests::spec::{TestEngine, TestSpec};

    fn test() -> Checked {
        let engine = |name: &str| TestEngine {
            name: name.into(),
            command: None,
            options: vec![],
            artefact: None,
        };
        TestSpec {
            name: "t".into(),
            engines: [engine("new"), engine("old")],
            preset: "csa".into(),
            time: Some("10s".into()),
            byoyomi: Some("1s".into()),
            openings: vec!["startpos moves 7g7f".into()],
            pairs: 10,
            sprt: None,
            batch_pairs: 2,
        }
        .check()
        .unwrap()
    }

    const GAME_2: &str =
        "N+old\nN-new\nPI\n+\n+7776FU\nT0\n-3334FU\nT1\n+8822UM\nT1\n-3122GI\nT1\n%TORYO\nT1\n";

    #[test]
    fn a_resignation_counts_for_the_engine_that_did_not_resign() {
        let v = judge(&test(), 2, GAME_2).unwrap();
        // Game 2: engine 2 (old) Black, and Black resigned after four plies.
        assert_eq!(
            v,
            Verdict {
                winner: Some(0),
                reason: "resignation".into(),
                plies: 4
            }
        );
        assert_eq!(v.half_points(), 2);
    }

    #[test]
    fn a_record_of_another_game_is_refused() {
        let t = test();
        assert!(judge(&t, 1, GAME_2).unwrap_err().contains("Black is new"));
        let other_opening = GAME_2
            .replace("+7776FU", "+2726FU")
            .replace("+8822UM", "+2625FU");
        assert!(
            judge(&t, 2, &other_opening)
                .unwrap_err()
                .contains("opening")
        );
        let unfinished = GAME_2.replace("%TORYO\nT1\n", "");
        assert!(
            judge(&t, 2, &unfinished)
                .unwrap_err()
                .contains("does not end")
        );
        assert!(judge(&t, 2, "garbage").is_err());
    }

    #[test]
    fn a_move_over_the_clock_loses_on_time_whatever_the_record_says() {
        // 10 s and 1 s byoyomi: White's 12 s third move flags.
        let late = GAME_2.replace("-3122GI\nT1", "-3122GI\nT12");
        let v = judge(&test(), 2, &late).unwrap();
        assert_eq!((v.winner, v.reason.as_str()), (Some(1), "time_up"));
        let late_black = GAME_2.replace("+8822UM\nT1", "+8822UM\nT12");
        let v = judge(&test(), 2, &late_black).unwrap();
        assert_eq!((v.winner, v.reason.as_str()), (Some(0), "time_up"));
        assert!(v.is_failure());
    }
}
