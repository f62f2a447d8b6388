"""Every reason code is one member of one enum, and each has its status."""

import ast
import pathlib

import grpc
import pytest

from engine_service.core.errors import STATUS, EngineError, Reason
from engine_service.rules import errors as rules_errors

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_reason_has_a_grpc_status_and_every_rules_reason_is_a_reason():
    assert set(STATUS) == set(Reason)
    for reason, code in STATUS.items():
        assert isinstance(getattr(grpc.StatusCode, code), grpc.StatusCode), reason
    assert set(rules_errors.REASONS) <= set(Reason)
    # and the rules' list is complete: every code constant of the rules module is in it
    constants = {v for k, v in vars(rules_errors).items() if k.isupper() and isinstance(v, str)}
    assert constants == set(rules_errors.REASONS)
    for r in rules_errors.REASONS:
        assert STATUS[Reason(r)] == "FAILED_PRECONDITION"    # illegal here and now


def test_an_unknown_reason_is_a_bug_not_a_new_code():
    with pytest.raises(ValueError):
        EngineError("NOT_A_REASON", "x")
    assert EngineError("STALE_VERSION", "x").code == "ABORTED"


def test_the_engine_names_reasons_by_the_enum_not_by_bare_strings():
    bare = []
    for path in (ROOT / "engine_service").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "EngineError"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bare, "EngineError with a bare string reason: " + ", ".join(bare)
