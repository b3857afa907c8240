"""Longest Road, Largest Army and Greatest Temple Contributor.

The road length of a player is the longest trail over their roads (no path
used twice, a corner may be passed twice) that never passes *through* a
corner holding another player's building (RULES.md item 8).
"""

from .board import CORNER_EDGES, EDGES

MIN_ROAD = 5
MIN_ARMY = 3
MIN_TEMPLE = 3


def road_length(state, seat):
    """The longest continuous road of ``seat`` (0 without roads)."""
    roads = state["roads"]
    owner = state["owner"]
    mine = [e for e, s in enumerate(roads) if s == seat]
    if not mine:
        return 0
    best = 0

    def walk(corner, used, length):
        # used: the paths of this trail so far, as a bitmask of path indexes
        nonlocal best
        if length > best:
            best = length
        o = owner[corner]
        if o is not None and o != seat and length:
            return      # cannot pass through an opponent's building
        for e, other in CORNER_PATHS[corner]:
            if roads[e] == seat and not used >> e & 1:
                walk(other, used | 1 << e, length + 1)

    starts = set()
    for e in mine:
        starts.update(EDGES[e])
    for c in starts:
        walk(c, 0, 0)
        if best == len(mine):
            break
    return best


#: corner -> ((path, the path's other corner), ...)
CORNER_PATHS = tuple(tuple((e, EDGES[e][1] if EDGES[e][0] == c else EDGES[e][0])
                           for e in CORNER_EDGES[c]) for c in range(len(CORNER_EDGES)))


def update_longest(state, seats=None):
    """Recompute road lengths of ``seats`` (default all) and move the Longest Road card.

    The holder keeps it while no one is strictly longer and it still has 5+;
    otherwise it goes to the single longest player with 5+, or back to the
    table when that is a tie or no one has 5 (RULES.md item 8).
    Returns (old holder, new holder).
    """
    players = state["players"]
    for s in seats if seats is not None else players:
        players[s]["road_len"] = road_length(state, s)
    holder = state["longest"]
    best = max(p["road_len"] for p in players.values())
    if holder is not None and players[holder]["road_len"] == best and best >= MIN_ROAD:
        new = holder
    else:
        tops = [s for s, p in players.items() if p["road_len"] == best]
        new = tops[0] if best >= MIN_ROAD and len(tops) == 1 else None
    state["longest"] = new
    return holder, new


def update_count_card(state, key, field, minimum, seat):
    """Largest Army / Greatest Temple: ``seat`` takes the card at ``minimum``+, from a holder
    only with a strictly larger count.  Returns True when the card moved."""
    players = state["players"]
    holder = state[key]
    n = players[seat][field]
    if holder == seat or n < minimum:
        return False
    if holder is None or n > players[holder][field]:
        state[key] = seat
        return True
    return False
