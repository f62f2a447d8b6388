"""Words for the contract's enums, derived from the enums: VARIANT_HHL <-> "hhl".

The proto enums are the one table. Each value's word is its name without the enum's
prefix, in lower case (docs/glossary.md); the *_UNSPECIFIED value has no word of its own
and reads as the enum's default word, where it has one (SEAT_KIND_UNSPECIFIED is a bot).
tests/layers/test_vocabulary.py checks these words against the rules core, the ladders
and the REST schemas.
"""

from __future__ import annotations

from domino_proto.domino.v1 import arena_pb2, common_pb2, game_pb2, ladder_pb2


class Words:
    def __init__(self, enum, prefix: str, default: str | None = None):
        self.enum = enum
        self._word = {number: name.removeprefix(prefix).lower()
                      for name, number in enum.items() if number != 0}
        self._number = {word: number for number, word in self._word.items()}
        self.default = default
        if default is not None:
            self._word[0] = default

    @property
    def words(self) -> tuple[str, ...]:
        """Every word, in the enum's order (the unspecified value excluded)."""
        return tuple(self._number)

    def word(self, number: int) -> str | None:
        """The word of an enum value; None for an unknown value, or for UNSPECIFIED
        when the enum has no default."""
        return self._word.get(number)

    def number(self, word: str) -> int:
        """The enum value of a word; ValueError for an unknown word."""
        try:
            return self._number[word]
        except KeyError:
            raise ValueError(f"unknown {self.enum.DESCRIPTOR.name} {word!r}; use one of "
                             f"{', '.join(self._number)}") from None


VARIANT = Words(game_pb2.Variant, "VARIANT_")
SEAT_KIND = Words(common_pb2.SeatKind, "SEAT_KIND_", default="bot")
MATCH_STATUS = Words(common_pb2.MatchStatus, "MATCH_STATUS_")
LADDER_FORMAT = Words(ladder_pb2.LadderFormat, "LADDER_FORMAT_", default="rotation")
LADDER_STATUS = Words(ladder_pb2.LadderStatus, "LADDER_STATUS_")
LADDER_MATCH_STATUS = Words(ladder_pb2.LadderMatchStatus, "LADDER_MATCH_STATUS_")
LEADERBOARD_VIEW = Words(arena_pb2.LeaderboardView, "LEADERBOARD_VIEW_", default="latest")
ARENA_MATCH_STATUS = Words(arena_pb2.ArenaMatchStatus, "ARENA_MATCH_STATUS_")
# The rules profile and its readings (game.proto; engine_service/rules/options.py)
PROFILE = Words(game_pb2.Profile, "PROFILE_")
DEAD_STOCK = Words(game_pb2.DeadStock, "DEAD_STOCK_")
CLOSING_PASS = Words(game_pb2.ClosingPass, "CLOSING_PASS_")
FIRST_LEAD = Words(game_pb2.FirstLead, "FIRST_LEAD_")
