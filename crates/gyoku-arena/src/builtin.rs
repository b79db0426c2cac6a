//! `gyoku engine`: a small USI engine built on the rules core, so that demos and tests
//! need nothing installed.
//!
//! It plays at random or one-ply greedy (mate in one, then the most valuable capture or
//! promotion), declares an entering-king win (`bestmove win`) whenever the rule set in its
//! `EnteringKingRule` option allows it, makes a try under `TryRule`, and resigns when it
//! has no legal move. It answers at once, so `go` times are not used.
//!
//! [`Quirk`]s make it misbehave on purpose: the match runner's tests use them (through the
//! `fake-usi-engine` program) for every failure a real engine can show.
//!
//! ```
//! use gyoku_arena::builtin::{run, Config};
//! let input = "usi\nisready\nposition startpos\ngo btime 0 wtime 0 byoyomi 100\nquit\n";
//! let mut out = Vec::new();
//! run(input.as_bytes(), &mut out, Config::default()).unwrap();
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.contains("usiok") && out.contains("readyok") && out.contains("bestmove "));
//! ```

use std::io::{self, BufRead, Write};
use std::time::Duration;

use gyoku::impasse::{DeclarationVerdict, judge_declaration, missing_points};
use gyoku::rules::DeclarationRule;
use gyoku::{Color, ImpasseCount, Move, Position, Role, Square};
use gyoku_proto::{Command, PositionStart};

/// How it chooses a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Any legal move.
    Random,
    /// Mate in one, else the best capture or promotion, else any.
    Greedy,
}

impl Style {
    /// Reads a style's name, `greedy` or `random`.
    ///
    /// ```
    /// use gyoku_arena::builtin::Style;
    /// assert_eq!(Style::from_name("random"), Some(Style::Random));
    /// assert_eq!(Style::from_name("clever"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Style> {
        match name {
            "greedy" => Some(Style::Greedy),
            "random" => Some(Style::Random),
            _ => None,
        }
    }
}

/// The entering-king rule it declares under (YaneuraOu's `EnteringKingRule` values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnteringKingRule {
    /// `NoEnteringKing`: never declares.
    None,
    /// `CSARule24`: 31 points (the JSA count).
    Csa24,
    /// `CSARule27`: 28 points for Black, 27 for White (CSA, Floodgate).
    Csa27,
    /// `CSARule24H`: `CSARule24`, White credited what the game lacks of the full set.
    Csa24H,
    /// `CSARule27H`: `CSARule27`, White credited what the game lacks of the full set.
    Csa27H,
    /// `TryRule`: moves its king to the opponent king's start square when it can.
    Try,
}

impl EnteringKingRule {
    /// The option value: `NoEnteringKing`, `CSARule24`, `CSARule27`, `CSARule24H`,
    /// `CSARule27H`, `TryRule`.
    pub const fn name(self) -> &'static str {
        match self {
            EnteringKingRule::None => "NoEnteringKing",
            EnteringKingRule::Csa24 => "CSARule24",
            EnteringKingRule::Csa27 => "CSARule27",
            EnteringKingRule::Csa24H => "CSARule24H",
            EnteringKingRule::Csa27H => "CSARule27H",
            EnteringKingRule::Try => "TryRule",
        }
    }

    /// Reads an option value.
    pub fn from_name(name: &str) -> Option<EnteringKingRule> {
        Some(match name {
            "NoEnteringKing" => EnteringKingRule::None,
            "CSARule24" => EnteringKingRule::Csa24,
            "CSARule27" => EnteringKingRule::Csa27,
            "CSARule24H" => EnteringKingRule::Csa24H,
            "CSARule27H" => EnteringKingRule::Csa27H,
            "TryRule" => EnteringKingRule::Try,
            _ => return None,
        })
    }
}

/// Deliberate misbehaviour, for testing referees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Quirk {
    /// Plays a move that breaks the rules (a pawn two squares forward, or a drop of a
    /// piece it does not hold).
    IllegalMove,
    /// Answers `bestmove win` whatever the position.
    AlwaysDeclare,
    /// Answers after sleeping this long.
    Slow(Duration),
    /// Exits without answering.
    Crash,
    /// Never answers `isready` (from the `quirk_from`-th one on).
    HangOnReady,
    /// Never answers `go`.
    HangOnGo,
    /// Answers a `bestmove` that is not a move.
    Garbage,
    /// Writes this many `info` lines before answering.
    Flood(usize),
    /// Plays these moves in turn (cycling), falling back to its style when one is not legal.
    Script(Vec<Move>),
}

