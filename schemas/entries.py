"""The second stored form of an event: one stream field, ``e``, holding a
positional JSON array ``[code, field1, field2, …]``.

The first form (three fields ``t``, ``v``, ``d``: the type name, the schema
version and the fields as a JSON object, see :mod:`schemas.codec`) spells
every field name and the type name in every entry. Here a small integer
``code`` names the type *and* its schema version, and the fields follow in
the order of that version's :class:`Layout`. A tuple of card tokens may be
stored as one string, a character per card (:data:`CARD_CHARS`: ``("2C",
"AS")`` is ``"0p"``), and a tuple of such tuples (hands) as one string, the
hands separated by spaces; a value stored as a list is read as it is.

:data:`LAYOUTS` is part of the stored format, as are :data:`CARD_CHARS` and
the card tokens they stand for: a layout once used is never changed or
removed. An event type whose fields change gets a new schema version (and
its upcaster) *and* a new layout with the next free code; entries of the
old layout keep reading as the old version and are upcast (a test holds the
current layouts against the engines' dataclasses).

Reading an entry of a current layout is a typed fast path: the array is
parsed by orjson and each field is made into what the dataclass holds
(lists into tuples, joined strings split) by a constructor generated once
per layout from the dataclass's type hints, with no validation model in
between. The store's contract tests hold it against the first form's
validated read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from functools import cache
from operator import attrgetter
from typing import Any, Final, NamedTuple, get_type_hints

import orjson
from pydantic import TypeAdapter, ValidationError

from service.engines.base import Event

from .codec import EventDecodeError
from .events import event_classes, schema_version, scope_of
from .upcasters import TABLE, upcast

FIELD: Final = b"e"
"""The stream field of an entry in this form (the first form has ``t``, ``v``, ``d``)."""

JOINED: Final = ":1"
"""A layout's mark on a ``tuple[str, ...]`` field: stored as one string of
:data:`CARD_CHARS` when every item is a card token."""
HANDS: Final = ":2"
"""A layout's mark on a ``tuple[tuple[str, ...], ...]`` field: each stored as
:data:`JOINED`, separated by spaces, when every item is a card token."""


class Layout(NamedTuple):
    """The stored positions of one schema version of one event type.

    ``fields`` names the fields in stored order, each optionally marked
    :data:`JOINED` or :data:`HANDS`."""

    code: int
    scope: str
    type: str
    version: int
    fields: str

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.partition(":")[0] for f in self.fields.split())

    @property
    def marks(self) -> tuple[str, ...]:
        """Per field, ``""``, :data:`JOINED` or :data:`HANDS`."""
        return tuple(f[len(f.partition(":")[0]) :] for f in self.fields.split())


LAYOUTS: Final[tuple[Layout, ...]] = (
    Layout(1, TABLE, "GameCreated", 1, "game_id game options seats commitment algorithm"),
    Layout(2, TABLE, "SeatTaken", 2, "seat name client_seed bot"),
    Layout(3, TABLE, "TurnTimedOut", 1, "seat after_s"),
    Layout(4, TABLE, "SeedRevealed", 1, "server_seed"),
    Layout(5, TABLE, "GameAbandoned", 2, "reason standings"),
    Layout(6, TABLE, "SeatAway", 1, "seat timeouts"),
    Layout(7, TABLE, "SeatBack", 1, "seat"),
    Layout(8, "hazari", "Dealt", 1, "deal dealer hands:2"),
    Layout(9, "hazari", "Arranged", 1, "seat groups:2"),
    Layout(10, "hazari", "RoundPlayed", 1, "deal round leader order laid:2 combos:1 winner points"),
    Layout(11, "hazari", "DealScored", 1, "deal points scores"),
    Layout(12, "hazari", "MatchEnded", 1, "scores winners"),
    Layout(13, "azi", "AntesPaid", 1, "hand antes"),
    Layout(
        14,
        "azi",
        "HandDealt",
        1,
        "deal dealer hands:2 trump_card trump six_on_stage azi dealer_drawn_from",
    ),
    Layout(15, "azi", "Discarded", 1, "seat card"),
    Layout(16, "azi", "BetPlaced", 1, "seat amount paid"),
    Layout(17, "azi", "Called", 1, "seat paid all_in short"),
    Layout(18, "azi", "Folded", 1, "seat"),
    Layout(19, "azi", "BiddingEnded", 1, "leader highest short"),
    Layout(20, "azi", "CardPlayed", 1, "seat card"),
    Layout(21, "azi", "TrickTaken", 1, "trick winner seats cards:1"),
    Layout(22, "azi", "PotWon", 1, "winner how pot"),
    Layout(23, "azi", "AziDeclared", 1, "takers dealer price candidates"),
    Layout(24, "azi", "BoughtIn", 1, "seat paid"),
    Layout(25, "azi", "Declined", 1, "seat"),
    Layout(26, "azi", "PotSettled", 1, "winner winner_short pot contributions payouts"),
    Layout(27, "azi", "LeaveRequested", 1, "seat"),
    Layout(28, "azi", "PlayerLeft", 1, "player stack"),
    Layout(29, "azi", "MatchEnded", 1, "reason stacks results"),
    Layout(30, "murlan", "HandDealt", 1, "deal dealer hands:2"),
    Layout(31, "murlan", "CardGiven", 1, "from_seat to_seat card"),
    Layout(32, "murlan", "ExchangeSkipped", 1, "last_finisher first_finisher reason"),
    Layout(33, "murlan", "CardGivenBack", 1, "seat to_seat card"),
    Layout(34, "murlan", "PlayStarted", 1, "leader must_include"),
    Layout(35, "murlan", "CardsPlayed", 1, "seat cards:1 combination"),
    Layout(36, "murlan", "Passed", 1, "seat"),
    Layout(37, "murlan", "TableCleared", 1, "leader"),
    Layout(38, "murlan", "WentOut", 1, "seat place"),
    Layout(39, "murlan", "HandEnded", 1, "hand order points scores"),
    Layout(40, "murlan", "TargetRaised", 1, "reached target"),
    Layout(41, "murlan", "TopTied", 1, "seats score"),
    Layout(42, "murlan", "MatchWon", 1, "winner scores"),
    Layout(43, TABLE, "SeatTaken", 3, "seat name client_seed bot seed_origin"),
    Layout(44, TABLE, "SeatTaken", 4, "seat name client_seed bot seed_origin creator"),
)
"""Every layout ever used, by code. Append only: never edit or remove one."""

BY_CODE: Final = {layout.code: layout for layout in LAYOUTS}


# -- cards, one character each -------------------------------------------------------------
def _card_tokens() -> tuple[str, ...]:
    """Every card token of every deck, and the hidden card, in a fixed order.

    Spelled out here (not taken from the engines) because stored data depends
    on every one of them and on their order."""
    return (*(rank + suit for suit in "CDHS" for rank in "23456789TJQKA"), "BJ", "RJ", "??")


CARD_CHARS: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
"""The character each card token of :func:`_card_tokens` is stored as, in order."""
CARD_OF: Final = dict(zip(CARD_CHARS, _card_tokens(), strict=True))
CHAR_OF: Final = {token: char for char, token in CARD_OF.items()}


# -- writing ------------------------------------------------------------------------------
def _joined(items: tuple[str, ...]) -> str | tuple[str, ...]:
    try:
        return "".join([CHAR_OF[item] for item in items])
    except KeyError:  # not every item is a card: stored as a list
        return items


def _hands(hands: tuple[tuple[str, ...], ...]) -> str | list[Any]:
    if not hands:
        return []
    try:
        return " ".join(["".join([CHAR_OF[card] for card in hand]) for hand in hands])
    except KeyError:
        return [_joined(h) for h in hands]


_PACKS: Final[dict[str, Callable[[Any], Any]]] = {JOINED: _joined, HANDS: _hands}


def _current(cls: type[Event]) -> Layout:
    """The layout events of ``cls`` are written with today."""
    scope, version = scope_of(cls), schema_version(cls)
    for layout in LAYOUTS:
        if (layout.scope, layout.type, layout.version) == (scope, cls.type, version):
            return layout
    raise TypeError(f"{cls.type} v{version} has no stored layout (add one to LAYOUTS)")


_PACKERS: Final[dict[type[Event], Callable[[Event], bytes]]] = {}


def _packer(cls: type[Event]) -> Callable[[Event], bytes]:
    packer = _PACKERS.get(cls)
    if packer is None:
        packer = _PACKERS[cls] = _make_packer(cls)
    return packer


def _make_packer(cls: type[Event]) -> Callable[[Event], bytes]:
    layout = _current(cls)
    getter = attrgetter(*layout.names)
    packs = [(i, _PACKS[m]) for i, m in enumerate(layout.marks) if m]
    code = layout.code
    single = len(layout.names) == 1

    def pack(event: Event) -> bytes:
        values = [code, getter(event)] if single else [code, *getter(event)]
        for i, pack_field in packs:
            values[i + 1] = pack_field(values[i + 1])
        return orjson.dumps(values)

    return pack


def pack(event: Event) -> bytes:
    """The ``e`` field of ``event``'s stream entry."""
    return _packer(type(event))(event)


