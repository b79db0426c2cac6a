"""A USI engine for the tests, in Python: `python usi_fake.py MODE`.

MODE `ok` answers every `go` with the first legal move of the position (read with gyoku
itself) and one `info` line; `crash-N` exits at its Nth `go`; `hang` never answers a `go`
(it answers `stop`); `flood` writes `info` lines without end after a `go`; `mute` never says
`usiok`; `resign` resigns; `spawn-child PATH` starts a child that sleeps, writes its pid to
PATH, and hangs (the test checks the child goes with it).
"""

import subprocess
import sys

import gyoku


def main():
    mode = sys.argv[1]
    board = gyoku.Board()
    gos = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "usi":
            if mode == "mute":
                continue
            print("id name fake-" + mode)
            print("option name USI_Hash type spin default 16 min 1 max 1024")
            print("usiok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "position":
            sfen = "startpos" if words[1] == "startpos" else " ".join(words[2:6])
            board = gyoku.Board(None if sfen == "startpos" else sfen, lenient=True)
            if "moves" in words:
                for m in words[words.index("moves") + 1:]:
                    board.push_usi(m)
        elif words[0] == "go":
            gos += 1
            if mode.startswith("crash-") and gos >= int(mode.split("-")[1]):
                sys.exit(3)
            if mode == "spawn-child":
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
                with open(sys.argv[2], "w", encoding="utf-8") as f:
                    f.write(str(child.pid))
                continue
            if mode == "hang" or "infinite" in words:
                continue
            if mode == "flood":
                # Ten thousand lines a write: the flood is past any limit at once, even on
                # a machine whose cores are busy with other work.
                chunk = ("info depth 1 score cp 0 pv " + "7g7f " * 20 + "\n") * 10_000
                while True:
                    sys.stdout.write(chunk)
            answer(board, mode)
        elif words[0] == "stop":
            answer(board, mode)
        elif words[0] == "quit":
            return


def answer(board, mode):
    moves = board.legal_moves
    if mode == "resign" or not moves:
        print("bestmove resign", flush=True)
        return
    print(f"info depth 3 score cp 42 nodes 1000 pv {moves[0]}")
    print(f"bestmove {moves[0]}", flush=True)


if __name__ == "__main__":
    main()
