"""Server seeds at rest: sealed with AES-GCM, opened only with their key and game."""

from __future__ import annotations

import fakeredis
import pytest

from service.store import EventStore, keys
from service.store.seeds import (
    PREFIX,
    SeedCipher,
    SeedKeyError,
    new_key_entry,
    open_seed,
    parse_keys,
)

SEED = bytes(range(32))


def cipher(*ids: str) -> SeedCipher:
    return SeedCipher(parse_keys(",".join(new_key_entry(i) for i in ids)))


def test_a_sealed_seed_is_not_the_seed_and_opens_only_with_its_key_and_game() -> None:
    c = cipher("a")
    sealed = c.seal("g1", SEED)
    assert (
        sealed.startswith(PREFIX + b"a:")
        and SEED not in sealed
        and SEED.hex().encode() not in sealed
    )
    assert c.open("g1", sealed) == SEED
    assert c.seal("g1", SEED) != sealed  # a fresh nonce each time
    with pytest.raises(SeedKeyError):
        c.open("g2", sealed)  # moved to another game
    other = SeedCipher((("a", cipher("x").keys[0][1]),))  # same id, another key
    with pytest.raises(SeedKeyError):
        other.open("g1", sealed)
    with pytest.raises(SeedKeyError):
        open_seed("g1", sealed, None)


def test_rotation_seals_with_the_first_key_and_opens_with_any() -> None:
    old = cipher("k1")
    sealed_before = old.seal("g", SEED)
    rotated = SeedCipher((cipher("k2").keys[0], old.keys[0]))
    assert rotated.open("g", sealed_before) == SEED
    assert rotated.seal("g", SEED).startswith(PREFIX + b"k2:")
    with pytest.raises(SeedKeyError):
        cipher("k2").open("g", sealed_before)  # the old key dropped too soon


@pytest.mark.parametrize(
    "text",
    ["nokey", "a:not base64!", "a:" + "QUFB", "bad id!:" + new_key_entry("x")[2:], "a:QUFB,a:QUFB"],
    # Named, not shown: the fourth holds a fresh random key, and parallel workers
    # must collect the same test ids.
    ids=["no-colon", "not-base64", "short-key", "bad-id", "duplicate-id"],
)
def test_bad_key_lists_are_refused(text: str) -> None:
    with pytest.raises(SeedKeyError):
        SeedCipher(parse_keys(text))


def test_the_store_keeps_seeds_sealed_and_reads_clear_ones() -> None:
    redis = fakeredis.FakeRedis()
    store = EventStore(redis, seeds=cipher("k"))
    store.put_secret("g1", SEED)
    assert redis.get(keys.secret("g1")) != SEED and store.get_secret("g1") == SEED
    redis.set(keys.secret("g2"), SEED)  # written before a key was configured
    assert store.get_secret("g2") == SEED
    embedded = EventStore(fakeredis.FakeRedis())  # no key configured: a process key
    assert embedded.seeds is not None
