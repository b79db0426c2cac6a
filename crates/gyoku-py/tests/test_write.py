"""Records out: `gyoku.write` gives byte for byte what `gyoku convert` writes, for every
record of the repository and of the shared data, in every format; `Game.record()` is a
game's record so far."""

import os
import subprocess

import pytest

import gyoku
from conftest import data, shared
from test_records import gyoku_binary

# The format as gyoku.write names it, the CLI's --to, and the --out file's extension that
# gives the same encoding (kif and ki2: Shift_JIS; stdout: UTF-8).
FORMATS = [("kifu", "kif"), ("ki2u", "ki2"), ("csa", "csa"), ("jkf", "jkf"), ("usi", "usi")]
EXTENSIONS = (".kif", ".kifu", ".ki2", ".ki2u", ".csa", ".jkf", ".usi")


def record_files(root):
    for d, _, names in sorted(os.walk(root)):
        for n in sorted(names):
            if n.endswith(EXTENSIONS) and "errors" not in d:
                yield os.path.join(d, n)


def written_by_cli(path, to, out=None):
    args = [gyoku_binary(), "convert", path, "--to", to]
    if out:
        args += ["--out", str(out)]
    done = subprocess.run(args, capture_output=True, check=False)
    if done.returncode != 0:
        return None
    return out.read_bytes() if out else done.stdout


@pytest.mark.parametrize("root", ["repository", "shared"])
def test_write_is_what_convert_writes(root, tmp_path):
    where = data("records") if root == "repository" else shared("records", "gyoku.write against gyoku convert over the shared records")
    compared = 0
    for path in record_files(where):
        try:
            records = gyoku.read(path)
        except ValueError:
            continue
        for fmt, to in FORMATS:
            theirs = written_by_cli(path, to)
            try:
                mine = gyoku.write(records, fmt)
            except ValueError:
                assert theirs is None, (path, fmt)
                continue
            assert mine == theirs, (path, fmt)
            compared += 1
        # Shift_JIS as the CLI writes a .kif file.
        theirs = written_by_cli(path, "kif", tmp_path / "out.kif")
        if theirs is not None:
            assert gyoku.write(records, "kif") == theirs, path
    assert compared >= 100, compared


def test_a_games_record_and_the_ways_to_write_one():
    g = gyoku.Game(rules="csa")
    for m in ("7g7f", "3c3d", "8h2b+"):
        g.move(m)
    r = g.record()
    assert len(r) == 3 and "3 plies" in repr(r)
    assert gyoku.write(g, "usi") == b"position startpos moves 7g7f 3c3d 8h2b+\n"
    [back] = gyoku.read(gyoku.write(r, "csa"), format="csa")
    assert back["moves"] == ["7g7f", "3c3d", "8h2b+"]
    # A record from gyoku.read keeps its comments; encodings by name.
    [r] = gyoku.read(data("records", "kif", "sjis.kif"))
    assert gyoku.write(r, "kif", encoding="utf-8") == gyoku.write(r, "kifu")
    assert gyoku.write(r, "kif").decode("cp932") == gyoku.write(r, "kifu").decode("utf-8")
    with pytest.raises(ValueError, match=r"^format: 'pgn' is not kif"):
        gyoku.write(r, "pgn")
    with pytest.raises(ValueError, match=r"^encoding: 'latin-1' is not utf-8"):
        gyoku.write(r, "csa", encoding="latin-1")
    with pytest.raises(TypeError, match=r"^write takes a gyoku.Record"):
        gyoku.write(42, "csa")


def test_the_board_is_seen_as_text_and_as_svg():
    import xml.etree.ElementTree as ET
    b = gyoku.Board()
    for m in ("7g7f", "3c3d", "8h2b+"):
        b.push_usi(m)
    text = str(b)
    assert text.startswith("後手の持駒：なし") and "後手番" in text
    assert "| ・v飛 ・ ・ ・ ・ ・ 馬 ・|二" in text, text
    letters = b.diagram(letters=True)
    assert "  .  r  .  .  .  .  . +B  .  b" in letters, letters
    assert letters.endswith("Black's hand: B\nWhite to move\n"), letters
    svg = ET.fromstring(b._repr_svg_())
    ns = "{http://www.w3.org/2000/svg}"
    squares = [r for r in svg.iter(ns + "rect") if "square" in r.get("class", "")]
    assert len(squares) == 81
    pieces = [t for t in svg.iter(ns + "text") if t.get("class", "").startswith("piece ")]
    # The pieces of the position, each on its square: 39 on the board (a bishop taken).
    assert len(pieces) == 39
    on = {t.get("data-square"): (t.text, t.get("class")) for t in pieces}
    assert on["2b"] == ("馬", "piece black") and on["5a"] == ("玉", "piece white"), on
    last = {r.get("data-square") for r in squares if "last" in r.get("class")}
    assert last == {"8h", "2b"}, last
    hands = [t.text for t in svg.iter(ns + "text") if "hand black" in t.get("class", "")]
    assert hands == ["☗ 角"], hands
    # A king in check is marked.
    c = gyoku.Board("4k4/9/9/9/9/9/9/4R4/4K4 w - 1")
    checked = [r.get("data-square") for r in ET.fromstring(c.svg()).iter(ns + "rect")
               if "check" in r.get("class", "")]
    assert checked == ["5a"], checked
