"""Facts as fields (RULES.md, "Facts"): every event of a version-2 game has a kind and its data,
private data reaches only its own seat, and the facts are a true ledger of what moves did."""

import json

import pytest

from shared.events import facts_for
from shared.rng import Rng
from shared.zarahemla import GAME
from shared.zarahemla.board import HEX_NAMES, RESOURCES
from shared.zarahemla.state import COST, DEV
from shared.zarahemla.turn import EVENT_KINDS, resolve_roll

from .helpers import SEATS4, clone, empty_play_state, give_dev, play, put_building, set_hand


def _random_game(seed, n, cap, each, rules_version=None):
    st = GAME.new_game(SEATS4[:n], {"board": "variable"}, b"facts%d" % seed,
                       rules_version=rules_version)
    rng = Rng(b"facts-driver", b"%d" % seed)
    each(None, st, None, None)
    for i in range(cap):
        if st["phase"] == "over":
            break
        seat = rng.choice(GAME.to_act(st))
        move = rng.choice(GAME.legal_moves(st, seat))
        before = clone(st)
        st = GAME.play(st, seat, move, b"f%d" % i)
        each(before, st, seat, move)
    return st


def _check_redaction(st):
    """Each event has a known kind; ``facts_for`` shows a viewer the public data and its own
    private data, and never a key of another seat's private data."""
    seats = st["order"]
    for ev in st["events"]:
        assert ev.get("kind") in EVENT_KINDS, ev
        assert json.loads(json.dumps(ev)) == ev
        data = ev.get("data") or {}
        assert "seat" in data or ev["kind"] in ("start_order", "setup_done", "game_begins")
        private = ev.get("private_data") or {}
        assert set(private) <= set(seats)
        for facts in private.values():
            assert not set(facts) & set(data), ev      # a secret never shadows a public field
        for viewer in seats + [None]:
            seen = facts_for([ev], viewer)[0]
            own = private.get(viewer, {}) if viewer else {}
            assert seen == {"kind": ev["kind"], "data": {**data, **own}}
            for other, facts in private.items():
                if other != viewer:
                    assert not (set(facts) - set(own)) & set(seen["data"]), (viewer, ev)


def _bundle(d):
    return [d[r] for r in RESOURCES]


def _ledger(events, seats):
    """What the hands should have gained, read from the facts alone."""
    gain = {s: [0] * 5 for s in seats}

    def add(seat, bundle, sign=1):
        for i in range(5):
            gain[seat][i] += sign * bundle[i]

    for ev in events:
        kind, data = ev["kind"], ev.get("data", {})
        seat = data.get("seat")
        if kind == "start_resources":
            add(seat, _bundle(data["gain"]))
        elif kind == "roll":
            for s, got in data["produced"].items():
                add(s, _bundle(got))
        elif kind == "discard":
            add(seat, _bundle(data["cards"]), -1)
        elif kind == "robber" and data["victim"]:
            card = ev["private_data"][seat]["card"]
            assert ev["private_data"][data["victim"]]["card"] == card
            one = [int(r == card) for r in RESOURCES]
            add(seat, one)
            add(data["victim"], one, -1)
        elif kind == "bank_trade":
            add(seat, _bundle(data["get"]))
            add(seat, _bundle(data["give"]), -1)
        elif kind == "trade":
            add(seat, _bundle(data["get"]))
            add(seat, _bundle(data["give"]), -1)
            add(data["partner"], _bundle(data["give"]))
            add(data["partner"], _bundle(data["get"]), -1)
        elif kind == "play_card" and data["card"] == "harvest":
            add(seat, _bundle(data["took"]))
        elif kind == "play_card" and data["card"] == "prosperity":
            r = RESOURCES.index(data["resource"])
            for s, n in data["took"].items():
                gain[seat][r] += n
                gain[s][r] -= n
        elif kind in ("settle", "road") and not data["setup"] and not data.get("free"):
            add(seat, COST[kind], -1)
        elif kind in ("city", "buy", "temple"):
            add(seat, COST[kind], -1)
    return gain


def _check_ledger(before, after, seat, move):
    seats = after["order"]
    expect = _ledger(after["events"], seats)
    for s in seats:
        got = [a - b for a, b in zip(after["players"][s]["hand"], before["players"][s]["hand"])]
        assert got == expect[s], (move, s, after["events"])
    for ev in after["events"]:
        data = ev["data"]
        if ev["kind"] == "roll":
            assert data["total"] == after["last_roll"]
            assert data["dice"] is None if data["liahona"] else sum(data["dice"]) == data["total"]
            assert data["discard"] == (after["discard"] if data["seven"] else {})
        elif ev["kind"] == "robber":
            assert HEX_NAMES[after["robber"]] == data["hex"]
        elif ev["kind"] == "buy":
            card = ev["private_data"][seat]["card"]
            i = DEV.index(card)
            assert after["players"][seat]["dev"][i] == before["players"][seat]["dev"][i] + 1
            assert data["deck"] == sum(after["deck"])
        elif ev["kind"] == "end_turn":
            assert data["next"] == after["turn"]


