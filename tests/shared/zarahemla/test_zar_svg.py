"""The Zarahemla board drawn as SVG (shared/zarahemla/svg.py): drawn from the view only,
every piece named and titled, everything escaped, no hidden card ever drawn."""

import json

from shared.rng import Rng
from shared.zarahemla import GAME
from shared.zarahemla.board import EDGES, HEX_NAMES

from ..svg_checks import check_pieces_titled, check_safe, own_title, parse, pieces
from .helpers import clone, new, play, put_building, put_road, random_game

SETUP = [("red", "settle 14"), ("red", "road 14-19"), ("blue", "settle 31"),
         ("blue", "road 31-37"), ("white", "settle 45"), ("white", "road 45-49"),
         ("white", "settle 5"), ("white", "road 1-5"), ("blue", "settle 22"),
         ("blue", "road 22-28"), ("red", "settle 33"), ("red", "road 27-33"),
         ("red", "start 14"), ("blue", "start 31"), ("white", "start 45")]


def known_position():
    """Beginner board, three seats, the set-up played by moves; then a red city on 33, a
    blue road 37-42 and the robber moved to F (a test set-up, as after a 7)."""
    st = new(3)
    for seat, move in SETUP:
        st = play(st, seat, move)
    put_building(st, "red", 33, city=True)
    put_road(st, "blue", 37, 42)
    st["robber"] = HEX_NAMES.index("F")
    st["players"]["white"]["stones"] = 3
    st["temple"] = "white"
    return st


def draw(st, seat=None):
    return GAME.svg(GAME.view(st, seat))


def test_the_known_position_holds_every_piece_where_the_notation_says():
    st = known_position()
    root = parse(draw(st))
    hexes = pieces(root, "hex")
    assert [h.get("data-place") for h in hexes] == list(HEX_NAMES)
    f = hexes[HEX_NAMES.index("F")]
    assert own_title(f) == "hex F: water, 11 (number marker R, laid in letter order)"
    # the hex shows one letter, its own name: the marker's letter is in the title only
    assert [t.text for t in f.iter("{http://www.w3.org/2000/svg}text")
            if t.text and t.text.isalpha()] == ["F"]
    assert not pieces(root, "marker")
    assert own_title(hexes[HEX_NAMES.index("J")]) == "hex J: the Gadianton Robber Hideout"
    numbers = pieces(root, "number")
    assert len(numbers) == 18 and "7" not in [n.text for n in numbers]
    assert sorted(int(n.text) for n in numbers) == sorted(
        h["number"] for h in GAME.view(st, None)["board"]["hexes"] if h["number"])
    robber = pieces(root, "robber")
    assert len(robber) == 1 and robber[0].get("data-place") == "F"
    assert own_title(robber[0]) == "the Gadianton Robber, on hex F"
    roads = pieces(root, "road")
    assert sorted(r.get("data-place") for r in roads) == sorted(
        ["14-19", "31-37", "45-49", "1-5", "22-28", "27-33", "37-42"])
    assert own_title([r for r in roads if r.get("data-place") == "37-42"][0]) == \
        "blue road on path 37-42"
    assert "seat-blue" in [r for r in roads if r.get("data-place") == "37-42"][0].get("class")
    settlements = {s.get("data-place"): own_title(s) for s in pieces(root, "settlement")}
    assert settlements == {"14": "red settlement on corner 14",
                           "31": "blue settlement on corner 31",
                           "45": "white settlement on corner 45",
                           "5": "white settlement on corner 5",
                           "22": "blue settlement on corner 22"}
    cities = pieces(root, "city")
    assert [(c.get("data-place"), own_title(c)) for c in cities] == [
        ("33", "red city on corner 33")]
    # a white piece keeps a dark outline so it shows on a light background
    white = [s for s in pieces(root, "settlement") if "seat-white" in s.get("class")][0]
    assert white.get("fill") == "#ffffff" and white.get("stroke") == "#1a1a1a"
    # every corner and path of the notation is a place: a piece stands on it, or a hover
    # target names it; the labels print every corner's number and every path's name
    on_corners = pieces(root, "corner") + pieces(root, "settlement") + pieces(root, "city")
    assert sorted(int(c.get("data-place")) for c in on_corners) == list(range(1, 55))
    assert own_title([c for c in on_corners if c.get("data-place") == "40"][0]) == "corner 40"
    on_paths = pieces(root, "path") + roads
    assert sorted(p.get("data-place") for p in on_paths) == sorted(
        f"{a + 1}-{b + 1}" for a, b in EDGES)
    assert own_title([p for p in on_paths if p.get("data-place") == "2-6"][0]) == "path 2-6"
    corner_labels = pieces(root, "corner-labels")[0]
    assert [t.text for t in corner_labels] == [str(i) for i in range(1, 55)]
    path_labels = pieces(root, "path-labels")[0]
    assert path_labels.get("display") == "none"
    assert sorted(t.text for t in path_labels) == sorted(p.get("data-place") for p in on_paths)
    posts = pieces(root, "post")
    assert [p.get("data-place") for p in posts] == [
        "1-5", "3-6", "11-16", "33-38", "47-51", "50-53", "44-48", "28-34", "12-17"]
    assert own_title(posts[1]) == "2:1 wheat Trading Post on path 3-6 (2 wheat for 1)"
    assert own_title(posts[0]) == "3:1 Trading Post on path 1-5 (3 alike for 1)"
    stones = {own_title(g) for g in pieces(root, "temple-stones")}
    assert "white: 3 Temple Stones, Greatest Temple Contributor" in stones
    assert "red: 0 Temple Stones" in stones
    check_pieces_titled(root, ["hex", "road", "settlement", "city", "robber", "post",
                               "corner", "path", "temple-stones", "temple"])


