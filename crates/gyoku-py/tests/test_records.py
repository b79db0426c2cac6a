"""gyoku.read and gyoku.judge: every format and encoding, the CLI's record cases, archives
(directories, generators) on threads, errors that say where, and memory bounded."""

import json
import os
import shutil
import subprocess

import pytest

import gyoku
from conftest import REPO, data, shared

KIF = ("手合割：平手\n手数----指手---------消費時間--\n"
       "   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　銀(31)\n   5 投了\n")
NIFU_CSA = "PI13FU\nP+00FU\n+\n+7776FU\n-8384FU\n+2726FU\n-8485FU\n+0025FU\n%TORYO\n"


def test_read_any_format_and_encoding(tmp_path):
    [r] = gyoku.read(KIF.encode("shift_jis"))
    assert r["moves"] == ["7g7f", "3c3d", "8h2b+", "3a2b"] and r["end"] == "resignation"
    assert r["start_sfen"].startswith("lnsgkgsnl/") and len(r["times_ms"]) == 4
    path = tmp_path / "nifu.csa"
    path.write_text(NIFU_CSA)
    [r] = gyoku.read(str(path))
    assert r["foul"] == {"ply": 5, "move": "P*2e", "kind": "nifu"}
    [r] = gyoku.read(path, format="csa")
    assert len(r["moves"]) == 4
    # Every record of the repository's golden set reads, in each encoding.
    for name, games in (("csa/eucjp.csa", 1), ("csa/two-games.csa", 2), ("csa/v3-utf8.csa", 1),
                        ("kif/sjis.kif", 1), ("kif/bod.kifu", 1), ("ki2/qualifiers.ki2", 1),
                        ("ki2/nifu.ki2u", 1), ("jkf/lance-handicap-fork.jkf", 1),
                        ("usi/games.usi", 3)):
        assert len(gyoku.read(data("records", name))) == games, name
    [r] = gyoku.read(data("records", "kif", "sjis.kif"))
    assert r["header"]["手合割"] == "平手"
    assert gyoku.read(data("records", "ki2", "nifu.ki2u"))[0]["foul"]["kind"] == "nifu"


def test_read_errors_say_what_and_where(tmp_path):
    # The CLI's words: `gyoku judge FILE` prints the same after `gyoku: `.
    bad = data("records", "errors", "bad-piece.csa")
    with pytest.raises(ValueError) as e:
        gyoku.read(bad)
    assert str(e.value) == f"{bad}:4:6: unknown piece 'XX' (csa)"
    bad = data("records", "errors", "bad-square.jkf")
    with pytest.raises(ValueError, match=r"bad-square\.jkf:6:5: 'to' \{\"x\": 10, \"y\": 4\} is not a square"):
        gyoku.read(bad)
    with pytest.raises(ValueError, match=r"ambiguous\.ki2u:5:11: "):
        gyoku.read(data("records", "errors", "ambiguous.ki2u"))
    with pytest.raises(ValueError, match=r"^<bytes>:1:1: "):
        gyoku.read(b"this is not a record\n")
    with pytest.raises(OSError, match="missing.kif"):
        gyoku.read(str(tmp_path / "missing.kif"))
    with pytest.raises(OSError, match="not a regular file"):
        gyoku.read(str(tmp_path))
    with pytest.raises(ValueError, match=r"^format: 'pgn'"):
        gyoku.read(b"", format="pgn")
    with pytest.raises(TypeError, match="a record is a path"):
        gyoku.read(42)


