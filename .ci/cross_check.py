"""Cross-checks Gyoku against cshogi (PyPI), an independent C++ implementation.

1. Every perft count in tests/data/perft/*.perft up to NODE_LIMIT is recounted with cshogi.
2. Random positions reached by cshogi's own random play: the legal moves cshogi generates
   equal `gyoku moves --json` for the same SFEN.
3. Records (our golden files and the shared CSA/KIF records): the moves cshogi's CSA and
   KIF parsers read equal `gyoku convert FILE --to usi`, except files cshogi cannot read and
   the known cshogi misreadings listed in CSHOGI_MISREADS (each checked by hand).
4. KI2 and JKF records (cshogi's KI2 parser reads almost none of them, and it has no JKF
   reader): the moves tsshogi (npm) reads, through .ci/tsshogi_read.mjs, equal Gyoku's;
   and every record above, written as JKF by `gyoku convert --to jkf`, reads in tsshogi to
   the moves Gyoku reads from the original. Run when TSSHOGI_NODE_PATH names a
   node_modules holding tsshogi.
5. The mate search: against cshogi's mate_move_in_1ply, mate_move(3) and DfPn on the last
   plies of real games; against YaneuraOu's mate engine (built from
   ../shared/peers/yaneuraou, named by YANEURAOU_MATE) on every position of the mate table,
   the uchifuzume rows and the tsume records' starts.

Usage: python3 .ci/cross_check.py PATH/TO/gyoku [POSITIONS]
Exit status 0 when everything agrees; prints the closing line "N passed, M failed".
"""
import glob
import json
import os
import random
import subprocess
import sys
import tempfile

import cshogi
import cshogi.CSA
import cshogi.KIF

NODE_LIMIT = 2_000_000

# Files cshogi 1.1.0 reads wrongly (verified by hand against the KIF text):
CSHOGI_MISREADS = {
    "fork-notime.kif": "flattens the variations into the main line",
    "fork-test.kif": "flattens the variations into the main line",
    "shogidb2.kifu": "misreads 同歩 written without the full-width space (move 44 on)",
    "shogidokoro.kifu": "ignores the BOD board and starts from the even position",
    "taichitsume.kif": "ignores the BOD board and starts from the even position",
    "nifu.csa": "reads the nifu drop as a null move ('None'); Gyoku keeps it as the foul",
}
# Files that crash cshogi's parser (the whole process, not an exception): left to Gyoku.
CSHOGI_CRASHES = {
    "glued-first-move.csa": "a time line before any move (cshogi #60: the process dies)",
}
END_TOKENS = {"resign", "win", "draw", "rep_draw", "timeout", "break"}


def record_files():
    pats = ["tests/data/records/*/*.csa", "tests/data/records/*/*.kif*",
            "../shared/data/records/*/*.csa", "../shared/data/records/*/*/*.csa",
            "../shared/data/records/*/*.kif", "../shared/data/records/*/*/*.kif*"]
    files = set()
    for pat in pats:
        files.update(glob.glob(os.path.join(ROOT, pat)))
    return sorted(f for f in files if "/errors/" not in f)


