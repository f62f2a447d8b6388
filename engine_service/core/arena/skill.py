"""The skill figures of an arena's leaderboard (docs/arena.md, docs/analysis.md): mean
seat-honest loss per decision and the share of luck, from the analyses of a sample of the
arena's matches, as a ladder's standings have them (ladders/skill.py).

The sample is deterministic, the same on every engine: a counted match is in it when it
is among the first ANALYSED counted matches of a (bot, version) of its line-up. The engine
whose matchmaker counts it asks for its analysis, as the engine's own job, while the
arena's analyses queued or running are fewer than AT_ONCE; one refused (the queue full, no
analyser, a duplicate set's deal still hidden) is left out. Every engine reads the kept
analyses from the store when it refreshes its leaderboard (board_cache.py), each match's
once it is found: the figures are never computed on a request.

An analysis names its seats by the bots' names, and a bot may play several versions: the
seats are keyed here by the (bot, version) the match's line-up sat there instead.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict, defaultdict

from ladders.skill import skill_figures

from ..errors import EngineError

log = logging.getLogger(__name__)

ANALYSED = 5            # the first counted matches of each (bot, version) in the sample
ANALYSIS_WORLDS = 200   # worlds a decision, as a ladder's sample: the figures compare
# Arena analyses queued or running at once, of the engine's 16 (analyses/service.py
# QUEUED): a busy arena's newcomers cannot take the queue, or the cores, from users,
# ladders and the matches in play (each analysis runs on every core).
AT_ONCE = 1
LOOKS = 16              # kept analyses looked for in the store per refresh, at most
FIRST_LOOK_S = 2.0      # a sampled match's analysis is first looked for this long after its end
GIVE_UP_S = 600.0       # ... and no longer once it ended this long ago: it was never made
DONE = ("done", "failed")
NO_FIGURES = {"analysed": 0, "mean_loss": None, "luck_share": None}


class Wanted:
    """A sampled match whose analysis is not read yet."""
    __slots__ = ("lineup", "ended", "next_look")

    def __init__(self, lineup: list, ended: float):
        self.lineup, self.ended = lineup, ended
        self.next_look = ended + FIRST_LOOK_S


class ArenaSkill:
    def __init__(self, engine):
        self.engine = engine
        self._lock = threading.Lock()
        self._wanted: dict[str, OrderedDict] = defaultdict(OrderedDict)  # arena -> id -> Wanted
        self._docs: dict[str, dict] = defaultdict(dict)   # arena -> match id -> keyed doc
        self._figures: dict[str, dict] = {}               # arena -> (bot, version) -> figures
        self._jobs: list = []                             # the analyses asked here, running

    def note(self, arena_id: str, result: dict, board) -> None:
        """`result` was just folded into `board`: its match joins the sample when it is
        among the first ANALYSED of a (bot, version) of its line-up."""
        lineup = [tuple(k) for k in result["lineup"]]
        if any(board.entries[k].matches <= ANALYSED for k in lineup):
            with self._lock:
                self._wanted[arena_id][result["match_id"]] = Wanted(
                    lineup, float(result.get("ended", 0.0)))

    def counted(self, arena_id: str, match_id: str) -> None:
        """The matchmaker here counted `match_id`: its analysis is asked for when it is of
        the sample and the arena's share of the queue has room."""
        with self._lock:
            if match_id not in self._wanted[arena_id]:
                return
            self._jobs = [j for j in self._jobs if j.state not in DONE]
            if len(self._jobs) >= AT_ONCE:
                log.info("arena %s: match %s not analysed (%d arena analyses at work)",
                         arena_id, match_id, len(self._jobs))
                return
        try:
            job = self.engine.analyses.request(match_id, None, ANALYSIS_WORLDS, None)
        except EngineError as e:   # no analyser, the queue full, a hidden deal: fewer
            log.info("arena %s: match %s not analysed (%s)", arena_id, match_id, e.reason)
            return
        with self._lock:
            self._jobs.append(job)

    def look(self, arena_id: str) -> None:
        """Read the kept analyses of sampled matches that are due (at most LOOKS): each
        one found is kept, one that never came is given up after GIVE_UP_S."""
        now = time.time()
        with self._lock:
            due = [(m, w) for m, w in self._wanted[arena_id].items() if w.next_look <= now]
        changed = False
        for match_id, w in due[:LOOKS]:
            params = self.engine.analyses.params(list(range(len(w.lineup))), ANALYSIS_WORLDS)
            doc = self.engine.store.analysis(match_id, params)
            with self._lock:
                if doc is not None:
                    self._docs[arena_id][match_id] = keyed(json.loads(doc), w.lineup)
                    changed = True
                if doc is not None or now - w.ended > GIVE_UP_S:
                    self._wanted[arena_id].pop(match_id, None)
                else:   # looked for again later and later: ages 2, 4, 8, ... seconds
                    w.next_look = now + max(now - w.ended, FIRST_LOOK_S)
        if changed:
            figures = skill_figures(list(self._docs[arena_id].values()))
            with self._lock:
                self._figures[arena_id] = figures

    def figures(self, arena_id: str) -> dict:
        """(bot, version) -> {"analysed", "decisions", "mean_loss", "luck_share"}, as read
        so far (no store read)."""
        with self._lock:
            return self._figures.get(arena_id, {})


def keyed(doc: dict, lineup: list) -> dict:
    """What skill_figures reads of an analysis, each seat named by the (bot, version) the
    line-up sat there (a bot's name is the same for all its versions)."""
    seats = []
    for s in doc.get("seats", []):
        if not 0 <= s["seat"] < len(lineup):
            continue
        sm = s["summary"]
        seats.append({"name": tuple(lineup[s["seat"]]),
                      "summary": {"decisions": sm["decisions"],
                                  "mean_loss": sm["mean_loss"] or 0.0},
                      "hands": [{"luck": h["luck"], "skill": h["skill"]}
                                for h in s.get("hands", [])]})
    return {"seats": seats}
