"""Hazari Lite: four players arrange 13 cards into groups of 3, 3, 3 and 4.

What is where: :mod:`.engine` (the engine: options, moves, the rounds,
``ENGINE``), :mod:`.events` (the events), :mod:`.state` (the state and its
fold), :mod:`.view` (what a seat sees), :mod:`.bot` (the automatic player),
:mod:`.combos` (what three or four cards are worth) and :mod:`.arrange`
(the auto-arranger).
"""

from .engine import ENGINE

__all__ = ["ENGINE"]
