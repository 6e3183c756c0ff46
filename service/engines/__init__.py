"""Pure game rules: cards, the fair shuffle, Hazari Lite, Azi and Murlan.

Nothing in this package performs I/O or imports redis, rq, flask or pydantic.
"""
