"""Random play: games between random legal players end cleanly, keep every army's
soldiers accounted for, and keep the state plain JSON."""

import copy
import json

import pytest

from shared.bots.title_of_liberty import choose_for_state as greedy_choice
from shared.title_of_liberty import GAME
from tests.helpers.examples import examples

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
    if GAME.result(state):  # how it ended is a field, whatever the ending
        assert view["result"]["why"] in ("won", "time", "no_army")
        for fact in GAME.facts_for(state["events"], seat):
            if fact["kind"] == "game_over":
                assert fact["data"]["why"] == view["result"]["why"]
    if state["ply"] % 16 == 0 or GAME.result(state):
        for line in GAME.render(view).splitlines():
            assert len(line) <= 80, line


def _play(seeds, version=None, options=None):
    moves = 0
    outcomes = {"nephites": 0, "lamanites": 0}
    for seed in seeds:
        state, n = random_game(seed, cap=CAP, every=_check_every_move, version=version,
                               options=options)
        result = GAME.result(state)
        assert result is not None, f"game {seed} hit the move cap"
        assert result["outcome"] in outcomes
        assert result["winners"] in ([], state["seats"])
        outcomes[result["outcome"]] += 1
        moves += n
    return moves, outcomes


@pytest.mark.properties
@pytest.mark.parametrize("version,options,games", [
    ("2", {}, 60), ("1", {}, 30), ("2", {"difficulty": "hard"}, 30),
    ("2", {"cities": "all"}, 20)])
def test_random_games_quick(version, options, games):
    _play(range(examples(games, least=5)), version, options)


@pytest.mark.slow
@pytest.mark.parametrize("version,options,games", [
    ("2", {}, 1000), ("1", {}, 300), ("2", {"difficulty": "hard"}, 300)])
def test_one_thousand_random_games(version, options, games):
    """1,000 games with 1 to 5 random armies end in a win or a loss (and fewer under the
    old rules and the hard level)."""
    moves, outcomes = _play(range(games), version, options)
    assert sum(outcomes.values()) == games
    assert moves > games


@pytest.mark.properties
@pytest.mark.parametrize("version", ["1", "2"])
def test_greedy_games_end_cleanly(version):
    """The greedy player of the balance note wins often; every invariant still holds."""
    wins = 0
    for seed in range(examples(20, least=5)):
        state, _ = random_game(seed, chooser=greedy_choice, every=_check_every_move,
                               version=version)
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


def _candidates(rnd, state):
    """Plausible move texts, legal or not, for fuzzing check against play."""
    from shared.title_of_liberty.board import SEATS, SPACES
    spaces = list(SPACES)
    kinds = ["captain", "scout", "infantry", "archer", "slinger"]
    lams = ["king", "captain", "infantry", "archer"]
    at = rnd.choice([a["at"] for a in state["armies"].values()])
    route = [at]
    for _ in range(rnd.randint(1, 4)):
        route.append(rnd.choice("-~"))
        route.append(rnd.choice(spaces))
    return [
        f"give {rnd.choice(SEATS)} {rnd.randint(1, 8)} {rnd.choice(['food', 'gold', 'weapons'])}",
        "pass", "rest", "attack", "starve", "wine", "stop",
        f"buy {rnd.randint(1, 4)} {rnd.choice(['infantry', 'archers', 'slingers', 'scouts'])}",
        f"arm {rnd.randint(1, 4)} {rnd.choice(['infantry', 'archers', 'slingers'])}",
        "move " + "".join(route),
        f"lead {rnd.randint(1, 6)} {rnd.choice(kinds[2:])}",
        f"sector {rnd.choice(['palace', 'stockade', 'armory', 'market'])}",
        f"duel {rnd.choice(kinds)}{rnd.choice(['', '@path'])} "
        f"{rnd.choice(lams)}{rnd.choice(['', '@tower', '@gate', '@temple'])}",
    ]


@pytest.mark.properties
def test_fuzz_check_agrees_with_play_and_refusals_change_nothing():
    import random

    from shared import IllegalMove
    rnd = random.Random(99)
    tried = accepted = 0

    def every(state, seat, text):
        nonlocal tried, accepted
        if state["ply"] % 4 or GAME.result(state):
            return
        for who in state["seats"]:
            for cand in _candidates(rnd, state):
                tried += 1
                try:
                    GAME.check(state, who, cand)
                    ok = True
                except IllegalMove:
                    ok = False
                copy_ = copy.deepcopy(state)
                if ok:
                    GAME.play(copy_, who, cand)
                    accepted += 1
                else:
                    with pytest.raises(IllegalMove):
                        GAME.play(copy_, who, cand)
                    assert copy_ == state

    for seed in range(examples(15, least=4)):
        random_game(seed, every=every, version="2" if seed % 3 else "1")
    assert tried > 1000 and accepted > 20
