"""Set-up: fixed layout, 3-player chips, the advanced snake placement."""

import pytest

from shared.stone_age import board

from .helpers import GAME, IllegalMove, cards_conserved, new, play, refused


def test_seats_and_options():
    assert GAME.seat_names(3) == ["red", "blue", "white"]
    assert GAME.seat_names(4) == ["red", "blue", "white", "orange"]
    with pytest.raises(IllegalMove):
        GAME.seat_names(2)
    assert GAME.normalize_options({}, 4) == {"setup": "fixed"}
    with pytest.raises(IllegalMove) as exc:
        GAME.normalize_options({"setup": "random"}, 4)
    assert exc.value.code == "bad_option"


def test_fixed_layout_three_tribes_one_nomad_hide_and_bone():
    st = new(4)
    for s in st["seats"]:
        assert len(st["tribes"][s]) == 3 and all(x in board.BLACK for x in st["tribes"][s])
        assert len(st["nomads"][s]) == 1
        nomad = st["nomads"][s][0]
        assert any(nomad in board.ADJ[t] for t in st["tribes"][s])
        assert st["hands"][s] == [0, 1, 0, 1]
    assert st["phase"] == "roll" and st["current"] == "red"
    assert len(st["chips"]) == 32
    cards_conserved(st)


def test_three_players_leave_orange_aside_and_use_the_marked_chips():
    st = new(3)
    assert st["seats"] == ["red", "blue", "white"]
    assert sorted(int(x) for x in st["chips"]) == sorted(board.MARKED_3P)
    assert len(st["chips"]) == 20
    occupied = {x for s in st["seats"] for x in st["tribes"][s]}
    assert not occupied & set(board.FIXED_LAYOUT["orange"]["tribes"])


def test_advanced_setup_snake_order_and_no_nomads():
    st = new(4, setup="advanced", seed=b"adv")
    first = st["current"]                   # the highest set-up roll places first
    i = st["seats"].index(first)
    order = st["seats"][i:] + st["seats"][:i]
    assert st["place_order"] == order + order[::-1] + order
    assert st["phase"] == "place" and all(not st["nomads"][s] for s in st["seats"])
    assert any("places first" in e["public"] for e in st["events"])
    refused(st, first, "place 100", "not_black")
    refused(st, first, "roll", "must_place")
    other = order[1]
    refused(st, other, "place 92", "not_your_turn")
    placed = []
    for seat in order + order[::-1] + order:
        assert GAME.to_act(st) == [seat]
        x = next(x for x in board.BLACK if x not in placed)
        play(st, seat, f"place {x}")
        placed.append(x)
    assert first != "red"                   # this seed: so the next line can fail
    assert st["phase"] == "roll" and st["current"] == "red"      # the youngest begins
    assert all(len(st["tribes"][s]) == 3 for s in st["seats"])
    assert all(st["hands"][s] == [0, 1, 0, 1] for s in st["seats"])


def test_advanced_setup_refuses_an_occupied_black_crossing():
    st = new(3, setup="advanced", seed=b"adv2")
    first = st["current"]
    play(st, first, "place 92")
    refused(st, st["current"], "place 92", "occupied")


def test_same_seed_same_game():
    a, b = new(4, "advanced", b"s"), new(4, "advanced", b"s")
    assert a == b
    assert "seed" in a and a["ply"] == 0


@pytest.mark.parametrize("name,version", [("golden_game.json", "1"),
                                          ("golden_game_v2.json", "2"),
                                          ("golden_game_v3.json", "3"),
                                          ("golden_game_v4.json", "4")])
def test_golden_game_replays_to_the_recorded_state(name, version):
    """Guards old archives: each recorded log replays, under the rules version it was
    played under, to the same state (version 1: the rules before the book-faithful fixes;
    version 2: the book-faithful rules; version 3: those rules with the offer kept by
    shared.trade; version 4: map 2)."""
    import hashlib
    import json
    import os
    path = os.path.join(os.path.dirname(__file__), name)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    assert doc["rules_version"] == version and version in GAME.rules_versions
    st = GAME.new_game(doc["seats"], doc["options"], bytes.fromhex(doc["seed"]),
                       rules_version=doc["rules_version"])
    for seat, text, entropy in doc["moves"]:
        assert seat in GAME.to_act(st)
        GAME.play(st, seat, text, bytes.fromhex(entropy))
    text = json.dumps(st, sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(text.encode()).hexdigest() == doc["final_sha256"]
    assert GAME.view(st, None)["scores"] == doc["final_scores"]


def test_new_games_get_version_4_and_versions_1_to_3_stay_playable():
    """New games are played under rules version 4 (map 2; the open offer where
    ``shared.trade`` keeps it, as in version 3); versions 1 to 3 can still be created and
    replayed, version 1's states carry no version key (old snapshots stay byte-identical),
    and versions 1 and 2 keep their offer in ``turn`` as they always did."""
    assert GAME.rules_version == "4" and GAME.rules_versions == ("1", "2", "3", "4")
    st = GAME.new_game(GAME.seat_names(4), {}, b"v")
    assert st["rules_version"] == "4" and st["offer"] is None and "offer" not in st["turn"]
    three = GAME.new_game(GAME.seat_names(4), {}, b"v", rules_version="3")
    assert three["offer"] is None and "offer" not in three["turn"]
    old = GAME.new_game(GAME.seat_names(4), {}, b"v", rules_version="1")
    assert "rules_version" not in old and "paid" not in old["turn"]
    assert all(set(ev) == {"public"} for ev in old["events"])
    for version in ("1", "2"):
        old = GAME.new_game(GAME.seat_names(4), {}, b"v", rules_version=version)
        assert "offer" not in old and old["turn"]["offer"] is None
