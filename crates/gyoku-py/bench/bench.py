#!/usr/bin/env python3
"""`import gyoku` side by side with cshogi and python-shogi (PyPI), in one run:

- perft 3 from the start position, the tree walked from Python (push, legal moves, pop);
- replaying an archive: the same CSA records read and every move played;
- judging it: gyoku.judge (every ending rule, on every core, and on one thread) against
  the peers' read + replay + their own end test (is_game_over).

The archive is made here: games of random legal moves (seeded), written as CSA.
Usage: bench.py [GAMES]   (cshogi and python-shogi installed beside gyoku)
"""

import random
import sys
import time

import cshogi
import shogi
import shogi.CSA

import gyoku


def best_of(f, runs=3):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        n = f()
        times.append(time.perf_counter() - t)
    return min(times), n


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
    rows = []
    for name, board, push, runs in (("gyoku", gyoku.Board, gyoku.Board.push_usi, 3),
                                    ("cshogi", cshogi.Board, cshogi.Board.push, 3),
                                    ("python-shogi", shogi.Board, shogi.Board.push, 1)):
        t, n = best_of(lambda: perft(board(), 3, push), runs)
        rows.append(("perft 3 (Python loop)", name, t, n))

    texts = archive(games)
    blobs = [s.encode() for s in texts]
    plies = sum(t.count("\n+") + t.count("\n-") - 1 for t in texts)

    def replay_gyoku():
        n = 0
        for r in gyoku.read(b"".join(b + b"/\n" for b in blobs), format="csa"):
            board = gyoku.Board(r["start_sfen"])
            for m in r["moves"]:
                board.push_usi(m)
                n += 1
        return n

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
        peers = [("gyoku", mine, 3)]
        if judging:
            peers.append(("gyoku, 1 thread", lambda: judge_gyoku(threads=1), 3))
        peers += [("cshogi", lambda: cshogi_games(judging), 3),
                  ("python-shogi", lambda: python_shogi_games(judging), 1)]
        for name, f, runs in peers:
            t, n = best_of(f, runs)
            rows.append((task, name, t, n))

    print(f"{games} games, {plies} plies; best of 3 runs (python-shogi: 1)")
    print("| task | library | seconds | count | vs gyoku |")
    print("|---|---|---|---|---|")
    base = {}
    for task, name, t, n in rows:
        base.setdefault(task, t)
        print(f"| {task} | {name} | {t:.3f} | {n:,} | {t / base[task]:.2f}× |")


if __name__ == "__main__":
    main()
