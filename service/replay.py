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
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Final

from schemas.codec import EventDecodeError, decode_event, encode_event
from service.engines import table
from service.engines.base import JSON, Event, RuleError
from service.engines.shuffle import (
    ALGORITHM,
    DERIVED_SEED_MESSAGE,
    SEED_DERIVED,
    SEED_PLAYER,
    SEED_UNRECORDED,
    SeedError,
    Shuffler,
    derived_client_seed,
    parse_server_seed,
)

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
        "seats": [replay_seat(s) for s in state.seats if s is not None],
        "commitment": state.commitment,
        "server_seed": state.server_seed,
        "deals": deals,
        "events": out_events,
        "result": state.engine.result(state.engine_state),
    }


UNCOMMITTED_NOTE = (
    "this game was stored before seed origins were recorded: the seeds the server drew "
    "(bots', and those of players who gave none) were random and were not committed"
)


def seed_derivation(seat: int) -> str:
    """How anyone re-derives a derived seat seed once the server seed is public."""
    return f'hex(HMAC-SHA256(server_seed, "{DERIVED_SEED_MESSAGE}{seat}"))[:32]'


def replay_seat(seat: table.Seat) -> JSON:
    """A seat in the document: who chose its seed and, when the server derived it,
    how to derive it again."""
    entry = seat.as_json()
    if seat.seed_origin == SEED_DERIVED:
        entry["seed_derivation"] = seed_derivation(seat.seat)
    return entry


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
    seeds: list[JSON] = field(default_factory=list)
    """Per seat taken: its ``seed_origin``; a derived one was re-derived."""

    @property
    def seeds_committed(self) -> bool | None:
        """True when every seed the server supplied was fixed by its commitment
        (``None`` before any seat was checked)."""
        if not self.seeds:
            return None
        return all(s["origin"] != SEED_UNRECORDED for s in self.seeds)

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
            "seeds": self.seeds,
            "seeds_committed": self.seeds_committed,
            "notes": self.notes,
        }


def audit(
    events: Sequence[RecordedEvent],
    server_seed_hex: str | None,
    claimed_result: Mapping[str, Any] | None = None,
) -> AuditReport:
    """Prove a game from its events and the revealed seed (see module doc)."""
    report = AuditReport()
    try:
        first, seed = _check_opening(events, server_seed_hex, report)
        state = _check_events(events, first, seed, report)
        _note_seeds(state, report)
        if claimed_result is not None:
            recomputed = state.engine.result(state.engine_state)
            report.result_ok = _jsonish(recomputed) == _jsonish(claimed_result)
            if not report.result_ok:
                raise _Mismatch(None, f"the result should be {recomputed}", "result")
    except _Mismatch as exc:
        return report.fail(exc.version, exc.reason, **exc.extra)
    return report


def _note_seeds(state: table.Table, report: AuditReport) -> None:
    """Who chose each seat's seed (every derived one was re-derived on the way)."""
    report.seeds = [{"seat": s.seat, "origin": s.seed_origin} for s in state.seats if s is not None]
    if report.seeds_committed is False:
        report.notes.append(UNCOMMITTED_NOTE)


class _Mismatch(Exception):
    """What the audit could not prove: the version (``None``: the game as a
    whole), the reason (English), its code (:data:`MISMATCH_CODES`) and any detail, as
    :meth:`AuditReport.fail` records them."""

    def __init__(self, version: int | None, reason: str, code: str, **extra: Any) -> None:
        super().__init__(reason)
        self.version = version
        self.reason = reason
        self.extra = {"code": code, **extra}