# -- reading ------------------------------------------------------------------------------
_card: Final = CARD_OF.__getitem__


def split_joined(value: str | list[str]) -> tuple[str, ...]:
    """A :data:`JOINED` field as the dataclass holds it."""
    return tuple(map(_card, value) if isinstance(value, str) else value)


def split_hands(value: str | list[Any]) -> tuple[tuple[str, ...], ...]:
    """A :data:`HANDS` field as the dataclass holds it."""
    if isinstance(value, str):
        return tuple([tuple(map(_card, hand)) for hand in value.split(" ")])
    return tuple([split_joined(hand) for hand in value])


def _as_list(value: Any, mark: str) -> Any:
    """A stored value in the first form's JSON (joined strings split into lists)."""
    if mark == JOINED:
        return list(split_joined(value))
    if mark == HANDS:
        return [list(h) for h in split_hands(value)]
    return value


def _count(layout: Layout, row: list[Any]) -> str:
    return f"{len(row) - 1} values where v{layout.version} has {len(layout.names)}"


def fields_of(layout: Layout, row: list[Any]) -> dict[str, Any]:
    """The fields of a parsed entry by name, as the first form's JSON holds them."""
    names, marks = layout.names, layout.marks
    if len(row) != len(names) + 1:
        raise EventDecodeError(layout.scope, layout.type, _count(layout, row))
    return {n: _as_list(v, m) for n, v, m in zip(names, row[1:], marks, strict=True)}