def check_records(gyoku):
    passed = failed = skipped = known = crashes = 0
    for f in record_files():
        name = os.path.basename(f)
        if name in CSHOGI_CRASHES:
            crashes += 1
            continue
        try:
            if f.endswith(".csa"):
                theirs = [[cshogi.move_to_usi(m) for m in p.moves] for p in cshogi.CSA.Parser.parse_file(f)]
            else:
                theirs = [[cshogi.move_to_usi(m) for m in cshogi.KIF.Parser.parse_file(f).moves]]
        except Exception:
            skipped += 1
            continue
        ours, err = gyoku_usi_lines(gyoku, f)
        if ours is None:
            failed += 1
            print(f"FAIL gyoku cannot read {name}: {err}")
            continue
        # cshogi checks no legality: after a foul it reads on; Gyoku stops at the foul.
        same = len(ours) == len(theirs) and all(t[:len(o)] == o for o, t in zip(ours, theirs))
        if same:
            passed += 1
        elif name in CSHOGI_MISREADS:
            known += 1
        else:
            failed += 1
            print(f"FAIL records differ: {name}: gyoku {ours[:1]!r:.120} cshogi {theirs[:1]!r:.120}")
    print(f"records: {passed} same, {failed} different, {skipped} cshogi cannot read, {known} known cshogi misreadings, "
          f"{crashes} that crash cshogi left out")
    return passed, failed
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def gyoku_usi_lines(gyoku, f):
    out = subprocess.run([gyoku, "convert", f, "--to", "usi"], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    return [[t for t in line.split(" moves ")[1].split() if t not in END_TOKENS] if " moves " in line else []
            for line in out.stdout.splitlines()], None


def tsshogi_read(files):
    """tsshogi's moves for each file (None where it cannot read it), or an error string."""
    out = subprocess.run(["node", os.path.join(ROOT, ".ci/tsshogi_read.mjs"), *files],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()[:300]
    result = {}
    for line in out.stdout.splitlines():
        item = json.loads(line)
        result[item["file"]] = None if "error" in item else item["moves"]
    return result, None


def compare_with_tsshogi(gyoku, label, files, gyoku_view=None):
    """KI2 and JKF files: tsshogi's moves equal Gyoku's. `gyoku_view` maps a file to the
    one Gyoku reads (the same by default)."""
    theirs_by_file, err = tsshogi_read(files)
    if err is not None:
        print(f"FAIL tsshogi script: {err}")
        return 0, 1
    passed = failed = skipped = 0
    for f in files:
        name = os.path.basename(f)
        theirs = theirs_by_file.get(f)
        if theirs is None:
            skipped += 1
            continue
        ours, err = gyoku_usi_lines(gyoku, (gyoku_view or {}).get(f, f))
        if ours is None:
            failed += 1
            print(f"FAIL gyoku cannot read {name}: {err}")
            continue
        # tsshogi checks no legality: after a foul it reads on; Gyoku stops at the foul.
        if len(ours) == 1 and theirs[:len(ours[0])] == ours[0] and (len(ours[0]) > 0 or not theirs):
            passed += 1
        else:
            failed += 1
            print(f"FAIL {label} differs: {name}: gyoku {ours!r:.120} tsshogi {theirs!r:.120}")
    print(f"{label}: {passed} same as tsshogi, {failed} different, {skipped} tsshogi cannot read")
    return passed, failed


def check_tsshogi(gyoku):
    """KI2 files, JKF files, and JKF that Gyoku writes from every record, read by tsshogi."""
    if not os.environ.get("TSSHOGI_NODE_PATH"):
        print("tsshogi: skipped (TSSHOGI_NODE_PATH not set)")
        return 0, 0
    ki2 = sorted(set(glob.glob(os.path.join(ROOT, "tests/data/records/ki2/*.ki2*"))
                     + glob.glob(os.path.join(ROOT, "../shared/data/records/*/ki2/*.ki2*"))))
    jkf = sorted(set(glob.glob(os.path.join(ROOT, "tests/data/records/jkf/*.jkf"))
                     + glob.glob(os.path.join(ROOT, "../shared/data/records/*/*.jkf"))
                     + glob.glob(os.path.join(ROOT, "../shared/data/records/*/*/*.jkf"))))
    passed = failed = 0
    for label, files in (("ki2", ki2), ("jkf", jkf)):
        p, f = compare_with_tsshogi(gyoku, label, files)
        passed += p
        failed += f
    # Gyoku's JKF writer, read by an independent reader: every record written as JKF.
    written = tempfile.mkdtemp()
    view = {}
    for i, src in enumerate(record_files() + ki2):
        dst = os.path.join(written, f"{i:03}-{os.path.basename(src)}.jkf")
        out = subprocess.run([gyoku, "convert", src, "--to", "jkf", "--out", dst],
                             capture_output=True, text=True)
        if out.returncode == 0 and os.path.exists(dst):
            view[dst] = src
    p, f = compare_with_tsshogi(gyoku, "jkf written by gyoku", sorted(view), view)
    return passed + p, failed + f


MATE_GAMES = 120
MATE_BACK = 8
MATE_NODES = 300_000


def check_mates(gyoku):
    games = os.path.join(ROOT, "../shared/data/usi/usi_games_lishogi_500.txt")
    if not os.path.exists(games):
        print("FAIL mate search: ../shared/data/usi/usi_games_lishogi_500.txt is missing")
        return 0, 1
    positions = []
    with open(games, encoding="utf-8") as f:
        for line in f.read().splitlines()[:MATE_GAMES]:
            moves = line.split()
            for back in range(1, min(MATE_BACK, len(moves)) + 1):
                board = cshogi.Board()
                for m in moves[:len(moves) - back]:
                    board.push_usi(m)
                if not board.is_check() and not board.is_game_over():
                    positions.append(board.sfen())
    positions = list(dict.fromkeys(positions))
    passed = failed = 0
    answers = {}
    for sfen in positions:
        out = subprocess.run([gyoku, "mate", "--json", "--sfen", sfen, "--nodes", str(MATE_NODES),
                              "--table-size", "8MiB"], capture_output=True, text=True)
        if out.returncode != 0:
            failed += 1
            print(f"FAIL gyoku mate exited {out.returncode} on {sfen}: {out.stderr.strip()}")
            continue
        got = json.loads(out.stdout)
        answers[got["result"]] = answers.get(got["result"], 0) + 1
        board = cshogi.Board(sfen)
        one = bool(board.mate_move_in_1ply())
        three = one or bool(board.mate_move(3))
        dfpn = cshogi.DfPn()
        dfpn.set_max_search_node(MATE_NODES)
        cshogi_mates = dfpn.search(board)
        mate = got["result"] == "mate"
        problems = []
        if (mate and got["plies"] == 1) != one:
            problems.append(f"mate in 1: gyoku {got['plies']}, cshogi {one}")
        if (mate and got["plies"] <= 3) != three:
            problems.append(f"mate within 3: gyoku {got['plies']}, cshogi {three}")
        if got["result"] == "no_mate" and cshogi_mates:
            problems.append("gyoku proves no mate, cshogi's DfPn finds one")
        if mate:
            for i, m in enumerate(got["line"]):
                if board.is_game_over():
                    problems.append(f"line goes on after mate at ply {i + 1}")
                    break
                if m not in [cshogi.move_to_usi(x) for x in board.legal_moves]:
                    problems.append(f"ply {i + 1} {m} is illegal in cshogi")
                    break
                board.push_usi(m)
                if i % 2 == 0 and not board.is_check():
                    problems.append(f"ply {i + 1} {m} does not check")
                    break
            else:
                if not (board.is_game_over() and board.is_check()):
                    problems.append("the line does not end in mate")
        if problems:
            failed += 1
            print(f"FAIL mate {sfen}: {'; '.join(problems)}")
        else:
            passed += 1
    print(f"mate search: {passed} agree with cshogi, {failed} differ, over {len(positions)} "
          f"positions (gyoku's answers: {answers})")
    return passed, failed


YANE_MS = 5_000
YANE_NODES = 1_000_000


class MateEngine:
    """YaneuraOu's mate engine over USI (`go mate MS` answers `checkmate ...`), killed by
    the kernel if this script dies (PR_SET_PDEATHSIG), every read timed out."""

    def __init__(self, path):
        import queue
        import threading
        # setpriv (util-linux) sets the parent-death signal and execs the engine: no Python
        # code runs between fork and exec, which threads make unsafe.
        self.proc = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", path],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        # Lines are read by a thread, so that every wait for one can time out.
        self.lines = queue.Queue(maxsize=10_000)
        self.dn = None

        def read():
            for line in self.proc.stdout:
                self.lines.put(line)
            self.lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        self.send("usi")
        self.until("usiok", 30)
        # A 16 MiB table, as Gyoku's here.
        self.send("setoption name USI_Hash value 16")
        self.send("isready")
        self.until("readyok", 60)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix, seconds):
        import queue
        import time
        deadline = time.monotonic() + seconds
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no '{prefix}' from the mate engine in {seconds} s")
            if line is None:
                raise EOFError("the mate engine exited")
            words = line.split()
            if words[:3] == ["info", "string", "pn"] and len(words) >= 6 and words[4] == "dn":
                self.dn = int(words[5])
            if line.startswith(prefix):
                return line.split()

    def mate(self, sfen):
        """('mate', plies) | ('no_mate', None) | ('unknown', None)"""
        self.send(f"position sfen {sfen}")
        self.send(f"go mate {YANE_MS}")
        # This build does not always keep to its time: past it (and a margin), it is
        # stopped, and whatever it says then is no answer.
        try:
            words = self.until("checkmate", YANE_MS / 1000 + 3)[1:]
        except TimeoutError:
            return "unknown", None
        if words == ["nomate"]:
            # "nomate" is a proof only with a disproof number of 0 (its last "info string pn
            # P dn D"); stopped, it says "nomate" without one.
            return ("no_mate" if self.dn == 0 else "unknown"), None
        if not words or words[0] in ("timeout", "notimplemented"):
            return "unknown", None
        return "mate", len(words)

    def close(self):
        try:
            self.send("stop")
            self.send("quit")
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def mate_set():
    """The positions the mate search is checked on: the mate table, the uchifuzume rows of
    the legality tables, and the start of every tsume record that is correct."""
    sfens = []
    with open(os.path.join(ROOT, "tests/data/mate/positions.tsv"), encoding="utf-8") as f:
        sfens += [l.split("\t")[0] for l in f if l.strip() and not l.startswith("#")]
    for table in ("tests/data/endings/uchifuzume.tsv", "tests/data/legality/moves.tsv"):
        with open(os.path.join(ROOT, table), encoding="utf-8") as f:
            for l in f:
                cols = l.rstrip("\n").split("\t")
                if not l.startswith("#") and len(cols) >= 3 and cols[2] == "uchifuzume":
                    sfens.append(cols[0])
    return list(dict.fromkeys(sfens))


def tsume_starts(gyoku):
    starts = []
    for f in sorted(glob.glob(os.path.join(ROOT, "tests/data/tsume/*.ki*"))):
        out = subprocess.run([gyoku, "convert", f, "--to", "usi"], capture_output=True, text=True)
        words = out.stdout.split()
        if out.returncode == 0 and words[:2] == ["position", "sfen"]:
            starts.append((f, " ".join(words[2:6])))
    return starts


def check_mates_yaneuraou(gyoku):
    """Gyoku's mate search beside YaneuraOu's mate engine on every position of the set: no
    "no mate" from one where the other mates; every tsume record's length found."""
    engine_path = os.environ.get("YANEURAOU_MATE")
    if not engine_path:
        print("FAIL mate search against YaneuraOu: YANEURAOU_MATE names no engine")
        return 0, 1

    def yane(sfen):
        # A fresh engine for each position: one engine asked position after position was
        # seen to go on searching an answered one, and to stop answering (this build).
        engine = MateEngine(engine_path)
        try:
            return engine.mate(sfen)
        finally:
            engine.close()

    passed = failed = 0
    tally = {}
    for sfen in mate_set():
        out = subprocess.run([gyoku, "mate", "--json", "--sfen", sfen, "--nodes",
                              str(YANE_NODES), "--table-size", "16MiB"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            failed += 1
            print(f"FAIL gyoku mate exited {out.returncode} on {sfen}: {out.stderr.strip()}")
            continue
        ours = json.loads(out.stdout)["result"]
        theirs, _ = yane(sfen)
        tally[(ours, theirs)] = tally.get((ours, theirs), 0) + 1
        if {ours, theirs} == {"mate", "no_mate"}:
            failed += 1
            print(f"FAIL mate {sfen}: gyoku {ours}, YaneuraOu {theirs}")
        else:
            passed += 1
    for f, sfen in tsume_starts(gyoku):
        out = subprocess.run([gyoku, "judge", "--tsume", "--lenient", "--json", f],
                             capture_output=True, text=True)
        record = json.loads(out.stdout)["records"][0]
        theirs, plies = yane(sfen)
        if record["correct"] and theirs == "mate":
            passed += 1
            print(f"tsume {os.path.basename(f)}: correct in {record['plies']} (gyoku judge "
                  f"--tsume); YaneuraOu mates in {plies}")
        else:
            failed += 1
            print(f"FAIL tsume {f}: gyoku {record}, YaneuraOu {theirs}")
    said = ", ".join(f"gyoku {a} / YaneuraOu {b}: {n}" for (a, b), n in sorted(tally.items()))
    print(f"mate search against YaneuraOu's mate engine: {passed} agree, {failed} differ ({said})")
    return passed, failed


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
    for check in (check_records, check_tsshogi, check_mates, check_mates_yaneuraou):
        p, f = check(gyoku)
        passed += p
        failed += f
    print(f"cross-check: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
