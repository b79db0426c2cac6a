//! Golden files written for this project (`tests/data/records/`, see its README): each
//! checks something named.

use std::fs;
use std::path::PathBuf;

use gyoku::{Color, Handicap, IllegalMoveKind, Move, Preset};
use gyoku_kifu::encoding::{Encoding, decode};
use gyoku_kifu::judge::{DecidedBy, judge};
use gyoku_kifu::{Format, Record, Terminal, read_bytes, read_str, write};

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/records")
        .join(name)
}

fn read(name: &str) -> Vec<Record> {
    let p = path(name);
    read_bytes(&fs::read(&p).unwrap(), Format::from_path(&p))
        .unwrap_or_else(|e| panic!("{name}:{e}"))
}

fn usi(r: &Record) -> Vec<String> {
    r.moves.iter().map(|m| m.mv.to_string()).collect()
}

#[test]
fn csa_two_games_header_times_comments_handicap() {
    let games = read("csa/two-games.csa");
    assert_eq!(games.len(), 2);
    let g = &games[0];
    assert_eq!(g.header("先手"), Some("Sente Player"));
    assert_eq!(g.header("棋戦"), Some("Gyoku golden test"));
    assert_eq!(g.header("開始日時"), Some("2026/11/22 10:00:00"));
    assert_eq!(usi(g), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "4c4d"]);
    let times: Vec<_> = g.moves.iter().map(|m| m.time_ms).collect();
    assert_eq!(
        times,
        [Some(3000), Some(2000), Some(10_000), Some(1000), None, None]
    );
    assert_eq!(g.moves[1].comments, ["** 30 +2726FU"]);
    assert_eq!(g.moves[4].comments, ["a bishop drop"]);
    assert_eq!(
        (g.end.clone(), g.end_time_ms),
        (Some(Terminal::Resign), Some(5000))
    );
    assert_eq!(g.start_comments, ["first game: resignation"]);
    let h = &games[1];
    assert_eq!(h.handicap, Some(Handicap::TwoPiece));
    assert_eq!(h.start.turn(), Color::White);
    assert_eq!(h.end, Some(Terminal::Declaration));
}

#[test]
fn csa_v3_utf8_fractional_times_board_and_max_moves() {
    let g = &read("csa/v3-utf8.csa")[0];
    assert_eq!(g.header("先手"), Some("先手さん"));
    assert_eq!(g.header("最大手数"), Some("4"));
    assert_eq!(g.header("$TIME"), Some("600+10+0"));
    let times: Vec<_> = g.moves.iter().map(|m| m.time_ms).collect();
    assert_eq!(times, [Some(1500), Some(250), Some(12_000), Some(3000)]);
    assert_eq!(g.moves[3].comments, ["日本語のコメント"]);
    assert_eq!(g.end, Some(Terminal::MaxMoves));
    assert!(g.start.same_position(&gyoku::Position::startpos()));
    // Written back, the fractional time survives.
    let text = write(g, Format::Csa);
    assert!(
        text.contains("T1.500\n") && text.contains("T0.250\n") && text.contains("%MAX_MOVES\n"),
        "{text}"
    );
}

#[test]
fn encodings_are_detected_from_the_bytes() {
    let euc = fs::read(path("csa/eucjp.csa")).unwrap();
    assert_eq!(decode(&euc).1, Encoding::EucJp);
    assert_eq!(
        read("csa/eucjp.csa")[0].start_comments,
        ["コメント：先手番です"]
    );
    let sjis = fs::read(path("kif/sjis.kif")).unwrap();
    assert_eq!(decode(&sjis).1, Encoding::ShiftJis);
    assert_eq!(
        decode(&fs::read(path("kif/bod.kifu")).unwrap()).1,
        Encoding::Utf8
    );
    // The extension is not trusted: Shift_JIS bytes in a .kifu-named buffer still read.
    let records = read_bytes(&sjis, Some(Format::Kif)).unwrap();
    assert_eq!(records[0].header("棋戦"), Some("ゴールデンテスト"));
}

#[test]
fn kif_shift_jis_times_same_square_drop_promotion_variation() {
    let g = &read("kif/sjis.kif")[0];
    assert_eq!(g.header("先手"), Some("先手さん"));
    assert_eq!(usi(g), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]);
    let times: Vec<_> = g.moves.iter().map(|m| m.time_ms).collect();
    assert_eq!(
        times,
        [
            Some(3000),
            Some(2000),
            Some(10_000),
            Some(1000),
            Some(65_000)
        ]
    );
    assert_eq!(g.start_comments, ["対局前のコメント"]);
    assert_eq!(g.moves[1].comments, ["後手の応手"]);
    assert_eq!(
        (g.end.clone(), g.end_time_ms),
        (Some(Terminal::Resign), Some(5000))
    );
    assert_eq!(g.variations.len(), 1);
    let v = &g.variations[0];
    assert_eq!(
        (v.start, v.parent, v.end.clone()),
        (5, None, Some(Terminal::Suspend))
    );
    assert_eq!(v.moves[0].mv, "5i6h".parse::<Move>().unwrap());
    // Round trip through KIF keeps the variation, times and comments.
    let back = &read_str(&write(g, Format::Kif), Format::Kif).unwrap()[0];
    assert_eq!(back.variations, g.variations);
    assert_eq!(back.moves, g.moves);
    assert_eq!(back.start_comments, g.start_comments);
}

