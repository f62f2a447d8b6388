"""One word for each concept (docs/glossary.md): the enum words of the contract, the rules
core, the ladders, the REST schemas and the command line agree, because each table of words
exists once. Statuses that travel as text (REST, the command line) are checked against
their tables too: no closed set of words is spelled out by hand anywhere else."""

import ast
import inspect
import pathlib

from marshmallow import Schema, fields, validate

from domino_cli.conformance import cases as conformance
from domino_proto.domino.v1 import common_pb2, game_pb2
from domino_wire import game
from domino_wire.names import (
    CLOSING_PASS,
    DEAD_STOCK,
    FIRST_LEAD,
    LADDER_FORMAT,
    LADDER_MATCH_STATUS,
    LADDER_STATUS,
    MATCH_STATUS,
    PROFILE,
    SEAT_KIND,
    VARIANT,
)
from engine_service import rules
from engine_service.core.ladders import director as ladder_director
from engine_service.core.matches import referee, seats
from engine_service.rules.match import RECORD_FORMAT
from gateway import schemas, schemas_game, schemas_ladders, schemas_record, schemas_stream
from gateway import variants as gateway_variants
from ladders.formats import FORMATS

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Every closed set of words that REST takes or gives, by what it names: the contract's
# enums (domino_wire.names and domino_wire.game), the event kinds of game.proto's Event,
# and the yardsticks the gateway offers.
TABLES = {
    "variant": VARIANT.words, "seat kind": SEAT_KIND.words, "match status": MATCH_STATUS.words,
    "ladder format": LADDER_FORMAT.words, "ladder status": LADDER_STATUS.words,
    "ladder match status": LADDER_MATCH_STATUS.words, "place": game.PLACE.words,
    "mode": game.MODE.words, "deal end": game.DEAL_END.words,
    "cappu kind": game.CAPPU_KIND.words,
    "event kind": tuple(f.name for f in game_pb2.Event.DESCRIPTOR.oneofs_by_name["body"].fields),
    "yardstick": schemas_ladders.YARDSTICKS,
    "record format": (RECORD_FORMAT,),
    "rules profile": PROFILE.words, "dead stock": DEAD_STOCK.words,
    "closing pass": CLOSING_PASS.words, "first lead": FIRST_LEAD.words,
    "option type": gateway_variants.OPTION_TYPES,
}
STATUS_TABLES = {k: TABLES[k] for k in ("match status", "ladder status", "ladder match status")}


def test_enum_words_are_the_words_of_the_code():
    assert VARIANT.words == tuple(rules.VARIANTS) == ("hhl", "domeng")
    assert SEAT_KIND.words == (seats.BOT, seats.PERSON) == ("bot", "person")
    assert SEAT_KIND.word(common_pb2.SEAT_KIND_UNSPECIFIED) == "bot"
    assert MATCH_STATUS.words == (referee.WAITING, referee.LIVE, referee.OVER)
    assert LADDER_FORMAT.words == FORMATS
    assert LADDER_STATUS.words == (ladder_director.RUNNING, ladder_director.DONE,
                                   ladder_director.CANCELLED, ladder_director.FAILED,
                                   ladder_director.PAUSED)
    assert LADDER_MATCH_STATUS.words == (ladder_director.PLAYING, ladder_director.COUNTED,
                                         ladder_director.VOIDED)


def test_rest_takes_the_same_words():
    assert schemas.VARIANT_IDS == VARIANT.words
    assert schemas.SEAT_KINDS == SEAT_KIND.words
    assert schemas.STATUSES == MATCH_STATUS.words
    assert schemas_ladders.FORMATS == LADDER_FORMAT.words
    assert schemas_ladders.LADDER_MATCH_STATUSES == LADDER_MATCH_STATUS.words


def _choices(field, where: str):
    """(where, choices) of every OneOf in a field, through lists and dicts."""
    if isinstance(field, fields.List):
        yield from _choices(field.inner, where + "[]")
    if isinstance(field, fields.Dict):
        for part in (field.key_field, field.value_field):
            if part is not None:
                yield from _choices(part, where + "{}")
    for v in field.validators:
        if isinstance(v, validate.OneOf) and all(isinstance(c, str) for c in v.choices):
            yield where, tuple(v.choices)      # words (a record's `"pass": true` is none)


