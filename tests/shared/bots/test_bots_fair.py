"""Proof that the bots do not cheat: they see what their seat sees, nothing more.

Two states that differ only in what ``seat`` may not know (another seat's cards, the
development deck's order, the seed and so every future die) give ``seat`` the same view;
every bot level, with the same generator, then answers the same move in both.
"""

import random

import pytest

from shared.bots import LEVELS, choose_move, legal_or_again, public_moves
from shared.games import get_game
from tests.helpers.hidden import SWAP, _other_seed

from .helpers import GAMES, clone, positions

#: a small search budget keeps the strong level quick here (the budget is the only limit)
BUDGET = {"nodes": 60}


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
            # the lists may differ (a listed confirm depends on the partner's hidden hand):
            # the bots choose from what the view allows, so the move is still the same
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


def _accepted_offer(name):
    """A three-seat position where the seat on turn has an open offer that ``partner``
    accepted, and its twin where ``partner`` no longer holds its side (its cards of that
    kind swapped with a third seat's others: the same counts, the same view).
    Returns (game, state, twin, seat, partner)."""
    game = get_game(name)
    hands = (lambda st: {s: p["hand"] for s, p in st["players"].items()}) \
        if name == "zarahemla" else (lambda st: st["hands"])
    kinds = 5 if name == "zarahemla" else 4
    for seed in range(20):
        for state, _ in positions(name, seed, every=3, limit=60, n=3):
            seat = game.to_act(state)[0]
            offers = [m for m in game.legal_moves(state, seat) if m.startswith("offer ")]
            if len(game.to_act(state)) != 1 or not offers:
                continue
            for offer in offers:
                st = game.play(clone(state), seat, offer, b"o")
                for partner in game.to_act(st):
                    if partner == seat or "accept" not in game.legal_moves(st, partner):
                        continue
                    st2 = game.play(clone(st), partner, "accept", b"a")
                    if "confirm " + partner not in game.legal_moves(st2, seat):
                        continue
                    third = next(s for s in sorted(hands(st2)) if s not in (seat, partner))
                    twin = clone(st2)
                    h = hands(twin)
                    # every kind the partner holds goes to the third seat, for kinds the
                    # partner lacks (so it cannot pay its side, whatever the offer asked)
                    need = [r for r in range(kinds) if h[partner][r]]
                    for r in need:
                        while h[partner][r]:
                            o = next((k for k in range(kinds) if k not in need and h[third][k]),
                                     None)
                            if o is None:
                                break
                            h[partner][r] -= 1
                            h[third][r] += 1
                            h[third][o] -= 1
                            h[partner][o] += 1
                    if "confirm " + partner not in game.legal_moves(twin, seat):
                        return game, st2, twin, seat, partner
    raise AssertionError("no position with an accepted offer found")


@pytest.mark.parametrize("name", ["zarahemla", "stone_age"])
def test_a_partner_who_cannot_pay_does_not_change_any_bots_move(name):
    """The case the legal list gives away: ``confirm SEAT`` is listed only while the partner
    still holds its side.  The bots choose from the view alone (``public_moves``), so the
    move is the same in both states; where it is a confirm the rules refuse,
    ``legal_or_again`` asks again without it, as a player told "cannot complete" would."""
    game, state, twin, seat, partner = _accepted_offer(name)
    view = game.view(state, seat)
    assert game.view(twin, seat) == view
    legal, legal_twin = game.legal_moves(state, seat), game.legal_moves(twin, seat)
    assert ("confirm " + partner in legal) and ("confirm " + partner not in legal_twin)
    assert public_moves(game, view, seat, legal) == public_moves(game, view, seat, legal_twin)
    assert "confirm " + partner in public_moves(game, view, seat, legal_twin)
    for level in LEVELS:
        for k in range(5):
            a = choose_move(game, view, seat, legal, random.Random(k), level, BUDGET)
            b = choose_move(game, view, seat, legal_twin, random.Random(k), level, BUDGET)
            assert a == b, (level, a, b)
            # asked again after a refusal, the move is one the rules accept
            for st, lg in ((state, legal), (twin, legal_twin)):
                move = legal_or_again(game, view, seat, lg, random.Random(k), level, BUDGET)
                game.play(clone(st), seat, move, b"x")


@pytest.mark.parametrize("name", ["zarahemla", "stone_age"])
def test_the_public_confirms_are_the_listed_ones_and_those_of_partners_short_of_cards(name):
    """At positions of random games, ``public_moves`` is the legal list but for confirms
    with partners who no longer hold their side (which the view cannot tell)."""
    game = get_game(name)
    for seed in range(3):
        for state, seat in positions(name, seed, every=2, limit=60, n=3):
            legal = game.legal_moves(state, seat)
            public = public_moves(game, game.view(state, seat), seat, legal)
            assert set(legal) <= set(public)
            for move in set(public) - set(legal):
                assert move.startswith("confirm ")
                assert move not in legal
