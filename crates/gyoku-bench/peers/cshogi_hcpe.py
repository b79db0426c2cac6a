"""Writes cshogi's hcpe from CSA records, as a cshogi user does, timed in-process, for
gyoku-bench's `training`.

Usage: python3 cshogi_hcpe.py DIR OUT. Each DIR/*.csa is parsed (cshogi's C++ CSA parser,
which does not check the moves), replayed on a cshogi Board, and each position written
with the move played and the record's result (`parser.win`: 1 Black, 2 White, 0 a draw).
Prints {"games": G, "positions": P, "seconds": S}.
"""
import json
import os
import sys
import time

import numpy as np
import cshogi
import cshogi.CSA


def main():
    folder, out = sys.argv[1], sys.argv[2]
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".csa"))
    start = time.perf_counter()
    chunks, games = [], 0
    board = cshogi.Board()
    for path in files:
        for parser in cshogi.CSA.Parser.parse_file(path):
            entries = np.zeros(len(parser.moves), dtype=cshogi.HuffmanCodedPosAndEval)
            board.set_sfen(parser.sfen)
            for i, move in enumerate(parser.moves):
                board.to_hcp(entries[i]["hcp"])
                entries[i]["bestMove16"] = cshogi.move16(move)
                entries[i]["gameResult"] = parser.win
                board.push(move)
            chunks.append(entries)
            games += 1
    all_entries = np.concatenate(chunks)
    all_entries.tofile(out)
    seconds = time.perf_counter() - start
    print(json.dumps({"games": games, "positions": int(len(all_entries)), "seconds": seconds}))


if __name__ == "__main__":
    main()
