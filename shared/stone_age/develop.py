"""Development: create, move and settle nomads, advance progress, end the turn.

Also the consequences: event chips behind condition boxes, Exploration and
Spread.  The first development move of a turn ends its trade phase (the
rulebook's order is roll, trade, develop).
"""

from .. import IllegalMove
from ..events import add_event
from ..trade import close_offer, open_offer
from . import board
from .notation import TRACKS, bundle_text
from .state import (
    ART,
    MAX_NOMADS,
    MAX_TRIBES,
    NOMAD_COST,
    TRACK_COSTS,
    TRACK_TITLES,
    TRIBE_COST,
    can_cross,
    cards,
    desert_options,
    free_chips,
    fresh_turn,
    has,
    is_v1,
    next_seat,
    occupied,
    pay,
    steps_per_meat,
)


def _need(state, seat, bundle, what):
    if not has(state["hands"][seat], bundle):
        raise IllegalMove(f"{what} costs {bundle_text(bundle)} and you hold "
                          f"{bundle_text(state['hands'][seat])}", code="cannot_afford")


def start_developing(state):
    turn = state["turn"]
    if not turn["developing"]:
        turn["developing"] = True
        if open_offer(state):
            close_offer(state)
            add_event(state, f"{state['current']}'s offer is withdrawn: the trade phase "
                      "is over", kind="offer_withdrawn",
                      data={"seat": state["current"], "why": "trade_over"})


def nomad_spots(state, seat):
    """Free crossings next to ``seat``'s tribes over paths without a condition box."""
    occ = occupied(state)
    open_adj = board.map_of(state).open_adj
    return sorted({y for t in state["tribes"][seat] for y in open_adj[t] if y not in occ})


def check_nomad(state, seat, move):
    x = move.args[0]
    if len(state["nomads"][seat]) >= MAX_NOMADS:
        raise IllegalMove("you already have both your nomads on the board", code="no_pieces")
    _need(state, seat, NOMAD_COST, "a nomad")
    if x in occupied(state):
        raise IllegalMove(f"crossing {x} is not free", code="occupied")
    if x not in nomad_spots(state, seat):
        raise IllegalMove(f"crossing {x} is not next to one of your tribes (a nomad is placed "
                          "next to a tribe, never across a condition box)", code="not_adjacent")


def apply_nomad(state, seat, move, plan, rng):
    start_developing(state)
    pay(state, seat, NOMAD_COST)
    state["nomads"][seat].append(move.args[0])
    add_event(state, f"{seat} creates a nomad on {move.args[0]}", kind="nomad",
              data={"seat": seat, "crossing": move.args[0], "paid": cards(NOMAD_COST)})


def paid_steps(state, x):
    """Crossings already paid this turn that the nomad on ``x`` may still use.

    Version 1: the turn's one pool, shared by both nomads.  From version 2 on: only the
    crossings paid for this nomad (RULES.md note 4).
    """
    turn = state["turn"]
    if "paid" in turn:
        return turn["paid"].get(str(x), 0)
    return turn["steps"]


