"""The battery of `domino conformance`: each case is a scripted match and a check.

A case names the situation the bot meets (scripts.py builds it), what the kit does to the
conversation (a refusal it provokes, an engine restart, a short turn clock) and how the
outcome is judged: ``check(run) -> (verdict, reason)``, the reason one line that says
what the bot did ("answered version 7 after the refusal; expected 8"). Faults that no
case forgives (watch.faults: a move out of turn, a late answer, an unprovoked refusal,
the clock playing for the bot) fail any case whose own check passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import scripts
from .watch import Attempt, Tamper, Turn

# Every verdict a case ends with: the one table of them (the report and the exit status
# read it; tests/layers/test_vocabulary.py checks that nothing else spells them).
PASS, FAIL, SKIP = "pass", "fail", "skip"
VERDICTS = (PASS, FAIL, SKIP)
CLOCK_MS = 5000          # the turn clock of every case but "clock": room for a slow start
SHORT_CLOCK_MS = 1000    # the "clock" case's


@dataclass(frozen=True)
class Case:
    name: str
    variant: str
    script: scripts.Script
    check: Callable
    about: str
    tamper: str = Tamper.NONE
    clock_ms: int = CLOCK_MS
    restart: bool = False          # restart the engine after the bot's first accepted move
    pool_script: scripts.Script | None = None   # in --pool mode (None: the same script)

    @property
    def key(self) -> str:
        return f"{self.variant} {self.name}"


@dataclass(frozen=True)
class PoolCase:
    """A case for pool bots only: `matches` matches of `script` at once, `capacity` given."""
    name: str
    variant: str
    script: scripts.Script
    matches: int
    capacity: int
    check: Callable
    about: str

    @property
    def key(self) -> str:
        return f"{self.variant} {self.name}"


# ----- helpers the checks share --------------------------------------------------------------
def move_text(turn: Turn, attempt: Attempt) -> str:
    """The move the attempt chose, in words (the offered move with that id, or its text)."""
    c = attempt.choice
    if c.WhichOneof("move") == "move_text":
        return c.move_text
    for m in turn.state.legal_moves:
        if m.id == c.move_id:
            return m.text
    return f"id {c.move_id!r}"


def after(attempts: list[Attempt], t: float) -> list[Attempt]:
    return [a for a in attempts if a.t > t]


def answered(run, turn: Turn, what: str = "its turn") -> tuple[str, str, Attempt | None]:
    """Did the bot answer `turn` at its version with a move the engine took?"""
    mine = [a for a in after(run.attempts, turn.t - 1e-6)]
    if not mine:
        return FAIL, f"did not answer {what} (version {turn.state.version}){run.why_silent()}", None
    a = mine[0]
    v = turn.state.version
    if a.choice.version != v:
        return FAIL, f"answered version {a.choice.version} to {what}; expected {v}", a
    if a.answer is not None and not a.answer.accepted:
        r = a.answer.refusal
        return FAIL, f"its move {move_text(turn, a)!r} at version {v} was refused: {r.reason}", a
    return PASS, f"answered version {v} with {move_text(turn, a)!r} in " \
        f"{(a.t - turn.t) * 1000:.0f} ms", a


def first_turn(run) -> Turn | None:
    return run.turns[0] if run.turns else None


def need_turn(run):
    turn = first_turn(run)
    if turn is None:
        return None, (FAIL, f"was never asked to move{run.why_silent()}")
    return turn, None


# ----- the checks ------------------------------------------------------------------------------
def check_first(run):
    turn, bad = need_turn(run)
    if bad:
        return bad
    verdict, reason, _ = answered(run, turn, "its first TurnRequest")
    return verdict, reason + ("; accepted" if verdict == PASS else "")


def _retry(run, first: Attempt, expected_version: int, reason: str):
    """The bot's answer to the TurnRequest the engine sends again after a refusal."""
    later = after(run.attempts, first.t)
    if not later:
        return FAIL, f"did not answer the TurnRequest sent again after the refusal " \
            f"({reason}){run.why_silent()}"
    a = later[0]
    if a.choice.version != expected_version:
        return FAIL, f"answered version {a.choice.version} after the refusal; expected " \
            f"{expected_version}"
    if a.answer is not None and not a.answer.accepted:
        return FAIL, f"its retry at version {expected_version} was refused too: " \
            f"{a.answer.refusal.reason}"
    return PASS, f"retried at version {expected_version} after {reason}; accepted"


def check_stale(run):
    turn = run.observer.tampered_turn
    if turn is None:
        return need_turn(run)[1] or (FAIL, "kit: no TurnRequest was changed")
    real = turn.state.version + 1
    mine = after(run.attempts, turn.t)
    if not mine:
        return FAIL, f"did not answer the TurnRequest of version {turn.state.version}" \
            f"{run.why_silent()}"
    a = mine[0]
    if a.choice.version != turn.state.version:
        return FAIL, f"answered version {a.choice.version} to a TurnRequest of version " \
            f"{turn.state.version}: a move carries its TurnRequest's version"
    if a.answer is None or a.answer.accepted or a.answer.refusal.reason != "STALE_VERSION":
        return FAIL, "kit: the engine did not refuse the stale version"
    return _retry(run, a, real, "STALE_VERSION")