def test_every_event_of_random_version_2_games_has_a_kind_and_is_redacted_per_seat():
    """The issue's test: random version-2 games; every event has a kind, and another seat's
    private data never reaches a viewer through ``facts_for`` (nor through the view)."""
    kinds = set()
    private_seen = 0

    def each(before, st, seat, move):
        nonlocal private_seen
        _check_redaction(st)
        kinds.update(e["kind"] for e in st["events"])
        private_seen += sum(1 for e in st["events"] if e.get("private_data"))
        if st["ply"] % 17 == 0:
            for viewer in st["order"] + [None]:
                assert GAME.view(st, viewer)["facts"] == GAME.facts_for(st["events"], viewer)

    for seed in range(3):
        _random_game(seed, 2 + seed % 3, 1500, each)
    assert private_seen > 10
    assert {"roll", "robber", "buy", "discard", "offer", "answer", "bank_trade", "road",
            "settle", "end_turn", "play_card"} <= kinds


def test_the_facts_of_every_move_account_for_every_change_of_every_hand():
    """Facts are data a program can trust: summing what the events say (production, discards,
    steals, trades, cards, costs) gives exactly the change of every hand, move after move."""
    moves = 0

    def each(before, st, seat, move):
        nonlocal moves
        if before is not None:
            _check_ledger(before, st, seat, move)
            moves += 1

    for seed in range(3, 6):
        _random_game(seed, 2 + seed % 3, 1200, each)
    assert moves > 2000


def test_version_1_games_record_no_facts():
    """Version-1 states replay byte-identical to their recording: no kind, data or private
    data in any event (``shared.events.make_event``)."""
    def each(before, st, seat, move):
        for ev in st["events"]:
            assert set(ev) <= {"public", "private"}
        view = GAME.view(st, "red")
        assert view["rules_version"] == "1"
        assert all(f == {"kind": None, "data": {}} for f in view["facts"])

    st = _random_game(9, 3, 600, each, rules_version="1")
    assert "rules_version" not in st


def test_the_books_seven_as_facts_guido_owes_five():
    """"Example: Jeremy rolls a "7". He has six cards in his hand, Miles has seven, and Guido
    has eleven. Guido must discard five cards (round down)."  The roll's facts say so."""
    st = empty_play_state(n=3, rolled=False)
    set_hand(st, "red", wood=6)
    set_hand(st, "blue", brick=7)
    set_hand(st, "white", wood=4, water=3, wheat=4)
    st["dice"] = [3, 4]
    ev = resolve_roll(st, "red", 7, "Red rolled 7")[0]
    assert ev["kind"] == "roll"
    assert ev["data"] == {"seat": "red", "dice": [3, 4], "total": 7, "liahona": False,
                          "seven": True, "produced": {}, "short": [], "robber_blocks": None,
                          "discard": {"white": 5}, "robber_due": True}
    st["events"] = []
    play(st, "white", "discard 3wood+2water")
    assert GAME.facts_for(st["events"], None) == [{"kind": "discard", "data": {
        "seat": "white", "count": 5,
        "cards": {"wood": 3, "brick": 0, "water": 2, "wheat": 0, "stone": 0}}}]


def test_the_robber_hex_withholds_its_production_and_the_facts_say_what():
    """"A hex containing the Gadianton Robber produces no resources, even if that hex's number
    is rolled": the roll's facts name the hex and what it would have given."""
    st = empty_play_state(rolled=False)
    put_building(st, "red", 13)                   # on A (stone 5) and E (brick 9)
    put_building(st, "blue", 5, city=True)       # on A and B
    st["robber"] = HEX_NAMES.index("A")
    st["dice"] = [2, 3]
    data = resolve_roll(st, "red", 5, "Red rolled 5")[0]["data"]
    assert data["produced"] == {}
    assert data["robber_blocks"] == {"hex": "A", "owed": {
        "red": {"wood": 0, "brick": 0, "water": 0, "wheat": 0, "stone": 1},
        "blue": {"wood": 0, "brick": 0, "water": 0, "wheat": 0, "stone": 2}}}


def test_a_bank_shortage_is_in_the_facts():
    """RULES.md item 10 (""If a type of Resource Card should run out, players cannot acquire
    that resource""): the facts give the bank's stock, who was owed and who was paid."""
    st = empty_play_state(rolled=False)
    put_building(st, "red", 13)                   # A stone 5
    put_building(st, "blue", 5, city=True)       # A stone 5, a city
    set_hand(st, "white", stone=16)              # the bank keeps 2 stone, 3 are owed
    data = resolve_roll(st, "red", 5, "Red rolled 5")[0]["data"]
    assert data["short"] == [{"resource": "stone", "bank": 2, "owed": {"red": 1, "blue": 2},
                              "paid": {}}]
    assert data["produced"] == {}


