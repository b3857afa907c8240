"""Checking and applying moves: one ``check_<kind>`` and ``apply_<kind>`` per move.

``check_duty`` says whether a seat owes a move of that kind now; the tables ``CHECKS`` and
``APPLIES`` (at the end) name each kind's check and apply: the set-up and the dice here, the
trade phase in ``trade``, the development phase in ``develop``.  A check raises
:class:`shared.IllegalMove` with one sentence in the game's words, or returns a *plan*
(whatever it computed) for the apply.  Applies never raise: everything they rely on was
checked first, so a refused move leaves the state untouched.  ``after_move`` is what follows
every move (pending chips, the Exploration card, the win).
"""

from operator import le

from .. import IllegalMove
from ..events import add_event
from ..trade import close_offer, open_offer, owed, owes_answer
from . import board, develop, trade
from .notation import RES, bundle_text
from .state import (
    HAND_LIMIT,
    WIN_POINTS,
    before_version,
    cards,
    desert_options,
    free_chips,
    has,
    is_v1,
    occupied,
    pay,
    points,
    transfer,
)

TRADE_KINDS = frozenset(("bank", "offer", "confirm", "withdraw"))
ANSWER_KINDS = frozenset(("accept", "decline", "counter"))
#: kinds the player on turn never plays in the main phase (each has a phase or duty of its own)
_NOT_IN_MAIN = frozenset(("place", "roll", "discard", "figure", "desert", "take"))


def to_act(state):
    """The seats that owe a move now: the player on turn, and those owing an answer."""
    phase = state["phase"]
    if phase == "over":
        return []
    if phase == "discard":
        return [s for s in state["seats"] if s in state["discards"]]
    out = [state["current"]]
    if phase == "main":
        offer = open_offer(state)
        if offer:
            waiting = owed(offer)
            out += [s for s in state["seats"] if s in waiting]
    return out


def owes(state, owing=None):
    """{seat: short text of what it owes now} (``owing``: :func:`to_act`, if known)."""
    out = {}
    if owing is None:
        owing = to_act(state)
    phase = state["phase"]
    for s in owing:
        if phase == "place":
            out[s] = "place a tribe on a free black crossing"
        elif phase == "roll":
            out[s] = "roll the dice"
        elif phase == "discard":
            out[s] = f"discard {state['discards'][s]} cards"
        elif s != state["current"]:
            out[s] = f"answer {state['current']}'s offer (accept, decline or counter)"
        elif state["pending"]:
            out[s] = pending_text(state["pending"][0])
        elif state["turn"]["developing"]:
            out[s] = "develop and move nomads, or end the turn"
        else:
            out[s] = "trade, develop and move nomads, or end the turn"
    return out


def check_duty(state, seat, move):
    """Raise unless ``seat`` may play a move of this kind now."""
    phase, kind, cur = state["phase"], move.kind, state["current"]
    if seat not in state["seats"]:
        raise IllegalMove(f"{seat} is not a player in this game", code="not_a_player")
    if phase == "over":
        raise IllegalMove("the game is over", code="game_over")
    if phase == "discard":
        if seat not in state["discards"]:
            raise IllegalMove("a 7 was rolled: wait until the players over 7 cards have "
                              "discarded", code="not_your_turn")
        if kind != "discard":
            raise IllegalMove(f"you must first discard {state['discards'][seat]} cards",
                              code="must_discard")
        return
    if seat != cur:
        if kind in ANSWER_KINDS and phase == "main":
            if not owes_answer(state, seat):
                raise IllegalMove("there is no open offer waiting for your answer",
                                  code="no_offer")
            return
        raise IllegalMove(f"it is {cur}'s turn; you may only answer an offer made to you",
                          code="not_your_turn")
    if phase == "place":
        if kind != "place":
            raise IllegalMove("set-up: place a tribe on a free black crossing, e.g. place 92",
                              code="must_place")
        return
    if phase == "roll":
        if kind != "roll":
            raise IllegalMove("roll the dice first", code="must_roll")
        return
    pending = state["pending"]
    if pending:
        want = pending[0]["kind"]
        if kind != want:
            raise IllegalMove(f"first {pending_text(pending[0])}", code="pending")
        return
    if kind in ANSWER_KINDS:
        raise IllegalMove("you cannot answer your own offer", code="own_offer")
    if kind in _NOT_IN_MAIN:
        raise IllegalMove(f"'{kind}' is not a move you can make now", code="not_now")
    if kind in TRADE_KINDS and kind != "withdraw" and state["turn"]["developing"]:
        raise IllegalMove("the trade phase is over: you have started developing this turn",
                          code="trade_over")


