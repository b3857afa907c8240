"""Notation: parse/format round-trip, canonical forms and clear errors."""

import pytest

from shared import IllegalMove, InvalidMove
from shared.zarahemla import GAME

from .helpers import empty_play_state, random_game

CANONICAL = [
    "roll", "end", "temple", "buy", "accept", "decline", "withdraw",
    "settle 14", "city 54", "start 1", "road 14-19", "road 1-4",
    "discard 2wood+1stone", "robber F", "robber F blue",
    "play warrior", "play liahona 7", "play harvest 1wood+1stone", "play harvest 2water",
    "play harvest", "play roads", "play temples", "play prosperity wheat",
    "bank 4wood for 1stone", "bank 4water for 1wheat+1stone",
    "offer 2wood+1brick for 1stone", "offer 1wood for 1water to blue,white",
    "counter 1wood for 1stone", "confirm orange",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_texts_round_trip(text):
    mv = GAME.parse_move(text)
    assert GAME.format_move(mv) == text
    assert GAME.parse_move(GAME.format_move(mv)) == mv


@pytest.mark.parametrize("text,canonical", [
    ("  ROAD 19-14 ", "road 14-19"),
    ("road 19 14", "road 14-19"),
    ("settlement 7", "settle 7"),
    ("robber f BLUE", "robber F blue"),
    ("discard wood+wood+stone", "discard 2wood+1stone"),
    ("bank 4 wood for 1 stone".replace("4 wood", "4wood").replace("1 stone", "1stone"),
     "bank 4wood for 1stone"),
    ("offer 1wood for 1water to white, blue", "offer 1wood for 1water to blue,white"),
    ("play stripling", "play warrior"),
    ("play bountiful 1stone+1wood", "play harvest 1wood+1stone"),
    ("play prosperity bricks", "play prosperity brick"),
])
def test_aliases_format_to_the_canonical_text(text, canonical):
    assert GAME.format_move(GAME.parse_move(text)) == canonical


@pytest.mark.parametrize("text,words", [
    ("road 14-22", "no road can go from 14 to 22: they are not adjacent"),
    ("road 14-14", "two different corners"),
    ("road 14", "not a path"),
    ("settle 55", "corners are numbered 1 to 54"),
    ("settle x", "not a corner"),
    ("city", "one corner number"),
    ("robber Z", "hexes are the letters A to S"),
    ("robber F green", "not a player colour"),
    ("discard 2gold", "not a resource"),
    ("discard 0wood", "count must be"),
    ("bank 4wood 1stone", "bank 2wood+1brick for 1stone"),
    ("play liahona 13", "2 to 12"),
    ("play liahona", "2 to 12"),
    ("play dragon", "write play and a card"),
    ("play roads now", "takes nothing"),
    ("roll 7", "takes nothing"),
    ("fly", "unknown move"),
    ("", "empty"),
    ("offer 1wood for 1water for blue", "to blue,white"),
])
def test_bad_text_is_an_invalid_move_with_a_plain_sentence(text, words):
    with pytest.raises(InvalidMove) as err:
        GAME.parse_move(text)
    assert words in err.value.message


def test_an_invalid_move_leaves_the_state_unchanged_and_is_an_illegal_move_too():
    st = empty_play_state()
    with pytest.raises(IllegalMove) as err:
        GAME.play(st, "red", "road 14-22")
    assert err.value.code == "not_adjacent"
    assert isinstance(err.value, InvalidMove)


def test_every_listed_move_round_trips_in_random_games():
    seen = set()

    def each(st, seat, mv):
        for s in GAME.to_act(st):
            for text in GAME.legal_moves(st, s):
                if text in seen:
                    continue
                seen.add(text)
                m = GAME.parse_move(text)
                assert GAME.format_move(m) == text
                assert GAME.parse_move(GAME.format_move(m)) == m

    for seed in range(6):
        random_game(seed, n=2 + seed % 3, cap=1500, each=each)
    kinds = {t.split()[0] for t in seen}
    assert {"roll", "road", "settle", "bank", "offer", "end", "robber", "discard"} <= kinds


def test_fuzzed_text_only_ever_raises_invalid_move():
    import random
    rng = random.Random(5)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-+, ABCDEFS"
    words = [w for t in CANONICAL for w in t.split()]
    st = empty_play_state()
    for i in range(3000):
        if i % 2:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        else:
            text = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 5)))
        try:
            mv = GAME.parse_move(text)
        except InvalidMove as exc:
            assert exc.message
            continue
        assert GAME.parse_move(GAME.format_move(mv)) == mv
        for seat in ("red", "blue"):
            try:
                GAME.check(st, seat, text)
            except IllegalMove as exc:
                assert exc.message and exc.code
