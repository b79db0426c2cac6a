//! Clocks as pure logic: fed with instants (milliseconds on any monotonic timeline the host
//! chooses), never reading the time itself, so they can be tested without sleeping and
//! stored and restored with a game.
//!
//! Sudden death (切れ負け), byoyomi (秒読み) with one or more periods, Fischer increment,
//! thinking-time units (考慮時間) and their combinations, with an optional least time per
//! move and the roundings in use: CSA servers' (elapsed time floored to whole seconds) and
//! the JSA's stopwatch (1分未満切り捨て: floored to whole minutes).

use std::fmt;

use crate::Color;

/// Milliseconds.
pub type Millis = u64;

/// How the time a move took is charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// To the millisecond.
    Exact,
    /// As CSA servers of protocol 1.1 did: floored to whole seconds, and at least one
    /// second.
    WholeSeconds,
    /// As CSA servers of protocol 1.2 do (shogi-server's `Least_Time_Per_Move:0`): floored
    /// to whole seconds, so a move made within the first second costs nothing.
    FlooredSeconds,
    /// As the JSA's stopwatch timing (1分未満切り捨て: its long games, the Denou-sen):
    /// floored to whole minutes, so a move made within the minute costs nothing of the
    /// main time. Byoyomi (the 1分将棋 after it) is the time actually taken.
    FlooredMinutes,
}

impl Rounding {
    /// The step a move's time is floored to (1 for exact timing).
    const fn step(self) -> Millis {
        match self {
            Rounding::Exact => 1,
            Rounding::WholeSeconds | Rounding::FlooredSeconds => 1000,
            Rounding::FlooredMinutes => 60_000,
        }
    }
}

/// Thinking-time units (考慮時間), as the NHK Cup plays them: once a move in byoyomi outlasts
/// the byoyomi, a unit of `unit` begins, then the next; the side flags when it outlasts the
/// last. `count` 0: none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ThinkingUnits {
    /// How many units each side has for the game.
    pub count: u32,
    /// How long each lasts.
    pub unit: Millis,
}

/// A time control.
///
/// ```
/// use gyoku::{Clock, Color, Rounding, TimeControl};
/// let tc = TimeControl::byoyomi(0, 10_000).with_rounding(Rounding::WholeSeconds);
/// let mut clock = Clock::new(tc, Color::Black);
/// clock.start(0).unwrap();
/// assert!(clock.stop(9_900).unwrap().is_ok());        // 9 s charged: within the period
/// clock.start(9_900).unwrap();
/// assert!(clock.stop(19_950).unwrap().is_err());      // White took 10 s: flagged
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// Main time per side.
    pub main: Millis,
    /// Byoyomi: once the main time is used up, each move must be made within this period.
    pub byoyomi: Millis,
    /// Fischer increment added after each move (and available during it, as on CSA servers).
    pub increment: Millis,
    /// Every move is charged at least this much.
    pub least_time_per_move: Millis,
    /// How elapsed time is charged.
    pub rounding: Rounding,
    /// Byoyomi periods (lishogi offers 1–5; 0 reads as 1): a move that outlasts the byoyomi
    /// uses up a period and the next begins, and the side flags when a move outlasts the
    /// last one it has. 1 is plain byoyomi.
    pub periods: u32,
    /// Thinking-time units beside the byoyomi.
    pub thinking_units: ThinkingUnits,
}

impl TimeControl {
    /// Sudden death: `main` for the whole game.
    pub const fn sudden_death(main: Millis) -> TimeControl {
        TimeControl {
            main,
            byoyomi: 0,
            increment: 0,
            least_time_per_move: 0,
            rounding: Rounding::Exact,
            periods: 1,
            thinking_units: ThinkingUnits { count: 0, unit: 0 },
        }
    }

    /// Main time, then `byoyomi` per move.
    pub const fn byoyomi(main: Millis, byoyomi: Millis) -> TimeControl {
        TimeControl {
            byoyomi,
            ..TimeControl::sudden_death(main)
        }
    }

    /// Main time plus `increment` per move.
    pub const fn fischer(main: Millis, increment: Millis) -> TimeControl {
        TimeControl {
            increment,
            ..TimeControl::sudden_death(main)
        }
    }

    /// The same control with `rounding`.
    #[must_use]
    pub const fn with_rounding(mut self, rounding: Rounding) -> TimeControl {
        self.rounding = rounding;
        self
    }

    /// The same control with `periods` byoyomi periods (0 reads as 1).
    #[must_use]
    pub const fn with_periods(mut self, periods: u32) -> TimeControl {
        self.periods = periods;
        self
    }

