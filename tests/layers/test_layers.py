"""The layers of the house (docs/design.md, docs/architecture.md), checked on every import.

Every import of every module counts, the ones inside functions too. A relative import is
resolved to the module it names. The rules are the table LAYERS below; each package (or
sub-package) may import only what its row allows; the rooms of the engine's core import
only the rooms below them (CORE_ROOMS); and no two packages, nor two modules, import each
other in a cycle, directly or round a longer loop.
"""

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OURS = ("engine_service", "plumbing", "bots", "gateway", "ladders", "domino_cli",
        "domino_wire", "domino_proto", "analysis")
# Standard-library modules that do I/O, talk to the network or the clock: not in the rules.
IO_STDLIB = {"os", "io", "socket", "sqlite3", "subprocess", "threading", "asyncio", "time",
             "datetime", "pathlib", "shutil", "urllib", "http", "logging", "select",
             "selectors", "signal", "multiprocessing", "concurrent"}
GRPC = ("grpc", "grpc_health", "grpc_reflection", "grpc_status", "google.protobuf",
        "domino_proto", "domino_wire")


def modules_of(package: str) -> list[tuple[str, pathlib.Path]]:
    base = ROOT.joinpath(*package.split("."))
    files = [base.with_suffix(".py")] if base.with_suffix(".py").exists() else sorted(base.rglob("*.py"))
    out = []
    for path in files:
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append((".".join(parts), path))
    return out


