"""The two stored forms of an event: the first (``t``, ``v``, ``d``: type, schema
version, fields as a JSON object) and the second (one field ``e``: a positional
array by layout code, :mod:`schemas.entries`). Both decode to the same engine
events, through the codec and through the store, and fold to the same states."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any, get_type_hints

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import entries
from schemas.codec import EventDecodeError, entry_reader, pack_event, unpack_event
from schemas.compact import expand
from schemas.events import event_classes, schema_version, scope_of
from service.engines import table
from service.engines.base import Event
from service.engines.registry import GAMES
from service.store import EventStore, archive, keys, load_game
from tests.store.helpers import random_game


def first_form(game: str, event: Event) -> Event:
    """``event`` written and read back in the first form, as the codec always did."""
    type_name, version, data = pack_event(event)
    return entry_reader(game)(type_name.encode(), str(version).encode(), data)


def second_form(game: str, event: Event) -> Event:
    return entries.reader(game)(entries.pack(event))


def same(a: Event, b: Event) -> bool:
    """Equal, and every field of the same type (``1`` is not ``1.0``, a list no tuple)."""
    return a == b and all(
        type(getattr(a, f.name)) is type(getattr(b, f.name)) for f in dataclasses.fields(a)
    )


# -- the layouts -------------------------------------------------------------------------
def test_the_layouts_and_card_characters_never_change() -> None:
    """Stored data depends on every layout and every card character: a change
    is a new layout (a new code), never an edit."""
    pinned = repr((entries.LAYOUTS, entries.CARD_CHARS, tuple(entries.CARD_OF.values())))
    digest = hashlib.sha256(pinned.encode()).hexdigest()
    assert digest == "1af2e78432582c0dd24b75d1358c9f62867a243bb1196253470e0eb4e9dbc2fe"


def test_every_event_type_has_a_layout_of_its_current_fields() -> None:
    codes = [layout.code for layout in entries.LAYOUTS]
    assert codes == list(range(1, len(codes) + 1))
    for game in GAMES:
        for type_name, cls in event_classes(game).items():
            current = [
                layout
                for layout in entries.layouts_of(game)
                if layout.type == type_name and layout.version == schema_version(cls)
            ]
            assert len(current) == 1, f"{game} {type_name}: {current}"
            (layout,) = current
            assert layout.scope == scope_of(cls)
            hints = get_type_hints(cls)
            assert layout.names == tuple(f.name for f in dataclasses.fields(cls))
            for name, mark in zip(layout.names, layout.marks, strict=True):
                wanted = {
                    tuple[str, ...]: entries.JOINED,
                    tuple[tuple[str, ...], ...]: entries.HANDS,
                }.get(hints[name], "")
                assert mark == wanted, f"{type_name}.{name}"


# -- both forms, event by event -------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_both_forms_decode_every_event_to_the_same_engine_event(game: str) -> None:
    for seed in range(4):
        for event in random_game(game, seed).events:
            old, new = first_form(game, event), second_form(game, event)
            assert same(old, event) and same(new, event) and same(old, new)


@pytest.mark.parametrize("game", GAMES)
def test_the_second_form_reads_as_the_first_would_hold_it(game: str) -> None:
    """What exports and audits see of a second-form entry is the first form's
    type, schema version and JSON object, and decodes to the same event."""
    for event in random_game(game, 1).events:
        type_name, version, data = entries.as_first_form(entries.pack(event))
        old_type, old_version, old_data = pack_event(event)
        assert (type_name, version) == (old_type, old_version)
        assert json.loads(data) == json.loads(expand(old_data))
        assert same(unpack_event(game, type_name, version, data), event)


def test_the_second_form_is_smaller() -> None:
    for game in GAMES:
        events = random_game(game, 2).events
        old = sum(len(t) + 1 + len(d) for t, _, d in map(pack_event, events))
        new = sum(len(entries.pack(e)) for e in events)
        assert new < old * 0.7, game


def test_cards_are_a_character_each_and_other_strings_stay_a_list() -> None:
    dealt = random_game("murlan", 0).events[5]
    assert dealt.is_deal
    row = json.loads(entries.pack(dealt))
    hands: tuple[tuple[str, ...], ...] = dealt.hands  # type: ignore[attr-defined]
    assert row[3] == " ".join("".join(entries.CHAR_OF[c] for c in h) for h in hands)
    odd = table.SeatTaken(0, "Ana", "seed")  # no tuple fields: as they are
    assert json.loads(entries.pack(odd)) == [44, 0, "Ana", "seed", False, "player", False]


@pytest.mark.parametrize(
    "hands",
    [(), ((),), ((), ("AS",)), (("AS", "xx"), ("2C",)), (("A S",),), (("??", "BJ", "RJ"),)],
)
def test_any_hands_round_trip(hands: tuple[tuple[str, ...], ...]) -> None:
    """Empty hands, items that are no card tokens (kept as lists), the hidden card."""
    from service.engines.murlan.events import HandDealt

    event = HandDealt(deal=0, dealer=0, hands=hands)
    assert same(second_form("murlan", event), event)
    assert same(first_form("murlan", event), event)


def test_bad_second_form_entries_are_named_errors() -> None:
    read = entries.reader("azi")
    with pytest.raises(EventDecodeError, match="no such stored event code"):
        read(b"[9999,1]")
    with pytest.raises(EventDecodeError, match="no such stored event code"):
        read(b'[8,0,0,"0 1"]')  # a Hazari layout in an Azi stream
    with pytest.raises(EventDecodeError, match="values where"):
        read(b"[20,1]")
    with pytest.raises(EventDecodeError, match="not a stored entry"):
        read(b"{}")


# -- both forms, through the store -------------------------------------------------------------
def store_both(store: EventStore, game: str, seed: int) -> tuple[str, str]:
    """The same random game twice: appended (second form), and under another
    id in the first form, as earlier releases wrote it, with the same times."""
    new_id, old_id = f"forms-new-{seed}", f"forms-old-{seed}"
    events = random_game(game, seed, new_id).events
    for version, event in enumerate(events):
        store.append(new_id, [event], version)
    times = [s.at_ms for s in store.read(new_id)]
    first = dataclasses.replace(events[0], game_id=old_id)
    stored = [(*pack_event(e), at) for e, at in zip([first, *events[1:]], times, strict=True)]
    store.append_stored(old_id, stored, 0)
    return new_id, old_id


@pytest.mark.parametrize("game", GAMES)
def test_a_game_stored_in_either_form_reads_loads_and_exports_the_same(
    store: EventStore, game: str
) -> None:
    new_id, old_id = store_both(store, game, 7)
    new, old = store.read(new_id), store.read(old_id)
    assert [(s.version, s.at_ms) for s in new] == [(s.version, s.at_ms) for s in old]
    renamed = [dataclasses.replace(old[0].event, game_id=new_id), *(s.event for s in old[1:])]
    assert all(same(a, b) for a, b in zip((s.event for s in new), renamed, strict=True))
    assert dataclasses.replace(load_game(store, old_id, cache=None), game_id=new_id) == load_game(
        store, new_id, cache=None
    )
    raw_new, raw_old = store.read_raw(new_id), store.read_raw(old_id)
    for a, b in zip(raw_new[1:], raw_old[1:], strict=True):
        assert (a.version, a.at_ms, a.type, a.schema_version) == (
            b.version,
            b.at_ms,
            b.type,
            b.schema_version,
        )
        assert json.loads(a.data) == json.loads(b.data)
    exported = archive.export_jsonl(store, new_id)
    assert exported.replace(new_id, old_id) == archive.export_jsonl(store, old_id)
    fields = _entry_fields(store, new_id)
    assert fields and all(set(f) == {entries.FIELD} for f in fields)
    assert all(set(f) == {b"t", b"v", b"d"} for f in _entry_fields(store, old_id))


def _entry_fields(store: EventStore, game_id: str) -> list[dict[bytes, Any]]:
    client: redis.Redis = store._redis  # type: ignore[assignment]
    return [fields for _, fields in client.xrange(keys.events(game_id))]


# -- the property: many random games, both forms, the same folds -------------------------------
SHARDS = 4
"""The two thousand games are played in this many tests of 500, which the
parallel workers share; each shard's seeds are its own (``seed * SHARDS + shard``),
so the shards never play the same game although each draws its seeds alike."""


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
@settings(
    max_examples=2000 // SHARDS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    game=st.sampled_from(("hazari", "azi", "azi", "azi", "murlan")),
    seed=st.integers(0, 2**30 - 1),
)
def test_random_games_fold_to_the_same_states_through_both_forms(
    shard: int, game: str, seed: int
) -> None:
    """Two thousand random whole games (random legal moves), each event
    decoded from both forms: the same events, and the same state folded."""
    played = random_game(game, seed * SHARDS + shard)
    old = [first_form(game, e) for e in played.events]
    new = [second_form(game, e) for e in played.events]
    assert all(same(a, b) for a, b in zip(old, new, strict=True))
    assert table.fold(old) == table.fold(new) == played.state
