#!/usr/bin/env python3
"""gpsusi and Fairy-Stockfish (Debian) play each other through two `gyoku csa-client`
processes, first on shogi-server itself (../shared/peers/shogi-server, Ruby), then on
`gyoku serve`; Fairy-Stockfish ponders (after the echo on shogi-server, early on gyoku
serve). Every record written (each client's KIF and CSA, and the server's own record) is
judged again by `gyoku judge` and must give the result the server announced; neither client
may report a disagreement between the server and the rules.

Usage: csa_client_peers.py GYOKU_BINARY (ruby and the engines must be installed).
"""

import glob
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time

from procs import free_port, stop, scratch_dir, wait_for_port

MAX_MOVES = 60
GAME = "peers-10-1"  # 10 s each, then 1 s a move
HERE = os.path.dirname(os.path.abspath(__file__))
SHOGI_SERVER = os.path.join(HERE, "..", "..", "shared", "peers", "shogi-server")
ENGINES = (("gps", "/usr/games/gpsusi", []),
           ("fsf", "/usr/games/fairy-stockfish", ["--ponder"]))


def judged(gyoku, path):
    out = subprocess.run([gyoku, "judge", "--json", "--max-moves", str(MAX_MOVES), path],
                         capture_output=True, text=True, timeout=60)
    if out.returncode not in (0, 1):
        sys.exit(f"gyoku judge {path} failed: {out.stderr}")
    return json.loads(out.stdout)  # one file: one object


def play(gyoku, server_name, port, work, extra):
    """Two clients play one game; returns their results.jsonl lines."""
    clients = []
    for name, engine, flags in ENGINES:
        flags = extra if name == "fsf" and extra is not None else flags
        out = os.path.join(work, name)
        log = open(os.path.join(work, f"{name}.log"), "w")
        cmd = [gyoku, "csa-client", "--engine", engine, "--host", "127.0.0.1",
               "--port", str(port), "--id", f"{name}", "--password", f"pw-{name}",
               "--game", GAME, "--games", "1", "--out", out] + flags
        print(f"[{server_name}] {' '.join(cmd[1:])}", flush=True)
        clients.append((name, out, log, subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)))
    lines = []
    try:
        for name, out, log, proc in clients:
            try:
                code = proc.wait(timeout=400)
            except subprocess.TimeoutExpired:
                sys.exit(f"[{server_name}] the {name} client did not finish in 400 s")
            log.close()
            with open(log.name) as f:
                text = f.read()
            print(text.rstrip())
            if code != 0:
                sys.exit(f"[{server_name}] the {name} client exited with {code}")
            with open(os.path.join(out, "results.jsonl")) as f:
                lines.append((name, out, json.loads(f.readline())))
    finally:
        for _, _, _, proc in clients:
            stop(proc)
    return lines


def winner(me, result):
    """The winner the server announced to the client playing `me`."""
    other = "white" if me == "black" else "black"
    return {"#WIN": me, "#LOSE": other}.get(result, "draw")


def check(gyoku, server_name, lines, server_records):
    failures = 0
    announced = {winner(r["me"], r["result"]) for _, _, r in lines}
    if len(announced) != 1:
        print(f"[{server_name}] the two clients heard different results: {announced}")
        return 1
    (announced,) = announced
    reason = lines[0][2]["reason"]
    print(f"[{server_name}] {lines[0][2]['game_id']}: {lines[0][2]['plies']} plies, "
          f"server: {reason} -> {announced}")
    for name, out, r in lines:
        if r["disagreements"]:
            print(f"[{server_name}] {name} reports disagreements: {r['disagreements']}")
            failures += 1
    records = [p for _, out, _ in lines for p in sorted(glob.glob(os.path.join(out, "*.kif")) +
                                                          glob.glob(os.path.join(out, "*.csa")))]
    records += server_records
    for path in records:
        j = judged(gyoku, path)
        ok = j["result"] == announced
        failures += not ok
        print(f"[{server_name}]   {os.path.relpath(path)}: judged {j['result']} ({j['reason']}, "
              f"ply {j['ply']}): {'agrees' if ok else 'DISAGREES'}")
    if len(records) < 5:
        print(f"[{server_name}] only {len(records)} records to judge")
        failures += 1
    return failures


def on_shogi_server(gyoku, root):
    work = os.path.join(root, "shogi-server")
    shutil.copytree(SHOGI_SERVER, work)
    port = free_port()
    server = subprocess.Popen(
        ["ruby", "shogi-server", "--max-moves", str(MAX_MOVES), "peers", str(port)],
        cwd=work, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "server.err"), "w"),
        start_new_session=True)
    try:
        wait_for_port(port, server, "shogi-server")
        lines = play(gyoku, "shogi-server", port, work, None)
        time.sleep(1)
    finally:
        stop(server)
    # shogi-server writes its record as YYYY/MM/DD/<game id>.csa under its folder.
    own = glob.glob(os.path.join(work, "[0-9][0-9][0-9][0-9]", "*", "*", "*.csa"))
    return check(gyoku, "shogi-server", lines, own)


def on_gyoku_serve(gyoku, root):
    work = os.path.join(root, "gyoku-serve")
    os.makedirs(work)
    port = free_port()
    server = subprocess.Popen(
        [gyoku, "serve", "--csa", f"127.0.0.1:{port}", "--http", "off", "--data-dir", work,
         "--max-moves", str(MAX_MOVES)],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "serve.log"), "w"),
        start_new_session=True)
    try:
        wait_for_port(port, server, "gyoku serve")
        lines = play(gyoku, "gyoku serve", port, work, ["--early-ponder"])
        time.sleep(1)
    finally:
        stop(server)
    db = sqlite3.connect(os.path.join(work, "gyoku.sqlite3"))
    (path, result), = db.execute("SELECT record_path, result FROM games").fetchall()
    own = os.path.join(work, "records", path)
    failures = check(gyoku, "gyoku serve", lines, [own])
    heard = winner(lines[0][2]["me"], lines[0][2]["result"])
    if result != heard:
        print(f"[gyoku serve] stored {result}, the clients heard {heard}")
        failures += 1
    return failures


def main():
    gyoku = os.path.abspath(sys.argv[1])
    root = scratch_dir("gyoku-csa-client-peers-")
    failures = on_shogi_server(gyoku, root) + on_gyoku_serve(gyoku, root)
    if failures:
        sys.exit(f"csa-client peers: {failures} failures")
    print("csa-client peers: gpsusi vs Fairy-Stockfish through two gyoku csa-clients on "
          "shogi-server and on gyoku serve; every record judges to the server's result")


if __name__ == "__main__":
    main()
