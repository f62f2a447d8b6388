"""The scripted situations of `domino conformance`: hand-built deals and the kit's moves.

Each script is a match record in the domino-record/1 format (docs/records.md) that stops
before the situation the bot under test must meet: the variant, its options (one deal:
HHL ``hands=1``, Domeng one round), the seats (named "kit" and "bot"), the deal, and the
moves the kit plays, in order. The kit creates the match with that deal
(CreateMatch.deals), plays ``moves[:start]`` (with the bot seat's own token where the
script has a bot move, in seat mode only), starts the bot, and plays ``moves[start]``
once the bot is connected, so that the bot's scripted turn starts with its whole turn
clock ahead of it. A move without "at" is the tile on whichever place the rules allow
first. Once the script's moves are played, the kit plays each of its seats' first legal
move (the engine's default move).

The bot's own choices are its own: every script leads to its situation whatever the
bot plays where it has a choice (tests/cli/test_conformance_scripts.py walks every
branch with the rules core, ``decision_points``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine_service import rules
from engine_service.rules import Move, Tile

FORMAT = "domino-record/1"
OPTIONS = {"hhl": {"hands": 1}, "domeng": {"cycles": 1, "round_cap": 1}}


@dataclass(frozen=True)
class Script:
    name: str
    record: dict     # domino-record/1: one deal, the kit's moves
    start: int       # moves[:start] before the bot starts, moves[start] once it is connected
    about: str       # what the bot meets, in words

    @property
    def variant(self) -> str:
        return self.record["variant"]

    @property
    def options(self) -> dict:
        return self.record["options"]

    @property
    def seats(self) -> list[str]:
        return self.record["seats"]

    @property
    def bot(self) -> int:
        return self.seats.index("bot")

    @property
    def deal(self) -> dict:
        d = self.record["deals"][0]
        return {k: v for k, v in d.items() if k != "moves"}

    @property
    def moves(self) -> list[dict]:
        return self.record["deals"][0]["moves"]

    @property
    def bot_moves_before(self) -> bool:
        """The kit plays some of the bot seat's moves before the bot starts (a seat token
        does that; a pool seat cannot)."""
        return any(m["seat"] == self.bot for m in self.moves[:self.start])


def _script(name: str, variant: str, seats: str, hands: list[str], rest: str,
            moves: list[str], start: int, about: str) -> Script:
    """`seats` like "kbkk" (k: kit, b: bot); hands and rest as space-separated tiles;
    moves as "seat tile [place [mode]]"."""
    turns = []
    for text in moves:
        seat, *move = text.split()
        turns.append({"seat": int(seat), **Move.parse(" ".join(move)).to_dict()})
    deal = {"hands": [h.split() for h in hands],
            ("stock" if variant == "hhl" else "sleeping"): rest.split(), "moves": turns}
    record = {"format": FORMAT, "variant": variant, "options": dict(OPTIONS[variant]),
              "seats": ["bot" if c == "b" else "kit" for c in seats], "deals": [deal]}
    return Script(name, record, start, about)


# ----- Homo Homini Lupus: seat 0 holds 0-0, the lowest double, and leads (HHL-2) ----------
HHL_FIRST = _script(
    "hhl-first", "hhl", "kbkk",
    ["4-4 6-2 4-2 4-0 3-0 0-0", "6-4 5-2 6-1 6-0 2-2 1-0",
     "6-3 5-3 4-3 3-3 4-1 5-0", "6-6 5-1 3-2 3-1 1-1 2-0"],
    "5-5 2-1 5-4 6-5", ["0 0-0"], 0,
    "the spinner 0-0 is down; the bot holds 6-0 and 1-0 (8 legal moves)")

HHL_DRAW = _script(
    "hhl-draw", "hhl", "kbkk",
    ["5-1 5-0 3-0 1-1 1-0 0-0", "6-6 6-5 5-5 6-4 5-3 2-2",
     "6-2 5-2 4-2 6-0 4-1 3-1", "5-4 4-4 4-3 6-1 3-3 2-0"],
    "6-3 4-0 3-2 2-1", ["0 0-0"], 0,
    "after the spinner 0-0 the bot holds no 0: it draws 6-3 and 4-0 and must play 4-0 (HHL-6)")

HHL_DOUBLE = _script(
    "hhl-double", "hhl", "kkbk",
    ["5-4 5-1 6-0 5-0 4-0 0-0", "6-2 4-3 5-2 4-1 2-2 3-0",
     "6-6 6-5 5-5 3-3 4-2 2-1", "6-3 5-3 6-1 3-1 2-0 1-0"],
    "3-2 1-1 4-4 6-4", ["0 0-0", "1 3-0 left"], 1,
    "the left arm ends in 3; the bot's only playable tile is 3-3: normal or barricade (HHL-5)")

HHL_CLOSED = _script(
    "hhl-closed", "hhl", "kkkb",
    ["5-5 2-2 4-0 2-1 1-1 0-0", "4-4 6-2 4-3 6-1 4-2 3-0",
     "5-4 6-3 3-3 5-1 2-0 1-0", "5-3 6-0 3-2 4-1 5-0 3-1"],
    "6-6 6-4 6-5 5-2", ["0 0-0", "1 3-0 left", "2 3-3 left barricade"], 2,
    "3-3 closed the left arm (HHL-5); the bot's 5-3, 3-2 and 3-1 fit only that arm")

HHL_LAST = _script(
    "hhl-last", "hhl", "kbkk",
    ["5-5 4-3 5-0 3-1 3-0 0-0", "6-3 5-2 4-2 2-2 4-0 1-1",
     "4-4 6-2 3-3 4-1 2-1 1-0", "6-6 5-4 5-3 6-0 3-2 2-0"],
    "6-4 6-5 6-1 5-1",
    ["0 0-0", "1 4-0 left", "2 4-1 left", "3 2-0 right", "0 3-1 left", "1 6-3 left",
     "2 6-2 left", "3 3-2 left", "0 3-0 left", "1 2-2 right normal", "2 1-0 left",
     "3 6-0 up", "0 5-0 down", "1 1-1 left normal", "2 2-1 left", "3 6-6 up normal",
     "0 5-5 down normal", "1 4-2 left", "2 4-4 left normal", "3 5-4 left", "0 6-4 up"], 20,
    "the bot holds its last tile, 5-2, and every move it has ends the hand and the match")

# ----- Domeng: seat 0 holds 6-6 and leads the first round (DOM-2) ------------------------
DOMENG_FIRST = _script(
    "domeng-first", "domeng", "kbkkk",
    ["6-6 6-5 5-3 6-2 0-0", "5-5 4-4 6-1 6-0 2-2", "5-4 5-2 3-2 2-1 1-1",
     "6-3 4-2 4-1 5-0 3-0", "6-4 4-3 3-3 3-1 4-0"],
    "2-0 1-0 5-1", ["0 6-6"], 0,
    "the lead 6-6 is down; the bot holds 6-1 and 6-0 (4 legal moves)")

DOMENG_PASSEBUNGE = _script(
    "domeng-passebunge", "domeng", "kbkkk",
    ["6-6 6-4 3-3 4-0 2-0", "5-3 4-2 3-2 2-1 3-0", "6-3 6-1 6-0 1-1 0-0",
     "6-2 4-3 5-2 2-2 3-1", "6-5 4-4 4-1 5-0 1-0"],
    "5-4 5-5 5-1", ["0 6-6"], 0,
    "the bot holds no 6 after the lead 6-6: the engine passes for it, a PASSEBUNGE (DOM-5)")

DOMENG_PASS = _script(
    "domeng-pass", "domeng", "kbkkk",
    ["6-6 5-4 6-3 6-2 2-2", "6-4 5-3 5-0 2-1 3-0", "4-2 6-0 3-2 4-1 1-0",
     "5-5 5-2 6-1 4-0 1-1", "4-4 4-3 5-1 3-1 0-0"],
    "6-5 2-0 3-3", ["0 6-6"], 0,
    "the bot lays 6-4, then cannot play: the engine passes for it, a PASS (DOM-5)")

DOMENG_LAST = _script(
    "domeng-last", "domeng", "kbkkk",
    ["6-6 6-3 5-2 3-2 2-0", "5-4 6-1 5-1 5-0 3-0", "5-3 6-2 4-2 4-0 0-0",
     "4-3 3-3 6-0 4-1 3-1", "6-5 5-5 2-2 2-1 1-0"],
    "6-4 1-1 4-4",
    ["0 6-6", "1 6-1 left", "2 6-2 right", "3 3-1 left", "4 2-1 right", "0 3-2 left",
     "1 5-1 right", "2 4-2 left", "3 4-1 left", "4 1-0 left", "0 2-0 left", "1 5-0 right",
     "2 0-0 right", "3 6-0 right", "4 2-2 left", "0 5-2 left", "1 5-4 left", "2 4-0 left",
     "4 6-5 right"], 18,
    "the bot holds its last tile, 3-0: its only move ends the round and the match (CAPPU)")

SCRIPTS = {s.name: s for s in (HHL_FIRST, HHL_DRAW, HHL_DOUBLE, HHL_CLOSED, HHL_LAST,
                               DOMENG_FIRST, DOMENG_PASSEBUNGE, DOMENG_PASS, DOMENG_LAST)}
FIRST = {"hhl": HHL_FIRST, "domeng": DOMENG_FIRST}
LAST = {"hhl": HHL_LAST, "domeng": DOMENG_LAST}


# ----- walking a script with the rules core -------------------------------------------------
def kit_move(match, seat: int, entry: dict | None) -> Move:
    """The move the kit plays for `seat`: the script's entry, or the first legal move."""
    legal = match.legal_moves(seat)
    if entry is None:
        return legal[0]
    wanted = Move.from_dict(entry)
    for m in legal:
        if m.tile == wanted.tile and (wanted.at is None or m.at == wanted.at) and (
                wanted.mode is None or m.mode == wanted.mode):
            return m
    raise ValueError(f"{Move.from_dict(entry)} by seat {seat} is not legal: "
                     f"{', '.join(str(m) for m in legal)}")


