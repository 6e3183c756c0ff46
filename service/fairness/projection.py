"""The fairness projection: counts of every feature, kept in Redis.

When a deal is dealt the worker's projection calls :func:`record`, which
notes that deal's observations under the game's own key (a hash next to its
stream, never served). When the game has ended and its seed is public, the
game's observations are added to the public counts in one atomic step,
guarded by the set of games already counted, so running it twice (two
workers, a retried job) counts a game once. Hands are thus only ever counted
in public once anyone may see them. :func:`rebuild` recomputes the counts
from the streams of all finished games, decoding of each only the events the
counts read (:func:`counted_stream`).

This module decides what is observed and when a game is counted; the keys
and their commands are the store's (``store.fairness``,
:class:`service.store.fairness.FairnessCounts`). Every function here that
reads or writes the counts takes the :class:`~service.store.EventStore`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Protocol

from schemas.codec import unpack_event
from service.engines import table
from service.engines.registry import engine_for
from service.store import keys
from service.store.fairness import PUBLIC

from .features import deal_fields, deal_summary, pot_observation, table_kind
from .outcomes import OUTCOME_EVENTS, Outcome, outcome_fields, winner_of

if TYPE_CHECKING:
    from service.store import EventStore


class HasEvent(Protocol):
    @property
    def version(self) -> int: ...

    @property
    def event(self) -> Any: ...


def pending_key(game_id: str) -> str:
    return keys.fairness_notes(game_id)


def _names(state: table.Table) -> list[str | None]:
    return [None if s is None else s.name for s in state.seats]


def _bots(state: table.Table) -> list[bool]:
    return [s is not None and s.bot for s in state.seats]


def _creator(state: table.Table) -> int | None:
    """The seat of the table's creator, if he sat down (see ``SeatTaken.creator``)."""
    return next((s.seat for s in state.seats if s is not None and s.creator), None)


def notes(
    state: table.Table, events: Iterable[HasEvent], last: dict[str, Any] | None = None
) -> tuple[dict[str, list[str]], dict[str, Any] | None]:
    """The observations among ``events``, by note: ``d:<deal>`` (a deal's),
    ``p:<version>`` (an Azi pot's winner) and ``o:<version>`` (who won the
    game); and the latest deal's summary (which carries the first deal's
    dealer, ``first``, for the winner's position)."""
    found: dict[str, list[str]] = {}
    names = _names(state)
    for stored in events:
        event = stored.event
        if getattr(event, "is_deal", False):
            found[f"d:{event.deal}"] = deal_fields(
                state.kind, state.options, event, names, _bots(state), _creator(state)
            )
            first = event.dealer if event.deal == 0 else (last or {}).get("first")
            last = {**deal_summary(event), "first": first}
        elif event.type == "PotSettled" and last is not None:
            pot = pot_observation(state.kind, state.options, event.winner, last)
            found[f"p:{stored.version}"] = [pot.field()]
        elif event.type in OUTCOME_EVENTS and last is not None and last.get("first") is not None:
            found[f"o:{stored.version}"] = _outcome(state, event, int(last["first"]))
    return found, last


def _outcome(state: table.Table, event: Any, first: int) -> list[str]:
    seats = state.seat_count
    winner = winner_of(event, seats)
    assert winner is not None
    outcome = Outcome(winner, (winner - first) % seats, seats)
    every_bot = all(_bots(state))
    kind = table_kind(state.kind, state.options)
    return outcome_fields(kind, state.kind, state.options, outcome, every_bot)


def observe(
    state: table.Table, events: Iterable[HasEvent], last: dict[str, Any] | None = None
) -> tuple[dict[str, str], dict[str, Any] | None]:
    """Pending fields for ``events``: their :func:`notes` and ``last`` (the
    latest deal's summary, when they hold a deal)."""
    found, after = notes(state, events, last)
    fields = {name: json.dumps(obs) for name, obs in found.items()}
    if any(name.startswith("d:") for name in found):
        fields["last"] = json.dumps(after)
    return fields, after


def counted(state: table.Table) -> bool:
    """A game's hands are public once it has ended and its seed is revealed."""
    return state.over and state.server_seed is not None


def tally(fields: dict[str, str]) -> tuple[Counter[str], int]:
    """The counts of a game's pending fields, and its number of deals."""
    return _count((name, json.loads(raw)) for name, raw in fields.items() if name != "last")


def _count(found: Iterable[tuple[str, list[str]]]) -> tuple[Counter[str], int]:
    counts: Counter[str] = Counter()
    deals = 0
    for name, obs in found:
        deals += name.startswith("d:")
        counts.update(obs)
    return counts, deals


def game_counts(state: table.Table, events: Sequence[HasEvent]) -> tuple[Counter[str], int]:
    """A whole game's counts and deals, from its stream (for rebuilds): what
    :func:`tally` gives of the pending fields of all its events, without the
    JSON in between."""
    return _count(notes(state, events)[0].items())