#[test]
fn kif_bod_start_and_mate() {
    let g = &read("kif/bod.kifu")[0];
    assert_eq!(g.start.king(Color::Black), None);
    assert_eq!(g.start.hand(Color::Black).count(gyoku::Role::Gold), 1);
    assert_eq!(g.start.hand(Color::White).count(gyoku::Role::Pawn), 18);
    assert_eq!(usi(g), ["G*5b"]);
    assert_eq!(g.end, Some(Terminal::Mate));
    let j = judge(g, Preset::Csa.rules());
    assert_eq!(j.game.outcome().map(|o| o.reason.code()), Some("checkmate"));
    assert!(j.agrees);
    // A non-standard start is written as a BOD and read back identically.
    let text = write(g, Format::Kif);
    assert!(
        text.contains("後手の持駒：") && !text.contains("手合割"),
        "{text}"
    );
    assert!(
        read_str(&text, Format::Kif).unwrap()[0]
            .start
            .same_position(&g.start)
    );
}

#[test]
fn an_illegal_move_is_read_and_judged() {
    let g = &read("csa/nifu.csa")[0];
    assert_eq!(g.moves.len(), 8);
    let foul = g.foul.as_ref().unwrap();
    assert_eq!(
        (foul.ply, foul.kind, foul.mv.to_string()),
        (9, IllegalMoveKind::Nifu, "P*5e".to_string())
    );
    assert_eq!(foul.rest, ["-8586FU", "+7968GI"]);
    let j = judge(g, Preset::Csa.rules());
    let o = j.game.outcome().unwrap();
    assert_eq!(
        (o.result.code(), o.reason.code(), o.ply),
        ("white", "illegal_move", 9)
    );
    assert!(!j.agrees, "the record says White resigned");
}

#[test]
fn unnoticed_foul_resignation_stands_under_jsa_only() {
    let g = &read("kif/unnoticed-foul.kifu")[0];
    assert_eq!(
        g.foul.as_ref().map(|f| (f.ply, f.kind)),
        Some((9, IllegalMoveKind::Nifu))
    );
    let jsa = judge(g, Preset::Jsa.rules());
    assert_eq!(
        (jsa.result.map(|r| r.code()), jsa.decided_by),
        (Some("black"), DecidedBy::ResignationStands)
    );
    assert!(jsa.agrees);
    let csa = judge(g, Preset::Csa.rules());
    assert_eq!(
        (csa.result.map(|r| r.code()), csa.decided_by),
        (Some("white"), DecidedBy::Rules)
    );
    assert!(!csa.agrees);
}

/// Issue 41, item 2: under `fouls = claim` (the 女流王座戦 2016 regulations, rule 9; the
/// Tsukuba rules) a foul followed by more moves was not claimed: part of the game, the
/// record's end stands, and `why` says so; a foul that is the last move and that the
/// record says lost was claimed; its opponent's resignation instead stands.
#[test]
fn claimed_fouls_under_claim() {
    let mut claim = Preset::JsaAmateur.rules();
    claim.fouls = gyoku::rules::Fouls::Claim;
    let played_on = &read("kif/unnoticed-foul.kifu")[0];
    let j = judge(played_on, claim);
    assert_eq!(
        (j.result.map(|r| r.code()), j.decided_by, j.agrees),
        (Some("black"), DecidedBy::UnclaimedFoul, true)
    );
    let why = gyoku_kifu::explain::why_differs(played_on, &j).expect("said");
    assert!(
        why.contains("not claimed before White's next move"),
        "{why}"
    );

    let kif = |end: &str| {
        format!(
            "手合割：平手\n手数----指手---------消費時間--\n   1 ２六歩(27)\n   2 ８四歩(83)\n   \
             3 ２五歩(26)\n   4 ８五歩(84)\n   5 ２四歩(25)\n   6 同　歩(23)\n   7 同　飛(28)\n   \
             8 ３四歩(33)\n   9 ５五歩打\n  10 {end}\n"
        )
    };
    let claimed = &read_str(&kif("反則負け"), Format::Kif).unwrap()[0];
    let j = judge(claimed, claim);
    let o = j.game.outcome().expect("claimed");
    assert_eq!(
        (o.result.code(), o.reason.code(), o.ply, j.decided_by),
        ("white", "claimed_foul", 9, DecidedBy::Rules)
    );
    let resigned = &read_str(&kif("投了"), Format::Kif).unwrap()[0];
    let j = judge(resigned, claim);
    let o = j.game.outcome().expect("resigned");
    assert_eq!((o.result.code(), o.reason.code()), ("black", "resignation"));
    assert!(j.agrees);

    // A game that ended by a claimed foul, written and judged again: the same ending.
    let mut game = gyoku::Game::new(claimed.start.clone(), claim);
    for m in &claimed.moves {
        game.play(m.mv).unwrap();
    }
    game.play(claimed.foul.as_ref().unwrap().mv).unwrap();
    game.claim_foul(Color::White).unwrap();
    let record = Record::from_game(&game);
    for format in [Format::Csa, Format::Kif] {
        let back = &read_str(&write(&record, format), format).unwrap()[0];
        let again = judge(back, claim);
        assert_eq!(
            again
                .game
                .outcome()
                .map(|o| (o.result, o.reason.code(), o.ply)),
            game.outcome().map(|o| (o.result, o.reason.code(), o.ply)),
            "{format:?}"
        );
    }
}

