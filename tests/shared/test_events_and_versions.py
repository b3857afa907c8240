"""Facts as fields (shared.events) and rules versions (shared.base)."""

import pytest

from shared import IllegalMove
from shared.base import rules_version_of, set_rules_version
from shared.events import add_event, facts_for
from shared.games import game_types, get_game


def test_facts_are_redacted_for_the_viewer():
    state = {"rules_version": "2", "events": []}
    add_event(state, "red robs blue.", private={"red": "You take wool.", "blue": "red takes "
              "your wool."}, kind="rob", data={"thief": "red", "victim": "blue"},
              private_data={"red": {"card": "wool"}, "blue": {"card": "wool"}})
    assert facts_for(state["events"], None) == [{"kind": "rob", "data": {"thief": "red",
                                                                        "victim": "blue"}}]
    assert facts_for(state["events"], "white")[0]["data"] == {"thief": "red", "victim": "blue"}
    assert facts_for(state["events"], "red")[0]["data"]["card"] == "wool"


def test_facts_are_kept_at_every_rules_version_version_one_included():
    state = {"events": []}
    add_event(state, "red rolls 7.", kind="roll", data={"dice": [3, 4]})
    assert state["events"] == [{"public": "red rolls 7.", "kind": "roll",
                                "data": {"dice": [3, 4]}}]
    assert rules_version_of(state) == "1"
    assert set_rules_version({}, "1") == {}
    assert set_rules_version({}, "2") == {"rules_version": "2"}


@pytest.mark.parametrize("name", [n for n in game_types() if n != "pig"])
def test_every_game_refuses_a_rules_version_it_cannot_play(name):
    game = get_game(name)
    assert game.rules_version in game.rules_versions
    with pytest.raises(IllegalMove) as exc:
        game.resolve_rules_version("999")
    assert exc.value.code == "bad_rules_version"


@pytest.mark.parametrize("name", [n for n in game_types() if n != "pig"])
def test_a_new_game_records_the_version_it_is_played_under(name):
    game = get_game(name)
    seats = game.seat_names(max(game.min_seats, 3) if game.max_seats >= 3 else game.min_seats)
    for version in game.rules_versions:
        state = game.new_game(seats, {}, b"seed", rules_version=version)
        assert rules_version_of(state) == version


def test_svg_writer_escapes_player_text_and_titles_every_piece():
    from shared.svg import Drawing, circle, text
    doc = Drawing(10, 10, title='<b>"x"</b>')
    doc.add(circle(1, 2, 3, cls="robber", title="<script>"), text(1, 1, "a&b", data_place="F"))
    out = doc.render()
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert 'data-place="F"' in out and "a&amp;b" in out and 'class="robber"' in out
