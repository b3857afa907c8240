"""The engines' fast paths give what the plain code they replaced gave.

Random play was made faster with tables, remembered values and one-step usual cases.  Each
fast path is checked here against the straightforward code it replaced (written out below as
the reference), on every state of seeded random games of Zarahemla and Stone Age, including
the rare cases the fast paths hand back to the old loop (a bank or stack short of cards).
"""

import json
import random

import pytest

from shared.games import get_game
from shared.stone_age import board as sa_board
from shared.stone_age import develop as sa_develop
from shared.stone_age import legal as sa_legal
from shared.stone_age import rules as sa_rules
from shared.stone_age.state import occupied
from shared.trade import open_offer, owed
from shared.zarahemla import build, legal, roads, turn
from shared.zarahemla.board import CORNER_EDGES, EDGES, POST_EDGES, RESOURCES
from shared.zarahemla.state import bundle_text, post_rates, res_dict
from tests.helpers.examples import examples

ZAR = get_game("zarahemla")
SA = get_game("stone_age")


def _states(game, seeds, every=1, cap=3000):
    """(state, seat) after every ``every``-th move of random games (the state is live: use
    it before the next one is asked for)."""
    for seed in seeds:
        rnd = random.Random(seed)
        seats = game.seat_names(4)
        st = game.new_game(seats, {}, b"fast-paths-%d" % seed)
        for ply in range(cap):
            owing = game.to_act(st)
            if not owing:
                break
            seat = rnd.choice(owing)
            if ply % every == 0:
                yield st, seat
            st = game.play(st, seat, rnd.choice(game.legal_moves(st, seat)), b"%d" % ply)


# --- Zarahemla: the code the fast paths replaced ---------------------------------------

def _old_placeable_roads(st, seat):
    owner, rds = st["owner"], st["roads"]
    out = set()
    for c in range(len(owner)):
        o = owner[c]
        if o == seat or (o is None and any(rds[e] == seat for e in CORNER_EDGES[c])):
            out.update(e for e in CORNER_EDGES[c] if rds[e] is None)
    return sorted(out)


def _old_road_length(st, seat):
    rds, owner = st["roads"], st["owner"]
    mine = {e for e in range(len(rds)) if rds[e] == seat}
    best = 0

    def walk(corner, used, length):
        nonlocal best
        best = max(best, length)
        o = owner[corner]
        if o is not None and o != seat and length:
            return
        for e in CORNER_EDGES[corner]:
            if e in mine and e not in used:
                a, b = EDGES[e]
                walk(b if a == corner else a, used | {e}, length + 1)

    for c in {c for e in mine for c in EDGES[e]}:
        walk(c, frozenset(), 0)
    return best


def _old_post_rates(st, seat):
    rates = [4] * 5
    for i, e in enumerate(POST_EDGES):
        a, b = EDGES[e]
        if seat in (st["owner"][a], st["owner"][b]):
            kind = st["posts"][i]
            if kind == "3:1":
                rates = [min(r, 3) for r in rates]
            else:
                rates[RESOURCES.index(kind)] = 2
    return rates


def _old_answer_moves(st, seat):
    """The answers the listing gave before the tables (accept, decline, 1-for-1 counters)."""
    offer = open_offer(st)
    hand = st["players"][seat]["hand"]
    out = ["accept"] if all(h >= g for h, g in zip(hand, offer["get"])) else []
    out.append("decline")
    give = offer["give"]
    mask = sum(1 << r for r in range(5) if give[r]) or 31
    counters = [legal.COUNTER_TEXT[(x, y)] for x in range(5) if hand[x]
                for y in range(5) if y != x and mask >> y & 1]
    if not counters:
        counters = [legal.COUNTER_TEXT[(x, y)] for x in range(5) if hand[x]
                    for y in range(5) if y != x]
    return out + counters


@pytest.mark.properties
def test_zarahemla_fast_paths_match_the_plain_code():
    seen = {"answers": 0, "roads": 0, "posts": 0}
    for st, seat in _states(ZAR, range(examples(6, least=2))):
        if st["phase"] != "play":
            continue
        for s in st["order"]:
            assert build.placeable_roads(st, s) == _old_placeable_roads(st, s)
            assert roads.road_length(st, s) == _old_road_length(st, s)
            assert list(post_rates(st, s)) == _old_post_rates(st, s)
            seen["posts"] += post_rates(st, s) != (4, 4, 4, 4, 4)
            seen["roads"] += bool(st["players"][s]["roads"])
        offer = open_offer(st)
        if offer and seat in owed(offer) and not st["discard"]:
            assert legal.legal_texts(st, seat) == _old_answer_moves(st, seat)
            seen["answers"] += 1
        if offer is None and seat == st["turn"] and st["rolled"] and not st["discard"] \
                and not st["robber_due"] and not st["free_roads"]:
            hand = st["players"][seat]["hand"]
            offers = [legal.OFFER_TEXT[(x, y)] for x in range(5) if hand[x]
                      for y in range(5) if y != x]
            listed = legal.legal_texts(st, seat)
            assert [m for m in listed if m.startswith("offer ")] == offers
    assert all(n > 50 for n in seen.values()), seen


