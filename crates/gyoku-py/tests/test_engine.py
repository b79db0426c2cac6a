"""gyoku.Engine: a USI engine driven from Python with the match runner's safety, against
the fake engine of usi_fake.py (each behaviour on demand: answers, crashes, hangs, floods,
silence, a child process of its own)."""

import os
import shlex
import sys
import time

import pytest

import gyoku

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "usi_fake.py")


def fake(*args):
    """The command line of the fake engine in MODE (and its other arguments)."""
    return " ".join(shlex.quote(a) for a in (sys.executable, FAKE, *args))


def wait_until(condition, seconds=10.0):
    """Polls CONDITION until it holds, for at most SECONDS; whether it held."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_an_engine_answers_with_what_its_info_said():
    with gyoku.Engine(fake("ok"), options={"USI_Hash": 64, "Ponder": False}) as engine:
        assert engine.name == "fake-ok"
        assert engine.option_names == ["USI_Hash"]
        engine.new_game()
        thought = engine.go(btime=1, wtime=1, byoyomi=1)
        assert thought.bestmove in gyoku.Board().legal_moves
        assert (thought.depth, thought.score_cp, thought.nodes) == (3, 42, 1000)
        assert thought.pv == [thought.bestmove] and thought.mate is None
        assert thought.info.startswith("info depth 3")
        # A Board, an SFEN with moves, a handicap's name: each the engine's position.
        board = gyoku.Board()
        board.push_usi("7g7f")
        assert engine.go(board, movetime=0.1).bestmove in board.legal_moves
        assert engine.go("startpos", ["7g7f"]).bestmove in board.legal_moves
        handicap = gyoku.Board("lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
        assert engine.go("bishop").bestmove in handicap.legal_moves
        assert repr(engine) == "Engine('fake-ok')"
    assert engine.closed and repr(engine) == "Engine(closed)"
    engine.quit()  # closing a closed engine does nothing


def test_an_infinite_search_ends_with_stop():
    with gyoku.Engine(fake("ok")) as engine:
        assert engine.go(infinite=True) is None
        with pytest.raises(ValueError, match="stop"):
            engine.go()
        assert engine.stop().bestmove in gyoku.Board().legal_moves
        with pytest.raises(ValueError, match="no search"):
            engine.stop()


def test_bad_arguments_are_value_errors_and_the_engine_goes_on():
    with gyoku.Engine(fake("ok")) as engine:
        with pytest.raises(ValueError, match="7g7x"):
            engine.go("startpos", ["7g7x"])
        with pytest.raises(ValueError, match="sfen"):
            engine.go("not a position")
        with pytest.raises(ValueError, match="btime"):
            engine.go(btime=-1)
        assert engine.go().bestmove


@pytest.mark.parametrize("mode,call,cause", [
    ("crash-2", "second go", "crash"),
    ("hang", "go", "hang"),
    ("flood", "go", "flood"),
])
def test_a_failing_engine_is_an_engine_error_and_is_closed(mode, call, cause):
    engine = gyoku.Engine(fake(mode))
    if call == "second go":
        assert engine.go(movetime=0.05).bestmove
    start = time.monotonic()
    with pytest.raises(gyoku.EngineError) as failure:
        engine.go(movetime=0.05, timeout=1.0)
    assert failure.value.cause == cause, failure.value
    assert time.monotonic() - start < 8
    assert engine.closed
    with pytest.raises(gyoku.EngineError) as failure:
        engine.go()
    assert failure.value.cause == "closed"


def test_an_engine_that_does_not_start_is_an_engine_error():
    with pytest.raises(gyoku.EngineError) as failure:
        gyoku.Engine("/nonexistent/usi-engine")
    assert failure.value.cause == "spawn"
    start = time.monotonic()
    with pytest.raises(gyoku.EngineError) as failure:
        gyoku.Engine(fake("mute"), timeout=0.5)
    assert failure.value.cause == "hang" and "usiok" in str(failure.value)
    assert time.monotonic() - start < 8


def test_an_engine_killed_takes_its_children_with_it(tmp_path):
    pid_file = tmp_path / "child.pid"
    engine = gyoku.Engine(fake("spawn-child", str(pid_file)))
    with pytest.raises(gyoku.EngineError):
        engine.go(movetime=0.05, timeout=1.0)
    assert wait_until(pid_file.exists)
    pid = int(pid_file.read_text())

    def gone():
        try:
            with open(f"/proc/{pid}/status", encoding="utf-8") as f:
                return any(line.startswith("State:") and "Z" in line for line in f)
        except FileNotFoundError:
            return True

    assert wait_until(gone), f"the engine's child {pid} outlived it"


def builtin(*args):
    """The command line of Gyoku's built-in engine (`python -m gyoku.engine`)."""
    return " ".join(shlex.quote(a) for a in (sys.executable, "-m", "gyoku.engine", *args))


