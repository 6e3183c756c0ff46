"""The ``cardroom-replay-v1`` document and the audit that checks a game.

:func:`build_replay` writes the document of ``shared/api.md`` from a game's
stored events, as one viewer may see it (complete once the game has ended
and the seed is public). :func:`audit` walks a game's events from the first
and proves each one: the commitment, every deal re-derived from the fair
shuffle, every move re-decided by the engine (it must be legal and cause
exactly the recorded events), every system step, and the result. The server's
``/verify`` and the offline ``cardroom verify`` both use it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from schemas.codec import EventDecodeError, decode_event, encode_event
from service.engines import table
from service.engines.base import JSON, Event, RuleError
from service.engines.shuffle import ALGORITHM, SeedError, Shuffler, parse_server_seed

FORMAT = "cardroom-replay-v1"
ENVELOPE_KEYS = ("version", "at", "move", "seat_view")


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """An event with its place in the stream (what the store and a replay hold)."""

    version: int
    event: Event
    at_ms: int | None = None


def deck_size(game: str, options: Mapping[str, Any]) -> int:
    if game == "hazari":
        return 52
    if game == "murlan":
        return 54
    return int(options.get("deck", 27))


# -- writing the document ----------------------------------------------------
def build_replay(state: table.Table, events: Sequence[Any], viewer: int | None = None) -> JSON:
    """The replay document of a game for ``viewer`` (``None``: the public).

    ``events`` are the stored events in order; each has ``version``,
    ``event`` and optionally ``at_ms``.
    """
    revealed = state.server_seed is not None
    seed = bytes.fromhex(state.server_seed) if state.server_seed else None
    shuffler = state.shuffler(seed) if seed is not None else None
    size = deck_size(state.kind, state.options)
    deals: list[JSON] = []
    out_events: list[JSON] = []
    for stored in events:
        event: Event = stored.event
        shown = table.redact(state, event, viewer)
        if event.is_deal:
            deals.append(_deal_entry(shown, size, shuffler))
        out_events.append(_event_entry(stored, shown))
    return {
        "format": FORMAT,
        "algorithm": ALGORITHM,
        "game_id": state.game_id,
        "game": state.kind,
        "options": state.options,
        "status": state.status,
        "complete": state.over and revealed,
        "seats": [s.as_json() for s in state.seats if s is not None],
        "commitment": state.commitment,
        "server_seed": state.server_seed,
        "deals": deals,
        "events": out_events,
        "result": state.engine.result(state.engine_state),
    }


def _event_entry(stored: Any, shown: Event) -> JSON:
    entry: JSON = {"version": stored.version}
    at_ms = getattr(stored, "at_ms", None)
    if at_ms is not None:
        entry["at"] = datetime.fromtimestamp(at_ms / 1000, UTC).isoformat(timespec="milliseconds")
    entry.update(encode_event(shown))
    body = shown.move_body()
    if body is not None:
        entry["move"] = body
    return entry


def _deal_entry(event: Event, size: int, shuffler: Shuffler | None) -> JSON:
    data = encode_event(event)
    hands: list[list[str]] = [list(h) for h in data.pop("hands")]
    entry: JSON = {
        "deal": data.pop("deal"),
        "dealer": data.pop("dealer"),
        "deck_size": size,
        "hands": {str(seat): hand for seat, hand in enumerate(hands) if hand},
    }
    data.pop("type", None)
    data.pop("schema_version", None)
    if shuffler is not None:
        deck = [str(c) for c in shuffler.deal(entry["deal"], size)[0]]
        first = {seat: deck.index(h[0]) for seat, h in enumerate(hands) if h and h[0] in deck}
        entry["deal_order"] = sorted(first, key=first.__getitem__)
    else:
        entry["deal_order"] = None
    entry.update(data)
    return entry


# -- checking a game -----------------------------------------------------------
@dataclass
class AuditReport:
    ok: bool = True
    commitment_ok: bool | None = None
    deals_checked: int = 0
    moves_checked: int = 0
    steps_checked: int = 0
    result_ok: bool | None = None
    mismatch: JSON | None = None
    notes: list[str] = field(default_factory=list)

    def fail(self, version: int | None, reason: str, **extra: Any) -> AuditReport:
        if self.ok:
            self.ok = False
            self.mismatch = {"version": version, "reason": reason, **extra}
        return self

    def as_json(self) -> JSON:
        return {
            "ok": self.ok,
            "commitment_ok": self.commitment_ok,
            "deals_checked": self.deals_checked,
            "moves_checked": self.moves_checked,
            "steps_checked": self.steps_checked,
            "result_ok": self.result_ok,
            "mismatch": self.mismatch,
        }


def audit(
    events: Sequence[RecordedEvent],
    server_seed_hex: str | None,
    claimed_result: Mapping[str, Any] | None = None,
) -> AuditReport:
    """Prove a game from its events and the revealed seed (see module doc)."""
    report = AuditReport()
    if not events:
        return report.fail(None, "no events")
    first = events[0].event
    if not isinstance(first, table.GameCreated):
        return report.fail(events[0].version, "the first event is not GameCreated")
    if server_seed_hex is None:
        report.notes.append("the server seed is not revealed yet")
        return report.fail(None, "the server seed is not revealed until the game ends")
    try:
        seed = parse_server_seed(server_seed_hex)
    except SeedError as exc:
        return report.fail(None, str(exc))
    digest = hashlib.sha256(seed).hexdigest()
    report.commitment_ok = hmac.compare_digest(digest, first.commitment)
    if not report.commitment_ok:
        return report.fail(
            events[0].version,
            f"sha256(server_seed) is {digest}, not the commitment {first.commitment}",
        )
    state = table.apply(None, first)
    i = 1
    while i < len(events):
        rec = events[i]
        if rec.version != state.version + 1:
            return report.fail(rec.version, f"expected version {state.version + 1}")
        step = table.pending(state)
        if step is not None and step != "reveal":
            expected = table.advance(state, seed)
            got = [r.event for r in events[i : i + len(expected)]]
            if got != expected:
                deal = next((getattr(e, "deal", None) for e in expected if e.is_deal), None)
                what = f"deal {deal}" if deal is not None else f"the {step} step"
                return report.fail(
                    rec.version, f"{what} does not match the shuffle and the rules", deal=deal
                )
            report.steps_checked += 1
            report.deals_checked += sum(1 for e in expected if e.is_deal)
            state = table.fold(expected, state)
            i += len(expected)
            continue
        event = rec.event
        if isinstance(event, table.SeedRevealed):
            if event.server_seed != seed.hex():
                return report.fail(rec.version, "the revealed seed differs from the published one")
            state = table.apply(state, event)
            i += 1
            continue
        if isinstance(event, table.SeatTaken):
            try:
                expected_seat = table.take_seat(state, event.name, event.client_seed, event.bot)
            except RuleError as exc:
                return report.fail(rec.version, f"seat not allowed: {exc}")
            except ValueError as exc:
                return report.fail(rec.version, f"seat not allowed: {exc}")
            if expected_seat != [event]:
                return report.fail(rec.version, "seat taken out of order")
            state = table.apply(state, event)
            i += 1
            continue
        if isinstance(event, table.BOOKKEEPING_EVENTS):
            state = table.apply(state, event)
            i += 1
            continue
        body = event.move_body()
        seat = event.seat_of_move
        if body is None or seat is None:
            return report.fail(rec.version, f"{event.type} was caused by no move and no step")
        try:
            expected = table.decide(state, seat, body)
        except RuleError as exc:
            return report.fail(rec.version, f"illegal move by seat {seat}: {exc}", rule=exc.rule)
        got = [r.event for r in events[i : i + len(expected)]]
        if got != expected:
            return report.fail(
                rec.version, f"the move of seat {seat} does not cause the recorded events"
            )
        report.moves_checked += 1
        state = table.fold(expected, state)
        i += len(expected)
    if claimed_result is not None:
        recomputed = state.engine.result(state.engine_state)
        report.result_ok = _jsonish(recomputed) == _jsonish(claimed_result)
        if not report.result_ok:
            return report.fail(None, f"the result should be {recomputed}")
    return report


def _jsonish(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonish(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonish(v) for v in value]
    return value


def verify_game(state: table.Table, events: Sequence[Any]) -> JSON:
    """What ``GET /games/{id}/verify`` answers."""
    if state.server_seed is None:
        return {
            "game_id": state.game_id,
            "verified": None,
            "status": state.status,
            "commitment": state.commitment,
            "detail": "the server seed is revealed when the game ends; verify then",
        }
    recorded = [RecordedEvent(e.version, e.event) for e in events]
    report = audit(recorded, state.server_seed, state.engine.result(state.engine_state))
    return {
        "game_id": state.game_id,
        "verified": report.ok,
        "status": state.status,
        "commitment": state.commitment,
        "server_seed": state.server_seed,
        **report.as_json(),
    }


# -- reading a document back -----------------------------------------------------
class ReplayFormatError(ValueError):
    """A document that is not a readable ``cardroom-replay-v1``."""


def events_from_replay(doc: Mapping[str, Any]) -> list[RecordedEvent]:
    if doc.get("format") != FORMAT:
        raise ReplayFormatError(f"format is {doc.get('format')!r}, expected {FORMAT!r}")
    game = doc.get("game")
    raw_events = doc.get("events")
    if not isinstance(game, str) or not isinstance(raw_events, list):
        raise ReplayFormatError("a replay needs 'game' and a list of 'events'")
    out = []
    for n, raw in enumerate(raw_events):
        if not isinstance(raw, Mapping):
            raise ReplayFormatError(f"events[{n}] is not an object")
        data = {k: v for k, v in raw.items() if k not in ENVELOPE_KEYS}
        try:
            event = decode_event(game, data, strict=True)
        except (EventDecodeError, ValueError) as exc:
            raise ReplayFormatError(f"events[{n}]: {exc}") from None
        version = raw.get("version")
        if not isinstance(version, int):
            raise ReplayFormatError(f"events[{n}] has no integer version")
        out.append(RecordedEvent(version, event))
    return out


def audit_replay(doc: Mapping[str, Any]) -> AuditReport:
    """The offline audit of a replay document (``cardroom verify``)."""
    events = events_from_replay(doc)
    seed = doc.get("server_seed")
    report = audit(events, seed if isinstance(seed, str) else None, doc.get("result"))
    if not report.ok:
        return report
    created = events[0].event
    assert isinstance(created, table.GameCreated)
    if doc.get("commitment") != created.commitment or doc.get("game_id") != created.game_id:
        return report.fail(
            None, "the document's game_id or commitment differs from its first event"
        )
    # The summary of deals must agree with the deal events it summarises.
    state = table.fold([e.event for e in events])
    rebuilt = build_replay(state, events, None)
    if _jsonish(rebuilt["deals"]) != _jsonish(doc.get("deals")):
        bad = next(
            (
                d.get("deal")
                for d, r in zip(doc.get("deals") or [], rebuilt["deals"], strict=False)
                if _jsonish(d) != _jsonish(r)
            ),
            None,
        )
        return report.fail(
            None, f"the deals summary differs from the recorded deals (deal {bad})", deal=bad
        )
    if [s for s in doc.get("seats", [])] != rebuilt["seats"]:
        return report.fail(None, "the seats differ from the recorded seats")
    return report
