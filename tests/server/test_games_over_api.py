"""Every real game end to end through the HTTP API, and guarantee 5: no one sees what is not theirs.

Random legal players drive each game through /legal and signed moves; every
response body any seat or a spectator receives is searched for secrets
planted in the state: the seed, and (for the Pig fixture) a per-seat
sentinel string that only its own seat may see.
"""

import json
import random
import re

import pytest

from shared.archive import check_chain, replay
from shared.games import game_types, get_game
from tests.figures import record
from tests.helpers.api import start_pig
from tests.helpers.examples import examples
from tests.helpers.games import start

REAL_GAMES = [g for g in ("zarahemla", "stone_age", "title_of_liberty")]
SEATS = {"zarahemla": 3, "stone_age": 3, "title_of_liberty": 2}


def _available(name):
    return name in game_types()


def read_everything(game_id, by_seat, anyone):
    """Every GET body each seat and a spectator can read for this game."""
    bodies = []
    for who in list(by_seat.values()) + [None]:
        for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/view",
                     f"/api/games/{game_id}/log", f"/api/games/{game_id}/archive"):
            if who is None:
                r = anyone.get(path, signed=False)
            else:
                r = who.get(path)
            bodies.append((who.name if who else None, path, r.get_data(as_text=True)))
        if who is not None:
            bodies.append((who.name, "legal", who.get(f"/api/games/{game_id}/legal")
                           .get_data(as_text=True)))
    return bodies


@pytest.mark.properties
@pytest.mark.parametrize("type_", REAL_GAMES)
def test_random_game_over_the_api_keeps_the_seed_secret(make_player, app, type_):
    if not _available(type_):
        pytest.skip(f"{type_} is not available yet")
    n = SEATS[type_]
    game_id, by_seat = start(make_player, type_, n)
    rng = random.Random(7)
    from server.db import db
    from server.db.models import Game
    with app.app_context():
        seed = db.session.get(Game, game_id).seed
    # the seed is looked for everywhere at steps 0, 20, 40 (0 and 20 in the default run)
    for step in range(examples(60, least=21)):
        info = by_seat[next(iter(by_seat))].get(f"/api/games/{game_id}/view").get_json()
        if info["game"]["status"] == "over":
            break
        seat = rng.choice(info["view"]["to_act"])
        legal = by_seat[seat].get(f"/api/games/{game_id}/legal").get_json()["moves"]
        assert legal, f"{seat} owes a move but has none"
        r = by_seat[seat].play(game_id, seat, rng.choice(legal))
        assert r.status_code == 201, r.get_json()
        over = by_seat[seat].get(f"/api/games/{game_id}").get_json()["status"] == "over"
        if step % 20 == 0 and not over:
            # (once the game is over its seed is public: the archive carries it; a random
            # Title of Liberty team may concede or starve early, whatever the server's seed)
            for who, path, body in read_everything(game_id, by_seat, by_seat[seat]):
                assert seed not in body, f"the seed leaked to {who} via {path}"
    archive = by_seat[next(iter(by_seat))].get(f"/api/games/{game_id}/archive").get_json()
    envelopes = check_chain(archive)
    # the server's state is exactly the replay of its own log
    game = get_game(type_)
    state = replay(game, archive["header"], bytes.fromhex(seed), envelopes)
    for seat, player in by_seat.items():
        served = player.get(f"/api/games/{game_id}/view").get_json()["view"]
        assert served == json.loads(json.dumps(dict(game.view(state, seat), you=seat)))


def post_everything(game_id, by_seat, anyone, outsider):
    """Every POST answer and error body each seat, an outsider and an anonymous caller get.

    Repeats of every entry copied from the public log (an envelope and signature are public:
    they prove nothing about the caller), a move refused by the rules, a stale move, a join
    to a full game, a malformed move, each also with ``?answer=view`` (the view after it, or
    with a stale move's refusal), and the move check for each seat: signed by each seat, by a
    player with no seat, unsigned.
    """
    public_log = anyone.get(f"/api/games/{game_id}/log", signed=False).get_json()["entries"]
    seat, mover = next(iter(by_seat.items()))
    info = mover.get(f"/api/games/{game_id}/view").get_json()
    bodies = {
        "illegal": mover.move_body(game_id, seat, "jump", seq=info["next_seq"],
                                   prev=info["prev"]),
        "stale": mover.move_body(game_id, seat, "roll", seq=0, prev=info["prev"]),
        "malformed": {"envelope": "{}", "signature": "0" * 128},
    }
    for entry in public_log:
        bodies[f"repeat of seq {entry['seq']}"] = {"envelope": entry["envelope"],
                                                    "signature": entry["signature"]}
    out = []
    callers = [(p.name, p, True) for p in by_seat.values()] + \
        [(outsider.name, outsider, True), (None, anyone, False)]
    for who, player, signed in callers:
        for what, body in bodies.items():
            # the entry alone, and with the view after it (a stale move's refusal then
            # carries the current view and the entry it linked to)
            for query in ("", "?answer=view"):
                r = player.post(f"/api/games/{game_id}/moves{query}", body, signed=signed)
                out.append((who, f"POST moves{query} ({what}) -> {r.status_code}",
                            r.get_data(as_text=True)))
        r = player.post(f"/api/games/{game_id}/join", {}, signed=signed)
        out.append((who, f"POST join -> {r.status_code}", r.get_data(as_text=True)))
        # the move check (the game page's preview): for the caller's own seat only
        for ask in [{"move": "peek"}, {"move": "jump"}] + \
                [{"move": "peek", "seat": s} for s in by_seat]:
            r = player.post(f"/api/games/{game_id}/check", ask, signed=signed)
            out.append((who, f"POST check {ask} -> {r.status_code}", r.get_data(as_text=True)))
    return out


