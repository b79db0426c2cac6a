"""Cross-checks Gyoku against cshogi (PyPI), an independent C++ implementation.

1. Every perft count in tests/data/perft/*.perft up to NODE_LIMIT is recounted with cshogi.
2. Random positions reached by cshogi's own random play: the legal moves cshogi generates
   equal `gyoku moves --json` for the same SFEN.

Usage: python3 .ci/cross_check.py PATH/TO/gyoku [POSITIONS]
Exit status 0 when everything agrees; prints the closing line "N passed, M failed".
"""
import glob
import json
import os
import random
import subprocess
import sys

import cshogi

NODE_LIMIT = 2_000_000
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def perft(board, depth):
    if depth == 1:
        return len(board.legal_moves)
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes


def perft_cases():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/perft/*.perft"))):
        sfen = None
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if line.startswith("sfen "):
                sfen = line[5:]
            elif line.startswith("perft "):
                depth, nodes = line[6:].split(";")[0].split()
                yield os.path.basename(path), sfen, int(depth), int(nodes)


def main():
    gyoku = sys.argv[1]
    positions = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    passed = failed = 0
    for name, sfen, depth, nodes in perft_cases():
        if nodes > NODE_LIMIT:
            continue
        got = perft(cshogi.Board(sfen), depth)
        if got == nodes:
            passed += 1
        else:
            failed += 1
            print(f"FAIL perft {name}: {sfen} depth {depth}: file {nodes}, cshogi {got}")

    rng = random.Random(20261122)
    starts = [sfen for _, sfen, _, _ in perft_cases()]
    starts = list(dict.fromkeys(starts))
    checked = 0
    while checked < positions:
        board = cshogi.Board(rng.choice(starts))
        for _ in range(rng.randrange(1, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        sfen = board.sfen()
        expected = sorted(cshogi.move_to_usi(m) for m in board.legal_moves)
        out = subprocess.run([gyoku, "moves", "--json", "--sfen", sfen], capture_output=True, text=True)
        if out.returncode != 0:
            failed += 1
            print(f"FAIL gyoku exited {out.returncode} on {sfen}: {out.stderr.strip()}")
        else:
            got = sorted(json.loads(out.stdout)["moves"])
            if got == expected:
                passed += 1
            else:
                failed += 1
                print(f"FAIL moves {sfen}: only gyoku {sorted(set(got) - set(expected))}, "
                      f"only cshogi {sorted(set(expected) - set(got))}")
        checked += 1
    print(f"cross-check: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
