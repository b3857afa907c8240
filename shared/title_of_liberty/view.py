"""The view of a state for one viewer.

Title of Liberty has no hand or face-down token: every army board, city and
battle is public.  The only secret is the seed (and so the future dice), which
no view contains.  The view is built fresh (no shared references into the
state), so a caller may change it freely.
"""

from ..base import rules_version_of
from ..events import texts_for
from .board import CITIES, FOOD_SPACES, SPACES
from .combat import advantage, battle_dice, dice_chart, lamanite_groups
from .notation import SECTORS
from .rules import MAX_SCOUTS, owes, scouts_held, to_act
from .state import (
    LAMANITE_POOL,
    army_total,
    captive_count,
    captive_counts,
    is_v1,
    lost_code,
    over_code,
    required_cities,
    total,
)


def _army_view(state, seat):
    army = state["armies"][seat]
    return {
        "at": army["at"], "alive": army["alive"], "fate": army["fate"],
        "lost": lost_code(army["fate"]),
        "live": dict(army["live"]), "wounded": dict(army["wounded"]),
        "dead": dict(army["dead"]), "unarmed": dict(army["unarmed"]),
        "captured": captive_count(state, seat), "total": total(army_total(state, seat)),
        "captured_by_kind": captive_counts(state, seat),
        "scouts_held": scouts_held(state, seat), "max_scouts": MAX_SCOUTS,
        "lamanite_captives": dict(army["captives"]),
        "food": army["food"], "weapons": army["weapons"], "gold": army["gold"],
        "flags": list(army["flags"]), "sectors": list(army["sectors"]),
    }


def _city_view(state, name):
    city = state["cities"][name]
    return {
        "liberated_by": city["liberated_by"], "attacks": city["attacks"],
        "sectors": {s: {"taken_by": sec["taken_by"], "tower": dict(sec["tower"]),
                        "gate": dict(sec["gate"])} for s, sec in city["sectors"].items()},
        "temple": {"lower": dict(city["temple"]["lower"]),
                   "upper": dict(city["temple"]["upper"]),
                   "cleared": city["temple"]["cleared"]},
        "gold": city["gold"], "weapons": city["weapons"], "food": city["food"],
        "stockade": {s: total(c) for s, c in sorted(city["stockade"].items()) if total(c)},
        "stockade_by_kind": {s: dict(c) for s, c in sorted(city["stockade"].items())
                             if total(c)},
        "temple_wounded": {lv: dict(c) for lv, c in city["temple_wounded"].items()},
        # version 2: items are placed from the box at the first attack; wine once a sector
        "stocked": city.get("stocked", True),
        "wine": list(city.get("wine", [])),
    }


def _battle_view(state):
    battle = state["battle"]
    if battle is None:
        return None
    wine = battle["wine"]
    if battle["kind"] == "city" and not is_v1(state):
        wine = state["cities"][battle["site"]]["wine"]
    out = {"site": battle["site"], "kind": battle["kind"], "zone": battle["zone"],
           "advantage": advantage(battle), "path": dict(battle["path"]),
           "leads": battle["leads"], "sector": battle["sector"], "wine": list(wine),
           "duels": battle["duels"],
           "targets": {p or "field": dict(g) for p, g in lamanite_groups(state).items()},
           # the dice each soldier throws now, the Advantage counted (the Dice Numbers Chart)
           "dice": battle_dice(state)}
    if "captives" in battle:  # version 3: led to a Stockade when the attack ends
        out["captives"] = {s: dict(c) for s, c in sorted(battle["captives"].items())
                           if total(c)}
    if "boat" in battle:  # version 3, a seashore battle: did the army come by the boat?
        out["boat"] = battle["boat"]
    if battle["kind"] != "city":
        field = state["fields"][battle["site"]]
        out["lamanites"] = dict(field["lamanites"])
        out["supplies"] = {k: field[k] for k in ("food", "weapons", "gold")}
    return out


def make_view(game, state, seat):
    """The public view, plus ``you`` for the viewer (every board is public)."""
    on_board = {}
    for name in CITIES:
        city = state["cities"][name]
        for sec in city["sectors"].values():
            for group in (sec["tower"], sec["gate"]):
                for t, n in group.items():
                    on_board[t] = on_board.get(t, 0) + n
        for level in ("lower", "upper"):
            for t, n in city["temple"][level].items():
                on_board[t] = on_board.get(t, 0) + n
    for field in state["fields"].values():
        for t, n in field["lamanites"].items():
            on_board[t] = on_board.get(t, 0) + n
    out = {
        "game": "title_of_liberty",
        "status": "over" if state["phase"] == "over" else "playing",
        "to_act": to_act(state), "owes": owes(state),
        "scores": {s: len(state["armies"][s]["flags"]) for s in state["seats"]},
        "you": seat if seat in state["armies"] else None,
        "log": texts_for(state["events"], seat),
        "seats": list(state["seats"]),
        "round": state["round"], "rounds": state["options"]["rounds"],
        "rounds_left": (state["options"]["rounds"] - state["round"]
                        + (0 if state["phase"] == "over" else 1)),
        "deadline_hours": state["options"].get("deadline_hours") or None,
        "short_game": (state["options"].get("short_game", False) if is_v1(state) else
                       state["required"] < required_cities({"cities": "all"},
                                                           len(state["seats"]), "2")),
        "rules_version": rules_version_of(state),
        "options": dict(state["options"]),
        "difficulty": state["options"].get("difficulty", "book"),
        # what the box still holds (money in gold, a silver = 5); None: piles never run out
        "box": dict(state["box"]) if "box" in state else None,
        "boat": state.get("boat"),
        "food_tokens": sorted(s for s in FOOD_SPACES if s not in state["empty_food"]
                              and s not in state.get("bare", ())),
        "required": state["required"], "turn": state["turn"], "phase": state["phase"],
        "armies": {s: _army_view(state, s) for s in state["seats"]},
        "cities": {c: _city_view(state, c) for c in CITIES},
        "fields": {s: {"zone": f["zone"], "lamanites": dict(f["lamanites"]),
                       "supplies": {k: f[k] for k in ("food", "weapons", "gold")}}
                   for s, f in sorted(state["fields"].items())},
        "empty_food": sorted(s for s in state["empty_food"] if s in SPACES),
        "battle": _battle_view(state),
        "king_killed": state["king_killed"],
        "lamanites": {"pool": dict(LAMANITE_POOL), "on_board": on_board,
                      "killed": dict(state["killed"]),
                      "captured": _captured_lamanites(state)},
        "sectors": list(SECTORS),
        # "Give each Nephite army ... a Dice Numbers Chart": the chart and who throws what
        "dice_chart": dice_chart(),
    }
    if state["phase"] == "over":
        out["result"] = {k: list(v) if isinstance(v, list) else v
                         for k, v in state["result"].items()}
        out["result"]["why"] = over_code(state["result"])
    return out


def _captured_lamanites(state):
    out = {}
    for army in state["armies"].values():
        for t, n in army["captives"].items():
            out[t] = out.get(t, 0) + n
    return out
