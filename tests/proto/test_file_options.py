"""Every .proto file of domino.v1 carries the same file options, so that each language's
generator puts the five files in one package with no flags of its own (protoc's M flags
for Go, say), and the Go import path is the one docs/bots.md tells Go authors about."""

import pathlib

from .support import FILES, ROOT, descriptors

# The options a generator of each language needs; every file has these and nothing else.
NEEDED = {"go_package", "java_package", "java_multiple_files", "java_outer_classname",
          "csharp_namespace", "php_namespace"}
PER_FILE = {"java_outer_classname"}   # Java's holder class of each file: one name per file


def options_of(tmp_path) -> dict[str, dict[str, object]]:
    return {name: {field.name: value for field, value in f.options.ListFields()}
            for name, f in descriptors(tmp_path).items()}


def test_there_are_proto_files_to_check():
    assert len(FILES) >= 5, FILES


def test_every_file_has_the_same_options(tmp_path):
    options = options_of(tmp_path)
    assert set(options) == {f"domino/v1/{f.name}" for f in FILES}
    for name, found in options.items():
        assert set(found) == NEEDED, (f"{name}: options {sorted(found)}; every file of "
                                      f"domino.v1 carries exactly {sorted(NEEDED)}")
    first = next(iter(options.values()))
    for name, found in options.items():
        for option in NEEDED - PER_FILE:
            assert found[option] == first[option], (name, option, found[option])


def test_the_package_wide_values(tmp_path):
    found = next(iter(options_of(tmp_path).values()))
    path, _, package = found["go_package"].partition(";")
    assert package == "dominov1" and path.endswith("/domino/v1"), found["go_package"]
    assert found["java_multiple_files"] is True
    assert (found["java_package"], found["csharp_namespace"], found["php_namespace"]) == (
        "domino.v1", "Domino.V1", "Domino\\V1")


def test_each_java_holder_class_is_named_after_its_file(tmp_path):
    """Without it, a file whose name is that of one of its services (engine.proto, service
    Engine) gets the holder class EngineOuterClass."""
    for name, found in options_of(tmp_path).items():
        stem = pathlib.PurePosixPath(name).stem
        assert found["java_outer_classname"] == stem.capitalize() + "Proto", name


def test_docs_give_go_authors_the_go_package(tmp_path):
    go_package = next(iter(options_of(tmp_path).values()))["go_package"]
    assert f'"{go_package}"' in (ROOT / "docs" / "bots.md").read_text()