#[test]
fn usi_lines_with_end_tokens() {
    let games = read("usi/games.usi");
    assert_eq!(games.len(), 3);
    assert_eq!(games[0].end, Some(Terminal::Resign));
    assert_eq!(games[1].end, Some(Terminal::Declaration));
    assert_eq!(
        judge(&games[1], Preset::Csa.rules())
            .game
            .outcome()
            .map(|o| o.reason.code()),
        Some("declaration")
    );
    assert_eq!(usi(&games[2]), ["7g7f", "3c3d", "2g2f"]);
    assert_eq!(
        write(&games[0], Format::Usi),
        "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e resign\n"
    );
}

#[test]
fn read_errors_say_line_and_column() {
    let e = read_bytes(
        &fs::read(path("errors/bad-piece.csa")).unwrap(),
        Some(Format::Csa),
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (4, 6));
    assert!(e.message.contains("unknown piece 'XX'"));
    let e = read_bytes(
        &fs::read(path("errors/bad-move.kif")).unwrap(),
        Some(Format::Kif),
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (4, 6));
    assert_eq!(e.to_string(), "4:6: unknown piece in '３四ZZ(33)' (kif)");
    // Issue 47, item 2: a board row left out (P2: White's rook and bishop) is an error at
    // the line that ends the board, not a position without them; a row given twice too.
    let e = read_bytes(
        &fs::read(path("errors/missing-row.csa")).unwrap(),
        Some(Format::Csa),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "12:1: the board lacks P2 (a CSA board gives all nine rows, P1 to P9) (csa)"
    );
    assert_eq!(e.kind, gyoku_kifu::ReadErrorKind::Position);
    let twice = "V2.2\nP1 *  *  *  *  *  *  *  *  * \nP1 *  *  *  *  *  *  *  *  * \n";
    let e = read_str(twice, Format::Csa).unwrap_err();
    assert_eq!(e.to_string(), "3:1: P1 is given twice (csa)");
    // Item 1: a KIF board diagram is read by its rank labels. Row 六 left out: an error
    // at the board's bottom line (it had read every row below one rank too high); two rows
    // of nine: an error naming the seven missing; rows given out of order: read where
    // their labels put them.
    let p = path("errors/missing-rank.kifu");
    let e = read_bytes(&fs::read(&p).unwrap(), Format::from_path(&p)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "15:1: the board lacks row 六 (a KIF board gives all nine, 一 to 九) (kif)"
    );
    assert_eq!(e.kind, gyoku_kifu::ReadErrorKind::Position);
    let board = gyoku_kifu::diagram::kanji(&gyoku::Position::startpos());
    let rows: Vec<&str> = board.lines().filter(|l| l.starts_with('|')).collect();
    let two = format!(
        "+---------------------------+\n{}\n{}\n+---------------------------+\n",
        rows[0], rows[1]
    );
    let e = read_str(&two, Format::Kif).unwrap_err();
    assert_eq!(
        e.to_string(),
        "4:1: the board lacks rows 三, 四, 五, 六, 七, 八, 九 (a KIF board gives all nine, 一 to 九) (kif)"
    );
    // A tsume problem's board drawn as far as it reaches: read as what it gives when the
    // reader is told boards may be partial (`gyoku judge --lenient`), the same start as
    // the whole board's.
    let partial = fs::read(path("errors/partial-board.kifu")).unwrap();
    assert!(read_bytes(&partial, Some(Format::Kif)).is_err());
    let lenient = gyoku_kifu::ReadOptions {
        partial_boards: true,
    };
    let mut read_partial = Vec::new();
    gyoku_kifu::read_bytes_each_with(&partial, Some(Format::Kif), lenient, &mut |r| {
        read_partial.push(r)
    })
    .unwrap();
    assert_eq!(read_partial[0].start, read("kif/bod.kifu")[0].start);
    let swapped = board
        .replacen(rows[0], "@", 1)
        .replacen(rows[1], rows[0], 1)
        .replacen('@', rows[1], 1);
    assert_ne!(swapped, board);
    let r = &read_str(&swapped, Format::Kif).unwrap()[0];
    assert_eq!(r.start, gyoku::Position::startpos());
    let e = read_str("position startpos moves 7g7f 3c3x", Format::Usi).unwrap_err();
    assert_eq!((e.line, e.column), (1, 30));
    let p = path("errors/ambiguous.ki2u");
    let e = read_bytes(&fs::read(&p).unwrap(), Format::from_path(&p)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "5:11: '５八金' is ambiguous (2 pieces fit) (ki2)"
    );
    let p = path("errors/bad-square.jkf");
    let e = read_bytes(&fs::read(&p).unwrap(), Format::from_path(&p)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "6:5: 'to' {\"x\": 10, \"y\": 4} is not a square (x and y run 1-9) (jkf)"
    );
    // An unknown piece, and a 'from' off the board (not read as a drop), at their entries.
    let text = fs::read_to_string(&p).unwrap();
    let fixed = text.replace("\"x\": 10", "\"x\": 3");
    assert!(read_str(&fixed, Format::Jkf).is_ok());
    let e = read_str(
        &fixed.replace("\"piece\": \"FU\"}}\n  ]", "\"piece\": \"XX\"}}\n  ]"),
        Format::Jkf,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "6:5: unknown piece 'XX' (jkf)");
    let e = read_str(
        &fixed.replace("{\"x\": 3, \"y\": 3}", "{\"x\": 0, \"y\": 0}"),
        Format::Jkf,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "6:5: 'from' {\"x\": 0, \"y\": 0} is not a square (x and y run 1-9) (jkf)"
    );
}