    /// The same control with `count` thinking-time units of `unit` each.
    #[must_use]
    pub const fn with_thinking_units(mut self, count: u32, unit: Millis) -> TimeControl {
        self.thinking_units = ThinkingUnits { count, unit };
        self
    }

    /// The byoyomi periods each side starts with (at least 1).
    pub const fn period_count(&self) -> u32 {
        if self.periods == 0 { 1 } else { self.periods }
    }

    /// The same control with a least time per move.
    #[must_use]
    pub const fn with_least_time(mut self, least: Millis) -> TimeControl {
        self.least_time_per_move = least;
        self
    }

    /// The time charged for a move that took `elapsed`.
    pub fn charge(&self, elapsed: Millis) -> Millis {
        let step = self.rounding.step();
        let rounded = match self.rounding {
            Rounding::WholeSeconds => (elapsed / step * step).max(step),
            _ => elapsed / step * step,
        };
        rounded.max(self.least_time_per_move)
    }
}

/// How a replay's clocks start after a no contest (sennichite, a declaration of 24–30
/// points, the impasse count, the move limit), each player keeping or not what they had
/// left in the game replayed.
///
/// ```
/// use gyoku::ReplayClock;
/// let hour = 3_600_000;
/// // The JSA's professional rules: a 3-hour game replayed with 2:59:00 and 0:40:00 left.
/// let jsa = ReplayClock::TopUp(hour);
/// assert_eq!(jsa.main_times(3 * hour, [10_740_000, 2_400_000]), [3 * hour, hour]);
/// assert_eq!("top-up:10m".parse::<ReplayClock>(), Ok(ReplayClock::TopUp(600_000)));
/// assert_eq!(ReplayClock::TopUp(600_000).to_string(), "top-up:10m");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReplayClock {
    /// Both start again with the game's main time (CSA servers', and Gyoku's until now).
    Fresh,
    /// Each keeps the main time they had left.
    Remaining,
    /// Each keeps what they had left; if either has less than this, both get the same
    /// addition so that the shorter has it, each never more than the game's main time: the
    /// JSA's 対局規定 第6条 with one hour ("少ない方の対局者の持時間が1時間になるように、両対
    /// 局者に同じ持時間を加える。ただし、初めの持時間を越えて加算することはない", as
    /// ja.wikipedia's 千日手 page quotes it), or an amateur event's 10 minutes.
    TopUp(Millis),
    /// No main time: byoyomi only.
    ByoyomiOnly,
}

impl ReplayClock {
    /// Each player's main time for the replay, from the game's main time `initial` and
    /// what each had `left` at its end (in the same order: by player, so the caller gives
    /// each their own whatever colour the replay gives them).
    pub fn main_times(self, initial: Millis, left: [Millis; 2]) -> [Millis; 2] {
        match self {
            ReplayClock::Fresh => [initial; 2],
            ReplayClock::Remaining => left,
            ReplayClock::ByoyomiOnly => [0; 2],
            ReplayClock::TopUp(floor) => {
                let shorter = left[0].min(left[1]);
                let add = floor.saturating_sub(shorter);
                left.map(|t| (t + add).min(initial.max(t)))
            }
        }
    }
}

impl fmt::Display for ReplayClock {
    /// `fresh`, `remaining`, `top-up:1h`, `top-up:10m`, `top-up:90s`, `byoyomi-only`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ReplayClock::Fresh => f.write_str("fresh"),
            ReplayClock::Remaining => f.write_str("remaining"),
            ReplayClock::ByoyomiOnly => f.write_str("byoyomi-only"),
            ReplayClock::TopUp(ms) if ms % 3_600_000 == 0 => {
                write!(f, "top-up:{}h", ms / 3_600_000)
            }
            ReplayClock::TopUp(ms) if ms % 60_000 == 0 => write!(f, "top-up:{}m", ms / 60_000),
            ReplayClock::TopUp(ms) if ms % 1000 == 0 => write!(f, "top-up:{}s", ms / 1000),
            ReplayClock::TopUp(ms) => write!(f, "top-up:{ms}ms"),
        }
    }
}

impl std::str::FromStr for ReplayClock {
    type Err = String;

