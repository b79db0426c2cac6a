//! `gyoku.Game`: a game refereed under a rule set.

use gyoku::Action;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::{
    GameError, color_named, convert, handicap_of, illegal_with, moves, parse_move, read_position,
    rule_set,
};

/// A game refereed under a rule set: moves and actions, and how it ended.
///
/// >>> g = gyoku.Game(rules="jsa"); g.move("7g7f"); g.resign("white"); g.outcome["reason"]
/// 'resignation'
#[pyclass(module = "gyoku")]
pub struct Game {
    game: gyoku::Game,
}

impl Game {
    /// Takes `action`; a refusal raises `IllegalMoveError` (a foul refused, with `kind`) or
    /// `GameError` (with `code`), in the CLI's words.
    fn apply(&mut self, py: Python<'_>, action: Action) -> PyResult<()> {
        self.game.apply(action).map_err(|e| {
            if let gyoku::GameError::IllegalMove(kind) = e {
                return illegal_with(py, e.to_string(), kind);
            }
            let message = match (&e, self.game.outcome()) {
                (gyoku::GameError::GameOver, Some(o)) => format!("the game is already over ({o})"),
                _ => e.to_string(),
            };
            let err = GameError::new_err(message);
            // Setting an attribute on a fresh exception object cannot fail.
            let _ = err.value(py).setattr("code", e.code());
            err
        })
    }
}

#[pymethods]
impl Game {
    /// The game's record so far (`gyoku.write` writes it).
    ///
    /// >>> g = gyoku.Game(rules="csa"); g.move("7g7f"); gyoku.write(g.record(), "usi")
    /// b'position startpos moves 7g7f\n'
    fn record(&self) -> crate::write::Record {
        crate::write::Record {
            inner: gyoku_kifu::Record::from_game(&self.game),
        }
    }

    /// A game under `rules` (a preset: `jsa`, `csa`, `81dojo`, ...) from `sfen` (the start
    /// by default; an SFEN or a handicap name), with the CLI's overrides: `max_moves` (the
    /// move limit in plies, 0 for none), `fouls` (`lose` or `refuse`), `sennichite` (`draw`
    /// or `no-contest`). `initial` names the game's initial position (a handicap name or
    /// SFEN) when `sfen` is a later one, for the impasse's handicap credit. `lenient=True`
    /// takes a start that breaks a rule but can be played through (a missing king, ...).
    #[new]
    #[pyo3(signature = (rules="jsa", sfen=None, max_moves=None, fouls=None, sennichite=None,
                        initial=None, lenient=false))]
    fn new(
        rules: &str,
        sfen: Option<&str>,
        max_moves: Option<u32>,
        fouls: Option<&str>,
        sennichite: Option<&str>,
        initial: Option<&str>,
        lenient: bool,
    ) -> PyResult<Game> {
        let rules = rule_set(rules, max_moves, fouls, sennichite)?;
        let mut game = gyoku::Game::new(read_position(sfen, lenient)?, rules);
        if let Some(initial) = initial {
            // Read as gyoku.impasse and the CLI read it: an initial position that does not
            // read is an error, never a silent credit of 0.
            let start = read_position(Some(initial), true)?;
            game = game.with_handicap(
                handicap_of(initial).or_else(|| gyoku::Handicap::from_sfen(&start.to_sfen())),
            );
        }
        Ok(Game { game })
    }

    /// The side to move plays a USI move. Under tournament rules an illegal move ends the
    /// game (see `outcome`); under friendly ones it raises `IllegalMoveError`.
    #[pyo3(name = "move")]
    fn play(&mut self, py: Python<'_>, usi: &str) -> PyResult<()> {
        let m = parse_move(usi)?;
        self.apply(py, Action::Move(m))
    }

    /// `color` (`black` or `white`) resigns.
    fn resign(&mut self, py: Python<'_>, color: &str) -> PyResult<()> {
        let c = color_named(color)?;
        self.apply(py, Action::Resign(c))
    }

    /// The side to move declares (入玉宣言); judged at once under the rules.
    fn declare(&mut self, py: Python<'_>) -> PyResult<()> {
        self.apply(py, Action::Declare)
    }

    /// Both players agree to count the impasse now.
    fn agree(&mut self, py: Python<'_>) -> PyResult<()> {
        self.apply(py, Action::AgreeImpasse)
    }

    /// Both players agree to a sennichite before the fourth occurrence, where the rules
    /// allow it (the JSA's since 2019-10-01) and the position has repeated.
    fn agree_sennichite(&mut self, py: Python<'_>) -> PyResult<()> {
        self.apply(py, Action::AgreeSennichite)
    }

    /// `color` claims the foul the other has just made (under `fouls="claim"`).
    fn claim(&mut self, py: Python<'_>, color: &str) -> PyResult<()> {
        let c = color_named(color)?;
        self.apply(py, Action::ClaimFoul(c))
    }

    /// `color`'s clock ran out.
    fn time_up(&mut self, py: Python<'_>, color: &str) -> PyResult<()> {
        let c = color_named(color)?;
        self.apply(py, Action::TimeUp(c))
    }

    /// How it ended — `{"result", "reason", "ply", "sfen", "detail"}` as `gyoku judge
    /// --json` — or `None` while it goes on.
    #[getter]
    fn outcome(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if self.game.outcome().is_none() {
            return Ok(None);
        }
        convert::value(py, &gyoku_kifu::report::judge_json(&self.game)).map(Some)
    }

    /// The impasse calculator for the position now, with this game's initial position and
    /// recent checks (as `gyoku.impasse`).
    fn impasse(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::impasse_report(py, &self.game.impasse_report(), self.game.position())
    }

    /// The position now.
    fn sfen(&self) -> String {
        self.game.position().to_sfen()
    }

    /// The side to move.
    #[getter]
    fn turn(&self) -> &'static str {
        self.game.turn().name()
    }

    /// The handicap credit White has in an impasse count (0 in an even game).
    #[getter]
    fn handicap_credit(&self) -> u32 {
        self.game.handicap_credit()
    }

    /// The moves played, USI.
    #[getter]
    fn moves(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        moves::text_list(py, self.game.plies().iter().map(|p| p.mv))
    }
}
