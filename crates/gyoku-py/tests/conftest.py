"""Where the tests' data is: the repository's own tables and records (MIT), and the shared
data beside the repository (read in place, as the Rust tests read it: when it is missing a
test says what it did not check and is skipped, or fails under GYOKU_REQUIRE_SHARED=1)."""

import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
DATA = os.path.join(REPO, "tests", "data")
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "shared", "data"))


def data(*parts):
    """A path under the repository's tests/data."""
    return os.path.join(DATA, *parts)


def shared(rel, what):
    """../shared/data/REL, or the test is skipped saying WHAT was not checked (failed when
    GYOKU_REQUIRE_SHARED=1, as CI sets it)."""
    path = os.path.join(SHARED, rel)
    if os.path.exists(path):
        return path
    if os.environ.get("GYOKU_REQUIRE_SHARED") == "1":
        pytest.fail(f"GYOKU_REQUIRE_SHARED=1 and ../shared/data/{rel} is missing: "
                    f"{what} cannot be checked")
    pytest.skip(f"no ../shared/data/{rel} beside the repository: {what}")


def rows(name):
    """The rows of tests/data/endings/NAME, as the Rust endings suite reads them."""
    with open(data("endings", name), encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f
                if line.strip() and not line.startswith("#")]


def expand(moves):
    """Expands `(a b c d)x3` groups in a move list, as the Rust endings suite does."""
    out, rest = [], moves.strip()
    while rest:
        if rest.startswith("("):
            close = rest.index(")")
            group, rest = rest[1:close].split(), rest[close + 1:]
            count = 1
            if rest.startswith("x"):
                digits = rest[1:].split(" ", 1)
                count, rest = int(digits[0]), (digits[1] if len(digits) > 1 else "")
            out += group * count
        else:
            head, _, rest = rest.partition(" ")
            out.append(head)
        rest = rest.strip()
    return out


S0 = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


def sfen(text):
    """The tables' `S0` is the start position."""
    return S0 if text == "S0" else text


def cshogi_or_skip(what):
    """cshogi (PyPI), or the test is skipped saying WHAT was not compared (failed when
    GYOKU_REQUIRE_SHARED=1, as CI sets it)."""
    try:
        import cshogi
    except ImportError:
        if os.environ.get("GYOKU_REQUIRE_SHARED") == "1":
            pytest.fail(f"GYOKU_REQUIRE_SHARED=1 and cshogi (PyPI) is not installed: {what}")
        pytest.skip(f"cshogi (PyPI) not installed: {what} not compared")
    return cshogi
