"""What the OpenAPI document declares, against what the gateway does: the Location of
every 201, 405/413/415 where they can come, the reasons each 409 can be (exactly those),
the options with the ranges the engine enforces, the one shape of legal moves, no unused
component; and docs/gateway.md's error table against every reason the gateway can answer,
and its command synopsis against `--help`."""

import ast
import pathlib
import re

import pytest
from gateway_support import error, seat_everyone
from openapi_schema_validator import OAS31Validator

from domino_cli.main import build_parser
from engine_service.core.errors import Reason
from engine_service.rules import errors as rules_errors
from engine_service.rules.domeng import DomengMatch
from engine_service.rules.hhl import HHLMatch
from gateway import api, engine_client, errors, variants

ROOT = pathlib.Path(__file__).resolve().parents[2]
GATEWAY_MD = (ROOT / "docs" / "gateway.md").read_text()
M = "/api/v1/matches"
METHODS = {"get", "post", "put", "delete", "patch"}
EVENTS = "/api/v1/matches/{match_id}/events"
STREAMS = (EVENTS, "/api/v1/matches/{match_id}/analysis/events")   # no Flask routes


@pytest.fixture(scope="module")
def doc(app):
    return app.test_client().get("/api/v1/openapi.json").get_json()


def operations(doc):
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            if method in METHODS:
                yield path, method, op


def reasons_of(op: dict, status: int) -> set[str]:
    schema = op["responses"][str(status)]["content"]["application/json"]["schema"]
    return set(schema["allOf"][1]["properties"]["reason"]["enum"])


def test_every_answer_is_declared_where_it_can_come(doc):
    for path, method, op in operations(doc):
        responses = op["responses"]
        assert {"502", "503", "504", "default"} <= set(responses), (path, method)
        if path not in STREAMS:    # a stream is no Flask route: another method is a 404
            assert responses["405"]["headers"]["Allow"], (path, method)
        if "requestBody" in op:    # a body: too large, or not JSON
            assert {"413", "415"} <= set(responses), (path, method)
        created = responses.get("201")
        if created:
            assert "Location" in created["headers"], (path, method)
    post = next(op for p, m, op in operations(doc) if (p, m) == (M, "post"))
    assert reasons_of(post, 415) == {"UNSUPPORTED_MEDIA_TYPE"}
    assert reasons_of(post, 405) == {"METHOD_NOT_ALLOWED"}


def test_the_answers_of_405_and_415_are_the_declared_ones(client, doc):
    ops = {(p, m): op for p, m, op in operations(doc)}
    r = client.delete(M)
    body = error(r, 405, "METHOD_NOT_ALLOWED")
    assert r.headers["Allow"]
    validate(doc, ops[(M, "get")]["responses"]["405"], body)
    r = client.post(M, data="variant=hhl", content_type="text/plain")
    validate(doc, ops[(M, "post")]["responses"]["415"], error(r, 415, "UNSUPPORTED_MEDIA_TYPE"))
    r = client.post(M, json={"variant": "hhl"})
    assert r.status_code == 201 and r.headers["Location"] == f"{M}/{r.get_json()['match_id']}"


def validate(doc, answer: dict, body) -> None:
    schema = answer["content"]["application/json"]["schema"]
    OAS31Validator({**schema, "components": doc["components"]}).validate(body)


def test_each_409_lists_exactly_the_reasons_its_operation_can_answer(doc):
    ops = {(p, m): op for p, m, op in operations(doc)}
    assert api.RULES_REFUSALS == rules_errors.REASONS     # the rules' own, in their order
    assert reasons_of(ops[(M + "/{match_id}/moves", "post")], 409) == {
        *rules_errors.REASONS, "STALE_VERSION"}
    assert reasons_of(ops[(M + "/{match_id}/seats/{seat}/claim", "post")], 409) == {
        "SEAT_TAKEN", "POOL_SEAT"}
    # a duplicate ladder's match is hidden until its set is over (docs/security.md)
    assert reasons_of(ops[(M + "/{match_id}/record", "get")], 409) == {
        "MATCH_NOT_OVER", "DEAL_IN_PLAY"}
    assert reasons_of(ops[(M + "/{match_id}", "get")], 409) == {"DEAL_IN_PLAY"}
    assert reasons_of(ops[(M + "/{match_id}/events", "get")], 409) == {"DEAL_IN_PLAY"}
    assert reasons_of(ops[(M + "/{match_id}/worlds", "get")], 409) == {"MATCH_OVER"}
    for analysis in ("/analysis", "/analysis/events"):
        assert reasons_of(ops[(M + "/{match_id}" + analysis, "get")], 409) == {
            "MATCH_NOT_OVER", "DEAL_IN_PLAY", "ANALYSIS_OFF"}
    assert reasons_of(ops[(M, "post")], 409) == {"NO_HOUSE_BOT"}
    assert reasons_of(ops[("/api/v1/ladders/{ladder_id}/cancel", "post")], 409) == {
        "LADDER_OVER"}
    bots = "/api/v1/arena/bots"
    assert reasons_of(ops[(bots, "post")], 409) == {"BOT_NAME_TAKEN"}
    for verb in ("rotate", "retire"):
        assert reasons_of(ops[(bots + "/{name}/" + verb, "post")], 409) == {"BOT_RETIRED"}
    assert sorted((p, m) for p, m, op in operations(doc) if "409" in op["responses"]) == sorted([
        (M, "post"), (M + "/{match_id}", "get"), (M + "/{match_id}/seats/{seat}/claim", "post"),
        (M + "/{match_id}/moves", "post"), (M + "/{match_id}/worlds", "get"),
        (M + "/{match_id}/events", "get"), (M + "/{match_id}/record", "get"),
        (M + "/{match_id}/analysis", "get"), (M + "/{match_id}/analysis/events", "get"),
        ("/api/v1/ladders/{ladder_id}/cancel", "post"),
        (bots, "post"), (bots + "/{name}/rotate", "post"), (bots + "/{name}/retire", "post")])


