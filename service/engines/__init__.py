"""Pure game rules: cards, the fair shuffle, Hazari Lite, Azi and Murlan.

Nothing in this package performs I/O or imports redis, rq, flask or pydantic.
Shared parts sit here (cards, shuffle, the engine base, the registry); the
table around every engine is the package table (its events, state, rules and
view); each game is a package (azi, murlan, hazari) with the same module
names where the concept is the same: engine, events, state, view and bot.
"""
