"""The Python sessions the README and docs/python.md show, run as doctests from the
repository's root: what they print is what `import gyoku` prints."""

import doctest
import os

import pytest

from conftest import REPO


def sessions(page):
    """The fenced blocks of PAGE that hold a `>>>` session, as (first line, text)."""
    with open(os.path.join(REPO, page), encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, block, start = [], None, 0
    for i, line in enumerate(lines):
        if line.startswith("```"):
            if block is None:
                block, start = [], i + 2
            else:
                if any(b.startswith(">>> ") for b in block):
                    out.append((start, "\n".join(block) + "\n"))
                block = None
        elif block is not None:
            block.append(line)
    return out


@pytest.mark.parametrize("page", ["README.md", "docs/python.md"])
def test_the_pages_sessions_print_what_they_show(page, monkeypatch):
    monkeypatch.chdir(REPO)
    found = sessions(page)
    assert found, f"{page} shows no Python session"
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for line, text in found:
        test = parser.get_doctest(text, {}, f"{page}:{line}", page, line)
        result = runner.run(test)
        assert result.failed == 0, f"{page}:{line}: {result.failed} of {result.attempted} failed"
