"""Determinization: a full state sampled from what one seat may see.

A search bot must not read the real state, but the rules library plays on states.  So a
bot rebuilds a state from its seat's *view*: everything public is copied, everything
hidden is sampled with the bot's own seeded generator, consistently with the view:

* other seats' hands: the resource cards that are neither in the bank nor in the
  viewer's hand, dealt to the others by their public card counts;
* development cards (Zarahemla): the deck's composition minus what the viewer holds and
  the Stripling Warriors everyone has played, shared between the deck and the other
  seats' unplayed cards by their public counts;
* event chips (Stone Age): each pool's remaining chips drawn from the pool's make-up
  minus the chips known to be out, to the pool's public count;
* the seed: fresh random bytes, so the dice and draws of the sampled world are unknown.

A sampled world is a plausible present, not the truth: two states that differ only in
another seat's hidden cards have the same view and so give the same worlds for the same
generator (``tests/shared/bots/test_bots_fair.py``).
"""

from ..base import set_rules_version


def _seed(rng):
    return "%064x" % rng.getrandbits(256)


def _deal(rng, pool, counts):
    """Shuffle the multiset ``pool`` ({index: n}) and deal ``counts`` ({seat: n}) from it.

    Returns {seat: [n per index]}; when the pool is short, a seat gets what is left.
    """
    cards = [i for i, n in sorted(pool.items()) for _ in range(max(0, n))]
    rng.shuffle(cards)
    width = (max(pool) + 1) if pool else 0
    out = {}
    pos = 0
    for seat, n in counts:
        hand = [0] * width
        for i in cards[pos:pos + n]:
            hand[i] += 1
        pos += n
        out[seat] = hand
    return out, cards[pos:]


# --- Zarahemla ---------------------------------------------------------------------------

