"""The checked path: ``check(state, seat, move)`` and ``apply(state, seat, move, entropy)``.

``check`` raises IllegalMove and never mutates.  ``apply`` must only be
called after ``check`` passed; it mutates the state, sets ``events`` and
increments ``ply``.  Also: who owes a move now and what they owe.
"""

from .. import IllegalMove
from . import build, cards, trade, turn


def _check_settle(st, seat, mv):
    if st["phase"] == "setup":
        turn.check_setup_settle(st, seat, mv[1])
    else:
        build.check_settle(st, seat, mv[1])


def _check_road(st, seat, mv):
    if st["phase"] == "setup":
        turn.check_setup_road(st, seat, mv[1])
    else:
        build.check_road(st, seat, mv[1])


_CHECK = {
    "roll": lambda st, seat, mv: turn.check_roll(st, seat),
    "settle": _check_settle,
    "road": _check_road,
    "city": lambda st, seat, mv: build.check_city(st, seat, mv[1]),
    "temple": lambda st, seat, mv: build.check_temple(st, seat),
    "buy": lambda st, seat, mv: build.check_buy(st, seat),
    "start": lambda st, seat, mv: turn.check_start(st, seat, mv[1]),
    "discard": lambda st, seat, mv: turn.check_discard(st, seat, mv[1]),
    "robber": lambda st, seat, mv: turn.check_robber(st, seat, mv[1], mv[2]),
    "warrior": cards.check_card,
    "liahona": cards.check_card,
    "harvest": cards.check_card,
    "roads": cards.check_card,
    "temples": cards.check_card,
    "prosperity": cards.check_card,
    "bank": lambda st, seat, mv: trade.check_bank(st, seat, mv[1], mv[2]),
    "offer": lambda st, seat, mv: trade.check_offer(st, seat, mv[1], mv[2], mv[3]),
    "accept": lambda st, seat, mv: trade.check_accept(st, seat),
    "decline": lambda st, seat, mv: trade.check_decline(st, seat),
    "counter": lambda st, seat, mv: trade.check_counter(st, seat, mv[1], mv[2]),
    "confirm": lambda st, seat, mv: trade.check_confirm(st, seat, mv[1]),
    "withdraw": lambda st, seat, mv: trade.check_withdraw(st, seat),
    "end": lambda st, seat, mv: turn.check_end(st, seat),
}


def _apply_settle(st, seat, mv, entropy):
    if st["phase"] == "setup":
        return turn.apply_setup_settle(st, seat, mv[1])
    return build.apply_settle(st, seat, mv[1])


def _apply_road(st, seat, mv, entropy):
    if st["phase"] == "setup":
        return turn.apply_setup_road(st, seat, mv[1])
    return build.apply_road(st, seat, mv[1])


_APPLY = {
    "roll": lambda st, seat, mv, en: turn.apply_roll(st, seat, en),
    "settle": _apply_settle,
    "road": _apply_road,
    "city": lambda st, seat, mv, en: build.apply_city(st, seat, mv[1]),
    "temple": lambda st, seat, mv, en: build.apply_temple(st, seat),
    "buy": lambda st, seat, mv, en: build.apply_buy(st, seat, en),
    "start": lambda st, seat, mv, en: turn.apply_start(st, seat, mv[1]),
    "discard": lambda st, seat, mv, en: turn.apply_discard(st, seat, mv[1]),
    "robber": lambda st, seat, mv, en: turn.apply_robber(st, seat, mv[1], mv[2], en),
    "warrior": cards.apply_card,
    "liahona": cards.apply_card,
    "harvest": cards.apply_card,
    "roads": cards.apply_card,
    "temples": cards.apply_card,
    "prosperity": cards.apply_card,
    "bank": lambda st, seat, mv, en: trade.apply_bank(st, seat, mv[1], mv[2]),
    "offer": lambda st, seat, mv, en: trade.apply_offer(st, seat, mv[1], mv[2], mv[3]),
    "accept": lambda st, seat, mv, en: trade.apply_accept(st, seat),
    "decline": lambda st, seat, mv, en: trade.apply_decline(st, seat),
    "counter": lambda st, seat, mv, en: trade.apply_counter(st, seat, mv[1], mv[2]),
    "confirm": lambda st, seat, mv, en: trade.apply_confirm(st, seat, mv[1]),
    "withdraw": lambda st, seat, mv, en: trade.apply_withdraw(st, seat),
    "end": lambda st, seat, mv, en: turn.apply_end(st, seat),
}

_SETUP_KINDS = ("settle", "road")


def check(st, seat, mv):
    """Raise IllegalMove when ``seat`` may not play ``mv`` now."""
    turn.guard_seat(st, seat)
    kind = mv[0]
    phase = st["phase"]
    if phase == "setup" and kind not in _SETUP_KINDS:
        nxt = st["setup"][0]
        what = "road" if st["placed"] is not None else "settlement"
        if seat != nxt:
            raise IllegalMove(f"the set-up is running: it is {nxt}'s turn to place a {what}",
                              code="setup")
        raise IllegalMove(f"during the set-up you place a {what} (settle N / road N-M)",
                          code="setup")
    if phase == "start" and kind != "start":
        raise IllegalMove("every player first chooses the settlement for their starting "
                          "resources (start N)", code="setup")
    _CHECK[kind](st, seat, mv)


#: moves that change no one's points and not whose turn it is: after them the current player
#: is still below the goal (``check_win`` ran after the move before), so it is not asked again
_NO_POINTS = frozenset(("roll", "discard", "robber", "liahona", "harvest", "prosperity", "bank",
                        "offer", "accept", "decline", "counter", "confirm", "withdraw"))


def apply(st, seat, mv, entropy=b""):
    """Apply a checked move: mutate, set events, count the ply, end the game on a win."""
    kind = mv[0]
    events = _APPLY[kind](st, seat, mv, entropy)
    if kind not in _NO_POINTS:
        events.extend(turn.check_win(st))
    st["events"] = events
    st["ply"] += 1
    return st


# --- who owes what -----------------------------------------------------------------

def to_act(st):
    phase = st["phase"]
    if phase == "play":
        if st["discard"]:
            out = [s for s in st["order"] if s in st["discard"]]
        else:
            out = [st["turn"]]
        offer = st["offer"]
        if offer:
            out.extend(s for s in offer["owed"] if s not in out)
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
            out[seat] = "place a settlement (settle N)"
        else:
            out[seat] = f"place a road next to {st['placed'] + 1} (road N-M)"
        return out
    if phase == "start":
        for s in st["start_owed"]:
            out[s] = "choose the settlement for your starting resources (start N)"
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
    offer = st["offer"]
    if offer:
        for s in offer["owed"]:
            if s not in out:
                out[s] = f"answer {offer['from']}'s offer (accept, decline or counter)"
    return out


__all__ = ["check", "apply", "to_act", "owes"]
