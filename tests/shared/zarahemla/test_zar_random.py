"""Random play between legal players, refusals that leave the state unchanged, timeouts."""

import json
import os
import random
import time

import pytest

from shared import IllegalMove
from shared.rng import Rng
from shared.zarahemla import GAME
from shared.zarahemla.state import TOTAL_RESOURCES

from .helpers import SEATS4, clone, random_game

N_GAMES = int(os.environ.get("ZAR_RANDOM_GAMES", "1000"))
MOVE_CAP = 6000
JSON_EVERY_MOVE_GAMES = 40     # JSON round-trip after every move in these; sampled after


def _conserved(st):
    """Cards are conserved: bank + hands = 90 (the issue's invariant), after every move."""
    total = sum(st["bank"])
    for p in st["players"].values():
        total += sum(p["hand"])
    assert total == TOTAL_RESOURCES


def _invariants(st):
    """Stock limits, no negative counts, the development deck; checked on a sample."""
    assert min(st["bank"]) >= 0
    for p in st["players"].values():
        assert min(p["hand"]) >= 0 and min(p["dev"]) >= 0
        assert p["settlements"] <= 5 and p["cities"] <= 4
        assert p["roads"] <= 15 and p["stones"] <= 10
    assert sum(st["deck"]) + sum(sum(p["dev"]) for p in st["players"].values()) <= 29


def play_random_game(seed, json_every_move):
    n = 2 + seed % 3
    options = {"board": "beginner" if seed % 5 == 0 else "variable",
               "vp_to_win": (10, 11, 12)[seed % 3]}
    st = GAME.new_game(SEATS4[:n], options, b"random-%d" % seed)
    rng = random.Random(seed)      # the players' choices; the game's dice use the seed
    moves = 0
    while st["phase"] != "over" and moves < MOVE_CAP:
        acting = GAME.to_act(st)
        assert acting, "nobody owes a move in a running game"
        legal = {}
        for s in acting:
            legal[s] = GAME.legal_moves(st, s)
            assert legal[s], f"{s} owes {GAME.view(st, None)['owes'].get(s)} with no legal move"
        seat = rng.choice(acting)
        mv = rng.choice(legal[seat])
        try:
            st = GAME.play(st, seat, mv, b"chain|%d" % moves)
        except IllegalMove as exc:   # pragma: no cover - the assertion message is the point
            raise AssertionError(f"listed move {mv!r} of {seat} refused: {exc}") from exc
        moves += 1
        _conserved(st)
        if json_every_move or moves % 25 == 0:
            _invariants(st)
            assert json.loads(json.dumps(st)) == st
    assert json.loads(json.dumps(st)) == st
    if st["phase"] == "over":
        res = GAME.result(st)
        assert len(res["winners"]) == 1 and GAME.to_act(st) == []
        assert res["vp"][res["winners"][0]] >= options["vp_to_win"]
    return st, moves


@pytest.mark.slow
def test_random_games_end_with_a_winner_or_the_cap_without_refusals():
    start = time.perf_counter()
    total = finished = 0
    for seed in range(N_GAMES):
        st, moves = play_random_game(seed, seed < JSON_EVERY_MOVE_GAMES)
        total += moves
        finished += st["phase"] == "over"
    elapsed = time.perf_counter() - start
    print(f"\n{N_GAMES} games, {finished} won, {total / N_GAMES:.0f} moves/game, "
          f"{total / elapsed:.0f} checked moves/s")
    assert finished >= N_GAMES * 0.95


def test_a_few_random_games_quickly():
    for seed in range(3):
        st, moves = play_random_game(1000 + seed, True)
        assert moves > 100