/// JKF written by hand: a lance handicap (White moves first), `same`, a promotion, drops
/// (with and without `relative: "H"`), times with totals, comments at the start and on
/// moves, a fork with its own comment, and `TORYO` with its time.
#[test]
fn jkf_handicap_times_forks_and_the_end() {
    let p = path("jkf/lance-handicap-fork.jkf");
    let r = &read_bytes(&fs::read(&p).unwrap(), Format::from_path(&p)).unwrap()[0];
    assert_eq!(r.handicap, Some(Handicap::Lance));
    assert_eq!(r.header[0], ("先手".to_string(), "下手の人".to_string()));
    assert_eq!(r.start_comments, ["香落ち: 上手（後手）から指す"]);
    assert_eq!(usi(r), ["3c3d", "7g7f", "2b8h+", "7i8h", "B*4e", "B*6e"]);
    let secs: Vec<_> = r.moves.iter().map(|m| m.time_ms.unwrap() / 1000).collect();
    assert_eq!(secs, [5, 12, 60, 3, 150, 20]);
    assert_eq!(r.moves[1].comments, ["角道を開ける"]);
    assert_eq!(
        (r.end.clone(), r.end_time_ms),
        (Some(Terminal::Resign), Some(9000))
    );
    assert_eq!(r.variations.len(), 1);
    let v = &r.variations[0];
    assert_eq!((v.start, v.parent), (5, None));
    let fork: Vec<String> = v.moves.iter().map(|m| m.mv.to_string()).collect();
    assert_eq!(fork, ["3a2b", "B*5e"]);
    assert_eq!(v.moves[0].comments, ["穏やかに銀を上がる"]);
    // White resigned at ply 7: Black wins, as recorded.
    let j = judge(r, Preset::Csa.rules());
    assert!(j.agrees);
    assert_eq!(j.result, Some(gyoku::GameResult::Win(Color::Black)));
    // KIF carries each side's total on into the fork and onto the end line.
    let kif = write(r, Format::Kif);
    assert!(
        kif.contains("   7 投了          ( 0:09/00:03:44)\n"),
        "{kif}"
    );
    assert!(
        kif.contains("   5 ２二銀(31)    ( 0:40/00:01:45)\n"),
        "{kif}"
    );
    // Written back as JKF, the totals are the ones written by hand.
    let jkf = write(r, Format::Jkf);
    let written: serde_json::Value = serde_json::from_str(&jkf).unwrap();
    let original: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
    let totals = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        let moves = v["moves"].as_array().unwrap();
        let mut t: Vec<_> = moves.iter().map(|e| e["time"]["total"].clone()).collect();
        t.extend(
            moves[5]["forks"][0]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["time"]["total"].clone()),
        );
        t
    };
    assert_eq!(totals(&written), totals(&original));
    let back = &read_str(&jkf, Format::Jkf).unwrap()[0];
    assert_eq!(back, r);
}

#[test]
fn ki2_qualifiers_resolve_and_round_trip() {
    let g = &read("ki2/qualifiers.ki2")[0];
    assert_eq!(g.header("先手"), Some("Gyoku 先手"));
    assert_eq!(
        usi(g),
        [
            "6h5h", "1a1b", "5i6g", "1b1a", "2i2h", "1a1b", "6b5c", "1b1a", "R*8f", "1a1b", "8f8g",
            "1b1a", "2g2f", "3e2f", "3g2f", "1a1b"
        ]
    );
    assert_eq!(g.start_comments.len(), 1);
    assert_eq!(g.moves[5].comments, ["引いて成らない銀"]);
    assert_eq!(g.end, Some(Terminal::Resign));
    assert_eq!(g.variations.len(), 1);
    assert_eq!(g.variations[0].start, 15);
    assert_eq!(g.variations[0].moves[0].mv.to_string(), "8g8b+");
    assert_eq!(g.variations[0].end, Some(Terminal::Suspend));
    // Written back, every qualifier is the one read (the JSA rule gives the same ones).
    let text = write(g, Format::Ki2);
    for word in [
        "５八金寄",
        "６七桂右",
        "２八金直",
        "５三銀引不成",
        "８六飛打",
        "８七飛引",
        "▲同　銀",
    ] {
        assert!(text.contains(word), "{word} in\n{text}");
    }
    let back = &read_str(&text, Format::Ki2).unwrap()[0];
    assert_eq!(usi(back), usi(g));
    assert_eq!(back.variations, g.variations);
}

#[test]
fn ki2_foul_is_kept_and_judged() {
    let g = &read("ki2/nifu.ki2u")[0];
    assert_eq!(g.moves.len(), 10);
    let foul = g.foul.as_ref().unwrap();
    assert_eq!((foul.ply, foul.kind), (11, IllegalMoveKind::Nifu));
    assert_eq!(foul.rest, ["８六歩", "同　歩"]);
    assert_eq!(g.end, Some(Terminal::IllegalAction(Color::Black)));
    let j = judge(g, Preset::Csa.rules());
    assert!(j.agrees);
    assert_eq!(
        j.game.outcome().map(|o| o.reason.code()),
        Some("illegal_move")
    );
}

/// An indented `変化` line (a full-width space, a form feed) is a variation in KIF as in
/// KI2, so that a record read from one writes to the other with the same moves (the
/// fuzz target found the two readers disagreeing).
#[test]
fn indented_variation_lines_are_variations_in_kif_and_ki2() {
    let kif = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n\n\u{3000}変化：2手\n   2 ８四歩(83)\n";
    let ki2 = "手合割：平手\n▲７六歩　△３四歩\n\n\u{c}変化：2手\n△８四歩\n";
    for (text, format) in [(kif, Format::Kif), (ki2, Format::Ki2)] {
        let r = &read_str(text, format).unwrap()[0];
        assert_eq!(usi(r), ["7g7f", "3c3d"], "{format:?}");
        assert_eq!(r.variations.len(), 1, "{format:?}");
        assert_eq!(r.variations[0].start, 2);
        assert_eq!(r.variations[0].moves[0].mv.to_string(), "8c8d");
    }
    let e = read_str(&kif.replace("2手\n   2", "x手\n   2"), Format::Kif).unwrap_err();
    assert_eq!((e.line, e.column), (6, 5), "{e}");
}

