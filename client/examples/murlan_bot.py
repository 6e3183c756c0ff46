"""Murlan: shed the weakest cards first; keep aces, 2s and jokers while the hand is long."""

ORDER = "3456789TJQKA2"


def rank(card):
    """A card's place in Murlan's order: 3 lowest, then up to 2, black joker, red joker."""
    return 13 + (card == "RJ") if card in ("BJ", "RJ") else ORDER.index(card[0])


def cost(move):
    """Plays sort cheapest first: bombs last, then by top card, more cards first."""
    cards = move.cards if move.action == "play" else [move.card]
    bomb = len(cards) == 4 and len({rank(card) for card in cards}) == 1
    return (bomb, max(rank(card) for card in cards), -len(cards))


def choose(view):
    plays = [move for move in view.legal_moves if move.action != "pass"]
    passes = [move for move in view.legal_moves if move.action == "pass"]
    if not plays:
        return passes[0]
    best = min(plays, key=cost)
    if passes and (cost(best)[0] or cost(best)[1] >= 11) and len(view.hand) > 5:
        return passes[0]  # not worth a high card yet: let the trick go
    return best
