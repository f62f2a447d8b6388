"""Broken: it believes it sits at the seat after DOMINO_SEAT, and moves whenever the events
say that seat is to move (as well as answering its own TurnRequests)."""

from base import Bot, main

from domino_proto.domino.v1 import play_pb2


class WrongSeat(Bot):
    skip_events = False

    def on_events(self, batch) -> None:
        for event in batch.events:
            if event.WhichOneof("body") != "play":
                continue
            believed = self.seat + 1
            if event.play.seat + 1 == believed and event.version not in self.answered:
                self.send(play_pb2.MoveChoice(match_id=self.match_id, version=event.version,
                                              move_text="6-6"))


if __name__ == "__main__":
    main(WrongSeat)
