"""Shared helpers for the Title of Liberty tests: fresh states, scripted dice, random play."""

import json
import random

from shared.title_of_liberty import GAME, parse_move, rules
from shared.title_of_liberty.state import BOX, army_accounted, army_total, box_total, level


def fresh(n=1, version=None, **options):
    """A new game for the first ``n`` armies (rules ``version``, default the current)."""
    return GAME.new_game(GAME.seat_names(n), options, b"test-seed", rules_version=version)


class Dice:
    """A scripted stand-in for Rng: ``die`` returns the given rolls in order."""

    def __init__(self, *rolls):
        self.rolls = list(rolls)
        self.sides = []

    def die(self, sides):
        self.sides.append(sides)
        roll = self.rolls.pop(0)
        assert 1 <= roll <= sides, (roll, sides)
        return roll

    def randbelow(self, n):
        return self.die(n) - 1


def act(state, seat, text, *rolls):
    """Check and apply ``text`` with scripted dice; all scripted rolls must be used."""
    move = parse_move(text)
    plan = GAME.check_move(state, seat, move)
    dice = Dice(*rolls)
    state["events"] = []
    state["ply"] += 1
    rules.APPLIES[move.kind](state, seat, move, plan, dice)
    assert not dice.rolls, f"unused rolls {dice.rolls}"
    return dice


def kill(state, seat, nephite, lamanite):
    """A duel the Nephite wins with 20 against 1: the Lamanite is killed."""
    return act(state, seat, f"duel {nephite} {lamanite}", 20 if nephite == "captain" else
               {"scout": 12, "infantry": 10, "archer": 8, "slinger": 8}[nephite], 1)


def take_sector(state, seat, sector, fighter="captain"):
    """Choose ``sector`` and kill its tower and gate defenders."""
    act(state, seat, f"sector {sector}")
    kill(state, seat, fighter, "archer@tower")
    kill(state, seat, fighter, "archer@gate")
    kill(state, seat, fighter, "infantry@gate")


def clear_temple(state, seat, upper="captain"):
    for _ in range(3):
        kill(state, seat, "captain", "infantry@temple")
    kill(state, seat, "captain", f"{upper}@temple")


def pass_all(state):
    """Every giver passes."""
    for seat in list(state["givers"]):
        GAME.play(state, seat, "pass")
    return state


def conserved(state):
    """Every army's soldiers are accounted for; from version 2 every token of the box too."""
    if not all(army_total(state, s) == army_accounted(state, s) for s in state["seats"]):
        return False
    if "box" in state:
        return all(box_total(state, item) == level(state)["box"][item] for item in BOX)
    return True


def random_game(seed, n=None, rounds=None, cap=20000, chooser=None, every=None, version=None,
                options=None):
    """Play one game between random legal players; returns (state, moves played).

    ``every(state, seat, move_text)`` is called after each move.
    """
    rnd = random.Random(seed)
    n = n or 1 + seed % 5
    options = dict(options or {})
    if rounds:
        options["rounds"] = rounds
    state = GAME.new_game(GAME.seat_names(n), options, b"random-%d" % seed,
                          rules_version=version)
    moves = 0
    while GAME.result(state) is None and moves < cap:
        seat = rnd.choice(GAME.to_act(state))
        legal = GAME.legal_moves(state, seat)
        assert legal, f"{seat} is in to_act with no legal move"
        text = chooser(state, seat, legal, rnd) if chooser else rnd.choice(legal)
        GAME.play(state, seat, text, entropy=b"%d" % moves)
        moves += 1
        if every:
            every(state, seat, text)
    return state, moves


def roundtrip(state):
    return json.loads(json.dumps(state)) == state