def pending_text(p):
    if p["kind"] == "figure":
        figs = " or the ".join(p["figures"])
        steal = {"may": " (you may steal)", "must": " and steal a card", "none": ""}[p["steal"]]
        return f"move the {figs}{steal}"
    if p["kind"] == "desert":
        return f"place a desert on an African {board.TERRAINS[p['terrain']]}"
    if p.get("optional"):
        return "take a free people chip from the board, or none (take none)"
    return "take a free people chip from the board"


# --- set-up, dice, discards ----------------------------------------------------

def check_place(state, seat, move):
    x = move.args[0]
    if x not in board.BLACK:
        raise IllegalMove(f"crossing {x} is not a black starting crossing of Africa",
                          code="not_black")
    if x in occupied(state):
        raise IllegalMove(f"crossing {x} already has a tribe", code="occupied")


def apply_place(state, seat, move, plan, rng):
    state["tribes"][seat].append(move.args[0])
    state["place_order"].pop(0)
    add_event(state, f"{seat} places a tribe on {move.args[0]}", kind="place",
              data={"seat": seat, "crossing": move.args[0]})
    if state["place_order"]:
        state["current"] = state["place_order"][0]
    else:
        state["phase"], state["current"] = "roll", state["first"]


def check_roll(state, seat, move):
    return None


def produce(state, number):
    """Cards each seat gets for ``number`` (before the shortage rule)."""
    seats, tribes = state["seats"], state["tribes"]
    gains = {s: [0, 0, 0, 0] for s in seats}
    deserts, figures = state["deserts"], state["figures"].values()
    at = _YIELDS_AT[board.map_of(state).version][number]
    for s in seats:
        # one card per tribe and hex of the number it stands at (a seat's tribes stand on
        # distinct crossings), unless a desert or a figure covers the hex
        g = gains[s]
        for x in tribes[s]:
            hexes = at.get(x)
            if hexes:
                for h, res in hexes:
                    if h not in deserts and h not in figures:
                        g[res] += 1
    return gains


def _yields(world):
    """For a map: number -> the resources (indices, in RES order) its hexes can give, and
    number -> {crossing: ((hex of that number at the crossing, the resource it gives), ...)}."""
    resources_of = {n: sorted({board.PRODUCES[board.HEXES[h]["terrain"]] for h in hexes})
                    for n, hexes in world.hexes_by_number.items()}
    yields_at = {n: {} for n in world.hexes_by_number}
    for n, hexes in world.hexes_by_number.items():
        for h in hexes:
            for x in board.HEX_CROSSINGS[h]:
                yields_at[n][x] = yields_at[n].get(x, ()) + (
                    (h, board.PRODUCES[board.HEXES[h]["terrain"]]),)
    return resources_of, yields_at


_RESOURCES_OF, _YIELDS_AT = {}, {}
for _v, _world in board.MAPS.items():
    _RESOURCES_OF[_v], _YIELDS_AT[_v] = _yields(_world)


def apply_roll(state, seat, move, plan, rng):
    d1, d2 = rng.die(6), rng.die(6)
    total = d1 + d2
    state["dice"] = [d1, d2]
    add_event(state, f"{seat} rolls {d1}+{d2} = {total}", kind="roll",
              data={"seat": seat, "dice": [d1, d2], "total": total})
    if total == 7:
        owed = {s: (sum(state["hands"][s]) + 1) // 2 for s in state["seats"]
                if sum(state["hands"][s]) > HAND_LIMIT}
        state["pending"] = [{"kind": "figure", "figures": ["neanderthal"], "steal": "may",
                             "why": "7"}]
        state["phase"] = "main"
        if owed:
            state["discards"] = owed
            state["phase"] = "discard"
            add_event(state, "7: " + ", ".join(f"{s} must discard {n}"
                                               for s, n in owed.items()),
                      kind="discards_owed", data={"owed": dict(owed)})
        return
    state["phase"] = "main"
    gains = produce(state, total)
    supply, hands = state["supply"], state["hands"]
    if all(map(le, map(sum, zip(*gains.values())), supply)):
        # the usual case: the stacks hold everything asked (the loop below, in one step)
        for s, g in gains.items():
            transfer(supply, hands[s], g)
        got = gains
    else:
        got = _short_supply(state, gains, total)
    lines = [f"{s} gets {bundle_text(g)}" for s, g in got.items() if sum(g)]
    add_event(state, "; ".join(lines) if lines else "nobody gets anything",
              kind="production", data={"number": total,
                                       "gains": {s: cards(g) for s, g in got.items()}})


