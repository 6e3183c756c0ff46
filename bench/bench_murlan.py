"""Murlan benchmarks: random-playout speed (against RLCard's Dou Dizhu) and
the bot's strength.

Run ``.venv/bin/python -m bench.bench_murlan`` (under a minute) or with
``--quick`` (a few seconds). Figures only; nothing is asserted. Times are
CPU time of this process (``time.process_time``), and the timed loops run
in alternating rounds, so other work on a shared machine skews neither side.

- *Random playouts*: whole hands where every seat picks uniformly among its
  legal moves: the deal from the verifiable shuffle, the exchange, then play
  until three are out. Two ways through the engine:

  - ``engine API``: every move as the table makes it: ``legal_moves``
    (move bodies with card strings), a random pick, ``decide``, ``apply``
    of each event;
  - ``playout``: :func:`~service.engines.murlan.playout.play_out`, the same rules on
    card codes without move bodies or events in between (what RLCard's
    ``Game.step`` is to its environment).

  Also the share of a hand spent dealing (the HMAC-SHA256 shuffle).
- *RLCard*: Dou Dizhu random games at the same level (``DoudizhuGame``:
  ``init_game`` then ``step`` with a random legal action until over) when
  ``rlcard`` can be imported, and the ratio. It is an optional bench
  dependency, not a project one: ``.venv/bin/pip install rlcard``.
- *Bot*: one bot seat against three uniformly random legal players over
  many hands: how often it goes out first (random play: 25%), its places
  and points per hand.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable

from service.engines.murlan import ENGINE
from service.engines.murlan.events import HandEnded
from service.engines.murlan.playout import play_out
from service.engines.murlan.state import PLAYING, MurlanState
from service.engines.shuffle import Shuffler

SEATS = ("a", "b", "c", "d")


class Table:
    """Consecutive random hands of consecutive matches, one seeded stream."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.matches = 0
        self.state = self._new_match()

    def _new_match(self) -> MurlanState:
        self.matches += 1
        self.shuffler = Shuffler(self.rng.randbytes(32), f"bench-{self.matches}", SEATS)
        return ENGINE.initial(ENGINE.parse_options({}), 4)

    def deal(self) -> MurlanState:
        """The next hand dealt (and its exchange made at random): play is due."""
        state = self.state
        if ENGINE.is_over(state):
            state = self._new_match()
        state = ENGINE.fold(state, ENGINE.advance(state, self.shuffler))
        if state.phase != PLAYING:
            (seat,) = ENGINE.to_act(state)
            move = self.rng.choice(ENGINE.legal_moves(state, seat))
            state = ENGINE.fold(state, ENGINE.decide(state, seat, move))
        return state


def engine_api_hands(table: Table, hands: int) -> int:
    """Play ``hands`` random hands through legal_moves/decide/apply; returns moves made."""
    choice = table.rng.choice
    moves = 0
    for _ in range(hands):
        state = table.deal()
        while state.phase == PLAYING:
            seat = state.trick.turn
            for event in ENGINE.decide(state, seat, choice(ENGINE.legal_moves(state, seat))):
                state = ENGINE.apply(state, event)
            moves += 1
        table.state = state
    return moves


def playout_hands(table: Table, hands: int) -> int:
    rnd = table.rng.random

    def choose(n: int) -> int:
        return int(rnd() * n)

    for _ in range(hands):
        table.state = play_out(table.deal(), choose)
    return 0  # (moves are not counted here, to keep the loop bare)


def deal_only(table: Table, hands: int) -> int:
    """Only the first deal's events, over and over (the state stays undealt)."""
    for _ in range(hands):
        ENGINE.advance(table.state, table.shuffler)
    return 0


