"""Helpers for the Zarahemla tests: games on the beginner board and direct set-ups."""

import json

from shared.rng import Rng
from shared.zarahemla import GAME
from shared.zarahemla.board import (
    CORNER_HEXES,
    EDGE_INDEX,
    EDGES,
    HEX_CORNERS,
    HEX_NAMES,
    RESOURCES,
)
from shared.zarahemla.roads import update_longest

SEATS4 = ["red", "blue", "white", "orange"]


def new(n=4, board="beginner", seed=b"seed", rules_version=None, **options):
    options["board"] = board
    return GAME.new_game(SEATS4[:n], options, seed, rules_version=rules_version)


def play(st, seat, text, entropy=b""):
    return GAME.play(st, seat, text, entropy)


def hex_corners(letter):
    """Corner names (1-based) of hex ``letter``, clockwise from the top."""
    return [c + 1 for c in HEX_CORNERS[HEX_NAMES.index(letter)]]


def hexes_of(corner):
    return "".join(HEX_NAMES[h] for h in CORNER_HEXES[corner - 1])


def edge(a, b):
    return EDGE_INDEX[(min(a, b) - 1, max(a, b) - 1)]


def edge_corners(e):
    a, b = EDGES[e]
    return a + 1, b + 1


def bundle(**kw):
    return [kw.get(r, 0) for r in RESOURCES]


def set_hand(st, seat, **kw):
    """Give ``seat`` exactly this hand, moving cards to/from the bank (conserved)."""
    hand = st["players"][seat]["hand"]
    for i, r in enumerate(RESOURCES):
        want = kw.get(r, 0)
        st["bank"][i] -= want - hand[i]
        hand[i] = want
        assert st["bank"][i] >= 0


def give_dev(st, seat, card, n=1, new_this_turn=False):
    from shared.zarahemla.state import DEV
    i = DEV.index(card)
    st["deck"][i] -= n
    st["players"][seat]["dev"][i] += n
    if new_this_turn:
        st["players"][seat]["new"][i] += n


def put_building(st, seat, corner, city=False):
    c = corner - 1
    p = st["players"][seat]
    if st["owner"][c] == seat and st["level"][c] == 1:
        p["settlements"] -= 1
    st["owner"][c] = seat
    st["level"][c] = 2 if city else 1
    p["cities" if city else "settlements"] += 1


def put_road(st, seat, a, b):
    st["roads"][edge(a, b)] = seat
    st["players"][seat]["roads"] += 1


def put_path(st, seat, corners):
    """Roads along consecutive corners of ``corners``."""
    for a, b in zip(corners, corners[1:]):
        put_road(st, seat, a, b)
    update_longest(st)


def empty_play_state(n=4, seed=b"seed", rolled=True, **options):
    """A state in the play phase with an empty board, ``red`` to act (already rolled)."""
    st = new(n, seed=seed, **options)
    st["phase"] = "play"
    st["setup"] = []
    st["order"] = SEATS4[:n]
    st["turn"] = "red"
    st["rolled"] = rolled
    st["events"] = []
    return st


def total_cards(st):
    return sum(st["bank"]) + sum(sum(p["hand"]) for p in st["players"].values())


def finish_setup(st, pick=0):
    """Play the set-up and start choices with the ``pick``-th legal move each time."""
    while st["phase"] in ("setup", "start"):
        seat = GAME.to_act(st)[0]
        moves = GAME.legal_moves(st, seat)
        st = play(st, seat, moves[min(pick, len(moves) - 1)])
    return st


def random_game(seed, n=4, cap=3000, board="variable", each=None, **options):
    """Play random legal moves; call ``each(state, seat, move)`` after every move."""
    options["board"] = board
    st = GAME.new_game(SEATS4[:n], options, b"rg%d" % seed)
    rng = Rng(b"driver", b"%d" % seed)
    moves = 0
    while st["phase"] != "over" and moves < cap:
        seat = rng.choice(GAME.to_act(st))
        legal = GAME.legal_moves(st, seat)
        mv = rng.choice(legal)
        st = GAME.play(st, seat, mv, b"chain%d" % moves)
        moves += 1
        if each is not None:
            each(st, seat, mv)
    return st, moves


def snapshot(st):
    return json.loads(json.dumps(st))


def clone(st):
    return json.loads(json.dumps(st))
