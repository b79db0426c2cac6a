"""`import gyoku`: each function, and the endings the CLI's tests pin."""

import os

import pytest

import gyoku

NIFU_SFEN = "lnsgkgsnl/1r5b1/pppp1pppp/9/9/4P4/PPPP1PPPP/1B5R1/LNSGKGSNL b P 1"
DECLARE_SFEN = "8R/4K3B/GGGGSSSS1/nnnn5/pppppppp1/llll5/9/r7b/4k4 b 10P 1"
KIF = ("手合割：平手\n手数----指手---------消費時間--\n"
       "   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　銀(31)\n   5 投了\n")
NIFU_CSA = "PI13FU\nP+00FU\n+\n+7776FU\n-8384FU\n+2726FU\n-8485FU\n+0025FU\n%TORYO\n"
SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "data")


def test_board_moves_and_takes_back():
    b = gyoku.Board()
    assert len(b.legal_moves) == 30 and b.turn == "black"
    start = b.zobrist_hash()
    b.push_usi("7g7f")
    assert b.sfen() == "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
    assert b.moves == ["7g7f"] and b.turn == "white"
    assert b.pop() == "7g7f" and b.zobrist_hash() == start
    with pytest.raises(IndexError):
        b.pop()
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
    assert e.value.kind == "nifu" and "nifu" in str(e.value)
    assert isinstance(e.value, ValueError)
    with pytest.raises(ValueError, match="move '7g7'"):
        b.push_usi("7g7")
    assert gyoku.Board().check_move("P*5e") == "not_in_hand"


def test_check_and_mate():
    # Black's gold on 5b, protected by the pawn on 5c: mate.
    b = gyoku.Board("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1")
    assert b.is_check() and b.is_game_over()
    assert not gyoku.Board().is_game_over()


def test_bad_sfen_says_where():
    with pytest.raises(ValueError, match="sfen:"):
        gyoku.Board("9/9 b")
    assert gyoku.Board("2-piece").turn == "white"


def test_game_endings_under_each_rule_set():
    g = gyoku.Game(rules="jsa")
    assert g.outcome is None
    g.move("7g7f")
    g.resign("white")
    assert g.outcome["result"] == "black" and g.outcome["reason"] == "resignation"
    with pytest.raises(gyoku.GameError) as e:
        g.move("3c3d")
    assert e.value.code == "game_over"
    # A declaration from one position: a win under csa (28 for Black), a no-contest
    # under jsa (24-30 points are replayed).
    for rules, result in (("csa", "black"), ("jsa", "no_contest")):
        g = gyoku.Game(rules=rules, sfen=DECLARE_SFEN)
        g.declare()
        assert (g.outcome["result"], g.outcome["reason"]) == (result, "declaration"), rules
        assert g.outcome["detail"]["count"]["declaration_points"] == 28
    # Tournament rules: the nifu loses; friendly (lishogi): refused.
    g = gyoku.Game(rules="jsa", sfen=NIFU_SFEN)
    g.move("P*5e")
    assert g.outcome["reason"] == "illegal_move" and g.outcome["detail"]["foul"] == "nifu"
    g = gyoku.Game(rules="lishogi", sfen=NIFU_SFEN)
    with pytest.raises(gyoku.IllegalMoveError):
        g.move("P*5e")
    assert g.outcome is None
    # Sennichite: jsa replays it, csa draws it.
    for rules, result in (("jsa", "no_contest"), ("csa", "draw")):
        g = gyoku.Game(rules=rules)
        for _ in range(3):
            for m in ("5i4h", "5a6b", "4h5i", "6b5a"):
                g.move(m)
        assert g.outcome["reason"] == "sennichite" and g.outcome["result"] == result, rules
        assert g.outcome["ply"] == 12
    # The move limit of the game's own.
    g = gyoku.Game(rules="csa", max_moves=2)
    g.move("7g7f")
    g.move("3c3d")
    assert g.outcome["reason"] == "move_limit"
    with pytest.raises(ValueError, match="rules:"):
        gyoku.Game(rules="chess")


