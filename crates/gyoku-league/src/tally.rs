//! One player's results against another: games by result and, where games are played in
//! pairs (one opening, colours swapped), pairs by points. What a match counts, what an
//! SPRT tests ([`crate::sprt`]), what a rating list reads ([`crate::ratings::mle`]), and
//! what [`crate::elo`] turns into an Elo difference.

/// Results so far: games (loss, draw, win of the first engine) and finished pairs by the
/// first engine's points over the pair (0, ½, 1, 1½, 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Losses, draws, wins.
    pub games: [u64; 3],
    /// Pairs scoring 0, ½, 1, 1½ and 2 points.
    pub pairs: [u64; 5],
}

impl Tally {
    /// Adds a pair: the first engine's two game results, each 0 (loss), 1 (draw) or 2 (win)
    /// half-points.
    pub fn add_pair(&mut self, a: u8, b: u8) {
        self.add_game(a);
        self.add_game(b);
        self.add_pair_points(a.min(2) + b.min(2));
    }

    /// Adds a pair whose games are counted already: the first engine's half-points over
    /// it (0 to 4).
    pub fn add_pair_points(&mut self, half_points: u8) {
        self.pairs[usize::from(half_points.min(4))] += 1;
    }

    /// Adds a game outside a finished pair: 0 (loss), 1 (draw) or 2 (win) half-points.
    pub fn add_game(&mut self, half_points: u8) {
        self.games[usize::from(half_points.min(2))] += 1;
    }

    /// Games counted.
    pub fn game_count(&self) -> u64 {
        self.games.iter().sum()
    }

    /// Wins counted.
    pub fn wins(&self) -> u64 {
        self.games[2]
    }

    /// Draws counted.
    pub fn draws(&self) -> u64 {
        self.games[1]
    }

    /// Losses counted.
    pub fn losses(&self) -> u64 {
        self.games[0]
    }

    /// Points: a win 1, a draw ½.
    ///
    /// ```
    /// use gyoku_league::tally::Tally;
    /// let t = Tally { games: [1, 1, 2], pairs: [0; 5] };
    /// assert_eq!((t.wins(), t.draws(), t.losses(), t.points()), (2, 1, 1, 2.5));
    /// ```
    pub fn points(&self) -> f64 {
        self.wins() as f64 + 0.5 * self.draws() as f64
    }
}
