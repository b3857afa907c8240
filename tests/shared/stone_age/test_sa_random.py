"""Random legal players: no exception, no refused listed move, nobody stuck,
cards and pieces conserved, states stay JSON, views keep secrets."""

import copy
import json

import pytest

from shared.rng import Rng
from shared.stone_age import parse_move
from tests.helpers.examples import examples

from .helpers import GAME, cards_conserved, pieces_conserved, random_game

#: a safety cap on moves per game: random players need about 2,000 moves to reach 10 points,
#: so every game of the 1,000-game run is expected to end with a winner well before it.
CAP = 20000


def _checks(st, seat, move):
    cards_conserved(st)
    pieces_conserved(st)
    if st["ply"] % 50 == 0:  # the JSON round trip is the costly check: every 50th move
        assert json.loads(json.dumps(st)) == st
    assert set(GAME.to_act(st)) <= set(st["seats"])


def _play_many(n_games, prefix, cap):
    finished, moves = 0, 0
    for i in range(n_games):
        st, played = random_game(b"%s-%d" % (prefix, i), n=3 + i % 2,
                                 setup="advanced" if i % 5 == 0 else "fixed", cap=cap,
                                 each=_checks)
        moves += played
        res = GAME.result(st)
        if res is not None:
            finished += 1
            (winner,) = res["winners"]
            assert res["points"][winner] >= 10
            assert GAME.to_act(st) == []
            assert json.loads(json.dumps(st)) == st
        else:
            assert played == cap
    return finished, moves


def test_random_games_played_to_the_end():
    """Whole games: every one ends with a single winner at 10 or more points."""
    finished, moves = _play_many(10, b"whole", cap=20000)
    assert finished == 10


def test_random_version_1_games_still_play_to_the_end():
    """Old games keep their rules: version-1 games still play to a winner, never refusing a
    listed move, with cards and pieces conserved."""
    for i in range(4):
        st, played = random_game(b"v1-whole-%d" % i, n=3 + i % 2,
                                 setup="advanced" if i % 2 else "fixed", cap=20000,
                                 each=_checks, version="1")
        assert "rules_version" not in st and GAME.result(st) is not None


@pytest.mark.slow
def test_random_games_1000():
    """1,000 seeds, 3 and 4 players, both set-ups, each played to a winner; every move checked."""
    finished, moves = _play_many(1000, b"slow", cap=CAP)
    assert finished == 1000


def test_every_listed_move_is_accepted_by_check_and_play():
    """Listed moves are never refused: check accepts every one, and play too (on copies)."""
    def each(st, seat, move):
        for s in GAME.to_act(st):
            legal = GAME.legal_moves(st, s)
            assert legal
            for text in legal:
                GAME.check(st, s, text)
            if st["ply"] % 6 == 0:
                for text in legal:
                    GAME.play(copy.deepcopy(st), s, text, b"t")
    for i in range(4):
        random_game(b"listed-%d" % i, n=3 + i % 2, setup="advanced" if i % 2 else "fixed",
                    cap=500, each=each)


def test_timeout_moves_are_legal_and_deterministic():
    kinds = set()

    def each(st, seat, move):
        for s in GAME.to_act(st):
            t = GAME.timeout_move(st, s)
            assert t == GAME.timeout_move(st, s)
            GAME.check(st, s, t)
            kind = parse_move(t).kind
            kinds.add(kind)
            phase = st["phase"]
            if phase == "roll":
                assert t == "roll"
            elif phase == "discard":
                assert kind == "discard"
            elif s != st["current"]:
                assert t == "decline"
            elif not st["pending"] and phase == "main":
                assert t == "end"
    for i in range(4):
        random_game(b"timeout-%d" % i, n=4, setup="advanced" if i % 2 else "fixed", cap=800,
                    each=each)
    assert {"roll", "end", "decline", "discard", "place"} <= kinds


def _perturb(st, a, b, rng):
    """Another hand of the same size for ``a``: swap cards with a third seat.

    The supply stacks are face up (public), so the perturbation keeps them and
    every hand size: ``a`` trades different cards with a seat that is neither
    ``a`` nor the viewer ``b``.
    """
    others = [s for s in st["seats"] if s not in (a, b)]
    c = others[rng.randbelow(len(others))]
    ha, hc = st["hands"][a], st["hands"][c]
    for _ in range(3):
        i, j = rng.randbelow(4), rng.randbelow(4)
        if i != j and ha[i] and hc[j]:
            ha[i] -= 1
            hc[i] += 1
            hc[j] -= 1
            ha[j] += 1


