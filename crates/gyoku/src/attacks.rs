//! Attack tables, built at compile time, and slider attacks.
//!
//! Step pieces read a table. Sliders walk their rays with two bit tricks on the `u128`:
//! on a ray of increasing indices the nearest blocker is the lowest set bit
//! (`b ^ (b - 1)` keeps everything up to it); on a ray of decreasing indices it is the
//! highest set bit (found with `leading_zeros`). Neither needs a lookup table.

use crate::{Bitboard, Color, Role, Square};

const fn bit(file: i32, rank: i32) -> u128 {
    if file >= 0 && file < 9 && rank >= 0 && rank < 9 {
        1u128 << (file * 9 + rank)
    } else {
        0
    }
}

/// Steps as (file delta, rank delta) for Black; White's are mirrored in rank.
const PAWN_STEPS: &[(i32, i32)] = &[(0, -1)];
const KNIGHT_STEPS: &[(i32, i32)] = &[(-1, -2), (1, -2)];
const SILVER_STEPS: &[(i32, i32)] = &[(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
const GOLD_STEPS: &[(i32, i32)] = &[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
const KING_STEPS: &[(i32, i32)] = &[
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

const fn step_table(steps: &[(i32, i32)], color: Color) -> [Bitboard; 81] {
    let mut table = [Bitboard::EMPTY; 81];
    let mut sq = 0;
    while sq < 81 {
        let (f, r) = ((sq / 9) as i32, (sq % 9) as i32);
        let mut bb = 0u128;
        let mut i = 0;
        while i < steps.len() {
            let (df, dr) = steps[i];
            let dr = match color {
                Color::Black => dr,
                Color::White => -dr,
            };
            bb |= bit(f + df, r + dr);
            i += 1;
        }
        table[sq] = Bitboard(bb);
        sq += 1;
    }
    table
}

static PAWN: [[Bitboard; 81]; 2] = [
    step_table(PAWN_STEPS, Color::Black),
    step_table(PAWN_STEPS, Color::White),
];
static KNIGHT: [[Bitboard; 81]; 2] = [
    step_table(KNIGHT_STEPS, Color::Black),
    step_table(KNIGHT_STEPS, Color::White),
];
static SILVER: [[Bitboard; 81]; 2] = [
    step_table(SILVER_STEPS, Color::Black),
    step_table(SILVER_STEPS, Color::White),
];
static GOLD: [[Bitboard; 81]; 2] = [
    step_table(GOLD_STEPS, Color::Black),
    step_table(GOLD_STEPS, Color::White),
];
static KING: [Bitboard; 81] = step_table(KING_STEPS, Color::Black);

/// Ray directions. The first four increase the square index, the last four decrease it.
const DIRS: [(i32, i32); 8] = [
    (0, 1),   // +1: toward rank 9
    (1, 0),   // +9: toward file 9
    (1, -1),  // +8
    (1, 1),   // +10
    (0, -1),  // -1: toward rank 1
    (-1, 0),  // -9
    (-1, 1),  // -8
    (-1, -1), // -10
];
const DOWN: usize = 0;
const LEFT: usize = 1;
const LEFT_UP: usize = 2;
const LEFT_DOWN: usize = 3;
const UP: usize = 4;
const RIGHT: usize = 5;
const RIGHT_DOWN: usize = 6;
const RIGHT_UP: usize = 7;

const fn ray_tables() -> [[Bitboard; 81]; 8] {
    let mut table = [[Bitboard::EMPTY; 81]; 8];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = DIRS[d];
        let mut sq = 0;
        while sq < 81 {
            let (mut f, mut r) = ((sq / 9) as i32, (sq % 9) as i32);
            let mut bb = 0u128;
            loop {
                f += df;
                r += dr;
                let b = bit(f, r);
                if b == 0 {
                    break;
                }
                bb |= b;
            }
            table[d][sq] = Bitboard(bb);
            sq += 1;
        }
        d += 1;
    }
    table
}

static RAYS: [[Bitboard; 81]; 8] = ray_tables();

const fn line_tables(strict_between: bool) -> [[Bitboard; 81]; 81] {
    let rays = ray_tables();
    let mut table = [[Bitboard::EMPTY; 81]; 81];
    let mut a = 0;
    while a < 81 {
        let mut d = 0;
        while d < 8 {
            let opposite = (d + 4) % 8;
            let mut b = rays[d][a].0;
            while b != 0 {
                let s = b.trailing_zeros() as usize;
                b &= b - 1;
                table[a][s] = if strict_between {
                    Bitboard(rays[d][a].0 & rays[opposite][s].0)
                } else {
                    Bitboard(rays[d][a].0 | rays[opposite][a].0 | (1u128 << a))
                };
            }
            d += 1;
        }
        a += 1;
    }
    table
}

static BETWEEN: [[Bitboard; 81]; 81] = line_tables(true);
static LINE: [[Bitboard; 81]; 81] = line_tables(false);

/// For each square, the squares from which a step piece (of either side) reaches the
/// square's neighbours, the square itself (`with_self`) and the squares a knight of either
/// side attacks it from (`with_knights`): those squares and the squares a king or a
/// knight steps to from them.
const fn steppers_around(with_self: bool, with_knights: bool) -> [Bitboard; 81] {
    let mut table = [Bitboard::EMPTY; 81];
    let mut sq = 0;
    while sq < 81 {
        let mut area = KING[sq].0;
        if with_self {
            area |= 1u128 << sq;
        }
        if with_knights {
            area |= KNIGHT[0][sq].0 | KNIGHT[1][sq].0;
        }
        let mut near = area;
        while area != 0 {
            let n = area.trailing_zeros() as usize;
            area &= area - 1;
            near |= KING[n].0 | KNIGHT[0][n].0 | KNIGHT[1][n].0;
        }
        table[sq] = Bitboard(near);
        sq += 1;
    }
    table
}

/// For each square, the squares from which a step piece (of either side) could attack the
/// square or one of its neighbours: where a king's escape squares can be attacked from
/// without sliding.
static STEPPERS_NEAR: [Bitboard; 81] = steppers_around(true, false);

/// For each square, the squares from which a step piece (of either side) could check a
/// king there: those that reach one of its neighbours or a square a knight checks it from.
static STEP_CHECKERS_NEAR: [Bitboard; 81] = steppers_around(false, true);

/// For each square and ray-set (lance of each colour, bishop, rook), the squares from which
/// such a slider could reach one of the square's neighbours on an empty board.
static SLIDERS_NEAR: [[Bitboard; 81]; 4] = {
    let mut table = [[Bitboard::EMPTY; 81]; 4];
    let mut sq = 0;
    while sq < 81 {
        let mut area = KING[sq].0;
        while area != 0 {
            let n = area.trailing_zeros() as usize;
            area &= area - 1;
            table[0][sq].0 |= RAYS[UP][n].0;
            table[1][sq].0 |= RAYS[DOWN][n].0;
            table[2][sq].0 |= RAYS[LEFT_UP][n].0
                | RAYS[LEFT_DOWN][n].0
                | RAYS[RIGHT_DOWN][n].0
                | RAYS[RIGHT_UP][n].0;
            table[3][sq].0 |= RAYS[DOWN][n].0 | RAYS[LEFT][n].0 | RAYS[UP][n].0 | RAYS[RIGHT][n].0;
        }
        sq += 1;
    }
    table
};

/// For each square and direction, the square two away that way (none off the board).
static TWO_AWAY: [[Bitboard; 8]; 81] = {
    let mut table = [[Bitboard::EMPTY; 8]; 81];
    let mut sq = 0;
    while sq < 81 {
        let (f, r) = ((sq / 9) as i32, (sq % 9) as i32);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = DIRS[d];
            table[sq][d] = Bitboard(bit(f + 2 * df, r + 2 * dr));
            d += 1;
        }
        sq += 1;
    }
    table
};

/// The direction of a square next to another, by the difference of their indices plus
/// ten (see [`DIRS`]).
const NEIGHBOUR_DIR: [u8; 21] = {
    let mut table = [0; 21];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = DIRS[d];
        table[(df * 9 + dr + 10) as usize] = d as u8;
        d += 1;
    }
    table
};

/// By the direction of a square next to a king: the directions (a bit each) from which a
/// slider two or more squares away attacks it (its own and the opposite: the square
/// between, or the square behind the king).
const ON_LINE: [u8; 8] = {
    let mut table = [0; 8];
    let mut d = 0;
    while d < 8 {
        table[d] = (1 << d) | (1 << ((d + 4) % 8));
        d += 1;
    }
    table
};

/// By the direction of a square next to a king: the directions along a file or rank from
/// which a dragon two squares away attacks it with a step (for a square on a diagonal,
/// the two directions it is made of).
const DRAGON_STEP: [u8; 8] = {
    let mut table = [0; 8];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = DIRS[d];
        if df != 0 && dr != 0 {
            let mut c = 0;
            while c < 8 {
                let (cf, cr) = DIRS[c];
                if (cf == df && cr == 0) || (cf == 0 && cr == dr) {
                    table[d] |= 1 << c;
                }
                c += 1;
            }
        }
        d += 1;
    }
    table
};

