"""Proof that the bots do not cheat: they see what their seat sees, nothing more.

Two states that differ only in what ``seat`` may not know (another seat's cards, the
development deck's order, the seed and so every future die) give ``seat`` the same view;
every bot level, with the same generator, then answers the same move in both.
"""

import random

import pytest

from shared.bots import LEVELS, choose_move
from shared.games import get_game

from .helpers import GAMES, clone, positions

#: a small search budget keeps the strong level quick here (the budget is the only limit)
BUDGET = {"nodes": 60}


def _other_seed(state):
    state["seed"] = "ab" * 32 if state["seed"] != "ab" * 32 else "cd" * 32


def _swap_hands(hands, seat, kinds):
    """One card of one kind for one of another between two other seats' hands."""
    others = [s for s in sorted(hands) if s != seat]
    for x in others:
        for y in others:
            if x == y:
                continue
            a = next((r for r in range(kinds) if hands[x][r]), None)
            b = next((r for r in range(kinds) if r != a and hands[y][r]), None)
            if a is not None and b is not None:
                hands[x][a] -= 1
                hands[y][a] += 1
                hands[y][b] -= 1
                hands[x][b] += 1
                return True
    return False


def _swap_zarahemla(state, seat):
    """Change other seats' hidden cards: resources between two of them, and an unplayed
    development card of one of them for another kind from the deck (its size is public)."""
    changed = _swap_hands({s: p["hand"] for s, p in state["players"].items()}, seat, 5)
    for other, p in sorted(state["players"].items()):
        if other == seat:
            continue
        dev, new, deck = p["dev"], p["new"], state["deck"]
        a = next((k for k in range(1, 7) if dev[k] - new[k] > 0), None)
        b = next((k for k in range(1, 7) if k != a and deck[k]), None)
        if a is not None and b is not None:
            dev[a] -= 1
            deck[a] += 1
            dev[b] += 1
            deck[b] -= 1
            return True
    return changed


def _swap_stone_age(state, seat):
    """Change other seats' hidden cards: resources between two of them."""
    return _swap_hands(state["hands"], seat, 4)


SWAP = {"zarahemla": _swap_zarahemla, "stone_age": _swap_stone_age,
        "title_of_liberty": lambda state, seat: True}   # nothing is hidden but the seed


@pytest.mark.parametrize("name", GAMES)
def test_hidden_cards_and_seed_do_not_change_any_bots_move(name):
    game = get_game(name)
    checked = 0
    for seed in range(3):
        for state, seat in positions(name, seed, every=9, limit=8, n=3):
            twin = clone(state)
            if not SWAP[name](twin, seat):
                continue
            _other_seed(twin)
            view = game.view(state, seat)
            assert game.view(twin, seat) == view, "the change must be hidden from the seat"
            legal, legal_twin = game.legal_moves(state, seat), game.legal_moves(twin, seat)
            if sorted(legal) != sorted(legal_twin):
                continue    # a listed confirm depends on the other's hand: not the bot's doing
            for level in LEVELS:
                a = choose_move(game, view, seat, legal, random.Random(11), level, BUDGET)
                b = choose_move(game, game.view(twin, seat), seat, legal_twin,
                                random.Random(11), level, BUDGET)
                assert a == b, (name, level, seat, a, b)
                checked += 1
    assert checked >= 30


@pytest.mark.parametrize("name", ["zarahemla", "stone_age"])
def test_a_sampled_world_agrees_with_the_view(name):
    """The world a bot samples gives its seat the same view (the public part copied, the
    hidden part sampled) and the same legal moves, but for confirms of hidden hands."""
    from shared.bots.determinize import sample_world
    game = get_game(name)
    for seed in range(3):
        for state, seat in positions(name, seed, every=5, limit=20, n=3 + seed % 2):
            view = game.view(state, seat)
            world = sample_world(game, view, seat, random.Random(seed))
            mine = game.view(world, seat)
            for key in ("phase", "to_act", "owes", "scores", "hand", "players", "board",
                        "tribes", "nomads", "tracks", "offer", "bank", "supply", "deck"):
                assert mine.get(key) == view.get(key), (key, mine.get(key), view.get(key))
            strip = {m for m in game.legal_moves(state, seat) if not m.startswith("confirm")}
            assert strip == {m for m in game.legal_moves(world, seat)
                             if not m.startswith("confirm")}
            # every hidden card is accounted for: the world keeps the game's totals
            if name == "zarahemla":
                assert sum(world["bank"]) + sum(sum(p["hand"]) for p in
                                                world["players"].values()) == 90
                for s, p in world["players"].items():
                    assert sum(p["hand"]) == view["players"][s]["cards"]
                    assert sum(p["dev"]) == view["players"][s]["dev_cards"]
                assert sum(world["deck"]) == view["deck"]
            else:
                for s in world["seats"]:
                    assert sum(world["hands"][s]) == view["hand_counts"][s]
                assert {k: sum(p.values()) for k, p in world["pools"].items()} == \
                    view["chips_left"]


def test_a_bot_does_not_change_the_view_it_is_given():
    game = get_game("zarahemla")
    for state, seat in positions("zarahemla", 4, every=11, limit=6):
        view = game.view(state, seat)
        before = clone(view)
        for level in LEVELS:
            choose_move(game, view, seat, game.legal_moves(state, seat), random.Random(2),
                        level, BUDGET)
            assert view == before
