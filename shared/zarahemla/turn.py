"""Turn structure: guards, set-up placement, starting resources, the roll,
production, discards on a 7, the robber, ending the turn and winning.

Every ``check_<kind>(st, seat, mv)`` raises IllegalMove and never mutates; every
``apply_<kind>(st, seat, mv, plan, rng)`` assumes its check passed, mutates the state and
adds the move's events to ``st["events"]`` (the rules' tables name them, ``rules``).  The
helpers a move shares (``resolve_roll``, ``check_win``) return their events as lists.
"""

from operator import le

from .. import IllegalMove
from ..base import FIRST_RULES_VERSION, rules_version_of
from ..events import make_event
from ..trade import close_offer, open_offer
from .board import (
    CORNER_HEXES,
    CORNER_NEIGHBOURS,
    EDGES,
    HEX_CORNERS,
    HEX_NAMES,
    HIDEOUT,
    RESOURCES,
)
from .roads import road_length
from .state import W_VP, bundle_text, cap, public_vp, res_dict, total_vp

#: every ``kind`` an event of a version-2 state may have (RULES.md, "Facts")
EVENT_KINDS = frozenset((
    "start_order", "settle", "road", "setup_done", "start_resources", "game_begins",
    "roll", "discard", "robber", "end_turn", "win",
    "city", "temple", "buy", "longest_road", "largest_army", "temple_contributor",
    "play_card", "bank_trade", "offer", "offer_withdrawn", "answer", "trade",
))


def ev(st, public, kind, data=None, private=None, private_data=None, reveals=None):
    """An event of ``st`` (see ``shared.events``): its text, and from version 2 its facts;
    ``reveals`` names the hidden fields it shows every seat on purpose."""
    return make_event(st, public, private, kind, data, private_data, reveals)


def before_version(st, version):
    """True when ``st`` is played under a rules version older than ``version``."""
    return int(rules_version_of(st)) < version


def has_facts(st):
    """True when ``st`` records facts (rules version 2 on), so they are worth computing."""
    return rules_version_of(st) != FIRST_RULES_VERSION


# --- guards ---------------------------------------------------------------

def guard_seat(st, seat):
    if seat not in st["players"]:
        raise IllegalMove(f"{seat!r} is not a player in this game", code="not_a_player")
    if st["phase"] == "over":
        raise IllegalMove("the game is over", code="game_over")


def guard_turn(st, seat, kind):
    """The checks every move of the current player shares, in play."""
    phase = st["phase"]
    if phase != "play":
        if phase == "setup":
            raise IllegalMove("the set-up is not finished: place a settlement or road",
                              code="setup")
        raise IllegalMove("every player must first choose the settlement for their starting "
                          "resources (start CORNER)", code="setup")
    turn = st["turn"]
    if seat != turn:
        raise IllegalMove(f"it is {turn}'s turn, not yours", code="not_your_turn")
    if st["discard"]:
        waiting = ", ".join(s for s in st["order"] if s in st["discard"])
        raise IllegalMove(f"wait until {waiting} discarded after the 7", code="waiting")
    if st["robber_due"] and kind != "robber":
        raise IllegalMove("move the robber first (robber HEX PLAYER)", code="robber_first")
    if st["free_roads"] and kind != "road":
        raise IllegalMove(f"place your {st['free_roads']} free road(s) first",
                          code="free_roads_first")


def guard_rolled(st):
    if not st["rolled"]:
        raise IllegalMove("roll the dice first (or play a development card)",
                          code="roll_first")


# --- set-up -----------------------------------------------------------------

def distance_ok(owner, c):
    for n in CORNER_NEIGHBOURS[c]:
        if owner[n] is not None:
            return n
    return None


def check_free_corner(owner, c):
    """Raise unless corner ``c`` is empty and two paths from every building (distance rule)."""
    if owner[c] is not None:
        raise IllegalMove(f"corner {c + 1} is taken", code="occupied")
    n = distance_ok(owner, c)
    if n is not None:
        raise IllegalMove(f"corner {c + 1} is next to the building on {n + 1}: settlements "
                          "must be two paths apart", code="distance")


def check_setup_settle(st, seat, mv):
    c = mv.args[0]
    if st["setup"][0] != seat:
        raise IllegalMove(f"it is {st['setup'][0]}'s turn to place, not yours",
                          code="not_your_turn")
    if st["placed"] is not None:
        raise IllegalMove(f"place a road next to your settlement on {st['placed'] + 1} first",
                          code="road_first")
    check_free_corner(st["owner"], c)
    if not any(st["numbers"][h] for h in CORNER_HEXES[c]):
        raise IllegalMove(f"corner {c + 1} touches no numbered hex", code="no_number")


