"""No nested function of the product calls itself through its own closure unless its
outer function lets go of it after use (`inner = None`): such a function holds itself in
its closure, a reference cycle that only Python's cyclic collector frees, with everything
it captured. The house bots' sampling made tens of thousands of such objects a second in
an arena engine, and each full collection then stopped every thread of it for hundreds
of milliseconds (engine_service/rules/knowledge.py, docs/arena.md)."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PRODUCT = ("engine_service", "bots", "ladders", "gateway", "domino_cli", "domino_wire",
           "plumbing")


def self_calling_closures(tree: ast.AST) -> list[tuple[str, int]]:
    """(outer.inner, line) of each nested function that calls itself by name, its outer
    function not letting go of it (`inner = None`, which empties the closure's cell)."""
    found = []
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for outer in ast.walk(tree):
        if not isinstance(outer, functions):
            continue
        let_go = {t.id for n in ast.walk(outer) if isinstance(n, ast.Assign)
                  and isinstance(n.value, ast.Constant) and n.value.value is None
                  for t in n.targets if isinstance(t, ast.Name)}
        for inner in ast.walk(outer):
            if inner is outer or not isinstance(inner, functions) or inner.name in let_go:
                continue
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                   and n.func.id == inner.name for n in ast.walk(inner)):
                found.append((f"{outer.name}.{inner.name}", inner.lineno))
    return found


def test_the_check_finds_a_self_calling_closure_and_accepts_one_let_go():
    kept = ast.parse("def f():\n    def go(i):\n        return go(i - 1) if i else 0\n"
                     "    return go(3)\n")
    let_go = ast.parse("def f():\n    def go(i):\n        return go(i - 1) if i else 0\n"
                       "    n = go(3)\n    go = None\n    return n\n")
    assert self_calling_closures(kept) == [("f.go", 2)]
    assert self_calling_closures(let_go) == []


def test_no_product_closure_calls_itself():
    found = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "domino_proto" in path.parts:
                continue
            found += [f"{path.relative_to(ROOT)}:{line} {name}"
                      for name, line in self_calling_closures(ast.parse(path.read_text()))]
    assert found == [], found