/// The directions along files and ranks, a bit each.
const ORTHOGONAL_DIRS: u8 = (1 << DOWN) | (1 << LEFT) | (1 << UP) | (1 << RIGHT);

/// Where a slider checks a king from two or more squares away, by the lines it checks
/// along: see [`far_checks`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FarChecks {
    /// On the king's file and rank: a rook's or a dragon's squares (a lance's among them).
    pub(crate) orthogonal: Bitboard,
    /// On the king's diagonals: a bishop's or a horse's squares.
    pub(crate) diagonal: Bitboard,
    /// Two squares away on the king's file or rank, where only a dragon's steps attack
    /// the rest of the squares asked for.
    pub(crate) dragon: Bitboard,
}

/// The squares from which a slider checks a king on `king` from two or more squares
/// away, with `occupied` as the blockers (the first piece on a line may be taken), where
/// such a check attacks every square of `free` (squares next to the king), or every
/// such square at all when `all`: the only checks from afar, by a piece that opens no
/// line as it moves, that can leave the king none of `free` to step to.
///
/// A slider two or more squares from the king attacks, of the squares next to it, only
/// those on its line (the one between and the one behind the king) and, a dragon two
/// squares away, the two beside the one between.
#[inline]
pub(crate) fn far_checks(king: Square, free: Bitboard, occupied: Bitboard, all: bool) -> FarChecks {
    // The directions (a bit each) from which such a check attacks every square of
    // `free`: along its line, or, only for a dragon two squares away, with its steps.
    let (mut line, mut dragon) = (u8::MAX, u8::MAX);
    if !all {
        for sq in free {
            let dir = NEIGHBOUR_DIR[sq.index() + 10 - king.index()] as usize;
            line &= ON_LINE[dir];
            dragon &= ON_LINE[dir] | DRAGON_STEP[dir];
        }
    }
    dragon &= ORTHOGONAL_DIRS & !line;
    let near = KING[king.index()];
    let mut checks = FarChecks::default();
    let mut dirs = line | dragon;
    while dirs != 0 {
        let dir = dirs.trailing_zeros() as usize;
        dirs &= dirs - 1;
        let two_away = TWO_AWAY[king.index()][dir];
        if two_away.is_empty() {
            continue;
        }
        let seen = if dir < UP {
            ray_up_index(dir, king, occupied)
        } else {
            ray_down_index(dir, king, occupied)
        } & !near;
        if dragon & (1 << dir) != 0 {
            checks.dragon |= seen & two_away;
        } else if ORTHOGONAL_DIRS & (1 << dir) != 0 {
            checks.orthogonal |= seen;
        } else {
            checks.diagonal |= seen;
        }
    }
    checks
}

