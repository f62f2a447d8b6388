"""GET /matches/{match_id}/analysis: a finished match's analysis (the engine's
Analysis.GetAnalysis): started on the first request, then polled until done; kept, so a
later request is answered at once."""

import json

from domino_proto.domino.v1 import analysis_pb2

from ..schemas_analysis import AnalysisJobSchema, AnalysisQuerySchema
from . import PREFIX, Blueprint, api_key, documented, engine

blp = Blueprint("analysis", __name__, url_prefix=PREFIX + "/matches/<match_id>/analysis",
                description="Computer analysis of a finished match: each decision's loss, "
                            "skill and luck")

STATE_WORDS = {analysis_pb2.ANALYSIS_STATE_QUEUED: "queued",
               analysis_pb2.ANALYSIS_STATE_RUNNING: "running",
               analysis_pb2.ANALYSIS_STATE_DONE: "done",
               analysis_pb2.ANALYSIS_STATE_FAILED: "failed"}


@blp.route("")
@blp.arguments(AnalysisQuerySchema(), location="query")
@blp.response(200, AnalysisJobSchema())
@documented(blp, 400, 404, (409, ("MATCH_NOT_OVER", "DEAL_IN_PLAY", "ANALYSIS_OFF")),
            (429, ("QUOTA_EXCEEDED", "ENGINE_FULL")))
def get_analysis(query, match_id):
    """The analysis job of a finished match, for one seat or every seat: its state and
    progress, and once done the domino-analysis/1 document. The first request starts it;
    ask again (every second or so) until `state` is done. 409 MATCH_NOT_OVER while the
    match is live (the analysis reads every hidden tile), or while a duplicate ladder's set
    is in play (DEAL_IN_PLAY, as for its record), 429 over the engine's queue
    (ENGINE_FULL) or the key's share of it (QUOTA_EXCEEDED)"""
    return job_answer(engine().get_analysis(request_of(match_id, query), api_key()))


# Shared with the event stream of the same job (gateway/analysis_stream.py), so that both
# routes ask the engine the same and answer the same.
def request_of(match_id: str, query: dict) -> analysis_pb2.AnalyseRequest:
    """The engine's request for `query`, as AnalysisQuerySchema loaded it."""
    request = analysis_pb2.AnalyseRequest(match_id=match_id, worlds=query["worlds"])
    if "seat" in query:
        request.seat = query["seat"]
    return request


def job_answer(got: analysis_pb2.AnalyseUpdate) -> dict:
    """An engine AnalyseUpdate as AnalysisJobSchema answers it."""
    return {"state": STATE_WORDS.get(got.state, "failed"), "done": got.done, "total": got.total,
            "kept": got.kept, "error": got.error,
            "analysis": json.loads(got.analysis_json) if got.analysis_json else None}
