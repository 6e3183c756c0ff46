"""The compact stored form of an event's fields.

Most events are a few dozen bytes of JSON and are stored as they are. Larger
ones (a deal: every hand; a Hazari round: every group laid) are mostly card
tokens and field names, so they are deflated against a fixed dictionary of
exactly those, which halves them. A stored value is therefore either JSON
(it starts with ``{``) or a one-byte tag naming the dictionary followed by raw
deflate data. A dictionary, once used, can never change: a new one gets a new
tag, and readers keep every old one.
"""

from __future__ import annotations

import zlib
from typing import Final

MIN_SIZE: Final = 64
"""Shorter JSON is stored as it is: deflate would save too little."""
TAG_V1: Final = 0x01
WBITS: Final = -10
"""Raw deflate (no header, no checksum), 1 KiB window: the dictionary fits in it."""


def _dictionary_v1() -> bytes:
    """Card tokens of every deck and the field names common to deals and plays.

    Spelled out here (not taken from the engines) because stored data depends
    on every byte of it.
    """
    cards = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"] + ["BJ", "RJ"]
    fields = (
        '{"seat":,"deal":,"dealer":,"hand":,"hands":[[,"groups":[[,"laid":[[,"cards":['
        ',"combos":[,"order":[,"winner":,"points":,"round":,"leader":,"trick":,"amount":'
        ',"trump_card":,"trump":,"scores":[,"payouts":[,"contributions":[,"antes":['
        ',"true,"false,"null'
    )
    return (fields + '"' + '","'.join(cards) + '"]]').encode()


DICTIONARY_V1: Final = _dictionary_v1()


def compact(data: bytes) -> bytes:
    """``data`` (an event's fields as JSON) in its stored form."""
    if len(data) < MIN_SIZE:
        return data
    deflater = zlib.compressobj(9, zlib.DEFLATED, WBITS, 2, zlib.Z_DEFAULT_STRATEGY, DICTIONARY_V1)
    packed = deflater.compress(data) + deflater.flush()
    return bytes((TAG_V1,)) + packed if len(packed) + 1 < len(data) else data


def expand(data: bytes) -> bytes:
    """The JSON of a stored value (as :func:`compact` wrote it, or plain)."""
    if not data or data[0] != TAG_V1:
        return data
    inflater = zlib.decompressobj(WBITS, DICTIONARY_V1)
    return inflater.decompress(data[1:]) + inflater.flush()


def is_compacted(data: bytes) -> bool:
    return bool(data) and data[0] == TAG_V1