    /// As [`ReplayClock`]'s `Display` writes it (`top-up:` takes h, m, s or ms).
    fn from_str(s: &str) -> Result<ReplayClock, String> {
        let bad = || {
            format!(
                "replay clock '{s}': fresh, remaining, byoyomi-only or top-up:DURATION (1h, 10m)"
            )
        };
        Ok(match s {
            "fresh" => ReplayClock::Fresh,
            "remaining" => ReplayClock::Remaining,
            "byoyomi-only" => ReplayClock::ByoyomiOnly,
            _ => {
                let d = s.strip_prefix("top-up:").ok_or_else(bad)?;
                let (number, unit) =
                    d.split_at(d.find(|c: char| !c.is_ascii_digit()).unwrap_or(d.len()));
                let n: Millis = number.parse().map_err(|_| bad())?;
                let scale = match unit {
                    "h" => 3_600_000,
                    "m" => 60_000,
                    "s" => 1000,
                    "ms" => 1,
                    _ => return Err(bad()),
                };
                let ms = n.checked_mul(scale).filter(|&ms| ms > 0).ok_or_else(bad)?;
                ReplayClock::TopUp(ms)
            }
        })
    }
}

/// A side ran out of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flagged {
    /// The side whose time ran out.
    pub color: Color,
    /// When (the instant the clock was checked or stopped).
    pub at: Millis,
}

/// A move made in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveTime {
    /// The side that moved.
    pub color: Color,
    /// The time charged.
    pub charged: Millis,
    /// Its main time left afterwards.
    pub remaining: Millis,
}

/// A clock used out of order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClockError {
    /// `stop` or `flag` while no turn is running.
    NotRunning,
    /// `start` while a turn is running.
    AlreadyRunning,
    /// An instant earlier than the turn's start.
    TimeWentBack,
    /// The clock has already flagged a side.
    Flagged,
}

impl fmt::Display for ClockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClockError::NotRunning => "the clock is not running",
            ClockError::AlreadyRunning => "the clock is already running",
            ClockError::TimeWentBack => "an instant before the turn started",
            ClockError::Flagged => "a side has already run out of time",
        })
    }
}

impl std::error::Error for ClockError {}

/// A two-sided game clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clock {
    /// Black's and White's controls (the same unless given apart: [`Clock::with_controls`]).
    controls: [TimeControl; 2],
    remaining: [Millis; 2],
    /// Byoyomi periods each side has left.
    periods: [u32; 2],
    /// Thinking-time units each side has left.
    units: [u32; 2],
    turn: Color,
    started_at: Option<Millis>,
    /// Stopped from this instant, its turn's time frozen ([`Clock::pause`]).
    paused_at: Option<Millis>,
    flagged: Option<Flagged>,
}

impl Clock {
    /// A clock with both sides' main time, `turn` to move first, not running.
    pub fn new(control: TimeControl, turn: Color) -> Clock {
        Clock::with_controls(control, control, turn)
    }

    /// A clock on which each side plays under its own control (an engine test giving one
    /// engine more time, a handicap in time), `turn` to move first, not running.
    ///
    /// ```
    /// use gyoku::{Clock, Color, TimeControl};
    /// let mut clock = Clock::with_controls(
    ///     TimeControl::sudden_death(60_000),
    ///     TimeControl::byoyomi(0, 5_000),
    ///     Color::Black,
    /// );
    /// clock.start(0).unwrap();
    /// assert_eq!(clock.deadline(), Some(60_000));
    /// clock.stop(10_000).unwrap().unwrap();
    /// clock.start(10_000).unwrap();
    /// assert_eq!(clock.deadline(), Some(15_000)); // White's byoyomi
    /// assert_eq!(clock.control().byoyomi, 5_000);
    /// ```
    pub fn with_controls(black: TimeControl, white: TimeControl, turn: Color) -> Clock {
        Clock {
            controls: [black, white],
            remaining: [black.main, white.main],
            periods: [black.period_count(), white.period_count()],
            units: [black.thinking_units.count, white.thinking_units.count],
            turn,
            started_at: None,
            paused_at: None,
            flagged: None,
        }
    }

    /// A clock with given remaining main times (e.g. restored from storage, or CSA's
    /// asymmetric `Time+`/`Time-`).
    pub fn with_remaining(
        control: TimeControl,
        turn: Color,
        black: Millis,
        white: Millis,
    ) -> Clock {
        Clock {
            remaining: [black, white],
            ..Clock::new(control, turn)
        }
    }

    /// The time control of the side to move (both sides' unless the clock was made with
    /// [`Clock::with_controls`]).
    pub fn control(&self) -> &TimeControl {
        self.control_of(self.turn)
    }

    /// `color`'s time control.
    pub fn control_of(&self, color: Color) -> &TimeControl {
        &self.controls[color.index()]
    }

