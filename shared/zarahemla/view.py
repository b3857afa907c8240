"""The per-viewer view: public board and counts, the viewer's own cards, never another's."""

from ..base import rules_version_of
from ..trade import open_offer, owed
from .board import EDGES, HEX_NAMES, POST_EDGES, RESOURCES
from .rules import owes, to_act
from .state import DEV, post_rates, public_vp, total_vp


def _offer_view(offer):
    if offer is None:
        return None
    answers = {}
    for s, a in offer["answers"].items():
        if isinstance(a, dict):
            answers[s] = {"counter": {"give": dict(zip(RESOURCES, a["give"])),
                                      "get": dict(zip(RESOURCES, a["get"]))}}
        else:
            answers[s] = a
    return {"from": offer["from"], "give": dict(zip(RESOURCES, offer["give"])),
            "get": dict(zip(RESOURCES, offer["get"])), "to": list(offer["to"]),
            "owed": list(owed(offer)), "answers": answers}


def make_view(game, st, seat):
    """A JSON dict for ``seat`` (None = spectator); see Game.view."""
    over = st["phase"] == "over"
    viewer = seat if seat in st["players"] else None
    players = {}
    for s in st["order"]:
        p = st["players"][s]
        players[s] = {
            "cards": sum(p["hand"]),
            "dev_cards": sum(p["dev"]),
            "warriors": p["warriors"],
            "temple_stones": p["stones"],
            "road_length": p["road_len"],
            "settlements": p["settlements"],
            "cities": p["cities"],
            "roads": p["roads"],
            "vp": public_vp(st, s),
            # the bank rate per resource: 4, 3 with a 3:1 post, 2 with that resource's post
            "rates": dict(zip(RESOURCES, post_rates(st, s))),
        }
        if over:
            players[s]["vp_cards"] = p["dev"][1]
            players[s]["vp"] = total_vp(st, s)
    hexes = [{"hex": HEX_NAMES[h], "terrain": st["terrain"][h], "number": st["numbers"][h],
              "marker": st["markers"][h]} for h in range(len(st["terrain"]))]
    buildings = {}
    for c, o in enumerate(st["owner"]):
        if o is not None:
            buildings[str(c + 1)] = [o, "city" if st["level"][c] == 2 else "settlement"]
    roads = {}
    for e, o in enumerate(st["roads"]):
        if o is not None:
            a, b = EDGES[e]
            roads[f"{a + 1}-{b + 1}"] = o
    posts = []
    for i, e in enumerate(POST_EDGES):
        a, b = EDGES[e]
        posts.append({"type": st["posts"][i], "corners": [a + 1, b + 1]})
    v = {
        "game": game.name,
        "status": "over" if over else "playing",
        "phase": st["phase"],
        "to_act": to_act(st),
        "owes": owes(st),
        "scores": {s: players[s]["vp"] for s in st["order"]},
        "you": viewer,
        "order": list(st["order"]),
        "turn": st["turn"] if st["phase"] == "play" or over else None,
        "vp_to_win": st["options"]["vp_to_win"],
        "board": {"hexes": hexes, "robber": HEX_NAMES[st["robber"]], "posts": posts,
                  "buildings": buildings, "roads": roads},
        "players": players,
        "bank": dict(zip(RESOURCES, st["bank"])),
        "deck": sum(st["deck"]),
        "longest_road": st["longest"],
        "largest_army": st["army"],
        "temple_contributor": st["temple"],
        "dice": list(st["dice"]) if st["dice"] else None,
        "last_roll": st.get("last_roll"),
        "rolled": st["rolled"],
        "liahona": bool(st["rolled"] and st["dice"] is None),
        "robber_due": st["robber_due"],
        "dev_played": st["dev_played"],
        "free_roads": st["free_roads"],
        "discard": dict(st["discard"]),
        "offer": _offer_view(open_offer(st)),
        "log": game.events_for(st["events"], seat),
        # the last move's facts as fields (kind + data), redacted for the viewer; in
        # version-1 games every kind is None and every data empty (RULES.md, "Facts")
        "facts": game.facts_for(st["events"], viewer),
        "rules_version": rules_version_of(st),
    }
    if st["phase"] == "setup":
        v["setup_next"] = list(st["setup"])
        v["setup_placed"] = st["placed"] + 1 if st["placed"] is not None else None
    if viewer is not None:
        p = st["players"][viewer]
        v["hand"] = dict(zip(RESOURCES, p["hand"]))
        v["dev"] = {DEV[i]: p["dev"][i] for i in range(len(DEV)) if p["dev"][i]}
        v["dev_new"] = {DEV[i]: p["new"][i] for i in range(len(DEV)) if p["new"][i]}
        v["your_vp"] = total_vp(st, viewer)
    if over:
        v["result"] = st["result"]
    return v