def _short_supply(state, gains, total):
    """What each seat gets of ``gains`` when a stack is short: a stack short of what several
    seats want gives nobody anything, a single taker gets what is left (RULES.md note 13)."""
    got = {s: [0, 0, 0, 0] for s in state["seats"]}
    says_lone = not before_version(state, 4)
    for i in _RESOURCES_OF[board.map_of(state).version][total]:    # RES order; others: none
        name = RES[i]
        want = sum([g[i] for g in gains.values()])
        if not want:
            continue
        takers = [s for s in state["seats"] if gains[s][i]]
        left = state["supply"][i]
        if want > left and len(takers) > 1:
            data = {"resource": name, "wanted": want, "left": left}
            if says_lone:
                data["taker"] = None
            add_event(state, f"the {name} stack is short: nobody gets {name}",
                      kind="supply_short", data=data)
            continue
        if want > left and says_lone:
            # rules version 4: a lone producer's short stack is logged too (it gets the rest)
            add_event(state, f"the {name} stack is short: {takers[0]} gets {left} of {want} "
                      f"{name}", kind="supply_short",
                      data={"resource": name, "wanted": want, "left": left,
                            "taker": takers[0]})
        for s in takers:
            n = min(gains[s][i], state["supply"][i])
            state["hands"][s][i] += n
            state["supply"][i] -= n
            got[s][i] += n
    return got


def check_discard(state, seat, move):
    bundle, owed = move.args[0], state["discards"][seat]
    if sum(bundle) != owed:
        raise IllegalMove(f"you must discard exactly {owed} cards, not {sum(bundle)}",
                          code="wrong_count")
    if not has(state["hands"][seat], bundle):
        raise IllegalMove(f"you cannot discard {bundle_text(bundle)}: you hold "
                          f"{bundle_text(state['hands'][seat])}", code="cannot_afford")


def apply_discard(state, seat, move, plan, rng):
    pay(state, seat, move.args[0])
    del state["discards"][seat]
    add_event(state, f"{seat} discards {bundle_text(move.args[0])}", kind="discard",
              data={"seat": seat, "cards": cards(move.args[0])})
    if not state["discards"]:
        state["phase"] = "main"


# --- disruption figures, deserts, free chips -----------------------------------

def victims(state, seat, hexname):
    """Seats other than ``seat`` with a tribe on ``hexname`` and at least one card."""
    corners = board.HEX_CROSSINGS[hexname]
    return [s for s in state["seats"] if s != seat and sum(state["hands"][s])
            and any(x in corners for x in state["tribes"][s])]


def check_figure(state, seat, move):
    fig, h, victim = move.args
    p = state["pending"][0]
    if fig not in p["figures"]:
        raise IllegalMove(f"only the {' or the '.join(p['figures'])} may be moved now",
                          code="wrong_figure")
    if h not in board.FIGURE_HEXES[fig]:
        regions = " or ".join(board.REGIONS[r] for r in board.FIGURE_REGIONS[fig])
        raise IllegalMove(f"the {fig} may only stand in {regions}, and {h} is in "
                          f"{board.REGIONS[board.HEXES[h]['region']]}", code="wrong_region")
    if state["figures"][fig] == h:
        raise IllegalMove(f"the {fig} already stands on {h}: move it to another landscape",
                          code="must_move")
    cands = victims(state, seat, h)
    if victim is None:
        if p["steal"] == "must" and cands:
            raise IllegalMove(f"you must steal a card from one of: {', '.join(cands)}",
                              code="must_steal")
        return None
    if p["steal"] == "none":
        raise IllegalMove("moving a figure for Hunting & Combat steals nothing", code="no_steal")
    if victim == seat:
        raise IllegalMove("you cannot steal from yourself", code="bad_victim")
    if victim not in cands:
        if victim in state["seats"] and any(x in board.HEX_CROSSINGS[h]
                                            for x in state["tribes"][victim]):
            raise IllegalMove(f"{victim} has no cards to steal", code="bad_victim")
        raise IllegalMove(f"{victim} has no tribe on {h}", code="bad_victim")
    return None


def apply_figure(state, seat, move, plan, rng):
    fig, h, victim = move.args
    why = state["pending"].pop(0)["why"]
    before = state["figures"][fig]
    state["figures"][fig] = h
    add_event(state, f"{seat} moves the {fig} to {h}", kind="figure",
              data={"seat": seat, "figure": fig, "from": before, "to": h, "why": why})
    if victim:
        hand = state["hands"][victim]
        i = rng.draw(hand)
        hand[i] -= 1
        state["hands"][seat][i] += 1
        text = f"{seat} steals 1 {RES[i]} from {victim}"
        secret = {"card": RES[i]}
        add_event(state, f"{seat} steals a card from {victim}", {seat: text, victim: text},
                  kind="steal", data={"seat": seat, "from": victim, "hex": h},
                  private_data={seat: secret, victim: secret})


def check_desert(state, seat, move):
    h = move.args[0]
    terrain = state["pending"][0]["terrain"]
    if h not in board.DESERT_HEXES:
        raise IllegalMove(f"only landscapes of Africa may become deserts, and {h} is not one",
                          code="not_africa")
    if h in state["deserts"]:
        raise IllegalMove(f"{h} is already a desert", code="already_desert")
    if board.HEXES[h]["terrain"] != terrain:
        raise IllegalMove(f"the chip shows {board.TERRAINS[terrain]}, and {h} is "
                          f"{board.TERRAINS[board.HEXES[h]['terrain']]}", code="wrong_terrain")


