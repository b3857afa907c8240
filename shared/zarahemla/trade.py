"""Trade with the bank (4:1, 3:1 and 2:1 posts) and the asynchronous player offer.

The offer is kept by the protocol of ``shared.trade`` (``state["offer"]``, in the shape its
docstring shows; bundles are 5 counts in RESOURCES order).  A counter is stored from the
answering seat's point of view (what it gives, what it gets).  Only the current player offers;
answering is never required for the game to go on; ending the turn withdraws the offer.

The checks and applies here are the rules' table entries of the trades (``rules.CHECKS`` and
``rules.APPLIES``: ``(st, seat, mv)`` and ``(st, seat, mv, plan, rng)``, the apply adding its
events to ``st["events"]``), like every move's.
"""

from .. import IllegalMove
from ..bundles import exchange
from ..trade import check_sides, close_offer, open_offer, owed, place_offer, record_answer, terms
from .board import RESOURCES
from .state import bundle_text, cap, has, post_rates, res_dict
from .turn import ev, guard_rolled, guard_turn


def _holds(st, seat, bundle, you=True):
    hand = st["players"][seat]["hand"]
    if not has(hand, bundle):
        if you:
            raise IllegalMove(f"you do not hold {bundle_text(bundle)}", code="cannot_afford")
        raise IllegalMove(f"{seat} no longer holds {bundle_text(bundle)}", code="cannot_afford")


# --- bank ---------------------------------------------------------------------

def check_bank(st, seat, mv):
    give, get = mv.args
    guard_turn(st, seat, "bank")
    guard_rolled(st)
    kinds = [r for r in range(5) if give[r]]
    if len(kinds) != 1:
        raise IllegalMove("a bank trade gives cards of one resource only, like bank 4wood for "
                          "1stone", code="bad_trade")
    r = kinds[0]
    rate = post_rates(st, seat)[r]
    n = give[r]
    res = RESOURCES[r]
    if n % rate:
        raise IllegalMove(f"your rate for {res} is {rate}:1, so give a multiple of {rate}",
                          code="bad_rate")
    if sum(get) != n // rate:
        raise IllegalMove(f"at {rate}:1, {n} {res} buys {n // rate} card(s), not {sum(get)}",
                          code="bad_rate")
    if get[r]:
        raise IllegalMove(f"you cannot trade {res} for {res}", code="same_resource")
    _holds(st, seat, give)
    bank = st["bank"]
    for i in range(5):
        if get[i] > bank[i]:
            raise IllegalMove(f"the bank has only {bank[i]} {RESOURCES[i]}", code="bank_empty")


def apply_bank(st, seat, mv, plan, rng):
    give, get = mv.args
    exchange(st["players"][seat]["hand"], give, st["bank"], get)
    st["events"].append(ev(st, f"{cap(seat)} traded {bundle_text(give)} to the bank for "
                           f"{bundle_text(get)}.", "bank_trade",
                           {"seat": seat, "give": res_dict(give), "get": res_dict(get),
                            "rate": sum(give) // sum(get)}))    # a multiple of the rate


# --- offers ---------------------------------------------------------------------

def check_offer(st, seat, mv):
    give, get, to = mv.args
    guard_turn(st, seat, "offer")
    guard_rolled(st)
    check_sides(give, get, RESOURCES)
    _holds(st, seat, give)
    if to:
        for s in to:
            if s == seat:
                raise IllegalMove("you cannot trade with yourself", code="bad_partner")
            if s not in st["players"]:
                raise IllegalMove(f"{s} is not in this game", code="bad_partner")


def apply_offer(st, seat, mv, plan, rng):
    give, get, to = mv.args
    out = st["events"]
    targets = list(to) if to else [s for s in st["order"] if s != seat]
    if place_offer(st, seat, give, get, targets) is not None:
        out.append(ev(st, f"{cap(seat)} withdrew the previous offer.", "offer_withdrawn",
                      {"seat": seat, "reason": "replaced"}))
    who = ", ".join(cap(s) for s in targets) if to else "everyone"
    out.append(ev(st, f"{cap(seat)} offers {bundle_text(give)} for {bundle_text(get)} to "
                  f"{who}.", "offer", {"seat": seat, "give": res_dict(give), "get": res_dict(get),
                                      "to": list(targets), "everyone": not to}))


def _guard_answer(st, seat):
    offer = open_offer(st)
    if st["phase"] != "play" or offer is None:
        raise IllegalMove("there is no open offer to answer", code="no_offer")
    if seat not in owed(offer):
        if seat in offer["answers"]:
            raise IllegalMove("you have already answered this offer", code="answered")
        raise IllegalMove("the open offer is not addressed to you", code="not_addressed")
    return offer


def check_accept(st, seat, mv):
    offer = _guard_answer(st, seat)
    _holds(st, seat, offer["get"])


def apply_accept(st, seat, mv, plan, rng):
    offer = record_answer(st, seat, "accept")
    st["events"].append(ev(st, f"{cap(seat)} accepts {cap(offer['from'])}'s offer.", "answer",
                           {"seat": seat, "offerer": offer["from"], "answer": "accept"}))


def check_decline(st, seat, mv):
    _guard_answer(st, seat)


def apply_decline(st, seat, mv, plan, rng):
    offer = record_answer(st, seat, "decline")
    st["events"].append(ev(st, f"{cap(seat)} declines {cap(offer['from'])}'s offer.", "answer",
                           {"seat": seat, "offerer": offer["from"], "answer": "decline"}))


def check_counter(st, seat, mv):
    give, get = mv.args
    _guard_answer(st, seat)
    check_sides(give, get, RESOURCES)
    _holds(st, seat, give)


def apply_counter(st, seat, mv, plan, rng):
    give, get = mv.args
    offer = record_answer(st, seat, "counter", give, get)
    st["events"].append(ev(st, f"{cap(seat)} counters: {bundle_text(give)} for "
                           f"{bundle_text(get)}.", "answer",
                           {"seat": seat, "offerer": offer["from"], "answer": "counter",
                            "give": res_dict(give), "get": res_dict(get)}))


def _open_offer(st, seat, kind):
    guard_turn(st, seat, kind)
    offer = open_offer(st)
    if offer is None:
        raise IllegalMove("you have no open offer", code="no_offer")
    return offer


def check_confirm(st, seat, mv):
    partner = mv.args[0]
    offer = _open_offer(st, seat, "confirm")
    deal = terms(offer, partner)
    if deal is None:
        if partner in owed(offer):
            raise IllegalMove(f"{partner} has not answered your offer yet", code="no_answer")
        raise IllegalMove(f"{partner} has not accepted or countered your offer",
                          code="no_answer")
    give, get = deal
    _holds(st, seat, give)
    _holds(st, partner, get, you=False)


def apply_confirm(st, seat, mv, plan, rng):
    partner = mv.args[0]
    give, get = terms(open_offer(st), partner)
    exchange(st["players"][seat]["hand"], give, st["players"][partner]["hand"], get)
    close_offer(st)
    st["events"].append(ev(st, f"{cap(seat)} traded {bundle_text(give)} to {cap(partner)} for "
                           f"{bundle_text(get)}.", "trade",
                           {"seat": seat, "partner": partner, "give": res_dict(give),
                            "get": res_dict(get)}))


def check_withdraw(st, seat, mv):
    _open_offer(st, seat, "withdraw")


def apply_withdraw(st, seat, mv, plan, rng):
    close_offer(st)
    st["events"].append(ev(st, f"{cap(seat)} withdrew the offer.", "offer_withdrawn",
                           {"seat": seat, "reason": "withdrawn"}))
