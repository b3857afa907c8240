"""Notation: round trips and clear errors."""

import pytest

from shared import InvalidMove
from shared.stone_age import Move, format_move, parse_move

from .helpers import GAME, random_game

EXAMPLES = [
    "roll", "end", "accept", "decline", "withdraw", "nomad 100", "place 92", "take 45",
    "move 100-93-85", "tribe 59", "tribe 59 remove 92", "develop food", "develop hunting",
    "develop construction", "develop clothing", "neanderthal e3", "predator a8 steal blue",
    "desert i1", "discard 2meat+1bone", "bank 3meat for 1flint",
    "bank 6meat+3hide for 2bone+1flint",
    "offer 1hide for 1meat", "offer 2meat+1bone for 1flint to blue,white",
    "counter 1bone for 2hide", "confirm blue",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_canonical_examples_round_trip(text):
    move = parse_move(text)
    assert format_move(move) == text
    assert parse_move(format_move(move)) == move
    assert eval(repr(move), {"Move": Move}) == move


@pytest.mark.parametrize("text,canonical", [
    ("  ROLL ", "roll"),
    ("move 100 - 93 -85", "move 100-93-85"),
    ("offer 1bone+2meat for 1flint to white, blue", "offer 2meat+1bone for 1flint to blue,white"),
    ("discard 1meat+1meat", "discard 2meat"),
    ("bank 3 meats for 1 hide", "bank 3meat for 1hide"),
    ("Neanderthal  E3   steal  Blue", "neanderthal e3 steal blue"),
])
def test_lenient_input_gives_canonical_text(text, canonical):
    assert format_move(parse_move(text)) == canonical


@pytest.mark.parametrize("text,code", [
    ("", "bad_notation"), ("fly 12", "bad_notation"), ("roll 3", "bad_notation"),
    ("nomad x", "bad_crossing"), ("nomad 0", "bad_crossing"), ("nomad 145", "bad_crossing"),
    ("move 12", "bad_path"), ("tribe 12 13", "bad_notation"), ("develop magic", "bad_track"),
    ("neanderthal z9", "bad_hex"), ("neanderthal e3 steal green", "bad_seat"),
    ("bank 3wood for 1meat", "bad_cards"), ("bank 3meat", "bad_trade"),
    ("offer 1meat for 1bone to", "bad_seat"), ("discard", "bad_cards"),
    ("discard 0meat", "bad_cards"), ("confirm purple", "bad_seat"),
    ("offer meat for bone", "bad_cards"),
])
def test_bad_text_is_refused_with_a_sentence(text, code):
    with pytest.raises(InvalidMove) as exc:
        parse_move(text)
    assert exc.value.code == code
    assert exc.value.message and "\n" not in exc.value.message
    st = GAME.new_game(GAME.seat_names(4), {}, b"x")
    with pytest.raises(InvalidMove):
        GAME.play(st, "red", text)


def test_round_trip_over_every_legal_move_in_random_games():
    seen = set()

    def each(st, seat, move):
        for s in GAME.to_act(st):
            for text in GAME.legal_moves(st, s):
                m = parse_move(text)
                assert format_move(m) == text
                assert parse_move(format_move(m)) == m
                seen.add(m.kind)

    for i in range(6):
        random_game(b"notation-%d" % i, n=3 + i % 2, setup="advanced" if i % 2 else "fixed",
                    cap=600, each=each)
    assert {"roll", "end", "move", "bank", "offer", "develop", "place"} <= seen


def test_help_names_every_move():
    text = GAME.rules_help()
    for word in ("roll", "bank", "offer", "accept", "decline", "counter", "confirm", "withdraw",
                 "nomad", "move", "tribe", "develop", "neanderthal", "predator", "desert",
                 "take", "discard", "place", "end"):
        assert word in text


@pytest.mark.properties
def test_fuzzed_text_only_ever_raises_invalid_or_illegal_move():
    """Random word salad from the notation's own vocabulary never crashes the engine."""
    import copy

    from shared import IllegalMove
    from shared.rng import Rng
    words = ["roll", "end", "move", "nomad", "tribe", "remove", "develop", "food", "hunting",
             "neanderthal", "predator", "steal", "desert", "take", "discard", "bank", "offer",
             "for", "to", "accept", "decline", "counter", "confirm", "withdraw", "place", "red",
             "blue", "orange", "green", "e3", "a1", "b6", "100", "93", "0", "-", "1-2", "99999",
             "2meat+1bone", "1hide", "3meat", "0bone", "+", "meat", ",", "blue,white", "1-1-1"]
    rng = Rng(b"fuzz")
    st, _ = random_game(b"fuzz-state", n=4, cap=300)
    for _ in range(examples(3000, least=500)):
        text = " ".join(rng.choice(words) for _ in range(1 + rng.randbelow(6)))
        for seat in ("red", "blue", "white", "orange", "nobody"):
            before = copy.deepcopy(st)
            try:
                GAME.check(st, seat, text)
            except IllegalMove:
                try:
                    GAME.play(st, seat, text)
                except IllegalMove:
                    assert st == before
                    continue
                raise AssertionError(f"check refused but play accepted {text!r}") from None
            trial = copy.deepcopy(st)
            GAME.play(trial, seat, text)


# --- any text at all: only InvalidMove ----------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

from shared import IllegalMove  # noqa: E402
from tests.helpers.examples import examples  # noqa: E402

#: every code point, surrogates and control characters included
ANY_CHAR = hs.characters(exclude_categories=())
#: look-alikes of the notation's own characters: digits of other scripts, superscripts,
#: fullwidth forms, invisible and control characters
LOOKALIKES = ["²", "³", "¹", "⁰", "₂", "٣", "۳", "३", "３", "①", "Ⅷ", "𝟗", "\x00", "\u200b",
              "\u200f", "\u0301", "\ufeff", "\t", "\n", "ｍｅａｔ", "ｍ", "Ｍ", "ｅ", "ⅿ", "ı",
              "İ", "K", "ſ", "－", "＋", "‐", "+", "-", " ", "", "99999999999999999999"]
_STATE = []


def _mid_game_state():
    if not _STATE:
        _STATE.append(random_game(b"unicode-state", n=4, cap=400)[0])
    return _STATE[0]


def _only_clear_errors(text):
    """parse_move either reads ``text`` (and its canonical form reads back the same) or
    raises InvalidMove; play on a mid-game state raises nothing else either."""
    try:
        move = parse_move(text)
    except InvalidMove as exc:
        assert exc.message and "\n" not in exc.message
    else:
        assert parse_move(format_move(move)) == move
        assert format_move(move).isascii()
    st = _mid_game_state()
    for seat in st["seats"] + ["nobody"]:
        try:
            GAME.check(st, seat, text)
        except (InvalidMove, IllegalMove):
            pass


@pytest.mark.parametrize("text", ["nomad ²", "nomad ³³", "take ٣", "move 100-９３", "place ９２",
                                  "tribe 59 remove ²", "discard ²meat", "bank ３meat for 1hide",
                                  "nomad " + "9" * 5000, "discard " + "9" * 5000 + "meat",
                                  "move 100-" + "0" * 5000 + "93", "nomad \x00", "\x00roll"],
                         ids=lambda t: ascii(t[:24]))
def test_unicode_digits_and_huge_numbers_are_invalid_moves(text):
    """'nomad ²' passed str.isdigit() and int() raised ValueError (a 500 on the
    server); only ASCII digits are numbers, and a too long number is a plain InvalidMove."""
    if text == "move 100-" + "0" * 5000 + "93":
        assert format_move(parse_move(text)) == "move 100-93"   # leading zeros are harmless
        return
    with pytest.raises(InvalidMove):
        parse_move(text)
    _only_clear_errors(text)


@pytest.mark.properties
@settings(max_examples=examples(600), derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(hs.text(alphabet=ANY_CHAR, max_size=40))
def test_any_unicode_text_is_parsed_or_refused_with_invalid_move(text):
    """Full Unicode text (not only ASCII) never raises anything but InvalidMove/IllegalMove."""
    _only_clear_errors(text)


@pytest.mark.properties
@settings(max_examples=examples(600), derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(hs.sampled_from(EXAMPLES + ["take none"]), hs.lists(
    hs.tuples(hs.integers(0, 60), hs.integers(0, 60),
              hs.one_of(hs.sampled_from(LOOKALIKES), hs.text(alphabet=ANY_CHAR, max_size=3))),
    min_size=1, max_size=3))
def test_mutated_legal_moves_are_parsed_or_refused_with_invalid_move(text, edits):
    """Legal moves with pieces replaced by look-alikes: Unicode digits, fullwidth letters, NUL,
    zero-width and direction marks, combining accents, long numbers."""
    for start, length, piece in edits:
        start = min(start, len(text))
        text = text[:start] + piece + text[start + length % 3:]
    _only_clear_errors(text)
