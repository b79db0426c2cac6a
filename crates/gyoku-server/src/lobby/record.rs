//! A finished game's CSA record in shogi-server's layout (`YYYY/MM/DD/<Game_ID>.csa`), so
//! that Floodgate's tools read Gyoku's records as they read shogi-server's.
//!
//! The layout, line by line: `V2`, `N+`/`N-`, `'Max_Moves:`, `'Least_Time_Per_Move:`,
//! `'Increment:` (Fischer games), `$EVENT:<Game_ID>`, `$START_TIME:`, the start position
//! as `P1`–`P9` (never `PI`), `'rating:` when both players logged in with a password, then
//! each move and its `T<seconds>` line (and its `'*` comment), the end line, the final
//! position as `'P1`… comments, `'summary:<type>:<black> <result>:<white> <result>` and
//! `'$END_TIME:`.

use gyoku::{Color, Position};

/// `+` for Black, `-` for White.
pub const fn sign(color: Color) -> char {
    match color {
        Color::Black => '+',
        Color::White => '-',
    }
}

/// The parts of a record known when the game starts.
#[derive(Clone, Debug)]
pub struct RecordHead<'a> {
    /// The Game_ID.
    pub game_id: &'a str,
    /// Black's and White's names.
    pub names: [&'a str; 2],
    /// Black's and White's rating ids (`name+md5(password)`), where they have one.
    pub rating_ids: [Option<&'a str>; 2],
    /// The move limit (0: none).
    pub max_moves: u32,
    /// The least time per move, seconds.
    pub least_time_per_move: u32,
    /// The Fischer increment, seconds.
    pub increment: u32,
    /// The rules, written as `'Rules:` unless they are the CSA preset.
    pub rules: &'a str,
    /// `YYYY/MM/DD HH:MM:SS`.
    pub start_time: &'a str,
    /// The position the game started from (before any buoy moves).
    pub start: &'a Position,
    /// Moves the game started with (a buoy or fork), with their time lines.
    pub initial_moves: &'a [(String, u32)],
}

/// The record so far: written once at the end, atomically, after the game's end is
/// committed to the database.
pub fn head(h: &RecordHead<'_>) -> String {
    let mut out = String::from("V2\n");
    out.push_str(&format!("N+{}\nN-{}\n", h.names[0], h.names[1]));
    out.push_str(&format!("'Max_Moves:{}\n", h.max_moves));
    out.push_str(&format!("'Least_Time_Per_Move:{}\n", h.least_time_per_move));
    if h.increment > 0 {
        out.push_str(&format!("'Increment:{}\n", h.increment));
    }
    if h.rules != "csa" {
        out.push_str(&format!("'Rules:{}\n", h.rules));
    }
    out.push_str(&format!("$EVENT:{}\n", h.game_id));
    out.push_str(&format!("$START_TIME:{}\n", h.start_time));
    out.push_str(&gyoku_kifu::csa::board_text(h.start));
    if let [Some(b), Some(w)] = h.rating_ids {
        out.push_str(&format!("'rating:{b}:{w}\n"));
    }
    if !h.initial_moves.is_empty() {
        out.push_str(&format!(
            "'buoy game starting with {} moves\n",
            h.initial_moves.len()
        ));
        for (m, t) in h.initial_moves {
            out.push_str(&format!("{m}\nT{t}\n"));
        }
    }
    out
}

/// One played move's lines: the move, `T<seconds>`, and its comment as `'*…` (shogi-server
/// keeps Floodgate's `'* <eval> <pv>` comments this way).
pub fn move_lines(out: &mut String, csa: &str, seconds: u64, comment: Option<&str>) {
    out.push_str(&format!("{csa}\nT{seconds}\n"));
    if let Some(c) = comment {
        let c = c.replace(['\r', '\n'], " ");
        match c.strip_prefix('*') {
            Some(_) => out.push_str(&format!("'{c}\n")),
            None => out.push_str(&format!("'*{c}\n")),
        }
    }
}

/// The closing lines: the end line (if the ending has one), the final board as comments,
/// the summary and the end time.
pub fn tail(
    out: &mut String,
    end_line: Option<&str>,
    final_position: &Position,
    summary: &str,
    end_time: &str,
) {
    if let Some(l) = end_line {
        out.push_str(l);
        out.push('\n');
    }
    for line in gyoku_kifu::csa::board_text(final_position).lines() {
        out.push('\'');
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("'summary:{summary}\n"));
    out.push_str(&format!("'$END_TIME:{end_time}\n"));
}

/// The record's text as bytes: comments in EUC-JP as shogi-server writes them (everything
/// else is ASCII).
pub fn encode(text: &str) -> Vec<u8> {
    let (bytes, _, _) = encoding_rs::EUC_JP.encode(text);
    bytes.into_owned()
}

#[cfg(test)]
mod tests {

    #[test]
    fn handicap_board_has_black_without_pieces() {
        let pos = crate::lobby::spec::start_position(Some(gyoku::Handicap::TwoPiece));
        let text = gyoku_kifu::csa::board_text(&pos);
        assert!(text.contains("P8 *  *  *  *  *  *  *  *  * \n"), "{text}");
        assert!(text.ends_with("+\n"));
    }
}
