"""The trade-offer protocol of the trading games (Zarahemla, Stone Age), written once.

The player on turn makes an ``offer`` (to everyone or to named seats); each addressed seat
may answer ``accept``, ``decline`` or ``counter`` (its own terms, written from its side: what
it gives, what it gets), and nobody waits for the answers; the player on turn ``confirm``s one
seat that accepted or countered, or ``withdraw``s; a new offer replaces an open one, and the
offer expires at the end of the turn.

Both games keep the open offer in ``state["offer"]`` (None when there is none), in one shape::

    {"from": seat, "give": [counts], "get": [counts], "to": [seats],
     "owed": [addressed seats yet to answer, in the order of "to"],
     "answers": {seat: "accept" | "decline" | {"give": [counts], "get": [counts]}}}

One older layout is still read and kept, so that recorded games replay to the same states and
old snapshots load: Stone Age states of rules versions 1 and 2 keep the offer in
``state["turn"]["offer"]`` and without ``owed`` (it is then worked out from ``to`` and
``answers``).  Only the functions here know that: :func:`open_offer`, :func:`find_offer`,
:func:`owed`, :func:`place_offer`, :func:`record_answer`, :func:`close_offer`.

Each game keeps its resources, its words (its checks' sentences) and its events; the rules and
the offer's state are here.
"""

from . import IllegalMove
from .bundles import notation


def check_sides(give, get, names, what="trade"):
    """Refuse a trade with an empty side or a resource on both sides."""
    if not sum(give) or not sum(get):
        raise IllegalMove(f"a {what} needs cards on both sides: giving cards away for nothing "
                          f"is not a {what}", code="empty_side")
    if any(map(min, give, get)):        # a resource on both sides (else no need to look)
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


# --- where the open offer lives, and its state ------------------------------------------

def _home(state):
    """The dict whose ``"offer"`` is the open offer (see the module docstring)."""
    return state if "offer" in state else state["turn"]


def open_offer(state):
    """The open offer of ``state``, or None."""
    return (state if "offer" in state else state["turn"])["offer"]


def find_offer(state):
    """The open offer of ``state`` when its game keeps one in this module's shape, else None
    (any game's state: one without trade offers has none)."""
    if not isinstance(state, dict):
        return None
    if "offer" in state:
        return state["offer"]
    turn = state.get("turn")
    return turn.get("offer") if isinstance(turn, dict) else None


def owed(offer):
    """The addressed seats that have not answered ``offer`` yet, in the order of its ``to``."""
    seats = offer.get("owed")
    if seats is None:        # the older layout: worked out
        answers = offer["answers"]
        seats = [s for s in offer["to"] if s not in answers]
    return seats


def owes_answer(state, seat):
    """Whether ``seat`` is addressed by the open offer and has not answered it."""
    offer = open_offer(state)
    return bool(offer) and seat in owed(offer)


def place_offer(state, seat, give, get, targets):
    """Open ``seat``'s offer to the seats ``targets`` (it replaces any open one, which is
    returned; else None)."""
    home = _home(state)
    replaced = home["offer"]
    offer = {"from": seat, "give": list(give), "get": list(get), "to": list(targets)}
    if home is state:
        offer["owed"] = list(targets)
    offer["answers"] = {}
    home["offer"] = offer
    return replaced


def record_answer(state, seat, kind, give=None, get=None):
    """Record ``seat``'s answer (see :func:`answer_value`) to the open offer; returns it."""
    offer = open_offer(state)
    if "owed" in offer:
        offer["owed"].remove(seat)
    offer["answers"][seat] = answer_value(kind, give, get)
    return offer


def close_offer(state):
    """No offer is open any more (confirmed, withdrawn, expired)."""
    _home(state)["offer"] = None