def _check_opening(
    events: Sequence[RecordedEvent], server_seed_hex: str | None, report: AuditReport
) -> tuple[table.GameCreated, bytes]:
    """The first event, and the revealed seed proved against its commitment."""
    if not events:
        raise _Mismatch(None, "no events", "events")
    first = events[0].event
    if not isinstance(first, table.GameCreated):
        raise _Mismatch(events[0].version, "the first event is not GameCreated", "events")
    if server_seed_hex is None:
        report.notes.append("the server seed is not revealed yet")
        raise _Mismatch(None, "the server seed is not revealed until the game ends", "seed")
    try:
        seed = parse_server_seed(server_seed_hex)
    except SeedError as exc:
        raise _Mismatch(None, str(exc), "seed") from None
    digest = hashlib.sha256(seed).hexdigest()
    report.commitment_ok = hmac.compare_digest(digest, first.commitment)
    if not report.commitment_ok:
        raise _Mismatch(
            events[0].version,
            f"sha256(server_seed) is {digest}, not the commitment {first.commitment}",
            "commitment",
        )
    return first, seed


def _check_events(
    events: Sequence[RecordedEvent],
    first: table.GameCreated,
    seed: bytes,
    report: AuditReport,
) -> table.Table:
    """Every event after the first proved in turn; the game's final state."""
    state = table.apply(None, first)
    i = 1
    while i < len(events):
        rec = events[i]
        if rec.version != state.version + 1:
            raise _Mismatch(rec.version, f"expected version {state.version + 1}", "events")
        step = table.pending(state)
        if step is not None and step != "reveal":
            state, used = _check_step(events, i, state, step, seed, report)
        elif isinstance(rec.event, _FOLDED_AS_RECORDED):
            _check_table_event(state, rec, seed)
            state, used = table.apply(state, rec.event), 1
        else:
            state, used = _check_move(events, i, state, report)
        i += used
    return state


_FOLDED_AS_RECORDED: tuple[type[Event], ...] = (
    table.SeedRevealed,
    table.SeatTaken,
    *table.BOOKKEEPING_EVENTS,
)
"""Table events the audit applies one by one as recorded (the seed and seat
events once checked): no move and no step causes them."""


def _check_step(
    events: Sequence[RecordedEvent],
    i: int,
    state: table.Table,
    step: str,
    seed: bytes,
    report: AuditReport,
) -> tuple[table.Table, int]:
    """The due system step re-derived from the seed matches the events from
    ``events[i]``; the state after it and how many events it made."""
    expected = table.advance(state, seed)
    got = [r.event for r in events[i : i + len(expected)]]
    if got != expected:
        deal = next((getattr(e, "deal", None) for e in expected if e.is_deal), None)
        what = f"deal {deal}" if deal is not None else f"the {step} step"
        raise _Mismatch(
            events[i].version,
            f"{what} does not match the shuffle and the rules",
            "deal" if deal is not None else "step",
            deal=deal,
        )
    report.steps_checked += 1
    report.deals_checked += sum(1 for e in expected if e.is_deal)
    return table.fold(expected, state), len(expected)


def _check_table_event(state: table.Table, rec: RecordedEvent, seed: bytes) -> None:
    """A revealed seed is the published one; a seat was taken as the table
    allows, in order. Bookkeeping events need no check."""
    event = rec.event
    if isinstance(event, table.SeedRevealed):
        if event.server_seed != seed.hex():
            raise _Mismatch(rec.version, "the revealed seed differs from the published one", "seed")
    elif isinstance(event, table.SeatTaken):
        _check_seat(state, rec, event, seed)


def _check_seat(
    state: table.Table, rec: RecordedEvent, event: table.SeatTaken, seed: bytes
) -> None:
    """The seat is the next free one, and a derived seed is the one the server
    seed gives that seat (an unrecorded origin is an older game's: as recorded)."""
    origin = event.seed_origin
    if origin not in (SEED_PLAYER, SEED_DERIVED, SEED_UNRECORDED):
        raise _Mismatch(rec.version, f"unknown seed_origin {origin!r}", "seat")
    derive = origin == SEED_DERIVED
    old = origin == SEED_UNRECORDED  # a bot then had a seed drawn for it, given as a player's
    try:
        expected = table.take_seat(
            state,
            event.name,
            None if derive else event.client_seed,
            event.bot and not old,
            seed,
            event.creator,
        )
    except (RuleError, ValueError) as exc:
        raise _Mismatch(rec.version, f"seat not allowed: {exc}", "seat") from None
    if old:
        expected = [
            replace(e, bot=event.bot, seed_origin=SEED_UNRECORDED)
            for e in expected
            if isinstance(e, table.SeatTaken)
        ]
    if expected == [event] or _bot_seated_at_creation(state, event, seed):
        return
    taken = expected[0]
    if derive and isinstance(taken, table.SeatTaken) and taken.seat == event.seat:
        raise _Mismatch(
            rec.version,
            f"seat {event.seat}'s seed is not the one derived from the server seed",
            "seat",
            seat=event.seat,
        )
    raise _Mismatch(rec.version, "seat taken out of order", "seat")


