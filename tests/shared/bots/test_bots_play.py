"""Bots in every seat, at every level: never an illegal move, never an exception, and games
that end.  Quick in the default run; many more games behind ``-m slow``."""

import random

import pytest

from shared.bots import LEVELS, legal_or_again
from shared.games import get_game

from .helpers import GAMES, bot_game, positions

BUDGET = {"nodes": 80}
#: moves the rules list by a representative subset; a bot may choose another instance
OPEN_ENDED = ("discard",)


def _checked(name):
    game = get_game(name)

    def on_move(state, seat, move, legal):
        assert isinstance(move, str)
        if move.split()[0] not in OPEN_ENDED:
            assert move in legal, (seat, move)
        game.check(state, seat, move)     # raises on an illegal move
    return on_move


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("level", ["greedy", "strong"])
def test_bots_in_every_seat_play_a_game_to_its_end(name, level):
    game = get_game(name)
    seats = {"zarahemla": 2, "stone_age": 3, "title_of_liberty": 2}[name]
    budget = {"nodes": 40} if level == "strong" else None
    state, played = bot_game(name, [level] * seats, seed=1, budget=budget,
                             on_move=_checked(name))
    assert game.result(state) is not None, f"{name} {level}: no end in {played} moves"


@pytest.mark.parametrize("name", GAMES)
def test_mixed_levels_never_move_illegally(name):
    levels = {"zarahemla": ["random", "greedy", "strong"],
              "stone_age": ["greedy", "random", "strong", "greedy"],
              "title_of_liberty": ["greedy", "random", "strong"]}[name]
    bot_game(name, levels, seed=2, budget={"nodes": 30}, on_move=_checked(name), cap=600)


@pytest.mark.parametrize("name", GAMES)
def test_every_level_answers_at_positions_of_random_games(name):
    """Positions a random game reaches (offers, discards, robbers, battles) get a legal
    answer from every bot for every seat that owes a move."""
    game = get_game(name)
    on_move = _checked(name)
    for seed in range(2):
        for state, _ in positions(name, seed, every=3, limit=40, n=3 + seed):
            for seat in game.to_act(state):
                legal = game.legal_moves(state, seat)
                for level in LEVELS:
                    move = legal_or_again(game, game.view(state, seat), seat, legal,
                                          random.Random(seed), level, BUDGET)
                    on_move(state, seat, move, legal)


@pytest.mark.parametrize("version,options,seed,levels", [
    ("1", {"setup": "advanced"}, 0, ["greedy"] * 3),
    ("2", {"setup": "advanced"}, 1, ["strong", "greedy", "greedy", "strong"])])
def test_stone_age_bots_alone_finish_under_both_versions(version, options, seed, levels):
    """Bots alone must make the game end (test_bots_purpose.py has the position where they
    once stopped sending out nomads)."""
    game = get_game("stone_age")
    state, played = bot_game("stone_age", levels, seed, budget={"nodes": 60},
                             options=options, version=version, cap=2500)
    assert game.result(state) is not None, (version, options, seed, played)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_many_bot_games_every_level(name):
    game = get_game(name)
    on_move = _checked(name)
    seats = range(game.min_seats, game.max_seats + 1)
    for seed in range(12):
        n = list(seats)[seed % len(seats)]
        levels = [("random", "greedy", "strong")[(seed + i) % 3] for i in range(n)]
        state, played = bot_game(name, levels, seed=100 + seed, budget={"nodes": 120},
                                 on_move=on_move)
        assert played > 0