/// Squares from which a step piece could attack `sq` or a square next to it.
#[inline]
pub(crate) fn steppers_near(sq: Square) -> Bitboard {
    STEPPERS_NEAR[sq.index()]
}

/// Squares from which a step piece (a pawn, knight, silver, gold or promoted piece of
/// either side, not a slider) could give check to a king on `sq`, moving and promoting as
/// it may.
#[inline]
pub(crate) fn step_checkers_near(sq: Square) -> Bitboard {
    STEP_CHECKERS_NEAR[sq.index()]
}

/// Squares from which a lance of `color`'s opponent could reach a square next to `sq`
/// (they lie on `color`'s lance rays from those squares).
#[inline]
pub(crate) fn enemy_lances_near(color: Color, sq: Square) -> Bitboard {
    SLIDERS_NEAR[color.index()][sq.index()]
}

/// Squares from which a bishop could reach a square next to `sq`.
#[inline]
pub(crate) fn bishops_near(sq: Square) -> Bitboard {
    SLIDERS_NEAR[2][sq.index()]
}

/// Squares from which a rook could reach a square next to `sq`.
#[inline]
pub(crate) fn rooks_near(sq: Square) -> Bitboard {
    SLIDERS_NEAR[3][sq.index()]
}

/// The squares strictly between `a` and `b` when they share a file, rank or diagonal;
/// empty otherwise.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    BETWEEN[a.index()][b.index()]
}

