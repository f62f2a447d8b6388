"""What the arena tests ask of a real engine: its Arena service with or without an operator
key, lobbies opened by hand, and `domino bot --arena` processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import grpc

from domino_proto.domino.v1 import arena_pb2, arena_pb2_grpc, play_pb2, play_pb2_grpc


class LobbyStub:
    """A lobby stream in process: what the engine tells it, kept."""

    def __init__(self):
        self.pauses, self.seats, self.ended = [], [], []

    def seated(self, *seat):
        self.seats.append(seat)

    def paused(self, reason, message):
        self.pauses.append(reason)

    def end(self, error):
        self.ended.append(error)

    def finish(self):
        self.ended.append(None)


class ArenaClient:
    def __init__(self, address: str):
        self.address = address
        self.channel = grpc.insecure_channel(address)
        self.stub = arena_pb2_grpc.ArenaStub(self.channel)
        self.play = play_pb2_grpc.PlayStub(self.channel)

    def call(self, method: str, request, key: str = ""):
        metadata = (("authorization", f"Bearer {key}"),) if key else ()
        return getattr(self.stub, method)(request, timeout=10, metadata=metadata)

    def register(self, name: str, key: str = "", description: str = ""):
        return self.call("RegisterBot", arena_pb2.RegisterBotRequest(
            name=name, description=description), key)

    def board(self, arena: str = "hhl", all_versions: bool = False):
        return self.call("GetLeaderboard", arena_pb2.GetLeaderboardRequest(
            arena_id=arena, view=2 if all_versions else 1))

    def row(self, name: str, arena: str = "hhl", version: str = ""):
        for r in self.board(arena, all_versions=True).rows:
            if r.name == name and (not version or r.version == version):
                return r
        return None

    def matches(self, name: str, limit: int = 1000):
        return list(self.call("ListBotMatches", arena_pb2.ListBotMatchesRequest(
            name=name, limit=limit)).matches)

    def lobby(self, bot_key: str, version: str = "v1", arena: str = "hhl"):
        """A lobby stream opened by hand, kept open from our side (a half-close would end
        it) until the call ends."""
        hello = play_pb2.BotMessage(hello=play_pb2.Hello(arena=play_pb2.ArenaEnlist(
            bot_key=bot_key, version=version, arena=arena)))
        done = threading.Event()

        def requests():
            yield hello
            done.wait(60)

        call = self.play.Connect(requests(), timeout=60)
        call.add_done_callback(lambda _: done.set())
        return call

    def close(self):
        self.channel.close()


def first_message(call):
    """The first message of a stream, or the grpc.RpcError that ended it."""
    try:
        return next(call)
    except grpc.RpcError as e:
        return e


def arena_bot(address: str, bot_key: str, *extra: str, strategy: str = "greedy",
              version: str = "v1", arena: str = "hhl", matches: int = 1) -> subprocess.Popen:
    """`domino bot --arena` as a real process; the key in DOMINO_BOT_KEY, never in argv."""
    return subprocess.Popen(
        [sys.executable, "-m", "domino_cli", "bot", "--engine", address, "--arena", arena,
         "--version", version, "--strategy", strategy, "--matches", str(matches),
         "--progress-every", "0", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DOMINO_BOT_KEY": bot_key})


def wait_until(condition, timeout: float = 120, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
