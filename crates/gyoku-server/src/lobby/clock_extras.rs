//! What a game's clock has beside its name's time: byoyomi periods and thinking units.

/// What a game's clock has beside what its name says (issue 41): byoyomi periods and
/// thinking-time units, both extending the byoyomi. The web page's games may have them;
/// a CSA `Game_Summary` cannot say them, so a CSA client is told the one byoyomi.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockExtras {
    /// Byoyomi periods (0 or 1: plain byoyomi).
    pub periods: u32,
    /// Thinking-time units (count 0: none).
    pub units: gyoku::ThinkingUnits,
}

impl ClockExtras {
    /// `control` with these.
    pub fn apply(self, control: gyoku::TimeControl) -> gyoku::TimeControl {
        control
            .with_periods(self.periods.max(1))
            .with_thinking_units(self.units.count, self.units.unit)
    }
}
