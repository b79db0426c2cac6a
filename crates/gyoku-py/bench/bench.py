#!/usr/bin/env python3
"""`import gyoku` side by side with cshogi and python-shogi (PyPI), in one run:

- one call at a time, in a middle-game position: push + pop, the legal moves as a list,
  is_check, and reading `turn` (nanoseconds a call, best of 7 timeit runs);
- perft 3 from the start position, the tree walked from Python (push, legal moves, pop);
  Gyoku both with `move16` ints (`legal_moves_int`) and with USI strings;
- replaying an archive: the same CSA records read, a text per game, and every move
  played (Gyoku also from one file of every game);
- judging it: gyoku.judge (every ending rule, on every core, and on one thread) against
  the peers' read + replay + their own end test (is_game_over).

The archive is made here: games of random legal moves (seeded), written as CSA.
Usage: bench.py [GAMES]   (cshogi and python-shogi installed beside gyoku)
"""

import gc
import os
import random
import sys
import time
import timeit

# cshogi imports numpy, whose OpenBLAS threads otherwise spin beside the timed loops.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cshogi  # noqa: E402
import shogi  # noqa: E402
import shogi.CSA  # noqa: E402

import gyoku  # noqa: E402


def interleaved(cases):
    """The best time of each case `(name, f, runs)` over its runs, the cases taking turns
    run by run (so that a slow stretch of the machine falls on all of them alike): a list of
    `(name, seconds, count)`."""
    best = {}
    for r in range(max(runs for _, _, runs in cases)):
        for name, f, runs in cases:
            if r >= runs:
                continue
            gc.collect()  # each run starts from the same heap, whatever ran before it
            t = time.perf_counter()
            n = f()
            t = time.perf_counter() - t
            if name not in best or t < best[name][0]:
                best[name] = (t, n)
    return [(name, *best[name]) for name, _, _ in cases]


def perft(b, depth, push):
    """Leaves of the tree below `b`, walked with the library's own `push(b, move)`."""
    if depth == 0:
        return 1
    n = 0
    for m in list(b.legal_moves):
        push(b, m)
        n += perft(b, depth - 1, push)
        b.pop()
    return n


