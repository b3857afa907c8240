"""Trade talk for the bots of every trading game: answer an offer, confirm an answer.

Bundles are lists of counts in the game's resource order; ``value_of(hand)`` is the seat's
value of a hand (each game's own ``hand_value`` on its sampled world).
"""


def after_trade(hand, give, get):
    """The hand after giving ``give`` and getting ``get``."""
    return [h - g + t for h, g, t in zip(hand, give, get)]


def answer(legal, hand, give, get, value_of, offerer_safe, margin=1.0):
    """``"accept"`` an offer (the offerer gives ``give`` and gets ``get``) that raises the hand's
    value by more than ``margin`` when ``offerer_safe`` (not about to win), else ``"decline"``."""
    if "accept" in legal and offerer_safe:
        if value_of(after_trade(hand, get, give)) > value_of(hand) + margin:
            return "accept"
    return "decline"


def confirm_or_withdraw(legal, hand, terms_of, value_of, all_answered):
    """As the offerer: ``confirm SEAT`` for the answer that raises the hand's value most;
    else ``withdraw`` once a seat accepted or countered (none of those deals is good for
    it: left open, the offer would only stand in the way) or every addressed seat answered;
    else None (nobody agreed to anything yet).

    ``terms_of(seat)`` gives the (give, get) the offerer would trade with that seat (its
    accepted offer, or its counter), or None when the seat has not agreed to anything.
    """
    base = value_of(hand)
    scored = []
    agreed = False
    for move in legal:
        if not move.startswith("confirm "):
            continue
        terms = terms_of(move.split()[1])
        if terms is None:
            continue
        agreed = True
        gain = value_of(after_trade(hand, *terms)) - base
        if gain > 0:
            scored.append((gain, move))
    if scored:
        return max(scored)[1]
    if (agreed or all_answered) and "withdraw" in legal:
        return "withdraw"
    return None


def confirmable(answers, terms_of, hand):
    """``confirm SEAT`` for every answering seat whose deal the offerer's ``hand`` pays
    (sorted): what the offerer may try from its own view (whether the partner still holds
    its side is hidden from it)."""
    out = []
    for s in sorted(answers):
        deal = terms_of(s)
        if deal is not None and all(h >= g for h, g in zip(hand, deal[0])):
            out.append("confirm " + s)
    return out
