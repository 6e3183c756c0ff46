"""``GET /games/kinds``: every game's seats, moves, options, and cards: how they
are written and how they rank, for clients that sort or compare them."""

from __future__ import annotations

from functools import cache
from typing import Final

from flask import Blueprint, Response

from schemas.api import CardNotation, GameKind, GameKinds
from schemas.moves import actions
from service.engines import cards as deck
from service.engines.azi import cards as azi_cards
from service.engines.murlan import combos as murlan_cards
from service.engines.registry import GAMES, engine_for
from service.engines.table.rules import parse_options

from .http import reply

bp = Blueprint("kinds", __name__)
NOTATION: Final = (
    "A card is its rank then its suit (`TD`: ten of diamonds, `AS`), or a joker "
    "(`BJ`, `RJ`); input may say `10` for ten, in any case."
)


def _cards(game: str) -> CardNotation:
    suits = list(deck.SUITS)
    if game == "murlan":
        ranks = list(murlan_cards.RANK_ORDER)
        return CardNotation(
            ranks=ranks,
            suits=suits,
            jokers=list(deck.JOKERS),
            rank_order=[*ranks, *deck.JOKERS],
            deck_sizes=[54],
            notation=NOTATION,
        )
    if game == "azi":
        ranks = list(azi_cards.RANKS)
        return CardNotation(
            ranks=ranks,
            suits=suits,
            jokers=[],
            rank_order=ranks,
            deck_sizes=[27, 36],
            notation=NOTATION + " The 27-card deck has no clubs.",
        )
    ranks = list(deck.RANKS)
    return CardNotation(
        ranks=ranks, suits=suits, jokers=[], rank_order=ranks, deck_sizes=[52], notation=NOTATION
    )


@cache
def kinds() -> GameKinds:
    games = []
    for game in GAMES:
        engine = engine_for(game)
        options = {**parse_options(game, {}), "bot_delay_s": None}
        games.append(
            GameKind(
                game=game,  # type: ignore[arg-type]
                min_seats=engine.min_seats,
                max_seats=engine.max_seats,
                actions=actions(game),
                options=options,
                cards=_cards(game),
                rules=f"/rules/{game}",
            )
        )
    return GameKinds(games=games)


@bp.get("/games/kinds")
def game_kinds() -> Response:
    return reply(kinds())
