"""The fair shuffle against the published vectors of docs/fairness.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engines.cards import canonical_deck
from service.engines.shuffle import (
    DealStream,
    SeedError,
    Shuffler,
    VerificationError,
    commitment,
    deck_digest,
    derived_client_seed,
    new_server_seed,
    parse_server_seed,
    stream_prefix,
    validate_client_seed,
    verify,
)

DOC = Path(__file__).resolve().parents[1] / "docs" / "fairness.md"


def doc_vectors() -> list[dict[str, str]]:
    text = DOC.read_text()
    table = text.split("<!-- vectors:begin -->")[1].split("<!-- vectors:end -->")[0]
    rows = [r for r in table.strip().splitlines()[2:] if r.startswith("|")]
    keys = ["seed", "game_id", "client_seeds", "deal", "size", "first10", "digest", "next4"]
    out = []
    for row in rows:
        cells = [c.strip().strip("`") for c in row.strip("|").split("|")]
        out.append(dict(zip(keys, cells, strict=True)))
    return out


VECTORS = doc_vectors()


def test_the_doc_publishes_at_least_five_vectors() -> None:
    assert len(VECTORS) >= 5


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: f"{v['game_id']}-{v['deal']}")
def test_vectors_reproduce(vector: dict[str, str]) -> None:
    seed = bytes.fromhex(vector["seed"])
    shuffler = Shuffler(seed, vector["game_id"], tuple(vector["client_seeds"].split()))
    deck, stream = shuffler.deal(int(vector["deal"]), int(vector["size"]))
    assert " ".join(str(c) for c in deck[:10]) == vector["first10"]
    assert deck_digest(deck) == vector["digest"]
    assert stream.draw(4) == int(vector["next4"])
    assert sorted(deck) == sorted(canonical_deck(int(vector["size"])))


def test_doc_commitments_match() -> None:
    text = DOC.read_text()
    for seed_hex in {v["seed"] for v in VECTORS}:
        assert commitment(bytes.fromhex(seed_hex)) in text


def test_independent_verifier_block_agrees_with_vectors() -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None
    namespace: dict[str, object] = {"__name__": "verifier"}
    exec(code.group(1), namespace)
    shuffle = namespace["shuffle"]
    for v in VECTORS:
        deck = shuffle(  # type: ignore[operator]
            bytes.fromhex(v["seed"]),
            v["game_id"],
            int(v["deal"]),
            v["client_seeds"].split(),
            int(v["size"]),
        )
        assert " ".join(deck[:10]) == v["first10"]


def test_prefix_format() -> None:
    assert stream_prefix("g1", 3, ["a", "b"]) == "cardroom-shuffle-v1:g1:3:a:b"


def test_verify_checks_the_commitment() -> None:
    seed = bytes(range(32))
    deck = verify(
        commitment(seed), seed.hex(), "demo-game", ["alice", "bob", "carol", "dave"], 0, 52
    )
    assert str(deck[0]) == "9S"
    with pytest.raises(VerificationError):
        verify("0" * 64, seed.hex(), "demo-game", ["alice"], 0, 52)
    with pytest.raises(SeedError):
        verify(commitment(seed), "zz", "demo-game", ["alice"], 0, 52)
    with pytest.raises(SeedError):
        verify(commitment(seed), seed.hex(), "demo-game", ["bad seed!"], 0, 52)


def test_server_seed_parsing() -> None:
    assert parse_server_seed("ab" * 32) == bytes([0xAB]) * 32
    with pytest.raises(SeedError):
        parse_server_seed("ab" * 31)


@pytest.mark.parametrize("seed", ["a", "A-z_09", "x" * 64])
def test_client_seed_accepts(seed: str) -> None:
    assert validate_client_seed(seed) == seed


@pytest.mark.parametrize("seed", ["", "x" * 65, "a b", "é", "a:b", "a/b", None, 5])
def test_client_seed_rejects(seed: object) -> None:
    with pytest.raises(SeedError):
        validate_client_seed(seed)


def test_generated_seeds() -> None:
    a, b = new_server_seed(), new_server_seed()
    assert len(a) == 32 and a != b
    seed = derived_client_seed(a, 3)
    validate_client_seed(seed)
    assert len(seed) == 32 and seed != derived_client_seed(a, 2) != derived_client_seed(b, 2)


def test_derived_seed_is_the_documented_hmac() -> None:
    """A derived seat seed is hex(HMAC-SHA256(server_seed, "client-seed:" + seat))[:32]."""
    import hashlib
    import hmac

    seed = bytes(range(32))
    want = hmac.new(seed, b"client-seed:1", hashlib.sha256).hexdigest()[:32]
    assert derived_client_seed(seed, 1) == want


def test_draw_rejects_values_in_the_biased_tail() -> None:
    n = 3 * 2**30
    limit = 2**32 - (2**32 % n)
    values = iter([limit, 2**32 - 1, 7])

    class Scripted(DealStream):
        def _next4(self) -> int:
            return next(values)

    assert Scripted(b"k" * 32, "p").draw(n) == 7


def test_draw_bounds() -> None:
    stream = DealStream(b"k" * 32, "p")
    assert stream.draw(1) == 0
    with pytest.raises(ValueError):
        stream.draw(0)


@settings(max_examples=200)
@given(
    seed=st.binary(min_size=32, max_size=32),
    deal=st.integers(0, 1000),
    size=st.sampled_from([27, 36, 52, 54]),
    seeds=st.lists(st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True), min_size=1, max_size=6),
)
def test_every_shuffle_is_a_permutation_and_deterministic(
    seed: bytes, deal: int, size: int, seeds: list[str]
) -> None:
    shuffler = Shuffler(seed, "g", tuple(seeds))
    deck = shuffler.deal(deal, size)[0]
    assert sorted(deck) == sorted(canonical_deck(size))
    assert shuffler.deal(deal, size)[0] == deck


def test_every_input_changes_the_deck() -> None:
    base = Shuffler(bytes(32), "g", ("a", "b")).deal(0, 52)[0]
    assert Shuffler(bytes(31) + b"\x01", "g", ("a", "b")).deal(0, 52)[0] != base
    assert Shuffler(bytes(32), "h", ("a", "b")).deal(0, 52)[0] != base
    assert Shuffler(bytes(32), "g", ("a", "c")).deal(0, 52)[0] != base
    assert Shuffler(bytes(32), "g", ("a", "b")).deal(1, 52)[0] != base
