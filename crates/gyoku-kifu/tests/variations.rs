//! Issue 11, item 2: variations nested without bound. Reading and writing them never
//! recurses deeper than `MAX_VARIATION_DEPTH` (deeper is a clear error where it starts),
//! JKF output does not grow with the nesting, and the line lookups agree with the lines.

use gyoku_kifu::{Format, MAX_VARIATION_DEPTH, Record, read_str, write};

const MOVE: &str = r#"{"move":{"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"}"#;

/// A JKF record whose first move has forks nested `depth` levels deep.
fn nested_jkf(depth: usize) -> String {
    let mut s = String::from(r#"{"header":{},"moves":[{},"#);
    for _ in 0..depth {
        s.push_str(MOVE);
        s.push_str(r#","forks":[["#);
    }
    s.push_str(MOVE);
    s.push('}');
    for _ in 0..depth {
        s.push_str("]]}");
    }
    s.push_str("]}");
    s
}

/// A KIF record with `depth` variations, each branching from the one before one ply later
/// (lances step up and back, so every move is legal).
fn nested_kif(depth: usize) -> String {
    let mut s = String::from(
        "手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２六歩(27)\n",
    );
    for k in 0..depth {
        let ply = 2 + k;
        let (a, b) = if ply % 2 == 1 {
            ("９八香(99)", "９九香(98)")
        } else {
            ("１二香(11)", "１一香(12)")
        };
        s.push_str(&format!(
            "\n変化：{ply}手\n{ply:4} {a}\n{:4} {b}\n",
            ply + 1
        ));
    }
    s
}

/// Runs `f` on a thread with the stack `gyoku judge` gives its workers (2 MiB): reading
/// must not need a deeper one.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no stack overflow")
}

#[test]
fn deep_jkf_forks_are_an_error_not_a_crash() {
    for depth in [3_000, 200_000] {
        let text = nested_jkf(depth);
        let err = on_small_stack(move || read_str(&text, Format::Jkf).unwrap_err().to_string());
        assert!(err.starts_with("1:"), "{err}");
        assert!(err.contains("forks nest at most 100 levels"), "{err}");
    }
    // At the limit it reads.
    let text = nested_jkf(MAX_VARIATION_DEPTH - 1);
    let records = on_small_stack(move || read_str(&text, Format::Jkf).unwrap());
    assert_eq!(records[0].variations.len(), MAX_VARIATION_DEPTH - 1);
}

#[test]
fn deep_kif_variations_are_an_error_where_they_go_too_deep() {
    let text = nested_kif(10_000);
    let err = on_small_stack(move || read_str(&text, Format::Kif).unwrap_err().to_string());
    // The 101st variation's line: four lines of main line, then four per variation.
    let line = 4 + 4 * MAX_VARIATION_DEPTH + 2;
    assert_eq!(
        err,
        format!("{line}:1: variations nest deeper than 100 levels (kif)")
    );
}

/// At the limit, every writer writes and reads back the same variations, and JKF stays
/// within a small multiple of the KIF (it used to indent every level).
#[test]
fn records_at_the_limit_write_and_read_back() {
    let text = nested_kif(MAX_VARIATION_DEPTH);
    let record = read_str(&text, Format::Kif).unwrap().remove(0);
    assert_eq!(record.variations.len(), MAX_VARIATION_DEPTH);
    assert_eq!(
        record.variation_depth(MAX_VARIATION_DEPTH - 1),
        MAX_VARIATION_DEPTH
    );
    for format in [Format::Kif, Format::Ki2, Format::Jkf] {
        let written = write(&record, format);
        let back = on_small_stack(move || read_str(&written, format).unwrap().remove(0));
        assert_eq!(back.variations.len(), record.variations.len(), "{format:?}");
        for (a, b) in back.variations.iter().zip(&record.variations) {
            assert_eq!((a.start, a.parent), (b.start, b.parent), "{format:?}");
        }
    }
    let jkf = write(&record, Format::Jkf);
    assert!(jkf.len() < 20 * text.len(), "{} bytes of JKF", jkf.len());
}

/// `move_on_line` (the readers' lookup, proportional to the depth) is the move that
/// `line_before` and the variation's own moves compose, at every ply of every line.
#[test]
fn line_lookups_agree_with_the_lines() {
    fn check(record: &Record) {
        assert!(!record.variations.is_empty());
        for i in 0..record.variations.len() {
            let mut line: Vec<_> = record.line_before(i).iter().map(|m| m.mv).collect();
            line.extend(record.variations[i].moves.iter().map(|m| m.mv));
            for ply in 0..=line.len() as u32 + 2 {
                let want = (ply as usize)
                    .checked_sub(1)
                    .and_then(|k| line.get(k))
                    .copied();
                assert_eq!(
                    record.move_on_line(Some(i), ply),
                    want,
                    "variation {i} ply {ply}"
                );
            }
        }
    }
    check(&read_str(&nested_kif(30), Format::Kif).unwrap()[0]);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/records");
    for name in ["jkf/lance-handicap-fork.jkf", "kif/sjis.kif"] {
        let path = std::path::Path::new(dir).join(name);
        let bytes = std::fs::read(&path).unwrap();
        check(&gyoku_kifu::read_bytes(&bytes, Format::from_path(&path)).unwrap()[0]);
    }
    // Siblings and a malformed start past the end of its parent line.
    let text = "手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n\
                \n変化：2手\n   2 ８四歩(83)\n   3 同　歩(84)\n\n変化：2手\n   2 １四歩(13)\n\
                \n変化：9手\n   9 ２六歩(27)\n";
    check(&read_str(text, Format::Kif).unwrap()[0]);
}

/// Found by the `read_ki2` fuzz target: a KIF move line before the first KI2 move was
/// played by the header's KIF reader, and the KI2 moves were then read from the start
/// position and appended after it (a Black move on White's turn). Refused where it is.
#[test]
fn a_kif_move_line_in_a_ki2_header_is_refused() {
    let text = "手合割：平手\n   1 ６八玉(59)\n▲７六歩    △３四歩\n";
    let e = gyoku_kifu::read_str(text, gyoku_kifu::Format::Ki2).unwrap_err();
    assert_eq!((e.line, e.column), (2, 1), "{e}");
    assert!(e.message.contains("KIF move line"), "{e}");
}

/// Found by the `read_jkf` fuzz target: a header whose name begins with `|` was written
/// to KIF as `|…：…`, which KIF reads as a board row. Such a header is kept as a comment.
#[test]
fn a_header_kif_would_misread_is_written_as_a_comment() {
    let jkf = r#"{"header":{"|odd":"x","先手":"a","12":"n"},"moves":[{},{"move":{"from":{"x":7,"y":7},"to":{"x":7,"y":6},"color":0,"piece":"FU"}}]}"#;
    let record = &gyoku_kifu::read_str(jkf, gyoku_kifu::Format::Jkf).unwrap()[0];
    let kif = gyoku_kifu::write(record, gyoku_kifu::Format::Kif);
    assert!(kif.contains("*|odd：x\n"), "{kif}");
    let back = &gyoku_kifu::read_str(&kif, gyoku_kifu::Format::Kif).unwrap()[0];
    assert_eq!(back.moves.len(), 1);
    assert_eq!(back.header("先手"), Some("a"));
}
