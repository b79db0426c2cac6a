//! Results in the output form of fastchess and shogitest, for the tools that read those
//! runners (OpenBench's and ShogiBench's workers, scripts): a line per finished game,
//!
//! ```text
//! Finished game 7 (new vs old): 1-0 {Black mates}
//! ```
//!
//! (the first name moved first; `1-0` is a win for it, `0-1` for the second, `1/2-1/2` a
//! draw or a no contest), and at the end of a match fastchess's `Results of` block with the
//! pentanomial counts and, under a test, the log-likelihood ratio.
//!
//! The reasons are worded so that the words those workers look for count the same
//! endings: `disconnects` (a crash), `connection stalls` (a hang), `loses on time`,
//! `illegal move`. Whitespace in a name is written `_`: the workers split the line on
//! spaces.

use gyoku::{Color, GameResult};

use gyoku_league::sprt::Sprt;
use gyoku_league::tally::Tally;

/// A name as the line writes it: whitespace as `_`.
pub fn name(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join("_")
}

/// The reason in braces for an ending: its code (as `results.jsonl` has it) and its
/// result.
///
/// ```
/// use gyoku::{Color, GameResult};
/// use gyoku_arena::fastchess::reason;
/// assert_eq!(reason("checkmate", GameResult::Win(Color::Black)), "Black mates");
/// assert_eq!(reason("time_up", GameResult::Win(Color::Black)), "White loses on time");
/// assert_eq!(reason("sennichite", GameResult::NoContest), "No contest by sennichite");
/// ```
pub fn reason(code: &str, result: GameResult) -> String {
    let side = |c: Color| if c == Color::Black { "Black" } else { "White" };
    match result {
        GameResult::Win(winner) => {
            let (w, l) = (side(winner), side(!winner));
            match code {
                "checkmate" => format!("{w} mates"),
                "no_legal_move" => format!("{l} has no legal move"),
                "resignation" => format!("{l} resigns"),
                "illegal_move" | "illegal_action" => format!("{l} makes an illegal move"),
                "garbage" => format!("{l} makes an illegal move: an answer that is no move"),
                "time_up" => format!("{l} loses on time"),
                "crash" => format!("{l} disconnects"),
                "flood" => format!("{l} disconnects: it flooded its output"),
                "hang" => format!("{l}'s connection stalls"),
                "perpetual_check" => format!("{l} loses by perpetual check"),
                "failed_declaration" => format!("{l} loses by a failed declaration"),
                "adjudicated_resign" => format!("{w} wins by adjudication"),
                other => format!("{w} wins by {}", other.replace('_', " ")),
            }
        }
        GameResult::Draw => match code {
            "adjudicated_draw" => "Draw by adjudication".to_string(),
            other => format!("Draw by {}", other.replace('_', " ")),
        },
        GameResult::NoContest => format!("No contest by {}", code.replace('_', " ")),
    }
}

/// A game's line.
///
/// ```
/// use gyoku::{Color, GameResult};
/// use gyoku_arena::fastchess::finished_line;
/// assert_eq!(
///     finished_line(3, "new build", "old", GameResult::Win(Color::White), "resignation"),
///     "Finished game 3 (new_build vs old): 0-1 {Black resigns}"
/// );
/// ```
pub fn finished_line(
    number: u32,
    black: &str,
    white: &str,
    result: GameResult,
    code: &str,
) -> String {
    let score = match result {
        GameResult::Win(Color::Black) => "1-0",
        GameResult::Win(Color::White) => "0-1",
        GameResult::Draw | GameResult::NoContest => "1/2-1/2",
    };
    format!(
        "Finished game {number} ({} vs {}): {score} {{{}}}",
        name(black),
        name(white),
        reason(code, result)
    )
}

/// What the `Results of` block says besides the counts.
#[derive(Clone, Debug)]
pub struct Heading<'a> {
    /// The engines, the first the one whose results are counted.
    pub names: [&'a str; 2],
    /// The time control as written.
    pub time: &'a str,
    /// The opening suite's file name, or `startpos`.
    pub book: &'a str,
}

/// fastchess's `Results of` block for the first engine: Elo and normalized Elo with their
/// 95 % half-widths, the likelihood of superiority, the draw ratio, the games, the
/// pentanomial counts and, under a test, its ratio, bounds and hypotheses.
///
/// `wl_dd` splits the pairs scoring 1: one win and one loss, two draws.
pub fn results_block(
    heading: &Heading<'_>,
    tally: &Tally,
    wl_dd: [u64; 2],
    sprt: Option<&Sprt>,
) -> String {
    let [losses, draws, wins] = tally.games;
    let games = wins + draws + losses;
    let points = wins as f64 + draws as f64 / 2.0;
    let pct = |x: f64, n: u64| if n == 0 { 0.0 } else { x * 100.0 / n as f64 };
    let [ll, ld, half, wd, ww] = tally.pairs;
    let (elo, elo_error, los) = tally.elo().unwrap_or((0.0, 0.0, 0.5));
    let (nelo, nelo_error) = tally.normalized_elo().unwrap_or((0.0, 0.0));
    // As fastchess divides: `inf` over nothing.
    let ratio = |a: u64, b: u64| match (a, b) {
        (0, 0) => 0.0,
        (_, 0) => f64::INFINITY,
        _ => a as f64 / b as f64,
    };
    let mut out = format!(
        "Results of {} vs {} ({}, {}):\n",
        name(heading.names[0]),
        name(heading.names[1]),
        heading.time,
        heading.book
    );
    out.push_str(&format!(
        "Elo: {elo:.2} +/- {elo_error:.2}, nElo: {nelo:.2} +/- {nelo_error:.2}\n"
    ));
    out.push_str(&format!(
        "LOS: {:.2} %, DrawRatio: {:.2} %, PairsRatio: {:.2}\n",
        los * 100.0,
        pct(draws as f64, games),
        ratio(wd + ww, ll + ld),
    ));
    out.push_str(&format!(
        "Games: {games}, Wins: {wins}, Losses: {losses}, Draws: {draws}, Points: {points:.1} ({:.2} %)\n",
        pct(points, games)
    ));
    out.push_str(&format!(
        "Ptnml(0-2): [{ll}, {ld}, {half}, {wd}, {ww}], WL/DD Ratio: {:.2}\n",
        ratio(wl_dd[0], wl_dd[1])
    ));
    if let Some(s) = sprt {
        let (lower, upper) = s.bounds();
        out.push_str(&format!(
            "LLR: {:.2} ({lower:.2}, {upper:.2}) [{:.2}, {:.2}]\n",
            s.llr(tally),
            s.elo0,
            s.elo1
        ));
    }
    out
}
