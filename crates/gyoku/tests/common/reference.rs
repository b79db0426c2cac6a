//! A slow reference move generator, written plainly from the rules (spec §2) with no
//! bitboards and nothing shared with the library but its public types: walk each piece's
//! movement on a 9×9 array, play each candidate on a copy, and keep it if the mover's king
//! is not attacked afterwards; a pawn drop that checks is refused if the opponent then has
//! no legal reply.

use gyoku::{Color, Move, Piece, Position, Role, Square};

#[derive(Clone)]
pub struct Plain {
    /// `board[file][rank]`, 1-based (index 0 unused).
    board: [[Option<Piece>; 10]; 10],
    hands: [[u8; 7]; 2],
    turn: Color,
}

const ORTHOGONAL: [(i32, i32); 4] = [(0, -1), (0, 1), (-1, 0), (1, 0)];
const DIAGONAL: [(i32, i32); 4] = [(-1, -1), (1, -1), (-1, 1), (1, 1)];
const GOLD: [(i32, i32); 6] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
const SILVER: [(i32, i32); 5] = [(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
const KING: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// (file, rank) offsets, for Black; White mirrors the rank.
type Offsets = &'static [(i32, i32)];

/// (steps, slides) for Black; White mirrors the rank.
fn movement(role: Role) -> (Offsets, Offsets) {
    match role {
        Role::Pawn => (&[(0, -1)], &[]),
        Role::Lance => (&[], &[(0, -1)]),
        Role::Knight => (&[(-1, -2), (1, -2)], &[]),
        Role::Silver => (&SILVER, &[]),
        Role::Gold | Role::ProPawn | Role::ProLance | Role::ProKnight | Role::ProSilver => {
            (&GOLD, &[])
        }
        Role::King => (&KING, &[]),
        Role::Bishop => (&[], &DIAGONAL),
        Role::Rook => (&[], &ORTHOGONAL),
        Role::Horse => (&ORTHOGONAL, &DIAGONAL),
        Role::Dragon => (&DIAGONAL, &ORTHOGONAL),
    }
}

fn on_board(f: i32, r: i32) -> bool {
    (1..=9).contains(&f) && (1..=9).contains(&r)
}

fn last_ranks(color: Color, rank: i32, n: i32) -> bool {
    match color {
        Color::Black => rank <= n,
        Color::White => rank >= 10 - n,
    }
}

fn in_zone(color: Color, rank: i32) -> bool {
    last_ranks(color, rank, 3)
}

fn dead(color: Color, role: Role, rank: i32) -> bool {
    match role {
        Role::Pawn | Role::Lance => last_ranks(color, rank, 1),
        Role::Knight => last_ranks(color, rank, 2),
        _ => false,
    }
}

fn sq(f: i32, r: i32) -> Square {
    Square::new(f as u8, r as u8).unwrap()
}

impl Plain {
    pub fn from_position(pos: &Position) -> Plain {
        let mut board = [[None; 10]; 10];
        for s in Square::all() {
            board[s.file() as usize][s.rank() as usize] = pos.board().piece_at(s);
        }
        let mut hands = [[0; 7]; 2];
        for color in Color::ALL {
            for (i, role) in Role::HAND.into_iter().enumerate() {
                hands[color.index()][i] = pos.hand(color).count(role);
            }
        }
        Plain {
            board,
            hands,
            turn: pos.turn(),
        }
    }

    fn at(&self, f: i32, r: i32) -> Option<Piece> {
        self.board[f as usize][r as usize]
    }

    /// Squares the piece on (f, r) attacks.
    fn targets(&self, f: i32, r: i32) -> Vec<(i32, i32)> {
        let piece = self.at(f, r).unwrap();
        let sign = if piece.color == Color::Black { 1 } else { -1 };
        let (steps, slides) = movement(piece.role);
        let mut out = Vec::new();
        for &(df, dr) in steps {
            let (nf, nr) = (f + df, r + dr * sign);
            if on_board(nf, nr) {
                out.push((nf, nr));
            }
        }
        for &(df, dr) in slides {
            let (mut nf, mut nr) = (f + df, r + dr * sign);
            while on_board(nf, nr) {
                out.push((nf, nr));
                if self.at(nf, nr).is_some() {
                    break;
                }
                nf += df;
                nr += dr * sign;
            }
        }
        out
    }

    fn attacked_by(&self, target: (i32, i32), by: Color) -> bool {
        for f in 1..=9 {
            for r in 1..=9 {
                if self.at(f, r).is_some_and(|p| p.color == by)
                    && self.targets(f, r).contains(&target)
                {
                    return true;
                }
            }
        }
        false
    }

    fn king_attacked(&self, color: Color) -> bool {
        for f in 1..=9 {
            for r in 1..=9 {
                if self.at(f, r) == Some(Piece::new(color, Role::King)) {
                    return self.attacked_by((f, r), !color);
                }
            }
        }
        false
    }

    pub fn is_check(&self) -> bool {
        self.king_attacked(self.turn)
    }

    fn play(&self, m: Move) -> Plain {
        let mut next = self.clone();
        let us = self.turn;
        match m {
            Move::Normal { from, to, promote } => {
                let piece = next.board[from.file() as usize][from.rank() as usize]
                    .take()
                    .unwrap();
                if let Some(captured) = next.board[to.file() as usize][to.rank() as usize] {
                    let i = Role::HAND
                        .iter()
                        .position(|&r| r == captured.role.unpromoted())
                        .unwrap();
                    next.hands[us.index()][i] += 1;
                }
                let role = if promote {
                    piece.role.promoted().unwrap()
                } else {
                    piece.role
                };
                next.board[to.file() as usize][to.rank() as usize] = Some(Piece::new(us, role));
            }
            Move::Drop { role, to } => {
                let i = Role::HAND.iter().position(|&r| r == role).unwrap();
                next.hands[us.index()][i] -= 1;
                next.board[to.file() as usize][to.rank() as usize] = Some(Piece::new(us, role));
            }
        }
        next.turn = !us;
        next
    }

    /// Every move that follows the pieces' movement and the promotion and drop rules,
    /// whether or not it leaves the king in check or is uchifuzume.
    pub fn pseudo_moves(&self) -> Vec<Move> {
        let us = self.turn;
        let mut out = Vec::new();
        for f in 1..=9 {
            for r in 1..=9 {
                let Some(piece) = self.at(f, r).filter(|p| p.color == us) else {
                    continue;
                };
                for (tf, tr) in self.targets(f, r) {
                    if self.at(tf, tr).is_some_and(|p| p.color == us) {
                        continue;
                    }
                    let (from, to) = (sq(f, r), sq(tf, tr));
                    if piece.role.can_promote() && (in_zone(us, r) || in_zone(us, tr)) {
                        out.push(Move::Normal {
                            from,
                            to,
                            promote: true,
                        });
                    }
                    if !dead(us, piece.role, tr) {
                        out.push(Move::Normal {
                            from,
                            to,
                            promote: false,
                        });
                    }
                }
            }
        }
        for (i, role) in Role::HAND.into_iter().enumerate() {
            if self.hands[us.index()][i] == 0 {
                continue;
            }
            for f in 1..=9 {
                let nifu = role == Role::Pawn
                    && (1..=9).any(|r| self.at(f, r) == Some(Piece::new(us, Role::Pawn)));
                if nifu {
                    continue;
                }
                for r in 1..=9 {
                    if self.at(f, r).is_none() && !dead(us, role, r) {
                        out.push(Move::Drop { role, to: sq(f, r) });
                    }
                }
            }
        }
        out
    }

    /// Whether the pseudo-move `m` leaves the mover's king in check.
    pub fn leaves_king_in_check(&self, m: Move) -> bool {
        self.play(m).king_attacked(self.turn)
    }

    /// Whether the pseudo-move `m` is a pawn drop that mates at once.
    pub fn is_uchifuzume(&self, m: Move) -> bool {
        if !matches!(
            m,
            Move::Drop {
                role: Role::Pawn,
                ..
            }
        ) {
            return false;
        }
        let next = self.play(m);
        next.is_check() && next.legal_moves_without_uchifuzume().is_empty()
    }

    fn legal_moves_without_uchifuzume(&self) -> Vec<Move> {
        self.pseudo_moves()
            .into_iter()
            .filter(|&m| !self.leaves_king_in_check(m))
            .collect()
    }

    /// The legal moves.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.pseudo_moves()
            .into_iter()
            .filter(|&m| !self.leaves_king_in_check(m) && !self.is_uchifuzume(m))
            .collect()
    }
}
