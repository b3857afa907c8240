"""Every game answers a move word it does not know the same way, with its own move words."""

import re

import pytest

from shared import InvalidMove
from shared.games import game_types, get_game
from shared.move import unknown_move_text

GAMES = {"zarahemla": ("roll", "end"), "stone_age": ("roll", "end"),
         "title_of_liberty": ("give", "stop")}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_unknown_move_is_refused_in_the_one_wording(name):
    if name not in game_types():
        pytest.skip(f"the {name} engine is not in this checkout")
    with pytest.raises(InvalidMove) as info:
        get_game(name).parse_move("fly to the moon")
    said = str(info.value.message if hasattr(info.value, "message") else info.value)
    first, last = GAMES[name]
    assert re.fullmatch(rf"unknown move 'fly'; the moves are {first}, [a-z, ]+ or {last}",
                        said), said


def test_the_wording_quotes_a_long_word_short():
    assert unknown_move_text("a" * 100, ["roll", "end"]) == \
        f"unknown move '{'a' * 27}...'; the moves are roll or end"
    assert unknown_move_text("x", ["pass"]) == "unknown move 'x'; the moves are pass"