def apply_setup_settle(st, seat, mv, plan, rng):
    c = mv.args[0]
    st["owner"][c] = seat
    st["level"][c] = 1
    st["players"][seat]["settlements"] += 1
    st["placed"] = c
    st["events"].append(ev(st, f"{cap(seat)} placed a settlement on {c + 1}.", "settle",
                           {"seat": seat, "corner": c + 1, "setup": True}))


def check_setup_road(st, seat, mv):
    e = mv.args[0]
    if st["setup"][0] != seat:
        raise IllegalMove(f"it is {st['setup'][0]}'s turn to place, not yours",
                          code="not_your_turn")
    placed = st["placed"]
    if placed is None:
        raise IllegalMove("place a settlement first", code="settle_first")
    if st["roads"][e] is not None:
        raise IllegalMove("that path already has a road", code="occupied")
    if placed not in EDGES[e]:
        raise IllegalMove(f"the road must touch your new settlement on {placed + 1}",
                          code="not_connected")


def apply_setup_road(st, seat, mv, plan, rng):
    e = mv.args[0]
    a, b = EDGES[e]
    st["roads"][e] = seat
    st["players"][seat]["roads"] += 1
    st["players"][seat]["road_len"] = road_length(st, seat)
    st["placed"] = None
    st["setup"].pop(0)
    out = st["events"]
    out.append(ev(st, f"{cap(seat)} placed a road on {a + 1}-{b + 1}.", "road",
                  {"seat": seat, "path": f"{a + 1}-{b + 1}", "setup": True, "free": False}))
    if not st["setup"]:
        st["phase"] = "start"
        st["start_owed"] = list(st["order"])
        out.append(ev(st, "Set-up done: every player now chooses one settlement for the "
                      "starting resources (start N).", "setup_done",
                      {"start_owed": list(st["order"])}))


def check_start(st, seat, mv):
    c = mv.args[0]
    if st["phase"] != "start":
        raise IllegalMove("starting resources are chosen only after the set-up",
                          code="not_now")
    if seat not in st["start_owed"]:
        raise IllegalMove("you have already taken your starting resources", code="done")
    if st["owner"][c] != seat:
        raise IllegalMove(f"you have no settlement on {c + 1}", code="not_yours")


def start_bundle(st, c):
    bundle = [0] * 5
    for h in CORNER_HEXES[c]:
        if st["numbers"][h]:
            bundle[RESOURCES.index(st["terrain"][h])] += 1
    return bundle


def apply_start(st, seat, mv, plan, rng):
    c = mv.args[0]
    bundle = start_bundle(st, c)
    hand = st["players"][seat]["hand"]
    for i in range(5):
        hand[i] += bundle[i]
        st["bank"][i] -= bundle[i]
    st["start_owed"].remove(seat)
    out = st["events"]
    out.append(ev(st, f"{cap(seat)} takes the starting resources of {c + 1}: "
                  f"{bundle_text(bundle)}.", "start_resources",
                  {"seat": seat, "corner": c + 1, "gain": res_dict(bundle)}))
    if not st["start_owed"]:
        st["phase"] = "play"
        st["turn"] = st["order"][0]
        out.append(ev(st, f"The game begins: {cap(st['turn'])} to roll.", "game_begins",
                      {"turn": st["turn"]}))


# --- rolling and production --------------------------------------------------

def check_roll(st, seat, mv):
    guard_turn(st, seat, "roll")
    if st["rolled"]:
        raise IllegalMove("you have already rolled this turn", code="already_rolled")


def apply_roll(st, seat, mv, plan, rng):
    d1, d2 = rng.die(6), rng.die(6)
    st["dice"] = [d1, d2]
    st["events"] += resolve_roll(st, seat, d1 + d2, f"{cap(seat)} rolled {d1 + d2} ({d1}+{d2})")


def production(st, total):
    """{seat: [5 counts]} that a roll of ``total`` gives, before the bank limit."""
    owed = {}
    owner, level, numbers, terrain = st["owner"], st["level"], st["numbers"], st["terrain"]
    robber = st["robber"]
    for h, n in enumerate(numbers):
        if n != total or h == robber:
            continue
        r = RESOURCES.index(terrain[h])
        for c in HEX_CORNERS[h]:
            s = owner[c]
            if s is not None:
                owed.setdefault(s, [0] * 5)[r] += level[c]
    return owed


def _blocked(st, total):
    """What the hex under the robber would have given on ``total`` ({seat: [5 counts]})."""
    h = st["robber"]
    if st["numbers"][h] != total:
        return None
    r = RESOURCES.index(st["terrain"][h])
    owed = {}
    for c in HEX_CORNERS[h]:
        s = st["owner"][c]
        if s is not None:
            owed.setdefault(s, [0] * 5)[r] += st["level"][c]
    return {"hex": HEX_NAMES[h], "owed": {s: res_dict(b) for s, b in owed.items()}}


