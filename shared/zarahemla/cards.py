"""Playing development cards: Stripling Warrior, Liahona, Bountiful Harvest,
Road Building, Temple Building and Prosperity.

One card per turn, at any time of the turn (before the roll too), never one
bought this turn.  Victory Point cards are never played: they count for
their owner at once, hidden (RULES.md item 11).

``check_card(st, seat, mv)`` and ``apply_card(st, seat, mv, plan, rng)`` are the rules' table
entries of the six cards' moves (``rules``), the apply adding its events to ``st["events"]``.
"""

from .. import IllegalMove
from .board import RESOURCES
from .build import placeable_roads, temple_events
from .roads import MIN_ARMY, update_count_card
from .state import (
    DEV,
    DEV_TITLES,
    PIECES,
    W_HARVEST,
    W_LIAHONA,
    W_PROSPERITY,
    W_ROADS,
    W_TEMPLES,
    W_WARRIOR,
    bundle_text,
    cap,
    res_dict,
)
from .turn import ev, guard_turn, has_facts, resolve_roll

CARD_INDEX = {"warrior": W_WARRIOR, "liahona": W_LIAHONA, "harvest": W_HARVEST,
              "roads": W_ROADS, "temples": W_TEMPLES, "prosperity": W_PROSPERITY}


def playable(p, card):
    """How many cards of index ``card`` the player may play (not bought this turn)."""
    return p["dev"][card] - p["new"][card]


def check_card(st, seat, mv):
    kind = mv.kind
    guard_turn(st, seat, kind)
    card = CARD_INDEX[kind]
    title = DEV_TITLES[DEV[card]]
    if st["dev_played"]:
        raise IllegalMove("you have already played a development card this turn",
                          code="one_card_per_turn")
    p = st["players"][seat]
    if playable(p, card) <= 0:
        if p["dev"][card]:
            raise IllegalMove(f"you bought your {title} this turn: play it from your next turn",
                              code="card_too_new")
        raise IllegalMove(f"you have no {title} card", code="no_card")
    if kind == "liahona":
        if st["rolled"]:
            raise IllegalMove("the Liahona is played instead of the roll, before rolling",
                              code="already_rolled")
    elif kind == "harvest":
        bundle = mv.args[0]
        bank = st["bank"]
        want = min(2, sum(bank))
        if sum(bundle) != want:
            if want < 2:
                raise IllegalMove(f"the bank holds only {want} card(s): take exactly {want}",
                                  code="wrong_count")
            raise IllegalMove("Bountiful Harvest takes exactly two Resource Cards",
                              code="wrong_count")
        for r in range(5):
            if bundle[r] > bank[r]:
                raise IllegalMove(f"the bank has only {bank[r]} {RESOURCES[r]}",
                                  code="bank_empty")
    elif kind == "roads":
        if p["roads"] >= PIECES["roads"]:
            raise IllegalMove("you have no Road left in your stock", code="no_pieces")
        if not placeable_roads(st, seat):
            raise IllegalMove("there is no path where you could place a road",
                              code="no_room")
    elif kind == "temples":
        if p["stones"] >= PIECES["stones"]:
            raise IllegalMove("you have placed all 10 of your Temple Stones", code="no_pieces")


def apply_card(st, seat, mv, plan, rng):
    kind = mv.kind
    out = st["events"]
    card = CARD_INDEX[kind]
    p = st["players"][seat]
    p["dev"][card] -= 1
    st["dev_played"] = True
    name = cap(seat)
    card_name = DEV[card]
    if kind == "warrior":
        p["warriors"] += 1
        st["robber_due"] = True
        out.append(ev(st, f"{name} played a Stripling Warrior ({p['warriors']} in all) and "
                      "must move the robber.", "play_card",
                      {"seat": seat, "card": card_name, "warriors": p["warriors"]}))
        old = st["army"]
        if update_count_card(st, "army", "warriors", MIN_ARMY, seat):
            out.append(ev(st, f"{name} has the Largest Army ({p['warriors']} warriors).",
                          "largest_army", {"seat": seat, "from": old,
                                           "warriors": p["warriors"]}))
        return
    if kind == "liahona":
        st["dice"] = None
        if not has_facts(st):
            out += resolve_roll(st, seat, mv.args[0],
                                f"{name} played the Liahona and chose {mv.args[0]}",
                                liahona=True)
            return
        # from version 2 the card and the roll are two events, each with its own facts
        out.append(ev(st, f"{name} played the Liahona.", "play_card",
                      {"seat": seat, "card": card_name, "total": mv.args[0]}))
        out += resolve_roll(st, seat, mv.args[0], f"{name} chose {mv.args[0]} with the Liahona",
                            liahona=True)
        return
    if kind == "harvest":
        bundle = mv.args[0]
        hand, bank = p["hand"], st["bank"]
        for r in range(5):
            hand[r] += bundle[r]
            bank[r] -= bundle[r]
        out.append(ev(st, f"{name} played Bountiful Harvest and took {bundle_text(bundle)}.",
                      "play_card", {"seat": seat, "card": card_name, "took": res_dict(bundle)}))
        return
    if kind == "roads":
        st["free_roads"] = min(2, PIECES["roads"] - p["roads"])
        out.append(ev(st, f"{name} played Road Building: {st['free_roads']} free road(s) to "
                      "place.", "play_card", {"seat": seat, "card": card_name,
                                              "free_roads": st["free_roads"]}))
        return
    if kind == "temples":
        n = min(2, PIECES["stones"] - p["stones"])
        p["stones"] += n
        out.append(ev(st, f"{name} played Temple Building and placed {n} Temple Stone(s) "
                      f"({p['stones']} in all).", "play_card",
                      {"seat": seat, "card": card_name, "placed": n, "stones": p["stones"]}))
        out += temple_events(st, seat)
        return
    # prosperity
    r = mv.args[0]
    took = []
    taken = {}
    total = 0
    for s in st["order"]:
        if s == seat:
            continue
        h = st["players"][s]["hand"]
        if h[r]:
            took.append(f"{h[r]} from {cap(s)}")
            taken[s] = h[r]
            total += h[r]
            p["hand"][r] += h[r]
            h[r] = 0
    res = RESOURCES[r]
    data = {"seat": seat, "card": card_name, "resource": res, "took": taken, "total": total}
    # the book's "give you all of their Resource Cards of that type" is done in the open: how
    # many of that type each other hand held is shown to the table (and is 0 in it now)
    shown = [(s, ("players", s, "hand", r)) for s in st["order"] if s != seat]
    if total:
        out.append(ev(st, f"{name} played Prosperity on {res} and took {total} {res} "
                      f"({', '.join(took)}).", "play_card", data, reveals=shown))
    else:
        out.append(ev(st, f"{name} played Prosperity on {res}, but no one had any.",
                      "play_card", data, reveals=shown))