/// Only `変化：N手` opens a variation: a header whose name begins with 変化 is a header in
/// KIF and in KI2 alike, and the moves after it stay on the main line (found by fuzzing:
/// KI2 ended its header there). A line that begins with a KI2 move mark is never a header
/// (it would be a move in KI2): in a KIF header it is an unexpected line.
#[test]
fn a_header_named_henka_is_not_a_variation() {
    let kif = "変化記号：あり\n手合割：香落ち\n手数----指手---------消費時間--\n   1 ３四歩(33)\n   2 ７六歩(77)\n";
    let ki2 = "変化記号：あり\n手合割：香落ち\n△３四歩　▲７六歩\n";
    for (text, format) in [(kif, Format::Kif), (ki2, Format::Ki2)] {
        let r = &read_str(text, format).unwrap()[0];
        assert_eq!(r.handicap, Some(Handicap::Lance), "{format:?}");
        assert_eq!(usi(r), ["3c3d", "7g7f"], "{format:?}");
        assert!(r.variations.is_empty(), "{format:?}");
        assert!(r.foul.is_none(), "{format:?}");
        let back = &read_str(&write(r, format), format).unwrap()[0];
        assert_eq!(usi(back), ["3c3d", "7g7f"], "{format:?} round trip");
    }
    let e = read_str(&kif.replace("変化記号", "▲変化記号"), Format::Kif).unwrap_err();
    assert_eq!(
        e.to_string(),
        "1:1: unexpected line '▲変化記号：あり' (kif)"
    );
}

/// A move out of turn (Black moving twice) is the foul `out_of_turn`. CSA's sign and
/// JKF's `color` say the mover, so it reads back as the same foul; KIF and KI2 (whose
/// marks are decoration) cannot say it and keep it as a comment, and USI leaves it out;
/// none of them turns it into a legal move (found by fuzzing: CSA wrote it with the other
/// side's sign).
#[test]
fn a_move_out_of_turn_stays_a_foul_or_a_comment() {
    let csa = "V2.2\nPI\n+\n+7776FU\n+2726FU\n%TORYO\n";
    let r = &read_str(csa, Format::Csa).unwrap()[0];
    let foul = r.foul.as_ref().unwrap();
    assert_eq!((foul.ply, foul.kind), (2, IllegalMoveKind::OutOfTurn));
    assert_eq!(foul.by, Color::Black);
    assert!(r.foul_out_of_turn());
    let j = judge(r, Preset::Csa.rules());
    assert_eq!(j.result, Some(gyoku::GameResult::Win(Color::White)));
    for format in [Format::Csa, Format::Jkf] {
        let text = write(r, format);
        let back = &read_str(&text, format).unwrap()[0];
        assert_eq!(
            back.foul.as_ref().map(|f| (f.ply, f.kind, f.mv)),
            Some((2, IllegalMoveKind::OutOfTurn, foul.mv)),
            "{format:?}\n{text}"
        );
    }
    assert!(write(r, Format::Csa).contains("+7776FU\n+2726FU\n"));
    for format in [Format::Kif, Format::Ki2] {
        let text = write(r, format);
        assert!(
            text.contains("*illegal move 2g2f out of turn (not writable in"),
            "{text}"
        );
        let back = &read_str(&text, format).unwrap()[0];
        assert_eq!(usi(back), ["7g7f"], "{format:?}");
    }
    assert_eq!(
        write(r, Format::Usi),
        "position startpos moves 7g7f resign\n"
    );
}

/// Issue 31, item 1 (in part): shogi-server's `'Max_Moves:N` comment is the record's own
/// move limit, as `$MAX_MOVES` is: the game ends there, as its `'summary:` says.
#[test]
fn csa_max_moves_comment_is_the_records_own_limit() {
    let records = read("csa/max-moves-comment.csa");
    let r = &records[0];
    assert_eq!(gyoku_kifu::report::record_max_moves(r), Some(6));
    let rules = gyoku_kifu::report::rules_for(r, gyoku::Preset::Csa.rules(), false);
    let j = gyoku_kifu::judge::judge(r, rules);
    let o = j.game.outcome().expect("over at the limit");
    assert_eq!((o.reason.code(), o.ply, j.agrees), ("move_limit", 6, true));
    // A limit the user gives wins over the record's.
    let mut mine = gyoku::Preset::Csa.rules();
    mine.set_max_moves(100);
    let j = gyoku_kifu::judge::judge(r, gyoku_kifu::report::rules_for(r, mine, true));
    assert!(j.game.outcome().is_none());
}

