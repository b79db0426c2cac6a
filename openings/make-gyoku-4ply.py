#!/usr/bin/env python3
"""Writes openings/gyoku-4ply.sfen: every position after four plies of ordinary opening
moves (each side's first two moves from a short list of what players open with), one
bare SFEN line each, transpositions once, in a fixed order.

    python3 openings/make-gyoku-4ply.py target/release/gyoku > openings/gyoku-4ply.sfen

The positions are ours (made by this script, MIT like the rest of the repository)."""

import json
import subprocess
import sys

BLACK = ["7g7f", "2g2f", "5g5f", "6g6f", "6i7h", "4i5h"]
WHITE = ["3c3d", "8c8d", "5c5d", "4c4d", "4a3b", "6a5b"]


def main():
    gyoku = sys.argv[1]
    seen = set()
    for b1 in BLACK:
        for w1 in WHITE:
            for b2 in BLACK:
                for w2 in WHITE:
                    if b1 == b2 or w1 == w2:
                        continue
                    moves = f"{b1} {w1} {b2} {w2}"
                    out = subprocess.run(
                        [gyoku, "judge", "--moves", moves, "--rules", "csa", "--json"],
                        capture_output=True, text=True, check=True)
                    verdict = json.loads(out.stdout)
                    if verdict["result"] is not None or verdict["ply"] != 4:
                        continue
                    # The move number says nothing about the position: every line is move 5.
                    sfen = verdict["sfen"]
                    key = " ".join(sfen.split()[:3])
                    if key not in seen:
                        seen.add(key)
                        print(sfen)


if __name__ == "__main__":
    main()
