"""The contract every game keeps, checked over ``game_types()`` (the Pig fixture included).

A game that passes these can be served, played from the command line, archived and replayed:

* every legal move survives a notation round trip (``format_move(parse_move(m)) == m``);
* ``check`` agrees with ``play``: a listed move passes both; a move refused by ``check`` is
  refused by ``play`` too, and leaves the state as it was;
* the view never changes the state, is JSON, and has the required keys (``view_keys``);
* the board fits 80 columns; the SVG (where the game draws one) parses;
* the same seed and moves give the same state hash;
* a sentinel written into one seat's hidden fields (``hidden_fields``) never reaches another
  seat's view, log or facts;
* for every open-ended kind, the game lists at least one example whenever a move of that kind
  is legal: moves of that kind seen anywhere are tried, and one that ``check`` accepts while
  the list shows none of its kind fails the test;
* the timeout move of every seat that owes one is accepted.

The default run plays a few short games per type; ``pytest -m slow`` plays longer ones.
"""

import copy
import hashlib
import json
import random
import xml.etree.ElementTree as ET

import pytest

from shared import IllegalMove, InvalidMove
from shared.base import Game
from shared.games import game_types, get_game

GAMES = game_types()




def kind_of(text):
    """The kind a move's text shows: its first word, or "play CARD" for a card."""
    words = text.split()
    return " ".join(words[:2]) if words[0] == "play" and len(words) > 1 else words[0]


def state_hash(state):
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def seat_counts(game):
    return sorted({game.min_seats, game.max_seats, min(game.max_seats, game.min_seats + 1)})


def play_random(game, n, seed, plies, each=None):
    """A game of ``n`` seats played at random for up to ``plies`` moves; (state, moves)."""
    rnd = random.Random(seed)
    state = game.new_game(game.seat_names(n), {}, b"contract-%d" % seed)
    moves = []
    for ply in range(plies):
        owing = game.to_act(state)
        if not owing:
            break
        if each is not None:
            each(state, ply)
        seat = rnd.choice(owing)
        listed = game.legal_moves(state, seat)
        assert listed, f"{seat} owes a move and has none listed"
        move = rnd.choice(listed)
        entropy = b"e%d" % ply
        state = game.play(state, seat, move, entropy)
        moves.append((seat, move, entropy))
    return state, moves


def replay(game, n, seed, moves):
    state = game.new_game(game.seat_names(n), {}, b"contract-%d" % seed)
    for seat, move, entropy in moves:
        state = game.play(state, seat, move, entropy)
    return state


class Checker:
    """The per-state checks; ``seen`` gathers every listed move by kind, across states."""

    def __init__(self, game):
        self.game = game
        self.seen = {}

    def state(self, state, ply):
        game = self.game
        before = state_hash(state)
        seats = state_seats(game, state)
        listed = {}
        for seat in seats:
            listed[seat] = game.legal_moves(state, seat)
            for text in listed[seat]:
                move = game.parse_move(text)
                assert game.format_move(move) == text, "the notation does not round-trip"
                assert game.parse_move(game.format_move(move)) == move
                self.seen.setdefault(kind_of(text), set()).add(text)
        self.check_agrees_with_play(state, seats, listed)
        self.views(state, seats)
        self.open_ended(state, seats, listed)
        owing = game.to_act(state)
        for seat in owing:
            move = game.timeout_move(state, seat)
            if move is None:  # it waits for another seat's move: one must owe one
                assert [s for s in owing if s != seat], f"{seat}'s timeout waits for nobody"
                continue
            game.check(state, seat, move)
        assert state_hash(state) == before, "checking, listing or viewing changed the state"

    def check_agrees_with_play(self, state, seats, listed):
        game = self.game
        for seat in seats:
            for text in listed[seat][:12]:
                game.check(state, seat, text)
                game.play(copy.deepcopy(state), seat, text, b"agree")
            # another seat's moves, and moves of other states: refused by both or neither
            others = [t for s in seats if s != seat for t in listed[s][:4]]
            others += [t for texts in self.seen.values() for t in sorted(texts)[:2]]
            for text in others[:24]:
                copy_ = copy.deepcopy(state)
                try:
                    game.check(state, seat, text)
                except IllegalMove:
                    with pytest.raises(IllegalMove):
                        game.play(copy_, seat, text, b"agree")
                    assert state_hash(copy_) == state_hash(state), "a refused move changed " \
                        "the state"
                else:
                    game.play(copy_, seat, text, b"agree")

    def views(self, state, seats):
        game = self.game
        for seat in list(seats) + [None]:
            view = game.view(state, seat)
            missing = set(game.view_keys) - set(view)
            assert not missing, f"the view lacks {sorted(missing)}"
            assert json.loads(json.dumps(view)) == view, "the view is not plain JSON"
            assert view["you"] == seat
            assert "seed" not in view and state["seed"] not in json.dumps(view)
            board = game.render(view)
            assert max(len(line) for line in board.splitlines()) <= 80, "the board is too wide"
            try:
                drawing = game.svg(view)
            except NotImplementedError:
                continue
            assert ET.fromstring(drawing).tag == "{http://www.w3.org/2000/svg}svg"

    def open_ended(self, state, seats, listed):
        game = self.game
        for seat in seats:
            shown = {kind_of(t) for t in listed[seat]}
            for kind in game.open_ended_kinds:
                if kind in shown:
                    continue
                for text in sorted(self.seen.get(kind, ()))[:30]:
                    try:
                        game.check(state, seat, text)
                    except IllegalMove:
                        continue
                    pytest.fail(f"{seat} may play {text!r} but no {kind} move is listed")


