"""The ``creator`` row: the hands of the seat of the table's creator, counted
once the creator's seat is recorded; older games (no mark) still fold, verify
and count."""

from __future__ import annotations

import copy
import random
from collections import Counter
from functools import cache
from typing import Any

from service.engines import table
from service.engines.cards import canonical_deck
from service.fairness import projection
from service.fairness.features import deal_fields
from service.fairness.inputs import counted_inputs
from service.fairness.outcomes import bot_game
from service.replay import audit_replay, build_replay

DECK54 = [str(c) for c in canonical_deck(54)]


class Deal:
    def __init__(self, hands: list[list[str]], dealer: int) -> None:
        self.hands, self.dealer, self.trump_card = hands, dealer, ""


def test_the_creators_hand_counts_in_the_creator_group() -> None:
    deck = DECK54[:]
    random.Random(9).shuffle(deck)
    deal = Deal([deck[s::4] for s in range(4)], 0)
    fields = deal_fields("murlan", {}, deal, [None] * 4, [False, False, True, True], 1)
    mine = [f for f in fields if "|creator|" in f]
    assert len(mine) == 18
    assert sorted(mine) == sorted(
        f.replace("|seat:1|", "|creator|") for f in fields if "|seat:1|" in f
    )
    assert not [f for f in deal_fields("murlan", {}, deal, [None] * 4) if "|creator|" in f]


@cache
def creator_game() -> tuple[table.Table, list[Any]]:
    events = bot_game("hazari", 4, 77, people=frozenset({2}), creator=2)
    return table.fold(events), events


def replay_doc() -> dict[str, Any]:
    state, events = creator_game()
    stored = [projection.Noted(v, e) for v, e in enumerate(events, start=1)]
    return build_replay(state, stored)


def test_a_game_with_its_creator_marked_verifies_and_counts_his_hands() -> None:
    doc = replay_doc()
    assert [s["creator"] for s in doc["seats"]] == [False, False, True, False]
    assert audit_replay(doc).ok
    found = counted_inputs([("game.json", doc)])
    assert not found.rejected and found.games == 1
    creator = Counter({k: v for k, v in found.counts.items() if "|creator|" in k})
    seat2 = Counter(
        {k.replace("|seat:2|", "|creator|"): v for k, v in found.counts.items() if "|seat:2|" in k}
    )
    assert creator and creator == seat2


def test_a_document_written_before_the_mark_still_verifies_and_counts() -> None:
    """No ``creator`` in the seats nor in the events (schema v3): nobody is the
    creator, the audit passes, and the game counts without the row."""
    doc = copy.deepcopy(replay_doc())
    for seat in doc["seats"]:
        del seat["creator"]
    for entry in doc["events"]:
        if entry.get("type") == "SeatTaken":
            del entry["creator"]
            entry["schema_version"] = 3
    assert audit_replay(doc).ok
    found = counted_inputs([("old.json", doc)])
    assert not found.rejected and found.games == 1
    assert not [k for k in found.counts if "|creator|" in k]


def test_a_bot_claimed_as_the_creator_fails_the_audit() -> None:
    doc = copy.deepcopy(replay_doc())
    for entry in doc["events"]:
        if entry.get("type") == "SeatTaken" and entry["seat"] == 0:
            entry["creator"] = True
    doc["seats"][0]["creator"] = True
    assert not audit_replay(doc).ok