def apply_desert(state, seat, move, plan, rng):
    terrain = state["pending"].pop(0)["terrain"]
    state["deserts"].append(move.args[0])
    add_event(state, f"{seat} turns {move.args[0]} into a desert", kind="desert",
              data={"seat": seat, "hex": move.args[0], "terrain": terrain})


def settle_pending(state):
    """Drop duties that can no longer be carried out (their choices ran out).

    Two Desertification chips of one kind taken in one move may leave the
    second without an uncovered landscape; it then has no effect.
    """
    pending = state["pending"]
    while pending:
        p = pending[0]
        if p["kind"] == "desert" and not desert_options(state, p["terrain"]):
            add_event(state, f"no African {board.TERRAINS[p['terrain']]} is left "
                      "uncovered: the chip has no effect", kind="desert_lapses",
                      data={"seat": state["current"], "terrain": p["terrain"]})
        elif p["kind"] == "take" and not free_chips(state):
            add_event(state, "no free people chip is left to take", kind="take_lapses",
                      data={"seat": state["current"]})
        else:
            return
        pending.pop(0)


def check_take(state, seat, move):
    x = move.args[0]
    if x is None:
        if is_v1(state):
            raise IllegalMove("under these rules (version 1) the second player to own every "
                              "people must take a free people chip", code="must_take")
        return
    if str(x) not in state["chips"]:
        raise IllegalMove(f"there is no people chip on crossing {x}", code="no_chip")
    if x not in free_chips(state):
        raise IllegalMove(f"a nomad stands on the chip at {x}: take a free one", code="not_free")


def apply_take(state, seat, move, plan, rng):
    state["pending"].pop(0)
    x = move.args[0]
    if x is None:
        add_event(state, f"{seat} takes no people chip", kind="take_declined",
                  data={"seat": seat})
        return
    people = state["chips"].pop(str(x))
    state["people"][seat][board.PEOPLES.index(people)] += 1
    add_event(state, f"{seat} takes the {board.PEOPLE_NAMES[people]} people chip from "
              f"{x}", kind="take", data={"seat": seat, "crossing": x, "people": people})


# --- the tables and what follows every move -------------------------------------------

#: move kind -> its check ``(state, seat, move) -> plan``
CHECKS = {
    "place": check_place,
    "roll": check_roll,
    "discard": check_discard,
    "figure": check_figure,
    "desert": check_desert,
    "take": check_take,
    "bank": trade.check_bank,
    "offer": trade.check_offer,
    "accept": trade.check_accept,
    "decline": trade.check_decline,
    "counter": trade.check_counter,
    "confirm": trade.check_confirm,
    "withdraw": trade.check_withdraw,
    "nomad": develop.check_nomad,
    "move": develop.check_move,
    "tribe": develop.check_tribe,
    "develop": develop.check_develop,
    "end": develop.check_end,
}

#: move kind -> its apply ``(state, seat, move, plan, rng)``
APPLIES = {
    "place": apply_place,
    "roll": apply_roll,
    "discard": apply_discard,
    "figure": apply_figure,
    "desert": apply_desert,
    "take": apply_take,
    "bank": trade.apply_bank,
    "offer": trade.apply_offer,
    "accept": trade.apply_accept,
    "decline": trade.apply_decline,
    "counter": trade.apply_counter,
    "confirm": trade.apply_confirm,
    "withdraw": trade.apply_withdraw,
    "nomad": develop.apply_nomad,
    "move": develop.apply_move,
    "tribe": develop.apply_tribe,
    "develop": develop.apply_develop,
    "end": develop.apply_end,
}


def after_move(state, seat, move):
    """After every move: settle what is pending, the Exploration card, then the win.

    Only the player on turn wins, with at least 10 victory points (RULES.md, "Winning").
    """
    if state["pending"]:
        settle_pending(state)
    cur = state["current"]
    # develop.update_exploration, asked only when it may award the card (two chips taken)
    if len(state["taken"][cur]) >= 2 and state["exploration"] != cur and not is_v1(state):
        develop.update_exploration(state)
    if seat == cur and state["phase"] == "main" and \
            points(state, seat) >= WIN_POINTS:
        state["phase"] = "over"
        state["pending"], state["discards"] = [], {}
        close_offer(state)
        state["result"] = {"winners": [seat], "reason": f"{seat} has "
                           f"{points(state, seat)} victory points on their turn",
                           "points": {s: points(state, s) for s in state["seats"]}}
        add_event(state, f"{seat} wins with {points(state, seat)} victory points",
                  kind="win", data={"seat": seat, "points": points(state, seat)})
