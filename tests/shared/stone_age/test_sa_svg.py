"""The Stone Age world map drawn as SVG (shared/stone_age/svg.py): drawn from the view only,
every piece named and titled, face-down chips never revealed, everything escaped."""

import json

from shared.rng import Rng
from shared.stone_age import GAME, board

from ..svg_checks import check_pieces_titled, check_safe, own_title, parse, pieces
from .helpers import new, play, random_game


def known_position():
    """Four seats on the fixed layout; red rolls and ends; then (a test set-up, as after
    moves) red has crossed box A and turned up a Desertification of g3, the Neanderthal
    stands on c4."""
    st = new(4)
    st = play(st, "red", "roll", b"x")
    st = play(st, "red", "end")
    st["boxes"]["A"] = "red"
    st["taken"]["red"].append("desert-S")
    st["pools"]["I"]["desert-S"] -= 1
    del st["pools"]["I"]["desert-S"]
    st["deserts"].append("g3")
    st["figures"]["neanderthal"] = "c4"
    return st


def draw(st, seat=None):
    return GAME.svg(GAME.view(st, seat))


def test_the_known_position_holds_every_piece_where_the_notation_says():
    root = parse(draw(known_position()))
    hexes = pieces(root, "hex")
    assert [h.get("data-place") for h in hexes] == list(board.HEX_NAMES)
    assert len(hexes) == 43
    assert len(pieces(root, "number")) == 42          # g3 is a desert now
    g3 = [h for h in hexes if h.get("data-place") == "g3"][0]
    assert "desert" in g3.get("class")
    assert own_title(g3) == "landscape g3: Africa, desert (was Steppe (bone), 9)"   # map 2
    e3 = [h for h in hexes if h.get("data-place") == "e3"][0]
    assert own_title(e3) == "landscape e3: Eurasia, Mountains (flint), 3"
    for cls in ("region-e", "region-f", "region-a", "region-u"):
        assert any(cls in h.get("class") for h in hexes)
    tribes = {(t.get("data-place"), own_title(t)) for t in pieces(root, "tribe")}
    assert len(tribes) == 12 and ("92", "red tribe on crossing 92") in tribes
    nomads = sorted((n.get("data-place"), own_title(n)) for n in pieces(root, "nomad"))
    assert nomads == [("100", "red nomad on crossing 100"), ("69", "white nomad on crossing 69"),
                      ("70", "orange nomad on crossing 70"), ("86", "blue nomad on crossing 86")]
    chips = pieces(root, "people-chip")
    assert len(chips) == 32
    assert ("yellow people chip on crossing 13" in {own_title(c) for c in chips})
    boxes = pieces(root, "box")
    assert [b.get("data-place") for b in boxes] == list(board.BOXES)
    assert own_title(boxes[0]) == ("condition box A on path 58-64: Clothing 1, Construction 0; "
                                   "its event chip was taken by red")
    face_down = pieces(root, "event-chip")
    assert len(face_down) == 17 and "A" not in [c.get("data-place") for c in face_down]
    assert own_title(face_down[0]) == "face-down event chip I by box B"
    figures = {f.get("data-place"): own_title(f) for f in pieces(root, "figure")}
    assert figures == {"c4": "the Neanderthal, on landscape c4",
                       "b6": "the Predator, on landscape b6"}
    black = pieces(root, "black")
    assert sorted(int(b.get("data-place")) for b in black) == sorted(board.BLACK)
    labels = [t for t in root.iter() if t.get("data-place") and t.tag.endswith("text")]
    assert sorted(int(t.text) for t in labels) == list(board.CROSSINGS)
    assert all(t.text == t.get("data-place") for t in labels)
    red_chips = [g for g in pieces(root, "event-chips") if "seat-red" in g.get("class")]
    assert own_title(red_chips[0]) == "red's event chips: Desertification (Steppe)"
    check_pieces_titled(root, ["hex", "tribe", "nomad", "people-chip", "box", "event-chip",
                               "figure", "black", "event-chips"])


def test_the_drawing_is_safe_and_small():
    st, _ = random_game(b"svg-size", n=4, cap=600)
    svg = draw(st)
    check_safe(svg)
    assert len(svg) < 48000
    assert len(draw(known_position())) < 48000