def test_agreement_needs_the_rule():
    both = "K8/9/9/9/9/9/9/9/8k b RB2G2S2N2L9Prb2g2s2n2l9p 1"
    g = gyoku.Game(rules="jsa", sfen=both)
    g.agree()
    assert g.outcome["reason"] == "impasse_agreement" and g.outcome["result"] == "no_contest"
    with pytest.raises(gyoku.GameError) as e:
        gyoku.Game(rules="csa", sfen=both).agree()
    assert e.value.code == "no_agreement_rule"


def test_impasse_calculator():
    r = gyoku.impasse()
    assert r["black"]["total_points"] == 27 and not r["black"]["entered"]
    assert set(gyoku.presets()) <= set(r["verdicts"])
    r = gyoku.impasse(DECLARE_SFEN)
    assert r["black"]["entered"] and r["black"]["zone_count"] == 10
    assert r["verdicts"]["csa"]["declaration"] == "win"
    r = gyoku.impasse("startpos", ["7g7f", "3c3d"])
    assert r["sfen"].endswith(" b - 3")
    with pytest.raises(gyoku.IllegalMoveError):
        gyoku.impasse("startpos", ["7g7f", "7g7f"])


def test_read_any_format_and_encoding(tmp_path):
    [r] = gyoku.read(KIF.encode("shift_jis"))
    assert r["moves"] == ["7g7f", "3c3d", "8h2b+", "3a2b"] and r["end"] == "resignation"
    path = tmp_path / "nifu.csa"
    path.write_text(NIFU_CSA)
    [r] = gyoku.read(str(path))
    assert r["foul"] == {"ply": 5, "move": "P*2e", "kind": "nifu"}
    [r] = gyoku.read(path, format="csa")
    assert len(r["moves"]) == 4
    with pytest.raises(ValueError, match="unknown record format"):
        gyoku.read(b"this is not a record\n")
    with pytest.raises(OSError):
        gyoku.read(str(tmp_path / "missing.kif"))
    with pytest.raises(ValueError, match="format:"):
        gyoku.read(b"", format="pgn")


def test_judge_many_on_threads(tmp_path):
    path = tmp_path / "nifu.csa"
    path.write_text(NIFU_CSA)
    results = list(gyoku.judge([KIF.encode("shift_jis"), str(path)] * 10, rules="csa", threads=4))
    assert len(results) == 20
    kif, nifu = results[0], results[1]
    assert (kif["result"], kif["reason"], kif["agrees"]) == ("white", "resignation", True)
    assert nifu["reason"] == "illegal_move" and nifu["foul"]["kind"] == "nifu"
    assert all(r == kif for r in results[0::2]) and all(r == nifu for r in results[1::2])
    [one] = gyoku.judge(KIF.encode("shift_jis"))
    assert one["reason"] == "resignation"


@pytest.mark.skipif(not os.path.isdir(SHARED), reason="../shared/data is not here")
def test_shared_records_judge_as_the_cli_does():
    files = []
    for root, _, names in os.walk(SHARED):
        files += [os.path.join(root, n) for n in names if n.endswith((".kif", ".csa", ".ki2"))]
    files = sorted(files)[:200]
    assert files
    judged = 0
    for f in files:
        try:
            judged += len(list(gyoku.judge(f)))
        except ValueError:
            pass  # a broken record in the shared data is a clear error, never a crash
    assert judged > 0


def resident_kib():
    """This process's resident memory now (Linux), KiB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def test_judging_streams_in_bounded_memory():
    """100,000 records judged from a generator: verdicts come a batch at a time, so the
    process grows by a batch, not by the archive (kept whole, their dicts alone would take
    hundreds of MiB)."""
    blob = KIF.encode("shift_jis")
    # Warm up: allocator and module state settle.
    assert sum(1 for _ in gyoku.judge((blob for _ in range(2_000)), threads=2)) == 2_000
    start = peak = resident_kib()
    count = 0
    for v in gyoku.judge((blob for _ in range(100_000)), rules="jsa", threads=2):
        count += 1
        assert v["reason"] == "resignation"
        if count % 5_000 == 0:
            peak = max(peak, resident_kib())
    print(f"100,000 records judged; resident {start} KiB at the start, {peak} KiB at most")
    assert count == 100_000
    assert peak - start < 32 * 1024, (start, peak)
    # A source that cannot be read raises at its place, after the verdicts before it.
    it = gyoku.judge([blob, b"not a record", blob])
    assert next(it)["reason"] == "resignation"
    with pytest.raises(ValueError):
        next(it)