def _fast_expression(hint: Any, mark: str, at: str) -> str | None:
    """Python source making stored value ``at`` into a field of type ``hint``,
    or ``None`` when there is no exact typed fast path for it."""
    if mark == JOINED and hint == tuple[str, ...]:
        return f"split_joined({at})"
    if mark == HANDS and hint == tuple[tuple[str, ...], ...]:
        return f"split_hands({at})"
    if mark:
        return None
    if hint in (int, str, bool, int | None, str | None, bool | None):
        return at  # JSON holds exactly these
    if hint is float:
        return f"float({at})"
    if hint in (dict[str, Any], dict[str, Any] | None):
        return at  # orjson gives a fresh dict of plain JSON values, as validation would
    if hint == tuple[int, ...]:
        return f"tuple({at})"
    return None


def _fast_reader(cls: type[Event], layout: Layout) -> Callable[[list[Any]], Event] | None:
    """A constructor of ``cls`` from a parsed entry, generated from its type hints."""
    hints = get_type_hints(cls)
    names = tuple(f.name for f in dataclasses.fields(cls))
    if names != layout.names:
        return None
    parts = []
    for i, (name, mark) in enumerate(zip(names, layout.marks, strict=True), start=1):
        expression = _fast_expression(hints[name], mark, f"row[{i}]")
        if expression is None:
            return None
        parts.append(expression)
    source = f"def read(row):\n    return cls({', '.join(parts)})\n"
    namespace: dict[str, Any] = {
        "cls": cls,
        "split_joined": split_joined,
        "split_hands": split_hands,
    }
    exec(source, namespace)  # generated from the dataclass's own hints, as dataclasses does
    reader: Callable[[list[Any]], Event] = namespace["read"]
    return reader