/// The whole line (file, rank or diagonal, edge to edge) through `a` and `b`, both
/// included; empty when they are not aligned or equal.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    LINE[a.index()][b.index()]
}

#[inline]
fn ray_up_index(dir: usize, sq: Square, occupied: Bitboard) -> Bitboard {
    let ray = RAYS[dir][sq.index()].0;
    let blockers = occupied.0 & ray;
    Bitboard(ray & (blockers ^ blockers.wrapping_sub(1)))
}

#[inline]
fn ray_down_index(dir: usize, sq: Square, occupied: Bitboard) -> Bitboard {
    let ray = RAYS[dir][sq.index()].0;
    let blockers = (occupied.0 & ray) | 1;
    Bitboard(ray & (u128::MAX << (127 - blockers.leading_zeros())))
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    PAWN[color.index()][sq.index()]
}

/// Squares a knight of `color` on `sq` attacks.
#[inline]
pub fn knight_attacks(color: Color, sq: Square) -> Bitboard {
    KNIGHT[color.index()][sq.index()]
}

/// Squares a silver of `color` on `sq` attacks.
#[inline]
pub fn silver_attacks(color: Color, sq: Square) -> Bitboard {
    SILVER[color.index()][sq.index()]
}

/// Squares a gold (or a piece that moves as gold) of `color` on `sq` attacks.
#[inline]
pub fn gold_attacks(color: Color, sq: Square) -> Bitboard {
    GOLD[color.index()][sq.index()]
}

/// Squares a king on `sq` attacks.
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING[sq.index()]
}

/// Squares a lance of `color` on `sq` attacks, given the occupied squares.
#[inline]
pub fn lance_attacks(color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    match color {
        Color::Black => ray_down_index(UP, sq, occupied),
        Color::White => ray_up_index(DOWN, sq, occupied),
    }
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    ray_up_index(LEFT_UP, sq, occupied)
        | ray_up_index(LEFT_DOWN, sq, occupied)
        | ray_down_index(RIGHT_DOWN, sq, occupied)
        | ray_down_index(RIGHT_UP, sq, occupied)
}