@pytest.mark.properties
@pytest.mark.parametrize("bank", [[18] * 5, [0, 1, 2, 0, 18], [1, 0, 0, 0, 0]])
def test_zarahemla_production_pays_as_the_resource_by_resource_loop(bank):
    """The one-step payment when the bank holds enough, and the loop when it does not, give
    the same hands, bank and event as the loop alone (``_short_paid``) on every roll."""
    for st, seat in _states(ZAR, range(examples(3, least=1)), every=7):
        if st["phase"] != "play":
            continue
        for total in (2, 3, 4, 5, 6, 8, 9, 10, 11, 12):
            a = _copy(st)
            a["bank"] = list(bank)
            b = _copy(a)
            events = turn.resolve_roll(a, seat, total, "roll")
            short, facts = [], []
            gains = turn._short_paid(b, turn.production(b, total), short, facts)
            for s, g in gains.items():
                for r in range(5):
                    b["players"][s]["hand"][r] += g[r]
                    b["bank"][r] -= g[r]
            assert a["bank"] == b["bank"]
            assert {s: p["hand"] for s, p in a["players"].items()} == \
                {s: p["hand"] for s, p in b["players"].items()}
            parts = [f"{s.capitalize()} gets {bundle_text(gains[s])}" for s in b["order"]
                     if s in gains]
            assert events[0]["public"].startswith("roll: " + ", ".join(parts) if parts
                                                  else "roll: nothing produced")
            if "data" in events[0]:
                assert events[0]["data"]["produced"] == {
                    s: res_dict(gains[s]) for s in b["order"] if s in gains}
                assert events[0]["data"]["short"] == facts


def test_remembered_bundle_texts_are_the_notation():
    for bundle in [(0, 0, 0, 0, 0), (2, 1, 0, 0, 0), [0, 0, 0, 0, 7], (1, 1, 1, 1, 1)]:
        for _ in range(2):      # the second time from the memo
            expected = "+".join(f"{n}{r}" for n, r in zip(bundle, RESOURCES) if n) or "nothing"
            assert bundle_text(bundle) == expected
    d = res_dict((1, 2, 3, 4, 5))
    assert d == dict(zip(RESOURCES, (1, 2, 3, 4, 5))) and d is not res_dict((1, 2, 3, 4, 5))


# --- Stone Age -----------------------------------------------------------------------

def _old_path_moves(st, seat, start, budget, occ):
    """One shortest path per free crossing within budget, by the plain breadth-first search."""
    tracks = st["tracks"][seat]
    clothing, construction = tracks[3], tracks[2]
    text, out, frontier, steps = {start: f"move {start}"}, [], [start], 0
    while frontier and steps < budget:
        steps += 1
        nxt = []
        for x in frontier:
            for y, req in sa_board.map_of(st).paths_from[x]:
                if y in text or (req is not None and (clothing < req[0]
                                                      or construction < req[1])):
                    continue
                text[y] = f"{text[x]}-{y}"
                nxt.append(y)
                if y not in occ:
                    out.append(text[y])
        frontier = nxt
    return out


def _old_produce(st, number):
    gains = {s: [0, 0, 0, 0] for s in st["seats"]}
    for h in sa_board.map_of(st).hexes_by_number[number]:
        if h in st["deserts"] or h in st["figures"].values():
            continue
        res = sa_board.PRODUCES[sa_board.HEXES[h]["terrain"]]
        for s in st["seats"]:
            gains[s][res] += len(set(sa_board.HEX_CROSSINGS[h]) & set(st["tribes"][s]))
    return gains


@pytest.mark.properties
def test_stone_age_fast_paths_match_the_plain_code():
    seen = {"paths": 0, "boxed": 0}
    for st, seat in _states(SA, range(examples(4, least=2)), every=3):
        occ = set()
        for s in st["seats"]:
            occ |= set(st["tribes"][s]) | set(st["nomads"][s])
        assert occupied(st) == occ
        for number in sa_board.HEXES_BY_NUMBER:
            assert sa_rules.produce(st, number) == _old_produce(st, number)
        for x in st["nomads"][seat]:
            for budget in (1, 3, 7, 40):
                out = []
                sa_legal._path_moves(st, seat, x, budget, occ, out)
                assert out == _old_path_moves(st, seat, x, budget, occ)
                seen["paths"] += 1
                for text in out[::5]:
                    path = tuple(int(c) for c in text.split()[1].split("-"))
                    steps = list(zip(path, path[1:]))
                    world = sa_board.map_of(st)
                    assert sa_develop._boxed_steps(path, world) == tuple(
                        p for p in steps if p in world.box_on)
                    seen["boxed"] += bool(sa_develop._boxed_steps(path, world))
    assert sa_develop._boxed_steps((1, 1), sa_board.MAPS[2]) is None   # not a path
    assert all(n > 20 for n in seen.values()), seen


def _copy(st):
    return json.loads(json.dumps(st))