def test_judge_record_files_as_the_cli_does():
    # `gyoku judge` judges under csa unless told; gyoku.judge under jsa, as gyoku.Game.
    [v] = gyoku.judge(data("records", "kif", "sjis.kif"), rules="csa")
    assert (v["result"], v["reason"], v["ply"]) == ("black", "resignation", 6)
    assert v["recorded"] == {"end": "resignation", "result": "black", "end_result": "black",
                             "summary": None, "checked": "end",
                             "statements_disagree": False} and v["agrees"]
    assert v["why"] is None and v["limit"] == {"plies": 256, "from": "rules"}
    assert v["file"] == data("records", "kif", "sjis.kif") and v["source"] == 0
    [v] = gyoku.judge(data("records", "csa", "nifu.csa"), rules="csa")
    assert (v["result"], v["reason"], v["ply"]) == ("white", "illegal_move", 9)
    assert v["detail"]["foul"] == "nifu" and not v["agrees"]
    [v] = gyoku.judge(data("records", "kif", "unnoticed-foul.kifu"), rules="jsa")
    assert (v["result"], v["reason"], v["ply"]) == ("black", "resignation", 12)
    assert v["detail"]["unnoticed_foul"]["kind"] == "nifu"
    assert v["decided_by"] == "resignation_stands"
    [v] = gyoku.judge(data("records", "kif", "unnoticed-foul.kifu"), rules="csa")
    assert v["reason"] == "illegal_move"
    # A record's own move limit applies; max_moves overrides it.
    [v] = gyoku.judge(data("records", "csa", "v3-utf8.csa"), rules="csa")
    assert (v["reason"], v["agrees"]) == ("move_limit", True)
    [v] = gyoku.judge(data("records", "csa", "v3-utf8.csa"), rules="csa", max_moves=0)
    assert v["reason"] is None
    # Several records: a directory (walked as the CLI walks it) and a two-game file.
    verdicts = list(gyoku.judge([data("records", "usi"), data("records", "csa", "two-games.csa")]))
    assert len(verdicts) == 5
    assert [v["source"] for v in verdicts] == [0, 0, 0, 1, 1]
    assert verdicts[3]["file"].endswith("two-games.csa#1")
    names = [v["file"] for v in gyoku.judge([data("records", d) for d in ("csa", "kif", "usi")])]
    assert len(names) == 24, names
    with pytest.raises(ValueError, match=r"^rules: unknown rule set"):
        gyoku.judge([], rules="nope")


def test_judge_many_on_threads(tmp_path):
    path = tmp_path / "nifu.csa"
    path.write_text(NIFU_CSA)
    results = list(gyoku.judge([KIF.encode("shift_jis"), str(path)] * 10, rules="csa", threads=4))
    assert len(results) == 20
    assert [r["source"] for r in results] == list(range(20))
    kif, nifu = results[0], results[1]
    assert (kif["result"], kif["reason"], kif["agrees"], kif["file"]) == ("white", "resignation", True, None)
    assert nifu["reason"] == "illegal_move" and nifu["foul"]["kind"] == "nifu"
    strip = lambda r: {k: v for k, v in r.items() if k != "source"}
    assert all(strip(r) == strip(kif) for r in results[0::2])
    assert all(strip(r) == strip(nifu) for r in results[1::2])
    assert list(gyoku.judge([])) == []


def test_unreadable_sources_raise_at_their_place(tmp_path):
    blob = KIF.encode("shift_jis")
    bad = data("records", "errors", "bad-piece.csa")
    it = gyoku.judge([blob, bad, str(tmp_path / "missing.csa"), 7, blob])
    assert next(it)["source"] == 0
    with pytest.raises(ValueError, match="bad-piece.csa:4:6: unknown piece"):
        next(it)
    with pytest.raises(OSError, match="missing.csa"):
        next(it)
    with pytest.raises(TypeError):
        next(it)
    assert next(it)["source"] == 4, "the iteration goes on after an unreadable source"
    with pytest.raises(StopIteration):
        next(it)

    def failing():
        yield blob
        raise RuntimeError("the archive broke")

    it = gyoku.judge(failing())
    assert next(it)["reason"] == "resignation"
    with pytest.raises(RuntimeError, match="the archive broke"):
        next(it)
    assert list(it) == []


