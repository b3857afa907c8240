"""Helpers for the Stone Age tests: fresh states and a few set-ups."""

import copy
import json

import pytest

from shared import IllegalMove
from shared.rng import Rng
from shared.stone_age import GAME
from shared.stone_age.state import points

SEATS4 = ["red", "blue", "white", "orange"]


def new(n=4, setup="fixed", seed=b"test-seed", version=None):
    """A fresh state (rules ``version``; None: the current one)."""
    return GAME.new_game(GAME.seat_names(n), {"setup": setup}, seed, rules_version=version)


def main_phase(n=4, seed=b"test-seed", version=None):
    """A 4-player state in red's main phase with empty hands and no dice rolled."""
    st = new(n, seed=seed, version=version)
    st["phase"] = "main"
    for s in st["seats"]:
        st["hands"][s] = [0, 0, 0, 0]
    st["supply"] = [20, 20, 20, 20]
    return st


def give(st, seat, meat=0, bone=0, flint=0, hide=0):
    """Move cards from the supply to ``seat``'s hand (keeps cards conserved)."""
    for i, n in enumerate((meat, bone, flint, hide)):
        st["supply"][i] -= n
        st["hands"][seat][i] += n


def play(st, seat, text, entropy=b""):
    return GAME.play(st, seat, text, entropy)


def refused(st, seat, text, code=None):
    """Assert the move is refused (with ``code``) and the state is unchanged."""
    before = copy.deepcopy(st)
    with pytest.raises(IllegalMove) as exc:
        GAME.check(st, seat, text)
    assert st == before
    with pytest.raises(IllegalMove) as exc2:
        GAME.play(st, seat, text)
    assert st == before
    assert exc.value.code == exc2.value.code
    if code:
        assert exc.value.code == code, exc.value.message
    return exc.value


def cards_conserved(st):
    """20 cards of each kind between the supply and the hands; none negative."""
    hands = st["hands"].values()
    assert [sum(col) for col in zip(st["supply"], *hands)] == [20, 20, 20, 20]
    assert min(st["supply"]) >= 0 and min(min(h) for h in hands) >= 0


def pieces_conserved(st):
    n = len(st["seats"])
    placed = len(st["chips"]) + sum(sum(p) for p in st["people"].values())
    assert placed == (32 if n == 4 else 20)
    taken = sum(len(t) for t in st["taken"].values())
    assert taken == sum(1 for v in st["boxes"].values() if v)
    assert taken + sum(sum(p.values()) for p in st["pools"].values()) == 18
    assert len(st["deserts"]) <= 10 and len(set(st["deserts"])) == len(st["deserts"])
    for s in st["seats"]:
        assert len(st["tribes"][s]) <= 5 and len(st["nomads"][s]) <= 2
    spots = [x for s in st["seats"] for x in st["tribes"][s] + st["nomads"][s]]
    assert len(spots) == len(set(spots))


def random_game(seed, n=4, setup="fixed", cap=3000, each=None, version=None):
    """Play random legal moves; call ``each(state, seat, move)`` after every move."""
    st = GAME.new_game(GAME.seat_names(n), {"setup": setup}, seed, rules_version=version)
    rng = Rng(b"random-players", seed)
    moves = 0
    while moves < cap:
        to_act = GAME.to_act(st)
        if not to_act:
            break
        seat = rng.choice(to_act)
        legal = GAME.legal_moves(st, seat)
        assert legal, f"{seat} is in to_act with no legal move"
        move = rng.choice(legal)
        GAME.play(st, seat, move, b"entropy|%d" % moves)
        moves += 1
        if each:
            each(st, seat, move)
    return st, moves


def roundtrip(st):
    assert json.loads(json.dumps(st)) == st


__all__ = ["roll_to", "entropy_where", "GAME", "IllegalMove", "SEATS4", "new", "main_phase",
           "give", "play", "refused", "cards_conserved", "pieces_conserved", "random_game",
           "roundtrip", "points"]


def roll_to(st, seat, total):
    """Roll for ``seat`` with an entropy chosen so the dice show ``total``."""
    for i in range(2000):
        trial = copy.deepcopy(st)
        GAME.play(trial, seat, "roll", b"find|%d" % i)
        if sum(trial["dice"]) == total:
            return GAME.play(st, seat, "roll", b"find|%d" % i)
    raise AssertionError(f"no entropy gives {total}")


def entropy_where(st, seat, text, predicate):
    """Play ``text`` with the first entropy whose outcome satisfies ``predicate``."""
    for i in range(2000):
        trial = copy.deepcopy(st)
        GAME.play(trial, seat, text, b"find|%d" % i)
        if predicate(trial):
            return GAME.play(st, seat, text, b"find|%d" % i)
    raise AssertionError("no entropy gives that outcome")


def found_tribe(st, seat, x, people_before):
    """``seat`` founds a tribe at crossing ``x`` holding the people chips ``people_before``."""
    st["people"][seat] = list(people_before)
    st["nomads"][seat] = [x]
    give(st, seat, hide=1, bone=1, flint=1)
    play(st, seat, f"tribe {x}")


def second_to_spread():
    """A main phase where red spread to every people first and blue second."""
    st = main_phase()
    found_tribe(st, "red", 59, [0, 1, 1, 1])
    st["current"] = "blue"
    found_tribe(st, "blue", 44, [0, 1, 1, 1])
    assert st["spread"] == "red" and st["spread2"] == "blue"
    return st