def zarahemla_world(view, seat, rng):
    """A Zarahemla state consistent with ``view`` (the view of ``seat``)."""
    from ..zarahemla.board import EDGE_BY_NAME, HEX_NAMES, N_CORNERS, N_EDGES, RESOURCES
    from ..zarahemla.state import BANK_PER_RESOURCE, DECK, DEV

    order = list(view["order"])
    hexes = view["board"]["hexes"]
    owner = [None] * N_CORNERS
    level = [0] * N_CORNERS
    for name, (who, kind) in view["board"]["buildings"].items():
        owner[int(name) - 1] = who
        level[int(name) - 1] = 2 if kind == "city" else 1
    roads = [None] * N_EDGES
    for name, who in view["board"]["roads"].items():
        roads[EDGE_BY_NAME[name]] = who
    bank = [view["bank"][r] for r in RESOURCES]
    mine = [view.get("hand", {}).get(r, 0) for r in RESOURCES]
    others = [s for s in order if s != seat]
    # resources: what neither the bank nor the viewer holds is in the others' hands
    unseen = {i: BANK_PER_RESOURCE - bank[i] - (mine[i] if seat in order else 0)
              for i in range(5)}
    hands, _ = _deal(rng, unseen, [(s, view["players"][s]["cards"]) for s in others])
    # development cards: the deck minus the viewer's cards and every played warrior
    my_dev = [view.get("dev", {}).get(name, 0) for name in DEV]
    my_new = [view.get("dev_new", {}).get(name, 0) for name in DEV]
    left = list(DECK)
    for i in range(7):
        left[i] -= my_dev[i] if seat in order else 0
    left[0] -= sum(view["players"][s]["warriors"] for s in order)
    pool = {i: n for i, n in enumerate(left) if n > 0}
    if not pool:
        pool = {0: 0}
    devs, rest = _deal(rng, pool, [(s, view["players"][s]["dev_cards"]) for s in others])
    deck = [0] * 7
    # the deck gets its public size from what is left; the rest were played unseen
    rest = rest[:view["deck"]]
    for i in rest:
        deck[i] += 1
    while sum(deck) < view["deck"]:      # an inconsistent count: never leave the deck short
        deck[1] += 1
    players = {}
    for s in order:
        pv = view["players"][s]
        if s == seat:
            hand, dev, new = list(mine), list(my_dev), list(my_new)
        else:
            hand = (hands[s] + [0] * 5)[:5]
            dev = (devs[s] + [0] * 7)[:7]
            new = [0] * 7
        players[s] = {"hand": hand, "dev": dev, "new": new, "warriors": pv["warriors"],
                      "stones": pv["temple_stones"], "settlements": pv["settlements"],
                      "cities": pv["cities"], "roads": pv["roads"],
                      "road_len": pv["road_length"]}
    offer = None
    if view["offer"] is not None:
        o = view["offer"]
        answers = {}
        for s, a in o["answers"].items():
            if isinstance(a, dict):
                c = a["counter"]
                answers[s] = {"give": [c["give"][r] for r in RESOURCES],
                              "get": [c["get"][r] for r in RESOURCES]}
            else:
                answers[s] = a
        offer = {"from": o["from"], "give": [o["give"][r] for r in RESOURCES],
                 "get": [o["get"][r] for r in RESOURCES], "to": list(o["to"]),
                 "owed": list(o["owed"]), "answers": answers}
    phase = view["phase"]
    state = {
        "seed": _seed(rng),
        "ply": 0,
        "events": [],
        "seats": list(order),
        "order": order,
        "options": {"vp_to_win": view["vp_to_win"], "board": "variable"},
        "terrain": [h["terrain"] for h in hexes],
        "numbers": [h["number"] for h in hexes],
        "markers": [h["marker"] for h in hexes],
        "posts": [p["type"] for p in view["board"]["posts"]],
        "robber": HEX_NAMES.index(view["board"]["robber"]),
        "owner": owner,
        "level": level,
        "roads": roads,
        "bank": bank,
        "deck": deck,
        "players": players,
        "longest": view["longest_road"],
        "army": view["largest_army"],
        "temple": view["temple_contributor"],
        "phase": phase,
        "setup": list(view.get("setup_next", [])),
        "placed": (view["setup_placed"] - 1 if view.get("setup_placed") else None),
        "start_owed": list(view["to_act"]) if phase == "start" else [],
        "turn": view["turn"] or order[0],
        "rolled": view["rolled"],
        "dev_played": view["dev_played"],
        "dice": list(view["dice"]) if view["dice"] else None,
        "last_roll": view.get("last_roll"),
        "discard": dict(view["discard"]),
        "robber_due": view["robber_due"],
        "free_roads": view["free_roads"],
        "offer": offer,
        "result": view.get("result"),
    }
    set_rules_version(state, view.get("rules_version", "1"))
    return state


# --- Stone Age ---------------------------------------------------------------------------

