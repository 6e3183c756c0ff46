"""``/fairness/report``: the public fairness report (see ``docs/fairness.md``)."""

from __future__ import annotations

from flask import Blueprint, Response

from schemas.fairness import FairnessQuery
from service.fairness import projection, report

from .http import query, reply, service

bp = Blueprint("fairness", __name__)


@bp.get("/fairness/report")
def fairness_report() -> Response:
    q = query(FairnessQuery)
    counts, meta = projection.read(service().store.redis)
    return reply(report.build(counts, meta, player=q.player, game=q.game))
