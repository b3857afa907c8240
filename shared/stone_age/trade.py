"""Trading with the bank (3:1) and with the player whose turn it is.

The asynchronous offer: the current player makes an ``offer`` (to everyone
or to named seats); each addressed seat owes an answer (``accept``,
``decline`` or ``counter``) but nobody waits for it; the current player
``confirm``s a seat that accepted or countered, or ``withdraw``s.  Ending the
turn or starting to develop withdraws an open offer.
"""

from .. import IllegalMove
from ..bundles import exchange
from ..events import add_event
from ..trade import check_sides, close_offer, open_offer, place_offer, record_answer, terms
from .notation import RES, bundle_text
from .state import cards, has


def check_bank(state, seat, move):
    give, get = move.args
    check_sides(give, get, RES, "bank trade")
    odd = [RES[i] for i in range(4) if give[i] % 3]
    if odd:
        raise IllegalMove("the bank takes 3 cards of one kind for each card: "
                          f"{give[RES.index(odd[0])]} {odd[0]} is not a multiple of 3",
                          code="bad_rate")
    if sum(get) * 3 != sum(give):
        raise IllegalMove(f"{sum(give)} cards buy {sum(give) // 3} from the bank, not {sum(get)}",
                          code="bad_rate")
    if not has(state["hands"][seat], give):
        raise IllegalMove(f"you cannot give {bundle_text(give)}: you hold "
                          f"{bundle_text(state['hands'][seat])}", code="cannot_afford")
    short = [RES[i] for i in range(4) if get[i] > state["supply"][i]]
    if short:
        raise IllegalMove(f"the {short[0]} stack has only {state['supply'][RES.index(short[0])]} "
                          "cards left", code="supply_empty")


def apply_bank(state, seat, move, plan, rng):
    give, get = move.args
    exchange(state["hands"][seat], give, state["supply"], get)
    add_event(state, f"{seat} trades {bundle_text(give)} with the bank for "
              f"{bundle_text(get)}", kind="bank",
              data={"seat": seat, "give": cards(give), "get": cards(get)})


def check_offer(state, seat, move):
    give, get, to = move.args
    check_sides(give, get, RES, "trade offer")
    for s in to:
        if s == seat:
            raise IllegalMove("you cannot offer a trade to yourself", code="bad_seat")
        if s not in state["seats"]:
            raise IllegalMove(f"{s} is not playing in this game", code="bad_seat")
    if not has(state["hands"][seat], give):
        raise IllegalMove(f"you cannot offer {bundle_text(give)}: you hold "
                          f"{bundle_text(state['hands'][seat])}", code="cannot_afford")


def apply_offer(state, seat, move, plan, rng):
    give, get, to = move.args
    to = list(to) or [s for s in state["seats"] if s != seat]
    place_offer(state, seat, give, get, to)
    add_event(state, f"{seat} offers {bundle_text(give)} for {bundle_text(get)} to "
              f"{', '.join(to)}", kind="offer",
              data={"seat": seat, "give": cards(give), "get": cards(get),
                    "to": list(to)})


def check_accept(state, seat, move):
    offer = open_offer(state)
    if not has(state["hands"][seat], offer["get"]):
        raise IllegalMove(f"you cannot accept: {offer['from']} asks for "
                          f"{bundle_text(offer['get'])} and you hold "
                          f"{bundle_text(state['hands'][seat])}", code="cannot_afford")


def apply_accept(state, seat, move, plan, rng):
    record_answer(state, seat, "accept")
    add_event(state, f"{seat} accepts {state['current']}'s offer", kind="accept",
              data={"seat": seat, "offer_by": state["current"]})


def check_decline(state, seat, move):
    return None


def apply_decline(state, seat, move, plan, rng):
    record_answer(state, seat, "decline")
    add_event(state, f"{seat} declines {state['current']}'s offer", kind="decline",
              data={"seat": seat, "offer_by": state["current"]})


def check_counter(state, seat, move):
    give, get = move.args
    check_sides(give, get, RES, "counter-offer")
    if not has(state["hands"][seat], give):
        raise IllegalMove(f"you cannot give {bundle_text(give)}: you hold "
                          f"{bundle_text(state['hands'][seat])}", code="cannot_afford")


def apply_counter(state, seat, move, plan, rng):
    give, get = move.args
    record_answer(state, seat, "counter", give, get)
    add_event(state, f"{seat} counters: {bundle_text(give)} for {bundle_text(get)}",
              kind="counter", data={"seat": seat, "offer_by": state["current"],
                                    "give": cards(give), "get": cards(get)})


def check_confirm(state, seat, move):
    partner = move.args[0]
    offer = open_offer(state)
    if not offer:
        raise IllegalMove("you have no open offer to confirm", code="no_offer")
    deal = terms(offer, partner)
    if deal is None:
        raise IllegalMove(f"{partner} has not accepted or countered your offer",
                          code="not_accepted")
    mine, theirs = deal
    if not has(state["hands"][seat], mine):
        raise IllegalMove(f"you no longer hold {bundle_text(mine)}", code="cannot_afford")
    if not has(state["hands"][partner], theirs):
        raise IllegalMove(f"{partner} cannot complete this trade now", code="partner_cannot")
    return deal


def apply_confirm(state, seat, move, plan, rng):
    partner = move.args[0]
    mine, theirs = plan
    exchange(state["hands"][seat], mine, state["hands"][partner], theirs)
    close_offer(state)
    add_event(state, f"{seat} trades {bundle_text(mine)} to {partner} for "
              f"{bundle_text(theirs)}", kind="trade",
              data={"seat": seat, "partner": partner, "give": cards(mine),
                    "get": cards(theirs)})


def check_withdraw(state, seat, move):
    if not open_offer(state):
        raise IllegalMove("you have no open offer to withdraw", code="no_offer")


def apply_withdraw(state, seat, move, plan, rng):
    close_offer(state)
    add_event(state, f"{seat} withdraws the offer", kind="offer_withdrawn",
              data={"seat": seat, "why": "withdraw"})