def test_the_drawing_is_safe_and_small():
    st, _ = random_game(5, n=4, cap=3000)
    svg = draw(st)
    check_safe(svg)
    assert len(svg) < 48000
    assert len(draw(known_position())) < 48000


def test_player_text_is_escaped():
    view = GAME.view(known_position(), None)
    evil = '<script>alert("x")</script>'
    view["board"]["buildings"]["14"] = [evil, "settlement"]
    view["board"]["roads"]["14-19"] = evil
    view["players"][evil] = dict(view["players"]["red"])
    view["order"].append(evil)
    view["temple_contributor"] = evil
    view["board"]["hexes"][0]["terrain"] = evil
    view["board"]["posts"][0]["type"] = evil
    svg = GAME.svg(view)
    check_safe(svg)
    assert "&lt;script&gt;" in svg
    root = parse(svg)
    on14 = [p for p in pieces(root, "settlement") if p.get("data-place") == "14"]
    assert own_title(on14[0]) == evil + " settlement on corner 14"


def test_missing_or_new_fields_never_crash():
    view = GAME.view(known_position(), None)
    for key in ("players", "order", "temple_contributor", "board"):
        v = json.loads(json.dumps(view))
        del v[key]
        check_safe(GAME.svg(v))
    v = json.loads(json.dumps(view))
    v["board"] = {"hexes": [{"hex": "A"}], "posts": None, "roads": {"14-19": "green"},
                  "buildings": {"14": ["purple", "castle"], "99": "bad"}, "robber": "Z",
                  "something_new": [1, 2]}
    v["players"] = {"red": {"temple_stones": "many"}, "blue": None}
    v["new_field"] = {"x": 1}
    root = parse(GAME.svg(v))
    assert len(pieces(root, "hex")) == 19 and not pieces(root, "robber")
    check_safe(GAME.svg({}))


def _sentinels(st, viewer):
    """Sentinel hidden values in every seat's hand and development cards but the viewer's."""
    marks = []
    for i, s in enumerate(st["order"]):
        if s == viewer:
            continue
        p = st["players"][s]
        p["hand"] = [7001 + 10 * i + k for k in range(5)]
        p["dev"] = [8001 + 10 * i + k for k in range(7)]
        p["new"] = [6001 + 10 * i + k for k in range(7)]
        marks += p["hand"] + p["dev"] + p["new"]
    return [str(m) for m in marks]


def test_random_games_never_draw_a_hidden_card():
    checked = 0
    for seed in range(3):
        rng = Rng(b"svg-sentinel", b"%d" % seed)

        def each(st, seat, mv, rng=rng):
            nonlocal checked
            if st["ply"] % 97 or st["phase"] == "over":
                return
            viewer = rng.choice(st["order"] + [None])
            other = clone(st)
            marks = _sentinels(other, viewer)
            svg = GAME.svg(GAME.view(other, viewer))
            check_safe(svg)
            for m in marks:
                assert m not in svg, m
            checked += 1

        random_game(seed, n=2 + seed % 3, cap=800, each=each)
    assert checked >= 10

