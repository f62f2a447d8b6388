"""The wire of /api/v1/matches/{match_id}/analysis: the job of a finished match's analysis
(proto/domino/v1/analysis.proto) and the domino-analysis/1 document (docs/analysis.md)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from .schemas import _d
from .schemas_game import options_field

MAX_WORLDS = 2000     # the engine's bound (engine_service/core/analyses/service.py)
STATES = ("queued", "running", "done", "failed")


class AnalysisQuerySchema(Schema):
    seat = fields.Integer(strict=False, validate=validate.Range(0, 4),
                          **_d("the seat to analyse; absent: every seat"))
    worlds = fields.Integer(strict=False, load_default=0, validate=validate.Range(0, MAX_WORLDS),
                            **_d("worlds per decision, 1..2000; 0 or absent: the default "
                                 "(1000)"))


class MoveValueSchema(Schema):
    move = fields.String(**_d("the legal move, as text"))
    value = fields.Float(**_d("seat-honest value: the seat's expected result of the hand "
                              "if it makes this move, every seat then playing the policy"))
    se = fields.Float(**_d("standard error of value"))
    pi_value = fields.Float(**_d("perfect-information value: the same over the true hands"))


class DecisionSchema(Schema):
    ply = fields.Integer(**_d("the play's index in its hand, every seat's plays counted from 0"))
    played = fields.String(**_d("the move made"))
    moves = fields.List(fields.Nested(MoveValueSchema), **_d("every legal move, in the rules' order"))
    best = fields.String(**_d("the move of the highest seat-honest value"))
    value = fields.Float(**_d("its value (V_k)"))
    played_value = fields.Float(**_d("the value of the move made (P_k)"))
    loss = fields.Float(**_d("value - played_value, seat-honest"))
    loss_se = fields.Float(**_d("standard error of loss (paired over the worlds)"))
    pi_best = fields.String(**_d("the move of the highest perfect-information value"))
    pi_value = fields.Float(**_d("its perfect-information value"))
    pi_loss = fields.Float(**_d("the loss by perfect-information values"))
    mark = fields.String(allow_none=True, validate=validate.OneOf(("mistake", "blunder")),
                         **_d("mistake or blunder (the loss over its threshold and 2 standard "
                              "errors), or null"))


class HandAnalysisSchema(Schema):
    deal = fields.Integer(**_d("the hand (HHL) or round (Domeng), from 0"))
    result = fields.Integer(**_d("the seat's result R: HHL points, Domeng minus stones taken"))
    v0 = fields.Float(**_d("seat-honest value at the deal, before anyone played"))
    v0_se = fields.Float(**_d("standard error of v0"))
    pi_v0 = fields.Float(**_d("perfect-information value at the deal"))
    skill = fields.Float(**_d("minus the sum of the seat's losses"))
    skill_se = fields.Float(**_d("standard error of skill"))
    luck = fields.Float(**_d("everything else: result - v0 = skill + luck"))
    forced = fields.Integer(**_d("the seat's plays with one legal move (no decision)"))
    decisions = fields.List(fields.Nested(DecisionSchema))


class SeatSummarySchema(Schema):
    hands = fields.Integer()
    decisions = fields.Integer()
    mean_loss = fields.Float(**_d("mean seat-honest loss per decision"))
    mean_pi_loss = fields.Float(**_d("mean perfect-information loss per decision"))
    skill = fields.Float(**_d("sum over the hands"))
    luck = fields.Float(**_d("sum over the hands"))
    luck_share = fields.Float(**_d("sum of |luck| over sum of |luck| + |skill|, 0..1"))
    mistakes = fields.Integer()
    blunders = fields.Integer()


class SeatAnalysisSchema(Schema):
    seat = fields.Integer()
    name = fields.String(**_d("the seat's name in the record"))
    summary = fields.Nested(SeatSummarySchema)
    hands = fields.List(fields.Nested(HandAnalysisSchema))


class AnalysisDocSchema(Schema):
    format = fields.String(**_d("domino-analysis/1"))
    variant = fields.String()
    options = options_field(**_d("the match's rules options in force"))
    policy = fields.String(**_d("the reference policy of every continuation (greedy)"))
    worlds = fields.Integer(**_d("worlds per decision"))
    seed = fields.Integer(**_d("the seed of the worlds"))
    unit = fields.String(**_d("points (HHL) or stones (Domeng)"))
    thresholds = fields.Dict(keys=fields.String(), values=fields.Float(),
                             **_d("mistake and blunder thresholds in the unit, and z"))
    exact_posterior = fields.Boolean(**_d("every world was drawn from the exact posterior"))
    seats = fields.List(fields.Nested(SeatAnalysisSchema))


class AnalysisJobSchema(Schema):
    state = fields.String(validate=validate.OneOf(STATES),
                          **_d("queued, running, done (analysis is set) or failed (error says)"))
    done = fields.Integer(**_d("moments valued so far"))
    total = fields.Integer(**_d("moments to value (0 while queued, and when kept)"))
    kept = fields.Boolean(**_d("done, and answered from the store (no work was done)"))
    error = fields.String(**_d("failed: what went wrong"))
    analysis = fields.Nested(AnalysisDocSchema, allow_none=True,
                             **_d("when done: the domino-analysis/1 document"))


# The data of each event of GET .../analysis/events (gateway/analysis_stream.py): the
# fields of AnalysisJobSchema that event's state has, every one of them present.
class AnalysisProgressSchema(Schema):
    state = fields.String(required=True, validate=validate.OneOf(("queued", "running")),
                          **_d("queued, or running"))
    done = fields.Integer(required=True, **_d("moments valued so far"))
    total = fields.Integer(required=True, **_d("moments to value (0 while queued)"))


class AnalysisDoneSchema(Schema):
    state = fields.String(required=True, validate=validate.OneOf(("done",)))
    done = fields.Integer(required=True, **_d("moments valued"))
    total = fields.Integer(required=True, **_d("moments to value (0 when kept)"))
    kept = fields.Boolean(required=True,
                          **_d("answered from the store (no work was done)"))
    analysis = fields.Nested(AnalysisDocSchema, required=True,
                             **_d("the domino-analysis/1 document"))


class AnalysisFailedSchema(Schema):
    state = fields.String(required=True, validate=validate.OneOf(("failed",)))
    error = fields.String(required=True, **_d("what went wrong"))
