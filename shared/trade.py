"""The trade-offer protocol of the trading games (Zarahemla, Stone Age), written once.

The player on turn makes an ``offer`` (to everyone or to named seats); each addressed seat
may answer ``accept``, ``decline`` or ``counter`` (its own terms, written from its side: what
it gives, what it gets), and nobody waits for the answers; the player on turn ``confirm``s one
seat that accepted or countered, or ``withdraw``s; a new offer replaces an open one, and the
offer expires at the end of the turn.  An open offer is a dict::

    {"from": seat, "give": [counts], "get": [counts], "to": [seats],
     "answers": {seat: "accept" | "decline" | {"give": [counts], "get": [counts]}}}

(a game may keep more in it: Zarahemla keeps ``owed``, the seats yet to answer).  Each game
keeps where its offer lives, its resources and its events; the rules of the protocol are here.
"""

from . import IllegalMove
from .bundles import notation


def check_sides(give, get, names, what="trade"):
    """Refuse a trade with an empty side or a resource on both sides."""
    if not sum(give) or not sum(get):
        raise IllegalMove(f"a {what} needs cards on both sides: giving cards away for nothing "
                          f"is not a {what}", code="empty_side")
    for i, name in enumerate(names):
        if give[i] and get[i]:
            raise IllegalMove(f"{name} cannot be on both sides of a {what}",
                              code="same_resource")


def answer_value(kind, give=None, get=None):
    """What an answer records: "accept", "decline", or a counter's terms from its side."""
    if kind == "counter":
        return {"give": list(give), "get": list(get)}
    return kind


def terms(offer, seat):
    """(what the offerer gives, what it gets) in a deal with ``seat``; None without one.

    A seat that accepted takes the offer's terms; a counter is written from the answering
    seat's side, so the offerer gives what the counter asks for.
    """
    answer = offer["answers"].get(seat)
    if answer == "accept":
        return offer["give"], offer["get"]
    if isinstance(answer, dict):
        return answer["get"], answer["give"]
    return None


def trade_text(kind, give, get, names, to=None):
    """The notation of a trade move: ``offer 2wood+1brick for 1stone to blue,white``."""
    text = f"{kind} {notation(give, names)} for {notation(get, names)}"
    return text + (" to " + ",".join(to) if to else "")
