"""Building: Road, Settlement, City, Temple Stone and buying a Development Card.

The rules' table entries of those moves (``rules``): ``check_<kind>(st, seat, mv)`` raises
IllegalMove and never mutates, ``apply_<kind>(st, seat, mv, plan, rng)`` adds the move's
events to ``st["events"]``.  A settlement and a road are also the moves of the set-up: during
it ``settle`` and ``road`` are the free placements of ``turn``.
"""

from .. import IllegalMove
from .board import CORNER_EDGES, EDGES
from .roads import MIN_TEMPLE, update_count_card, update_longest
from .state import COST, DEV, DEV_TITLES, PIECES, bundle_text, cap, has, pay
from .turn import (
    apply_setup_road,
    apply_setup_settle,
    before_version,
    check_free_corner,
    check_setup_road,
    check_setup_settle,
    ev,
    guard_rolled,
    guard_turn,
)

_NAMES = {"road": "a Road", "settle": "a Settlement", "city": "a City",
          "temple": "a Temple Stone", "buy": "a Development Card"}


def check_afford(st, seat, what):
    hand = st["players"][seat]["hand"]
    cost = COST[what]
    if not has(hand, cost):
        lack = [max(0, cost[i] - hand[i]) for i in range(5)]
        raise IllegalMove(f"{_NAMES[what]} costs {bundle_text(cost)} and you lack "
                          f"{bundle_text(lack)}", code="cannot_afford")


def road_connects(st, seat, e):
    """True when path ``e`` touches the seat's building, or its road at a corner
    that no opponent's building blocks."""
    owner, roads = st["owner"], st["roads"]
    for c in EDGES[e]:
        o = owner[c]
        if o == seat:
            return True
        if o is None:
            for e2 in CORNER_EDGES[c]:
                if roads[e2] == seat:
                    return True
    return False


def placeable_roads(st, seat):
    """Every free path the seat could connect a road to (ignores cost and stock)."""
    owner, roads = st["owner"], st["roads"]
    # the corners a road may start from: the seat's buildings, and the free ends of its roads
    ends = [c for c, o in enumerate(owner) if o == seat]
    ends += [c for e, s in enumerate(roads) if s == seat for c in EDGES[e] if owner[c] is None]
    return sorted({e for c in ends for e in CORNER_EDGES[c] if roads[e] is None})


def check_road(st, seat, mv):
    """A road built or free in play; during the set-up the one next to the new settlement."""
    if st["phase"] == "setup":
        check_setup_road(st, seat, mv)
        return
    e = mv.args[0]
    guard_turn(st, seat, "road")
    p = st["players"][seat]
    free = st["free_roads"] > 0
    if not free:
        guard_rolled(st)
    if p["roads"] >= PIECES["roads"]:
        raise IllegalMove("you have no Road left in your stock (15 built)", code="no_pieces")
    a, b = EDGES[e]
    if st["roads"][e] is not None:
        raise IllegalMove(f"the path {a + 1}-{b + 1} already has a road", code="occupied")
    if not road_connects(st, seat, e):
        raise IllegalMove(f"a road on {a + 1}-{b + 1} would not touch your road, settlement "
                          "or city (an opponent's building blocks a road)", code="not_connected")
    if not free:
        check_afford(st, seat, "road")


def apply_road(st, seat, mv, plan, rng):
    if st["phase"] == "setup":
        apply_setup_road(st, seat, mv, plan, rng)
        return
    e = mv.args[0]
    a, b = EDGES[e]
    p = st["players"][seat]
    free = st["free_roads"] > 0
    if not free:
        pay(st, seat, COST["road"])
    st["roads"][e] = seat
    p["roads"] += 1
    if free:
        st["free_roads"] -= 1
        text = f"{cap(seat)} placed a free road on {a + 1}-{b + 1}."
        if st["free_roads"] and (p["roads"] >= PIECES["roads"] or
                                 not placeable_roads(st, seat)):
            st["free_roads"] = 0    # fewer roads when fewer can be placed
    else:
        text = f"{cap(seat)} built a road on {a + 1}-{b + 1}."
    out = st["events"]
    out.append(ev(st, text, "road", {"seat": seat, "path": f"{a + 1}-{b + 1}", "setup": False,
                                     "free": free}))
    out.extend(_longest_events(st, [seat]))


def _longest_events(st, seats):
    old, new = update_longest(st, seats)
    if old == new:
        return []
    if new is None:
        return [ev(st, f"{cap(old)} loses the Longest Road: it goes back to the table.",
                   "longest_road", {"seat": None, "from": old, "length": None})]
    length = st["players"][new]["road_len"]
    data = {"seat": new, "from": old, "length": length}
    if old is None:
        return [ev(st, f"{cap(new)} takes the Longest Road ({length} roads).", "longest_road",
                   data)]
    return [ev(st, f"{cap(new)} takes the Longest Road ({length} roads) from {cap(old)}.",
               "longest_road", data)]