def test_a_steal_names_the_card_only_to_thief_and_victim():
    st = empty_play_state()
    put_building(st, "blue", 13)
    set_hand(st, "blue", water=1)
    st["robber_due"] = True
    play(st, "red", "robber E blue")
    ev = st["events"][0]
    assert ev["data"] == {"seat": "red", "hex": "E", "victim": "blue"}
    for seat in ("red", "blue"):
        assert GAME.facts_for(st["events"], seat)[0]["data"]["card"] == "water"
    for seat in ("white", "orange", None):
        assert "card" not in GAME.facts_for(st["events"], seat)[0]["data"]
        assert "water" not in json.dumps(GAME.view(st, seat)["facts"])


def test_a_bought_card_is_a_fact_only_for_its_buyer():
    st = empty_play_state()
    set_hand(st, "red", stone=1, water=1, wheat=1)
    play(st, "red", "buy")
    card = GAME.facts_for(st["events"], "red")[0]["data"]["card"]
    assert card in DEV and st["players"]["red"]["dev"][DEV.index(card)] == 1
    for seat in ("blue", "white", "orange", None):
        assert GAME.facts_for(st["events"], seat) == [
            {"kind": "buy", "data": {"seat": "red", "deck": 28}}]


def test_the_liahona_is_a_card_event_and_a_roll_event():
    st = empty_play_state(rolled=False)
    put_building(st, "red", 13)
    give_dev(st, "red", "liahona")
    play(st, "red", "play liahona 5")
    facts = GAME.facts_for(st["events"], None)
    assert [f["kind"] for f in facts] == ["play_card", "roll"]
    assert facts[0]["data"] == {"seat": "red", "card": "liahona", "total": 5}
    assert facts[1]["data"]["liahona"] and facts[1]["data"]["dice"] is None
    assert facts[1]["data"]["produced"] == {"red": {"wood": 0, "brick": 0, "water": 0,
                                                    "wheat": 0, "stone": 1}}
    assert GAME.view(st, None)["liahona"] is True


@pytest.mark.parametrize("setup,move,kind,data", [
    (lambda st: (put_building(st, "red", 13), set_hand(st, "red", wheat=2, stone=3)),
     "city 13", "city", {"seat": "red", "corner": 13}),
    (lambda st: set_hand(st, "red", wood=4), "bank 4wood for 1stone", "bank_trade",
     {"seat": "red", "give": {"wood": 4, "brick": 0, "water": 0, "wheat": 0, "stone": 0},
      "get": {"wood": 0, "brick": 0, "water": 0, "wheat": 0, "stone": 1}, "rate": 4}),
    (lambda st: set_hand(st, "red", wood=1), "offer 1wood for 1water to blue", "offer",
     {"seat": "red", "give": {"wood": 1, "brick": 0, "water": 0, "wheat": 0, "stone": 0},
      "get": {"wood": 0, "brick": 0, "water": 1, "wheat": 0, "stone": 0}, "to": ["blue"],
      "everyone": False}),
    (lambda st: set_hand(st, "red", brick=1, stone=1), "temple", "temple",
     {"seat": "red", "stones": 1}),
    (lambda st: None, "end", "end_turn", {"seat": "red", "next": "blue"}),
])
def test_simple_moves_have_their_facts(setup, move, kind, data):
    st = empty_play_state()
    setup(st)
    play(st, "red", move)
    assert GAME.facts_for(st["events"], None)[0] == {"kind": kind, "data": data}


def test_the_view_gives_what_a_program_needs_as_fields():
    """What the panel says in words is also in the view as fields: the robber owed, a chosen
    roll, each player's bank rates, the corner owing its set-up road, the rules version."""
    st = GAME.new_game(SEATS4[:3], {"board": "beginner"}, b"fields")
    first = GAME.to_act(st)[0]
    corner = GAME.legal_moves(st, first)[0].split()[1]
    play(st, first, "settle " + corner)
    view = GAME.view(st, None)
    assert view["setup_placed"] == int(corner) and view["rules_version"] == GAME.rules_version
    assert view["facts"] == [{"kind": "settle", "data": {"seat": first, "corner": int(corner),
                                                         "setup": True}}]
    st = empty_play_state(rolled=False)
    put_building(st, "red", 1)                     # corner 1 is on the 3:1 post 1-5
    give_dev(st, "red", "warrior")
    play(st, "red", "play warrior")
    view = GAME.view(st, "blue")
    assert view["robber_due"] is True and view["liahona"] is False
    assert view["players"]["red"]["rates"] == {"wood": 3, "brick": 3, "water": 3, "wheat": 3,
                                               "stone": 3}
    assert view["players"]["blue"]["rates"]["wood"] == 4
