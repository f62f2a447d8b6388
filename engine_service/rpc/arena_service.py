"""The gRPC Arena service (arena.proto): decode, one call on engine.arenas, encode.

Every field is checked at the edge before anything is looked up or stored: names and
versions by the arena room (core/arena/), the numbers here (limit, before)."""

from __future__ import annotations

import asyncio
import math

from domino_proto.domino.v1 import arena_pb2, arena_pb2_grpc, ladder_pb2
from domino_wire import game
from domino_wire.names import ARENA_MATCH_STATUS, LEADERBOARD_VIEW, VARIANT
from plumbing.daemon_pool import DaemonPool

from ..core.arena.accounts import BotInfo
from ..core.security import limits
from .codec import effective_options
from .status import async_refusals, bearer, refusals

LIMIT_MAX = limits.ARENA_LIST_MAX
DEFAULT_MATCHES = 50
HISTORY_MAX = limits.RATING_POINTS_MAX
ALL_VERSIONS = LEADERBOARD_VIEW.number("all_versions")
ENCODED_MAX = 64    # encoded leaderboards kept (views and limits asked), then begun again


def bot_info(b: BotInfo) -> arena_pb2.BotInfo:
    return arena_pb2.BotInfo(bot_id=b.bot_id, name=b.name, description=b.description,
                             owner=b.owner, created_unix_s=b.created, retired=bool(b.retired),
                             retired_unix_s=b.retired, resident=bool(b.resident))


def row(r: dict) -> arena_pb2.LeaderboardRow:
    return arena_pb2.LeaderboardRow(
        place=r["place"], bot_id=r["bot_id"], name=r["name"], version=r["version"],
        owner=r["owner"], mu=r["mu"], sigma=r["sigma"], score=r["score"],
        provisional=r["provisional"], matches=r["matches"], mean=r["mean"],
        ci95=r["ci95"] if math.isfinite(r["ci95"]) else math.inf,
        faults=ladder_pb2.Faults(**r["faults"]), online=r["online"],
        last_seen_unix_s=r["last_seen"], resident=r["resident"], retired=r["retired"],
        analysed_matches=r["analysed"], mean_loss=r["mean_loss"], luck_share=r["luck_share"])


def seat_entry(e: dict) -> arena_pb2.ArenaSeatEntry:
    return arena_pb2.ArenaSeatEntry(bot_id=e["bot_id"], name=e["name"], version=e["version"],
                                    resident=e["resident"])


def result(r: dict, entries: list[dict]) -> arena_pb2.ArenaResult:
    return arena_pb2.ArenaResult(
        match_id=r["match_id"], arena_id=r["arena"], sequence=r["sequence"],
        lineup=[seat_entry(e) for e in entries], scores=r["scores"], titles=r["titles"],
        deals=r["deals"], faults=[ladder_pb2.Faults(**f) for f in r["faults"]],
        ended_unix_s=r["ended"], set=r.get("set", 0), rotation=r.get("rotation", 0))


def arena_match(m: dict) -> arena_pb2.ArenaMatch:
    return arena_pb2.ArenaMatch(
        match_id=m["match_id"], arena_id=m["arena_id"],
        status=ARENA_MATCH_STATUS.number(m["status"]),
        lineup=[seat_entry(e) for e in m["lineup"]], created_unix_s=m["created"],
        result=result(m["result"], m["lineup"]) if m["result"] else None)


def leaderboard(b: dict, every: bool, limit: int) -> arena_pb2.Leaderboard:
    return arena_pb2.Leaderboard(
        arena_id=b["arena_id"], variant=VARIANT.number(b["variant"]),
        view=ALL_VERSIONS if every else LEADERBOARD_VIEW.number("latest"),
        matches=b["matches"], last_sequence=b["last_sequence"],
        rows=[row(r) for r in b["rows"][:limit]])


