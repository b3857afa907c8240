"""The rules' tables: each kind of move with its check and its apply; who owes what.

``check_duty(st, seat, mv)`` refuses a move of a kind the seat does not owe now (the set-up,
the starting resources).  ``CHECKS`` and ``APPLIES`` name each kind's check and apply, rule
functions of ``turn`` (the set-up, the roll, discards, the robber, the end of the turn),
``build``, ``cards`` and ``trade``, one signature each as in every game:
``CHECKS[kind](st, seat, mv)`` raises IllegalMove and never mutates;
``APPLIES[kind](st, seat, mv, plan, rng)`` is only called after the check passed and adds the
move's events to ``st["events"]``.  ``settle`` and ``road`` are the set-up's placements too
(``build`` hands them to ``turn`` then).  ``after_move`` ends the game on a win.
``shared.base.Game.play`` runs them in that order.
"""

from .. import IllegalMove
from ..trade import open_offer, owed
from . import build, cards, trade, turn

#: move kind -> its check ``(st, seat, mv)``
CHECKS = {
    "roll": turn.check_roll,
    "settle": build.check_settle,
    "road": build.check_road,
    "city": build.check_city,
    "temple": build.check_temple,
    "buy": build.check_buy,
    "start": turn.check_start,
    "discard": turn.check_discard,
    "robber": turn.check_robber,
    "warrior": cards.check_card,
    "liahona": cards.check_card,
    "harvest": cards.check_card,
    "roads": cards.check_card,
    "temples": cards.check_card,
    "prosperity": cards.check_card,
    "bank": trade.check_bank,
    "offer": trade.check_offer,
    "accept": trade.check_accept,
    "decline": trade.check_decline,
    "counter": trade.check_counter,
    "confirm": trade.check_confirm,
    "withdraw": trade.check_withdraw,
    "end": turn.check_end,
}

#: move kind -> its apply ``(st, seat, mv, plan, rng)``
APPLIES = {
    "roll": turn.apply_roll,
    "settle": build.apply_settle,
    "road": build.apply_road,
    "city": build.apply_city,
    "temple": build.apply_temple,
    "buy": build.apply_buy,
    "start": turn.apply_start,
    "discard": turn.apply_discard,
    "robber": turn.apply_robber,
    "warrior": cards.apply_card,
    "liahona": cards.apply_card,
    "harvest": cards.apply_card,
    "roads": cards.apply_card,
    "temples": cards.apply_card,
    "prosperity": cards.apply_card,
    "bank": trade.apply_bank,
    "offer": trade.apply_offer,
    "accept": trade.apply_accept,
    "decline": trade.apply_decline,
    "counter": trade.apply_counter,
    "confirm": trade.apply_confirm,
    "withdraw": trade.apply_withdraw,
    "end": turn.apply_end,
}

_SETUP_KINDS = ("settle", "road")


def check_duty(st, seat, mv):
    """Raise IllegalMove when ``seat`` may not play a move of this kind now."""
    phase = st["phase"]
    if phase == "play" and seat in st["players"]:
        return      # the usual case: turn.guard_seat passes and play has no duty to check
    turn.guard_seat(st, seat)
    kind = mv.kind
    if phase == "setup" and kind not in _SETUP_KINDS:
        nxt = st["setup"][0]
        what = "road" if st["placed"] is not None else "settlement"
        if seat != nxt:
            raise IllegalMove(f"the set-up is running: it is {nxt}'s turn to place a {what}",
                              code="setup")
        raise IllegalMove(f"during the set-up you place a {what} "
                          "(settle CORNER / road CORNER-CORNER)", code="setup")
    if phase == "start" and kind != "start":
        raise IllegalMove("every player first chooses the settlement for their starting "
                          "resources (start CORNER)", code="setup")


#: moves that change no one's points and not whose turn it is: after them the current player
#: is still below the goal (``check_win`` ran after the move before), so it is not asked again
_NO_POINTS = frozenset(("roll", "discard", "robber", "liahona", "harvest", "prosperity", "bank",
                        "offer", "accept", "decline", "counter", "confirm", "withdraw"))


def after_move(st, seat, mv):
    """After a move that may change points or the turn: end the game on a win."""
    if mv.kind not in _NO_POINTS:
        st["events"] += turn.check_win(st)


# --- who owes what -----------------------------------------------------------------

def to_act(st):
    phase = st["phase"]
    if phase == "play":
        discard = st["discard"]
        out = [s for s in st["order"] if s in discard] if discard else [st["turn"]]
        offer = st["offer"]     # open_offer and owed of shared.trade, read directly (hot)
        if offer:
            for s in offer["owed"]:
                if s not in out:
                    out.append(s)
        return out
    if phase == "setup":
        return [st["setup"][0]]
    if phase == "start":
        return list(st["start_owed"])
    return []


def owes(st):
    """{seat: short text of what it owes}."""
    out = {}
    phase = st["phase"]
    if phase == "setup":
        seat = st["setup"][0]
        if st["placed"] is None:
            out[seat] = "place a settlement (settle CORNER)"
        else:
            out[seat] = f"place a road next to {st['placed'] + 1} (road {st['placed'] + 1}-CORNER)"
        return out
    if phase == "start":
        for s in st["start_owed"]:
            out[s] = "choose the settlement that gives the starting resources (start CORNER)"
        return out
    if phase != "play":
        return out
    for s, n in st["discard"].items():
        out[s] = f"discard {n} cards"
    if not st["discard"]:
        seat = st["turn"]
        if st["robber_due"]:
            out[seat] = "move the robber (robber HEX [PLAYER])"
        elif st["free_roads"]:
            out[seat] = f"place {st['free_roads']} free road(s)"
        elif not st["rolled"]:
            out[seat] = "roll the dice or play a card"
        else:
            out[seat] = "trade, build, buy, play a card or end the turn"
    offer = open_offer(st)
    if offer:
        for s in owed(offer):
            if s not in out:
                out[s] = f"answer {offer['from']}'s offer (accept, decline or counter)"
    return out


__all__ = ["CHECKS", "APPLIES", "check_duty", "after_move", "to_act", "owes"]
