//! Every reader says what kind of fault a record has (issue 40: errors as types), pinned
//! by a table: the format, the text, the kind and the line it is reported at.

use gyoku_kifu::{Format, ReadErrorKind, read_bytes, read_str};

#[test]
fn each_fault_is_read_as_its_kind() {
    use ReadErrorKind as K;
    let kif_head = "手合割：平手\n手数----指手---------消費時間--\n";
    let table: Vec<(Format, String, ReadErrorKind, usize)> = vec![
        // Nothing to read.
        (Format::Kif, " \n".into(), K::Empty, 1),
        (Format::Csa, "\n\n".into(), K::Empty, 1),
        // The start.
        (Format::Csa, "P1-KY-KE\n".into(), K::Position, 1),
        (
            Format::Csa,
            "V2.2\nP1-KY-KE-GI-KI-OU-KI-GI-KE-KY-FU\n".into(),
            K::Position,
            2,
        ),
        (Format::Csa, "V2.2\nPX\n".into(), K::Position, 2),
        (Format::Usi, "sfen 9/9/9 b - 1\n".into(), K::Position, 1),
        (Format::Kif, "先手の持駒：龍王\n".into(), K::Position, 1),
        (
            Format::Jkf,
            r#"{"initial": {"preset": "NOPE"}}"#.into(),
            K::Position,
            1,
        ),
        // Moves.
        (Format::Csa, "V2.2\nPI\n+\n+7776XX\n".into(), K::Move, 4),
        (Format::Csa, "V2.2\nPI\n+7776FU\n".into(), K::Move, 3),
        (Format::Usi, "startpos moves 7g7z\n".into(), K::Move, 1),
        (
            Format::Kif,
            format!("{kif_head}   1 ７六豚(77)\n"),
            K::Move,
            3,
        ),
        (Format::Ki2, "手合割：平手\n\n▲７六豚\n".into(), K::Move, 3),
        // Variations.
        (
            Format::Kif,
            format!("{kif_head}   1 ７六歩(77)\n\n変化：x手\n"),
            K::Variation,
            5,
        ),
        // Syntax.
        (Format::Jkf, "{\"moves\": [".into(), K::Syntax, 1),
        (Format::Jkf, "[1, 2]".into(), K::Syntax, 1),
        (Format::Csa, "V2.2\nPI\n+\nhello\n".into(), K::Syntax, 4),
    ];
    let mut wrong = Vec::new();
    for (format, text, kind, line) in &table {
        match read_str(text, *format) {
            Ok(r) => wrong.push(format!("{format:?} {text:?}: read ({} records)", r.len())),
            Err(e) if (e.kind, e.line) != (*kind, *line) => wrong.push(format!(
                "{format:?} {text:?}: {:?} at line {} ({e}), not {kind:?} at line {line}",
                e.kind, e.line
            )),
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // A format that cannot be told.
    let e = read_bytes(b"hello there\n", None).unwrap_err();
    assert_eq!((e.kind, e.kind.code()), (ReadErrorKind::Format, "format"));
}
