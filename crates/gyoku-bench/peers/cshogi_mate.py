"""cshogi's mate searches (PyPI), timed in-process, for `gyoku-bench mate`.

Usage: python3 cshogi_mate.py TABLE NODES ROUNDS [BATCH]
TABLE is tests/data/mate/positions.tsv (sfen, answer, ...). For every row: the median over
ROUNDS rounds of the time of one call of `mate_move_in_1ply()` and of `mate_move(3)`, each
round timing BATCH calls (default 1) and dividing, and the same of `is_check()` ("call"):
what calling a method that does next to nothing costs from Python, which the caller
subtracts to compare with a search called natively; for rows whose answer is
`mate` (longer than three plies), one `DfPn` search of at most NODES nodes, its time,
nodes and whether it found the mate. Prints one JSON line: {"version", "rows": [...]}.
"""
import importlib.metadata
import json
import statistics
import sys
import time

import cshogi


def median_seconds(call, rounds, batch):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(batch):
            call()
        times.append((time.perf_counter() - start) / batch)
    return statistics.median(times)


def main():
    path, nodes, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    batch = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            sfen, answer = line.rstrip("\n").split("\t")[:2]
            board = cshogi.Board(sfen)
            row = {"sfen": sfen, "answer": answer,
                   "one": median_seconds(board.mate_move_in_1ply, rounds, batch),
                   "three": median_seconds(lambda: board.mate_move(3), rounds, batch),
                   "call": median_seconds(board.is_check, rounds, batch)}
            if answer == "mate":
                dfpn = cshogi.DfPn()
                dfpn.set_max_search_node(nodes)
                start = time.perf_counter()
                found = dfpn.search(board)
                row["dfpn"] = {"seconds": time.perf_counter() - start,
                               "nodes": dfpn.searched_node, "found": bool(found)}
            rows.append(row)
    print(json.dumps({"version": importlib.metadata.version("cshogi"), "rows": rows}))


if __name__ == "__main__":
    main()