_ADAPTERS: Final[dict[type[Event], TypeAdapter[Event]]] = {}


def _adapter(cls: type[Event]) -> TypeAdapter[Event]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


def _reader(game: str, code: int) -> Callable[[list[Any]], Event]:
    layout = BY_CODE.get(code)
    cls = None if layout is None else event_classes(game).get(layout.type)
    if layout is None or cls is None or scope_of(cls) != layout.scope:
        raise EventDecodeError(game, code, "no such stored event code")
    fast = _fast_reader(cls, layout) if layout.version == schema_version(cls) else None
    size = len(layout.names) + 1
    if fast is not None:

        def read_fast(row: list[Any]) -> Event:
            if len(row) != size:
                raise EventDecodeError(game, layout.type, _count(layout, row))
            return fast(row)

        return read_fast
    adapter = _adapter(cls)

    def read_validated(row: list[Any]) -> Event:
        fields = upcast(layout.scope, layout.type, layout.version, fields_of(layout, row))
        try:
            return adapter.validate_python(fields)
        except ValidationError as exc:
            raise EventDecodeError(game, layout.type, str(exc.errors()[0]["msg"])) from None

    return read_validated


@cache
def reader(game: str) -> Callable[[bytes], Event]:
    """The event of an ``e`` field of a ``game`` stream (:class:`EventDecodeError` if none)."""
    readers: dict[int, Callable[[list[Any]], Event]] = {}
    loads = orjson.loads

    def read(data: bytes) -> Event:
        try:
            row = loads(data)
            read_row = readers.get(row[0])
        except (orjson.JSONDecodeError, TypeError, IndexError, KeyError) as exc:
            raise EventDecodeError(game, None, f"not a stored entry: {exc}") from None
        if read_row is None:
            read_row = readers[row[0]] = _reader(game, row[0])
        try:
            return read_row(row)
        except EventDecodeError:
            raise
        except (TypeError, ValueError, AttributeError) as exc:
            raise EventDecodeError(game, row[0], f"bad value: {exc}") from None

    return read


def layout_of(data: bytes) -> tuple[Layout, list[Any]]:
    """The layout and parsed values of an ``e`` field (:class:`EventDecodeError` if none)."""
    try:
        row = orjson.loads(data)
        layout = BY_CODE[row[0]]
    except (orjson.JSONDecodeError, TypeError, IndexError, KeyError) as exc:
        raise EventDecodeError("stored", None, f"not a stored entry: {exc}") from None
    return layout, row


def as_first_form(data: bytes) -> tuple[str, int, bytes]:
    """``(type, schema_version, fields as a JSON object)`` of an ``e`` field: what
    the first form stores, for exports and audits."""
    layout, row = layout_of(data)
    return layout.type, layout.version, orjson.dumps(fields_of(layout, row))


def layouts_of(game: str) -> Iterator[Layout]:
    """The layouts a ``game`` stream may hold."""
    classes = event_classes(game)
    for layout in LAYOUTS:
        cls = classes.get(layout.type)
        if cls is not None and scope_of(cls) == layout.scope:
            yield layout
