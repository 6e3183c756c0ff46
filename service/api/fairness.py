"""``/fairness/report``: the public fairness report (see ``docs/fairness.md``)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from flask import Blueprint, Response
from flask.blueprints import BlueprintSetupState

from schemas.fairness import FairnessQuery
from service.fairness import report

from .http import query, reply, service

bp = Blueprint("fairness", __name__)
log = logging.getLogger("cardroom.fairness")


@bp.record_once
def _warm_up(state: BlueprintSetupState) -> None:
    """Analyse the projection once when the app starts, in the background, so
    the first request is answered from memory like every later one."""
    svc = state.app.extensions.get("cardroom")
    if svc is not None:
        threading.Thread(
            target=_analyse, args=(svc.store.redis,), name="fairness-warm-up", daemon=True
        ).start()


def _analyse(redis: Any) -> None:
    try:
        report.cached_report(redis, wait=True)
    except Exception:  # Redis away at start: the first request analyses instead
        log.warning("fairness report: warm-up failed", exc_info=True)


@bp.get("/fairness/report")
def fairness_report() -> Response:
    q = query(FairnessQuery)
    return reply(report.cached_report(service().store.redis, player=q.player, game=q.game))
