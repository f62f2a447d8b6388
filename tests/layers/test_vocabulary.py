"""One word for each concept (docs/glossary.md): the enum words of the contract, the rules
core, the ladders and the REST schemas agree, because each table exists once."""

from domino_proto.domino.v1 import common_pb2
from domino_wire.names import LADDER_FORMAT, LADDER_STATUS, MATCH_STATUS, SEAT_KIND, VARIANT
from engine_service import rules
from engine_service.core.ladders import director as ladder_director
from engine_service.core.matches import referee, seats
from gateway import schemas, schemas_ladders
from ladders.formats import FORMATS


def test_enum_words_are_the_words_of_the_code():
    assert VARIANT.words == tuple(rules.VARIANTS) == ("hhl", "domeng")
    assert SEAT_KIND.words == (seats.BOT, seats.PERSON) == ("bot", "person")
    assert SEAT_KIND.word(common_pb2.SEAT_KIND_UNSPECIFIED) == "bot"
    assert MATCH_STATUS.words == (referee.WAITING, referee.LIVE, referee.OVER)
    assert LADDER_FORMAT.words == FORMATS
    assert LADDER_STATUS.words == (ladder_director.RUNNING, ladder_director.DONE,
                                   ladder_director.CANCELLED, ladder_director.FAILED)


def test_rest_takes_the_same_words():
    assert schemas.VARIANT_IDS == VARIANT.words
    assert schemas.SEAT_KINDS == SEAT_KIND.words
    assert schemas.STATUSES == MATCH_STATUS.words
    assert schemas_ladders.FORMATS == LADDER_FORMAT.words


def test_words_and_numbers_round_trip_and_unknown_words_are_refused():
    for words in (VARIANT, SEAT_KIND, MATCH_STATUS, LADDER_FORMAT, LADDER_STATUS):
        for w in words.words:
            assert words.word(words.number(w)) == w
    assert VARIANT.word(0) is None and VARIANT.word(77) is None
    try:
        VARIANT.number("chess")
        raise AssertionError("an unknown word must be refused")
    except ValueError as e:
        assert "hhl, domeng" in str(e)
