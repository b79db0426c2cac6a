"""Bulk perft with cshogi (PyPI), timed in-process, for gyoku-bench.

Usage: python3 cshogi_perft.py SFEN DEPTH
Prints one JSON line: {"nodes": N, "seconds": S, "version": V}.
Recursion in Python with push/pop; the last ply is counted with len(legal_moves), as
shared/reference/perf-anchors.md measured it.
"""
import json
import sys
import time

import cshogi


def perft(board, depth):
    if depth == 1:
        return len(board.legal_moves)
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes


def main():
    sfen, depth = sys.argv[1], int(sys.argv[2])
    board = cshogi.Board(sfen)
    perft(board, 1)  # warm-up
    start = time.perf_counter()
    nodes = perft(board, depth)
    seconds = time.perf_counter() - start
    print(json.dumps({"nodes": nodes, "seconds": seconds, "version": cshogi.__version__ if hasattr(cshogi, "__version__") else "?"}))


if __name__ == "__main__":
    main()