/// Squares a rook on `sq` attacks, given the occupied squares.
#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    ray_up_index(DOWN, sq, occupied)
        | ray_up_index(LEFT, sq, occupied)
        | ray_down_index(UP, sq, occupied)
        | ray_down_index(RIGHT, sq, occupied)
}

/// Squares a lance of `color` on `sq` would attack on an empty board.
#[inline]
pub fn lance_rays(color: Color, sq: Square) -> Bitboard {
    match color {
        Color::Black => RAYS[UP][sq.index()],
        Color::White => RAYS[DOWN][sq.index()],
    }
}

const fn full_rays(dirs: [usize; 4]) -> [Bitboard; 81] {
    let rays = ray_tables();
    let mut table = [Bitboard::EMPTY; 81];
    let mut sq = 0;
    while sq < 81 {
        table[sq] = Bitboard(
            rays[dirs[0]][sq].0 | rays[dirs[1]][sq].0 | rays[dirs[2]][sq].0 | rays[dirs[3]][sq].0,
        );
        sq += 1;
    }
    table
}

static BISHOP_RAYS: [Bitboard; 81] = full_rays([LEFT_UP, LEFT_DOWN, RIGHT_DOWN, RIGHT_UP]);
static ROOK_RAYS: [Bitboard; 81] = full_rays([DOWN, LEFT, UP, RIGHT]);

/// Squares a bishop on `sq` would attack on an empty board.
#[inline]
pub fn bishop_rays(sq: Square) -> Bitboard {
    BISHOP_RAYS[sq.index()]
}

/// Squares a rook on `sq` would attack on an empty board.
#[inline]
pub fn rook_rays(sq: Square) -> Bitboard {
    ROOK_RAYS[sq.index()]
}

/// Squares a piece of `color` and `role` on `sq` attacks, given the occupied squares.
///
/// ```
/// use gyoku::{attacks, Bitboard, Color, Role, Square};
/// let sq: Square = "5e".parse().unwrap();
/// assert_eq!(attacks::attacks(Color::Black, Role::Dragon, sq, Bitboard::EMPTY).count(), 20);
/// assert_eq!(attacks::attacks(Color::White, Role::Knight, sq, Bitboard::EMPTY).count(), 2);
/// ```
#[inline]
pub fn attacks(color: Color, role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Lance => lance_attacks(color, sq, occupied),
        Role::Knight => knight_attacks(color, sq),
        Role::Silver => silver_attacks(color, sq),
        Role::Gold | Role::ProPawn | Role::ProLance | Role::ProKnight | Role::ProSilver => {
            gold_attacks(color, sq)
        }
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::King => king_attacks(sq),
        Role::Horse => bishop_attacks(sq, occupied) | king_attacks(sq),
        Role::Dragon => rook_attacks(sq, occupied) | king_attacks(sq),
    }
}