def _bot_seated_at_creation(state: table.Table, event: table.SeatTaken, seed: bytes) -> bool:
    """A bot the table's creation seated at a seat it named (``POST /games`` with
    ``bots``): only bots sit so far, its seat is free, and its seed is the one
    derived for that seat."""
    if not (event.bot and event.seed_origin == SEED_DERIVED and not event.creator):
        return False
    if any(s is not None and not s.bot for s in state.seats):
        return False
    if not 0 <= event.seat < len(state.seats) or state.seats[event.seat] is not None:
        return False
    return event.client_seed == derived_client_seed(seed, event.seat)


def _check_move(
    events: Sequence[RecordedEvent], i: int, state: table.Table, report: AuditReport
) -> tuple[table.Table, int]:
    """``events[i]`` comes of a seat's move, legal and causing exactly the
    recorded events; the state after them and how many there are."""
    rec = events[i]
    event = rec.event
    body = event.move_body()
    seat = event.seat_of_move
    if body is None or seat is None:
        raise _Mismatch(rec.version, f"{event.type} was caused by no move and no step", "events")
    try:
        expected = table.decide(state, seat, body)
    except RuleError as exc:
        raise _Mismatch(
            rec.version, f"illegal move by seat {seat}: {exc}", "move", seat=seat, rule=exc.rule
        ) from None
    got = [r.event for r in events[i : i + len(expected)]]
    if got != expected:
        raise _Mismatch(
            rec.version,
            f"the move of seat {seat} does not cause the recorded events",
            "move",
            seat=seat,
        )
    report.moves_checked += 1
    return table.fold(expected, state), len(expected)


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
            "code": "seed-not-revealed",
            "params": {"status": state.status},
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
        **_verdict(report),
    }


MISMATCH_CODES: Final = ("events", "seed", "commitment", "deal", "step", "seat", "move", "result")
"""What a failed audit's ``mismatch.code`` can say went wrong."""


def _verdict(report: AuditReport) -> JSON:
    """The verification's ``code`` and ``params``, for a page to word: ``verified`` with
    the counts, or ``mismatch`` with what did not match."""
    if report.ok:
        return {
            "code": "verified",
            "params": {"deals": report.deals_checked, "moves": report.moves_checked},
        }
    mismatch = report.mismatch or {}
    params = {k: v for k, v in mismatch.items() if k != "reason"}
    return {"code": "mismatch", "params": params}


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
    if not _seats_agree(doc.get("seats"), rebuilt["seats"]):
        return report.fail(None, "the seats differ from the recorded seats")
    return report


SEED_KEYS = ("seed_origin", "seed_derivation")
"""Seat keys a document written before seed origins were recorded does not have."""


def _seats_agree(given: Any, rebuilt: Sequence[JSON]) -> bool:
    """The document's seats are the recorded ones (an older document's lack the
    seed origin, or the creator's mark: the events still say them)."""
    if not isinstance(given, list) or len(given) != len(rebuilt):
        return False
    for mine, theirs in zip(given, rebuilt, strict=True):
        if not isinstance(mine, Mapping):
            return False
        if "seed_origin" not in mine:
            theirs = {k: v for k, v in theirs.items() if k not in SEED_KEYS}
        if "creator" not in mine:
            theirs = {k: v for k, v in theirs.items() if k != "creator"}
        if _jsonish(mine) != _jsonish(theirs):
            return False
    return True