def test_the_refusals_of_a_move_are_answered_as_declared(client, doc):
    """Each kind of 409 a move gets is one the document lists for it."""
    move = {(p, m): op for p, m, op in operations(doc)}[(M + "/{match_id}/moves", "post")]
    match_id, auths = seat_everyone(client, "hhl", 1, {"hands": 1})
    state = client.get(f"{M}/{match_id}/view", headers=auths[0]).get_json()
    other = (state["to_move"] + 1) % 4
    for auth, body, reason in (
            (auths[other], {"version": state["version"], "move_text": "6-6"}, "NOT_YOUR_TURN"),
            (auths[state["to_move"]], {"version": state["version"] + 5, "move_id": "0"},
             "STALE_VERSION")):
        answer = error(client.post(f"{M}/{match_id}/moves", headers=auth, json=body), 409,
                       reason)
        validate(doc, move["responses"]["409"], answer)


def test_options_have_the_ranges_the_engine_enforces(client, doc):
    """gateway/variants.py's options are the rules core's Option specs, as the engine
    tells them (GET /variants), and the document's options say so: integers with their
    ranges, enum options (the rules profile and its readings) with their words."""
    listed = {v["id"]: v["options"] for v in client.get("/api/v1/variants").get_json()["variants"]}
    told = {v: {o["name"]: (o["min"], o["max"], o["default"]) for o in opts if o["type"] == "integer"}
            for v, opts in listed.items()}
    told_words = {v: {o["name"]: tuple(o["choices"]) for o in opts if o["type"] == "enum"}
                  for v, opts in listed.items()}
    assert all(o["default"] == o["choices"][0] for opts in listed.values() for o in opts
               if o["type"] == "enum")
    rules = {m.variant: {o.name: (o.lo, o.hi, o.default) for o in m.OPTIONS if not o.is_enum}
             for m in (HHLMatch, DomengMatch)}
    rules_words = {m.variant: {o.name: o.choices for o in m.OPTIONS if o.is_enum}
                   for m in (HHLMatch, DomengMatch)}
    assert variants.OPTIONS == told == rules
    assert variants.WORDS == told_words == rules_words
    schemas = doc["components"]["schemas"]
    for variant, name in (("hhl", "HHL"), ("domeng", "Domeng")):
        for schema in (schemas[f"{name}Options"], schemas[f"{name}OptionsInput"]):
            props = schema["properties"]
            assert {k: (p["minimum"], p["maximum"]) for k, p in props.items() if "minimum" in p} \
                == {k: (lo, hi) for k, (lo, hi, _) in variants.OPTIONS[variant].items()}
            assert {k: tuple(w for w in p["enum"] if w is not None) for k, p in props.items()
                    if "enum" in p} == variants.WORDS[variant]
        given = schemas[f"{name}OptionsInput"]["properties"]
        for k, (_, _, default) in variants.OPTIONS[variant].items():
            told = "none" if default is None else str(default)
            assert f"Null or absent: {told};" in given[k]["description"], (k, given[k])
            assert "default" not in given[k]     # a generator would make it required
    options = schemas["CreateMatch"]["properties"]["options"]
    assert options["oneOf"] == [{"$ref": "#/components/schemas/HHLOptionsInput"},
                                {"$ref": "#/components/schemas/DomengOptionsInput"}]
    # the request's variant says which (if/then), so a validator refuses the other game's
    create = {**schemas["CreateMatch"], "components": doc["components"]}
    OAS31Validator(create).validate({"variant": "hhl", "options": {"hands": 2}})
    OAS31Validator(create).validate({"variant": "domeng", "options": {"profile": "literal",
                                                                      "first_lead": "double"}})
    for wrong in ({"variant": "hhl", "options": {"cycles": 2}},
                  {"variant": "domeng", "options": {"cycles": 101}},
                  {"variant": "hhl", "options": {"profile": "letter"}},
                  {"variant": "hhl", "options": {"first_lead": "any"}}):
        assert not OAS31Validator(create).is_valid(wrong), wrong