/// Issue 31, item 2 (in part): a foul the arbiter saw that is not in the file (CSA
/// `%ILLEGAL_MOVE`, KIF `反則負け`) and a time-up are decided on the record's word, named
/// as such, and agree with the record.
#[test]
fn unseen_fouls_and_time_ups_are_decided_on_the_records_word() {
    use gyoku_kifu::judge::{DecidedBy, RecordWord, judge};
    for (text, format, word, loser) in [
        (
            "V2.2\nPI\n+\n+7776FU\n-3334FU\n%ILLEGAL_MOVE\n",
            Format::Csa,
            RecordWord::UnseenFoul,
            gyoku::Color::Black,
        ),
        (
            "V2.2\nPI\n+\n+7776FU\n%-ILLEGAL_ACTION\n",
            Format::Csa,
            RecordWord::UnseenFoul,
            gyoku::Color::White,
        ),
        (
            "V2.2\nPI\n+\n+7776FU\n%TIME_UP\n",
            Format::Csa,
            RecordWord::TimeUp,
            gyoku::Color::White,
        ),
        (
            "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 反則負け\n",
            Format::Kif,
            RecordWord::UnseenFoul,
            gyoku::Color::White,
        ),
    ] {
        let r = gyoku_kifu::read_str(text, format).unwrap().remove(0);
        let j = judge(&r, gyoku::Preset::Csa.rules());
        assert_eq!(j.decided_by, DecidedBy::Record(word), "{text}");
        assert_eq!(j.result, Some(gyoku::GameResult::Win(!loser)), "{text}");
        assert!(j.agrees, "{text}");
    }
    // A foul that is in the file is checked by the rules, not taken on the record's word.
    let r = &read("csa/nifu.csa")[0];
    assert_eq!(
        judge(r, gyoku::Preset::Csa.rules()).decided_by,
        DecidedBy::Rules
    );
}

/// Issue 31, item 1 (in part): Shogi Wars names the result only in `$X_WINNER`/`$X_FINAL`
/// (a disconnection ends `%CHUDAN`): the winner is the record's word, named as such.
#[test]
fn shogi_wars_states_its_winner_in_its_own_headers() {
    let r = &read("csa/wars-disconnect.csa")[0];
    let j = judge(r, Preset::Csa.rules());
    assert!(j.game.outcome().is_none(), "the rules did not end it");
    assert_eq!(
        (j.result, j.decided_by, j.agrees),
        (
            Some(gyoku::GameResult::Win(Color::Black)),
            DecidedBy::Record(gyoku_kifu::judge::RecordWord::Disconnection),
            true
        )
    );
    let v = gyoku_kifu::report::record_json(r, &j);
    assert_eq!(
        (v["result"].as_str(), v["reason"].as_str()),
        (Some("black"), Some("disconnection"))
    );
}

/// Issue 31, item 1 (in part): Shogidokoro writes a declaration's win as 持将棋 with the
/// comment `Win by entering king declaration.`: read as the declaration it is, and judged
/// by the rules (a win here, Black having entered with its points).
#[test]
fn shogidokoro_writes_a_declaration_as_jishogi_with_a_comment() {
    let start = gyoku::Position::from_sfen("G3+R3S/GG2P2SS/GLPBKBPLS/9/9/7+p+p/7+pk/7+p+p/9 b - 1")
        .unwrap();
    let mut r = Record::new(start);
    r.end = Some(Terminal::Jishogi);
    r.start_comments
        .push("*Win by entering king declaration.".into());
    let j = judge(&r, Preset::Csa.rules());
    assert_eq!(j.recorded, Some(Terminal::Declaration));
    assert_eq!(
        (j.result, j.agrees),
        (Some(gyoku::GameResult::Win(Color::Black)), true)
    );
    // Without the comment, 持将棋 is an impasse (an agreement the rules judge).
    r.start_comments.clear();
    assert_eq!(
        judge(&r, Preset::Csa.rules()).recorded,
        Some(Terminal::Jishogi)
    );
}

/// Every form of shogi-server's `'summary:` a record may end with, judged: who is named
/// first (today Black; servers of 2006–2008 wrote White first, and the names decide), what
/// the moves cannot show (a foul the server refused and never wrote, a time-up, a player
/// who left) taken on the summary's word, and an end line that says otherwise shown beside
/// it, the summary checked, the difference said in words.
#[test]
fn summary_forms_are_read_as_their_servers_meant_them() {
    use gyoku_kifu::report::{judge_record, record_json};
    // file, result, reason, decided_by, agrees, statements disagree, words in `why`.
    let table: &[(&str, &str, &str, &str, bool, bool, &str)] = &[
        (
            "csa/summary-white-first.csa",
            "black",
            "resignation",
            "rules",
            true,
            false,
            "",
        ),
        (
            "csa/summary-unseen-foul.csa",
            "black",
            "illegal_action",
            "record",
            true,
            false,
            "",
        ),
        (
            "csa/summary-abnormal.csa",
            "white",
            "disconnection",
            "record",
            true,
            false,
            "",
        ),
        (
            "csa/summary-time-up.csa",
            "white",
            "time_up",
            "record",
            true,
            false,
            "",
        ),
        (
            "csa/summary-disagrees.csa",
            "white",
            "resignation",
            "rules",
            false,
            true,
            "the server's summary says toryo, Black wins",
        ),
    ];
    for &(file, result, reason, decided_by, agrees, disagree, why) in table {
        let r = &read(file)[0];
        let j = judge_record(r, Preset::Csa.rules(), false);
        let v = record_json(r, &j);
        assert_eq!(
            (
                v["result"].as_str(),
                v["reason"].as_str(),
                v["decided_by"].as_str(),
                v["agrees"].as_bool(),
                v["recorded"]["statements_disagree"].as_bool(),
                v["recorded"]["checked"].as_str(),
            ),
            (
                Some(result),
                Some(reason),
                Some(decided_by),
                Some(agrees),
                Some(disagree),
                Some("summary")
            ),
            "{file}: {v}"
        );
        match v["why"].as_str() {
            Some(w) => assert!(!why.is_empty() && w.contains(why), "{file}: {w}"),
            None => assert!(why.is_empty(), "{file}: no why"),
        }
        assert_eq!(
            v["limit"],
            serde_json::json!({"plies": 256, "from": "rules"})
        );
    }
}

