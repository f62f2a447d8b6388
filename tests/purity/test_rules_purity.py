"""engine_service/rules must stay pure: standard library only, no I/O (design.md)."""

import ast
import pathlib
import sys

RULES = pathlib.Path(__file__).resolve().parents[2] / "engine_service" / "rules"
# Standard-library modules that do I/O, talk to the network or the clock: not in the rules.
FORBIDDEN_STDLIB = {"os", "io", "socket", "sqlite3", "subprocess", "threading", "asyncio",
                    "time", "datetime", "pathlib", "shutil", "urllib", "http", "logging"}


def imports_of(path: pathlib.Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, 0
        elif isinstance(node, ast.ImportFrom):
            yield node.lineno, node.module or "", node.level


def test_rules_import_only_the_standard_library_and_no_io():
    files = sorted(RULES.glob("*.py"))
    assert len(files) >= 5, "the rules package moved?"
    bad = []
    for path in files:
        for line, module, level in imports_of(path):
            if level > 0:
                continue  # relative: inside the rules package
            top = module.split(".")[0]
            if top not in sys.stdlib_module_names or top in FORBIDDEN_STDLIB:
                bad.append(f"{path.name}:{line} imports {module}")
    assert not bad, "rules must be pure:\n" + "\n".join(bad)


def test_the_purity_check_catches_a_third_party_import(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("import grpc\nfrom . import tiles\nimport random\n")
    found = [(m, lvl) for _, m, lvl in imports_of(f)]
    assert ("grpc", 0) in found and ("random", 0) in found
    assert "grpc" not in sys.stdlib_module_names and "random" in sys.stdlib_module_names