def _short_paid(st, owed, short, short_facts):
    """{seat: [5 counts]} the bank pays of ``owed`` when it is short of a resource.

    Resource by resource: what everyone is owed when the bank has enough; all it has to a
    single taker; nothing to several (RULES.md).  The shortages' texts go to ``short``, their
    facts to ``short_facts`` (None: no facts).
    """
    bank = st["bank"]
    gains = {}
    for r in range(5):
        takers = [s for s in st["order"] if s in owed and owed[s][r]]
        need = sum(owed[s][r] for s in takers)
        if not need:
            continue
        if need <= bank[r]:
            for s in takers:
                gains.setdefault(s, [0] * 5)[r] += owed[s][r]
            continue
        paid = {}
        if len(takers) == 1:
            if bank[r]:
                gains.setdefault(takers[0], [0] * 5)[r] += bank[r]
                paid[takers[0]] = bank[r]
            short.append(f"the bank had only {bank[r]} {RESOURCES[r]}")
        else:
            short.append(f"the bank is short of {RESOURCES[r]}: no one gets any")
        if short_facts is not None:
            short_facts.append({"resource": RESOURCES[r], "bank": bank[r],
                                "owed": {s: owed[s][r] for s in takers}, "paid": paid})
    return gains


def resolve_roll(st, seat, total, head, liahona=False):
    """The production of a roll of ``total`` (dice or a Liahona); returns its event.

    From version 2 the event's facts are the dice (None for a Liahona), the total, what each
    seat got, the bank's shortages, what the robber's hex withheld and, on a 7, who owes
    how many discards (RULES.md, "Facts").
    """
    st["rolled"] = True
    st["last_roll"] = total
    facts = has_facts(st)
    data = None
    if facts:
        dice = st["dice"]
        data = {"seat": seat, "dice": None if liahona or not dice else list(dice),
                "total": total, "liahona": liahona, "seven": total == 7}
    if total == 7:
        discard = {}
        for s in st["order"]:
            n = sum(st["players"][s]["hand"])
            if n > 7:
                discard[s] = n // 2
        st["discard"] = discard
        st["robber_due"] = True
        text = head + ": the Gadianton Robber strikes, no production."
        if discard:
            text += " To discard: " + ", ".join(f"{cap(s)} {n}" for s, n in discard.items()) + "."
        if facts:
            data.update(produced={}, short=[], robber_blocks=None, discard=dict(discard),
                        robber_due=True)
        return [ev(st, text, "roll", data)]
    owed = production(st, total)
    bank = st["bank"]
    short = []
    short_facts = []
    if all(map(le, map(sum, zip(*owed.values())), bank)):
        gains = owed        # the usual case: the bank pays everything owed
    else:
        gains = _short_paid(st, owed, short, short_facts if facts else None)
    for s, g in gains.items():
        hand = st["players"][s]["hand"]
        for r in range(5):
            hand[r] += g[r]
            bank[r] -= g[r]
    parts = [f"{cap(s)} gets {bundle_text(gains[s])}" for s in st["order"] if s in gains]
    text = head + (": " + ", ".join(parts) if parts else ": nothing produced")
    if short:
        text += " (" + "; ".join(short) + ")"
    if facts:
        data.update(produced={s: res_dict(gains[s]) for s in st["order"] if s in gains},
                    short=short_facts, robber_blocks=_blocked(st, total), discard={},
                    robber_due=False)
    return [ev(st, text + ".", "roll", data)]


# --- 7: discards and the robber ------------------------------------------------

def check_discard(st, seat, mv):
    bundle = mv.args[0]
    if st["phase"] != "play" or seat not in st["discard"]:
        raise IllegalMove("you owe no discard now", code="no_discard")
    need = st["discard"][seat]
    if sum(bundle) != need:
        raise IllegalMove(f"you must discard exactly {need} cards, not {sum(bundle)}",
                          code="wrong_count")
    hand = st["players"][seat]["hand"]
    for r in range(5):
        if bundle[r] > hand[r]:
            raise IllegalMove(f"you have only {hand[r]} {RESOURCES[r]}", code="cannot_afford")


def apply_discard(st, seat, mv, plan, rng):
    bundle = mv.args[0]
    hand = st["players"][seat]["hand"]
    for r in range(5):
        hand[r] -= bundle[r]
        st["bank"][r] += bundle[r]
    del st["discard"][seat]
    st["events"].append(ev(st, f"{cap(seat)} discarded {bundle_text(bundle)}.", "discard",
                           {"seat": seat, "cards": res_dict(bundle), "count": sum(bundle)}))


