"""The per-viewer view: everything public, plus the viewer's own hand.

Never contains the seed or another seat's cards (only their counts).
"""

from ..base import rules_version_of
from ..events import texts_for
from ..trade import open_offer, owes_answer
from . import board
from .develop import chip_name, chips_carried_out
from .notation import RES, TRACKS
from .rules import owes, pending_text
from .state import points


def _duty(p):
    """A pending duty as fields: what the player on turn owes before anything else."""
    out = {"kind": p["kind"]}
    if p["kind"] == "figure":
        out.update(figures=list(p["figures"]), steal=p["steal"], why=p["why"])
    elif p["kind"] == "desert":
        out["terrain"] = p["terrain"]
    else:
        out["optional"] = bool(p.get("optional"))
    return out


def make_view(game, state, seat):
    """The view of ``state`` for ``seat`` (None: a spectator; ``Game.view``)."""
    seats = state["seats"]
    to_act = game.to_act(state)
    over = state["phase"] == "over"
    offer = open_offer(state)
    paid = state["turn"].get("paid")
    v = {
        "game": "stone_age",
        "status": "over" if over else "playing",
        "phase": state["phase"],
        "ply": state["ply"],
        "options": dict(state["options"]),
        "seats": list(seats),
        "you": seat if seat in seats else None,
        "log": texts_for(state["events"], seat),
        "current": state["current"],
        "to_act": list(to_act),
        "owes": owes(state, to_act),
        "scores": {s: points(state, s) for s in seats},
        "dice": list(state["dice"]) if state["dice"] else None,
        "hand_counts": {s: sum(state["hands"][s]) for s in seats},
        "supply": dict(zip(RES, state["supply"])),
        "tribes": {s: sorted(state["tribes"][s]) for s in seats},
        "nomads": {s: sorted(state["nomads"][s]) for s in seats},
        "chips": {k: v for k, v in state["chips"].items()},
        "people": {s: dict(zip(board.PEOPLES, state["people"][s])) for s in seats},
        "tracks": {s: dict(zip(TRACKS, state["tracks"][s])) for s in seats},
        "art": dict(state["art"]),
        "boxes": dict(state["boxes"]),
        "event_chips": {s: [chip_name(c) for c in state["taken"][s]] for s in seats},
        "event_chip_ids": {s: list(state["taken"][s]) for s in seats},
        "chips_carried_out": {s: chips_carried_out(state, s) for s in seats},
        "chips_left": {k: sum(p.values()) for k, p in state["pools"].items()},
        "deserts": list(state["deserts"]),
        "deserts_left": board.DESERTS - len(state["deserts"]),
        "figures": dict(state["figures"]),
        "adaptation": dict(state["adaptation"]),
        "exploration": state["exploration"],
        "spread": state["spread"],
        "spread2": state["spread2"],
        "discards": dict(state["discards"]),
        "pending": [pending_text(p) for p in state["pending"]],
        "duties": [_duty(p) for p in state["pending"]],
        "developing": state["turn"]["developing"],
        "steps_left": sum(paid.values()) if paid is not None else state["turn"]["steps"],
        "paid_steps": dict(paid) if paid is not None else None,
        "rules_version": rules_version_of(state),
        "offer": None,
        "place_order": list(state["place_order"]),
    }
    if offer:
        v["offer"] = {"from": offer["from"], "give": dict(zip(RES, offer["give"])),
                      "get": dict(zip(RES, offer["get"])), "to": list(offer["to"]),
                      "answers": {s: (a if isinstance(a, str) else
                                      {"give": dict(zip(RES, a["give"])),
                                       "get": dict(zip(RES, a["get"]))})
                                  for s, a in offer["answers"].items()},
                      "waiting": [s for s in seats if owes_answer(state, s)]}
    if seat in seats:
        v["hand"] = dict(zip(RES, state["hands"][seat]))
    if over:
        v["result"] = state["result"]
    return v