def test_judge_an_archive_directory(tmp_path):
    """A directory of records, nested, with a file that is no record among them."""
    for i in range(30):
        sub = tmp_path / f"d{i % 3}"
        sub.mkdir(exist_ok=True)
        (sub / f"g{i:02}.kif").write_bytes(KIF.encode("shift_jis"))
    (tmp_path / "readme.md").write_text("not a record")
    shutil.copy(data("records", "errors", "bad-move.kif"), tmp_path / "d1" / "zz-bad.kif")
    got, errors = [], []
    it = gyoku.judge(str(tmp_path), rules="csa", threads=2)
    while True:
        try:
            got.append(next(it))
        except StopIteration:
            break
        except ValueError as e:
            errors.append(str(e))
    assert len(got) == 30 and len(errors) == 1 and "zz-bad.kif:" in errors[0]
    files = [os.path.relpath(v["file"], tmp_path) for v in got]
    assert files == sorted(files) and files[0] == os.path.join("d0", "g00.kif")


def gyoku_binary():
    """The CLI built by `cargo build --release -p gyoku-cli` (CI builds it before this
    step and names it in GYOKU_BIN), or None."""
    path = os.environ.get("GYOKU_BIN") or os.path.join(REPO, "target", "release", "gyoku")
    return path if os.path.exists(path) else None


def record_files(folder):
    """The record files under FOLDER, walked."""
    files = []
    for root, _, names in os.walk(folder):
        files += [os.path.join(root, n) for n in names
                  if n.endswith((".kif", ".kifu", ".csa", ".ki2", ".ki2u", ".jkf"))]
    return files


@pytest.mark.skipif(not gyoku_binary() and not os.environ.get("GYOKU_BIN"),
                    reason="the gyoku CLI is not built (cargo build --release -p gyoku-cli)")
@pytest.mark.parametrize("source", ["repository", "shared"])
def test_real_records_judge_as_the_cli_does(source):
    """Every real record file no one here wrote, judged by gyoku.judge and by `gyoku judge
    --json`, under two rule sets: the same verdicts, the same unreadable files. The
    repository's (Kifu for JS and tsshogi, MIT), and the shared data's (shogi-server,
    python-shogi and generated games)."""
    if source == "repository":
        folders = [data("records", "kifu-for-js"), data("records", "tsshogi-jkf")]
        least = 55
    else:
        folders = [shared(rel, "shogi-server's, python-shogi's and generated records judged "
                               "by gyoku.judge as by the CLI")
                   for rel in ("records/shogi-server", "records/python-shogi", "generated")]
        least = 12
    files = sorted(f for folder in folders for f in record_files(folder))
    assert len(files) >= least, len(files)
    for rules in ("csa", "jsa"):
        mine, unreadable = {}, set()
        it = gyoku.judge(files, rules=rules)
        while True:
            try:
                v = next(it)
            except StopIteration:
                break
            except (ValueError, OSError) as e:
                unreadable.add(str(e).split(":", 1)[0])
                continue
            mine[v["file"]] = v
        out = subprocess.run([gyoku_binary(), "judge", "--rules", rules, "--json", *files],
                             capture_output=True, text=True, check=False)
        theirs = json.loads(out.stdout)
        theirs = {v["file"]: v for v in (theirs if isinstance(theirs, list) else [theirs])}
        assert mine.keys() == theirs.keys(), rules
        for name, v in theirs.items():
            keys = ("result", "reason", "ply", "sfen", "detail", "recorded", "agrees", "decided_by",
                    "why", "limit", "damaged")
            assert {k: mine[name][k] for k in keys} == {k: v[k] for k in keys}, (rules, name)
        # The CLI names each unreadable file on standard error, as gyoku.judge raises it.
        for name in unreadable:
            assert name in out.stderr, (rules, name)
        assert len(mine) >= least, len(mine)


