"""Development: create, move and settle nomads, advance progress, end the turn.

Also the consequences: event chips behind condition boxes, Exploration and
Spread.  The first development move of a turn ends its trade phase (the
rulebook's order is roll, trade, develop).
"""

from .. import IllegalMove
from . import board
from .notation import TRACKS, bundle_text
from .rules import desert_options, free_chips
from .state import (ART, MAX_NOMADS, MAX_TRIBES, NOMAD_COST, TRACK_COSTS, TRACK_TITLES,
                    TRIBE_COST, can_cross, event, has, next_seat, occupied, pay, steps_per_meat)


def _need(state, seat, bundle, what):
    if not has(state["hands"][seat], bundle):
        raise IllegalMove(f"{what} costs {bundle_text(bundle)} and you hold "
                          f"{bundle_text(state['hands'][seat])}", code="cannot_afford")


def start_developing(state, ev):
    turn = state["turn"]
    if not turn["developing"]:
        turn["developing"] = True
        if turn["offer"]:
            turn["offer"] = None
            ev.append(event(f"{state['current']}'s offer is withdrawn: the trade phase is over"))


def nomad_spots(state, seat):
    """Free crossings next to ``seat``'s tribes over paths without a condition box."""
    occ = occupied(state)
    spots = set()
    for t in state["tribes"][seat]:
        for y in board.ADJ[t]:
            if y not in occ and frozenset((t, y)) not in board.BOX_AT:
                spots.add(y)
    return sorted(spots)


def _check_nomad(state, seat, move):
    x = move.args[0]
    if len(state["nomads"][seat]) >= MAX_NOMADS:
        raise IllegalMove("you already have both your nomads on the board", code="no_pieces")
    _need(state, seat, NOMAD_COST, "a nomad")
    if x in occupied(state):
        raise IllegalMove(f"crossing {x} is not free", code="occupied")
    if x not in nomad_spots(state, seat):
        raise IllegalMove(f"crossing {x} is not next to one of your tribes (a nomad is placed "
                          "next to a tribe, never across a condition box)", code="not_adjacent")


def _apply_nomad(state, seat, move, plan, rng, ev):
    start_developing(state, ev)
    pay(state, seat, NOMAD_COST)
    state["nomads"][seat].append(move.args[0])
    ev.append(event(f"{seat} creates a nomad on {move.args[0]}"))