def check_unknown_id(run):
    return _check_changed_move(run, "UNKNOWN_MOVE_ID")


def check_illegal(run):
    return _check_changed_move(run, "")


def _check_changed_move(run, expected: str):
    """The kit sent the engine another move than the bot's first (an unknown id, a tile
    the bot does not hold); the bot must answer the TurnRequest the engine sends again."""
    tampered = [a for a in run.attempts if a.tampered]
    if not tampered:
        return need_turn(run)[1] or (FAIL, "kit: no move was changed")
    a = tampered[0]
    if a.answer is None or a.answer.accepted or (
            expected and a.answer.refusal.reason != expected):
        return FAIL, f"kit: the engine did not refuse {a.forwarded}"
    f = a.forwarded
    sent = f.move_text if f.WhichOneof("move") == "move_text" else f"id {f.move_id}"
    return _retry(run, a, a.choice.version, f"{a.answer.refusal.reason} for {sent!r}")


def check_draw(run):
    turn, bad = need_turn(run)
    if bad:
        return bad
    tiles = {m.text.split()[0] for m in turn.state.legal_moves}
    if len(tiles) != 1 or not turn.state.view.hhl.HasField("drawn"):
        return FAIL, f"kit: the bot was offered {', '.join(sorted(tiles))}, not one drawn tile"
    verdict, reason, a = answered(run, turn, "the turn after its draw")
    if verdict != PASS:
        return verdict, reason
    return PASS, f"drew, was offered only {tiles.pop()} (HHL-6) and played " \
        f"{move_text(turn, a)!r}; accepted"


def check_double(run):
    turn, bad = need_turn(run)
    if bad:
        return bad
    modes = {m.text.split()[-1] for m in turn.state.legal_moves}
    if modes != {"normal", "barricade"}:
        return FAIL, f"kit: the bot was offered {[m.text for m in turn.state.legal_moves]}"
    verdict, reason, a = answered(run, turn, "the choice of mode")
    if verdict != PASS:
        return verdict, reason
    return PASS, f"chose {move_text(turn, a)!r} of the two modes (HHL-5) at version " \
        f"{turn.state.version}; accepted"


def check_closed(run):
    turn, bad = need_turn(run)
    if bad:
        return bad
    closed = [a for a in turn.state.view.hhl.arms if a.closed]
    if not closed or any(" left" in m.text for m in turn.state.legal_moves):
        return FAIL, "kit: the left arm is not closed in the bot's view"
    verdict, reason, a = answered(run, turn, "its turn beside the closed arm")
    if verdict != PASS:
        return verdict, reason
    return PASS, f"with the left arm barricaded, played {move_text(turn, a)!r} at version " \
        f"{turn.state.version}; accepted"


def _check_pass(run, passebunge: bool):
    word = "PASSEBUNGE" if passebunge else "PASS"
    passes = [e for e in run.table.events_of("pass", run.seat)
              if getattr(e, "pass").passebunge == passebunge]
    if not passes:
        return FAIL, f"kit: the engine made no {word} for the bot's seat"
    v = passes[0].version
    early = [a for a in run.attempts if a.choice.version < v and not _asked(run, a)]
    if early:
        return FAIL, f"sent a move at version {early[0].choice.version} while the engine " \
            f"passed for it ({word})"
    later = [t for t in run.turns if t.state.version >= v]
    if not later:
        return PASS, f"the engine made its {word} at version {v}; it sent nothing then"
    verdict, reason, _ = answered(run, later[0], "its turn after the pass")
    if verdict != PASS:
        return verdict, reason
    return PASS, f"the engine made its {word} at version {v}, it sent nothing then, and it " \
        f"{reason}"


def _asked(run, attempt: Attempt) -> bool:
    return any(t.state.version == attempt.choice.version for t in run.turns)


def check_pass(run):
    return _check_pass(run, False)


def check_passebunge(run):
    return _check_pass(run, True)


def check_restart(run):
    if run.restarted_at is None:
        return need_turn(run)[1] or (FAIL, "kit: the engine was not restarted (the bot's "
                                     "first move was never accepted)")
    back = [c for c in run.observer.conns if c.started > run.restarted_at and (
        run.match_id in c.welcomed)]
    if not back:
        return FAIL, f"did not connect again after the engine restart{run.why_silent()}"
    took = back[0].started - run.restarted_at
    # Accepted; or unanswered because it ended the match (its MatchOver says it stood).
    played = [a for a in after(run.attempts, run.restarted_at)
              if (a.answer is not None and a.answer.accepted) or (a.answer is None and run.over)]
    if not played:
        return FAIL, f"connected again {took:.1f} s after the restart but made no accepted " \
            f"move after it{run.why_silent()}"
    return PASS, f"connected again {took:.1f} s after the restart and played version " \
        f"{played[0].choice.version}"


