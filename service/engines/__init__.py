"""Pure game rules: cards, the fair shuffle, Hazari Lite, Azi and Murlan.

Nothing in this package performs I/O or imports redis, rq, flask or pydantic.
Shared parts sit here (cards, shuffle, the engine base, the table's own
events in game, the registry); each game is a package (azi, murlan, hazari)
with the same module names where the concept is the same: engine, events,
state, view and bot.
"""
