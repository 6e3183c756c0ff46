"""Redis keys: one hash tag per game, and an index that needs no cross-slot command."""

from __future__ import annotations

import pytest
from redis.crc import key_slot

from service.store import keys
from service.store.errors import BadGameId


def game_keys(game_id: str) -> list[str]:
    return [
        keys.events(game_id),
        keys.snapshot(game_id),
        keys.idem(game_id, "any client string: {with} braces"),
        keys.secret(game_id),
        keys.tokens(game_id),
        keys.ledger(game_id),
        keys.meta(game_id),
    ]


def test_a_games_keys_share_one_cluster_slot() -> None:
    for game_id in ("g1", "abc-DEF_123", "x" * 64):
        names = game_keys(game_id)
        assert len(set(names)) == len(names)
        assert all(name.startswith(f"cardroom:{{{game_id}}}:") for name in names)
        assert len({key_slot(name.encode()) for name in names}) == 1


def test_each_index_shard_has_its_own_slot() -> None:
    for shard in range(keys.INDEX_SHARDS):
        names = [
            keys.index_meta(shard),
            keys.index_games(shard),
            keys.index_games(shard, game="azi"),
            keys.index_games(shard, status="ended"),
            keys.index_games(shard, game="azi", status="ended"),
        ]
        assert len({key_slot(name.encode()) for name in names}) == 1
    assert (
        keys.index_games(3, "murlan", "playing")
        == "cardroom:{index:3}:games:game:murlan:status:playing"
    )


def test_games_spread_over_the_index_shards() -> None:
    shards = {keys.index_shard(f"game-{i}") for i in range(500)}
    assert shards == set(range(keys.INDEX_SHARDS))
    assert keys.index_shard("g1") == keys.index_shard("g1")


@pytest.mark.parametrize("bad", ["", "a}b", "{", "a b", "a:b", "x" * 65, "é", None])
def test_a_game_id_that_could_break_its_tag_is_refused(bad: object) -> None:
    with pytest.raises(BadGameId):
        keys.events(bad)  # type: ignore[arg-type]
