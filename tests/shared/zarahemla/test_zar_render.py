"""The ASCII board and panel: 80 columns, every corner and hex labelled, the panel's facts."""

import re

from shared.zarahemla import GAME
from shared.zarahemla.render import visible_len

from .helpers import (
    empty_play_state,
    finish_setup,
    give_dev,
    new,
    put_building,
    put_road,
    random_game,
    set_hand,
)
from .helpers import play as play_move


def test_every_line_fits_in_80_columns_in_random_games_plain_and_colour():
    def each(st, seat, mv):
        if st["ply"] % 53:
            return
        for s in st["order"] + [None]:
            v = GAME.view(st, s)
            for line in GAME.render(v).splitlines():
                assert len(line) <= 80, line
            for line in GAME.render(v, color=True).splitlines():
                assert visible_len(line) <= 80, line

    for seed in range(4):
        random_game(seed, n=2 + seed % 3, cap=1500, each=each)


def test_the_board_labels_every_corner_and_hex_and_shows_terrain_numbers_and_robber():
    st = new(4)
    text = GAME.render(GAME.view(st, None))
    numbers = set(int(n) for n in re.findall(r"\b(\d{1,2})\b", text.split("\n\n")[0]))
    assert set(range(1, 55)) <= numbers
    for h, terrain in zip("ABCDEFGHIJKLMNOPQRS", st["terrain"]):
        assert f"{h} {terrain}" in text
    assert "ROBBER" in text
    assert "Posts: 3:1 1-5" in text


def test_buildings_roads_and_the_viewers_hand_are_shown():
    st = empty_play_state()
    put_building(st, "red", 13)
    put_building(st, "blue", 41, city=True)
    put_road(st, "red", 13, 18)            # a vertical path
    put_road(st, "red", 18, 23)            # a diagonal path
    put_road(st, "blue", 36, 41)
    set_hand(st, "red", wood=2, stone=1)
    give_dev(st, "red", "liahona")
    view = GAME.view(st, "red")
    text = GAME.render(view)
    board = text.split("\n\n")[0]
    assert "r13" in board and "B41" in board
    assert "rr" in board                    # red's diagonal road 18-23
    lines = board.splitlines()
    col = [i for i, line in enumerate(lines) if "36" in line][0]
    assert "b" in "".join(lines[col + 1:col + 3])
    assert "Your hand (red): 2wood+1stone" in text
    assert "1 Liahona" in text
    assert "red must trade, build, buy, play a card or end the turn." in text
    spectator = GAME.render(GAME.view(st, None))
    assert "Your hand" not in spectator and "Liahona" not in spectator


def test_panel_shows_offer_scores_and_who_owes_what():
    st = empty_play_state()
    set_hand(st, "red", wood=1)
    GAME.play(st, "red", "offer 1wood for 1water to blue")
    text = GAME.render(GAME.view(st, "blue"))
    assert "Offer: red gives 1wood for 1water to blue." in text
    assert "blue must answer red's offer (accept, decline or counter)." in text
    assert re.search(r"^red\*\s+0\s+1", text, re.M)


def test_sample_board_after_setup_renders():
    st = finish_setup(new(3))
    text = GAME.render(GAME.view(st, st["order"][0]))
    assert "must roll the dice or play a card" in text


def test_the_legend_names_the_hex_the_robber_is_really_on():
    """the legend said "robber F" wherever the robber stood."""
    st = empty_play_state()
    assert "robber on J." in GAME.render(GAME.view(st, None))       # the Hideout at the start
    st["robber_due"] = True
    GAME.play(st, "red", "robber E")
    for seat in ("red", "blue", None):
        text = GAME.render(GAME.view(st, seat))
        legend = [line for line in text.splitlines() if "hexes A-S" in line]
        assert legend == ["        Paths are named by two corners (road 14-19); hexes A-S; "
                          "robber on E."]
        assert "robber F" not in text