/// The engine's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// How it plays.
    pub style: Style,
    /// The rule it declares under.
    pub rule: EnteringKingRule,
    /// The seed of its choices.
    pub seed: u64,
    /// A misbehaviour, from the `quirk_from`-th `go` on (1 = the first; for
    /// [`Quirk::HangOnReady`], the `quirk_from`-th `isready`).
    pub quirk: Option<Quirk>,
    /// The first `go` (or `isready`) the quirk applies to.
    pub quirk_from: u32,
    /// Start every game (`usinewgame`) from the seed again, so that the same game position
    /// by position is played the same way: a deterministic engine, as a real one searching
    /// a fixed number of nodes is (also its `ReseedEachGame` option).
    pub reseed_each_game: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            style: Style::Greedy,
            rule: EnteringKingRule::Csa27,
            seed: 0,
            quirk: None,
            quirk_from: 1,
            reseed_each_game: false,
        }
    }
}

/// A small, seedable generator (xorshift64*).
#[derive(Clone, Copy, Debug)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// A piece's value for the greedy choice.
fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Lance => 3,
        Role::Knight => 4,
        Role::Silver => 5,
        Role::Gold | Role::ProPawn | Role::ProLance | Role::ProKnight | Role::ProSilver => 6,
        Role::Bishop => 8,
        Role::Rook => 10,
        Role::Horse => 11,
        Role::Dragon => 13,
        Role::King => 1000,
    }
}

/// What it answers to `go` in `pos`: a move, `win` or `resign`.
fn choose(pos: &Position, config: &Config, rng: &mut Rng) -> String {
    let us = pos.turn();
    let legal = pos.legal_moves();
    // The H rules credit White with what the game lacks (YaneuraOu's handicap rules).
    let (declaration, credit) = match config.rule {
        EnteringKingRule::Csa24 => (Some(DeclarationRule::Points31), 0),
        EnteringKingRule::Csa27 => (Some(DeclarationRule::Points27), 0),
        EnteringKingRule::Csa24H => (Some(DeclarationRule::Points31), missing_points(pos)),
        EnteringKingRule::Csa27H => (Some(DeclarationRule::Points27), missing_points(pos)),
        EnteringKingRule::None | EnteringKingRule::Try => (None, 0),
    };
    if let Some(rule) = declaration
        && judge_declaration(rule, &ImpasseCount::of(pos, us, credit), us)
            == DeclarationVerdict::Win
    {
        return "win".to_string();
    }
    if legal.is_empty() {
        return "resign".to_string();
    }
    if config.rule == EnteringKingRule::Try {
        let target = Square::new(5, if us == Color::Black { 1 } else { 9 });
        if let Some(m) = legal
            .iter()
            .find(|m| Some(m.to()) == target && m.from() == pos.king(us))
        {
            return m.to_string();
        }
    }
    let pick = match config.style {
        Style::Random => legal[rng.below(legal.len())],
        Style::Greedy => {
            let mut best = Vec::new();
            let mut best_score = i32::MIN;
            for &m in legal.iter() {
                let score = greedy_score(pos, m);
                if score > best_score {
                    best_score = score;
                    best.clear();
                }
                if score == best_score {
                    best.push(m);
                }
            }
            best[rng.below(best.len())]
        }
    };
    pick.to_string()
}

fn greedy_score(pos: &Position, m: Move) -> i32 {
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.is_check() && after.legal_moves().is_empty() {
        return 100_000;
    }
    let captured = pos.board().piece_at(m.to()).map_or(0, |p| value(p.role));
    let promotion = match m {
        Move::Normal {
            from,
            promote: true,
            ..
        } => pos
            .board()
            .piece_at(from)
            .and_then(|p| p.role.promoted())
            .map_or(0, |r| value(r) - value(r.unpromoted())),
        _ => 0,
    };
    10 * (captured + promotion)
}

/// What the engine says of its move, as real engines do (`info ... score ... pv`): a mate
/// in one as `score mate 1`, else the material after the move from its own view (a pawn
/// 100), so that adjudication and evaluation comments have something to read. `None` for
/// `win` and `resign`.
fn score_info(pos: &Position, answer: &str) -> Option<String> {
    let m = pos
        .legal_moves()
        .iter()
        .copied()
        .find(|m| m.to_string() == answer)?;
    let us = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.is_check() && after.legal_moves().is_empty() {
        return Some(format!("info depth 1 score mate 1 pv {answer}"));
    }
    let material: i32 = [Color::Black, Color::White]
        .iter()
        .map(|&c| {
            let on_board: i32 = after
                .board()
                .iter()
                .filter(|(_, p)| p.color == c && p.role != Role::King)
                .map(|(_, p)| value(p.role))
                .sum();
            let in_hand: i32 = Role::HAND
                .iter()
                .map(|&r| value(r) * i32::from(after.hand(c).count(r)))
                .sum();
            if c == us {
                on_board + in_hand
            } else {
                -(on_board + in_hand)
            }
        })
        .sum();
    Some(format!(
        "info depth 1 score cp {} pv {answer}",
        100 * material
    ))
}

