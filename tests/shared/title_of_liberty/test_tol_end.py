"""Winning and losing: cities retaken, Amalickiah killed, the short game."""

from shared.title_of_liberty import GAME
from shared.title_of_liberty.state import required_cities

from .helpers import act, clear_temple, fresh, pass_all, take_sector


def liberate_morianton(state, seat="moroni"):
    pass_all(state)
    act(state, seat, "move bountiful~lehi-morianton")
    take_sector(state, seat, "palace")
    clear_temple(state, seat, upper="king")
    for sector in ("armory", "market", "stockade"):
        if GAME.result(state) is None:
            take_sector(state, seat, sector)


def test_version_1_short_game_needs_k_plus_one_cities():
    """Rules version 1: k armies retake k+1 cities only with short_game, else six."""
    assert required_cities({"short_game": True}, 1) == 2
    assert required_cities({"short_game": True}, 4) == 5
    assert required_cities({"short_game": True}, 5) == 6
    assert required_cities({"short_game": False}, 1) == 6
    assert fresh(1, version="1")["required"] == 6
    assert fresh(1, version="1", short_game=True)["required"] == 2


def test_version_1_short_game_won_with_morianton_and_one_more_city():
    state = fresh(1, version="1", short_game=True)
    state["cities"]["mulek"]["liberated_by"] = "moroni"
    liberate_morianton(state)
    result = GAME.result(state)
    assert result["outcome"] == "nephites" and result["winners"] == ["moroni"]
    assert result["king_killed"] and set(result["cities"]) == {"mulek", "morianton"}
    assert GAME.to_act(state) == []
    view = GAME.view(state, "moroni")
    assert view["status"] == "over" and view["result"]["outcome"] == "nephites"
    assert "Game over: the Nephites won (" in GAME.render(view)


def test_version_1_short_game_not_won_without_morianton():
    state = fresh(1, version="1", short_game=True)
    for name in ("mulek", "gid"):
        state["cities"][name]["liberated_by"] = "moroni"
    pass_all(state)
    act(state, "moroni", "move bountiful~moroni-nephihah")
    for sector in ("palace", "armory", "market", "stockade"):
        take_sector(state, "moroni", sector)
        if sector == "palace":
            clear_temple(state, "moroni")
    assert state["cities"]["nephihah"]["liberated_by"] == "moroni"
    assert GAME.result(state) is None


def test_version_1_full_game_needs_all_six_cities():
    state = fresh(2, version="1")
    for name in ("mulek", "gid", "manti", "antiparah"):
        state["cities"][name]["liberated_by"] = "helaman"
    liberate_morianton(state)
    assert GAME.result(state) is None  # Nephihah is still held
    assert state["turn"] == "helaman"
    # helaman stands in Nephihah after an earlier attack: the return is free
    state["armies"]["helaman"]["at"] = "nephihah"
    pass_all(state)
    act(state, "helaman", "attack")
    for sector in ("palace", "armory", "market", "stockade"):
        take_sector(state, "helaman", sector)
        if sector == "palace":
            clear_temple(state, "helaman")
    result = GAME.result(state)
    assert result["outcome"] == "nephites"
    assert result["winners"] == ["moroni", "helaman"]


def test_losing_every_army_loses_the_war():
    state = fresh(1)
    state["armies"]["moroni"]["food"] = 0
    GAME.play(state, "moroni", "starve")
    result = GAME.result(state)
    assert result == {"winners": [], "outcome": "lamanites", "reason": "no Nephite army is left.",
                      "cities": [], "king_killed": False, "round": 1}


def test_rules_choice_2_wall_clock_limit_ends_with_concede():
    """RULES.md choice 2: the server plays `concede` when deadline_hours pass; Lamanites win."""
    from shared import IllegalMove
    from shared.games import get_game
    game = get_game("title_of_liberty")
    state = game.new_game(["moroni", "helaman"], {"deadline_hours": 48}, b"s" * 32)
    assert game.wall_clock_limit(state["options"]) == 48
    assert game.wall_clock_limit(game.normalize_options({}, 2)) is None
    assert "concede" not in game.legal_moves(state, "moroni")
    move = game.time_up_move(state)
    state = game.play(state, game.to_act(state)[0], move)
    assert game.result(state)["outcome"] == "lamanites" and game.result(state)["winners"] == []
    assert game.to_act(state) == []
    import pytest
    with pytest.raises(IllegalMove):
        game.play(state, "moroni", "concede")
