"""Seeds the server supplies are fixed by its commitment: the adversary who picks
the last bot's seed after a person's can no longer change a deal.

The grinder here is the dishonest server of docs/fairness.md: it seats the
person first, then tries candidate seeds for the last bot and keeps the one
that gives the person the fewest jokers and 2s. Under the committed scheme the
only bot seed that verifies is the one derived from the committed server seed,
so every deal is fixed by the commitment and the person's own seed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import replace

import pytest

from service.engines import table
from service.engines.base import Event
from service.engines.shuffle import commitment, derived_client_seed, shuffled_deck
from service.replay import RecordedEvent, audit

SERVER_SEED = hashlib.sha256(b"the committed server seed").digest()
HUMAN_SEED = "ana-chose-this"
GAME_ID = "g-grind"
LOW = ("2C", "2D", "2H", "2S", "BJ", "RJ")


def seated(seats: list[table.SeatTaken]) -> list[Event]:
    """A Murlan table created with the committed seed, the given seats, and the
    first deal the rules take from them."""
    events: list[Event] = list(table.create(GAME_ID, "murlan", None, None, commitment(SERVER_SEED)))
    state = table.fold(events)
    for seat in seats:
        events.append(seat)
        state = table.apply(state, seat)
    events += table.advance(state, SERVER_SEED)
    return events


def honest_seats(bot_names: tuple[str, ...] = ("b1", "b2", "b3")) -> list[table.SeatTaken]:
    state = table.fold(table.create(GAME_ID, "murlan", None, None, commitment(SERVER_SEED)))
    out: list[table.SeatTaken] = []
    for name, seed, bot in [("Ana", HUMAN_SEED, False), *((n, None, True) for n in bot_names)]:
        (taken,) = table.take_seat(state, name, seed, bot, SERVER_SEED)
        assert isinstance(taken, table.SeatTaken)
        out.append(taken)
        state = table.apply(state, taken)
    return out


def human_low_cards(events: list[Event]) -> int:
    dealt = next(e for e in events if e.is_deal)
    return sum(c in LOW for c in dealt.hands[0])  # type: ignore[attr-defined]


def verified(events: list[Event]) -> tuple[bool, bool | None, str]:
    recorded = [RecordedEvent(i + 1, e) for i, e in enumerate(events)]
    report = audit(recorded, SERVER_SEED.hex())
    reason = (report.mismatch or {}).get("reason", "")
    return report.ok, report.seeds_committed, reason


def candidates(n: int) -> list[str]:
    return [f"grind-{i:02d}" for i in range(n)]


def test_the_grinder_could_move_the_deal_when_bot_seeds_were_drawn_after() -> None:
    """Without the derivation a bot seed chosen after the person's changes his
    cards: the attack is real (this is what the scheme stops)."""
    seats = honest_seats()
    lows = set()
    for seed in candidates(16):
        forged = [*seats[:3], replace(seats[3], client_seed=seed, seed_origin="unrecorded")]
        lows.add(human_low_cards(seated(forged)))
    assert len(lows) > 1


@pytest.mark.parametrize("origin", ["derived", "player"])
def test_a_bot_seed_the_server_chose_after_the_commitment_fails_the_audit(origin: str) -> None:
    seats = honest_seats()
    for seed in candidates(8):
        forged = [*seats[:3], replace(seats[3], client_seed=seed, seed_origin=origin)]
        ok, _, reason = verified(seated(forged))
        assert not ok
        assert ("derived" in reason) if origin == "derived" else ("bot" in reason)
    assert verified(seated(seats)) == (True, True, "")


def test_an_unrecorded_origin_verifies_but_says_the_seed_was_not_committed() -> None:
    seats = honest_seats()
    old = [replace(s, seed_origin="unrecorded") for s in seats]
    assert verified(seated(old)) == (True, False, "")


def test_the_deals_are_fixed_by_the_commitment_and_the_persons_seed() -> None:
    """Every seating the server can make that verifies and says its seeds were
    committed (any bot names, a person who sends no seed in a bot's place) deals
    the same decks: the grinder's best of many is the one deal there is."""
    options = [honest_seats(), honest_seats(("x", "y", "z"))]
    state = table.fold(table.create(GAME_ID, "murlan", None, None, commitment(SERVER_SEED)))
    mixed = honest_seats()[:3]
    for s in mixed:
        state = table.apply(state, s)
    (no_seed,) = table.take_seat(state, "Ben", None, False, SERVER_SEED)
    options.append([*mixed, no_seed])  # type: ignore[list-item]
    deals = set()
    for seats in options:
        events = seated(seats)
        assert verified(events)[:2] == (True, True)
        deals.add(json.dumps(next(e for e in events if e.is_deal).hands))  # type: ignore[attr-defined]
    assert len(deals) == 1
    derived = [derived_client_seed(SERVER_SEED, i) for i in (1, 2, 3)]
    deck = [str(c) for c in shuffled_deck(SERVER_SEED, GAME_ID, 0, [HUMAN_SEED, *derived], 54)]
    events = seated(options[0])
    dealt = next(e for e in events if e.is_deal)
    assert sorted(c for h in dealt.hands for c in h) == sorted(deck)  # type: ignore[attr-defined]


def test_the_derived_seed_is_the_published_hmac() -> None:
    for seat in range(4):
        msg = f"client-seed:{seat}".encode()
        want = hmac.new(SERVER_SEED, msg, hashlib.sha256).hexdigest()[:32]
        assert derived_client_seed(SERVER_SEED, seat) == want
    assert [s.client_seed for s in honest_seats()[1:]] == [
        derived_client_seed(SERVER_SEED, i) for i in (1, 2, 3)
    ]
    assert [s.seed_origin for s in honest_seats()] == ["player", "derived", "derived", "derived"]


def test_a_bot_sent_with_a_seed_is_refused() -> None:
    from service.engines.shuffle import SeedError

    state = table.fold(table.create(GAME_ID, "murlan", None, None, commitment(SERVER_SEED)))
    with pytest.raises(SeedError, match="bot"):
        table.take_seat(state, "b", "my-own", True, SERVER_SEED)