    /// The side whose turn the clock is timing (or will time once started).
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// `color`'s main time left (not counting the current turn's elapsed time).
    pub fn remaining(&self, color: Color) -> Millis {
        self.remaining[color.index()]
    }

    /// `color`'s byoyomi periods left.
    pub fn periods_left(&self, color: Color) -> u32 {
        self.periods[color.index()]
    }

    /// `color`'s thinking-time units left.
    pub fn units_left(&self, color: Color) -> u32 {
        self.units[color.index()]
    }

    /// The side that ran out of time, if one has.
    pub fn flagged(&self) -> Option<Flagged> {
        self.flagged
    }

    /// Starts the turn of the side to move at `now`.
    ///
    /// # Errors
    /// [`ClockError::AlreadyRunning`], [`ClockError::Flagged`].
    pub fn start(&mut self, now: Millis) -> Result<(), ClockError> {
        if self.flagged.is_some() {
            return Err(ClockError::Flagged);
        }
        if self.started_at.is_some() {
            return Err(ClockError::AlreadyRunning);
        }
        self.started_at = Some(now);
        Ok(())
    }

    /// Stops the running turn's time at `now` without ending the turn (the host cannot
    /// record moves, say): nothing is charged while paused, and the turn goes on from
    /// where it stood at [`Clock::resume`]. Nothing happens to a clock that is not running
    /// or is paused already.
    ///
    /// ```
    /// use gyoku::{Clock, Color, TimeControl};
    /// let mut clock = Clock::new(TimeControl::sudden_death(10_000), Color::Black);
    /// clock.start(0).unwrap();
    /// clock.pause(4_000);
    /// assert_eq!(clock.deadline(), None);
    /// assert_eq!(clock.time_left(60_000), 6_000);
    /// clock.resume(60_000);
    /// assert_eq!(clock.deadline(), Some(66_000));
    /// assert_eq!(clock.stop(61_000).unwrap().unwrap().charged, 5_000);
    /// ```
    pub fn pause(&mut self, now: Millis) {
        if self.started_at.is_some() && self.paused_at.is_none() {
            self.paused_at = Some(now);
        }
    }

    /// Goes on with a paused turn at `now`, as if no time had passed since the pause.
    pub fn resume(&mut self, now: Millis) {
        if let (Some(start), Some(paused)) = (self.started_at, self.paused_at.take()) {
            self.started_at = Some(start + now.saturating_sub(paused));
        }
    }

    /// Whether the clock is paused.
    pub fn is_paused(&self) -> bool {
        self.paused_at.is_some()
    }

    /// `now`, or the instant of the pause while paused (time stands still).
    fn effective(&self, now: Millis) -> Millis {
        self.paused_at.map_or(now, |at| at.min(now))
    }

    /// Everything the side to move may use on this move: main time left, its byoyomi
    /// periods, its thinking-time units and the increment.
    fn available(&self) -> Millis {
        let i = self.turn.index();
        let c = self.control();
        let units = if c.byoyomi > 0 {
            u64::from(self.units[i]) * c.thinking_units.unit
        } else {
            0
        };
        self.remaining[i] + u64::from(self.periods[i]) * c.byoyomi + units + c.increment
    }

    /// The instant at which the side to move runs out of time if it has not moved.
    pub fn deadline(&self) -> Option<Millis> {
        if self.paused_at.is_some() {
            return None;
        }
        let start = self.started_at?;
        // Flagged once the charged time reaches the available time: past the main time,
        // floored minutes charge what is taken.
        let step = match self.control().rounding {
            Rounding::FlooredMinutes => 1,
            r => r.step(),
        };
        Some(start + self.available().div_ceil(step) * step)
    }

    /// Whether the side to move has run out of time by `now` (without stopping the clock).
    ///
    /// # Errors
    /// [`ClockError::NotRunning`], [`ClockError::TimeWentBack`].
    pub fn check(&self, now: Millis) -> Result<Option<Flagged>, ClockError> {
        let start = self.started_at.ok_or(ClockError::NotRunning)?;
        let elapsed = self
            .effective(now)
            .checked_sub(start)
            .ok_or(ClockError::TimeWentBack)?;
        // A running turn flags on its floored time, the least time per move aside.
        let charged = match self.control().rounding {
            Rounding::FlooredMinutes => self.charged_for(elapsed),
            r => elapsed / r.step() * r.step(),
        };
        Ok((charged >= self.available()).then_some(Flagged {
            color: self.turn,
            at: now,
        }))
    }

