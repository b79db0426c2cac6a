//! KI2 move notation, written and read, against the 30 disambiguation cases of cshogi's tests (shared data,
//! read in place). Spacing after 同 follows tsshogi (`同　銀`), so it is compared without the
//! full-width space. Where cshogi and tsshogi disagree on a qualifier (`６八銀右` vs
//! `６八銀右引`), Gyoku follows the JSA rule, as tsshogi does: 引 is shared with the silver on
//! 7g and 右 with the silver on 5i (same file), so only 右引 is unique.

use gyoku::{Move, Position};
use gyoku_kifu::ki2::{move_notation, read_move};

#[test]
fn cshogi_relative_cases() {
    let Some(path) = gyoku_testdata::shared(
        "ki2/cshogi_ki2_relative.tsv",
        "KI2 notation on cshogi's 30 disambiguation cases (右 左 直 上 寄 引 打 同)",
    ) else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (sfen, pre, usi, expected, name) = (cols[0], cols[1], cols[2], cols[3], cols[4]);
        let mut pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut previous = None;
        for m in pre.split_whitespace() {
            let m: Move = m.parse().unwrap();
            pos.play(m).unwrap_or_else(|e| panic!("{name}: {m}: {e}"));
            previous = Some(m.to());
        }
        let expected = if name == "test_move_to_ki2_dragon_pull_motion" {
            cols[5]
        } else {
            expected
        };
        let got = move_notation(&pos, usi.parse().unwrap(), previous).replace('　', "");
        assert_eq!(got, expected.replace('　', ""), "{name}: {usi} in {sfen}");
        // Read back: cshogi's text and tsshogi's (where they differ) name the same move.
        for text in [cols[3], cols[5]] {
            let read = read_move(&pos, text, previous)
                .unwrap_or_else(|e| panic!("{name}: reading '{text}': {e}"));
            assert_eq!(read.to_string(), usi, "{name}: reading '{text}'");
        }
        checked += 1;
    }
    assert_eq!(checked, 30);
}