def robber_victims(st, seat, h):
    """Opponents with a building on hex ``h`` and at least one Resource Card."""
    owner = st["owner"]
    players = st["players"]
    out = []
    for c in HEX_CORNERS[h]:
        s = owner[c]
        if s is not None and s != seat and s not in out and sum(players[s]["hand"]):
            out.append(s)
    return out


def check_robber(st, seat, mv):
    h, victim = mv.args
    guard_turn(st, seat, "robber")
    if not st["robber_due"]:
        raise IllegalMove("the robber moves only after a 7 or a Stripling Warrior",
                          code="not_now")
    name = HEX_NAMES[h]
    if h == st["robber"]:
        raise IllegalMove(f"the robber is already on {name}: it must move to another hex",
                          code="same_hex")
    if st["terrain"][h] == HIDEOUT:
        raise IllegalMove("the robber may not go back to the Hideout", code="hideout")
    if victim is not None:
        if victim == seat:
            raise IllegalMove("you cannot rob yourself", code="bad_victim")
        if victim not in st["players"]:
            raise IllegalMove(f"{victim} is not in this game", code="bad_victim")
        if victim not in robber_victims(st, seat, h):
            if not sum(st["players"][victim]["hand"]) and any(
                    st["owner"][c] == victim for c in HEX_CORNERS[h]):
                raise IllegalMove(f"{victim} has no Resource Card to steal", code="bad_victim")
            raise IllegalMove(f"{victim} has no settlement or city on {name}",
                              code="bad_victim")


def apply_robber(st, seat, mv, plan, rng):
    h, victim = mv.args
    st["robber"] = h
    st["robber_due"] = False
    name = HEX_NAMES[h]
    if victim is None:
        st["events"].append(ev(st, f"{cap(seat)} moved the robber to {name}.", "robber",
                               {"seat": seat, "hex": name, "victim": None}))
        return
    vhand = st["players"][victim]["hand"]
    r = rng.draw(vhand)
    vhand[r] -= 1
    st["players"][seat]["hand"][r] += 1
    res = RESOURCES[r]
    st["events"].append(ev(
        st, f"{cap(seat)} moved the robber to {name} and stole a card from {cap(victim)}.",
        "robber", {"seat": seat, "hex": name, "victim": victim},
        {seat: f"You moved the robber to {name} and stole 1 {res} from {cap(victim)}.",
         victim: f"{cap(seat)} moved the robber to {name} and stole 1 {res} from you."},
        {seat: {"card": res}, victim: {"card": res}}))


# --- end of turn and winning ------------------------------------------------------

def check_end(st, seat, mv):
    guard_turn(st, seat, "end")
    guard_rolled(st)


def apply_end(st, seat, mv, plan, rng):
    out = st["events"]
    if open_offer(st) is not None:
        out.append(ev(st, f"{cap(seat)}'s offer is withdrawn.", "offer_withdrawn",
                      {"seat": seat, "reason": "end_turn"}))
        close_offer(st)
    p = st["players"][seat]
    p["new"] = [0] * 7
    order = st["order"]
    nxt = order[(order.index(seat) + 1) % len(order)]
    st["turn"] = nxt
    st["rolled"] = False
    st["dev_played"] = False
    st["dice"] = None
    out.append(ev(st, f"{cap(seat)} ended the turn; {cap(nxt)} to roll.", "end_turn",
                  {"seat": seat, "next": nxt}))


def check_win(st):
    """End the game when the current player has the target during their turn."""
    if st["phase"] != "play":
        return []
    seat = st["turn"]
    vp = total_vp(st, seat)
    target = st["options"]["vp_to_win"]
    if vp < target:
        return []
    st["phase"] = "over"
    close_offer(st)
    st["discard"] = {}
    final = {s: total_vp(st, s) for s in st["order"]}
    cards = st["players"][seat]["dev"][W_VP]
    st["result"] = {"winners": [seat], "vp": final,
                    "public": {s: public_vp(st, s) for s in st["order"]},
                    "reason": f"{seat} reached {vp} victory points"}
    text = f"{cap(seat)} wins with {vp} victory points"
    if cards:
        text += f" ({cards} Victory Point card{'s' if cards > 1 else ''} revealed)"
    others = [f"{cap(s)} {final[s]}" for s in st["order"] if s != seat]
    return [ev(st, text + ". Final: " + ", ".join([f"{cap(seat)} {vp}"] + others) + ".", "win",
               {"seat": seat, "vp": vp, "final": final,
                "vp_cards": {s: st["players"][s]["dev"][W_VP] for s in st["order"]}})]