def test_a_refused_move_leaves_the_state_unchanged():
    rng = Rng(b"refuse", b"0")
    probes = ["roll", "end", "settle 20", "city 13", "road 18-23", "temple", "buy",
              "bank 4wood for 1stone", "offer 1wood for 1stone", "accept", "decline",
              "counter 1wood for 1stone", "confirm blue", "withdraw", "robber A blue",
              "discard 2wood", "play warrior", "play liahona 7", "play roads",
              "play harvest 1wood+1brick", "play prosperity wood", "play temples",
              "start 13", "road 14-22", "settle 99"]
    refused = 0

    def each(st, seat, mv):
        nonlocal refused
        if st["ply"] % 7:
            return
        for s in SEATS4[:len(st["order"])]:
            text = rng.choice(probes)
            if text in GAME.legal_moves(st, s):
                continue
            before = json.dumps(st, sort_keys=True)
            try:
                GAME.check(st, s, text)
                GAME.play(clone(st), s, text)
            except IllegalMove as exc:
                refused += 1
                assert exc.message and exc.code
                assert json.dumps(st, sort_keys=True) == before
                with pytest.raises(IllegalMove):
                    GAME.play(st, s, text)
                assert json.dumps(st, sort_keys=True) == before

    for seed in range(4):
        random_game(seed, n=2 + seed % 3, cap=1500, each=each)
    assert refused > 300


def test_check_agrees_with_play_on_listed_moves():
    def each(st, seat, mv):
        for s in GAME.to_act(st):
            for text in GAME.legal_moves(st, s)[:10]:
                GAME.check(st, s, text)

    random_game(7, cap=800, each=each)


def test_timeout_moves_are_legal_and_deterministic():
    seen = set()

    def each(st, seat, mv):
        for s in GAME.to_act(st):
            t = GAME.timeout_move(st, s)
            assert t == GAME.timeout_move(st, s)
            GAME.check(st, s, t)
            seen.add(t.split()[0])
        for s in st["order"]:
            if s not in GAME.to_act(st):
                with pytest.raises(IllegalMove):
                    GAME.timeout_move(st, s)

    for seed in range(4):
        random_game(seed, n=2 + seed % 3, cap=1000, each=each)
    assert {"roll", "end", "decline", "discard", "robber", "settle", "road", "start"} <= seen


def test_a_game_driven_only_by_timeouts_never_gets_stuck():
    st = GAME.new_game(["red", "blue", "white"], {}, b"timeouts")
    for _ in range(200):
        seat = GAME.to_act(st)[0]
        st = GAME.play(st, seat, GAME.timeout_move(st, seat))
    assert st["phase"] == "play" and st["ply"] == 200


def test_replaying_the_same_moves_gives_the_same_state():
    log = []

    def each(st, seat, mv):
        log.append((seat, mv))

    st, moves = random_game(11, cap=600, each=each)
    again = GAME.new_game(SEATS4, {"board": "variable"}, b"rg11")
    for i, (seat, mv) in enumerate(log):
        again = GAME.play(again, seat, mv, b"chain%d" % i)
    assert again == st


def replay_golden(name, kinds=None, events=None):
    """(recorded data, state) of the golden log ``name``, replayed under its rules version;
    the kinds of every event are added to the set ``kinds`` when given, and every move's
    events (compact sorted JSON) fed to the hash ``events`` when given."""
    path = os.path.join(os.path.dirname(__file__), name)
    with open(path) as f:
        data = json.load(f)
    st = GAME.new_game(data["seats"], data["options"], bytes.fromhex(data["seed_hex"]),
                       rules_version=data["rules_version"])
    for i in range(len(data["moves"]) + 1):
        if i:
            seat, move, entropy = data["moves"][i - 1]
            st = GAME.play(st, seat, move, entropy.encode())
        if kinds is not None:
            kinds.update(e.get("kind") for e in st["events"])
        if events is not None:
            events.update(json.dumps(_undeclared(st["events"]), sort_keys=True,
                                     separators=(",", ":")).encode())
    return data, st


def _undeclared(obj):
    """``obj`` without the events' ``reveals`` declarations: they tell the contract checker
    (shared/contract.py) which hidden field a move shows on purpose, and are no part of what
    the game did; the recorded hashes predate Prosperity's declaration."""
    if isinstance(obj, dict):
        return {k: _undeclared(v) for k, v in obj.items() if k != "reveals"}
    if isinstance(obj, list):
        return [_undeclared(v) for v in obj]
    return obj