def state_seats(game, state):
    """The seats of a state, read through the view of a spectator (``scores`` has them all)."""
    return list(game.view(state, None)["scores"])


@pytest.fixture(params=GAMES)
def game(request):
    return get_game(request.param)


def test_every_registered_game_is_a_template_game(game):
    assert isinstance(game, Game)
    assert game.rules_version in game.rules_versions
    for kind in game.checks:
        assert kind in game.applies, f"{kind} has a check and no apply"
    assert set(game.applies) == set(game.checks)
    for name in ("parse_move", "format_move", "to_act", "owes", "legal_moves", "new_state",
                 "view"):
        assert getattr(type(game), name) is not getattr(Game, name), f"{name} is not written"
    assert game.render_module is not None or type(game).render is not Game.render


def _contract(game, plies, games_per_count):
    for n in seat_counts(game):
        for g in range(games_per_count):
            seed = 100 * n + g
            checker = Checker(game)
            state, moves = play_random(game, n, seed, plies,
                                       each=lambda st, ply: ply % 7 == 0 and
                                       checker.state(st, ply))
            checker.state(state, len(moves))
            assert state_hash(replay(game, n, seed, moves)) == state_hash(state), \
                "the same seed and moves gave another state"


def test_the_contract_over_short_random_games(game):
    _contract(game, plies=90, games_per_count=1)


@pytest.mark.slow
def test_the_contract_over_long_random_games(game):
    _contract(game, plies=700, games_per_count=2)


def test_every_move_parsed_is_a_shared_move_with_a_pasteable_repr(game):
    from shared.move import Move
    state, _ = play_random(game, game.min_seats if game.min_seats > 1 else 2, 3, 40)
    for seat in game.to_act(state):
        for text in game.legal_moves(state, seat)[:20]:
            move = game.parse_move(text)
            assert isinstance(move, Move)
            again = type(move)(*eval(repr(move), {"Move": lambda k, a=(): (k, a)}))
            assert again == move and str(move) == text


@pytest.mark.parametrize("text", ["", " ", "\x00", "роль", "🎲 roll", "x" * 5000, "1e9",
                                  "\u202eroll", "roll\nroll"])
def test_text_that_does_not_parse_raises_invalid_move(game, text):
    state = game.new_game(game.seat_names(max(game.min_seats, 2) if game.max_seats > 1 else 1),
                          {}, b"bad-text")
    try:
        game.parse_move(text)
    except InvalidMove as exc:
        assert exc.message
    seat = game.to_act(state)[0]
    before = state_hash(state)
    try:
        game.play(state, seat, text)
    except IllegalMove:
        assert state_hash(state) == before


def _plant(state, path, value):
    where = state
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value


def test_hidden_fields_never_reach_another_seat(game):
    checked = 0
    for seed in range(3):
        n = max(2, game.min_seats) if game.max_seats > 1 else 1
        state, _ = play_random(game, n, 500 + seed, 30 + 20 * seed)
        fields = game.hidden_fields(state)
        if not fields:
            continue
        sentinels = {}
        for i, (seat, path) in enumerate(fields):
            value = 7_300_001 + 7919 * i   # no sum of a few of them contains one of them
            _plant(state, path, value)
            sentinels.setdefault(seat, []).append(str(value))
        seats = state_seats(game, state)

        def drawing(view):
            try:
                return game.svg(view)
            except NotImplementedError:
                return ""

        def leaks(st):
            for viewer in seats + [None]:
                view = game.view(st, viewer)
                shown = json.dumps([view, game.events_for(st["events"], viewer),
                                    game.facts_for(st["events"], viewer),
                                    game.render(view), drawing(view)])
                for owner, values in sentinels.items():
                    if owner == viewer:
                        continue
                    for value in values:
                        assert value not in shown, f"{owner}'s hidden {value} reached {viewer}"
        leaks(state)
        owing = game.to_act(state)
        if owing:
            seat = owing[0]
            state = game.play(state, seat, game.legal_moves(state, seat)[0], b"sentinel")
            if game.result(state) is None:   # a finished game shows everything
                leaks(state)
        checked += 1
    if game.name == "title_of_liberty":
        assert checked == 0   # nothing is hidden in the cooperative game
    else:
        assert checked, "no state had hidden fields to check"
