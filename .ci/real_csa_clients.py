#!/usr/bin/env python3
"""Real CSA clients that nobody here wrote play whole games on `gyoku serve`:

- shogi-server's USI-to-CSA bridge (`bin/usiToCsa.rb`, Ruby) driving gpsusi against
  Fairy-Stockfish (Debian packages);
- python-shogi's `shogi.CSA.TCPProtocol` (PyPI), two clients playing random legal moves.

Then every record file the server wrote is judged again by `gyoku judge` and must agree
with the result the server stored. Usage: real_csa_clients.py GYOKU_BINARY
(run with a Python that has python-shogi; ruby and the engines must be installed).
"""

import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time

import shogi
import shogi.CSA

from procs import free_port, scratch_dir

MAX_MOVES = 120
HERE = os.path.dirname(os.path.abspath(__file__))
BRIDGE = os.path.join(HERE, "..", "..", "shared", "peers", "shogi-server", "bin", "usiToCsa.rb")


def python_shogi_player(port, name, game, seed, results):
    """One python-shogi client: CSA-mode login with the game name, random legal moves."""
    rng = random.Random(seed)
    tcp = shogi.CSA.TCPProtocol("127.0.0.1", port)
    tcp.login(name, f"{game},pw{seed}")
    summary = tcp.wait_match()
    me = summary["my_color"]
    board = shogi.Board(summary["summary"]["sfen"])
    tcp.agree()  # reads START
    ends = (shogi.CSA.WIN, shogi.CSA.LOSE, shogi.CSA.DRAW, shogi.CSA.CENSORED)
    while True:
        over = board.is_game_over() or board.is_fourfold_repetition() or \
            len(board.move_stack) >= MAX_MOVES
        if board.turn == me and not over:
            move = rng.choice(list(board.legal_moves))
            if move.from_square is None:
                piece = move.drop_piece_type
            else:
                piece = board.piece_type_at(move.from_square)
                if move.promotion:
                    piece = shogi.PIECE_PROMOTED[piece]
            # `move` sends the move and reads one line: the echo (or, if the game was
            # already over, an end line).
            echo = tcp.move(piece, me, move)
            if echo.startswith("##["):
                # python-shogi cannot read a server notice, and a CSA-mode player is sent
                # none (issue 43: the storage notice goes to x1 players only).
                raise RuntimeError(f"{name}: a notice reached a CSA-mode player: {echo[:80]}")
            if echo.startswith("#"):
                message = shogi.CSA.SERVER_MESSAGE_SYMBOLS.index(echo[1:])
                if message in ends:
                    results[name] = echo[1:]
                    return
                continue
            board.push(move)
            continue
        line = tcp.read_line()
        if line.startswith("##["):
            raise RuntimeError(f"{name}: a notice reached a CSA-mode player: {line[:80]}")
        color, usi, _, message = tcp.parse_server_message(line, board)
        if message is not None:
            if message in ends:
                results[name] = shogi.CSA.SERVER_MESSAGE_SYMBOLS[message]
                return
            continue
        board.push(shogi.Move.from_usi(usi))


def main():
    gyoku = os.path.abspath(sys.argv[1])
    work = scratch_dir("gyoku-real-clients-")
    port = free_port()
    server = subprocess.Popen(
        [gyoku, "serve", "--csa", f"127.0.0.1:{port}", "--http", "off", "--data-dir", work,
         "--max-moves", str(MAX_MOVES)],
        stderr=subprocess.PIPE, text=True)
    first = server.stderr.readline()
    print(first.strip())
    assert "CSA protocol on" in first, first
    procs = []
    try:
        bridge_logs = []
        for name, engine in (("gps", "/usr/games/gpsusi"), ("fsf", "/usr/games/fairy-stockfish")):
            log = open(os.path.join(work, f"{name}.out"), "w")
            bridge_logs.append(log)
            procs.append(subprocess.Popen(
                ["ruby", BRIDGE, "--host", "127.0.0.1", "--port", str(port), "--id", name,
                 "--password", f"pw-{name}", "--gamename", "usi-0-1", "--log-dir", work, engine],
                stdout=log, stderr=subprocess.STDOUT, cwd=work, start_new_session=True))
        results = {}
        threads = [threading.Thread(target=python_shogi_player,
                                    args=(port, name, "pysh-600-0", seed, results))
                   for name, seed in (("pyA", 1), ("pyB", 2))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        print(f"python-shogi clients: {results}")
        assert len(results) == 2, "a python-shogi client did not finish"
        # The bridge does not always exit after its game (it waits on its engine): wait
        # for the server to have stored both games as finished, then stop the bridges.
        deadline = time.time() + 300
        db_path = os.path.join(work, "gyoku.sqlite3")
        while time.time() < deadline:
            with sqlite3.connect(db_path) as db:
                done = db.execute("SELECT COUNT(*) FROM games WHERE status = 'finished'").fetchone()[0]
            if done >= 2:
                break
            time.sleep(1)
        time.sleep(1)
        for name in ("gps", "fsf"):
            with open(os.path.join(work, f"{name}.out")) as f:
                tail = [l.strip() for l in f if l.startswith("#")]
            print(f"usiToCsa {name}: {' '.join(tail)}")
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, 9)  # the bridge and its engine
                p.wait()
        server.terminate()
        server.wait(timeout=30)

    db = sqlite3.connect(os.path.join(work, "gyoku.sqlite3"))
    rows = db.execute("SELECT id, status, result, reason, record_path FROM games").fetchall()
    assert len(rows) == 2, rows
    failures = 0
    for gid, status, result, reason, path in rows:
        moves = db.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (gid,)).fetchone()[0]
        record = os.path.join(work, "records", path)
        out = subprocess.run([gyoku, "judge", "--json", "--max-moves", str(MAX_MOVES), record],
                             capture_output=True, text=True)
        judged = json.loads(out.stdout)
        agree = status == "finished" and judged["result"] == result
        failures += not agree
        print(f"{gid}: {moves} moves, stored {result} ({reason}), judged again "
              f"{judged['result']} ({judged['reason']}): {'agree' if agree else 'DISAGREE'}")
    if failures:
        sys.exit(f"{failures} records disagree with the stored results")
    print("real CSA clients: 2 games played on gyoku serve, every record judges to its stored result")


if __name__ == "__main__":
    main()