def decision_points(script: Script, depth: int = 2) -> list[list[dict]]:
    """Every way the bot's first `depth` decisions can go, the kit playing as it does:
    one list per branch, of the bot's decision points, each {"events": the events it saw
    since the one before (the rules' dicts, as the bot's seat sees them), "legal": the
    legal moves' texts, "view": its view, "chose": what this branch plays}; a branch that
    ends first closes with {"over": True, "events": ...}."""
    bot, moves = script.bot, script.moves
    out: list[list[dict]] = []

    def walk(plays: list, k: int, points: list) -> None:
        match = rules.new_match(script.variant, script.options, 0, deals=[script.deal])
        for seat, move in plays:
            match.play(seat, move)
        plays, events = list(plays), []
        while not match.over and (match.to_move != bot or (k < script.start
                                                           and moves[k]["seat"] == bot)):
            seat = match.to_move
            entry = None
            if k < len(moves):
                entry = moves[k]
                if entry["seat"] != seat:
                    raise ValueError(f"the script's move {k} is seat {entry['seat']}'s, but "
                                     f"seat {seat} is to move")
                k += 1
            move = kit_move(match, seat, entry)
            plays.append((seat, move))
            events += [e.to_dict(bot) for e in match.play(seat, move)]
        if match.over:
            out.append(points + [{"over": True, "events": events}])
            return
        legal = match.legal_moves(bot)
        point = {"events": events, "legal": [str(m) for m in legal], "view": match.view(bot)}
        if len(points) + 1 >= depth:
            out.append(points + [point])
            return
        for move in legal:
            walk(plays + [(bot, move)], k, points + [dict(point, chose=str(move))])

    walk([], 0, [])
    walk = None   # it calls itself through its closure: a cycle (rules/knowledge.py says why)
    return out


def tiles_not_in(hand: list[str]) -> list[str]:
    """The tiles of the set that are not in `hand`, highest first (an illegal tile to send)."""
    held = {Tile.parse(t) for t in hand}
    return [str(t) for t in sorted(rules.TILES, reverse=True) if t not in held]