def state_hash(st):
    import hashlib
    text = json.dumps(_undeclared(st), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def test_golden_log_replays_to_the_recorded_state():
    """Old archives must keep replaying: a recorded 500-move log of rules version 1 gives the
    same state, byte for byte (no facts: version 1 predates them)."""
    data, st = replay_golden("golden_game.json")
    assert data["rules_version"] == "1" and "1" in GAME.rules_versions
    assert "rules_version" not in st
    assert all(set(e) <= {"public", "private"} for e in st["events"])
    assert state_hash(st) == data["state_sha256"]


def test_golden_log_of_version_2_replays_to_the_recorded_state():
    """A recorded log of rules version 2 gives the same state and the same facts, move by
    move (``events_sha256`` hashes every move's events: the state keeps only the last)."""
    import hashlib
    kinds = set()
    events = hashlib.sha256()
    data, st = replay_golden("golden_game_v2.json", kinds, events)
    assert data["rules_version"] == "2" and "2" in GAME.rules_versions
    assert st["rules_version"] == "2"
    assert state_hash(st) == data["state_sha256"]
    assert events.hexdigest() == data["events_sha256"]
    assert sorted(kinds) == data["kinds_seen"]      # every event of the log has a kind
    assert None not in kinds and st["phase"] == "over"


def test_golden_log_of_version_3_replays_to_the_recorded_state():
    """Rules version 3 (Temple Stones before the roll, posts fixed): the same state and the
    same facts, move by move."""
    import hashlib
    kinds = set()
    events = hashlib.sha256()
    data, st = replay_golden("golden_game_v3.json", kinds, events)
    assert data["rules_version"] == "3" == GAME.rules_version
    assert st["rules_version"] == "3"
    assert state_hash(st) == data["state_sha256"]
    assert events.hexdigest() == data["events_sha256"]
    assert sorted(kinds) == data["kinds_seen"]
    assert None not in kinds and st["phase"] == "over"


def _random_move_text(rng):
    from shared.zarahemla.board import EDGE_NAMES
    res = ("wood", "brick", "water", "wheat", "stone")

    def bundle():
        return "+".join(f"{rng.randint(1, 4)}{r}" for r in rng.sample(res, rng.randint(1, 2)))
    kind = rng.randrange(14)
    if kind == 0:
        return "road " + rng.choice(EDGE_NAMES)
    if kind == 1:
        return f"{rng.choice(('settle', 'city', 'start'))} {rng.randint(1, 54)}"
    if kind == 2:
        return f"robber {rng.choice('ABCDEFGHIJKLMNOPQRS')} {rng.choice(SEATS4)}"
    if kind == 3:
        return f"robber {rng.choice('ABCDEFGHIJKLMNOPQRS')}"
    if kind == 4:
        return "discard " + bundle()
    if kind == 5:
        return f"bank {bundle()} for {bundle()}"
    if kind == 6:
        return f"offer {bundle()} for {bundle()}"
    if kind == 7:
        return f"counter {bundle()} for {bundle()}"
    if kind == 8:
        return "confirm " + rng.choice(SEATS4)
    if kind == 9:
        return f"play liahona {rng.randint(2, 12)}"
    if kind == 10:
        return "play harvest " + bundle()
    if kind == 11:
        return "play prosperity " + rng.choice(res)
    return rng.choice(["roll", "end", "temple", "buy", "accept", "decline", "withdraw",
                       "play warrior", "play roads", "play temples"])


def test_random_well_formed_moves_are_either_played_or_refused_cleanly():
    """check and play agree on arbitrary well-formed moves; a refusal changes nothing."""
    rng = random.Random(3)
    counts = {"ok": 0, "refused": 0}

    def each(st, seat, mv):
        if st["ply"] % 5:
            return
        for s in st["order"]:
            for _ in range(4):
                text = _random_move_text(rng)
                before = json.dumps(st, sort_keys=True)
                try:
                    GAME.check(st, s, text)
                except IllegalMove as exc:
                    assert exc.message and exc.code
                    with pytest.raises(IllegalMove):
                        GAME.play(st, s, text)
                    counts["refused"] += 1
                else:
                    GAME.play(clone(st), s, text)
                    counts["ok"] += 1
                assert json.dumps(st, sort_keys=True) == before

    for seed in range(4):
        random_game(20 + seed, n=2 + seed % 3, cap=1200, each=each)
    assert counts["ok"] > 50 and counts["refused"] > 1000