def rest_words():
    """(schema.field, its words) of every REST field that takes or gives a closed set."""
    for module in (schemas, schemas_game, schemas_ladders, schemas_record, schemas_stream):
        for name, cls in vars(module).items():
            if inspect.isclass(cls) and issubclass(cls, Schema) and cls.__module__ == module.__name__:
                for field_name, field in cls._declared_fields.items():
                    yield from _choices(field, f"{name}.{field_name}")


def test_every_closed_set_of_words_in_rest_comes_from_its_table():
    """A variant's own part of a table is fine (HHL's deal ends, a discriminator's one
    value); words of no table are not."""
    found = list(rest_words())
    assert len(found) > 20, "the schemas moved?"
    strays = [(where, words) for where, words in found
              if not any(set(words) <= set(table) for table in TABLES.values())]
    assert not strays, f"words of no table: {strays}"


def test_every_rest_status_is_one_whole_table_and_an_enum_in_the_document():
    statuses = [(where, words) for where, words in rest_words()
                if where.rsplit(".", 1)[1] == "status"]
    assert statuses and all(words in STATUS_TABLES.values() for _, words in statuses), statuses
    # The error body's `status` is HTTP's reason phrase ("Conflict"), not a word of ours.
    free = [f"{name}.status" for module in (schemas, schemas_ladders)
            for name, cls in vars(module).items()
            if inspect.isclass(cls) and issubclass(cls, Schema) and cls is not schemas.ErrorSchema
            and isinstance(cls._declared_fields.get("status"), fields.String)
            and not any(isinstance(v, validate.OneOf)
                        for v in cls._declared_fields["status"].validators)]
    assert not free, f"a status that is a free string: {free}"

    from gateway.app import create_app
    doc = create_app({"ENGINE_CLIENT": object()}).test_client().get(
        "/api/v1/openapi.json").get_json()
    documented = {name: schema["properties"]["status"]
                  for name, schema in doc["components"]["schemas"].items()
                  if "status" in schema.get("properties", {}) and name != "Error"}
    assert {"Match", "Ladder", "LadderMatch"} <= set(documented)
    for name, prop in documented.items():
        assert tuple(prop.get("enum", ())) in STATUS_TABLES.values(), (name, prop)


def _spelled_statuses(where: str, words: set[str], allowed: set[str] = frozenset()):
    """(file:line, word) of each status word compared by hand in a package or module (a
    string constant in a comparison), outside the modules that define the tables."""
    base = ROOT / where
    for path in sorted(base.rglob("*.py") if base.is_dir() else [base]):
        rel = str(path.relative_to(ROOT))
        if rel in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                for part in [node.left, *node.comparators]:
                    items = part.elts if isinstance(part, (ast.Tuple, ast.List, ast.Set)) else [part]
                    for item in items:
                        if isinstance(item, ast.Constant) and item.value in words:
                            yield f"{rel}:{node.lineno}", item.value


def test_the_command_line_and_the_gateway_compare_no_status_spelled_by_hand():
    """Statuses the `domino` command and REST emit are read from their tables: the
    contract's (domino_wire.names), and the conformance kit's verdicts (cases.VERDICTS)."""
    contract = {w for table in STATUS_TABLES.values() for w in table}
    verdicts = set(conformance.VERDICTS)    # "pass" is also an event kind elsewhere
    spelled = [*_spelled_statuses("domino_cli", contract),
               *_spelled_statuses("gateway", contract),
               *_spelled_statuses("domino_cli/conformance", verdicts,
                                  {"domino_cli/conformance/cases.py"}),
               *_spelled_statuses("domino_cli/conformance_cmd.py", verdicts)]
    assert not spelled, spelled
    assert conformance.VERDICTS == (conformance.PASS, conformance.FAIL, conformance.SKIP)


def test_words_and_numbers_round_trip_and_unknown_words_are_refused():
    for words in (VARIANT, SEAT_KIND, MATCH_STATUS, LADDER_FORMAT, LADDER_STATUS,
                  LADDER_MATCH_STATUS):
        for w in words.words:
            assert words.word(words.number(w)) == w
    assert VARIANT.word(0) is None and VARIANT.word(77) is None
    try:
        VARIANT.number("chess")
        raise AssertionError("an unknown word must be refused")
    except ValueError as e:
        assert "hhl, domeng" in str(e)
