"""The Azi bot: always legal, deterministic, and it beats random players."""

from __future__ import annotations

import random
from typing import Any

from service.devstack import new_game, play
from service.engines import table
from service.engines.azi import ENGINE
from service.engines.azi.bot import bet_size, strength
from service.engines.azi.events import AntesPaid, PotSettled
from service.engines.azi.state import AziState
from tests.engines.azi.support import assert_listed, deal, new_table
from tests.engines.azi.test_random import random_move
from tests.engines.azi.test_rules import plain_hand


def bot_policy(
    state: table.Table, seat: int, legal: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    es: AziState = state.engine_state
    move = ENGINE.bot_move(es, seat)
    assert move == ENGINE.bot_move(es, seat)  # a function of the state alone
    assert move["action"] != "leave"
    assert_listed(es, seat, move)
    timeout = ENGINE.timeout_move(es, seat)
    assert_listed(es, seat, timeout)
    return move


def random_policy(
    state: table.Table, seat: int, legal: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    return random_move(legal, rng)


def test_bots_play_whole_matches_at_every_table_size() -> None:
    rng = random.Random(11)
    for seats in range(2, 7):
        for cards in (3, 4):
            options = {"buy_in": 60, "cards": cards}
            played = new_game("azi", options, seats=seats, rng=rng, game_id=f"b{seats}{cards}")
            play(played, rng, default=bot_policy)
            assert played.state.over
            assert sum(ENGINE.result(played.state.engine_state)["results"]) == 0


def test_the_bot_wins_chips_from_random_players() -> None:
    """One bot against three uniformly random players at a four-seat table."""
    rng = random.Random(5)
    results: list[int] = []
    match = 0
    while len(results) < 800:
        bot = match % 4
        played = new_game("azi", {}, seats=4, rng=rng, game_id=f"vs-{match}")
        play(played, rng, policies={bot: bot_policy}, default=random_policy)
        start = None
        for event, game in zip(played.events, played.states, strict=True):
            es: AziState = game.engine_state
            if isinstance(event, AntesPaid):
                start = es.stacks[bot] + event.antes[bot] if event.antes[bot] else None
            if isinstance(event, PotSettled) and start is not None:
                results.append(es.stacks[bot] - start)
        match += 1
    average = sum(results) / len(results)
    assert average > 0, f"the bot lost {average:.1f} chips per hand over {len(results)} hands"


def test_strength_grows_with_trumps_and_high_cards() -> None:
    weak, _ = deal(new_table(3), 2, {0: "6D 7S 8D", 1: "QH AS 7D", 2: "TH 8S 9D"}, "9H")
    strong, _ = deal(new_table(3), 2, {0: "AH KH 6D", 1: "QH AS 7D", 2: "TH 8S 9D"}, "9H")
    assert strength(strong, 0) > 0.8 > 0.2 > strength(weak, 0)


def test_the_bot_opens_a_strong_hand_and_folds_a_weak_one() -> None:
    assert ENGINE.bot_move(plain_hand(), 0)["action"] == "bet"
    weak, _ = deal(new_table(3), 2, {0: "6D 7S 8D", 1: "QH AS 7D", 2: "TH 8S 9D"}, "9H")
    assert ENGINE.bot_move(weak, 0) == {"action": "fold"}


def test_the_bot_wins_a_trick_cheaply_when_last() -> None:
    state, _ = deal(new_table(2), 1, {0: "KD 7S 8H", 1: "AD QD 6D"}, "JS")
    state = ENGINE.fold(state, ENGINE.decide(state, 0, {"action": "bet", "amount": 10}))
    state = ENGINE.fold(state, ENGINE.decide(state, 1, {"action": "call"}))
    state = ENGINE.fold(state, ENGINE.decide(state, 0, {"action": "play", "card": "KD"}))
    assert ENGINE.bot_move(state, 1) == {"action": "play", "card": "AD"}
    state, _ = deal(new_table(2), 1, {0: "9D 7S 8H", 1: "AD QD 6D"}, "JS")
    state = ENGINE.fold(state, ENGINE.decide(state, 0, {"action": "bet", "amount": 10}))
    state = ENGINE.fold(state, ENGINE.decide(state, 1, {"action": "call"}))
    state = ENGINE.fold(state, ENGINE.decide(state, 0, {"action": "play", "card": "9D"}))
    assert ENGINE.bot_move(state, 1) == {"action": "play", "card": "QD"}


def test_the_strongest_first_hand_bets_three_pots_not_the_whole_stack() -> None:
    """The first hand of a match, the strongest cards (two top trumps and an ace): a
    big bet, never the 990 chips of a full stack."""
    strong, _ = deal(new_table(3), 2, {0: "AH KH AS", 1: "QH 7S 7D", 2: "TH 8S 9D"}, "9H")
    assert strength(strong, 0) >= 0.8
    move = ENGINE.bot_move(strong, 0)
    assert move == {"action": "bet", "amount": 3 * strong.pot + strong.options.min_bet}
    assert move["amount"] < strong.stacks[0] // 4


def test_a_short_stack_with_a_strong_hand_goes_all_in() -> None:
    """With less than a pot left behind three pots, the bot puts in everything."""
    short, _ = deal(new_table(3, buy_in=60), 2, {0: "AH KH AS", 1: "QH 7S 7D", 2: "TH 8S 9D"}, "9H")
    move = ENGINE.bot_move(short, 0)
    assert move == {"action": "bet", "amount": short.stacks[0]}


def test_bet_sizes_by_strength() -> None:
    assert bet_size(0.5, 10, 990, 30) == 10
    assert bet_size(0.7, 10, 990, 30) == 70
    assert bet_size(0.9, 10, 990, 30) == 100
    assert bet_size(0.9, 10, 120, 30) == 120  # 20 would be left: less than the pot
    assert bet_size(0.7, 40, 60, 30) == 60
