"""Training data labelled by the referee (issue 49, item 2): `gyoku.training.write` over the
repository's records, read back by cshogi (PyPI) position for position."""

import os

import pytest

import gyoku
import gyoku.training
from conftest import cshogi_or_skip as _cshogi, data

LABELS = {"black": 1, "white": 2, "draw": 0}


def _records():
    """The repository's record files that read."""
    found = []
    for kind in ("csa", "kif", "ki2", "usi", "jkf"):
        folder = data("records", kind)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            try:
                gyoku.read(path)
            except (ValueError, OSError):
                continue
            found.append(path)
    return found


def _full(board):
    """Whether the board holds the forty pieces, both kings among them (hcp needs them)."""
    codes = board.pieces
    kings = sum(1 for p in codes if p in (8, 24))
    return kings == 2 and sum(1 for p in codes if p) + sum(map(sum, board.pieces_in_hand)) == 40


def _written(verdicts):
    """What the binary forms write of judged games: for each game with a result, each
    position holding the forty pieces, as (verdict, board there, the move played)."""
    for v in verdicts:
        if v["result"] not in LABELS:
            continue
        b = gyoku.Board(v["start_sfen"], lenient=True)
        for m in v["moves"]:
            if _full(b):
                yield v, b, m
            try:
                b.push_usi(m)
            except ValueError:
                break


def test_hcpe_reads_back_in_cshogi_position_for_position(tmp_path):
    """Every position written is the one the game reached (cshogi's `set_hcp` reads it to
    the same SFEN), with the move played there (`move16`) and the result the referee
    judged; games whose judged result is not the recorded one are listed."""
    cshogi = _cshogi("hcpe read back by cshogi")
    import numpy as np

    files = _records()
    out = tmp_path / "games.hcpe"
    said = gyoku.training.write(files, out)
    verdicts = list(gyoku.judge(files, rules="jsa"))
    relabelled = {
        i for i, v in enumerate(verdicts)
        if v["result"] in LABELS and (v["recorded"] or {}).get("result") not in (None, v["result"])
    }
    expected = [(b.sfen().rsplit(" ", 1)[0], gyoku.move16(m), LABELS[v["result"]])
                for v, b, m in _written(verdicts)]
    entries = np.fromfile(out, dtype=cshogi.HuffmanCodedPosAndEval)
    assert len(entries) == said["positions"] == len(expected) > 50, said
    board = cshogi.Board()
    for e, (sfen, m16, label) in zip(entries, expected):
        board.set_hcp(np.asarray(e["hcp"]))
        assert board.sfen().rsplit(" ", 1)[0] == sfen
        assert (int(e["bestMove16"]), int(e["gameResult"]), int(e["eval"])) == (m16, label, 0), sfen
    assert {r["game"] for r in said["relabelled"]} == relabelled and relabelled, said["relabelled"]
    assert said["games"] + said["skipped_games"] == len(verdicts)


def test_psv_reads_back_in_cshogi_position_for_position(tmp_path):
    """YaneuraOu's PackedSfenValue: cshogi's `set_psfen` reads every position back to the
    game's, with the move, the game's ply and the result for the side to move."""
    cshogi = _cshogi("psv read back by cshogi")
    import numpy as np

    files = _records()
    out = tmp_path / "games.psv"
    said = gyoku.training.write(files, out, format="psv")
    expected = []
    for v, b, m in _written(gyoku.judge(files, rules="jsa")):
        won = 0 if v["result"] == "draw" else (1 if v["result"] == b.turn else -1)
        expected.append((b.sfen().rsplit(" ", 1)[0], gyoku.move16(m), b.move_number, won))
    entries = np.fromfile(out, dtype=cshogi.PackedSfenValue)
    assert len(entries) == said["positions"] == len(expected) > 50, said
    board = cshogi.Board()
    for e, (sfen, m16, ply, won) in zip(entries, expected):
        board.set_psfen(np.asarray(e["sfen"]))
        assert board.sfen().rsplit(" ", 1)[0] == sfen
        got = (int(e["move"]), int(e["gamePly"]), int(e["game_result"]), int(e["score"]))
        assert got == (m16, ply, won, 0), sfen


def test_sfen_text_is_the_psv_positions_and_every_other(tmp_path):
    """The plain text form holds every position the binary forms hold (and those of
    handicap games, which they cannot), six lines each, the same result for the side to
    move as psv's."""
    files = _records()
    said = gyoku.training.write(files, tmp_path / "games.txt", format="sfen")
    psv = gyoku.training.write(files, tmp_path / "games.psv", format="psv")
    lines = (tmp_path / "games.txt").read_text().split("\n")
    assert len(lines) == 6 * said["positions"] + 1 and said["skipped_positions"] == 0
    assert said["positions"] == psv["positions"] + psv["skipped_positions"]
    for k in range(0, len(lines) - 1, 6):
        sfen, move, score, ply, result, end = lines[k:k + 6]
        board = gyoku.Board(sfen[5:], lenient=True)
        assert board.is_legal(move[5:]) and score == "score 0" and end == "e"
        assert int(ply[4:]) == board.move_number and result[7:] in ("1", "-1", "0")


def test_training_write_refuses_what_it_cannot_write(tmp_path):
    with pytest.raises(ValueError, match="format"):
        gyoku.training.write([], tmp_path / "x", format="bin")
    with pytest.raises(ValueError, match="rules"):
        gyoku.training.write([], tmp_path / "x", rules="nope")
    with pytest.raises(ValueError):
        gyoku.training.write([b"not a record at all"], tmp_path / "x")
