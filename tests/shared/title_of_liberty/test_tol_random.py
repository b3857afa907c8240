"""Random play: games between random legal players end cleanly, keep every army's
soldiers accounted for, and keep the state plain JSON."""

import copy
import json

import pytest

from shared.title_of_liberty import GAME

from .greedy import greedy_choice
from .helpers import conserved, random_game

CAP = 20000


def _check_every_move(state, seat, text):
    assert conserved(state), f"troops not conserved after {seat}: {text}"
    assert json.loads(json.dumps(state)) == state
    for who in GAME.to_act(state):
        assert GAME.legal_moves(state, who), f"{who} owes a move but has none"
    view = GAME.view(state, seat)
    assert view["to_act"] == GAME.to_act(state)
    assert set(view["owes"]) == set(view["to_act"])
    if state["ply"] % 16 == 0 or GAME.result(state):
        for line in GAME.render(view).splitlines():
            assert len(line) <= 80, line


def _play(seeds):
    moves = 0
    outcomes = {"nephites": 0, "lamanites": 0}
    for seed in seeds:
        state, n = random_game(seed, cap=CAP, every=_check_every_move)
        result = GAME.result(state)
        assert result is not None, f"game {seed} hit the move cap"
        assert result["outcome"] in outcomes
        assert result["winners"] in ([], state["seats"])
        outcomes[result["outcome"]] += 1
        moves += n
    return moves, outcomes


def test_random_games_quick():
    _play(range(60))


@pytest.mark.slow
def test_one_thousand_random_games():
    """1,000 games with 1 to 5 random armies end in a win or a loss."""
    moves, outcomes = _play(range(1000))
    assert sum(outcomes.values()) == 1000
    assert moves > 1000


def test_greedy_games_end_cleanly():
    """The greedy player of the balance note wins often; every invariant still holds."""
    wins = 0
    for seed in range(20):
        state, _ = random_game(seed, chooser=greedy_choice, every=_check_every_move)
        wins += bool(GAME.result(state)["winners"])
    assert wins > 0


def test_check_agrees_with_play_and_never_mutates():
    def every(state, seat, text):
        if state["ply"] % 5:
            return
        for who in GAME.to_act(state):
            before = copy.deepcopy(state)
            for move in GAME.legal_moves(state, who):
                GAME.check(state, who, move)
            assert state == before

    for seed in range(25):
        random_game(seed, every=every)


def test_same_seed_same_moves_same_state():
    a, _ = random_game(7)
    b, _ = random_game(7)
    assert a == b