    /// What a move of the side to move that took `elapsed` is charged: as its control
    /// rounds it, but under floored minutes, once the main time is outlasted, the time
    /// actually taken (the byoyomi is read in seconds).
    fn charged_for(&self, elapsed: Millis) -> Millis {
        let control = self.control();
        let main = self.remaining[self.turn.index()] + control.increment;
        match control.rounding {
            Rounding::FlooredMinutes if elapsed >= main => elapsed,
            _ => control.charge(elapsed),
        }
    }

    /// The side to move has moved at `now`: charge its time and hand the turn over (the
    /// other side's turn starts at `now`, if the host calls [`Clock::start`]).
    ///
    /// # Errors
    /// [`ClockError`] when used out of order; `Ok(Err(Flagged))` when the move came too
    /// late (the clock then stays flagged).
    pub fn stop(&mut self, now: Millis) -> Result<Result<MoveTime, Flagged>, ClockError> {
        let start = self.started_at.ok_or(ClockError::NotRunning)?;
        let elapsed = self
            .effective(now)
            .checked_sub(start)
            .ok_or(ClockError::TimeWentBack)?;
        let charged = self.charged_for(elapsed);
        let color = self.turn;
        self.started_at = None;
        self.paused_at = None;
        if charged >= self.available() {
            let flag = Flagged { color, at: now };
            self.flagged = Some(flag);
            return Ok(Err(flag));
        }
        let i = color.index();
        let control = *self.control();
        let main = self.remaining[i] + control.increment;
        // Past the main time: the periods, then the thinking-time units.
        let over = charged.saturating_sub(main);
        if over > 0 && control.byoyomi > 0 {
            let periods = u64::from(self.periods[i]);
            let in_periods = periods * control.byoyomi;
            if over < in_periods {
                let used = over / control.byoyomi;
                self.periods[i] -= u32::try_from(used).unwrap_or(0);
            } else {
                // Every period but the last outlasted, then units: one for each begun.
                let beyond = over - in_periods;
                let used = beyond / control.thinking_units.unit.max(1) + 1;
                self.units[i] =
                    self.units[i].saturating_sub(u32::try_from(used).unwrap_or(u32::MAX));
                self.periods[i] = 1;
            }
        }
        self.remaining[i] = main.saturating_sub(charged);
        self.turn = !color;
        Ok(Ok(MoveTime {
            color,
            charged,
            remaining: self.remaining[i],
        }))
    }

