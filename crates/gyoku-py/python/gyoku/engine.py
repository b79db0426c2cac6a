"""Gyoku's built-in USI engine, for trying a GUI, a referee or `gyoku.match` without
installing one: `python -m gyoku.engine [--style greedy|random] [--seed N] [--crash-at N]`.

`greedy` plays a mate in one when it has one, else its best capture or promotion; `random`
any legal move; `--crash-at N` exits without answering its Nth `go` (for testing a
referee's handling of a crash)."""

import argparse

from ._gyoku import builtin_engine


def main(argv=None):
    """Reads the options and runs the engine on standard input and output."""
    parser = argparse.ArgumentParser(prog="python -m gyoku.engine", description=__doc__)
    parser.add_argument("--style", choices=["greedy", "random"], default="greedy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--crash-at", type=int, default=None)
    args = parser.parse_args(argv)
    builtin_engine(args.style, args.seed, args.crash_at)


if __name__ == "__main__":
    main()