def move_cost(state, seat, start, steps):
    """Meat needed for ``steps`` crossings of the nomad on ``start``, using its paid ones."""
    per = steps_per_meat(state, seat)
    extra = max(0, steps - paid_steps(state, start))
    return -(-extra // per)


def check_move(state, seat, move):
    path = move.args[0]
    start, end = path[0], path[-1]
    if start not in state["nomads"][seat]:
        raise IllegalMove(f"you have no nomad on crossing {start}: a path starts where your "
                          "nomad stands", code="no_nomad")
    world = board.map_of(state)
    boxed = _boxed_steps(path, world)
    for a, b in zip(path, path[1:]) if boxed is None else boxed:
        if b not in board.ADJ[a]:
            raise IllegalMove(f"no path goes from {a} to {b}: they are not neighbours",
                              code="not_adjacent")
        if (a, b) in world.box_on and not can_cross(state, seat, a, b):
            letter = world.box_on[(a, b)]
            _, _, clo, con, _ = world.boxes[letter]
            tr = state["tracks"][seat]
            raise IllegalMove(f"the path {a}-{b} has condition box {letter}, which needs "
                              f"Clothing {clo} and Construction {con}; you have Clothing "
                              f"{tr[3]} and Construction {tr[2]}", code="condition_box")
    if end != start and any(end in state["tribes"][s] or end in state["nomads"][s]
                            for s in state["seats"]):       # occupied(state), one crossing
        raise IllegalMove(f"a nomad must end its move on a free crossing, and {end} is taken",
                          code="occupied")
    meat = move_cost(state, seat, start, len(path) - 1)
    if meat > state["hands"][seat][0]:
        raise IllegalMove(f"{len(path) - 1} crossings cost {meat} meat (1 meat buys "
                          f"{steps_per_meat(state, seat)} crossings) and you hold "
                          f"{state['hands'][seat][0]} meat", code="cannot_afford")
    return meat


def apply_move(state, seat, move, plan, rng):
    start_developing(state)
    path, meat = move.args[0], plan
    turn = state["turn"]
    pay(state, seat, (meat, 0, 0, 0))
    bought = meat * steps_per_meat(state, seat) - (len(path) - 1)
    if "paid" in turn:
        left = turn["paid"].pop(str(path[0]), 0) + bought
        if left:
            turn["paid"][str(path[-1])] = left
    else:
        left = turn["steps"] = turn["steps"] + bought
    nomads = state["nomads"][seat]
    nomads[nomads.index(path[0])] = path[-1]
    paid = f", paying {meat} meat" if meat else ""
    add_event(state, f"{seat} moves a nomad {'-'.join(map(str, path))}{paid}",
              kind="move", data={"seat": seat, "path": list(path), "meat": meat,
                                 "steps_left": left})
    world = board.map_of(state)
    for a, b in _boxed_steps(path, world):
        letter = world.box_on[(a, b)]
        if state["boxes"][letter] is None:
            _take_event_chip(state, seat, letter, rng)


def _boxed_steps(path, world):
    """The steps ``(a, b)`` of ``path`` over a condition box of ``world`` (a
    :class:`board.WorldMap`), in order; None when a step is not a path at all.  Remembered
    per map and path (a nomad's few hundred paths come back often)."""
    key = (world.version, path)
    steps = _BOXED.get(key)
    if steps is None and key not in _BOXED:
        pairs = list(zip(path, path[1:]))
        if all(b in board.ADJ[a] for a, b in pairs):
            steps = tuple(p for p in pairs if p in world.box_on)
        if len(_BOXED) < 20000:
            _BOXED[key] = steps
    return steps


_BOXED = {}


def chip_name(chip):
    kind, _, arg = chip.partition("-")
    if kind == "desert":
        return f"Desertification ({board.TERRAINS[arg]})"
    if kind == "adapt":
        return f"Adaptation ({board.PEOPLE_NAMES[arg]})"
    return "Disruption Figure"


def _take_event_chip(state, seat, letter, rng):
    numeral = board.map_of(state).boxes[letter][4]
    pool = state["pools"][numeral]
    chips = sorted(pool)
    chip = chips[rng.draw([pool[c] for c in chips])]
    pool[chip] -= 1
    if not pool[chip]:
        del pool[chip]
    state["boxes"][letter] = seat
    state["taken"][seat].append(chip)
    kind, _, arg = chip.partition("-")
    add_event(state, f"{seat} is first across box {letter} and turns up its event chip: "
              f"{chip_name(chip)}", kind="event_chip",
              data={"seat": seat, "box": letter, "numeral": numeral, "chip": chip,
                    "face": {"desert": "desertification", "adapt": "adaptation"}.get(
                        kind, "disruption"), "arg": arg or None})
    if kind == "adapt":
        state["adaptation"][arg] = seat
        add_event(state, f"{seat} receives the {board.PEOPLE_NAMES[arg]} Adaptation card",
                  kind="adaptation", data={"seat": seat, "people": arg})
    elif kind == "desert":
        if desert_options(state, arg):
            state["pending"].append({"kind": "desert", "terrain": arg})
        else:
            add_event(state, f"no African {board.TERRAINS[arg]} is left uncovered: "
                      "the chip has no effect", kind="desert_lapses",
                      data={"seat": seat, "terrain": arg})
    else:
        state["pending"].append({"kind": "figure", "figures": ["neanderthal", "predator"],
                                 "steal": "must", "why": "chip"})
    if is_v1(state):
        # version 1 counted a chip as soon as it was turned (RULES.md note 8)
        _award_exploration(state, seat, len(state["taken"][seat]))


def chips_carried_out(state, seat):
    """Event chips whose event ``seat`` has carried out (RULES.md note 8).

    "When a player has carried out the event of an event chip, they place it face down in
    front of themselves."  A chip whose desert or figure move is still owed does not count
    yet; only the player on turn can owe one.
    """
    n = len(state["taken"][seat])
    if seat == state["current"]:
        n -= sum(1 for p in state["pending"]
                 if p["kind"] == "desert" or p.get("why") == "chip")
    return n


def update_exploration(state):
    """After each move (version 2 on): the player on turn may now earn Exploration."""
    seat = state["current"]
    # it takes two chips carried out, so at least two taken
    if len(state["taken"][seat]) >= 2 and state["exploration"] != seat:
        _award_exploration(state, seat, chips_carried_out(state, seat))


def _award_exploration(state, seat, mine):
    holder = state["exploration"]
    if mine >= 2 and holder != seat and (holder is None or
                                         mine > chips_carried_out(state, holder)):
        state["exploration"] = seat
        add_event(state, f"{seat} takes the Exploration card" +
                  (f" from {holder}" if holder else ""), kind="exploration",
                  data={"seat": seat, "from": holder, "chips": mine})


def check_tribe(state, seat, move):
    x, remove = move.args
    if x not in state["nomads"][seat]:
        raise IllegalMove(f"you have no nomad on crossing {x}", code="no_nomad")
    if str(x) not in state["chips"]:
        raise IllegalMove(f"a tribe can only be founded on a people chip, and {x} has none",
                          code="no_chip")
    _need(state, seat, TRIBE_COST, "a tribe")
    tribes = state["tribes"][seat]
    if len(tribes) < MAX_TRIBES:
        if remove is not None:
            raise IllegalMove("you still have a tribe in your supply: nothing to remove",
                              code="no_remove")
        return
    african = [t for t in tribes if t in board.AFRICA_CROSSINGS]
    allowed = african or tribes
    if remove is None:
        raise IllegalMove("all 5 of your tribes are on the board: say which to remove, e.g. "
                          f"tribe {x} remove {allowed[0]}", code="must_remove")
    if remove not in tribes:
        raise IllegalMove(f"you have no tribe on crossing {remove}", code="bad_remove")
    if remove not in allowed:
        raise IllegalMove(f"you still have tribes in Africa ({', '.join(map(str, african))}): "
                          "remove one of those", code="must_remove_africa")


def apply_tribe(state, seat, move, plan, rng):
    start_developing(state)
    x, remove = move.args
    pay(state, seat, TRIBE_COST)
    if remove is not None:
        state["tribes"][seat].remove(remove)
        add_event(state, f"{seat} removes the tribe on {remove}", kind="remove_tribe",
                  data={"seat": seat, "crossing": remove})
    state["nomads"][seat].remove(x)
    if "paid" in state["turn"]:
        state["turn"]["paid"].pop(str(x), None)   # the nomad is gone, and its paid crossings
    state["tribes"][seat].append(x)
    people = state["chips"].pop(str(x))
    state["people"][seat][board.PEOPLES.index(people)] += 1
    add_event(state, f"{seat} founds a tribe on {x} and takes a "
              f"{board.PEOPLE_NAMES[people]} people chip", kind="tribe",
              data={"seat": seat, "crossing": x, "people": people,
                    "paid": cards(TRIBE_COST)})
    if all(state["people"][seat]):
        if state["spread"] is None:
            state["spread"] = seat
            add_event(state, f"{seat} is the first to own every people: the Spread card",
                      kind="spread", data={"seat": seat})
        elif state["spread2"] is None and state["spread"] != seat:
            state["spread2"] = seat
            add_event(state, f"{seat} is the second to own every people",
                      kind="spread_second", data={"seat": seat})
            if free_chips(state):
                # version 1 forced the take; the book: "they may take" (RULES.md note 10)
                state["pending"].append({"kind": "take"} if is_v1(state) else
                                        {"kind": "take", "optional": True})


def check_develop(state, seat, move):
    track = move.args[0]
    i = TRACKS.index(track)
    level = state["tracks"][seat][i]
    title = TRACK_TITLES[track]
    if level >= 5:
        raise IllegalMove(f"your {title} is already at its top step", code="track_full")
    if level == 4 and state["art"][track] is not None:
        raise IllegalMove(f"{state['art'][track]} already reached step 5 of {title}: it is "
                          "unique", code="step_taken")
    _need(state, seat, TRACK_COSTS[track][level], f"step {level + 1} of {title}")


def apply_develop(state, seat, move, plan, rng):
    start_developing(state)
    track = move.args[0]
    i = TRACKS.index(track)
    level = state["tracks"][seat][i]
    pay(state, seat, TRACK_COSTS[track][level])
    state["tracks"][seat][i] = level + 1
    add_event(state, f"{seat} advances {TRACK_TITLES[track]} to step {level + 1}",
              kind="develop", data={"seat": seat, "track": track, "step": level + 1,
                                    "paid": cards(TRACK_COSTS[track][level])})
    if level + 1 == 5:
        state["art"][track] = seat
        add_event(state, f"{seat} is first to step 5 of {TRACK_TITLES[track]}: the Art "
                  f"card {ART[track]}", kind="art",
                  data={"seat": seat, "track": track, "card": ART[track]})
    if track == "hunting":
        state["pending"].append({"kind": "figure", "figures": ["neanderthal", "predator"],
                                 "steal": "none", "why": "hunting"})


def check_end(state, seat, move):
    return None


def apply_end(state, seat, move, plan, rng):
    if open_offer(state):
        add_event(state, f"{seat}'s offer is withdrawn", kind="offer_withdrawn",
                  data={"seat": seat, "why": "end"})
        close_offer(state)
    nxt = next_seat(state, seat)
    state["turn"] = fresh_turn(state)
    state["current"], state["phase"] = nxt, "roll"
    add_event(state, f"{seat} ends the turn; {nxt} to roll", kind="end",
              data={"seat": seat, "next": nxt})