def per_call(position_sfen):
    """Nanoseconds a call for each library, in the same position and with the same move."""
    g, c, p = gyoku.Board(position_sfen), cshogi.Board(position_sfen), shogi.Board(position_sfen)
    usi = sorted(g.legal_moves)[len(g.legal_moves) // 2]
    g_int = gyoku.move16(usi)
    c_move = c.move_from_usi(usi)
    p_move = shogi.Move.from_usi(usi)

    def ns(stmt, env, number=100_000):
        return min(timeit.repeat(stmt, globals=env, number=number, repeat=7)) / number * 1e9

    rows = []
    for task, cases in (
        # Gyoku's push checks the move; the peers' push does not, unless asked first.
        ("push + pop", [("gyoku (move16 int)", "b.push(m); b.pop()", g, g_int),
                        ("gyoku (USI str)", "b.push(m); b.pop()", g, usi),
                        ("cshogi, unchecked", "b.push(m); b.pop()", c, c_move),
                        ("cshogi, checked (is_legal)", "b.is_legal(m) and b.push(m); b.pop()",
                         c, c_move),
                        ("python-shogi, unchecked", "b.push(m); b.pop()", p, p_move)]),
        ("legal moves as a list", [("gyoku (move16 int)", "b.legal_moves_int()", g, None),
                                   ("gyoku (USI str)", "b.legal_moves", g, None),
                                   ("cshogi", "list(b.legal_moves)", c, None),
                                   ("python-shogi", "list(b.legal_moves)", p, None)]),
        ("is_check", [("gyoku", "b.is_check()", g, None),
                      ("cshogi", "b.is_check()", c, None),
                      ("python-shogi", "b.is_check()", p, None)]),
        # An attribute read: the side to move (gyoku's a str, cshogi's an int).
        ("turn", [("gyoku", "b.turn", g, None),
                  ("cshogi", "b.turn", c, None),
                  ("python-shogi", "b.turn", p, None)]),
    ):
        for name, stmt, board, move in cases:
            number = 2_000 if name.startswith("python-shogi") else 100_000
            took = ns(stmt, {"b": board, "m": move}, number)
            rows.append((f"{task} (ns a call)", name, took, 0))
    return rows


def archive(games, seed=7):
    """CSA records of random games (to 150 plies or the end)."""
    rng = random.Random(seed)
    texts = []
    for _ in range(games):
        b = cshogi.Board()
        lines = ["V2.2", "N+a", "N-b", "PI", "+"]
        for _ in range(150):
            moves = list(b.legal_moves)
            if not moves:
                break
            m = rng.choice(moves)
            lines.append(("+" if b.turn == cshogi.BLACK else "-") + cshogi.move_to_csa(m))
            b.push(m)
        lines.append("%TORYO")
        texts.append("\n".join(lines) + "\n")
    return texts


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    texts = archive(games)
    # A middle-game position of the archive: the 40th of its first game's.
    middle = cshogi.Board()
    for line in texts[0].splitlines()[5:45]:
        middle.push_csa(line[1:])
    rows = per_call(middle.sfen())

    def perft_int(b, depth):
        if depth == 0:
            return 1
        n = 0
        for m in b.legal_moves_int():
            b.push(m)
            n += perft_int(b, depth - 1)
            b.pop()
        return n

    for name, t, n in interleaved([
            ("gyoku (move16 int)", lambda: perft_int(gyoku.Board(), 3), 7),
            ("gyoku (USI str)", lambda: perft(gyoku.Board(), 3, gyoku.Board.push_usi), 7),
            ("cshogi", lambda: perft(cshogi.Board(), 3, cshogi.Board.push), 7),
            ("python-shogi", lambda: perft(shogi.Board(), 3, shogi.Board.push), 1)]):
        rows.append(("perft 3 (Python loop)", name, t, n))

    blobs = [s.encode() for s in texts]
    plies = sum(t.count("\n+") + t.count("\n-") - 1 for t in texts)

    # Every library reads the games as the peers take them, a text per game; Gyoku also
    # reads them all from one CSA file (`/` between games), as a list of every record.
    archive_file = b"".join(b + b"/\n" for b in blobs)

    def replay(records):
        n = 0
        for r in records:
            board = gyoku.Board(r["start_sfen"])
            for m in r["moves"]:
                board.push_usi(m)
                n += 1
        return n

    def replay_gyoku():
        return replay(gyoku.read(b, format="csa")[0] for b in blobs)

    def replay_gyoku_one_file():
        return replay(gyoku.read(archive_file, format="csa"))

    def judge_gyoku(threads=None):
        return sum(1 for _ in gyoku.judge(blobs, rules="csa", threads=threads))

    # The peers read and replay; judging, they add their own end test.
    def cshogi_games(judge):
        n = 0
        for s in texts:
            p = cshogi.Parser()
            p.parse_csa_str(s)
            board = cshogi.Board(p.sfen)
            for m in p.moves:
                board.push(m)
                n += not judge
            if judge:
                board.is_game_over()
                board.is_draw()
                n += 1
        return n

    def python_shogi_games(judge):
        n = 0
        for s in texts:
            [g] = shogi.CSA.Parser.parse_str(s)
            board = shogi.Board(g["sfen"])
            for m in g["moves"]:
                board.push_usi(m)
                n += not judge
            if judge:
                board.is_game_over()
                n += 1
        return n

    for task, judging, mine in ((f"read + replay {games} games", False, replay_gyoku),
                                (f"judge {games} games", True, judge_gyoku)):
        peers = [("gyoku", mine, 5)]
        if judging:
            peers.append(("gyoku, 1 thread", lambda: judge_gyoku(threads=1), 5))
        else:
            peers.append(("gyoku, one file of every game", replay_gyoku_one_file, 5))
        peers += [("cshogi", lambda: cshogi_games(judging), 5),
                  ("python-shogi", lambda: python_shogi_games(judging), 1)]
        for name, t, n in interleaved(peers):
            rows.append((task, name, t, n))

    print(f"{games} games, {plies} plies; the libraries taking turns, best of 5 runs "
          f"(perft 7; python-shogi 1); per call: best of 7 timeit runs at {middle.sfen()}")
    print("| task | library | time | count | vs gyoku |")
    print("|---|---|---|---|---|")
    base = {}
    for task, name, t, n in rows:
        base.setdefault(task, t)
        timed_a_call = "ns a call" in task
        if timed_a_call:
            shown = f"{t:.1f} ns"
        else:
            shown = f"{t * 1000:.2f} ms" if t < 1 else f"{t:.2f} s"
        count = "" if timed_a_call else f"{n:,}"
        print(f"| {task} | {name} | {shown} | {count} | {t / base[task]:.2f}× |")


if __name__ == "__main__":
    main()