class ArenaServicer(arena_pb2_grpc.ArenaServicer):
    def __init__(self, engine):
        self.engine = engine
        self.arenas = engine.arenas
        # (arena, all versions, limit) -> (the cached answer, its encoding); written on the
        # event loop only (the leaderboards' thread reads it)
        self._encoded: dict[tuple, tuple] = {}
        # The leaderboards' work, on a thread of its own: not the loop's default executor,
        # where a thousand lobbies' enlistments queue (each a store write) when they connect
        self._boards = DaemonPool(1, "leaderboards")

    def _principal(self, context):
        return self.engine.keys.principal(bearer(context))

    @refusals
    def RegisterBot(self, request, context):
        principal = self._principal(context)
        bot, key = self.arenas.register(principal, request.name, request.description)
        return arena_pb2.RegisterBotResponse(bot=bot_info(bot), bot_key=key)

    @refusals
    def RotateBotKey(self, request, context):
        principal = self._principal(context)
        bot, key = self.arenas.rotate(principal, request.name)
        return arena_pb2.RegisterBotResponse(bot=bot_info(bot), bot_key=key)

    @refusals
    def RetireBot(self, request, context):
        return bot_info(self.arenas.retire(self._principal(context), request.name))

    @refusals
    def ListArenas(self, request, context):
        return arena_pb2.ListArenasResponse(arenas=[arena_pb2.ArenaInfo(
            arena_id=a["id"], variant=VARIANT.number(a["variant"]),
            options=game.options_pb(a["variant"], effective_options(a["variant"], a["options"])),
            duplicate=a["duplicate"],
            clock_ms=a["clock_ms"], seat_wait_s=a["seat_wait_s"],
            provisional_below=a["provisional_below"], bots_online=a["bots_online"],
            matches_playing=a["matches_playing"], matches_counted=a["matches_counted"],
            matches_voided=a["matches_voided"], matchmaker=a["matchmaker"],
            residents=a["residents"]) for a in self.arenas.list_arenas()])

    @async_refusals
    async def GetLeaderboard(self, request, context):
        """On the event loop, from the cached answer (core/arena/board_cache.py) and its
        encoding, kept until the answer changes: a GET costs the loop a lookup. Measured at
        1,000 arena bots, the same call made on the thread pool waited seconds for the loop
        to take its answer back, while a call answered on the loop took milliseconds. Any
        work (a first build, rows made again, an arena not seen yet, the encoding of a new
        answer) is done on a thread."""
        limit = limits.integer(request.limit, "limit", 1, LIMIT_MAX, zero_ok=True) or LIMIT_MAX
        if LEADERBOARD_VIEW.word(request.view) is None:
            raise limits.refuse("view", f"must be one of {', '.join(LEADERBOARD_VIEW.words)}")
        every = request.view == ALL_VERSIONS
        b = self.arenas.leaderboard_ready(request.arena_id, every)
        if b is not None:
            hit = self._encoded.get((b["arena_id"], every, limit))
            if hit is not None and hit[0] is b:
                return hit[1]
        # Any work in one turn of the leaderboards' thread; what the call needs is noted
        # now, so that a call queued behind others may find it made meanwhile.
        asked = None if b is not None else self.arenas.leaderboard_asked(request.arena_id)
        b, message = await asyncio.get_running_loop().run_in_executor(
            self._boards, self._answer, request.arena_id, every, limit, b, asked)
        if len(self._encoded) >= ENCODED_MAX:
            self._encoded.clear()
        self._encoded[(b["arena_id"], every, limit)] = (b, message)
        return message

    def _answer(self, arena_id: str, every: bool, limit: int, b: dict | None,
                asked: tuple[int, int] | None) -> tuple[dict, arena_pb2.Leaderboard]:
        """On the leaderboards' thread: the answer (`b`, or made now) and its encoding
        (kept already when an earlier turn encoded it: the loop's dict is only read here)."""
        if b is None:
            b = self.arenas.leaderboard(arena_id, every, 0, asked)
        hit = self._encoded.get((b["arena_id"], every, limit))
        return b, hit[1] if hit is not None and hit[0] is b else leaderboard(b, every, limit)

    @refusals
    def GetBot(self, request, context):
        p = self.arenas.profile(request.name)
        return arena_pb2.BotProfile(
            bot=bot_info(p["bot"]),
            versions=[arena_pb2.BotVersion(
                arena_id=v["arena_id"], version=v["version"], row=row(v["row"]),
                online=v["online"], free=v["free"], paused=v["paused"],
                connected_unix_s=v["connected"]) for v in p["versions"]],
            live=[arena_match(m) for m in p["live"]])

    @refusals
    def ListBotMatches(self, request, context):
        limit = limits.integer(request.limit, "limit", 1, LIMIT_MAX, zero_ok=True) \
            or DEFAULT_MATCHES
        before = request.before_unix_s
        if not (math.isfinite(before) and 0 <= before < 1e12):
            raise limits.refuse("before_unix_s", "must be 0 (the newest) or a time in Unix "
                                "seconds")
        found, more = self.arenas.bot_matches(request.name, limit, before)
        return arena_pb2.ListBotMatchesResponse(matches=[arena_match(m) for m in found],
                                                more=more)

    @refusals
    def GetRatingHistory(self, request, context):
        limit = limits.integer(request.limit, "limit", 1, HISTORY_MAX, zero_ok=True)
        h = self.arenas.history(request.arena_id, request.name, request.version, limit)
        return arena_pb2.RatingHistory(
            arena_id=h["arena_id"], bot_id=h["bot_id"], name=h["name"], version=h["version"],
            points=[arena_pb2.RatingPoint(sequence=s, time_unix_s=t, mu=mu, sigma=sg)
                    for s, t, mu, sg in h["points"]])
