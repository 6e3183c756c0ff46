"""Azi: 2-6 players, a 27-card deck, trumps, bidding for the lead, pots and Azi replays.

What is where: :mod:`.engine` (the engine: options, moves, ``ENGINE``),
:mod:`.events` (the events), :mod:`.state` (the state and its fold),
:mod:`.view` (what a seat sees), :mod:`.bot` (the automatic player),
:mod:`.cards` (deck, trumps, who takes a trick), :mod:`.consequences` (the
events the rules force without a move) and :mod:`.settle` (the pure
settlement of a pot).
"""

from .engine import ENGINE

__all__ = ["ENGINE"]
