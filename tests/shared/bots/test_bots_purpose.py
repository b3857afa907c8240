"""The bots play with purpose: they build what they can, answer offers by their value,
discard what they need least, rob the leader rather than themselves, and stay in budget."""

import random

import pytest

from shared.bots import choose_move
from shared.bots.search import Budget
from shared.zarahemla import GAME as ZAR
from shared.zarahemla.board import HEX_CORNERS, HEX_NAMES
from tests.shared.zarahemla.helpers import empty_play_state, put_building, put_path, set_hand

LEVELS = ("greedy", "strong")


def _ask(state, seat, level, budget=None, seed=3):
    legal = ZAR.legal_moves(state, seat)
    move = choose_move(ZAR, ZAR.view(state, seat), seat, legal, random.Random(seed), level,
                       budget)
    ZAR.check(state, seat, move)
    return move


def _two_player_board():
    """Red and blue, each with two settlements on the beginner board, red on turn."""
    st = empty_play_state(2)
    put_building(st, "red", 12)
    put_building(st, "red", 41)
    put_path(st, "red", [12, 17, 22])
    put_building(st, "blue", 27)
    put_building(st, "blue", 46)
    put_path(st, "blue", [27, 33])
    return st


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_builds_a_city_it_can_afford_rather_than_ending_its_turn(level):
    st = _two_player_board()
    set_hand(st, "red", wheat=2, stone=3)
    assert _ask(st, "red", level).startswith("city ")


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_with_three_stone_trades_toward_the_city_it_lacks(level):
    """One wheat short of a city, with four wood: the bank trade for the wheat (red's
    settlement 12 stands at the beginner board's wood post: 2:1), then the city."""
    st = _two_player_board()
    set_hand(st, "red", wood=4, wheat=1, stone=3)
    move = _ask(st, "red", level)
    assert move == "bank 2wood for 1wheat", move
    st = ZAR.play(st, "red", move)
    assert _ask(st, "red", level).startswith("city ")


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_accepts_an_offer_that_completes_its_city_and_declines_a_useless_one(level):
    st = _two_player_board()
    set_hand(st, "red", wood=3, brick=2)
    set_hand(st, "blue", wheat=2, stone=2, wood=1)
    # red offers a wood for one of blue's two stones (blue holds the city's wheat)
    st = ZAR.play(st, "red", "offer 1wood for 1stone")
    assert _ask(st, "blue", level) == "decline"    # a stone its city needs, for a wood
    st = ZAR.play(st, "blue", "decline")
    st = ZAR.play(st, "red", "withdraw")
    st = ZAR.play(st, "red", "offer 1brick for 1wood")
    set_hand(st, "blue", wheat=2, stone=3, wood=1)
    # a brick for a wood changes nothing blue needs
    assert _ask(st, "blue", level) == "decline"


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_never_accepts_an_offer_from_a_seat_about_to_win(level):
    st = _two_player_board()
    for corner in (1, 5, 30):
        put_building(st, "red", corner, city=True)      # red: 2 + 6 = 8 points + ...
    put_building(st, "red", 52, city=True)
    set_hand(st, "red", wheat=2)
    set_hand(st, "blue", stone=1, water=3)
    st = ZAR.play(st, "red", "offer 1wheat for 1stone")
    assert ZAR.view(st, "blue")["players"]["red"]["vp"] >= ZAR.view(st, "blue")["vp_to_win"] - 2
    assert _ask(st, "blue", level) == "decline"


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_discards_what_it_needs_least(level):
    st = _two_player_board()
    set_hand(st, "red", wheat=2, stone=3, wood=5)
    st["discard"] = {"red": 5}
    move = _ask(st, "red", level)
    assert move.startswith("discard ")
    # it keeps the city (2 wheat + 3 stone) and drops the wood
    assert move == "discard 5wood", move


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_moves_the_robber_off_its_own_land_onto_the_others(level):
    st = _two_player_board()
    set_hand(st, "blue", wood=2, wheat=1)
    st["robber_due"] = True
    move = _ask(st, "red", level)
    words = move.split()
    assert words[0] == "robber"
    hex_ = HEX_NAMES.index(words[1])
    owners = {st["owner"][c] for c in HEX_CORNERS[hex_]}
    assert "red" not in owners and "blue" in owners, move
    assert words[2:] == ["blue"], move       # and it steals


