"""The binding as CI ships it: an abi3 wheel, installed in a fresh venv on a PATH with no
Rust toolchain (`.ci/run` sets GYOKU_WHEEL=1 there; a build from source here says it
skipped)."""

import importlib.metadata
import os
import shutil

import pytest

import gyoku


def test_the_binding_is_an_abi3_wheel_installed_without_rust():
    if os.environ.get("GYOKU_WHEEL") != "1":
        pytest.skip("GYOKU_WHEEL is not set: the binding here may be built from source, "
                    "not installed from CI's wheel")
    assert shutil.which("cargo") is None and shutil.which("rustc") is None
    wheel = importlib.metadata.distribution("gyoku").read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    assert tags and all(t.startswith("cp310-abi3-") for t in tags), tags
    # And it works.
    g = gyoku.Game(rules="csa")
    g.move("7g7f")
    assert gyoku.write(g.record(), "usi") == b"position startpos moves 7g7f\n"
