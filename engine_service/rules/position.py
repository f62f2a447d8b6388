"""What a live HHL hand and a live Domeng round share: whose turn it is, whose tiles are
whose, and refusing a move with the legal moves attached before anything changes."""

from .errors import NOT_YOUR_TURN, TILE_NOT_IN_HAND, IllegalMove
from .tiles import TEXT


class Position:
    __slots__ = ()  # the variants declare their own slots: hands, turn, ...

    def legal_moves(self) -> list:
        raise NotImplementedError

    def _refuse(self, reason: str, message: str):
        raise IllegalMove(reason, message, self.legal_moves())

    def _check_turn_and_tile(self, seat: int, tile) -> None:
        if seat != self.turn:
            self._refuse(NOT_YOUR_TURN, f"it is seat {self.turn}'s turn, not seat {seat}'s")
        if not self.hands[seat] >> tile & 1:
            self._refuse(TILE_NOT_IN_HAND, f"{TEXT[tile]} is not in seat {seat}'s hand")