def stone_age_world(view, seat, rng):
    """A Stone Age state consistent with ``view`` (the view of ``seat``)."""
    from ..stone_age import board
    from ..stone_age.notation import RES, TRACKS
    from ..stone_age.state import CARDS_PER_KIND

    seats = list(view["seats"])
    supply = [view["supply"][r] for r in RES]
    mine = [view.get("hand", {}).get(r, 0) for r in RES]
    others = [s for s in seats if s != seat]
    unseen = {i: CARDS_PER_KIND - supply[i] - (mine[i] if seat in seats else 0)
              for i in range(4)}
    dealt, _ = _deal(rng, unseen, [(s, view["hand_counts"][s]) for s in others])
    hands = {s: (list(mine) if s == seat else (dealt[s] + [0] * 4)[:4]) for s in seats}
    # event chips: each pool's make-up, less the chips known to be out (taken by someone)
    out = {}
    for chips in view["event_chip_ids"].values():
        for chip in chips:
            out[chip] = out.get(chip, 0) + 1
    pools = {}
    for numeral, make_up in sorted(board.CHIP_POOLS.items()):
        want = view["chips_left"].get(numeral, 0)
        bag = []
        for chip, n in sorted(make_up.items()):
            bag.extend([chip] * n)
        rng.shuffle(bag)
        # prefer chips that are not known to be out; the pool's count is what is public
        keep = []
        spare = []
        for chip in bag:
            if out.get(chip, 0) > 0:
                out[chip] -= 1
                spare.append(chip)
            else:
                keep.append(chip)
        chosen = (keep + spare)[:want]
        pool = {}
        for chip in chosen:
            pool[chip] = pool.get(chip, 0) + 1
        pools[numeral] = pool
    pending = []
    for d in view.get("duties", []):
        p = {"kind": d["kind"]}
        if d["kind"] == "figure":
            p.update(figures=list(d["figures"]), steal=d["steal"], why=d["why"])
        elif d["kind"] == "desert":
            p["terrain"] = d["terrain"]
        elif d.get("optional"):
            p["optional"] = True
        pending.append(p)
    version = view.get("rules_version", "1")
    offer = None
    if view["offer"] is not None:
        o = view["offer"]
        answers = {}
        for s, a in o["answers"].items():
            answers[s] = a if isinstance(a, str) else {
                "give": [a["give"][r] for r in RES], "get": [a["get"][r] for r in RES]}
        offer = {"from": o["from"], "give": [o["give"][r] for r in RES],
                 "get": [o["get"][r] for r in RES], "to": list(o["to"])}
        if version not in ("1", "2"):       # shared.trade's shape (RULES.md, version 3)
            offer["owed"] = [s for s in o["to"] if s in o["waiting"]]
        offer["answers"] = answers
    if version == "1":
        turn = {"developing": view["developing"], "steps": view["steps_left"], "offer": offer}
    elif version == "2":
        turn = {"developing": view["developing"], "paid": dict(view["paid_steps"] or {}),
                "offer": offer}
    else:
        turn = {"developing": view["developing"], "paid": dict(view["paid_steps"] or {})}
    place_order = list(view["place_order"])
    state = {
        "seed": _seed(rng), "ply": view["ply"], "events": [], "seats": seats,
        "options": dict(view["options"]), "phase": view["phase"],
        "current": view["current"],
        # who starts a round is not in the view once the placing is over: the bot's world
        # keeps the round's opener as the first seat (it only matters past the round's end)
        "first": (place_order[0] if place_order and version in ("1", "2", "3")
                  else seats[0]),           # from version 4 the first seat takes turn one
        "place_order": place_order,
        "hands": hands, "supply": supply,
        "tribes": {s: list(view["tribes"][s]) for s in seats},
        "nomads": {s: list(view["nomads"][s]) for s in seats},
        "chips": dict(view["chips"]),
        "people": {s: [view["people"][s][p] for p in board.PEOPLES] for s in seats},
        "tracks": {s: [view["tracks"][s][t] for t in TRACKS] for s in seats},
        "art": dict(view["art"]), "boxes": dict(view["boxes"]), "pools": pools,
        "taken": {s: list(view["event_chip_ids"][s]) for s in seats},
        "deserts": list(view["deserts"]), "figures": dict(view["figures"]),
        "adaptation": dict(view["adaptation"]), "exploration": view["exploration"],
        "spread": view["spread"], "spread2": view["spread2"],
        "dice": list(view["dice"]) if view["dice"] else None,
        "discards": dict(view["discards"]), "pending": pending, "turn": turn,
        "result": view.get("result"),
    }
    if version not in ("1", "2"):
        state["offer"] = offer
    set_rules_version(state, version)
    return state


# --- Title of Liberty ----------------------------------------------------------------------

