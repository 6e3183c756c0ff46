"""An Azi table whose first hand is known to offer Ada a buy-in: deals are drawn from the
table's server seed and the seats' client seeds (docs/cards.md), and the bots play the
engine's one deterministic bot, so the test (which may read the server seed of a table of
its own in-process, as no client can) tries client seeds for Ada until the hand, played in
memory as the table will play it, stops at Ada's buy-in decision. Ada folds at every turn
(a folded seat is asked too, and keeps its cards in view); the other seats are bots."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.engines import table

from .helpers import Site

OFFER_SEATS = 6
"""Three of the six take a trick each (the Azi) and the other three are asked: with fewer
seats the bots fold too often for a hand to reach an Azi in reasonable tries."""
OFFER_OPTIONS = {"buy_in": 5000, "turn_timeout_s": "none"}
SEEDS_TRIED = 20_000
"""About one seed in two hundred gives such a hand."""
FOLD = {"action": "fold"}


@dataclass(frozen=True)
class Offer:
    game_id: str
    token: str
    client_seed: str
    folds: int
    """How many times Ada folds before the offer (one per hand she is dealt into)."""


def _played_to_offer(state: table.Table, server_seed: bytes) -> int | None:
    """Play the seated table in memory, Ada (seat 0) folding: the number of her folds when
    the first hand stops at her buy-in decision, ``None`` when it ends otherwise."""
    folds = 0
    for _ in range(200):
        while table.pending(state) is not None:
            state = table.fold(table.advance(state, server_seed), state)
        engine, es = state.engine, state.engine_state
        if state.over or es.hand_no > 1:
            return None
        to_act = engine.to_act(es)
        if 0 in to_act:
            if {"action": "buy_in"} in engine.legal_moves(es, 0):
                return folds
            state = table.fold(table.decide(state, 0, FOLD), state)
            folds += 1
            continue
        seat = min(to_act)
        state = table.fold(table.decide(state, seat, engine.bot_move(es, seat)), state)
    return None


def seed_for_an_offer(site: Site, game_id: str) -> tuple[str, int]:
    """A client seed for Ada (seat 0) whose first hand reaches her buy-in decision."""
    server_seed = site.service.store.get_secret(game_id)
    assert server_seed is not None, "the table has no server seed"
    opened = site.service.load(game_id)
    for n in range(SEEDS_TRIED):
        seed = f"ada-{n}"
        state = table.fold(table.take_seat(opened, "Ada", seed, False, server_seed), opened)
        for bot in range(1, OFFER_SEATS):
            state = table.fold(
                table.take_seat(state, f"Robo {bot}", None, True, server_seed), state
            )
        folds = _played_to_offer(state, server_seed)
        if folds is not None:
            return seed, folds
    raise AssertionError(f"no client seed of {SEEDS_TRIED} gives Ada a buy-in offer")


def table_with_an_offer(site: Site) -> Offer:
    """A new six-seat Azi table with Ada in seat 0 (her seed chosen for an offer), no turn
    limit; the bots are not seated yet (:func:`seat_the_bots` starts the game)."""
    body: dict[str, Any] = {"game": "azi", "seats": OFFER_SEATS, "options": OFFER_OPTIONS}
    game_id = str(site.api("POST", "/games", json=body)["game_id"])
    seed, folds = seed_for_an_offer(site, game_id)
    granted = site.api("POST", f"/games/{game_id}/seats", json={"name": "Ada", "client_seed": seed})
    assert granted["seat"] == 0 and granted["client_seed"] == seed
    return Offer(game_id, str(granted["token"]), seed, folds)


def seat_the_bots(site: Site, offer: Offer) -> None:
    for n in range(1, OFFER_SEATS):
        site.api("POST", f"/games/{offer.game_id}/seats", json={"name": f"Robo {n}", "bot": True})