def imports_of(module: str, path: pathlib.Path):
    """(line, absolute module name) of every import in the file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if node.module is None or node.level:
                # `from . import codec` imports engine_service.rpc.codec
                for alias in node.names:
                    yield node.lineno, f"{name}.{alias.name}" if name else alias.name
            else:
                yield node.lineno, name


def under(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def violations(package: str, may_not, allow=None) -> list[str]:
    """Imports in `package` that `may_not(name)` refuses."""
    bad = []
    for module, path in modules_of(package):
        for line, name in imports_of(module, path):
            if allow is not None and under(name, allow):
                continue
            if may_not(name):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return bad


def stdlib_only(name: str, io_allowed: bool) -> bool:
    top = name.split(".")[0]
    return top in sys.stdlib_module_names and (io_allowed or top not in IO_STDLIB)


# package -> a function saying which imports it may not make
LAYERS = {
    # pure: the standard library without I/O, and itself
    "engine_service.rules": lambda n: not (under(n, ["engine_service.rules"])
                                           or stdlib_only(n, io_allowed=False)),
    # plumbing shared by the engine and the bots: the standard library only
    "plumbing": lambda n: not (under(n, ["plumbing"]) or stdlib_only(n, io_allowed=True)),
    # match authority: no grpc, no generated code, nothing above it
    "engine_service.core": lambda n: under(n, [*GRPC, "engine_service.rpc", "bots", "gateway",
                                               "domino_cli", "flask", "analysis"]),
    # the one place in the engine that speaks gRPC: nothing above it
    "engine_service.rpc": lambda n: under(n, ["bots", "gateway", "domino_cli", "flask", "analysis"]),
    # the analysis of finished matches: the rules core and the reference policy's bots,
    # nothing of the engine's core, no I/O beyond its worker processes (the engine gets
    # it from the composition root, as it gets its yardsticks)
    "analysis": lambda n: not (under(n, ["analysis", "engine_service.rules", "bots.strategies"])
                               or stdlib_only(n, io_allowed=True)),
    # pure: formats, ratings, statistics, standings
    "ladders": lambda n: under(n, [p for p in OURS if p != "ladders"]),
    # bots use the rules core of the engine and nothing else of it: a bot process needs
    # no engine
    "bots": lambda n: (under(n, ["engine_service"]) and not under(n, ["engine_service.rules"])
                       or under(n, ["gateway", "domino_cli"])),
    # the gateway talks to the engine over gRPC only
    "gateway": lambda n: under(n, ["engine_service", "bots", "ladders", "domino_cli"]),
    # helpers over the generated code: nothing of the product
    "domino_wire": lambda n: under(n, ["engine_service", "bots", "gateway", "ladders",
                                       "domino_cli"]),
}
# within engine_service, only these modules may import grpc or the generated code
ENGINE_GRPC_ALLOWED = ("engine_service.rpc",)

# The rooms of engine_service.core, lowest first: a room may import the rooms of lower
# floors (and its own), never a room of its floor or above. engine.py puts them together.
CORE = "engine_service.core"
CORE_FLOORS = (
    ("errors", "metrics"),
    ("security", "storage"),
    ("matches",),
    ("ladders", "cluster", "sampling", "arena", "analyses"),
    ("engine",),
)


def core_room(name: str) -> str | None:
    if not under(name, [CORE]) or name == CORE:
        return None
    return name[len(CORE) + 1:].split(".")[0]


def floor_of(room: str) -> int:
    return next(i for i, rooms in enumerate(CORE_FLOORS) if room in rooms)


def test_every_package_imports_only_what_its_layer_allows():
    bad = []
    for package, may_not in LAYERS.items():
        assert modules_of(package), f"{package} moved?"
        bad += violations(package, may_not)
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_only_the_rpc_layer_of_the_engine_imports_grpc_or_generated_code():
    bad = []
    for module, path in modules_of("engine_service"):
        if under(module, ENGINE_GRPC_ALLOWED):
            continue
        bad += [f"{path.relative_to(ROOT)}:{line} imports {name}"
                for line, name in imports_of(module, path) if under(name, GRPC)]
    assert not bad, "\n".join(bad)


def test_nothing_imports_the_command_line_and_the_engine_imports_no_bots_or_gateway():
    bad = []
    for package in ("engine_service", "bots", "gateway", "ladders", "domino_wire", "analysis"):
        bad += violations(package, lambda n: under(n, ["domino_cli"]))
    bad += violations("engine_service", lambda n: under(n, ["bots", "gateway"]))
    assert not bad, "\n".join(bad)


def test_the_rooms_of_the_core_import_only_the_rooms_below_them():
    bad = []
    rooms = {core_room(m) for m, _ in modules_of(CORE)} - {None}
    assert rooms == {r for floor in CORE_FLOORS for r in floor}, "a room came or went"
    for module, path in modules_of(CORE):
        room = core_room(module)
        if room is None:
            continue
        for line, name in imports_of(module, path):
            other = core_room(name)
            if other is not None and other != room and floor_of(other) >= floor_of(room):
                bad.append(f"{path.relative_to(ROOT)}:{line} ({room}) imports {name} ({other})")
    assert not bad, "imports against the rooms of the core:\n" + "\n".join(bad)


def module_graph() -> dict[str, set[str]]:
    """Every module of ours -> the modules of ours it imports (a package's import counts
    as its __init__)."""
    mods = {}
    for package in OURS:
        if package == "domino_proto":
            continue
        for module, path in modules_of(package):
            mods[module] = path
    graph = {m: set() for m in mods}
    for module, path in mods.items():
        for _, name in imports_of(module, path):
            while name and name not in mods:
                name = name.rpartition(".")[0]     # `from pkg.mod import Name`
            if name and name != module and not module.startswith(name + "."):
                graph[module].add(name)
    return graph


def test_no_import_cycle_between_modules():
    graph = module_graph()
    found = cycle_in(graph)
    assert found is None, f"import cycle: {' -> '.join(found)}"


def package_graph() -> dict[str, set[str]]:
    graph = {p: set() for p in OURS if p != "domino_proto"}
    for package in graph:
        for module, path in modules_of(package):
            for _, name in imports_of(module, path):
                top = name.split(".")[0]
                if top in graph and top != package:
                    graph[package].add(top)
    return graph


def cycle_in(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path + [node, nxt]
            if nxt not in state:
                found = visit(nxt, path + [node])
                if found:
                    return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def test_no_import_cycle_between_top_level_packages():
    graph = package_graph()
    assert cycle_in(graph) is None, f"import cycle: {' -> '.join(cycle_in(graph))}"
    assert graph["domino_cli"] >= {"engine_service", "bots", "gateway", "ladders"}


def test_the_checks_catch_what_they_should(tmp_path, monkeypatch):
    pkg = tmp_path / "engine_service" / "core"
    pkg.mkdir(parents=True)
    (tmp_path / "engine_service" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "x.py").write_text("import grpc\nfrom ..rpc import codec\nfrom . import referee\n"
                              "def f():\n    import bots.runner\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = violations("engine_service.core", LAYERS["engine_service.core"])
    assert [b.split(" imports ")[1] for b in found] == ["grpc", "engine_service.rpc.codec",
                                                         "bots.runner"]
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle_in({"a": {"b"}, "b": set()}) is None
    assert floor_of("storage") < floor_of("matches") < floor_of("ladders") < floor_of("engine")
    assert core_room("engine_service.core.matches.referee") == "matches"
    assert core_room("engine_service.core") is None
    assert LAYERS["engine_service.rules"]("random") is False
    assert LAYERS["engine_service.rules"]("threading") is True