def test_sentinels_in_hidden_fields_never_reach_another_seat(make_player, app):
    """every answer with game text, GET or POST, repeat or error, and the log's
    facts, is rendered for the caller: a seated player only through a signed request."""
    game_id, (ann, bob) = start_pig(make_player)
    eve = make_player("eve")
    by_seat = {"north": ann, "east": bob}
    for seat, player in by_seat.items():
        # make it seat's turn and peek: the Pig fixture's secret is private to its seat
        while ann.get(f"/api/games/{game_id}/view").get_json()["view"]["to_act"] != [seat]:
            other = next(s for s in by_seat if s != seat)
            by_seat[other].play(game_id, other, "roll")
        assert player.play(game_id, seat, "peek").status_code == 201
    from server.db import db
    from server.db.models import Game
    from server.db.state_cache import load_state
    with app.app_context():
        game = db.session.get(Game, game_id)
        state = load_state(game)
    secrets_by_seat = {s: f"peeked at {state['secret'][s]}" for s in by_seat}
    # the secret does travel where it may: the seat's own log, events and facts both
    own = ann.get(f"/api/games/{game_id}/log").get_json()["entries"]
    peek = next(e for e in own if e["move"] == "peek" and e["seat"] == "north")
    assert peek["facts"][0]["data"]["note"] == "fact: " + secrets_by_seat["north"]
    assert secrets_by_seat["north"] in peek["events"][0]
    everything = read_everything(game_id, by_seat, ann) + \
        post_everything(game_id, by_seat, ann, eve)
    seen_own = set()
    # a whole number: "peeked at 9" is not found inside another seat's "peeked at 97"
    found = {seat: re.compile(re.escape(sentinel) + r"(?![0-9])")
             for seat, sentinel in secrets_by_seat.items()}
    for who, path, body in everything:
        for seat, sentinel in found.items():
            if who != by_seat[seat].name:
                assert not sentinel.search(body), f"{seat}'s secret reached {who} via {path}"
            elif sentinel.search(body) and path.startswith("POST"):
                seen_own.add(seat)
    # a signed repeat by the seat's own player does read as that seat (so the checks above
    # are not passing on answers that carry nothing)
    assert seen_own == set(by_seat)
    posts = sum(1 for _, path, _ in everything if path.startswith("POST"))
    errors = sum(1 for _, path, _ in everything if re.search(r"-> [45][0-9][0-9]$", path))
    record("1 hidden information (Pig sentinels)",
           f"{len(everything)} answers searched ({posts} POST answers, {errors} error bodies), "
           f"0 with another seat's secret")


def test_a_public_envelope_posted_again_reads_as_a_spectator(make_player):
    """As reported: the envelope and signature of a move are public (the log
    serves them); posting them again answered 200 with the entry as its seat sees it."""
    game_id, (ann, bob) = start_pig(make_player)
    assert ann.play(game_id, "north", "peek").status_code == 201
    entry = ann.get(f"/api/games/{game_id}/log", signed=False).get_json()["entries"][0]
    copy = {"envelope": entry["envelope"], "signature": entry["signature"]}
    stranger = ann.post(f"/api/games/{game_id}/moves", copy, signed=False)
    assert stranger.status_code == 200
    assert stranger.get_json()["events"] == ["north peeked"]
    assert stranger.get_json()["facts"] == [{"kind": "peek", "data": {"seat": "north"}}]
    assert "peeked at" not in stranger.get_data(as_text=True)
    other_seat = bob.post(f"/api/games/{game_id}/moves", copy)
    assert "peeked at" not in other_seat.get_data(as_text=True)
    mine = ann.post(f"/api/games/{game_id}/moves", copy)
    assert mine.get_json()["events"][0].startswith("north peeked at ")


def test_a_fresh_move_posted_unsigned_reads_as_a_spectator(make_player):
    """A move's signature proves who made it, not who posts it (a relay, a mail provider)."""
    game_id, (ann, bob) = start_pig(make_player)
    r = ann.post(f"/api/games/{game_id}/moves", ann.move_body(game_id, "north", "peek"),
                 signed=False)
    assert r.status_code == 201 and r.get_json()["events"] == ["north peeked"]
    assert "note" not in r.get_json()["facts"][0]["data"]


def test_the_rules_reason_goes_only_to_the_movers_signed_request(make_player):
    """IllegalMove's message is 'safe to show to the player who sent the move' (shared/__init__):
    to no one else."""
    game_id, (ann, bob) = start_pig(make_player)
    body = ann.move_body(game_id, "north", "jump")
    anonymous = ann.post(f"/api/games/{game_id}/moves", body, signed=False)
    assert anonymous.status_code == 422
    assert anonymous.get_json()["error"]["code"] == "illegal_move"
    assert "jump" not in anonymous.get_json()["error"]["message"]
    signed = ann.post(f"/api/games/{game_id}/moves", body)
    assert signed.status_code == 422
    assert signed.get_json()["error"]["code"] == "bad_notation"
    assert "'jump' is not a move" in signed.get_json()["error"]["message"]
