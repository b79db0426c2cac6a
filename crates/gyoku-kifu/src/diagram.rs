//! A position drawn: as the text diagram Japanese records print (KIF's board, kanji, or
//! the same in SFEN letters) and as SVG (for notebooks: the last move and a king in check
//! marked).

use gyoku::{Color, Move, Position, Square};

/// The KIF board diagram (`後手の持駒：…`, the board with `v` before White's pieces,
/// `先手の持駒：…`, `後手番` when White is to move).
///
/// ```
/// let d = gyoku_kifu::diagram::kanji(&gyoku::Position::startpos());
/// assert!(d.contains("|v香v桂v銀v金v玉v金v銀v桂v香|一"), "{d}");
/// assert!(d.starts_with("後手の持駒：なし"));
/// ```
pub fn kanji(pos: &Position) -> String {
    let mut out = String::new();
    crate::kif::write_bod(&mut out, pos);
    out
}

/// The same board in SFEN's letters (upper case Black, lower case White, `+` promoted,
/// `.` empty), files 9 to 1, with the hands and the side to move.
///
/// ```
/// let d = gyoku_kifu::diagram::letters(&gyoku::Position::startpos());
/// assert!(d.contains(" l  n  s  g  k  g  s  n  l  a"), "{d}");
/// assert!(d.ends_with("Black to move\n"));
/// ```
pub fn letters(pos: &Position) -> String {
    let hand = |c: Color| {
        let h = pos.hand(c);
        if h.is_empty() {
            return "-".to_string();
        }
        h.iter()
            .map(|(r, n)| {
                let p = gyoku::Piece::new(c, r).sfen();
                if n > 1 { format!("{p}{n}") } else { p }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = format!(
        "White's hand: {}\n  9  8  7  6  5  4  3  2  1\n",
        hand(Color::White)
    );
    for rank in 1..=9u8 {
        for file in (1..=9u8).rev() {
            let sq = Square::new(file, rank).expect("on the board");
            match pos.board().piece_at(sq) {
                None => out.push_str("  ."),
                Some(p) => out.push_str(&format!("{:>3}", p.sfen())),
            }
        }
        out.push_str(&format!("  {}\n", char::from(b'a' + rank - 1)));
    }
    out.push_str(&format!("Black's hand: {}\n", hand(Color::Black)));
    out.push_str(if pos.turn() == Color::Black {
        "Black to move\n"
    } else {
        "White to move\n"
    });
    out
}

/// The square's top-left corner in the SVG, files 9 to 1 from the left.
const CELL: u32 = 40;
const LEFT: u32 = 20;
const TOP: u32 = 40;

fn corner(sq: Square) -> (u32, u32) {
    let col = 9 - u32::from(sq.file());
    let row = u32::from(sq.rank()) - 1;
    (LEFT + col * CELL, TOP + row * CELL)
}

/// The position as SVG: 81 squares (`<rect class="square" data-square="7g">`), each piece
/// a `<text class="piece black|white">` in kanji (White's turned round), the hands above
/// and below, the last move's squares and a king in check marked. Its text is drawn by
/// the viewer's fonts.
///
/// ```
/// let pos = gyoku::Position::startpos();
/// let svg = gyoku_kifu::diagram::svg(&pos, None);
/// assert_eq!(svg.matches("class=\"square").count(), 81);
/// assert_eq!(svg.matches("class=\"piece ").count(), 40);
/// ```
pub fn svg(pos: &Position, last: Option<Move>) -> String {
    let width = LEFT * 2 + CELL * 9;
    let height = TOP * 2 + CELL * 9;
    let marked: Vec<Square> = last
        .map(|m| m.from().into_iter().chain([m.to()]).collect())
        .unwrap_or_default();
    let checked = pos.is_check().then(|| pos.king(pos.turn())).flatten();
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" \
         width=\"{width}\" height=\"{height}\" font-family=\"serif\">\n"
    );
    for rank in 1..=9u8 {
        for file in (1..=9u8).rev() {
            let sq = Square::new(file, rank).expect("on the board");
            let (x, y) = corner(sq);
            let (class, fill) = if Some(sq) == checked {
                ("square check", "#f4a0a0")
            } else if marked.contains(&sq) {
                ("square last", "#f2dc8a")
            } else {
                ("square", "#f5deb3")
            };
            out.push_str(&format!(
                "<rect class=\"{class}\" data-square=\"{sq}\" x=\"{x}\" y=\"{y}\" width=\"{CELL}\" \
                 height=\"{CELL}\" fill=\"{fill}\" stroke=\"#333\" stroke-width=\"1\"/>\n"
            ));
            if let Some(p) = pos.board().piece_at(sq) {
                let (cx, cy) = (x + CELL / 2, y + CELL / 2);
                let (side, turn) = match p.color {
                    Color::Black => ("black", String::new()),
                    Color::White => ("white", format!(" transform=\"rotate(180 {cx} {cy})\"")),
                };
                let colour = if p.role.is_promoted() {
                    "#b00000"
                } else {
                    "#000"
                };
                out.push_str(&format!(
                    "<text class=\"piece {side}\" data-square=\"{sq}\" x=\"{cx}\" y=\"{}\" \
                     font-size=\"26\" text-anchor=\"middle\" fill=\"{colour}\"{turn}>{}</text>\n",
                    cy + 9,
                    crate::kif::board_kanji(p.role)
                ));
            }
        }
    }
    for (color, y) in [
        (Color::White, TOP - 12),
        (Color::Black, TOP + CELL * 9 + 26),
    ] {
        let h = pos.hand(color);
        let items: Vec<String> = h
            .iter()
            .map(|(r, n)| {
                if n > 1 {
                    format!("{}{n}", r.kanji())
                } else {
                    r.kanji().to_string()
                }
            })
            .collect();
        let mark = if color == Color::Black { "☗" } else { "☖" };
        let to_move = if pos.turn() == color { " ←" } else { "" };
        out.push_str(&format!(
            "<text class=\"hand {}\" x=\"{LEFT}\" y=\"{y}\" font-size=\"18\">{mark} {}{to_move}</text>\n",
            if color == Color::Black { "black" } else { "white" },
            if items.is_empty() { "-".to_string() } else { items.join(" ") }
        ));
    }
    out.push_str("</svg>\n");
    out
}
