"""The Analysis service (proto/domino/v1/analysis.proto): a finished match's analysis as a
job, its progress streamed, then its result (core/analyses/service.py does the work)."""

from __future__ import annotations

import asyncio

from domino_proto.domino.v1 import analysis_pb2

from .status import async_refusals, bearer, refusals

STATES = {"queued": analysis_pb2.ANALYSIS_STATE_QUEUED,
          "running": analysis_pb2.ANALYSIS_STATE_RUNNING,
          "done": analysis_pb2.ANALYSIS_STATE_DONE,
          "failed": analysis_pb2.ANALYSIS_STATE_FAILED}


def update(job, state: str, done: int, total: int) -> analysis_pb2.AnalyseUpdate:
    out = analysis_pb2.AnalyseUpdate(state=STATES[state], done=done, total=total)
    if state == "done":
        out.analysis_json, out.kept = job.doc or "", job.kept
    elif state == "failed":
        out.error = job.error
    return out


class AnalysisServicer:
    def __init__(self, engine):
        self.engine = engine

    def _job(self, request, context):
        engine = self.engine
        seat = request.seat if request.HasField("seat") else None
        principal = engine.keys.principal(bearer(context))
        return engine.analyses.request(request.match_id, seat, request.worlds, principal.name)

    @refusals
    def GetAnalysis(self, request, context):
        job = self._job(request, context)
        return update(job, job.state, job.done, job.total)

    @async_refusals
    async def Analyse(self, request, context):
        # On a thread: the record may be replayed from the store, the key looked up there.
        job = await asyncio.to_thread(self._job, request, context)
        updates = job.updates()
        while True:
            got = await asyncio.to_thread(next, updates, None)
            if got is None:
                return
            await context.write(update(job, *got))