/// Whether a piece of `color` and `role` on `from` attacks `to`, given the occupied
/// squares: [`attacks`] asked about one square, a slider's answer read from its empty-board
/// rays and the squares between rather than from every square it reaches (the test a
/// move's legality starts with).
///
/// ```
/// use gyoku::{Color, Role, attacks};
/// let occupied = gyoku::Bitboard::EMPTY.with("5c".parse().unwrap());
/// let from = "5e".parse().unwrap();
/// assert!(attacks::reaches(Color::Black, Role::Rook, from, "5c".parse().unwrap(), occupied));
/// assert!(!attacks::reaches(Color::Black, Role::Rook, from, "5b".parse().unwrap(), occupied));
/// assert!(attacks::reaches(Color::Black, Role::Dragon, from, "4d".parse().unwrap(), occupied));
/// ```
#[inline]
pub fn reaches(color: Color, role: Role, from: Square, to: Square, occupied: Bitboard) -> bool {
    let clear = || (between(from, to) & occupied).is_empty();
    match role {
        Role::Lance => lance_rays(color, from).contains(to) && clear(),
        Role::Bishop => bishop_rays(from).contains(to) && clear(),
        Role::Rook => rook_rays(from).contains(to) && clear(),
        Role::Horse => {
            king_attacks(from).contains(to) || (bishop_rays(from).contains(to) && clear())
        }
        Role::Dragon => {
            king_attacks(from).contains(to) || (rook_rays(from).contains(to) && clear())
        }
        _ => attacks(color, role, from, occupied).contains(to),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `reaches` agrees with `attacks` for every piece, square pair and side, on boards
    /// of random occupancy.
    #[test]
    fn reaches_agrees_with_attacks() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..40 {
            let mut occupied = Bitboard::EMPTY;
            for sq in 0..81 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if seed.is_multiple_of(3) {
                    occupied = occupied.with(Square::from_index(sq).unwrap());
                }
            }
            for color in Color::ALL {
                for role in Role::ALL {
                    for from in 0..81 {
                        let from = Square::from_index(from).unwrap();
                        let all = attacks(color, role, from, occupied);
                        for to in 0..81 {
                            let to = Square::from_index(to).unwrap();
                            assert_eq!(
                                reaches(color, role, from, to, occupied),
                                all.contains(to),
                                "{color:?} {role:?} {from} {to}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Slider attacks walked square by square, to check the bit tricks against.
    fn walk(sq: Square, dirs: &[(i32, i32)], occupied: Bitboard) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for &(df, dr) in dirs {
            let (mut f, mut r) = (sq.file() as i32, sq.rank() as i32);
            loop {
                f += df;
                r += dr;
                let Some(s) = Square::new(f as u8, r as u8).filter(|_| f >= 1 && r >= 1) else {
                    break;
                };
                bb = bb.with(s);
                if occupied.contains(s) {
                    break;
                }
            }
        }
        bb
    }

    #[test]
    fn sliders_match_a_plain_walk() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = seed;
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let occ = Bitboard(((a as u128) << 64 | seed as u128) & (a as u128 | 0xffff))
                & Bitboard::FULL;
            for sq in Square::all() {
                let rook = walk(sq, &[(0, 1), (0, -1), (1, 0), (-1, 0)], occ);
                assert_eq!(rook_attacks(sq, occ), rook, "rook {sq}");
                let bishop = walk(sq, &[(1, 1), (1, -1), (-1, 1), (-1, -1)], occ);
                assert_eq!(bishop_attacks(sq, occ), bishop, "bishop {sq}");
                assert_eq!(
                    lance_attacks(Color::Black, sq, occ),
                    walk(sq, &[(0, -1)], occ)
                );
                assert_eq!(
                    lance_attacks(Color::White, sq, occ),
                    walk(sq, &[(0, 1)], occ)
                );
            }
        }
    }

    #[test]
    fn between_and_line() {
        let a: Square = "9a".parse().unwrap();
        let b: Square = "1i".parse().unwrap();
        assert_eq!(between(a, b).count(), 7);
        assert_eq!(line(a, b).count(), 9);
        let c: Square = "8c".parse().unwrap();
        assert!(between(a, c).is_empty());
        assert!(line(a, c).is_empty());
        assert_eq!(between(a, a), Bitboard::EMPTY);
        let d: Square = "5a".parse().unwrap();
        assert_eq!(line(d, a), Bitboard::rank(1));
    }

    #[test]
    fn step_tables() {
        let sq: Square = "5e".parse().unwrap();
        assert_eq!(gold_attacks(Color::Black, sq).count(), 6);
        assert_eq!(silver_attacks(Color::White, sq).count(), 5);
        assert_eq!(
            pawn_attacks(Color::Black, sq),
            Bitboard::from_square("5d".parse().unwrap())
        );
        assert!(knight_attacks(Color::Black, "5b".parse().unwrap()).is_empty());
        assert_eq!(king_attacks("1a".parse().unwrap()).count(), 3);
    }
}