def resident_kib():
    """This process's resident memory now (Linux), KiB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def test_judging_streams_in_bounded_memory():
    """100,000 records judged from a generator: verdicts come a batch at a time, so the
    process grows by a batch, not by the archive (kept whole, their dicts alone would take
    hundreds of MiB)."""
    blob = KIF.encode("shift_jis")
    # Warm up: allocator and module state settle.
    assert sum(1 for _ in gyoku.judge((blob for _ in range(2_000)), threads=2)) == 2_000
    start = peak = resident_kib()
    count = 0
    for v in gyoku.judge((blob for _ in range(100_000)), rules="jsa", threads=2):
        count += 1
        assert v["reason"] == "resignation"
        if count % 5_000 == 0:
            peak = max(peak, resident_kib())
    print(f"100,000 records judged; resident {start} KiB at the start, {peak} KiB at most")
    assert count == 100_000
    assert peak - start < 32 * 1024, (start, peak)


def test_one_large_source_streams_its_verdicts(tmp_path):
    """Issue 28, item 20: one bytes object of many CSA games was judged whole before the
    first verdict (1,000,000 games: 10 s and 4.1 GiB). A large source is judged as it is
    read: the verdicts come a chunk at a time, memory grows by a chunk, not by the
    archive; a file of them names each `path#k`; a fault stops it at its place."""
    game = "V2\nPI\n+\n+7776FU\n-3334FU\n+8822UM\n-3122GI\n%TORYO\n"
    n = 150_000
    blob = "/\n".join([game] * n).encode()
    assert len(blob) > 1 << 20
    start = resident_kib()
    verdicts = gyoku.judge(blob, threads=2)
    first = next(verdicts)
    assert (first["result"], first["reason"], first["file"]) == ("white", "resignation", None)
    peak = resident_kib()
    count = 1
    for v in verdicts:
        count += 1
        assert v["reason"] == "resignation"
        if count % 10_000 == 0:
            peak = max(peak, resident_kib())
    print(f"{n} games in one bytes object; resident {start} KiB before, {peak} KiB at most")
    assert count == n
    # Kept whole, its verdicts took over 600 MiB more.
    assert peak - start < 64 * 1024, (start, peak)
    # A file: each verdict named path#k; a broken game raises at its place, after the
    # games before it.
    path = tmp_path / "many.csa"
    path.write_bytes(blob + b"/\nV2\nPI\n+\n+77FU\n")
    names, error = [], None
    try:
        for v in gyoku.judge(str(path)):
            names.append(v["file"])
    except ValueError as e:
        error = str(e)
    assert names[0] == f"{path}#1" and names[-1] == f"{path}#{n}", names[-1]
    assert len(names) == n
    assert error is not None and str(path) in error, error
    print(f"the fault after {n} games: {error}")


def test_an_archive_with_unreadable_files_is_judged_to_the_end():
    # tests/data/records/errors holds records that cannot be read: with errors="yield"
    # each comes out at its place as a dict with `error`; "skip" counts them; a
    # comprehension over the whole archive never stops.
    from collections import Counter
    archive = data("records")
    verdicts = list(gyoku.judge(archive, rules="csa", errors="yield"))
    bad = [v for v in verdicts if v.get("error")]
    good = [v for v in verdicts if not v.get("error")]
    assert bad and good
    for v in bad:
        e = v["error"]
        assert e["kind"] in ("read", "io") and e["message"], v
        assert v["file"] == e["file"] and v["file"].startswith(archive), v
        if e["kind"] == "read":
            assert e["line"] >= 1 and e["column"] >= 1, v
    reasons = Counter(v["reason"] for v in gyoku.judge(archive, rules="csa", errors="yield"))
    assert sum(reasons.values()) == len(verdicts)
    skipping = gyoku.judge(archive, rules="csa", errors="skip")
    judged = list(skipping)
    assert len(judged) == len(good) and skipping.skipped == len(bad)
    # The default still raises at the first, and the iteration may go on after it.
    with pytest.raises(ValueError):
        list(gyoku.judge(archive, rules="csa"))
    with pytest.raises(ValueError, match=r"^errors: 'sometimes' is not raise, skip or yield"):
        gyoku.judge(archive, errors="sometimes")