@pytest.mark.properties
def test_hidden_information_property():
    """Changing A's hand never changes what B or a spectator sees, reads or renders."""
    rng = Rng(b"perturb")
    checked, changed = [0], [0]

    def each(st, seat, move):
        if st["ply"] % 13:
            return
        for a in st["seats"]:
            for b in [None] + [s for s in st["seats"] if s != a]:
                view = GAME.view(st, b)
                text = json.dumps(view)
                assert st["seed"] not in text
                events = GAME.events_for(st["events"], b)
                picture = GAME.render(view)
                other = copy.deepcopy(st)
                _perturb(other, a, b, rng)
                if other["hands"][a] != st["hands"][a]:
                    assert GAME.view(other, a)["hand"] != GAME.view(st, a)["hand"]
                    changed[0] += 1
                assert GAME.view(other, b) == view
                assert GAME.events_for(other["events"], b) == events
                assert GAME.render(GAME.view(other, b)) == picture
                checked[0] += 1
        spectator = GAME.view(st, None)
        assert "hand" not in spectator and spectator["you"] is None
        for ev in st["events"]:
            if ev.get("private"):
                assert not any(r in ev["public"] for r in ("meat", "bone", "flint", "hide"))
    for i in range(examples(8, least=2)):
        random_game(b"hidden-%d" % i, n=3 + i % 2, cap=700, each=each)
    assert checked[0] > 500 and changed[0] > 200


def test_own_hand_is_shown_to_its_owner():
    st = GAME.new_game(GAME.seat_names(4), {}, b"own")
    view = GAME.view(st, "blue")
    assert view["hand"] == {"meat": 0, "bone": 1, "flint": 0, "hide": 1}
    assert "Your hand (blue): 1 bone, 1 hide." in GAME.render(view)
    assert "Your hand" not in GAME.render(GAME.view(st, None))


@pytest.mark.properties
def test_render_fits_80_columns_and_views_are_json():
    def each(st, seat, move):
        if st["ply"] % 11:
            return
        for viewer in [None] + st["seats"]:
            view = GAME.view(st, viewer)
            assert json.loads(json.dumps(view)) == view
            for color in (False, True):
                text = GAME.render(view, color=color)
                if not color:
                    assert max(len(line) for line in text.splitlines()) <= 80
    for i in range(examples(3, least=1)):
        random_game(b"render-%d" % i, n=4, cap=1500, each=each)


@pytest.mark.properties
def test_illegal_moves_leave_the_state_unchanged():
    from shared import IllegalMove
    tries = ["roll", "end", "move 1-2", "tribe 59", "develop food", "bank 3meat for 1bone",
             "accept", "discard 1meat", "neanderthal e3", "take 1", "place 92", "confirm blue"]

    def each(st, seat, move):
        if st["ply"] % 5:
            return
        for s in st["seats"]:
            for text in tries:
                before = copy.deepcopy(st)
                try:
                    GAME.check(st, s, text)
                except IllegalMove:
                    try:
                        GAME.play(st, s, text)
                    except IllegalMove:
                        pass
                    else:
                        raise AssertionError(f"play accepted {text} which check refused")
                    assert st == before
    for i in range(examples(3, least=1)):
        random_game(b"illegal-%d" % i, n=4, cap=600, each=each)


def test_version_3_plays_as_version_2_with_the_offer_in_its_shared_place():
    """Version 3 changes only where the open offer lives: the same seeded random moves give
    the same duties, legal moves, views, timeouts and states (with the offer moved back)."""
    import copy
    import random as _random

    def as_v2(st):
        st = copy.deepcopy(st)
        del st["rules_version"]
        offer = st.pop("offer")
        if offer:
            del offer["owed"]
        st["turn"]["offer"] = offer
        return st
    for seed in range(3):
        rnd = _random.Random(seed)
        opts = {"setup": "advanced" if seed == 0 else "fixed"}
        a = GAME.new_game(GAME.seat_names(3 + seed % 2), opts, b"v%d" % seed, rules_version="2")
        b = GAME.new_game(GAME.seat_names(3 + seed % 2), opts, b"v%d" % seed, rules_version="3")
        for ply in range(1500):
            assert GAME.owes(a) == GAME.owes(b)
            if not GAME.to_act(a):
                break
            va, vb = GAME.view(a, None), GAME.view(b, None)
            assert va.pop("rules_version") == "2" and vb.pop("rules_version") == "3"
            assert va == vb
            for s in GAME.to_act(a):
                assert GAME.legal_moves(a, s) == GAME.legal_moves(b, s)
                assert GAME.timeout_move(a, s) == GAME.timeout_move(b, s)
            seat = rnd.choice(GAME.to_act(a))
            move = rnd.choice(GAME.legal_moves(a, seat))
            GAME.play(a, seat, move, b"%d" % ply)
            GAME.play(b, seat, move, b"%d" % ply)
            a_v2 = as_v2(b)
            a_v2["rules_version"] = "2"
            assert a_v2 == a
