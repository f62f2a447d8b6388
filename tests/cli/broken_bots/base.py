"""A minimal seat bot for the conformance tests, from the generated Play stubs alone.

It does what docs/bots.md asks, each step a method that a broken bot overrides: connect
with DOMINO_ENGINE, DOMINO_MATCH and DOMINO_SEAT_TOKEN, answer every TurnRequest once
with its first legal move at its version, answer a TurnRequest sent again after a refusal,
reconnect with the same Hello when the stream breaks, exit 0 at MatchOver.
"""

from __future__ import annotations

import os
import queue
import sys
import time

import grpc

from domino_proto.domino.v1 import play_pb2, play_pb2_grpc

RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN,
         grpc.StatusCode.INTERNAL}
DONE = object()


class Bot:
    skip_events = True

    def __init__(self):
        self.engine = os.environ["DOMINO_ENGINE"]
        self.match_id = os.environ["DOMINO_MATCH"]
        self.seat = int(os.environ["DOMINO_SEAT"])
        self.token = os.environ["DOMINO_SEAT_TOKEN"]
        self.answered: dict[int, play_pb2.BotMessage] = {}    # version -> our move
        self.refused: set[int] = set()
        self.outbox: queue.Queue = queue.Queue()

    # ----- what a broken bot changes ---------------------------------------------------------
    def on_turn(self, state) -> None:
        if state.version in self.answered and state.version not in self.refused:
            return                                   # a duplicate
        self.refused.discard(state.version)
        self.send(play_pb2.MoveChoice(match_id=self.match_id, version=state.version,
                                      move_id=state.legal_moves[0].id))

    def on_refusal(self, answer) -> None:
        self.refused.add(answer.submitted_version)    # the TurnRequest comes again

    def on_events(self, batch) -> None:
        pass

    def on_broken(self, error: grpc.RpcError) -> bool:
        """The stream broke: True to connect again."""
        return error.code() in RETRY

    # ----- the connection ----------------------------------------------------------------------
    def send(self, choice: play_pb2.MoveChoice) -> None:
        message = play_pb2.BotMessage(move=choice)
        self.answered[choice.version] = message
        self.outbox.put(message)

    def messages(self):
        yield play_pb2.BotMessage(hello=play_pb2.Hello(
            seat=play_pb2.SeatAuth(match_id=self.match_id, seat_token=self.token),
            client="conformance test bot", skip_events=self.skip_events))
        while True:
            message = self.outbox.get()
            if message is DONE:
                return
            yield message

    def run(self) -> int:
        delay = 0.1
        with grpc.insecure_channel(self.engine) as channel:
            stub = play_pb2_grpc.PlayStub(channel)
            while True:
                self.outbox = queue.Queue()
                try:
                    for message in stub.Connect(self.messages()):
                        delay = 0.1
                        kind = message.WhichOneof("body")
                        if kind == "turn":
                            self.on_turn(message.turn.state)
                        elif kind == "answer" and not message.answer.accepted:
                            self.on_refusal(message.answer)
                        elif kind == "events":
                            self.on_events(message.events)
                        elif kind == "match_over":
                            self.outbox.put(DONE)
                            return 0
                except grpc.RpcError as e:
                    self.outbox.put(DONE)
                    if not self.on_broken(e):
                        print(f"broken bot: the stream ended: {e.code().name}", file=sys.stderr)
                        return 1
                time.sleep(delay)
                delay = min(delay * 2, 2.0)


def main(cls=Bot) -> None:
    sys.exit(cls().run())


if __name__ == "__main__":
    main()