def title_of_liberty_world(view, seat, rng):
    """A Title of Liberty state rebuilt from ``view``: every board is public, so only the
    seed (the future dice) is sampled.  Two facts the view gives in another shape: an
    army's soldiers bought (what it accounts for, less its starting troops) and who took a
    village's food (the army standing there, the first in seat order)."""
    from ..title_of_liberty.state import ARMY_TROOPS
    version = view.get("rules_version") or "1"
    v1 = version == "1"
    seats = list(view["seats"])
    armies = {}
    for s in seats:
        a = view["armies"][s]
        accounted = {t: a["live"].get(t, 0) + a["wounded"].get(t, 0) + a["dead"].get(t, 0)
                     + a["unarmed"].get(t, 0) + a["captured_by_kind"].get(t, 0)
                     for t in a["live"]}
        armies[s] = {"at": a["at"], "alive": a["alive"], "fate": a["fate"],
                     "live": dict(a["live"]), "wounded": dict(a["wounded"]),
                     "dead": dict(a["dead"]), "unarmed": dict(a["unarmed"]),
                     "bought": {t: n - ARMY_TROOPS.get(t, 0) for t, n in accounted.items()},
                     "captives": dict(a["lamanite_captives"]),
                     "food": a["food"], "weapons": a["weapons"], "gold": a["gold"],
                     "flags": list(a["flags"]), "sectors": list(a["sectors"])}
    cities = {}
    for name, c in view["cities"].items():
        city = {"sectors": {k: {"tower": dict(x["tower"]), "gate": dict(x["gate"]),
                                "taken_by": x["taken_by"]} for k, x in c["sectors"].items()},
                "temple": {"lower": dict(c["temple"]["lower"]),
                           "upper": dict(c["temple"]["upper"]),
                           "cleared": c["temple"]["cleared"]},
                "temple_wounded": {lv: dict(x) for lv, x in c["temple_wounded"].items()},
                "gold": c["gold"], "weapons": c["weapons"], "food": c["food"],
                "stockade": {k: dict(x) for k, x in c["stockade_by_kind"].items()},
                "liberated_by": c["liberated_by"], "attacks": c["attacks"]}
        if not v1:
            city.update({"stocked": c["stocked"], "wine": list(c["wine"])})
        cities[name] = city
    fields = {space: {"zone": f["zone"], "lamanites": dict(f["lamanites"]), **f["supplies"]}
              for space, f in view["fields"].items()}
    empty = {}
    for space in view["empty_food"]:
        empty[space] = next((s for s in seats if view["armies"][s]["at"] == space), None)
    battle = None
    b = view["battle"]
    if b is not None:
        battle = {"site": b["site"], "kind": b["kind"], "zone": b["zone"],
                  "path": dict(b["path"]), "leads": b["leads"], "sector": b["sector"],
                  "wine": [] if (b["kind"] == "city" and not v1) else list(b["wine"]),
                  "duels": b["duels"]}
        # rules version 3: the captives led off in this attack, and whether it came by boat
        if "captives" in b:
            battle["captives"] = {k: dict(x) for k, x in b["captives"].items()}
        elif version not in ("1", "2"):
            battle["captives"] = {}
        if "boat" in b:
            battle["boat"] = b["boat"]
    turn = view["turn"]
    state = {
        "game": "title_of_liberty", "seed": _seed(rng), "ply": 0, "events": [],
        "options": dict(view["options"]), "seats": seats,
        "round": view["round"], "turn": turn, "phase": view["phase"],
        "givers": [s for s in seats if s in view["owes"] and s != turn],
        "armies": armies, "cities": cities, "fields": fields, "empty_food": empty,
        "battle": battle, "king_killed": view["king_killed"], "required": view["required"],
        "killed": dict(view["lamanites"]["killed"]),
        "result": dict(view["result"]) if view.get("result") else None,
    }
    set_rules_version(state, version)
    if not v1:
        from ..title_of_liberty.board import FOOD_SPACES
        state["box"] = dict(view["box"])
        state["boat"] = view["boat"]
        state["bare"] = sorted(x for x in FOOD_SPACES if x not in view["food_tokens"]
                               and x not in empty)
    return state


WORLDS = {"zarahemla": zarahemla_world, "stone_age": stone_age_world,
          "title_of_liberty": title_of_liberty_world}


def sample_world(game, view, seat, rng):
    """A state of ``game`` consistent with ``seat``'s ``view`` (hidden parts sampled)."""
    return WORLDS[game.name](view, seat, rng)


__all__ = ["sample_world", "zarahemla_world", "stone_age_world", "title_of_liberty_world"]
