"""The map: topology, the beginner board, the variable board and the marker spiral."""

from collections import Counter

from shared.zarahemla import GAME
from shared.zarahemla.board import (
    COAST,
    CORNER_HEXES,
    CORNER_NEIGHBOURS,
    EDGES,
    HEX_NAMES,
    MARKER_VALUES,
    N_CORNERS,
    N_EDGES,
    N_HEXES,
    POST_EDGES,
    spiral,
)

from .helpers import hex_corners, new


def test_topology_has_19_hexes_54_corners_72_paths_30_coast_paths():
    assert (N_HEXES, N_CORNERS, N_EDGES, len(COAST)) == (19, 54, 72, 30)
    assert all(1 <= len(h) <= 3 for h in CORNER_HEXES)
    assert all(2 <= len(n) <= 3 for n in CORNER_NEIGHBOURS)
    assert all(len(hex_corners(h)) == 6 for h in HEX_NAMES)


def test_nine_post_sites_on_the_coast_never_share_a_corner():
    assert len(POST_EDGES) == 9
    corners = [c for e in POST_EDGES for c in EDGES[e]]
    assert len(set(corners)) == 18
    assert set(POST_EDGES) <= set(COAST)


def test_beginner_board_is_fixed_with_the_standard_mix():
    st = new(board="beginner")
    assert Counter(st["terrain"]) == {"wood": 4, "brick": 3, "water": 4, "wheat": 4,
                                      "stone": 3, "hideout": 1}
    assert st["terrain"][HEX_NAMES.index("J")] == "hideout"
    assert st["robber"] == HEX_NAMES.index("J")
    assert Counter(st["posts"]) == {"3:1": 4, "wood": 1, "brick": 1, "water": 1, "wheat": 1,
                                    "stone": 1}
    assert new(board="beginner", seed=b"other")["terrain"] == st["terrain"]


def test_rules_note_16_markers_follow_the_counter_clockwise_spiral_skipping_the_hideout():
    st = new(board="beginner")
    order = "ADHMQRSPLGCBEINOKFJ"
    assert [HEX_NAMES[h] for h in spiral(0)] == list(order)
    laid = [(st["markers"][HEX_NAMES.index(h)], st["numbers"][HEX_NAMES.index(h)])
            for h in order if h != "J"]
    assert laid == list(zip("ABCDEFGHIJKLMNOPQR", MARKER_VALUES))
    assert st["numbers"][HEX_NAMES.index("J")] == 0
    assert st["markers"][HEX_NAMES.index("J")] == ""


def test_rules_note_16_variable_board_from_the_seed():
    boards = set()
    for i in range(12):
        st = GAME.new_game(["red", "blue", "white"], {}, b"var%d" % i)
        assert Counter(st["terrain"]) == {"wood": 4, "brick": 3, "water": 4, "wheat": 4,
                                          "stone": 3, "hideout": 1}
        assert sorted(n for n in st["numbers"] if n) == sorted(MARKER_VALUES)
        hideout = st["terrain"].index("hideout")
        assert st["numbers"][hideout] == 0 and st["robber"] == hideout
        assert sorted(st["markers"]) == [""] + list("ABCDEFGHIJKLMNOPQR")
        boards.add(tuple(st["terrain"]))
        again = GAME.new_game(["red", "blue", "white"], {}, b"var%d" % i)
        assert again["terrain"] == st["terrain"] and again["numbers"] == st["numbers"]
    assert len(boards) > 6


def test_rules_note_16_the_trading_posts_are_fixed_on_the_board():
    """RULES.md item 16.  The book varies only the hex strips: "Notice that depending on the
    way you lay the strips, what order you put them in and what side you lay them on, you
    can have a different setup every time you play."  The Trading Posts ("marked by semi
    circles") are on the board around them, so from rules version 3 every board has them
    where the frame prints them; version 2 games shuffled them (and still replay so)."""
    from shared.zarahemla.board import FIXED_POSTS
    shuffled = set()
    for i in range(12):
        st = GAME.new_game(["red", "blue", "white"], {}, b"var%d" % i)
        assert st["posts"] == list(FIXED_POSTS)
        old = GAME.new_game(["red", "blue", "white"], {}, b"var%d" % i, rules_version="2")
        assert sorted(old["posts"]) == sorted(FIXED_POSTS)
        shuffled.add(tuple(old["posts"]))
    assert len(shuffled) > 6
    assert Counter(FIXED_POSTS) == {"3:1": 4, "wood": 1, "brick": 1, "water": 1, "wheat": 1,
                                    "stone": 1}


def test_spiral_from_any_outer_hex_visits_every_hex_once():
    for k in range(12):
        assert sorted(spiral(k)) == list(range(19))