def rlcard_runs() -> tuple[dict[str, Callable[[int], int]], str]:
    """Functions playing n random Dou Dizhu games (returning moves made) at
    RLCard's two levels, or why there are none."""
    try:
        import numpy as np
        import rlcard  # type: ignore[import-untyped]
        from rlcard.agents import RandomAgent  # type: ignore[import-untyped]
        from rlcard.games.doudizhu.game import DoudizhuGame  # type: ignore[import-untyped]
    except ImportError as exc:  # optional: only for this comparison
        return {}, f"rlcard is not importable ({exc}); .venv/bin/pip install rlcard"
    game = DoudizhuGame()
    game.np_random = np.random.RandomState(0)
    rng = random.Random(0)

    def game_level(n: int) -> int:
        steps = 0
        for _ in range(n):
            state, _ = game.init_game()
            while not game.is_over():
                state, _ = game.step(rng.choice(state["actions"]))
                steps += 1
        return steps

    env = rlcard.make("doudizhu", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])

    def env_level(n: int) -> int:
        steps = 0
        for _ in range(n):
            trajectories, _ = env.run(is_training=False)
            steps += sum((len(t) - 1) // 2 for t in trajectories)
        return steps

    return {"RLCard game": game_level, "RLCard env": env_level}, ""


def timed(run: Callable[[int], int], n: int) -> tuple[float, int]:
    start = time.process_time()
    steps = run(n)
    return time.process_time() - start, steps


def speed(seconds: float) -> None:
    table_api, table_fast, table_deal = Table(1), Table(2), Table(3)
    rlcard, why = rlcard_runs()
    runs: dict[str, Callable[[int], int]] = {
        "engine API": lambda n: engine_api_hands(table_api, n),
        "playout": lambda n: playout_hands(table_fast, n),
        "deal only": lambda n: deal_only(table_deal, n),
        **rlcard,
    }
    chunk = {"engine API": 20, "playout": 50, "deal only": 100, "RLCard game": 5, "RLCard env": 1}
    for run in runs.values():  # warm up (imports, caches)
        run(1)
    spent = dict.fromkeys(runs, 0.0)
    done = dict.fromkeys(runs, 0)
    steps = dict.fromkeys(runs, 0)
    budget = seconds / len(runs)
    while min(spent.values()) < budget:
        for name, run in runs.items():  # alternate, so load changes hit all alike
            if spent[name] < budget:
                t, s = timed(run, chunk[name])
                spent[name] += t
                done[name] += chunk[name]
                steps[name] += s
    rate = {name: done[name] / spent[name] for name in runs}
    print("random playouts (CPU time, alternating rounds)")
    for name in runs:
        unit = "games" if name.startswith("RLCard") else "hands"
        per = f", {steps[name] / done[name]:.0f} moves each" if steps[name] else ""
        print(f"  {name:12s} {rate[name]:8.1f} {unit}/s  ({done[name]} {unit}{per})")
    deal_share = rate["playout"] / rate["deal only"]
    print(f"  the deal (shuffle + events) takes {deal_share:.0%} of a playout hand")
    if not rlcard:
        print(f"  RLCard comparison skipped: {why}")
        return
    print("  ratios, level for level:")
    api, env = rate["engine API"], rate["RLCard env"]
    fast, core = rate["playout"], rate["RLCard game"]
    print(f"    engine API / RLCard env (public APIs, random agents) = {api / env:5.1f}x")
    print(f"    playout / RLCard game   (game cores)                = {fast / core:5.1f}x")
    print(f"    engine API / RLCard game                            = {api / core:5.1f}x")
    # A Murlan hand has more moves than a Dou Dizhu game; per move (the playout
    # makes the same random moves as the engine API, so has as many a hand):
    per_hand = steps["engine API"] / done["engine API"]
    per_game = steps["RLCard game"] / done["RLCard game"]
    print(
        f"    per move: playout {fast * per_hand:,.0f}/s, RLCard game {core * per_game:,.0f}/s"
        f" = {fast * per_hand / (core * per_game):5.1f}x"
    )


def bot_strength(hands: int, seed: int) -> None:
    """One bot (seat 0) against three uniformly random legal players."""
    rng = random.Random(seed)
    places = [0, 0, 0, 0]
    points = played = matches = 0
    state = ENGINE.initial(ENGINE.parse_options({}), 4)
    shuffler = Shuffler(rng.randbytes(32), "bot-0", SEATS)
    start = time.process_time()
    while played < hands:
        if ENGINE.is_over(state):
            matches += 1
            state = ENGINE.initial(ENGINE.parse_options({}), 4)
            shuffler = Shuffler(rng.randbytes(32), f"bot-{matches}", SEATS)
        if ENGINE.pending(state) is not None:
            state = ENGINE.fold(state, ENGINE.advance(state, shuffler))
            continue
        (seat,) = ENGINE.to_act(state)
        if seat == 0:
            move = ENGINE.bot_move(state, seat)
        else:
            move = rng.choice(ENGINE.legal_moves(state, seat))
        for event in ENGINE.decide(state, seat, move):
            state = ENGINE.apply(state, event)
            if isinstance(event, HandEnded):
                played += 1
                places[event.order.index(0)] += 1
                points += event.points[0]
    elapsed = time.process_time() - start
    first = places[0] / played
    margin = 1.96 * math.sqrt(first * (1 - first) / played)
    print(f"bot vs three random players, {played} hands (seed {seed})")
    print(f"  first out      {first:.1%} +/- {margin:.1%}  (random: 25%, bar: 45%)")
    print("  places 1-4     " + "  ".join(f"{p / played:.1%}" for p in places))
    print(f"  points/hand    {points / played:.2f}  (random: 1.50)")
    print(f"  ({elapsed:.1f} s CPU)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a few seconds")
    parser.add_argument("--hands", type=int, help="bot hands (default 2000, quick 200)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    speed(3.0 if args.quick else 24.0)
    print()
    bot_strength(args.hands or (200 if args.quick else 2000), args.seed)


if __name__ == "__main__":
    main()
