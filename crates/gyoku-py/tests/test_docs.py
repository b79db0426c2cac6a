"""Docstrings and stubs: every public item is documented, the examples in the docstrings
run, and the stubs name exactly what the module has."""

import ast
import doctest
import inspect
import os

import gyoku

STUBS = os.path.join(os.path.dirname(gyoku.__file__), "__init__.pyi")


def public(obj):
    return [n for n in dir(obj) if not n.startswith("_")]


def test_every_public_item_has_a_docstring():
    for name in gyoku.__all__:
        item = getattr(gyoku, name)
        assert (item.__doc__ or "").strip(), name
        if inspect.isclass(item) and not issubclass(item, BaseException):
            for member in public(item):
                assert (getattr(item, member).__doc__ or "").strip(), f"{name}.{member}"


def test_docstring_examples_run():
    # The module's docstring and its classes' (Board, Game), each with `gyoku` imported.
    results = doctest.testmod(gyoku, extraglobs={"gyoku": gyoku})
    assert results.attempted >= 8 and results.failed == 0, results


def test_stubs_name_what_the_module_has():
    tree = ast.parse(open(STUBS, encoding="utf-8").read())
    stubbed = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            stubbed[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)} | {
                n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
        elif isinstance(node, ast.FunctionDef):
            stubbed[node.name] = None
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            stubbed[node.target.id] = None
    assert set(stubbed) == set(gyoku.__all__)
    for name, members in stubbed.items():
        item = getattr(gyoku, name)
        if members is None or issubclass(item, BaseException):
            continue
        assert {m for m in members if not m.startswith("_")} == set(public(item)), name
    # A signature the stubs give is the one the module takes.
    for name in ("impasse", "read", "judge"):
        stub = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
        assert [a.arg for a in stub.args.args] == list(inspect.signature(getattr(gyoku, name)).parameters), name
