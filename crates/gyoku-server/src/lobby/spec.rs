//! What a game is made from: its start position (and, as the lobby is cut by job, the rest
//! of its spec).

use gyoku::{Color, Handicap, Position};

/// The start position of a game: the even start, or a handicap as shogi-server sets it
/// (the giver is Black and moves first, its pieces removed).
pub fn start_position(handicap: Option<Handicap>) -> Position {
    let Some(h) = handicap else {
        return Position::startpos();
    };
    // Gyoku's handicaps have White give; turn the board round and swap the colours.
    let given = Position::from_sfen(h.sfen()).expect("handicap SFENs are valid");
    let mut setup = gyoku::Setup::empty();
    for (sq, piece) in given.board().iter() {
        let flipped = gyoku::Square::new(10 - sq.file(), 10 - sq.rank()).expect("on the board");
        setup.put(
            flipped,
            gyoku::Piece {
                color: !piece.color,
                role: piece.role,
            },
        );
    }
    setup.turn = Color::Black;
    Position::from_setup(setup).expect("a turned handicap is a legal position")
}