/// A move that breaks the rules in `pos`: a pawn pushed two squares, else a drop of a
/// piece not in hand.
fn illegal_move(pos: &Position) -> Move {
    let us = pos.turn();
    for (sq, piece) in pos.board().iter() {
        if piece.color == us && piece.role == Role::Pawn {
            let rank = i32::from(sq.rank()) + if us == Color::Black { -2 } else { 2 };
            if let Some(to) = u8::try_from(rank)
                .ok()
                .and_then(|r| Square::new(sq.file(), r))
                && pos.board().piece_at(to).is_none()
            {
                return Move::Normal {
                    from: sq,
                    to,
                    promote: false,
                };
            }
        }
    }
    let empty = Square::all()
        .find(|&s| pos.board().piece_at(s).is_none())
        .expect("a board has an empty square");
    Move::Drop {
        role: Role::Rook,
        to: empty,
    }
}

fn id_lines(config: &Config) -> Vec<String> {
    let style = match config.style {
        Style::Random => "random",
        Style::Greedy => "greedy",
    };
    vec![
        format!("id name Gyoku builtin ({style})"),
        "id author the Gyoku developers".to_string(),
        format!("option name Style type combo default {style} var random var greedy"),
        format!(
            "option name EnteringKingRule type combo default {} var NoEnteringKing var CSARule24 var CSARule24H var CSARule27 var CSARule27H var TryRule",
            config.rule.name()
        ),
        format!(
            "option name Seed type spin default {} min 0 max 4294967295",
            config.seed
        ),
        format!(
            "option name ReseedEachGame type check default {}",
            config.reseed_each_game
        ),
        "usiok".to_string(),
    ]
}

/// The longest input line the engine reads (a `position ... moves ...` line of some
/// 170,000 moves); a longer one is skipped, never held whole.
pub const MAX_INPUT_LINE: usize = 1 << 20;

/// One line of input.
enum Line {
    /// A line, without its end.
    Text(String),
    /// A line longer than the limit (skipped to its end).
    TooLong,
    /// A line that is not UTF-8.
    NotUtf8,
    /// The end of the input.
    End,
}