def record(store: EventStore, game_id: str, events: Sequence[HasEvent], state: table.Table) -> None:
    """The worker's hook: note the deals among ``events`` (just folded into
    ``state``) and, once the game's hands are public, count the game."""
    counts = store.fairness
    last: dict[str, Any] | None = None
    if any(_needs_last(e.event) for e in events):
        raw = counts.last_deal(game_id)
        last = json.loads(raw) if raw else None
    fields, _ = observe(state, events, last)
    if fields:
        counts.note(game_id, fields)
    if counted(state):
        merge(store, game_id, counts.notes(game_id))
        counts.drop_notes(game_id)  # counted (now or before): the game's own notes are done with


def _needs_last(event: Any) -> bool:
    """Whether noting ``event`` reads the latest deal's summary (a later deal
    carries on the first deal's dealer; a pot and the game's winner read it)."""
    if getattr(event, "is_deal", False):
        return bool(event.deal)
    return event.type == "PotSettled" or event.type in OUTCOME_EVENTS


def merge(
    store: EventStore,
    game_id: str,
    fields: dict[str, str],
    keys: Sequence[str] = PUBLIC,
) -> bool:
    """Count a game's pending ``fields`` (see :func:`merge_counts`)."""
    return merge_counts(store, game_id, *tally(fields), keys)


def merge_counts(
    store: EventStore,
    game_id: str,
    counts: Counter[str],
    deals: int,
    keys: Sequence[str] = PUBLIC,
) -> bool:
    """Add a game's counts unless it is counted already (one atomic step)."""
    return store.fairness.merge(game_id, counts, deals, keys)


class Noted(NamedTuple):
    """A stream entry a rebuild decodes: its version and event."""

    version: int
    event: Any


TABLE_FACTS: Final = ("GameCreated", "SeatTaken", "SeedRevealed")
"""The table's own events that say which game, who sits where and the seed."""


@cache
def _noted_types(game: str) -> frozenset[str]:
    deals = (cls.type for cls in engine_for(game).event_types if cls.is_deal)
    return frozenset((*TABLE_FACTS, *deals, "PotSettled", *OUTCOME_EVENTS))


def counted_stream(store: EventStore, game_id: str) -> tuple[table.Table, list[Noted]] | None:
    """What a rebuild counts of a game: its table and the events its counts
    read, or ``None`` while its hands are not public.

    Only the table's own facts, the deals, Azi's settled pots and the event
    that ends the game with its winner are decoded;
    the play is not folded again. The table is those facts folded (game,
    options, seats, seed), which is all the observations use of the state, and
    the game is counted once its seed is revealed: the table reveals it only
    when the game is over, so this is :func:`counted` of the whole fold.
    """
    raw = store.read_raw(game_id)
    if not raw:
        return None
    game = json.loads(raw[0].data)["game"]
    wanted = _noted_types(game)
    noted = [
        Noted(r.version, unpack_event(game, r.type, r.schema_version, r.data))
        for r in raw
        if r.type in wanted
    ]
    state = table.fold([n.event for n in noted if n.event.type in TABLE_FACTS])
    if state.server_seed is None:
        return None
    return state, noted


def rebuild(
    store: EventStore, batch: int = 200, step: Callable[[], None] | None = None
) -> dict[str, int]:
    """Recount every finished game from its events, then swap the counts in.
    ``step`` is called once per finished game read (``cardroom fairness
    --rebuild``'s progress).

    Run it as a maintenance step: a game that ends while it runs is counted
    again by the next rebuild (its live merge may be overwritten by the swap).
    """
    tmp = store.fairness.start_rebuild()
    games = deals = 0
    cursor: Any = None
    while True:
        items, cursor = store.list_games(status="ended", limit=batch, cursor=cursor)
        for item in items:
            if step is not None:
                step()
            found = counted_stream(store, item.game_id)
            if found is None:
                continue
            counts, dealt = game_counts(*found)
            if merge_counts(store, item.game_id, counts, dealt, tmp):
                games += 1
                deals += dealt
        if cursor is None:
            break
    store.fairness.swap_rebuild()
    return {"games": games, "deals": deals}


def read(store: EventStore) -> tuple[dict[str, int], dict[str, int]]:
    """The public counts and totals (``games``, ``deals``)."""
    return store.fairness.read()


def read_meta(store: EventStore) -> dict[str, int]:
    """The totals alone: ``games``, ``deals`` and the rebuild ``epoch``."""
    return store.fairness.read_meta()


def from_replays(docs: Iterable[Any]) -> tuple[dict[str, int], dict[str, int]]:
    """Counts over replay documents (``cardroom fairness --replays``), no Redis."""
    from service.replay import events_from_replay

    total: Counter[str] = Counter()
    games = deals = 0
    for doc in docs:
        events = events_from_replay(doc)
        state = table.fold([e.event for e in events])
        if not counted(state):
            continue
        c, d = game_counts(state, events)
        total.update(c)
        games += 1
        deals += d
    return dict(total), {"games": games, "deals": deals}