def engine_children():
    """The pids of this process's children that run `gyoku.engine`."""
    me, found = os.getpid(), []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read()
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
        if parent == me and b"gyoku.engine" in command:
            found.append(int(pid))
    return found


def test_the_builtin_engine_answers_over_usi():
    with gyoku.Engine(builtin("--seed", "3")) as engine:
        assert engine.name == "Gyoku builtin (greedy)"
        assert "EnteringKingRule" in engine.option_names
        board = gyoku.Board("4k4/9/4P4/9/9/9/9/9/4K4 b G 1")
        thought = engine.go(board, byoyomi=1)
        assert (thought.bestmove, thought.mate) == ("G*5b", 1)


def test_a_match_goes_on_past_an_engine_that_crashes_in_the_middle(tmp_path):
    # The second engine exits without answering its 150th `go`: in game 2, after game 1
    # went to the move limit. It loses that game by crash, is started again, and the
    # match plays on.
    summary = gyoku.match(
        [builtin("--style", "random"),
         ("crashy", builtin("--style", "random", "--seed", "1", "--crash-at", "150"))],
        games=6, byoyomi="1s", out=tmp_path / "match")
    results = summary["results"]
    assert summary["engines"] == ["Gyoku builtin (random)", "crashy"]
    assert [r["game"] for r in results] == [1, 2, 3, 4, 5, 6]
    crashes = [r for r in results if r["reason"] == "crash"]
    assert crashes and all(r["winner"] == "engine1" for r in crashes)
    assert crashes[0]["game"] == 2 and crashes[0]["plies"] > 0
    assert any(r["reason"] != "crash" and r["game"] > 2 for r in results)
    assert summary["wins"][0] == len(crashes) and not summary["interrupted"]
    # Every game's record was written and judges, under the match's rules, to its result
    # (a crash recorded as the engine's illegal action); no engine is left.
    assert len(list((tmp_path / "match").glob("game-*.csa"))) == 6
    records = sorted(str(p) for p in (tmp_path / "match").glob("game-*.csa"))
    verdicts = list(gyoku.judge(records, rules="csa"))
    colour = {None: "draw"}
    assert [v["result"] for v in verdicts] == [
        colour.get(r["winner"], "black" if r["winner"] == r["black"] else "white")
        for r in results]
    assert all(v["agrees"] for v in verdicts)
    assert wait_until(lambda: not engine_children()), engine_children()


def test_a_match_refuses_what_it_cannot_play():
    with pytest.raises(ValueError, match="exactly two"):
        gyoku.match([builtin()])
    with pytest.raises(ValueError, match="rules"):
        gyoku.match([builtin(), builtin()], rules="no-such-rules")
    with pytest.raises(ValueError, match="time control"):
        gyoku.match([builtin(), builtin()], time="fast")
    with pytest.raises(ValueError):
        gyoku.match([builtin(), "/nonexistent/usi-engine"])
