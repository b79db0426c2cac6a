"""Parses records with cshogi (PyPI), timed in-process, for gyoku-bench.

Usage: python3 cshogi_records.py FILE.json FORMAT   (FORMAT: csa or kif; the JSON holds a
list of record texts). cshogi's C++ CSA parser converts moves without checking them; its
KIF parser is Python. Prints {"records": R, "plies": P, "seconds": S}.
"""
import json
import sys
import time

import cshogi.CSA
import cshogi.KIF


def main():
    texts = json.load(open(sys.argv[1], encoding="utf-8"))
    parse = cshogi.CSA.Parser.parse_str if sys.argv[2] == "csa" else cshogi.KIF.Parser.parse_str
    start = time.perf_counter()
    plies = 0
    for text in texts:
        parsed = parse(text)
        if isinstance(parsed, list):
            parsed = parsed[0]
        plies += len(parsed.moves)
    seconds = time.perf_counter() - start
    print(json.dumps({"records": len(texts), "plies": plies, "seconds": seconds}))


if __name__ == "__main__":
    main()
