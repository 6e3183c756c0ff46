"""Thousands of random Hazari matches through the table (``game.py``), each
checked event by event against an independent referee: every deal's 52
cards dealt from the shuffle as the rules say, laid once each, 360 points
per deal, the round winners and leaders, the end of the match, and
``fold(events) == live state``."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from service.devstack import PlayedGame, new_game, play, push, run_system_steps
from service.engines import table
from service.engines.base import Event
from service.engines.hazari import ENGINE
from service.engines.hazari.arrange import random_arrangement
from service.engines.hazari.combos import CARD_STRS, card_points, key
from service.engines.hazari.engine import parse_arrangement
from service.engines.hazari.events import Arranged, DealScored, Dealt, MatchEnded, RoundPlayed
from service.engines.hazari.state import HazariState
from service.engines.shuffle import Shuffler, commitment

Chooser = Callable[[HazariState, int, random.Random], dict[str, Any]]


def random_valid(state: HazariState, seat: int, rng: random.Random) -> dict[str, Any]:
    groups = random_arrangement(state.hands[seat], rng)
    return {"action": "arrange", "groups": [list(g) for g in groups]}


def play_match(seed: int, target: int, choose: Chooser = random_valid) -> PlayedGame:
    """A whole match; seats say up in a random order."""
    rng = random.Random(seed)
    played = new_game("hazari", {"target": target}, rng=rng, game_id=f"hz-{seed}")
    while True:
        run_system_steps(played)
        state = played.state
        if state.over:
            return played
        waiting = ENGINE.to_act(state.engine_state)
        assert waiting, "nobody to act and nothing pending"
        seat = rng.choice(waiting)
        push(played, table.decide(state, seat, choose(state.engine_state, seat, rng)))


def check_match(played: PlayedGame) -> None:
    """Referee a finished match from its events alone."""
    state = played.state
    shuffler = Shuffler(played.server_seed, state.game_id, state.client_seeds())
    target = state.options["target"]
    engine_events = [e for e in played.events if type(e) in ENGINE.event_types]
    scores = [0, 0, 0, 0]
    ended: MatchEnded | None = None
    deal = -1
    dealer = -1
    i = 0
    while i < len(engine_events):
        dealt_event = engine_events[i]
        assert isinstance(dealt_event, Dealt) and ended is None
        assert dealt_event.deal == deal + 1
        deal = dealt_event.deal
        deck, stream = shuffler.deal(deal, 52)
        dealer = stream.draw(4) if deal == 0 else (dealer + 1) % 4
        assert dealt_event.dealer == dealer
        hands = dealt_event.hands
        for seat in range(4):
            assert hands[seat] == tuple(str(c) for c in deck[(seat - dealer - 1) % 4 :: 4])
        assert sorted(c for h in hands for c in h) == sorted(CARD_STRS)
        arranged = engine_events[i + 1 : i + 5]
        rounds = engine_events[i + 5 : i + 9]
        scored = engine_events[i + 9]
        assert all(isinstance(e, Arranged) for e in arranged)
        assert all(isinstance(e, RoundPlayed) for e in rounds)
        assert isinstance(scored, DealScored) and scored.deal == deal
        groups: dict[int, Any] = {}
        for event in arranged:
            assert isinstance(event, Arranged) and event.seat not in groups
            move = event.move_body()
            assert parse_arrangement(move, hands[event.seat]) == event.groups
            groups[event.seat] = event.groups
        leader = (dealer + 1) % 4
        points = [0, 0, 0, 0]
        laid_cards: list[str] = []
        for number, event in enumerate(rounds, start=1):
            assert isinstance(event, RoundPlayed)
            order = tuple((leader + k) % 4 for k in range(4))
            laid = tuple(groups[s][number - 1] for s in range(4))
            best = max(key(g) for g in laid)
            winner = [s for s in order if key(laid[s]) == best][-1]  # the later of equals
            pot = sum(card_points(c) for g in laid for c in g)
            assert (event.round, event.leader, event.order) == (number, leader, order)
            assert (event.laid, event.winner, event.points) == (laid, winner, pot)
            assert sorted(len(g) for g in laid) == ([4] * 4 if number == 4 else [3] * 4)
            laid_cards += [c for g in laid for c in g]
            points[winner] += pot
            leader = winner
        assert sorted(laid_cards) == sorted(CARD_STRS)  # nothing lost, nothing twice
        assert sum(points) == 360 and list(scored.points) == points
        scores = [s + p for s, p in zip(scores, points, strict=True)]
        assert list(scored.scores) == scores
        top = max(scores)
        decided = top >= target and scores.count(top) == 1
        i += 10
        if decided:
            last = engine_events[i]
            assert last == MatchEnded(tuple(scores), (scores.index(top),))
            ended = last
            i += 1
        else:
            assert i == len(engine_events) or isinstance(engine_events[i], Dealt)
    assert ended is not None
    assert ENGINE.result(state.engine_state) == {
        "scores": scores,
        "target": target,
        "winners": list(ended.winners),
    }
    # replaying the events rebuilds the live state, through the table and alone
    assert table.fold(played.events) == state
    start = ENGINE.initial({"target": target}, 4)
    assert ENGINE.fold(start, engine_events) == state.engine_state


def test_two_thousand_random_matches() -> None:
    """Random valid arrangements; mostly short targets so that many matches
    fit, every twentieth to the default 1000."""
    deals = 0
    for seed in range(2000):
        target = 1000 if seed % 20 == 0 else 500 if seed % 4 == 1 else 360
        played = play_match(seed, target)
        check_match(played)
        deals += played.state.engine_state.deal + 1
    assert deals > 5000


def test_matches_played_through_the_listed_moves() -> None:
    """The shared driver: every move is the listed suggestion (the auto-arranger)."""
    for seed in range(8):
        played = play(
            new_game("hazari", {"target": 700}, rng=random.Random(seed)), random.Random(seed)
        )
        check_match(played)


def test_auto_arranger_against_random_arrangers_wins_matches() -> None:
    def seat0_auto(state: HazariState, seat: int, rng: random.Random) -> dict[str, Any]:
        return ENGINE.bot_move(state, seat) if seat == 0 else random_valid(state, seat, rng)

    wins = 0
    for seed in range(20):
        played = play_match(10_000 + seed, 1000, seat0_auto)
        check_match(played)
        wins += played.state.engine_state.winners == (0,)
    assert wins >= 18


def views_hide_what_they_must(played: PlayedGame) -> None:
    for game_state in played.states:
        hazari = game_state.engine_state
        if not isinstance(hazari, HazariState) or hazari.phase != "arranging":
            continue
        for viewer in (None, 0, 1, 2, 3):
            view = table.view(game_state, viewer)
            assert json.loads(json.dumps(view)) == json.loads(json.dumps(view, sort_keys=True))
            if viewer is not None:
                assert view["hand"] == sorted(hazari.hands[viewer], key=hand_order)
            # the last deal's rounds are public; the rest must not name a held card
            view["table"].pop("last_deal")
            text = json.dumps(view)
            for seat in range(4):
                if seat != viewer:
                    assert not any(f'"{c}"' in text for c in hazari.hands[seat])


def hand_order(card: str) -> tuple[int, int]:
    return (-"23456789TJQKA".index(card[0]), "CDHS".index(card[1]))


def test_views_never_show_hidden_cards() -> None:
    for seed in range(5):
        views_hide_what_they_must(play_match(20_000 + seed, 500))


def test_redacted_events_show_no_hidden_card() -> None:
    played = play_match(7, 500)
    for n, event in enumerate(played.events[1:], start=1):
        live = played.states[n]
        if not isinstance(live.engine_state, HazariState):
            continue
        for viewer in (0, 1, 2, 3):
            shown: Event = table.redact(live, event, viewer)
            if isinstance(event, Arranged) and event.seat != viewer and not live.over:
                assert shown != event
            if isinstance(event, Dealt) and not live.over:
                for seat in range(4):
                    assert isinstance(shown, Dealt)
                    assert (shown.hands[seat] == event.hands[seat]) == (seat == viewer)


def test_the_table_reveals_the_seed_at_the_end() -> None:
    played = play_match(3, 360)
    assert played.state.server_seed == played.server_seed.hex()
    assert played.state.commitment == commitment(played.server_seed)
