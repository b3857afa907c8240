"""Views, rendering and the (small) hidden information: the seed and future dice."""

import copy
import json

import pytest

from shared.title_of_liberty import GAME
from tests.helpers.examples import examples

from .helpers import act, fresh, kill, pass_all, random_game


def test_view_has_the_required_keys_and_no_seed():
    state = fresh(3)
    for seat in ("moroni", "lehi", None):
        view = GAME.view(state, seat)
        for key in ("game", "status", "to_act", "owes", "scores", "you", "round", "rounds",
                    "armies", "cities", "battle", "rounds_left"):
            assert key in view
        assert view["you"] == seat
        text = json.dumps(view)
        assert state["seed"] not in text and "seed" not in view
        assert view["scores"] == {"moroni": 0, "helaman": 0, "lehi": 0}


def test_view_does_not_change_the_state_and_is_not_shared():
    state = fresh(2)
    pass_all(state)
    act(state, "moroni", "move bountiful-s1", 2)
    before = copy.deepcopy(state)
    view = GAME.view(state, "moroni")
    view["armies"]["moroni"]["live"]["infantry"] = 99
    view["battle"]["lamanites"]["archer"] = 99
    assert state == before


def test_render_lines_fit_in_80_columns_for_every_inset():
    state = fresh(2)
    pass_all(state)
    act(state, "moroni", "move bountiful-v2-h1", 3)
    act(state, "moroni", "lead 2 infantry")
    hill = GAME.render(GAME.view(state, "moroni"))
    assert "LAMANITE HILL" in hill and "forest" in hill and "Advantage): 1 scout, 2 inf" in hill
    act(state, "moroni", "stop")
    pass_all(state)
    act(state, "helaman", "move bountiful-s1", 1)
    shore = GAME.render(GAME.view(state, None))
    # rules version 3: on foot, the beach gives no Advantage ("Nephite Advantage (on boat)")
    assert "no boat" in shore and "zone 1, no Advantage" in shore
    act(state, "helaman", "stop")
    pass_all(state)
    act(state, "moroni", "move h1-v2-bountiful~mulek")
    act(state, "moroni", "sector stockade")
    kill(state, "moroni", "captain", "archer@tower")
    city = GAME.render(GAME.view(state, "moroni"))
    assert "THE CITY OF MULEK" in city and "TEMPLE" in city and "STOCKADE" in city
    assert "h1*" in city and "s1*" in city  # battles left unfinished
    for text in (hill, shore, city, GAME.render(GAME.view(state, None), color=True)):
        for line in text.replace("\x1b[31m", "").replace("\x1b[34m", "").replace(
                "\x1b[0m", "").splitlines():
            assert len(line) <= 80, line


def test_render_labels_every_space_with_its_notation_name():
    text = GAME.render(GAME.view(fresh(), None)).lower()
    from shared.title_of_liberty.board import SPACES
    for space in SPACES:
        assert space in text


def test_render_shows_boards_round_and_duties():
    state = fresh(2, rounds=7)
    text = GAME.render(GAME.view(state, "helaman"))
    assert "Round 1 of 7 (7 left)" in text
    assert "helaman (you): give food, gold or weapons to moroni, or pass" in text
    assert ("moroni*   bountiful      1   2  14   8   5 |   0    0    0     0 |    5   0    0"
            in text)
    assert "Flags (cities liberated): moroni 0, helaman 0." in text


def _views(state):
    out = []
    for seat in state["seats"] + [None]:
        view = GAME.view(state, seat)
        out.append((json.dumps(view, sort_keys=True), GAME.render(view),
                    GAME.events_for(state["events"], seat)))
    return out


@pytest.mark.properties
def test_hidden_information_the_seed_never_shows():
    """The only secret is the seed: changing it (and so the future dice) changes no view."""
    checked = 0

    def every(state, seat, text):
        nonlocal checked
        if state["ply"] % 7:
            return
        other = copy.deepcopy(state)
        other["seed"] = "00" * 16
        assert _views(state) == _views(other)
        for view_text, _, _ in _views(state):
            assert state["seed"] not in view_text
        checked += 1

    for seed in range(examples(40, least=10)):
        random_game(seed, every=every)
    assert checked > 25


def _reordered(value):
    """The same value with every mapping's keys in the reverse order."""
    if isinstance(value, dict):
        return {k: _reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(v) for v in value]
    return value


def test_render_reads_the_same_whatever_order_the_counts_come_in():
    """The text board of one state is the same from the server's JSON (its keys sorted) as
    from a local replay (the engine's own order): pbem show and pbem verify printed
    "28 arch, 5 capt, 42 inf" and "28 arch, 25 inf, 3 capt" for the same kind of count.  The
    kinds read in the army table's order (captains before scouts, infantry, archers)."""
    for seed in (3, 8, 21):
        state, _ = random_game(seed, n=2, cap=400)
        for seat in (None, "moroni"):
            view = GAME.view(state, seat)
            text = GAME.render(view)
            assert GAME.render(json.loads(json.dumps(view, sort_keys=True))) == text
            assert GAME.render(_reordered(view)) == text
    text = GAME.render(GAME.view(fresh(2), None))
    assert "Lamanites on the boards: 1 KING, 5 capt, 42 inf, 48 arch;" in text
