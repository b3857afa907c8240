"""Title of Liberty's strong level: the world it rebuilds from the view, the light view of
its rollouts, and the search itself (tests/shared/bots/test_bots_fair.py covers that it
cannot cheat: the seed is all a Title of Liberty view hides)."""

import random

import pytest

from shared.bots import choose_move
from shared.bots import title_of_liberty as tol
from shared.bots.determinize import title_of_liberty_world
from shared.bots.search import Budget
from shared.games import get_game

from .helpers import clone

GAME = get_game("title_of_liberty")


def _positions(version, seed, armies, options, every=1, limit=None):
    """(state, seat) along a game played mostly by the greedy team, some moves at random."""
    state = GAME.new_game(GAME.seat_names(armies), options, b"tol-%d" % seed,
                          rules_version=version)
    rng = random.Random(seed)
    played = 0
    while GAME.result(state) is None and played < 3000:
        seat = rng.choice(GAME.to_act(state))
        if played % every == 0:
            yield state, seat
            if limit is not None and played // every >= limit:
                return
        legal = GAME.legal_moves(state, seat)
        move = tol.choose_for_state(state, seat, legal) if rng.random() < 0.85 \
            else rng.choice(legal)
        state = GAME.play(state, seat, move, b"%d" % played)
        played += 1


CASES = [("1", 0, 2, {}), ("2", 1, 1, {"difficulty": "hard"}),
         ("2", 2, 3, {"difficulty": "book"}), ("2", 3, 5, {"difficulty": "hard"}),
         ("3", 4, 3, {}), ("3", 6, 4, {"difficulty": "hard"})]


@pytest.mark.parametrize("version,seed,armies,options", CASES)
def test_the_world_rebuilt_from_the_view_is_the_same_game(version, seed, armies, options):
    """The rebuilt world gives every seat the same view (but the log), the same legal moves
    and the same seats to act; and, given the real seed and ply (which only a test may
    copy), it plays on exactly as the real game does."""
    checked = 0
    for state, seat in _positions(version, seed, armies, options, every=3):
        view = GAME.view(state, seat)
        world = title_of_liberty_world(view, seat, random.Random(checked))
        for s in state["seats"]:
            mine, real = GAME.view(world, s), GAME.view(state, s)
            mine.pop("log")
            real.pop("log")
            assert mine == real
            assert GAME.legal_moves(world, s) == GAME.legal_moves(state, s)
        assert GAME.to_act(world) == GAME.to_act(state)
        if checked % 10 == 0:
            world["seed"], world["ply"] = state["seed"], state["ply"]
            real = clone(state)
            for k in range(30):
                if GAME.result(real) is not None:
                    break
                s = GAME.to_act(real)[0]
                move = tol.choose_for_state(real, s, GAME.legal_moves(real, s))
                GAME.play(real, s, move, b"%d" % k)
                GAME.play(world, s, move, b"%d" % k)
                a, b = GAME.view(real, s), GAME.view(world, s)
                a.pop("log")
                b.pop("log")
                assert a == b
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("version,seed,armies,options", CASES)
def test_the_rollouts_light_view_gives_the_greedy_move_of_the_full_view(version, seed,
                                                                         armies, options):
    for state, seat in _positions(version, seed, armies, options):
        legal = GAME.legal_moves(state, seat)
        world = title_of_liberty_world(GAME.view(state, seat), seat, random.Random(1))
        assert tol.greedy_choice(tol.fast_view(world), seat, legal) == \
            tol.greedy_choice(GAME.view(state, seat), seat, legal)


def test_the_strong_level_answers_legal_moves_in_its_budget():
    """At positions of a game, the strong level answers a legal move, the same for the same
    generator, and never spends much more than its node budget (a world is finished only
    when the first one is not)."""
    asked = searched = 0
    for k, (state, seat) in enumerate(_positions("2", 5, 3, {"difficulty": "hard"})):
        view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
        greedy = tol.greedy_choice(view, seat, legal)
        options = tol.candidates(view, seat, legal, greedy)
        if options is None and k % 10:
            continue
        budget = {"nodes": 400}
        a = choose_move(GAME, view, seat, legal, random.Random(3), "strong", budget)
        b = choose_move(GAME, view, seat, legal, random.Random(3), "strong", budget)
        assert a == b and a in legal
        if options is not None:
            searched += 1
            assert options[0] == greedy
            assert set(options) <= set(legal) and 1 < len(options) <= tol.MAX_CANDIDATES
        else:
            assert a == greedy
        asked += 1
        if searched >= 8:
            break
    assert asked >= 10 and searched >= 8


def test_a_rollout_stops_at_the_budget_and_scores_the_war():
    state = GAME.new_game(GAME.seat_names(2), {"difficulty": "hard"}, b"roll")
    world = title_of_liberty_world(GAME.view(state, "moroni"), "moroni", random.Random(0))
    budget = Budget({"nodes": 25})
    score = tol.rollout(GAME, clone(world), budget, b"x")
    assert budget.used == 25 and score == 0.0      # 25 moves retake nothing
    full = Budget({"nodes": 100000})
    done = clone(world)
    score = tol.rollout(GAME, done, full, b"x")
    assert GAME.result(done) is not None
    assert score == 1.0 if GAME.result(done)["winners"] else 0.0 <= score < 1.0


def test_a_team_of_strong_bots_plays_a_war_to_the_end():
    from .helpers import bot_game
    state, played = bot_game("title_of_liberty", ["strong", "greedy"], 4,
                             budget={"nodes": 300}, options={"difficulty": "hard"})
    assert GAME.result(state) is not None and played > 20
