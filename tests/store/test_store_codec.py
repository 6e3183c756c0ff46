"""Events and states to their stored form and back; schemas; upcasting."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest
import redis

from schemas import compact as compact_module
from schemas.codec import (
    EventDecodeError,
    decode_event,
    decode_state,
    encode_event,
    encode_state,
    pack_event,
    unpack_event,
)
from schemas.events import event_classes, event_json_schema, event_model, schema_version
from schemas.upcasters import (
    UPCASTERS,
    upcast_SeatTaken_v1_v2,
    upcast_SeatTaken_v2_v3,
    upcast_SeatTaken_v3_v4,
)
from service.engines import table
from service.engines.base import Event
from service.engines.registry import GAMES, engine_for
from service.store import EventStore, archive, keys
from tests.store.helpers import created, random_game

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
V1_EXPORT = FIXTURES / "events_v1.jsonl"
OLD_SNAPSHOT = FIXTURES / "snapshot_azi_v5.json"


def playable(game: str) -> str:
    engine_for(game)  # every game's engine loads; a broken one fails here
    return game


# -- events -----------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_every_event_of_random_games_round_trips(game: str) -> None:
    playable(game)
    for seed in range(3):
        played = random_game(game, seed)
        for event in played.events:
            data = encode_event(event)
            assert data["type"] == event.type
            assert json.loads(json.dumps(data)) == data
            assert decode_event(game, data) == event
            assert decode_event(game, data, strict=True) == event
            type_name, version, raw = pack_event(event)
            assert unpack_event(game, type_name, version, raw) == event


@pytest.mark.parametrize("game", GAMES)
def test_models_are_generated_from_every_dataclass_field(game: str) -> None:
    playable(game)
    for type_name, cls in event_classes(game).items():
        model = event_model(game, type_name)
        names = {f.name for f in dataclasses.fields(cls)}
        assert set(model.model_fields) == names | {"type", "schema_version"}
        assert model.model_fields["schema_version"].default == schema_version(cls)


@pytest.mark.parametrize("game", GAMES)
def test_each_game_has_a_json_schema_of_its_events(game: str) -> None:
    playable(game)
    schema = event_json_schema(game)
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == set(event_classes(game))
    seat_taken = schema["$defs"]["SeatTaken"]
    assert seat_taken["properties"]["schema_version"]["const"] == 4
    assert "bot" in seat_taken["properties"] and "seed_origin" in seat_taken["properties"]
    assert "creator" in seat_taken["properties"]
    json.dumps(schema)


def test_unknown_types_and_versions_are_named_errors() -> None:
    data = encode_event(table.SeatTaken(0, "Ana", "seed"))
    with pytest.raises(EventDecodeError, match="no such event type"):
        decode_event("azi", {**data, "type": "Nope"})
    with pytest.raises(EventDecodeError, match="schema_version 5"):
        decode_event("azi", {**data, "schema_version": 5})
    with pytest.raises(EventDecodeError, match="seat"):
        decode_event("azi", {**data, "seat": "zero"})
    with pytest.raises(EventDecodeError, match="Extra inputs"):
        decode_event("azi", {**data, "x": 1}, strict=True)
    with pytest.raises(EventDecodeError):
        unpack_event("azi", "SeatTaken", 2, b'{"seat": 0}')
    with pytest.raises(EventDecodeError):
        unpack_event("azi", "SeatTaken", 9, b"{}")


# -- upcasting: SeatTaken v1 had no ``bot`` --------------------------------------------
def v1_rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in V1_EXPORT.read_text().splitlines()]


def test_the_seat_taken_upcaster_is_registered() -> None:
    assert UPCASTERS[("table", "SeatTaken", 1)] is upcast_SeatTaken_v1_v2
    assert UPCASTERS[("table", "SeatTaken", 2)] is upcast_SeatTaken_v2_v3
    assert UPCASTERS[("table", "SeatTaken", 3)] is upcast_SeatTaken_v3_v4
    assert schema_version(table.SeatTaken) == 4
    assert upcast_SeatTaken_v3_v4({"seat": 1}) == {"seat": 1, "creator": False}
    assert upcast_SeatTaken_v1_v2({"seat": 1}) == {"seat": 1, "bot": False}
    assert upcast_SeatTaken_v2_v3({"seat": 1}) == {"seat": 1, "seed_origin": "unrecorded"}


def test_a_v3_seat_reads_as_nobody_s_the_creator() -> None:
    """A seat stored before the creator's seat was marked is not the creator's."""
    v3 = {**encode_event(table.SeatTaken(0, "Ana", "abc", False, "player", True))}
    v3["schema_version"] = 3
    del v3["creator"]
    assert decode_event("azi", v3, strict=True) == table.SeatTaken(0, "Ana", "abc")


def test_a_v2_seat_reads_as_an_unrecorded_seed_origin() -> None:
    """A seat stored before origins were recorded does not claim its seed was committed."""
    v2 = {**encode_event(table.SeatTaken(0, "Bot", "abc", True)), "schema_version": 2}
    del v2["seed_origin"]
    del v2["creator"]
    assert decode_event("azi", v2, strict=True) == table.SeatTaken(
        0, "Bot", "abc", True, "unrecorded"
    )


def test_a_v1_event_is_read_through_the_upcaster() -> None:
    rows = v1_rows()
    v1 = rows[1]["event"]
    assert isinstance(v1, dict) and v1["schema_version"] == 1 and "bot" not in v1
    old = table.SeatTaken(0, "Ana", "ana-seed", False, "unrecorded")
    assert decode_event("azi", v1) == old
    assert decode_event("azi", v1, strict=True) == old
    without_version = {k: v for k, v in v1.items() if k != "schema_version"}
    assert decode_event("azi", without_version) == old


def test_a_v1_archive_imports_reads_upcast_and_stays_v1(fake_redis: redis.Redis) -> None:
    store = EventStore(fake_redis)
    text = V1_EXPORT.read_text()
    game_id = archive.import_jsonl(store, text)
    stored = store.read(game_id)
    assert [s.event for s in stored[1:]] == [
        table.SeatTaken(0, "Ana", "ana-seed", False, "unrecorded"),
        table.SeatTaken(1, "Ben", "ben-seed", False, "unrecorded"),
    ]
    assert [s.at_ms for s in stored] == [1_700_000_000_000, 1_700_000_004_000, 1_700_000_009_000]
    # stored events are never rewritten: the stream still holds v1 and exports it as it was
    assert [raw.schema_version for raw in store.read_raw(game_id)] == [1, 1, 1]
    assert archive.export_jsonl(store, game_id) == text
    state = table.fold([s.event for s in stored])
    assert [s.bot for s in state.seats if s is not None] == [False, False]
    assert keys.events(game_id) == "cardroom:{g-v1-fixture}:events"


def test_new_events_are_written_at_the_current_version() -> None:
    assert pack_event(table.SeatTaken(0, "Ana", "s", True))[:2] == ("SeatTaken", 4)
    assert pack_event(created())[:2] == ("GameCreated", 1)


# -- state snapshots ---------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_states_round_trip_through_a_snapshot(game: str) -> None:
    playable(game)
    for seed in range(2):
        played = random_game(game, seed)
        step = max(1, len(played.states) // 12)
        for state in [*played.states[::step], played.state]:
            data = encode_state(state)
            assert decode_state(game, data) == state
            assert decode_state(game, data.decode()) == state


@pytest.mark.parametrize("game", GAMES)
def test_a_snapshot_names_the_game_game(game: str) -> None:
    """``Table.kind`` is stored as ``game``, the name snapshots have always used."""
    playable(game)
    stored = json.loads(encode_state(random_game(game, 0).state))
    assert stored["game"] == game and "kind" not in stored


def test_a_snapshot_kept_before_the_game_was_table_kind_loads(fake_redis: redis.Redis) -> None:
    """The snapshot hash fields (``v``, ``g``, ``h``, ``s``) of a dealt Azi table, kept
    while the state's own field was still ``game`` and before seats recorded their
    seed's origin: it decodes (its seats' origin unrecorded), and is written back the
    same way but for that field. The store no longer uses it, since the state's shape
    has changed since (its schema id differs): the stream is folded instead."""
    kept = json.loads(OLD_SNAPSHOT.read_text())
    state = decode_state("azi", kept["s"])
    assert (state.kind, state.game_id, state.version) == ("azi", "old-snapshot", kept["v"])
    assert all(s is not None and s.seed_origin == "unrecorded" for s in state.seats)
    again = json.loads(encode_state(state))
    for seat in again["seats"]:
        assert seat.pop("seed_origin") == "unrecorded"
        assert seat.pop("creator") is False
    assert again == json.loads(kept["s"])
    store = EventStore(fake_redis)
    fake_redis.hset(keys.snapshot("old-snapshot"), mapping=kept)
    assert store.load_snapshot("old-snapshot") is None
    assert store.snapshot_version("old-snapshot") == 0


# -- the compact stored form ----------------------------------------------------------------
def test_the_deflate_dictionary_never_changes() -> None:
    digest = hashlib.sha256(compact_module.DICTIONARY_V1).hexdigest()
    assert digest == "9d2e74c6b1d2f348c44fecd4c50a10a98836bf9e6b0d5e11895eddaf98568ed0"


@pytest.mark.parametrize("game", GAMES)
def test_large_fields_are_deflated_small_ones_kept_as_json(game: str) -> None:
    playable(game)
    played = random_game(game, 0)
    for event in played.events:
        _, _, stored = pack_event(event)
        text = encode_json(event)
        assert compact_module.expand(stored) == text
        if compact_module.is_compacted(stored):
            assert len(stored) < len(text)
        else:
            assert stored == text and stored[:1] == b"{"
    deals = [e for e in played.events if e.is_deal]
    assert deals and all(compact_module.is_compacted(pack_event(e)[2]) for e in deals)


def encode_json(event: Event) -> bytes:
    fields = {k: v for k, v in encode_event(event).items() if k not in ("type", "schema_version")}
    return json.dumps(fields, separators=(",", ":")).encode()