/// Each kind of disagreement is said in words: a foul before a resignation, a declaration
/// that fails, a mate that is none, the move limit before the record's end.
#[test]
fn a_difference_is_explained_in_words() {
    use gyoku_kifu::report::{judge_record, record_json};
    let table: &[(&str, &[&str])] = &[
        (
            "csa/nifu.csa",
            &[
                "ply 9, P*5e, is a foul",
                "pawn dropped on a file",
                "came after it",
            ],
        ),
        (
            "kif/unnoticed-foul.kifu",
            &["ply 9", "a foul loses at once", "Black wins by resignation"],
        ),
        (
            "kifu-for-js/ki2/kobayashi_kinsho196702.ki2",
            &["White is not mated", "5 legal moves"],
        ),
    ];
    for (file, words) in table {
        let r = &read(file)[0];
        let j = judge_record(r, Preset::Csa.rules(), false);
        let v = record_json(r, &j);
        let why = v["why"].as_str().unwrap_or_else(|| panic!("{file}: {v}"));
        for w in *words {
            assert!(why.contains(w), "{file}: {why}");
        }
    }
    // The second game of two-games.csa: White declares with its king at home.
    let r = &read("csa/two-games.csa")[1];
    let v = record_json(r, &judge_record(r, Preset::Csa.rules(), false));
    let why = v["why"].as_str().unwrap();
    assert!(
        why.contains("White's declaration at ply 3 fails: the king has not entered the zone"),
        "{why}"
    );
    // A record's own limit: said where it came from.
    let r = &read("csa/max-moves-comment.csa")[0];
    let v = record_json(r, &judge_record(r, Preset::Csa.rules(), false));
    assert_eq!(
        v["limit"],
        serde_json::json!({"plies": 6, "from": "record"})
    );
    let v = record_json(r, &judge_record(r, Preset::Csa.rules(), true));
    assert_eq!(v["limit"]["from"], "option");
}

/// Issue 47, item 4: what a record says does not depend on where the rules stop. A foul
/// then an end line: the side that wrote the end is counted from the record (its moves,
/// its foul, the moves after it), so a move limit before the foul turns no one round —
/// 51c03ac said "recorded: white" for the unnoticed foul's resignation under a limit of 2
/// plies, and "Black wins" for ShogiGUI's 反則勝ち after Black's foul.
#[test]
fn what_a_record_says_does_not_depend_on_where_the_rules_stop() {
    use gyoku::GameResult;
    use gyoku_kifu::report::judge_record;
    for (name, says) in [
        ("kif/unnoticed-foul.kifu", GameResult::Win(Color::Black)),
        ("kif/foul-then-win.kifu", GameResult::Win(Color::White)),
    ] {
        let r = &read(name)[0];
        for limit in [None, Some(2), Some(8), Some(9)] {
            let mut rules = Preset::Csa.rules();
            if let Some(plies) = limit {
                rules.set_max_moves(plies);
            }
            let j = judge_record(r, rules, limit.is_some());
            assert_eq!(
                j.recorded_result,
                Some(says),
                "{name} under a limit of {limit:?}"
            );
        }
    }
}

/// Issue 47, items 3 and 5: what a KIF says of its end beyond its end line. Shogi Club
/// 24's `先手 反則負け` (on the end line and the closing line) is a foul loss for the side
/// named (51c03ac read it as "other"); a result stated only in the closing line
/// (`まで8手で後手の勝ち`) is the record's (51c03ac: "no end"); a closing line naming
/// another winner than the end line is checked, as a CSA server's summary is, and the two
/// are flagged as disagreeing.
#[test]
fn a_kifs_closing_line_and_shogi_club_24s_fouls_are_read() {
    use gyoku_kifu::report::{judge_record, record_json};
    use serde_json::json;
    let json = |name: &str| {
        let r = &read(name)[0];
        record_json(r, &judge_record(r, Preset::Csa.rules(), false))
    };
    let v = json("kif/club24-foul.kifu");
    assert_eq!(
        (
            &v["result"],
            &v["reason"],
            &v["recorded"]["result"],
            &v["agrees"]
        ),
        (
            &json!("white"),
            &json!("illegal_action"),
            &json!("white"),
            &json!(true)
        ),
        "{v}"
    );
    let v = json("kif/closing-only.kifu");
    assert_eq!(
        (&v["result"], &v["recorded"]["result"], &v["agrees"]),
        (&json!("white"), &json!("white"), &json!(true)),
        "{v}"
    );
    let v = json("kif/closing-contradicts.kifu");
    let recorded = &v["recorded"];
    assert_eq!(
        (
            &recorded["result"],
            &recorded["end_result"],
            &recorded["summary"],
            &recorded["checked"],
            &recorded["statements_disagree"],
            &v["agrees"],
        ),
        (
            &json!("black"),
            &json!("white"),
            &json!("まで8手で先手の勝ち"),
            &json!("summary"),
            &json!(true),
            &json!(false)
        ),
        "{v}"
    );
    assert!(
        v["why"]
            .as_str()
            .unwrap()
            .contains("its closing line (まで8手で先手の勝ち) says Black wins"),
        "{v}"
    );
    // A closing line that says what the end line says is not a second statement.
    let v = json("kif/sjis.kif");
    assert_eq!(
        (&v["recorded"]["summary"], &v["recorded"]["checked"]),
        (&json!(null), &json!("end"))
    );
}

