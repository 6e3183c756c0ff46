"""Murlan: a four-player climbing game with 54 cards, played to 21 and beyond.

What is where: :mod:`.engine` (the engine: options, moves, ``ENGINE``),
:mod:`.events` (the events), :mod:`.state` (the state and its fold),
:mod:`.view` (what a seat sees), :mod:`.bot` (the automatic player),
:mod:`.combos` (card codes, combinations, what beats what) and
:mod:`.playout` (fast playouts of a hand, for random play and search).
"""

from .engine import ENGINE

__all__ = ["ENGINE"]
