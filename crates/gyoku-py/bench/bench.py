#!/usr/bin/env python3
"""`import gyoku` side by side with cshogi and python-shogi (PyPI), in one run:

- perft 3 from the start position, the tree walked from Python (push, legal moves, pop);
- replaying an archive: the same CSA records read and every move played;
- judging it: gyoku.judge (every ending rule, on every core) against the peers' read +
  replay + their own end test (is_game_over).

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


def perft_gyoku(b, depth):
    if depth == 0:
        return 1
    n = 0
    for m in b.legal_moves:
        b.push_usi(m)
        n += perft_gyoku(b, depth - 1)
        b.pop()
    return n


def perft_cshogi(b, depth):
    if depth == 0:
        return 1
    n = 0
    for m in b.legal_moves:
        b.push(m)
        n += perft_cshogi(b, depth - 1)
        b.pop()
    return n


def perft_python_shogi(b, depth):
    if depth == 0:
        return 1
    n = 0
    for m in list(b.legal_moves):
        b.push(m)
        n += perft_python_shogi(b, depth - 1)
        b.pop()
    return n


CSA_ROLE = {"P": "FU", "L": "KY", "N": "KE", "S": "GI", "G": "KI", "B": "KA", "R": "HI", "K": "OU",
            "+P": "TO", "+L": "NY", "+N": "NK", "+S": "NG", "+B": "UM", "+R": "RY"}


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
    t, n = best_of(lambda: perft_gyoku(gyoku.Board(), 3))
    rows.append(("perft 3 (Python loop)", "gyoku", t, n))
    t, n = best_of(lambda: perft_cshogi(cshogi.Board(), 3))
    rows.append(("perft 3 (Python loop)", "cshogi", t, n))
    t, n = best_of(lambda: perft_python_shogi(shogi.Board(), 3), runs=1)
    rows.append(("perft 3 (Python loop)", "python-shogi", t, n))

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

    def replay_cshogi():
        n = 0
        for s in texts:
            p = cshogi.Parser()
            p.parse_csa_str(s)
            board = cshogi.Board(p.sfen)
            for m in p.moves:
                board.push(m)
                n += 1
        return n

    def replay_python_shogi():
        n = 0
        for s in texts:
            [g] = shogi.CSA.Parser.parse_str(s)
            board = shogi.Board(g["sfen"])
            for m in g["moves"]:
                board.push_usi(m)
                n += 1
        return n

    for name, f, runs in (("gyoku", replay_gyoku, 3), ("cshogi", replay_cshogi, 3),
                          ("python-shogi", replay_python_shogi, 1)):
        t, n = best_of(f, runs)
        rows.append((f"read + replay {games} games", name, t, n))

    def judge_gyoku():
        return sum(1 for _ in gyoku.judge(blobs, rules="csa"))

    def judge_cshogi():
        n = 0
        for s in texts:
            p = cshogi.Parser()
            p.parse_csa_str(s)
            board = cshogi.Board(p.sfen)
            for m in p.moves:
                board.push(m)
            board.is_game_over()
            board.is_draw()
            n += 1
        return n

    def judge_python_shogi():
        n = 0
        for s in texts:
            [g] = shogi.CSA.Parser.parse_str(s)
            board = shogi.Board(g["sfen"])
            for m in g["moves"]:
                board.push_usi(m)
            board.is_game_over()
            n += 1
        return n

    for name, f, runs in (("gyoku", judge_gyoku, 3), ("cshogi", judge_cshogi, 3),
                          ("python-shogi", judge_python_shogi, 1)):
        t, n = best_of(f, runs)
        rows.append((f"judge {games} games", name, t, n))

    print(f"{games} games, {plies} plies; best of 3 runs (python-shogi: 1)")
    print("| task | library | seconds | count | vs gyoku |")
    print("|---|---|---|---|---|")
    base = {}
    for task, name, t, n in rows:
        base.setdefault(task, t)
        print(f"| {task} | {name} | {t:.3f} | {n:,} | {t / base[task]:.2f}× |")


if __name__ == "__main__":
    main()
