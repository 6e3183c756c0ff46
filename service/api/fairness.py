"""``/fairness/report``: the public fairness report (see ``docs/fairness.md``)."""

from __future__ import annotations

from flask import Blueprint, Response

from schemas.fairness import FairnessQuery
from service.fairness import report

from .http import query, reply, service

bp = Blueprint("fairness", __name__)


@bp.get("/fairness/report")
def fairness_report() -> Response:
    q = query(FairnessQuery)
    return reply(report.cached_report(service().store.redis, player=q.player, game=q.game))
