"""Azi: bid on a hand with trumps or aces, lead high, follow low."""

ORDER = "6789TJQKA"


def choose(view):
    trump = view.progress.trump or ""

    def power(card):
        return ORDER.index(card[0]) + (9 if card[1:] == trump else 0)

    moves = view.legal_moves
    cards = [move for move in moves if move.action in ("play", "discard")]
    if cards:
        lead = cards[0].action == "play" and not view.progress.trick
        return (max if lead else min)(cards, key=lambda move: power(move.card))
    strong = sum(power(card) >= 8 for card in view.hand) >= 2
    bets = sorted((m for m in moves if m.action == "bet"), key=lambda m: m.amount)
    if strong and bets:
        return bets[0]
    wanted = ("call", "buy_in") if strong else ("fold", "decline")
    for action in (*wanted, "call", "fold", "decline"):
        for move in moves:
            if move.action == action:
                return move
    return moves[0]
