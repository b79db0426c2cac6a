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

/// Games played in pairs, counted as they finish in any order: games `2k+1` and `2k+2`
/// (numbered from 1) play one opening with colours swapped, and a pair is counted once
/// both are in. What a match counts and what a test spread over workers counts, so that
/// both decide alike.
///
/// ```
/// use gyoku_league::tally::PairBook;
/// let mut book = PairBook::default();
/// book.add(2, 2); // game 2: a win
/// assert_eq!(book.tally.pairs, [0; 5]);
/// book.add(1, 0); // game 1: a loss; the pair scores 1
/// assert_eq!((book.tally.games, book.tally.pairs), ([1, 0, 1], [0, 0, 1, 0, 0]));
/// assert_eq!(book.wl_dd, [1, 0]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct PairBook {
    /// The first engine's half-points in each game counted, by number.
    half_points: std::collections::HashMap<u32, u8>,
    /// The games and finished pairs.
    pub tally: Tally,
    /// The pairs scoring 1: a win and a loss, two draws.
    pub wl_dd: [u64; 2],
}

impl PairBook {
    /// Counts game `number` (from 1), in which the first engine scored `half_points` (0, 1
    /// or 2). A number counted already is not counted again.
    pub fn add(&mut self, number: u32, half_points: u8) {
        if number == 0 || self.half_points.contains_key(&number) {
            return;
        }
        let hp = half_points.min(2);
        self.tally.add_game(hp);
        let partner = if number % 2 == 1 {
            number + 1
        } else {
            number - 1
        };
        if let Some(&other) = self.half_points.get(&partner) {
            self.tally.add_pair_points(hp + other);
            match (hp, other) {
                (1, 1) => self.wl_dd[1] += 1,
                (0, 2) | (2, 0) => self.wl_dd[0] += 1,
                _ => {}
            }
        }
        self.half_points.insert(number, hp);
    }

    /// Whether game `number` is counted.
    pub fn has(&self, number: u32) -> bool {
        self.half_points.contains_key(&number)
    }
}