def test_legal_moves_have_one_shape_in_rest(client, doc):
    match_id, auths = seat_everyone(client, "hhl", 2, {"hands": 1})
    seat = client.get(f"{M}/{match_id}").get_json()["to_move"]
    state = client.get(f"{M}/{match_id}/view", headers=auths[seat]).get_json()
    assert state["legal_moves"] and state["view"]["legal_moves"] == state["legal_moves"]
    assert set(state["legal_moves"][0]) == {"id", "text"}
    schemas = doc["components"]["schemas"]
    assert schemas["HHLView"]["properties"]["legal_moves"]["items"] == {
        "$ref": "#/components/schemas/LegalMove"}


def test_no_component_is_left_unused(doc):
    """Every schema is reached from a path, but StreamMessage: a client's type for a
    parsed message of the event stream (the route's x-sse-events name the data schemas)."""
    text = repr(doc["paths"])
    reached, todo = set(), set(re.findall(r"#/components/schemas/(\w+)", text))
    while todo:
        name = todo.pop()
        reached.add(name)
        todo |= set(re.findall(r"#/components/schemas/(\w+)",
                               repr(doc["components"]["schemas"][name]))) - reached
    unused = set(doc["components"]["schemas"]) - reached
    assert unused == {"StreamMessage", "SnapshotMessage", "EventsMessage", "KeepaliveMessage",
                      "MatchOverMessage", "ErrorMessage"}
    assert "PaginationMetadata" not in doc["components"]["schemas"]


# ----- docs/gateway.md ---------------------------------------------------------------------
def gateway_reasons() -> set[str]:
    """Every reason the gateway can answer: its own (each ApiError it raises, the names of
    the HTTP errors it turns into JSON), its words for an engine error that came without a
    reason, and every reason of the engine a REST call can be refused with."""
    own = set()
    for path in (ROOT / "gateway").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ApiError"
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)):
                own.add(node.args[1].value)
    own |= set(errors.GATEWAY_REASONS.values())
    own |= {reason for _, reason in engine_client.HTTP_OF.values()} | {"UNKNOWN_LADDER"}
    # A Play stream's and a pool bot's Hello are refused with these, and an arena bot's
    # lobby and seat streams; REST sends no Hello and takes no bot key. SLOW_READER ends
    # an engine stream its reader left unread: REST reads none.
    not_rest = {Reason.HELLO_TIMEOUT, Reason.BAD_POOL_SECRET, Reason.BAD_BOT_KEY,
                Reason.NOT_SEATED, Reason.LOBBY_REPLACED, Reason.STANDBY_REPLACED,
                Reason.SLOW_READER}
    return own | {str(r) for r in Reason if r not in not_rest}


def table() -> str:
    start = GATEWAY_MD.index("| what went wrong | reasons | HTTP |")
    return GATEWAY_MD[start:GATEWAY_MD.index("\n\n", start)]


def test_the_error_table_names_every_reason_the_gateway_can_answer(doc):
    listed = set(re.findall(r"`([A-Z][A-Z_]*[A-Z])`", table()))
    assert listed == gateway_reasons()
    assert "`HTTP_<status>`" in table() and '"HTTP_" + str(status)' in (
        ROOT / "gateway" / "errors.py").read_text()
    # and the reasons the document lists for each answer are the table's
    declared = set()
    for _, _, op in operations(doc):
        for answer in op["responses"].values():
            schema = answer.get("content", {}).get("application/json", {}).get("schema", {})
            if "allOf" in schema:
                declared |= set(schema["allOf"][1]["properties"]["reason"]["enum"])
    assert declared <= listed, declared - listed
    assert "NO_HOUSE_BOT" in declared


@pytest.mark.parametrize("command", ["serve", "gateway"])
def test_the_synopsis_names_the_options_of_help(command):
    """The code block of docs/gateway.md names each command's options, as --help does."""
    block = GATEWAY_MD[GATEWAY_MD.index("```\ndomino serve"):]
    block = block[:block.index("```", 3)]
    lines, mine = block.splitlines(), []
    for i, line in enumerate(lines):
        if line.startswith(f"domino {command} "):
            mine = [line] + [rest for rest in lines[i + 1:i + 3] if rest.startswith(" " * 13)]
    documented = set(re.findall(r"(--[a-z-]+)", " ".join(mine)))
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices[command]
    helped = {o for a in sub._actions for o in a.option_strings if o.startswith("--")}
    assert documented == helped - {"--help"}