def test_the_strong_level_stays_in_its_node_budget_and_its_clock():
    st = _two_player_board()
    set_hand(st, "red", wood=4, brick=4, water=2, wheat=3, stone=3)
    seen = []
    from shared.bots import search
    real = search.Budget.spend

    def spend(self, n=1):
        seen.append(self)
        real(self, n)
    search.Budget.spend = spend
    try:
        _ask(st, "red", "strong", budget={"nodes": 25})
    finally:
        search.Budget.spend = real
    budget = seen[-1]
    # the first world is always searched whole; nothing beyond it once the budget is spent
    first_world = len([m for m in ZAR.legal_moves(st, "red")])
    assert budget.used <= max(25, first_world) + first_world
    now = [100.0]
    clocked = Budget({"seconds": 5, "clock": lambda: now[0]})
    now[0] = 104.9
    assert clocked.left()
    now[0] = 105.0
    assert not clocked.left()          # the caller's clock says the 5 seconds are up
    assert Budget({"nodes": 3}).nodes == 3 and Budget(None).nodes == search.DEFAULT_NODES
    assert Budget({"nodes": -1}).nodes == search.DEFAULT_NODES


@pytest.mark.parametrize("level", LEVELS)
def test_a_stone_age_bot_sends_out_a_nomad_even_when_every_chip_is_far(level):
    """Bots alone once stopped for good: with every free people chip far from its tribes, a
    nomad seemed worth less than its two cards, so no bot made one and every turn ended
    with nothing done.  A nomad is worth having however far the chips are."""
    from collections import deque

    from shared.stone_age import GAME as SA
    from shared.stone_age import board
    from tests.shared.stone_age.helpers import give, main_phase
    st = main_phase(3)
    dist = {x: 0 for x in st["tribes"]["red"]}
    queue = deque(dist)
    while queue:
        x = queue.popleft()
        for y in board.ADJ[x]:
            if y not in dist:
                dist[y] = dist[x] + 1
                queue.append(y)
    st["chips"] = {x: p for x, p in st["chips"].items() if dist.get(int(x), 99) >= 9}
    assert st["chips"]
    st["nomads"]["red"] = []
    give(st, "red", meat=1, hide=1)
    legal = SA.legal_moves(st, "red")
    assert any(m.startswith("nomad ") for m in legal)
    move = choose_move(SA, SA.view(st, "red"), "red", legal, random.Random(1), level,
                       {"nodes": 200})
    assert move.startswith("nomad "), move


def _offered_to_two(red, blue, offer):
    """Three seats, red on turn: red offers to blue and white, blue accepts, white has not
    answered yet (the offer is still owed)."""
    st = empty_play_state(3)
    put_building(st, "red", 14)
    put_path(st, "red", [14, 19])
    set_hand(st, "red", **red)
    set_hand(st, "blue", **blue)
    st = ZAR.play(st, "red", offer)
    st = ZAR.play(st, "blue", "accept")
    assert ZAR.view(st, "red")["offer"]["owed"] == ["white"]
    return st


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_greedy_bot_confirms_an_accepted_offer_good_for_it(seed):
    """The brick it lacks for a road, for a stone it has two of: it confirms at once, not
    waiting for white and not moving on (which would close the offer)."""
    st = _offered_to_two(dict(wood=1, water=1, wheat=1, stone=2), dict(brick=2),
                         "offer 1stone for 1brick")
    assert _ask(st, "red", "greedy", seed=seed) == "confirm blue"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_greedy_bot_withdraws_an_accepted_offer_bad_for_it(seed):
    """Its only wood for a third stone it has no use for: an accepted deal it does not
    want is withdrawn, rather than left standing while it plays on."""
    st = _offered_to_two(dict(wheat=1, stone=3, brick=1, wood=1), dict(stone=2),
                         "offer 1wood for 1stone")
    assert _ask(st, "red", "greedy", seed=seed) == "withdraw"


def test_the_stone_age_greedy_bot_confirms_a_good_accepted_offer_and_withdraws_a_bad_one():
    from shared.stone_age import GAME as SA
    from tests.shared.stone_age.helpers import give, main_phase

    def asked(st):
        legal = SA.legal_moves(st, "red")
        return choose_move(SA, SA.view(st, "red"), "red", legal, random.Random(1), "greedy")

    st = main_phase(3)
    give(st, "red", meat=3, flint=1, hide=1)
    give(st, "blue", bone=3)
    SA.play(st, "red", "offer 1meat for 1bone")
    SA.play(st, "blue", "accept")
    assert SA.view(st, "red")["offer"]["waiting"] == ["white"]
    assert asked(st) == "confirm blue"
    st = main_phase(3)
    give(st, "red", meat=1, flint=1, hide=1)
    give(st, "blue", hide=2)
    SA.play(st, "red", "offer 1meat for 1hide")
    SA.play(st, "blue", "accept")
    assert asked(st) == "withdraw"
