"""Random whole games through the store: what is read back folds to the live state.

For every game: ``fold(read(all))``, ``snapshot + fold(tail)`` and
``load_game`` all equal the state the engine reached while playing.
"""

from __future__ import annotations

import random

import pytest

from service.devstack import PlayedGame
from service.engines import table
from service.engines.registry import GAMES
from service.store import EventStore
from service.store.load import load_game
from tests.store.helpers import random_game
from tests.testredis import client_of

SEEDS = {"hazari": 3, "azi": 4, "murlan": 1}


def store_in_chunks(
    store: EventStore, game_id: str, played: PlayedGame, rng: random.Random
) -> None:
    """Append as the service would: a few events at a time, each with the version seen."""
    version = 0
    while version < len(played.events):
        size = 1 if version == 0 else rng.randint(1, 6)
        chunk = played.events[version : version + size]
        result = store.append(game_id, chunk, version)
        assert (result.first_version, result.last_version) == (version + 1, version + len(chunk))
        version = result.last_version


@pytest.mark.parametrize("game", GAMES)
def test_replay_equals_snapshot_plus_tail_equals_live_state(store: EventStore, game: str) -> None:
    for seed in range(SEEDS[game]):
        rng = random.Random(seed)
        game_id = f"{game}-{seed}"
        played = random_game(game, seed, game_id=game_id)
        live = played.state
        assert live.over and live.version == len(played.events)
        store_in_chunks(store, game_id, played, rng)

        stored = store.read(game_id)
        assert [s.version for s in stored] == list(range(1, len(played.events) + 1))
        assert [s.event for s in stored] == played.events
        assert table.fold([s.event for s in stored]) == live

        cut = rng.randrange(1, len(played.events))
        assert store.save_snapshot(game_id, played.states[cut - 1])
        snapshot = store.load_snapshot(game_id)
        assert snapshot is not None and snapshot.version == cut
        tail = store.read(game_id, after=cut)
        assert table.fold([s.event for s in tail], snapshot) == live
        assert load_game(store, game_id, cache=None) == live

        # a store that has never seen the game reads it just the same
        fresh = EventStore(client_of(store))
        assert table.fold([s.event for s in fresh.read(game_id, after=cut)], snapshot) == live
