"""Hidden information: no view, log line or rendering for one seat depends on another
seat's hand or development cards; no view holds the seed."""

import json

import pytest

from shared.rng import Rng
from shared.zarahemla import GAME

from .helpers import clone, random_game


def _random_split(rng, total, parts):
    out = [0] * parts
    for _ in range(total):
        out[rng.randbelow(parts)] += 1
    return out


def _perturb(st, seat, rng):
    """Another hand of the same size and other development cards of the same count."""
    p = st["players"][seat]
    p["hand"] = _random_split(rng, sum(p["hand"]), 5)
    p["dev"] = _random_split(rng, sum(p["dev"]), 7)
    p["new"] = [min(a, b) for a, b in zip(p["new"], p["dev"])]
    st["deck"] = _random_split(rng, sum(st["deck"]), 7)      # the deck's order is no one's


def _seen(st, seat):
    view = GAME.view(st, seat)
    return (json.dumps(view, sort_keys=True), GAME.events_for(st["events"], seat),
            GAME.render(view))


def _check_state(st, rng):
    seats = st["order"]
    seen = {b: _seen(st, b) for b in seats + [None]}
    for a in seats:
        other = clone(st)
        _perturb(other, a, rng)
        for b in seats + [None]:
            if b != a:
                assert seen[b] == _seen(other, b), (a, b)


@pytest.mark.slow
def test_no_view_or_log_line_depends_on_another_seats_hidden_cards():
    checked = 0
    for seed in range(40):
        rng = Rng(b"perturb", b"%d" % seed)

        def each(st, seat, mv, rng=rng):
            nonlocal checked
            if st["phase"] == "play" and st["ply"] % 61 == 0:
                _check_state(st, rng)
                checked += 1

        random_game(seed, n=2 + seed % 3, cap=1200, each=each)
    assert checked > 300


def test_spectator_sees_no_cards_and_no_view_holds_the_seed():
    def each(st, seat, mv):
        if st["ply"] % 37:
            return
        spectator = GAME.view(st, None)
        assert "hand" not in spectator and "dev" not in spectator
        for s in st["order"] + [None]:
            text = json.dumps(GAME.view(st, s))
            assert st["seed"] not in text
            assert "seed" not in GAME.view(st, s)
        for s in st["order"]:
            v = GAME.view(st, s)
            assert v["hand"] == dict(zip(("wood", "brick", "water", "wheat", "stone"),
                                         st["players"][s]["hand"]))
            assert set(v) - set(spectator) <= {"hand", "dev", "dev_new", "your_vp"}

    for seed in range(5):
        random_game(seed, n=2 + seed % 3, cap=800, each=each)


def test_the_log_says_a_card_was_stolen_without_naming_it_to_others():
    found = 0

    def each(st, seat, mv):
        nonlocal found
        for ev in st["events"]:
            if "stole" in ev["public"]:
                found += 1
                for s in st["order"]:
                    text = GAME.events_for([ev], s)[0]
                    if s in ev.get("private", {}):
                        assert any(r in text for r in ("wood", "brick", "water", "wheat",
                                                       "stone"))
                    else:
                        assert text == ev["public"]
                        assert "stole a card from" in text

    for seed in range(6):
        random_game(seed, cap=1500, each=each)
    assert found


def test_a_bought_card_is_named_only_to_its_buyer():
    def each(st, seat, mv):
        if mv == "buy":
            ev = st["events"][0]
            assert ev["public"].endswith("bought a development card.")
            assert set(ev["private"]) == {seat}

    for seed in range(4):
        random_game(seed, cap=1500, each=each)


def test_view_and_render_never_change_the_state_and_are_json():
    def each(st, seat, mv):
        if st["ply"] % 29:
            return
        before = json.dumps(st, sort_keys=True)
        for s in st["order"] + [None]:
            v = GAME.view(st, s)
            assert json.loads(json.dumps(v)) == v
            GAME.render(v, color=True)
            assert v["status"] in ("playing", "over")
            assert set(v["owes"]) == set(v["to_act"])
            assert set(v["scores"]) == set(st["order"])
        assert json.dumps(st, sort_keys=True) == before

    for seed in range(3):
        random_game(seed, n=2 + seed, cap=900, each=each)
