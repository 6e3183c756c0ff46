"""``/fairness/report``: the public fairness report (see ``docs/fairness.md``).

The app keeps one :class:`~service.fairness.report.FairnessReport` (its kept
analysis) in ``app.extensions["cardroom_fairness"]``.
"""

from __future__ import annotations

import logging
import threading
from typing import Final

from flask import Blueprint, Response, current_app
from flask.blueprints import BlueprintSetupState

from schemas.fairness import FairnessQuery
from service.fairness.report import FairnessReport
from service.store import EventStore

from .http import query, reply, service

bp = Blueprint("fairness", __name__)
log = logging.getLogger("cardroom.fairness")
EXTENSION: Final = "cardroom_fairness"


@bp.record_once
def _warm_up(state: BlueprintSetupState) -> None:
    """Keep the app's report, and analyse the projection once when the app
    starts, in the background, so the first request is answered from memory
    like every later one."""
    reports = state.app.extensions[EXTENSION] = FairnessReport()
    svc = state.app.extensions.get("cardroom")
    if svc is not None:
        threading.Thread(
            target=_analyse, args=(reports, svc.store), name="fairness-warm-up", daemon=True
        ).start()


def _analyse(reports: FairnessReport, store: EventStore) -> None:
    try:
        reports.cached_report(store, wait=True)
    except Exception:  # Redis away at start: the first request analyses instead
        log.warning("fairness report: warm-up failed", exc_info=True)


@bp.get("/fairness/report")
def fairness_report() -> Response:
    q = query(FairnessQuery)
    reports: FairnessReport = current_app.extensions[EXTENSION]
    return reply(reports.cached_report(service().store, player=q.player, game=q.game))