def check_settle(st, seat, mv):
    """A settlement built in play; during the set-up the free one of ``turn``."""
    if st["phase"] == "setup":
        check_setup_settle(st, seat, mv)
        return
    c = mv.args[0]
    guard_turn(st, seat, "settle")
    guard_rolled(st)
    p = st["players"][seat]
    if p["settlements"] >= PIECES["settlements"]:
        raise IllegalMove("you have no Settlement left: upgrade one to a City first",
                          code="no_pieces")
    check_free_corner(st["owner"], c)
    roads = st["roads"]
    if not any(roads[e] == seat for e in CORNER_EDGES[c]):
        raise IllegalMove(f"corner {c + 1} is not at the end of one of your roads",
                          code="not_connected")
    check_afford(st, seat, "settle")


def apply_settle(st, seat, mv, plan, rng):
    if st["phase"] == "setup":
        apply_setup_settle(st, seat, mv, plan, rng)
        return
    c = mv.args[0]
    pay(st, seat, COST["settle"])
    st["owner"][c] = seat
    st["level"][c] = 1
    st["players"][seat]["settlements"] += 1
    out = st["events"]
    out.append(ev(st, f"{cap(seat)} built a settlement on {c + 1}.", "settle",
                  {"seat": seat, "corner": c + 1, "setup": False}))
    roads = st["roads"]
    # a settlement can break an opponent's road passing through this corner
    broken = {roads[e] for e in CORNER_EDGES[c] if roads[e] not in (None, seat)}
    if broken:
        out.extend(_longest_events(st, sorted(broken)))


def check_city(st, seat, mv):
    c = mv.args[0]
    guard_turn(st, seat, "city")
    guard_rolled(st)
    if st["owner"][c] != seat or st["level"][c] != 1:
        if st["owner"][c] == seat:
            raise IllegalMove(f"corner {c + 1} is already a city", code="already_city")
        raise IllegalMove(f"you have no settlement on {c + 1} to upgrade", code="not_yours")
    if st["players"][seat]["cities"] >= PIECES["cities"]:
        raise IllegalMove("you have no City left in your stock (4 built)", code="no_pieces")
    check_afford(st, seat, "city")


def apply_city(st, seat, mv, plan, rng):
    c = mv.args[0]
    pay(st, seat, COST["city"])
    st["level"][c] = 2
    p = st["players"][seat]
    p["settlements"] -= 1
    p["cities"] += 1
    st["events"].append(ev(st, f"{cap(seat)} upgraded {c + 1} to a city.", "city",
                           {"seat": seat, "corner": c + 1}))


def check_temple(st, seat, mv):
    guard_turn(st, seat, "temple")
    if before_version(st, 3):
        # versions 1 and 2 made Temple Stones wait for the roll; from version 3 "Players may
        # at anytime during their turn help to build the Temple" (RULES.md item 19)
        guard_rolled(st)
    if st["players"][seat]["stones"] >= PIECES["stones"]:
        raise IllegalMove("you have placed all 10 of your Temple Stones", code="no_pieces")
    check_afford(st, seat, "temple")


def temple_events(st, seat):
    """The Greatest Temple Contributor's event, when the seat's stones change its holder."""
    old = st["temple"]
    if update_count_card(st, "temple", "stones", MIN_TEMPLE, seat):
        n = st["players"][seat]["stones"]
        return [ev(st, f"{cap(seat)} is the Greatest Temple Contributor ({n} stones).",
                   "temple_contributor", {"seat": seat, "from": old, "stones": n})]
    return []


def apply_temple(st, seat, mv, plan, rng):
    pay(st, seat, COST["temple"])
    st["players"][seat]["stones"] += 1
    n = st["players"][seat]["stones"]
    out = st["events"]
    out.append(ev(st, f"{cap(seat)} placed a Temple Stone ({n} in all).", "temple",
                  {"seat": seat, "stones": n}))
    out.extend(temple_events(st, seat))


def check_buy(st, seat, mv):
    guard_turn(st, seat, "buy")
    guard_rolled(st)
    if not sum(st["deck"]):
        raise IllegalMove("the development deck is empty", code="deck_empty")
    check_afford(st, seat, "buy")


def apply_buy(st, seat, mv, plan, rng):
    pay(st, seat, COST["buy"])
    deck = st["deck"]
    card = rng.draw(deck)
    deck[card] -= 1
    p = st["players"][seat]
    p["dev"][card] += 1
    p["new"][card] += 1
    title = DEV_TITLES[DEV[card]]
    st["events"].append(ev(st, f"{cap(seat)} bought a development card.", "buy",
                           {"seat": seat, "deck": sum(deck)},
                           {seat: f"You bought a development card: {title}."},
                           {seat: {"card": DEV[card]}}))