def test_player_text_is_escaped():
    view = GAME.view(known_position(), None)
    evil = '<script>alert("x")</script>'
    view["tribes"][evil] = [1]
    view["nomads"]["red"].append(evil)
    view["seats"].append(evil)
    view["event_chips"][evil] = [evil]
    view["boxes"]["B"] = evil
    view["figures"][evil] = "a5"
    view["chips"]["2"] = evil
    svg = GAME.svg(view)
    check_safe(svg)
    assert "&lt;script&gt;" in svg
    root = parse(svg)
    assert own_title([t for t in pieces(root, "tribe") if t.get("data-place") == "1"][0]) == \
        evil + " tribe on crossing 1"


def test_missing_or_new_fields_never_crash():
    view = GAME.view(known_position(), None)
    for key in list(view):
        v = json.loads(json.dumps(view))
        del v[key]
        check_safe(GAME.svg(v))
    v = json.loads(json.dumps(view))
    v.update({"tribes": {"red": [999, "x", None]}, "nomads": None, "chips": [1],
              "boxes": {"Z": "red"}, "figures": {"sabre-tooth": "e3", "neanderthal": "zz"},
              "deserts": "g3", "event_chips": {"red": None}, "something_new": {"a": 1}})
    root = parse(GAME.svg(v))
    assert not pieces(root, "tribe") and not pieces(root, "nomad")
    assert [own_title(f) for f in pieces(root, "figure")] == ["sabre-tooth, on landscape e3"]
    check_safe(GAME.svg({}))


def _sentinels(st, viewer):
    """Sentinel hidden values: every other seat's hand, and the face-down chip pools."""
    marks = []
    for i, s in enumerate(st["seats"]):
        if s != viewer:
            st["hands"][s] = [7001 + 10 * i + k for k in range(4)]
            marks += [str(n) for n in st["hands"][s]]
    for numeral, pool in st["pools"].items():
        st["pools"][numeral] = {f"SENTINEL{numeral}{k}": n for k, n in pool.items()}
        marks += list(st["pools"][numeral])
    return marks


def test_random_games_never_draw_hidden_information():
    checked = 0
    for seed in range(3):
        rng = Rng(b"svg-sentinel", b"%d" % seed)

        def each(st, seat, mv, rng=rng):
            nonlocal checked
            if st["ply"] % 41 or st["phase"] == "over":
                return
            viewer = rng.choice(st["seats"] + [None])
            other = json.loads(json.dumps(st))
            marks = _sentinels(other, viewer)
            svg = GAME.svg(GAME.view(other, viewer))
            check_safe(svg)
            for m in marks:
                assert m not in svg, m
            checked += 1

        random_game(b"svg%d" % seed, n=3 + seed % 2, cap=400, each=each)
    assert checked >= 10



def test_crossing_numbers_are_readable_at_phone_width_and_the_key_stays_inside():
    """The issue "A player's second hour": at phone width the crossing numbers were too
    small to read and the key was clipped at the right edge.  The numbers are 8 units (the
    378-unit map drawn about 360 pixels wide: about 7.5 pixels), with a pale outline under
    them; a player's long list of event chips wraps inside the drawing, which grows down."""
    st = known_position()
    for _ in range(4):
        st["taken"]["red"] += ["desert-H", "adapt-y", "disruption"]
    root = parse(draw(st))
    width = float(root.get("viewBox").split()[2])
    height = float(root.get("viewBox").split()[3])
    assert width == 378
    label_group = [g for g in root.iter("{http://www.w3.org/2000/svg}g")
                   if "crossings" in (g.get("class") or "")][0]
    assert float(label_group.get("font-size")) >= 8
    assert label_group.get("paint-order") == "stroke"
    legend = [g for g in root.iter("{http://www.w3.org/2000/svg}g")
              if g.get("class") == "legend"][0]
    for t in legend.iter("{http://www.w3.org/2000/svg}text"):
        size = float(t.get("font-size") or 8)
        end = float(t.get("x")) + len(t.text or "") * size * 0.56
        if t.get("text-anchor") == "middle":
            end -= len(t.text or "") * size * 0.28
        assert end <= width, (t.text, end)
        assert float(t.get("y")) <= height
    red = [g for g in pieces(root, "event-chips") if "seat-red" in g.get("class")][0]
    assert len(list(red.iter("{http://www.w3.org/2000/svg}text"))) >= 3     # it wrapped
    short = parse(draw(known_position()))
    assert float(short.get("viewBox").split()[3]) < height