def test_the_legend_and_panel_state_only_what_is_true():
    """The panel's fixed texts name a real path and the real robber, and the status line
    says Liahona only when the roll was chosen."""
    from shared.zarahemla.notation import parse_move
    st = empty_play_state(rolled=False)
    give_dev(st, "red", "liahona")
    GAME.play(st, "red", "play liahona 6")
    text = GAME.render(GAME.view(st, "red"))
    assert "Rolled 6 (Liahona)." in text
    for path in re.findall(r"\(road (\d+-\d+)\)", text):         # the legend's example path
        parse_move("road " + path)
    st = empty_play_state(rolled=False)
    st["dice"] = [2, 4]
    st["rolled"] = True
    st["last_roll"] = 6
    assert "Rolled 6 (2+4)." in GAME.render(GAME.view(st, "red"))
    assert "robber on J." in GAME.render(GAME.view(st, "red"))


def test_set_up_duties_name_no_hex_letter_as_a_placeholder():
    """the panel and the game page said "place a settlement (settle N)"
    and "place a road next to 2 (road N-M)", on a board where N and M are hexes (next to
    each other).  A newcomer who typed what they read was refused.  The placeholders are
    CORNER now, and a road's example starts at the settlement just placed."""
    import pytest

    from shared import IllegalMove
    HEX_LETTERS = [chr(c) for c in range(ord("A"), ord("S") + 1)]
    st = new(2)
    seen = []
    while st["phase"] in ("setup", "start"):
        texts = list(GAME.owes(st).values())
        for seat in ("red", "blue"):
            try:
                GAME.play(dict(st), seat, "end")
            except IllegalMove as exc:
                texts.append(str(exc))
        for text in texts:
            for example in re.findall(r"\(([^()]*)\)", text):
                words = re.split(r"[\s/-]+", example)
                assert not set(words) & set(HEX_LETTERS), text
        seen += texts
        seat = GAME.to_act(st)[0]
        st = GAME.play(st, seat, GAME.legal_moves(st, seat)[0])
    assert "place a settlement (settle CORNER)" in seen
    assert any(re.fullmatch(r"place a road next to (\d+) \(road \1-CORNER\)", t) for t in seen)
    assert "choose the settlement that gives the starting resources (start CORNER)" in seen
    with pytest.raises(IllegalMove):
        GAME.play(new(2), GAME.to_act(new(2))[0], "settle N")


def test_a_moves_event_texts_are_joined_without_doubled_punctuation():
    """Once shown as `(Red placed a road on 33-38.; Set-up done: ...)`.  Zarahemla's event
    texts end with a full stop; the client's one-line summary of a move
    joins them with "; ", drops each text's own full stop and lower-cases the sentence word
    that begins a joined text (shared.numbering.joined_events)."""
    from client.poster import entry_line
    st = GAME.new_game(["red", "blue"], {"board": "beginner"}, b"dots")
    texts = []
    while st["phase"] == "setup":
        seat = GAME.to_act(st)[0]
        st = GAME.play(st, seat, GAME.legal_moves(st, seat)[0])
        texts = [e["public"] for e in st["events"]]
    assert len(texts) >= 2 and all(t.endswith(".") for t in texts)
    line = entry_line({"seq": 12, "seat": "red", "move": "road 1-5", "events": texts})
    assert ".;" not in line and "; set-up done: every player" in line
    assert line.endswith(")") and not line.endswith(".)")


def test_a_won_game_shows_no_turn_and_says_once_who_won():
    """After the end the panel has no "Turn:" and no turn marker, and the winning event is
    the one "Game over: ..." sentence (not a log line as well)."""
    st = empty_play_state(2)
    put_building(st, "red", 1)
    give_dev(st, "red", "vp", 4)
    for corner in (20, 30, 40):
        put_building(st, "red", corner, city=True)   # 4 + 6 + 2 for the city on 1 = 12
    set_hand(st, "red", wheat=2, stone=3)
    st = play_move(st, "red", "city 1")
    assert st["phase"] == "over"
    text = GAME.render(GAME.view(st, "blue"))
    flat = " ".join(text.split())
    assert "Turn:" not in text and "(* = to play)" not in text
    assert not re.search(r"^(red|blue)\*", text, re.M)
    assert flat.count("Game over:") == 1 and flat.count("wins") == 1
    assert "Game over: red wins with 12 victory points (4 Victory Point cards revealed). " \
           "Final: Red 12, Blue 0." in flat
    assert flat.endswith("Final: Red 12, Blue 0.")