def move_cost(state, seat, steps):
    """Meat needed for ``steps`` crossings, using steps already paid this turn."""
    per = steps_per_meat(state, seat)
    extra = max(0, steps - state["turn"]["steps"])
    return -(-extra // per)


def _check_move(state, seat, move):
    path = move.args[0]
    start, end = path[0], path[-1]
    if start not in state["nomads"][seat]:
        raise IllegalMove(f"you have no nomad on crossing {start}: a path starts where your "
                          "nomad stands", code="no_nomad")
    for a, b in zip(path, path[1:]):
        if b not in board.ADJ[a]:
            raise IllegalMove(f"no path goes from {a} to {b}: they are not neighbours",
                              code="not_adjacent")
        if not can_cross(state, seat, a, b):
            letter = board.BOX_AT[frozenset((a, b))]
            _, _, clo, con, _ = board.BOXES[letter]
            tr = state["tracks"][seat]
            raise IllegalMove(f"the path {a}-{b} has condition box {letter}, which needs "
                              f"Clothing {clo} and Construction {con}; you have Clothing "
                              f"{tr[3]} and Construction {tr[2]}", code="condition_box")
    if end != start and end in occupied(state):
        raise IllegalMove(f"a nomad must end its move on a free crossing, and {end} is taken",
                          code="occupied")
    meat = move_cost(state, seat, len(path) - 1)
    if meat > state["hands"][seat][0]:
        raise IllegalMove(f"{len(path) - 1} crossings cost {meat} meat (1 meat buys "
                          f"{steps_per_meat(state, seat)} crossings) and you hold "
                          f"{state['hands'][seat][0]} meat", code="cannot_afford")
    return meat


def _apply_move(state, seat, move, plan, rng, ev):
    start_developing(state, ev)
    path, meat = move.args[0], plan
    turn = state["turn"]
    pay(state, seat, (meat, 0, 0, 0))
    turn["steps"] += meat * steps_per_meat(state, seat) - (len(path) - 1)
    nomads = state["nomads"][seat]
    nomads[nomads.index(path[0])] = path[-1]
    paid = f", paying {meat} meat" if meat else ""
    ev.append(event(f"{seat} moves a nomad {'-'.join(map(str, path))}{paid}"))
    for a, b in zip(path, path[1:]):
        letter = board.BOX_AT.get(frozenset((a, b)))
        if letter and state["boxes"][letter] is None:
            _take_event_chip(state, seat, letter, rng, ev)


def chip_name(chip):
    kind, _, arg = chip.partition("-")
    if kind == "desert":
        return f"Desertification ({board.TERRAINS[arg]})"
    if kind == "adapt":
        return f"Adaptation ({board.PEOPLE_NAMES[arg]})"
    return "Disruption Figure"


def _take_event_chip(state, seat, letter, rng, ev):
    numeral = board.BOXES[letter][4]
    pool = state["pools"][numeral]
    chips = sorted(pool)
    chip = chips[rng.draw([pool[c] for c in chips])]
    pool[chip] -= 1
    if not pool[chip]:
        del pool[chip]
    state["boxes"][letter] = seat
    state["taken"][seat].append(chip)
    ev.append(event(f"{seat} is first across box {letter} and turns up its event chip: "
                    f"{chip_name(chip)}"))
    kind, _, arg = chip.partition("-")
    if kind == "adapt":
        state["adaptation"][arg] = seat
        ev.append(event(f"{seat} receives the {board.PEOPLE_NAMES[arg]} Adaptation card"))
    elif kind == "desert":
        if desert_options(state, arg):
            state["pending"].append({"kind": "desert", "terrain": arg})
        else:
            ev.append(event(f"no African {board.TERRAINS[arg]} is left uncovered: "
                            "the chip has no effect"))
    else:
        state["pending"].append({"kind": "figure", "figures": ["neanderthal", "predator"],
                                 "steal": "must", "why": "chip"})
    mine = len(state["taken"][seat])
    holder = state["exploration"]
    if mine >= 2 and holder != seat and (holder is None or mine > len(state["taken"][holder])):
        state["exploration"] = seat
        ev.append(event(f"{seat} takes the Exploration card" +
                        (f" from {holder}" if holder else "")))


def _check_tribe(state, seat, move):
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


def _apply_tribe(state, seat, move, plan, rng, ev):
    start_developing(state, ev)
    x, remove = move.args
    pay(state, seat, TRIBE_COST)
    if remove is not None:
        state["tribes"][seat].remove(remove)
        ev.append(event(f"{seat} removes the tribe on {remove}"))
    state["nomads"][seat].remove(x)
    state["tribes"][seat].append(x)
    people = state["chips"].pop(str(x))
    state["people"][seat][board.PEOPLES.index(people)] += 1
    ev.append(event(f"{seat} founds a tribe on {x} and takes a "
                    f"{board.PEOPLE_NAMES[people]} people chip"))
    if all(state["people"][seat]):
        if state["spread"] is None:
            state["spread"] = seat
            ev.append(event(f"{seat} is the first to own every people: the Spread card"))
        elif state["spread2"] is None and state["spread"] != seat:
            state["spread2"] = seat
            ev.append(event(f"{seat} is the second to own every people"))
            if free_chips(state):
                state["pending"].append({"kind": "take"})


def _check_develop(state, seat, move):
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


def _apply_develop(state, seat, move, plan, rng, ev):
    start_developing(state, ev)
    track = move.args[0]
    i = TRACKS.index(track)
    level = state["tracks"][seat][i]
    pay(state, seat, TRACK_COSTS[track][level])
    state["tracks"][seat][i] = level + 1
    ev.append(event(f"{seat} advances {TRACK_TITLES[track]} to step {level + 1}"))
    if level + 1 == 5:
        state["art"][track] = seat
        ev.append(event(f"{seat} is first to step 5 of {TRACK_TITLES[track]}: the Art card "
                        f"{ART[track]}"))
    if track == "hunting":
        state["pending"].append({"kind": "figure", "figures": ["neanderthal", "predator"],
                                 "steal": "none", "why": "hunting"})


def _check_end(state, seat, move):
    return None


def _apply_end(state, seat, move, plan, rng, ev):
    if state["turn"]["offer"]:
        ev.append(event(f"{seat}'s offer is withdrawn"))
    nxt = next_seat(state, seat)
    state["turn"] = {"developing": False, "steps": 0, "offer": None}
    state["current"], state["phase"] = nxt, "roll"
    ev.append(event(f"{seat} ends the turn; {nxt} to roll"))