/// Issue 47, item 6: a KIF whose moves start at move 2 with no 後手番 line (the start
/// position and Black to move) lacks its first move: a damaged record, said at the first
/// move's line and judged up to it, never White's foul at ply 1.
#[test]
fn a_kif_numbered_from_move_2_is_damaged() {
    use gyoku_kifu::report::{judge_record, record_json};
    let r = &read("kif/from-move-2.kifu")[0];
    let d = r.damage.as_ref().expect("damaged");
    assert_eq!(
        (d.line, d.what.as_str()),
        (
            7,
            "the moves start at move 2 with no 後手番 line: move 1 is missing"
        )
    );
    assert!(r.moves.is_empty() && r.foul.is_none() && r.end.is_none());
    let v = record_json(r, &judge_record(r, Preset::Csa.rules(), false));
    assert_eq!(
        (v["result"].clone(), v["agrees"].clone()),
        (serde_json::Value::Null, serde_json::json!(true))
    );
    // Numbered from 1, or from 2 after 後手番: not damaged.
    let sound = "手合割：平手\n後手番\n手数----指手---------消費時間--\n   2 ３四歩(33)\n";
    assert_eq!(
        gyoku_kifu::read_str(sound, gyoku_kifu::Format::Kif).unwrap()[0].damage,
        None
    );
}

/// A damaged record (a Floodgate file of 2012 has its first move glued onto the end of a
/// comment line, then `T1` with no move before it; cshogi #60 crashes on it): read up to
/// the damage with its line said, judged up to it — never a foul at ply 1 — and a time
/// line before any move with no glued move said as a missing first move.
#[test]
fn a_damaged_record_is_read_and_judged_up_to_the_damage() {
    use gyoku_kifu::report::{judge_record, record_json};
    let r = &read("csa/glued-first-move.csa")[0];
    let d = r.damage.as_ref().expect("damaged");
    assert_eq!(d.line, 7);
    assert!(
        d.what
            .contains("+2726FU is glued to the end of the comment on line 6"),
        "{}",
        d.what
    );
    assert!(r.moves.is_empty() && r.foul.is_none() && r.end.is_none());
    let v = record_json(r, &judge_record(r, Preset::Csa.rules(), false));
    assert_eq!(
        (
            v["result"].clone(),
            v["agrees"].clone(),
            v["damaged"]["line"].clone()
        ),
        (
            serde_json::Value::Null,
            serde_json::json!(true),
            serde_json::json!(7)
        )
    );
    let text = "V2.2\nPI\n+\n+7776FU\nT3\n-3334FU\nT2\n%TORYO\n";
    let whole = gyoku_kifu::read_str(text, gyoku_kifu::Format::Csa).unwrap();
    assert_eq!(whole[0].damage, None, "a sound record is not damaged");
    let missing = "V2.2\nPI\n+\nT1\n-3334FU\n";
    let r = &gyoku_kifu::read_str(missing, gyoku_kifu::Format::Csa).unwrap()[0];
    assert_eq!(
        r.damage.as_ref().map(|d| (d.line, d.what.as_str())),
        Some((4, "a time before any move: the first move is missing"))
    );
}

/// Issue 41, item 4: a record's recorded move times judged under a clock (`gyoku judge
/// FILE --byoyomi 30s --thinking-units 10x60s`, the NHK Cup's; three 10 s periods; the
/// JSA's minute-floored stopwatch): the first move past its side's time ends the game on
/// time there, and the judgement says it differs from the record.
#[test]
fn recorded_times_judged_under_a_clock() {
    use gyoku::TimeControl;
    use gyoku_kifu::judge::judge_with_clock;
    // Black 5 s, White 45 s, Black 3 s, White 90 s, then Black resigns.
    let text = "V2\nPI\n+\n+7776FU\nT5\n-3334FU\nT45\n+2726FU\nT3\n-8384FU\nT90\n%TORYO\n";
    let record = &read_str(text, Format::Csa).unwrap()[0];
    let rules = Preset::Csa.rules();
    let byoyomi = TimeControl::byoyomi(0, 30_000);
    let rows: &[(TimeControl, &str)] = &[
        // The NHK Cup: 30 s, then ten 1-minute units: 45 s uses one, 90 s two.
        (
            byoyomi.with_thinking_units(10, 60_000),
            "white resignation 5",
        ),
        // One unit only: the 90 s move outlasts it.
        (byoyomi.with_thinking_units(1, 60_000), "black time_up 4"),
        // Plain byoyomi: 45 s is past 30.
        (byoyomi, "black time_up 2"),
        // Three 10 s periods: 45 s is past all three.
        (
            TimeControl::byoyomi(0, 10_000).with_periods(3),
            "black time_up 2",
        ),
        // The JSA's stopwatch: 2 minutes of main time, then a 1-minute byoyomi; 45 s and
        // 3 s cost nothing, 90 s one minute.
        (
            TimeControl::byoyomi(120_000, 60_000).with_rounding(gyoku::Rounding::FlooredMinutes),
            "white resignation 5",
        ),
    ];
    for (control, want) in rows {
        let j = judge_with_clock(record, rules, *control);
        let o = j.game.outcome().expect("ended");
        assert_eq!(
            format!("{} {} {}", o.result.code(), o.reason.code(), o.ply),
            *want,
            "{control:?}"
        );
        assert_eq!(j.agrees, want.starts_with("white"), "{control:?}");
    }
}