def check_over(run):
    turn, bad = need_turn(run)
    if bad:
        return bad
    if not run.over:
        return FAIL, f"the match did not end{run.why_silent()}"
    if run.exit_after_over is None:
        return FAIL, f"still running {run.exit_wait_s:.0f} s after its MatchOver"
    code = run.bot.returncode
    if code != 0:
        return FAIL, f"{run.bot.status()} after its MatchOver"
    return PASS, f"exited with status 0 {run.exit_after_over:.1f} s after its MatchOver"


def check_clock(run):
    turn, bad = need_turn(run)
    if bad:
        return bad
    margins = []
    for t in run.turns:
        a = next((a for a in after(run.attempts, t.t - 1e-6)
                  if a.choice.version == t.state.version), None)
        if a is None:
            continue
        margins.append((t.state.deadline_unix_ms - a.wall_ms) / 1000)
        if margins[-1] < 0:
            return FAIL, f"answered version {t.state.version} {-margins[-1]:.2f} s after its " \
                f"deadline (clock {run.case.clock_ms / 1000:g} s)"
    if not margins:
        return FAIL, f"answered none of its turns{run.why_silent()}"
    return PASS, f"answered {len(margins)} turns, each at least {min(margins):.2f} s before " \
        f"its deadline (clock {run.case.clock_ms / 1000:g} s)"


# ----- pool cases: judged over several matches -----------------------------------------------
def check_capacity(pool_run):
    hello = pool_run.hello
    if hello is None:
        return FAIL, f"never enlisted{pool_run.why_silent()}"
    if hello.pool.capacity != pool_run.case.capacity:
        return FAIL, f"enlisted with capacity {hello.pool.capacity}; DOMINO_POOL_CAPACITY " \
            f"was {pool_run.case.capacity}"
    most = pool_run.most_at_once()
    if most < pool_run.case.capacity:
        return FAIL, f"played at most {most} matches at once with capacity " \
            f"{pool_run.case.capacity}"
    return pool_run.all_played(f"enlisted with capacity {hello.pool.capacity}, played "
                               f"{most} at once")


def check_several(pool_run):
    if pool_run.hello is None:
        return FAIL, f"never enlisted{pool_run.why_silent()}"
    most = pool_run.most_at_once()
    if most < pool_run.case.matches:
        return FAIL, f"played at most {most} of {pool_run.case.matches} matches at once"
    return pool_run.all_played(f"played {most} matches at once")


# ----- the battery ---------------------------------------------------------------------------
S = scripts.SCRIPTS


def battery(variant: str) -> list:
    first = scripts.FIRST[variant]
    cases = [
        Case("first-turn", variant, first, check_first, "its first turn: " + first.about),
        Case("refusal-stale", variant, first, check_stale,
             "its first TurnRequest shown one version old: the engine refuses STALE_VERSION "
             "and asks again", tamper=Tamper.STALE),
        Case("refusal-illegal", variant, first, check_illegal,
             "its first move replaced by a tile it does not hold: refused, asked again",
             tamper=Tamper.ILLEGAL),
        Case("refusal-unknown-id", variant, first, check_unknown_id,
             "its first move sent with an id the engine never gave: refused "
             "UNKNOWN_MOVE_ID, asked again", tamper=Tamper.UNKNOWN_ID),
    ]
    if variant == "hhl":
        cases += [
            Case("draw-and-play", variant, S["hhl-draw"], check_draw, S["hhl-draw"].about),
            Case("double-mode", variant, S["hhl-double"], check_double, S["hhl-double"].about),
            Case("closed-arm", variant, S["hhl-closed"], check_closed, S["hhl-closed"].about),
        ]
    else:
        cases += [
            Case("pass", variant, S["domeng-pass"], check_pass, S["domeng-pass"].about),
            Case("passebunge", variant, S["domeng-passebunge"], check_passebunge,
                 S["domeng-passebunge"].about),
        ]
    cases += [
        Case("engine-restart", variant, first, check_restart,
             "the engine restarts after its first move: it reconnects with its token and "
             "goes on", restart=True),
        Case("match-over", variant, scripts.LAST[variant], check_over,
             scripts.LAST[variant].about + "; then it exits with status 0",
             pool_script=first),
        Case("clock", variant, first, check_clock,
             f"a {SHORT_CLOCK_MS / 1000:g} s turn clock for the whole match: every answer "
             "before its deadline", clock_ms=SHORT_CLOCK_MS),
    ]
    return cases


def pool_battery(variant: str) -> list:
    first = scripts.FIRST[variant]
    return [
        PoolCase("pool-capacity", variant, first, 3, 2, check_capacity,
                 "DOMINO_POOL_CAPACITY=2 and 3 matches: it enlists with capacity 2 and plays "
                 "two at once, then the third"),
        PoolCase("pool-several", variant, first, 3, 3, check_several,
                 "3 matches at once on one stream, each move naming its match"),
    ]
