"""Move notation: canonical round-trip and plain errors for bad text."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared import InvalidMove
from shared.title_of_liberty import GAME, Move, format_move, parse_move
from tests.helpers.examples import examples

from .helpers import random_game

CANONICAL = [
    "give helaman 3 food", "give lehi 1 gold", "give antipus 2 weapons", "pass",
    "buy 2 archers", "buy 1 infantry", "arm 1 slinger", "arm 3 slingers",
    "move bountiful-v2-w1", "move bountiful~lehi-morianton", "rest", "attack", "starve",
    "lead 3 infantry 2 archers", "lead 1 captain 1 slinger", "lead",
    "sector palace", "sector stockade", "duel infantry archer", "duel scout@path infantry",
    "duel captain archer@tower", "duel slinger infantry@gate", "duel captain king@temple",
    "wine", "stop",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_texts_round_trip(text):
    move = parse_move(text)
    assert format_move(move) == text
    assert parse_move(format_move(move)) == move
    assert GAME.format_move(GAME.parse_move(text)) == text


@pytest.mark.parametrize("text,canonical", [
    ("  MOVE Bountiful-V2  ", "move bountiful-v2"),
    ("move bount~moria", "move bountiful~morianton"),
    ("buy 2 archer", "buy 2 archers"),
    ("arm 1 archers", "arm 1 archer"),
    ("give helaman 2 coins", "give helaman 2 gold"),
    ("give helaman 1 weapon", "give helaman 1 weapons"),
    ("lead 2 archers 3 infantry", "lead 3 infantry 2 archers"),
    ("Duel Infantrymen Archers@Gate", "duel infantry archer@gate"),
])
def test_loose_spellings_become_canonical(text, canonical):
    assert format_move(parse_move(text)) == canonical


def test_move_value_is_immutable_and_pasteable():
    move = parse_move("duel scout@path infantry")
    assert move == Move("duel", ("scout", True, "infantry", None))
    assert eval(repr(move)) == move
    with pytest.raises(AttributeError):
        move.kind = "stop"


@pytest.mark.parametrize("text,message", [
    ("", "empty"),
    ("fly bountiful", "unknown move 'fly'"),
    ("rest now", "takes nothing after it"),
    ("give zoram 1 food", "not an army"),
    ("give helaman x food", "whole number"),
    ("give helaman 0 food", "whole number"),
    ("give helaman 1 wine", "food, gold or weapons"),
    ("buy 2 kings", "not a new soldier"),
    ("move bountiful-v2 keep", "then, to leave food"),
    ("move bountiful-v2-v1 leave v2 v2", "each space once"),
    ("move bountiful-v2 leave nowhere", "no space called 'nowhere'"),
    ("buy ² infantry", "whole number"),
    ("buy ١ infantry", "whole number"),
    ("give helaman ５ food", "whole number"),
    ("buy two archers", "whole number"),
    ("move bountiful", "at least one more space"),
    ("move bountiful--v2", "no space name"),
    ("move bountiful-", "must end with a space name"),
    ("move bountiful-zarahemla", "no space called 'zarahemla'"),
    ("move bountiful~mor", "could be"),
    ("move bountiful - v2", "no spaces"),
    ("sector temple", "choose a sector"),
    ("duel infantry", "one Nephite and one Lamanite"),
    ("duel elephant archer", "not a Nephite soldier"),
    ("duel infantry slinger", "not a Lamanite soldier"),
    ("duel infantry@boat archer", "@path"),
    ("duel infantry archer@wall", "@tower, @gate or @temple"),
    ("lead 3", "a number and a kind"),
    ("lead 2 infantry 1 infantry", "twice"),
    ("lead 1 scout", "you cannot lead with scouts"),
])
def test_bad_text_gives_a_plain_error(text, message):
    with pytest.raises(InvalidMove) as err:
        parse_move(text)
    assert message in str(err.value)
    assert err.value.code == "bad_notation"


def test_every_legal_move_round_trips_in_random_games():
    seen = set()

    def every(state, seat, text):
        for who in GAME.to_act(state):
            for move in GAME.legal_moves(state, who):
                if move not in seen:
                    seen.add(move)
                    assert format_move(parse_move(move)) == move

    for seed in range(30):
        random_game(seed, every=every)
    kinds = {m.split()[0] for m in seen}
    assert kinds >= {"give", "pass", "buy", "arm", "move", "rest", "attack", "lead",
                     "sector", "duel", "wine", "stop"}


# --- every text the parser cannot read raises InvalidMove, whatever its characters ---

_WEIRD = ["²", "³", "¹", "٣", "۵", "५", "０", "１", "Ⅻ", "½", "\x00", "\u200b", "\u00a0",
          "\u2028", "\ufeff", "ß", "İ", "ﬁ", "🂡", "\U0001d7d9", "-", "~", "@", " "]


def _parse_or_invalid(text):
    try:
        move = parse_move(text)
    except InvalidMove:
        return None
    # whatever parses has a canonical spelling that parses to the same move
    assert parse_move(format_move(move)) == move
    return move


@pytest.mark.properties
@settings(max_examples=examples(400), deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(codec=None), max_size=40))
def test_fuzz_any_unicode_text_parses_or_raises_invalid_move(text):
    _parse_or_invalid(text)


@pytest.mark.properties
@settings(max_examples=examples(400), deadline=None, derandomize=True)
@given(st.sampled_from(CANONICAL), st.integers(min_value=0, max_value=60),
       st.sampled_from(_WEIRD), st.booleans())
def test_fuzz_legal_moves_mutated_with_unicode_digits_and_controls(text, pos, weird, swap):
    pos = min(pos, len(text))
    mutated = (text[:pos] + weird + text[pos + 1:]) if swap else (text[:pos] + weird
                                                                   + text[pos:])
    _parse_or_invalid(mutated)


@pytest.mark.parametrize("digit", ["²", "٣", "５", "\U0001d7d9", "Ⅻ", "½"])
def test_non_ascii_digits_are_refused_plainly(digit):
    for text in (f"buy {digit} infantry", f"give helaman {digit} food",
                 f"lead {digit} infantry", f"arm 1{digit} archers"):
        with pytest.raises(InvalidMove, match="whole number"):
            parse_move(text)


def test_a_count_too_big_says_the_range_it_accepts():
    """A newcomer's `buy 99999 infantry` is refused with the range, not "at least 1" (which
    it is)."""
    for text in ("buy 99999 infantry", "give helaman 10000 food", "buy 0 archers"):
        with pytest.raises(InvalidMove, match="from 1 to 9999"):
            parse_move(text)
    assert parse_move("buy 9999 infantry")
