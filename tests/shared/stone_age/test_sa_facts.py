"""Facts as data, not prose: from rules version 2 on every event carries a
``kind`` and its facts as fields, so a bot or a checker never parses the English text."""

import json

from shared.events import facts_for
from shared.rng import Rng
from shared.stone_age.notation import RES

from .helpers import GAME, main_phase, new, play, random_game, roll_to

#: the fields each kind of event always carries
FIELDS = {
    "setup_roll": {"rolls"}, "first_player": {"seat", "place_order"},
    "layout": {"first", "tribes", "nomads"}, "place": {"seat", "crossing"},
    "roll": {"seat", "dice", "total"}, "production": {"number", "gains"},
    "supply_short": {"resource", "wanted", "left"}, "discards_owed": {"owed"},
    "discard": {"seat", "cards"}, "figure": {"seat", "figure", "from", "to", "why"},
    "steal": {"seat", "from", "hex"}, "desert": {"seat", "hex", "terrain"},
    "desert_lapses": {"seat", "terrain"}, "take": {"seat", "crossing", "people"},
    "take_declined": {"seat"}, "take_lapses": {"seat"}, "nomad": {"seat", "crossing", "paid"},
    "move": {"seat", "path", "meat", "steps_left"},
    "event_chip": {"seat", "box", "numeral", "chip", "face", "arg"},
    "adaptation": {"seat", "people"}, "exploration": {"seat", "from", "chips"},
    "remove_tribe": {"seat", "crossing"}, "tribe": {"seat", "crossing", "people", "paid"},
    "spread": {"seat"}, "spread_second": {"seat"},
    "develop": {"seat", "track", "step", "paid"}, "art": {"seat", "track", "card"},
    "offer_withdrawn": {"seat", "why"}, "end": {"seat", "next"},
    "bank": {"seat", "give", "get"}, "offer": {"seat", "give", "get", "to"},
    "accept": {"seat", "offer_by"}, "decline": {"seat", "offer_by"},
    "counter": {"seat", "offer_by", "give", "get"}, "trade": {"seat", "partner", "give", "get"},
    "win": {"seat", "points"},
}


def _check_dice(dice, total):
    assert len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)
    assert sum(dice) == total


def _check_events(st, before_hands, seen):
    for ev in st["events"]:
        kind = ev.get("kind")
        assert kind in FIELDS, f"event without a known kind: {ev}"
        seen.add(kind)
        data = ev.get("data") or {}
        assert FIELDS[kind] <= set(data), (kind, data)
        assert json.loads(json.dumps(ev)) == ev
        if kind == "roll":
            _check_dice(data["dice"], data["total"])
            assert data["dice"] == st["dice"] == GAME.view(st, None)["dice"]
        elif kind == "setup_roll":
            for roll in data["rolls"].values():
                _check_dice(roll["dice"], roll["total"])
        elif kind == "production":
            # the gains are exactly what the hands received
            for s, gain in data["gains"].items():
                assert [before_hands[s][i] + gain[r] for i, r in enumerate(RES)] == \
                    st["hands"][s]
        elif kind == "steal":
            thief, victim = data["seat"], data["from"]
            assert set(ev["private_data"]) == {thief, victim}
            card = ev["private_data"][thief]["card"]
            assert card in RES and ev["private_data"][victim] == {"card": card}
            assert "card" not in data
            others = [s for s in st["seats"] if s not in (thief, victim)] + [None]
            i = st["events"].index(ev)
            for s in others:
                assert "card" not in facts_for(st["events"], s)[i]["data"]
            assert facts_for(st["events"], thief)[i]["data"]["card"] == card
        elif ev.get("private"):
            raise AssertionError(f"private text without private facts: {ev}")


def test_every_event_of_random_version_2_games_has_a_kind_and_its_facts():
    """Random games (3 and 4 players, both set-ups): every event has a kind and its fields;
    every roll's dice are fields (and the view's dice); production gains match the hands;
    a stolen card is private data of the thief and the victim only."""
    seen = set()
    for i in range(6):
        setup = "advanced" if i % 2 else "fixed"
        st = GAME.new_game(GAME.seat_names(3 + i % 2), {"setup": setup}, b"facts-%d" % i)
        _check_events(st, st["hands"], seen)
        rng = Rng(b"facts-players", b"%d" % i)
        moves = 0
        while GAME.to_act(st) and moves < 20000:
            hands = {s: list(h) for s, h in st["hands"].items()}
            seat = rng.choice(GAME.to_act(st))
            GAME.play(st, seat, rng.choice(GAME.legal_moves(st, seat)), b"f%d" % moves)
            moves += 1
            _check_events(st, hands, seen)
        assert GAME.result(st) is not None
    assert {"roll", "production", "move", "develop", "figure", "end", "tribe", "event_chip",
            "discard", "bank", "offer", "win", "setup_roll", "layout", "place", "steal",
            "discards_owed", "accept", "decline", "counter", "trade", "adaptation",
            "exploration", "desert", "nomad"} <= seen, sorted(set(FIELDS) - seen)


def test_version_1_events_stay_text_only():
    """Old games replay byte-identically: version-1 events carry no facts."""
    def each(st, seat, move):
        assert all(set(ev) <= {"public", "private"} for ev in st["events"])
    random_game(b"v1-text", n=4, cap=400, each=each, version="1")


def test_the_view_carries_the_facts_too():
    """The view gives as fields what the text says: dice, duties, chips, paid crossings."""
    st = main_phase()
    for s in st["seats"]:
        st["nomads"][s] = []
    st["nomads"]["red"] = [102]
    st["hands"]["red"][0] = 1
    st["supply"][0] -= 1
    play(st, "red", "move 102-110")
    view = GAME.view(st, "red")
    assert view["paid_steps"] == {"110": 1} and view["steps_left"] == 1
    assert view["rules_version"] == GAME.rules_version and view["duties"] == []
    st2 = new(4)
    roll_to(st2, "red", 7)
    view = GAME.view(st2, None)
    assert sum(view["dice"]) == 7
    assert view["duties"] == [{"kind": "figure", "figures": ["neanderthal"], "steal": "may",
                               "why": "7"}]
    assert view["event_chip_ids"] == {s: [] for s in st2["seats"]}
