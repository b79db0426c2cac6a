"""Replays games with cshogi (PyPI), timed in-process, for gyoku-bench.

Usage: python3 cshogi_replay.py FILE   (one game per line: USI moves from the start position)
Per ply, as shared/reference/perf-anchors.md §4 measured cshogi: parse the USI move,
`is_legal`, `push`, and the repetition check `is_draw()`; at the end `is_game_over()`.
Prints one JSON line: {"games": G, "plies": P, "seconds": S}.
"""
import json
import sys
import time

import cshogi


def main():
    games = [line.split() for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
    board = cshogi.Board()
    start = time.perf_counter()
    plies = 0
    for moves in games:
        board.reset()
        for usi in moves:
            move = board.move_from_usi(usi)
            if not board.is_legal(move):
                raise SystemExit(f"illegal move {usi}")
            board.push(move)
            board.is_draw()
            plies += 1
        board.is_game_over()
    seconds = time.perf_counter() - start
    print(json.dumps({"games": len(games), "plies": plies, "seconds": seconds}))


if __name__ == "__main__":
    main()