    /// The side to move's time left at `now`, byoyomi included (0 once flagged).
    pub fn time_left(&self, now: Millis) -> Millis {
        match self.started_at {
            None => self.available(),
            Some(start) => self
                .available()
                .saturating_sub(self.effective(now).saturating_sub(start)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A paused turn is charged only its time before the pause and after the resume, is
    /// never flagged while paused, and has no deadline then.
    #[test]
    fn a_paused_turn_stands_still() {
        // (main s, byoyomi s, paused at ms, resumed at ms, stopped at ms, charged ms)
        for (main, byo, paused, resumed, stopped, charged) in [
            (10, 0, 4_000, 60_000, 61_000, 5_000),
            (0, 10, 5_000, 105_000, 108_000, 8_000),
            (0, 10, 9_999, 20_000, 20_000, 9_000),
            (60, 0, 0, 1_000_000, 1_000_000, 0),
        ] {
            let control = TimeControl {
                main: main * 1000,
                byoyomi: byo * 1000,
                increment: 0,
                least_time_per_move: 0,
                rounding: Rounding::FlooredSeconds,
                ..TimeControl::sudden_death(0)
            };
            let mut c = Clock::new(control, Color::Black);
            c.start(0).unwrap();
            c.pause(paused);
            c.pause(paused + 500); // paused already: nothing changes
            assert!(c.is_paused());
            assert_eq!(c.deadline(), None);
            assert_eq!(c.check(resumed + 10_000_000).unwrap(), None);
            c.resume(resumed);
            let t = c.stop(stopped).unwrap().unwrap();
            assert_eq!(t.charged, charged, "{main} {byo} {paused}");
            assert!(!c.is_paused());
        }
    }

    /// Each side is charged and flagged under its own control.
    #[test]
    fn each_side_plays_under_its_own_control() {
        // (Black's control, White's control, each move's (instant started, stopped),
        //  flagged side if any)
        let fischer = TimeControl::fischer(10_000, 1_000);
        let byoyomi = TimeControl::byoyomi(0, 2_000);
        let mut c = Clock::with_controls(fischer, byoyomi, Color::Black);
        assert_eq!(
            (c.remaining(Color::Black), c.remaining(Color::White)),
            (10_000, 0)
        );
        c.start(0).unwrap();
        assert_eq!(c.deadline(), Some(11_000));
        assert_eq!(c.stop(3_000).unwrap().unwrap().remaining, 8_000);
        c.start(3_000).unwrap();
        assert_eq!(c.deadline(), Some(5_000));
        assert_eq!(c.control_of(Color::Black), &fischer);
        assert!(c.stop(4_999).unwrap().is_ok());
        c.start(5_000).unwrap();
        assert!(c.stop(5_000 + 8_999).unwrap().is_ok()); // 8 s + 1 s increment
        c.start(20_000).unwrap();
        let flag = c.stop(22_000).unwrap().unwrap_err();
        assert_eq!(flag.color, Color::White);
    }

    #[test]
    fn sudden_death_flags_at_zero() {
        let mut c = Clock::new(TimeControl::sudden_death(60_000), Color::Black);
        c.start(0).unwrap();
        assert_eq!(c.check(59_999).unwrap(), None);
        assert!(c.check(60_000).unwrap().is_some());
        assert_eq!(c.deadline(), Some(60_000));
        let t = c.stop(10_000).unwrap().unwrap();
        assert_eq!((t.charged, t.remaining), (10_000, 50_000));
        assert_eq!(c.turn(), Color::White);
        assert_eq!(c.stop(0), Err(ClockError::NotRunning));
        c.start(10_000).unwrap();
        assert_eq!(c.start(10_000), Err(ClockError::AlreadyRunning));
        assert_eq!(c.stop(9_000), Err(ClockError::TimeWentBack));
        let flag = c.stop(70_000).unwrap().unwrap_err();
        assert_eq!(flag.color, Color::White);
        assert_eq!(c.start(70_000), Err(ClockError::Flagged));
    }

    #[test]
    fn byoyomi_resets_each_move() {
        let mut c = Clock::new(TimeControl::byoyomi(5_000, 10_000), Color::Black);
        c.start(0).unwrap();
        let t = c.stop(12_000).unwrap().unwrap(); // 5 s main + 7 s of byoyomi
        assert_eq!(t.remaining, 0);
        c.start(12_000).unwrap();
        c.stop(12_001).unwrap().unwrap();
        c.start(12_001).unwrap();
        assert!(c.stop(12_001 + 9_999).unwrap().is_ok());
        c.start(30_000).unwrap();
        c.stop(30_001).unwrap().unwrap();
        c.start(40_000).unwrap();
        assert!(c.stop(50_000).unwrap().is_err());
    }

    #[test]
    fn fischer_adds_after_each_move() {
        let mut c = Clock::new(TimeControl::fischer(10_000, 2_000), Color::White);
        c.start(0).unwrap();
        assert_eq!(c.stop(3_000).unwrap().unwrap().remaining, 9_000);
        assert_eq!(c.remaining(Color::Black), 10_000);
        // The increment is usable during the move itself.
        c.start(3_000).unwrap();
        assert!(c.stop(3_000 + 11_500).unwrap().is_ok());
    }

    #[test]
    fn csa_rounding_and_least_time() {
        let tc = TimeControl::byoyomi(0, 10_000)
            .with_rounding(Rounding::WholeSeconds)
            .with_least_time(2_000);
        assert_eq!(tc.charge(0), 2_000);
        assert_eq!(tc.charge(2_999), 2_000);
        assert_eq!(tc.charge(7_999), 7_000);
        let plain = TimeControl::byoyomi(0, 10_000).with_rounding(Rounding::WholeSeconds);
        assert_eq!(plain.charge(400), 1_000);
        let mut c = Clock::new(plain, Color::Black);
        c.start(0).unwrap();
        assert_eq!(c.deadline(), Some(10_000));
        assert_eq!(c.check(9_999).unwrap(), None);
        assert!(c.check(10_000).unwrap().is_some());
        assert_eq!(c.time_left(4_000), 6_000);
    }

    /// shogi-server 1.2 (`time_clock.rb`, `Least_Time_Per_Move:0`): `t = floor(seconds)`,
    /// time-up iff `my - t + byoyomi + increment <= 0`, else `my = max(0, my + inc - t)`.
    #[test]
    fn floored_seconds_as_shogi_server() {
        // (main, byoyomi, increment, remaining before, elapsed ms) -> Some(charged,
        // remaining) or None (time-up).
        type Row = (u64, u64, u64, u64, u64, Option<(u64, u64)>);
        let table: [Row; 8] = [
            (1500, 0, 0, 1500, 999, Some((0, 1500))),
            (1500, 0, 0, 1500, 1_999, Some((1, 1499))),
            (0, 10, 0, 0, 9_999, Some((9, 0))),
            (0, 10, 0, 0, 10_000, None),
            (60, 10, 0, 5, 14_999, Some((14, 0))),
            (60, 10, 0, 5, 15_000, None),
            (300, 0, 10, 3, 12_999, Some((12, 1))),
            (300, 0, 10, 3, 13_000, None),
        ];
        for (main, byo, inc, before, elapsed, want) in table {
            let tc = TimeControl {
                main: main * 1000,
                byoyomi: byo * 1000,
                increment: inc * 1000,
                least_time_per_move: 0,
                rounding: Rounding::FlooredSeconds,
                ..TimeControl::sudden_death(0)
            };
            let mut c = Clock::with_remaining(tc, Color::Black, before * 1000, main * 1000);
            c.start(0).unwrap();
            let flagged_by_check = c.check(elapsed).unwrap().is_some();
            let got = c
                .stop(elapsed)
                .unwrap()
                .ok()
                .map(|t| (t.charged / 1000, t.remaining / 1000));
            assert_eq!(
                got, want,
                "{main}-{byo}-{inc}F remaining {before} after {elapsed} ms"
            );
            assert_eq!(flagged_by_check, want.is_none());
        }
    }

    /// Issue 41, item 4: byoyomi periods, as lishogi offers them (1–5 periods of t
    /// seconds): a move that outlasts the byoyomi uses up a period, and the side flags when
    /// a move outlasts the last one it has. Three periods of 10 s.
    #[test]
    fn byoyomi_periods_are_used_up_one_by_one() {
        let tc = TimeControl::byoyomi(5_000, 10_000).with_periods(3);
        // (move's elapsed ms, periods left after it, or None: flagged)
        let moves: [(u64, Option<u32>); 6] = [
            (4_000, Some(3)),  // within the main time: 1 s of it left
            (12_000, Some(2)), // 1 s of main, 10 s of the first period, 1 s into the next
            (9_999, Some(2)),  // within a period: none used
            (10_000, Some(1)), // a whole period outlasted
            (5_000, Some(1)),
            (10_000, None), // the last period outlasted
        ];
        let mut c = Clock::new(tc, Color::Black);
        let mut now = 0;
        for (n, (elapsed, left)) in moves.into_iter().enumerate() {
            // Black moves as the row says; White answers at once.
            c.start(now).unwrap();
            let flagged_by_check = c.check(now + elapsed).unwrap().is_some();
            let done = c.stop(now + elapsed).unwrap();
            assert_eq!(done.is_err(), left.is_none(), "move {n}");
            assert_eq!(flagged_by_check, left.is_none(), "move {n}");
            if let Some(left) = left {
                assert_eq!(c.periods_left(Color::Black), left, "move {n}");
                now += elapsed;
                c.start(now).unwrap();
                c.stop(now).unwrap().unwrap();
            }
        }
        // The deadline counts the periods left.
        let mut fresh = Clock::new(
            TimeControl::byoyomi(0, 10_000).with_periods(3),
            Color::White,
        );
        fresh.start(100).unwrap();
        assert_eq!(fresh.deadline(), Some(30_100));
        assert_eq!(TimeControl::byoyomi(0, 1).with_periods(0).period_count(), 1);
    }

    /// Issue 41, item 4: the NHK Cup's thinking-time units (考慮時間: 30 s byoyomi, then ten
    /// 1-minute units). A move of 45 s in byoyomi uses one unit; of 90 s, two; within the
    /// 30 s, none; with no unit left, the 30 s flags.
    #[test]
    fn thinking_units_as_the_nhk_cup() {
        let nhk = TimeControl::byoyomi(0, 30_000).with_thinking_units(10, 60_000);
        // (elapsed ms, units left after, or None: flagged)
        let moves: [(u64, Option<u32>); 7] = [
            (29_999, Some(10)),
            (45_000, Some(9)),
            (30_000, Some(8)), // the byoyomi outlasted: a unit begins
            (90_000, Some(6)), // 30 s + a whole unit: the second begins
            (89_999, Some(5)),
            (30_000 + 5 * 60_000 - 1, Some(0)),
            (30_000, None),
        ];
        let mut c = Clock::new(nhk, Color::Black);
        let mut now = 0;
        for (n, (elapsed, left)) in moves.into_iter().enumerate() {
            c.start(now).unwrap();
            assert_eq!(
                c.deadline(),
                Some(now + 30_000 + u64::from(c.units_left(Color::Black)) * 60_000),
                "move {n}"
            );
            let done = c.stop(now + elapsed).unwrap();
            assert_eq!(done.is_err(), left.is_none(), "move {n}");
            if let Some(left) = left {
                assert_eq!(c.units_left(Color::Black), left, "move {n}");
                assert_eq!(c.periods_left(Color::Black), 1, "the byoyomi comes back");
                now += elapsed;
                c.start(now).unwrap();
                c.stop(now).unwrap().unwrap();
            }
        }
    }

    /// Issue 41, item 4: minute-floored stopwatch timing (1分未満切り捨て, the JSA's long
    /// games): a move within the minute costs nothing of the main time, 1:59 costs one
    /// minute; past the main time, the 1-minute byoyomi is read in seconds.
    #[test]
    fn floored_minutes_as_the_jsa_stopwatch() {
        let tc = TimeControl::byoyomi(3 * 60_000, 60_000).with_rounding(Rounding::FlooredMinutes);
        // (remaining before, elapsed, Some((charged, remaining after)) or None: flagged)
        type Row = (u64, u64, Option<(u64, u64)>);
        let rows: [Row; 7] = [
            (180_000, 59_999, Some((0, 180_000))),
            (180_000, 119_999, Some((60_000, 120_000))),
            (180_000, 180_000, Some((180_000, 0))), // the main time used up: 1分将棋 next
            (60_000, 119_999, Some((119_999, 0))),  // 1 min of main, 59.999 s of byoyomi
            (60_000, 120_000, None),
            (0, 59_999, Some((59_999, 0))),
            (0, 60_000, None),
        ];
        for (before, elapsed, want) in rows {
            let mut c = Clock::with_remaining(tc, Color::Black, before, 180_000);
            c.start(0).unwrap();
            assert_eq!(c.check(elapsed).unwrap().is_some(), want.is_none());
            if want.is_none() {
                assert_eq!(c.deadline(), Some(before + 60_000));
            }
            let got = c
                .stop(elapsed)
                .unwrap()
                .ok()
                .map(|t| (t.charged, t.remaining));
            assert_eq!(got, want, "{before} ms left, a move of {elapsed} ms");
        }
    }

    /// Issue 41, item 3: the replay's clocks, one row per rule with its source. The JSA's
    /// professional rules (対局規定 第6条): a 3-hour game replayed with 2:59:00 and 0:40:00
    /// left gives both +20 min, capped at 3:00:00; both above the hour keep theirs; a
    /// 10-minute game gets its 10 minutes back. An amateur event's 10-minute top-up;
    /// remaining; byoyomi only; fresh.
    #[test]
    fn replay_clocks_as_the_rules_say() {
        const H: Millis = 3_600_000;
        const M: Millis = 60_000;
        let rows: [(ReplayClock, Millis, [Millis; 2], [Millis; 2]); 8] = [
            (
                ReplayClock::TopUp(H),
                3 * H,
                [2 * H + 59 * M, 40 * M],
                [3 * H, H],
            ),
            (
                ReplayClock::TopUp(H),
                3 * H,
                [2 * H, 90 * M],
                [2 * H, 90 * M],
            ),
            (
                ReplayClock::TopUp(H),
                10 * M,
                [5 * M, 3 * M],
                [10 * M, 10 * M],
            ),
            (
                ReplayClock::TopUp(10 * M),
                25 * M,
                [12 * M, 4 * M],
                [18 * M, 10 * M],
            ),
            (
                ReplayClock::TopUp(10 * M),
                25 * M,
                [25 * M, 0],
                [25 * M, 10 * M],
            ),
            (
                ReplayClock::Remaining,
                25 * M,
                [12 * M, 4 * M],
                [12 * M, 4 * M],
            ),
            (ReplayClock::ByoyomiOnly, 25 * M, [12 * M, 4 * M], [0, 0]),
            (
                ReplayClock::Fresh,
                25 * M,
                [12 * M, 4 * M],
                [25 * M, 25 * M],
            ),
        ];
        for (policy, initial, left, want) in rows {
            assert_eq!(policy.main_times(initial, left), want, "{policy} {left:?}");
            assert_eq!(policy.to_string().parse::<ReplayClock>(), Ok(policy));
        }
        for bad in ["top-up:", "top-up:0m", "top-up:5x", "later"] {
            assert!(bad.parse::<ReplayClock>().is_err(), "{bad}");
        }
    }
}
