"""gyoku.Board: positions, moves, fouls named, repetitions, the calculator."""

import os

import pytest

import gyoku
from conftest import data, shared

NIFU_SFEN = "lnsgkgsnl/1r5b1/pppp1pppp/9/9/4P4/PPPP1PPPP/1B5R1/LNSGKGSNL b P 1"


def test_board_moves_and_takes_back():
    b = gyoku.Board()
    assert len(b.legal_moves) == 30 and b.turn == "black" and b.move_number == 1
    start = b.zobrist_hash()
    b.push_usi("7g7f")
    assert b.sfen() == "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
    assert b.moves == ["7g7f"] and b.turn == "white" and b.peek() == "7g7f"
    b.push("3c3d")  # cshogi's name
    c = b.copy()
    assert b.pop() == "3c3d" and b.pop() == "7g7f" and b.zobrist_hash() == start
    assert c.moves == ["7g7f", "3c3d"], "a copy is independent"
    with pytest.raises(IndexError):
        b.pop()
    with pytest.raises(IndexError):
        b.peek()
    assert repr(b).startswith("gyoku.Board('lnsgkgsnl/")


def test_transpositions_hash_the_same():
    a, b = gyoku.Board(), gyoku.Board()
    for m in ("7g7f", "3c3d", "2g2f"):
        a.push_usi(m)
    for m in ("2g2f", "3c3d", "7g7f"):
        b.push_usi(m)
    assert a.zobrist_hash() == b.zobrist_hash() and a.sfen() == b.sfen()


def test_illegal_moves_are_named():
    b = gyoku.Board(NIFU_SFEN)
    assert b.check_move("P*5e") == "nifu"
    assert b.check_move("5f5e") is None
    assert not b.is_legal("P*5e") and b.is_legal("5f5e") and not b.is_legal("nonsense")
    with pytest.raises(gyoku.IllegalMoveError) as e:
        b.push_usi("P*5e")
    assert e.value.kind == "nifu" and isinstance(e.value, ValueError)
    assert str(e.value) == "'P*5e' is illegal: nifu (a pawn dropped on a file with the mover's unpromoted pawn)"
    assert b.moves == [], "a refused move changes nothing"
    # The CLI's words: `gyoku moves --moves 7g7x` says the same after its option's name.
    with pytest.raises(ValueError) as e:
        b.push_usi("7g7x")
    assert str(e.value) == "usi move '7g7x': bad rank 'x' at column 4 (expected a-i)"
    assert gyoku.Board().check_move("P*5e") == "not_in_hand"


def test_legality_table_of_the_rules_core():
    """tests/data/legality/moves.tsv, the table the Rust core's legality tests read."""
    count = 0
    with open(data("legality", "moves.tsv"), encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            sfen, move, expected = line.rstrip("\n").split("\t")[:3]
            b = gyoku.Board(sfen, lenient=True)
            got = b.check_move(move)
            assert (got or "legal") == expected, (sfen, move)
            assert b.is_legal(move) == (expected == "legal")
            count += 1
    assert count >= 20


def test_check_and_mate():
    # Black's gold on 5b, protected by the pawn on 5c: mate.
    b = gyoku.Board("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1")
    assert b.is_check() and b.is_game_over() and b.legal_moves == []
    assert not gyoku.Board().is_game_over()


def test_bad_sfen_says_what_and_where():
    with pytest.raises(ValueError) as e:
        gyoku.Board("9/9 b")
    assert str(e.value) == "sfen: field 1 (board): 2 ranks instead of 9"
    with pytest.raises(ValueError) as e:
        gyoku.Board("4k4/9/9/9/9/9/9/9/9 b - 1")
    assert str(e.value).startswith("sfen: illegal position: missing king (lenient=True accepts")
    # A tsume problem has no Black king: lenient takes it.
    b = gyoku.Board("4k4/9/9/9/9/9/9/9/9 b G 1", lenient=True)
    assert "G*5b" in b.legal_moves
    assert gyoku.Board("2-piece").turn == "white"


def test_repetitions_count_earlier_occurrences():
    b = gyoku.Board()
    assert b.repetitions() == 0
    for i in range(1, 4):
        for m in ("5i4h", "5a6b", "4h5i", "6b5a"):
            b.push_usi(m)
        assert b.repetitions() == i
    b.push_usi("7g7f")
    assert b.repetitions() == 0


def test_board_impasse_counts_from_its_first_position():
    b = gyoku.Board("2-piece")
    r = b.impasse()
    assert r["handicap_credit"] == 10 and r["white"]["total_points"] == 27
    b.push_usi("3c3d")
    assert b.impasse()["handicap_credit"] == 10 and b.impasse()["sfen"] == b.sfen()


def test_every_move_string_round_trips():
    """Move strings are made once per move and shared: over real games, every legal
    move's string reads back as itself, and no two moves share one."""
    path = shared("usi/usi_games_lishogi_500.txt", "move strings over 40 real lishogi games")
    with open(path, encoding="utf-8") as f:
        games = [line.split() for line in f if line.strip()][:40]
    seen = set()
    for moves in games:
        b = gyoku.Board()
        for played in moves:
            legal = b.legal_moves
            assert len(set(legal)) == len(legal)
            for m in legal:
                b.push_usi(m)
                assert b.pop() == m
            seen.update(legal)
            b.push_usi(played)
    assert len(seen) > 2000
