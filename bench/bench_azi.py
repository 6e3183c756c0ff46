"""Azi benchmarks: random-playout speed and the bot's edge over random players.

Run ``.venv/bin/python -m bench.bench_azi`` (about a minute) or with
``--quick`` (a few seconds). Figures only; nothing is asserted here.

- *Random playout*: whole matches at 2-6 seats where every player picks
  uniformly among the listed legal bodies (``leave`` excluded); a listed bet
  becomes a uniformly random amount in the allowed range. Reports hands and
  deals per second through the pure engine.
- *Bot vs random*: one bot against three such random players at a 4-seat
  table with the default options, match after match until enough hands are
  played. Reports the bot's average chip result per hand (with its standard
  error), the share of pots it won, and how often its bets put in its whole
  stack (on the match's first hand, a full stack, the bot never should).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.stats import standard_error
from service.engines.azi import ENGINE
from service.engines.azi.events import AntesPaid, HandDealt, PotSettled
from service.engines.azi.state import AziState
from service.engines.base import JSON
from service.engines.shuffle import Shuffler

Policy = Callable[[AziState, int, random.Random], JSON]


def random_move(state: AziState, seat: int, rng: random.Random) -> JSON:
    """Uniform among the listed legal bodies (never ``leave``); a bet picks a
    uniform amount between the listed smallest and largest bid."""
    legal = [m for m in ENGINE.legal_moves(state, seat) if m["action"] != "leave"]
    move = rng.choice(legal)
    if move["action"] == "bet":
        amounts = [m["amount"] for m in legal if m["action"] == "bet"]
        return {"action": "bet", "amount": rng.randint(min(amounts), max(amounts))}
    return move


def bot_move(state: AziState, seat: int, rng: random.Random) -> JSON:
    return ENGINE.bot_move(state, seat)


@dataclass
class MatchStats:
    hands: int = 0
    deals: int = 0
    hand_results: list[int] = field(default_factory=list)
    """Chip result of the watched seat for each hand it was dealt in."""
    pots_won: int = 0
    bets: int = 0
    """The watched seat's bets…"""
    all_in: int = 0
    """…those that put in its whole stack…"""
    first_hand_all_in: int = 0
    """…those of them made in the match's first hand (a full stack)…"""
    first_hand_all_in_open: int = 0
    """…and of those, the ones that opened the bidding (nobody had bet yet: no reason
    from the others' bets, only the bot's cards)."""


def play_match(
    options: dict[str, Any],
    seats: int,
    policies: dict[int, Policy],
    rng: random.Random,
    match_id: str,
    watch: int | None = None,
) -> MatchStats:
    """One whole match straight through the engine (no table wrapper)."""
    state = ENGINE.initial(ENGINE.parse_options(options), seats)
    shuffler = Shuffler(rng.randbytes(32), match_id, tuple(f"s{i}" for i in range(seats)))
    stats = MatchStats()
    start_stack = 0
    dealt_in = False
    while not state.over:
        if ENGINE.pending(state) is not None:
            events = ENGINE.advance(state, shuffler)
        else:
            seat = rng.choice(ENGINE.to_act(state))
            move = policies.get(seat, random_move)(state, seat, rng)
            if seat == watch and move["action"] == "bet":
                _count_bet(stats, state, seat, move["amount"])
            events = ENGINE.decide(state, seat, move)
        for event in events:
            if isinstance(event, AntesPaid):
                stats.hands += 1
                if watch is not None:
                    dealt_in = event.antes[watch] > 0
                    start_stack = state.stacks[watch]
            elif isinstance(event, HandDealt):
                stats.deals += 1
            state = ENGINE.apply(state, event)
            if isinstance(event, PotSettled) and watch is not None:
                stats.pots_won += event.winner == watch
                if dealt_in:
                    stats.hand_results.append(state.stacks[watch] - start_stack)
    return stats


def _count_bet(stats: MatchStats, state: AziState, seat: int, amount: int) -> None:
    stats.bets += 1
    if amount == state.bids[seat] + state.stacks[seat]:
        stats.all_in += 1
        stats.first_hand_all_in += state.hand_no == 1
        stats.first_hand_all_in_open += state.hand_no == 1 and state.highest == 0


def bench_random(seconds_budget: float, rng: random.Random) -> None:
    hands = deals = matches = 0
    started = time.perf_counter()
    cpu_started = time.process_time()
    while time.perf_counter() - started < seconds_budget:
        seats = rng.randint(2, 6)
        cards = rng.choice((3, 4))
        stats = play_match({"cards": cards}, seats, {}, rng, f"bench-{matches}")
        hands += stats.hands
        deals += stats.deals
        matches += 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    print(f"random playout: {matches} matches, {hands} hands, {deals} deals in {elapsed:.1f} s")
    print(
        f"  {hands / elapsed:,.0f} hands/s, {deals / elapsed:,.0f} deals/s wall clock; "
        f"{hands / cpu:,.0f} hands per CPU second (2-6 seats, cards 3/4)"
    )


def bench_bot(min_hands: int, rng: random.Random, options: dict[str, Any]) -> float:
    results: list[int] = []
    pots = bets = all_in = first_all_in = first_open = 0
    matches = 0
    started = time.perf_counter()
    while len(results) < min_hands:
        bot_seat = matches % 4
        stats = play_match(options, 4, {bot_seat: bot_move}, rng, f"bot-{matches}", bot_seat)
        results.extend(stats.hand_results)
        pots += stats.pots_won
        bets += stats.bets
        all_in += stats.all_in
        first_all_in += stats.first_hand_all_in
        first_open += stats.first_hand_all_in_open
        matches += 1
    elapsed = time.perf_counter() - started
    mean = statistics.fmean(results)
    error = standard_error(results)
    print(
        f"bot vs 3 random ({options or 'default options'}): {len(results)} hands in "
        f"{matches} matches, {elapsed:.1f} s"
    )
    print(
        f"  average chip result per hand {mean:+.1f} (standard error {error:.1f}), "
        f"pots won {pots / len(results):.1%}"
    )
    print(
        f"  bets {bets}: all in {all_in / max(bets, 1):.1%}, "
        f"all in on the match's first hand {first_all_in} in {matches} matches "
        f"({first_open} of them opening the bidding)"
    )
    return mean


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a few seconds instead of a minute")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    # Each part has its own generator, so the bot's figures do not depend on
    # how many playouts the timed part managed.
    bench_random(2.0 if args.quick else 15.0, random.Random(args.seed))
    hands = 400 if args.quick else 4000
    bench_bot(hands, random.Random(args.seed + 1), {})
    if not args.quick:
        bench_bot(hands // 2, random.Random(args.seed + 2), {"cards": 4})


if __name__ == "__main__":
    main()