/// Reads one line of at most `max` bytes from `input` without ever holding more: the rest
/// of a longer line is read and dropped.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            if !any {
                return Ok(Line::End);
            }
            break;
        }
        any = true;
        let (part, done) = match memchr_newline(chunk) {
            Some(i) => (&chunk[..i], i + 1),
            None => (chunk, chunk.len()),
        };
        if !too_long {
            if buf.len() + part.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(part);
            }
        }
        let ended = done > part.len();
        input.consume(done);
        if ended {
            break;
        }
    }
    if too_long {
        return Ok(Line::TooLong);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(match std::str::from_utf8(buf) {
        Ok(text) => Line::Text(text.to_string()),
        Err(_) => Line::NotUtf8,
    })
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// Runs the engine: reads commands from `input` until `quit` or its end, answers on
/// `output`.
///
/// # Errors
/// An I/O error on `output`.
pub fn run(mut input: impl BufRead, mut output: impl Write, mut config: Config) -> io::Result<()> {
    let mut pos = Position::startpos();
    let mut rng = Rng::new(config.seed);
    let mut gos = 0u32;
    let mut readies = 0u32;
    let mut script_at = 0usize;
    let mut buf = Vec::new();
    loop {
        let line = match read_line(&mut input, &mut buf, MAX_INPUT_LINE)? {
            Line::End => break,
            Line::Text(line) => line,
            // A robust engine ignores what it cannot read, and says so where the GUI
            // does not parse it.
            Line::TooLong => {
                eprintln!("gyoku engine: a line over {MAX_INPUT_LINE} bytes ignored");
                continue;
            }
            Line::NotUtf8 => {
                eprintln!("gyoku engine: a line that is not UTF-8 ignored");
                continue;
            }
        };
        match Command::parse(&line) {
            Command::Usi => {
                for l in id_lines(&config) {
                    writeln!(output, "{l}")?;
                }
            }
            Command::SetOption { name, value } => {
                let value = value.unwrap_or_default();
                match name.as_str() {
                    "Style" => {
                        config.style = if value == "random" {
                            Style::Random
                        } else {
                            Style::Greedy
                        };
                    }
                    "EnteringKingRule" => {
                        if let Some(r) = EnteringKingRule::from_name(&value) {
                            config.rule = r;
                        }
                    }
                    "Seed" => {
                        if let Ok(s) = value.parse() {
                            config.seed = s;
                            rng = Rng::new(s);
                        }
                    }
                    "ReseedEachGame" => config.reseed_each_game = value == "true",
                    _ => {}
                }
            }
            Command::IsReady => {
                readies += 1;
                if config.quirk == Some(Quirk::HangOnReady) && readies >= config.quirk_from {
                    continue;
                }
                writeln!(output, "readyok")?;
            }
            Command::Position { start, moves } => {
                let start = match start {
                    PositionStart::Startpos => Ok(Position::startpos()),
                    PositionStart::Sfen(s) => Position::from_sfen(&s).map_err(|e| e.to_string()),
                };
                match start.and_then(|mut p| {
                    for m in moves {
                        p.play(m).map_err(|e| format!("{m}: {e}"))?;
                    }
                    Ok(p)
                }) {
                    Ok(p) => pos = p,
                    Err(e) => writeln!(output, "info string bad position: {e}")?,
                }
            }
            Command::Go(_) => {
                gos += 1;
                let quirk = config.quirk.clone().filter(|_| gos >= config.quirk_from);
                let answer = match quirk {
                    Some(Quirk::IllegalMove) => illegal_move(&pos).to_string(),
                    Some(Quirk::AlwaysDeclare) => "win".to_string(),
                    Some(Quirk::Slow(d)) => {
                        std::thread::sleep(d);
                        choose(&pos, &config, &mut rng)
                    }
                    Some(Quirk::Crash) => std::process::exit(3),
                    Some(Quirk::HangOnGo) => continue,
                    Some(Quirk::Garbage) => "xyzzy".to_string(),
                    Some(Quirk::Flood(n)) => {
                        for i in 0..n {
                            writeln!(output, "info depth {i} string flooding")?;
                        }
                        choose(&pos, &config, &mut rng)
                    }
                    Some(Quirk::Script(moves)) if !moves.is_empty() => {
                        let m = moves[script_at % moves.len()];
                        script_at += 1;
                        if pos.is_legal(m) {
                            m.to_string()
                        } else {
                            choose(&pos, &config, &mut rng)
                        }
                    }
                    _ => {
                        let answer = choose(&pos, &config, &mut rng);
                        if let Some(info) = score_info(&pos, &answer) {
                            writeln!(output, "{info}")?;
                        }
                        answer
                    }
                };
                writeln!(output, "bestmove {answer}")?;
            }
            Command::UsiNewGame if config.reseed_each_game => rng = Rng::new(config.seed),
            Command::Quit => break,
            _ => {}
        }
        output.flush()?;
    }
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(config: Config, input: &str) -> String {
        let mut out = Vec::new();
        run(input.as_bytes(), &mut out, config).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn greedy_mates_in_one_and_declares() {
        // Black mates with G*5b.
        let out = answers(
            Config::default(),
            "position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1\ngo\n",
        );
        assert!(out.contains("bestmove G*5b"), "{out}");
        // 28 points, ten pieces in the zone, king entered: a CSA declaration.
        let sfen = "RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b GP 1";
        let out = answers(Config::default(), &format!("position sfen {sfen}\ngo\n"));
        assert!(out.contains("bestmove win"), "{out}");
        let out = answers(
            Config::default(),
            &format!(
                "setoption name EnteringKingRule value NoEnteringKing\nposition sfen {sfen}\ngo\n"
            ),
        );
        assert!(!out.contains("bestmove win"), "{out}");
    }

    #[test]
    fn resigns_when_mated_and_tries_under_the_try_rule() {
        let out = answers(
            Config::default(),
            "position sfen 4k4/9/9/9/9/9/4p4/4g4/4K4 b - 1\ngo\n",
        );
        assert!(out.contains("bestmove resign"), "{out}");
        let out = answers(
            Config {
                rule: EnteringKingRule::Try,
                style: Style::Random,
                ..Config::default()
            },
            "position sfen 9/4K4/9/9/9/9/9/9/k8 b - 1\ngo\n",
        );
        assert!(out.contains("bestmove 5b5a"), "{out}");
    }

    #[test]
    fn the_illegal_quirk_is_illegal() {
        for sfen in [
            gyoku::STARTPOS_SFEN,
            "4k4/9/9/9/9/9/9/9/4K4 b - 1",
            "4k4/9/9/9/9/9/9/9/4K4 w - 1",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            assert!(!pos.is_legal(illegal_move(&pos)), "{sfen}");
        }
    }
}
