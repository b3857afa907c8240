"""Bots in the service (server/game/bots.py): bot accounts, games created with bots, the worker.

The worker function is called directly here (with the fake clock of the fixtures); the real
``pbem-server bots`` process is driven in tests/client/test_bots_cli.py.
"""

import json
import logging
import random
import threading

import pytest

from shared.archive import verify_archive
from shared.envelope import public_key_hex
from shared.games import get_game
from tests.helpers.bots import game_of, log_of, play_due


def first_call(replacement):
    """A choose_move whose first call does ``replacement`` and whose later calls (the random
    fallback also goes through choose_move) really choose."""
    from shared.bots import choose_move
    calls = []

    def choose(*args, **kw):
        calls.append(1)
        if len(calls) == 1:
            return replacement()
        return choose_move(*args, **kw)
    return choose


@pytest.fixture(autouse=True)
def fresh_worker_memory():
    from server.game import bots
    from server.workers import bots as bot_worker
    bot_worker._given_up.clear()
    bots._warned.clear()
    yield
    bot_worker._given_up.clear()
    bots._warned.clear()


def create(player, type_="pig", seats=3, bots=2, level="random", options=None, **extra):
    body = {"type": type_, "seats": seats, "options": options or {}, "bots": bots,
            "bot_level": level, **extra}
    return player.post("/api/games", body)


# --- reserved names ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["bot-greedy", "bot-random", "Bot-Strong", "BOT_x", "bot.anne",
                                  "bot"])
def test_registration_refuses_the_names_of_bots(make_player, name):
    p = make_player(name, register=False)
    r = p.register()
    assert r.status_code == 400, r.get_json()
    assert "reserved" in json.dumps(r.get_json())


@pytest.mark.parametrize("name", ["bott", "robot-x", "abbot", "bo"])
def test_names_that_only_look_like_bot_are_free(make_player, name):
    assert make_player(name, register=False).register().status_code == 201


# --- creating games with bots ----------------------------------------------------------------

def test_a_game_created_with_bots_starts_and_names_its_bots(make_player, app):
    ann = make_player("ann")
    r = create(ann, seats=3, bots=2, level="random", options={"target": 10})
    assert r.status_code == 201, r.get_json()
    game = r.get_json()
    assert game["status"] == "playing"
    assert [s["player"] for s in game["seats"]] == ["ann", "bot-random", "bot-random"]
    assert game["you"] == ["north"]
    # the bot account is an ordinary public player with its own key
    profile = ann.get("/api/players/bot-random", signed=False).get_json()
    assert len(profile["public_key"]) == 64 and profile["public_key"] != ann.public_key


def test_bots_fill_the_free_seats_and_leave_the_rest_open(make_player, app):
    ann, bob = make_player("ann"), make_player("bob")
    game = create(ann, seats=4, bots=2, seat="east").get_json()
    assert game["status"] == "open"
    assert [s["player"] for s in game["seats"]] == ["bot-random", "ann", "bot-random", None]
    joined = bob.post(f"/api/games/{game['id']}/join", {}).get_json()
    assert joined["status"] == "playing"


def test_a_level_the_game_has_no_bots_for_is_refused_with_its_levels(make_player, app):
    """Pig (a fixture) has only the random level: asking for strong is refused, never played
    by a random bot under another name; asking for no level gives its strongest."""
    ann = make_player("ann")
    r = create(ann, seats=2, bots=1, level="strong")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "bad_bot_level"
    assert r.get_json()["error"]["message"] == "pig has no strong bot: its levels are random"
    assert ann.get("/api/games").get_json()["games"] == []
    game = ann.post("/api/games", {"type": "pig", "seats": 2, "bots": 1}).get_json()
    assert [s["player"] for s in game["seats"]] == ["ann", "bot-random"]
    r = ann.post("/api/games", {"type": "pig", "seats": 2,
                                "options": {"on_timeout": "bot:greedy"}})
    assert r.status_code == 422 and "pig has no greedy bot: its levels are random" in \
        r.get_json()["error"]["message"]


@pytest.mark.parametrize("body, code", [
    ({"bots": 4}, "bad_bots"),                # 3 seats: at most 3 bots
    ({"bots": 3, "seat": "east"}, "bad_bots"),  # bots only: the creator takes no seat
    ({"bots": 9}, "malformed"),
    ({"bots": -1}, "malformed"),
    ({"bots": True}, "malformed"),
    ({"bots": "2"}, "malformed"),
    ({"bots": 1, "bot_level": "genius"}, "malformed"),
    ({"bots": 1, "bot_level": "Greedy"}, "malformed"),
    ({"bots": 1, "bot_level": None}, "malformed"),
])
def test_bad_bot_requests_are_4xx_and_create_nothing(make_player, app, body, code):
    ann = make_player("ann")
    r = ann.post("/api/games", {"type": "pig", "seats": 3, **body})
    assert 400 <= r.status_code < 500, r.get_json()
    assert r.get_json()["error"]["code"] in (code, "unprocessable", "bad_request",
                                             "malformed"), r.get_json()
    assert ann.get("/api/games").get_json()["games"] == []


def test_a_game_of_bots_only_through_the_api_is_watched_to_its_end(make_player, app):
    """``bots`` = ``seats``: every seat goes to the bot, the creator holds none and watches
    (its game list shows the game, its views are a spectator's); the worker plays the game
    to the end and the archive verifies."""
    ann = make_player("ann")
    r = create(ann, seats=3, bots=3, level="random", options={"target": 20})
    assert r.status_code == 201, r.get_json()
    game = r.get_json()
    assert game["status"] == "playing" and game["you"] == []
    assert [s["player"] for s in game["seats"]] == ["bot-random"] * 3
    listed = ann.get("/api/games").get_json()["games"]
    assert [g["id"] for g in listed] == [game["id"]]
    view = ann.get(f"/api/games/{game['id']}/view").get_json()
    assert view["seat"] is None
    # the watcher cannot move for the bots
    assert ann.play(game["id"], "north", "roll").status_code in (401, 403)
    for _ in range(500):
        if play_due(app) == 0:
            break
    over = game_of(ann, game["id"])
    assert over["status"] == "over" and over["result"]["winners"]
    archive = ann.get(f"/api/games/{game['id']}/archive").get_json()
    report = verify_archive(archive)
    assert report["complete"] and report["replayed"]
    assert {s["player"] for s in archive["header"]["seats"]} == {"bot-random"}


def test_games_of_bots_only_are_capped_per_player(make_player, app):
    """Each game of bots only costs the server's CPU until it ends: a stranger cannot start
    them without end (PBEM_MAX_BOT_GAMES, 3 by default); one that ended frees its place, and
    games the player sits in do not count."""
    ann, bob = make_player("ann"), make_player("bob")
    ids = [create(ann, seats=2, bots=2, options={"target": 30}).get_json()["id"]
           for _ in range(3)]
    assert create(ann, seats=2, bots=1).status_code == 201   # a seat of its own: not capped
    r = create(ann, seats=2, bots=2)
    assert r.status_code == 409, r.get_json()
    assert r.get_json()["error"]["code"] == "too_many_bot_games"
    assert create(bob, seats=2, bots=2).status_code == 201   # another player's own count
    with app.app_context():
        from server.workers import bots as bot_worker
        bot_worker.play_game(ids[0], max_moves=10000)
    assert game_of(ann, ids[0])["status"] == "over"
    assert create(ann, seats=2, bots=2).status_code == 201
    assert create(ann, seats=2, bots=2).status_code == 409


def test_bots_for_an_unknown_game_type_is_a_404(make_player, app):
    r = create(make_player("ann"), type_="chess", seats=2, bots=1)
    assert r.status_code == 404


# --- the worker -----------------------------------------------------------------------------------

def _human_move(player, game_id, seat, rng):
    legal = player.get(f"/api/games/{game_id}/legal?seat={seat}").get_json()["moves"]
    r = player.play(game_id, seat, rng.choice(sorted(legal)))
    assert r.status_code == 201, r.get_json()


def test_bots_move_by_themselves_and_the_archive_verifies(make_player, app):
    """A Pig game of ann and two bots, through the API; the worker plays the bots' turns."""
    ann = make_player("ann")
    # 40 points: more than any seat banks in its first turn, so every seat moves
    game_id = create(ann, seats=3, bots=2, options={"target": 40}).get_json()["id"]
    last = "hold"
    for _ in range(3000):
        game = game_of(ann, game_id)
        if game["status"] == "over":
            break
        if "north" in game["to_act"]:  # ann rolls once, then holds: the turn goes round
            last = "hold" if last == "roll" else "roll"
            assert ann.play(game_id, "north", last).status_code == 201
        else:
            assert play_due(app) >= 1  # a bot owes the move: the worker plays it
    assert game["status"] == "over"
    entries = log_of(ann, game_id)
    assert {e["seat"] for e in entries} == {"north", "east", "south"}
    assert [e["seq"] for e in entries] == list(range(len(entries)))
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    report = verify_archive(archive)
    assert report["complete"] and report["replayed"]
    players = {s["seat"]: s["player"] for s in archive["header"]["seats"]}
    assert players == {"north": "ann", "east": "bot-random", "south": "bot-random"}
    # the bots' moves are signed with the bot account's key, the one in the header
    with app.app_context():
        from server.db import db
        from server.db.models import BotAccount
        row = db.session.execute(db.select(BotAccount).filter_by(level="random")).scalar_one()
        bot_public = public_key_hex(bytes.fromhex(row.private_key))
    assert {s["public_key"] for s in archive["header"]["seats"] if s["seat"] != "north"} == \
        {bot_public}
    # nothing left to do: the worker stops touching a finished game
    assert play_due(app) == 0


def test_the_worker_plays_nothing_while_a_human_owes_the_move(make_player, app):
    ann = make_player("ann")
    game_id = create(ann, seats=2, bots=1).get_json()["id"]
    assert game_of(ann, game_id)["to_act"] == ["north"]
    assert play_due(app) == 0
    assert log_of(ann, game_id) == []


def test_a_game_of_bots_only_plays_to_the_end_and_stops(app):
    """No human at all (made through the service: the API seats its caller)."""
    from server.db import db
    from server.game import bots
    with app.app_context():
        creator = bots.bot_player("random")
        game = bots.create_game(creator, "pig", 4, {"target": 15}, bots=3, level="random")
        game_id = game.id
        assert game.status == "playing"
    passes = 0
    while True:
        passes += 1
        assert passes < 200, "a game of bots never ended"
        if play_due(app) == 0:
            break
    with app.app_context():
        from server.db.models import Game, Move
        game = db.session.get(Game, game_id)
        assert game.status == "over" and game.result["winners"]
        count = db.session.execute(db.select(db.func.count()).select_from(Move)
                                   .filter_by(game_id=game_id)).scalar_one()
        assert count == game.head_seq + 1
    assert play_due(app) == 0


def test_bots_answer_every_trade_offer_they_owe(make_player, app):
    """Zarahemla: an offer to everyone makes both bot seats owe an answer at once; the worker
    answers each, in one pass."""
    ann = make_player("ann")
    r = create(ann, type_="zarahemla", seats=3, bots=2, level="random")
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    rng = random.Random(3)
    answered = 0
    for _ in range(600):
        game = game_of(ann, game_id)
        if game["status"] != "playing" or answered >= 2:
            break
        mine = [s for s in game["to_act"] if s in game["you"]]
        bots_owe = [s for s in game["to_act"] if s not in game["you"]]
        if mine and mine[0] != game["to_act"][0] and "decline" in ann.get(
                f"/api/games/{game_id}/legal?seat={mine[0]}").get_json()["moves"]:
            # ann owes an answer to a bot's offer, which waits for it
            # (tests/server/test_bots_trade_wait.py): she declines
            assert ann.play(game_id, mine[0], "decline").status_code == 201
            continue
        if bots_owe:
            before = len(log_of(ann, game_id))
            assert play_due(app) >= 1
            if len(bots_owe) > 1:  # several answers owed at once: each one is given
                new = log_of(ann, game_id)[before:]
                assert set(bots_owe) <= {e["seat"] for e in new}, (bots_owe, new)
                answered += 1
            continue
        seat = mine[0]
        legal = ann.get(f"/api/games/{game_id}/legal?seat={seat}").get_json()["moves"]
        offers = [m for m in legal if m.startswith("offer")]
        move = rng.choice(offers) if offers and rng.random() < 0.5 else rng.choice(sorted(legal))
        r = ann.play(game_id, seat, move)
        assert r.status_code == 201, r.get_json()
    assert answered >= 2


def test_two_workers_racing_append_exactly_one_entry_per_seq(make_player, app, monkeypatch,
                                                              caplog):
    """Both workers choose a move for the same position (a barrier holds them until both
    have), then both append: the log's seq check lets one through, the other gets a 409."""
    from server.game import bots
    from server.workers import bots as bot_worker
    ann = make_player("ann")
    with app.app_context():
        creator = bots.bot_player("random")
        game_id = bots.create_game(creator, "pig", 2, {"target": 30}, bots=1).id
    barrier = threading.Barrier(2, timeout=2)
    real = bot_worker.choose_move
    met = []

    def choose_together(*args, **kw):
        try:
            barrier.wait()
            met.append(1)
        except threading.BrokenBarrierError:
            pass
        return real(*args, **kw)

    monkeypatch.setattr(bot_worker, "choose_move", choose_together)
    played, errors = [], []

    def worker():
        try:
            with app.app_context():
                n = bot_worker.play_game(game_id, max_moves=20)
                played.append(n)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    with caplog.at_level(logging.INFO, "pbem.bots"):
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    assert not errors, errors
    assert "not appended" in caplog.text  # a worker lost a race, and said so
    assert len(met) >= 2  # they really met at least once before appending
    entries = log_of(ann, game_id)
    assert [e["seq"] for e in entries] == list(range(len(entries)))
    assert sum(played) == len(entries)
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert verify_archive(archive)["entries"] == len(entries)


def test_a_refused_bot_move_falls_back_to_a_random_legal_one(make_player, app, monkeypatch,
                                                             caplog):
    from server.game.domain import Refused
    from server.workers import bots as bot_worker
    ann = make_player("ann")
    game_id = create(ann, seats=2, bots=1).get_json()["id"]
    ann.play(game_id, "north", "hold")  # 0 points banked: east (the bot) owes the move
    monkeypatch.setattr(bot_worker, "choose_move", first_call(lambda: "peek"))
    real_append = bot_worker.append_move
    calls = []

    def refuse_peek(game, text, sig, **kw):
        calls.append(json.loads(text)["move"])
        if json.loads(text)["move"] == "peek":
            raise Refused("illegal_move", "no peeking today")
        return real_append(game, text, sig, **kw)

    monkeypatch.setattr(bot_worker, "append_move", refuse_peek)
    with app.app_context(), caplog.at_level(logging.ERROR, "pbem.bots"):
        outcome = bot_worker.play_game(game_id, max_moves=1)
    assert outcome == 1
    assert calls[0] == "peek" and calls[1] in ("roll", "hold")
    assert "refused" in caplog.text
    assert log_of(ann, game_id)[-1]["move"] == calls[1]


def test_a_bot_whose_every_move_is_refused_gives_up_instead_of_looping(make_player, app,
                                                                         monkeypatch, caplog):
    from server.game.domain import Refused
    from server.workers import bots as bot_worker
    ann = make_player("ann")
    game_id = create(ann, seats=2, bots=1).get_json()["id"]
    ann.play(game_id, "north", "hold")
    calls = []

    def refuse_all(game, text, sig, **kw):
        calls.append(1)
        raise Refused("illegal_move", "never")

    monkeypatch.setattr(bot_worker, "append_move", refuse_all)
    with caplog.at_level(logging.ERROR, "pbem.bots"):
        assert play_due(app) == 0
        assert len(calls) == 2  # the bot's move, then one random fallback
        assert play_due(app) == 0
        assert len(calls) == 2  # and that position is left alone afterwards
    assert "left alone" in caplog.text
    assert len(log_of(ann, game_id)) == 1


def test_a_bot_that_raises_plays_a_random_legal_move(make_player, app, monkeypatch):
    from server.workers import bots as bot_worker
    ann = make_player("ann")
    game_id = create(ann, seats=2, bots=1).get_json()["id"]
    ann.play(game_id, "north", "hold")

    def broken():
        raise RuntimeError("a bug in a bot")

    monkeypatch.setattr(bot_worker, "choose_move", first_call(broken))
    assert play_due(app) >= 1
    assert log_of(ann, game_id)[1]["seat"] == "east"


def test_a_bot_answer_outside_the_legal_list_is_not_sent(make_player, app, monkeypatch):
    from server.workers import bots as bot_worker
    ann = make_player("ann")
    game_id = create(ann, seats=2, bots=1).get_json()["id"]
    ann.play(game_id, "north", "hold")
    monkeypatch.setattr(bot_worker, "choose_move", first_call(lambda: "resign\x00"))
    assert play_due(app) >= 1
    assert log_of(ann, game_id)[1]["move"] in ("roll", "hold", "peek")


def test_a_deleted_bot_key_silences_the_bot_and_refuses_new_bot_games(make_player, app):
    from server.db import db
    from server.db.models import BotAccount
    ann = make_player("ann")
    game_id = create(ann, seats=2, bots=1).get_json()["id"]
    ann.play(game_id, "north", "hold")
    with app.app_context():
        db.session.execute(db.delete(BotAccount))
        db.session.commit()
    assert play_due(app) == 0  # no key: nothing signed, nothing raised
    assert len(log_of(ann, game_id)) == 1
    r = create(ann, seats=2, bots=1)
    assert r.status_code == 409, r.get_json()
    error = r.get_json()["error"]
    assert error["code"] == "bot_unavailable" and "no key" in error["message"]
    assert len(ann.get("/api/games").get_json()["games"]) == 1  # no half-made game
    # a game without bots is still fine
    assert ann.post("/api/games", {"type": "pig", "seats": 2}).status_code == 201


def test_a_human_who_holds_a_bot_name_is_never_played(make_player, app):
    """An account named bot-random from before the names were reserved: its key is the
    human's, so the server refuses to seat it as a bot rather than take it over."""
    from server.db import db
    from server.db.models import Player
    with app.app_context():
        db.session.add(Player(name="bot-random", public_key="ab" * 32, tz="UTC"))
        db.session.commit()
    r = create(make_player("ann"), seats=2, bots=1)
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "bot_unavailable"


def test_a_tampered_bot_key_is_not_used(make_player, app):
    from server.db import db
    from server.db.models import BotAccount
    ann = make_player("ann")
    game_id = create(ann, seats=2, bots=1).get_json()["id"]
    ann.play(game_id, "north", "hold")
    with app.app_context():
        row = db.session.execute(db.select(BotAccount)).scalar_one()
        row.private_key = "11" * 32
        db.session.commit()
    assert play_due(app) == 0
    assert len(log_of(ann, game_id)) == 1
    assert create(ann, seats=2, bots=1).status_code == 409


def test_a_bot_seat_in_a_game_that_is_over_is_left_alone(make_player, app):
    from server.workers import bots as bot_worker
    ann = make_player("ann")
    game_id = create(ann, seats=2, bots=1, options={"target": 1}).get_json()["id"]
    rng = random.Random(2)
    while game_of(ann, game_id)["status"] != "over":
        if "north" in game_of(ann, game_id)["to_act"]:
            ann.play(game_id, "north", rng.choice(["roll", "hold"]))
        else:
            play_due(app)
    n = len(log_of(ann, game_id))
    with app.app_context():
        assert bot_worker.play_game(game_id) == 0
        assert bot_worker.due_games() == []
    assert len(log_of(ann, game_id)) == n


def test_bot_creation_races_make_one_account(app):
    """Two workers creating the same bot account at once: one wins, the other reads it."""
    from server.db import db
    from server.db.models import Player
    from server.game import bots
    ids, errors = [], []

    def make():
        try:
            with app.app_context():
                ids.append(bots.bot_player("greedy").id)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=make) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors and len(set(ids)) == 1
    with app.app_context():
        assert db.session.execute(db.select(db.func.count()).select_from(Player)
                                  .filter_by(name="bot-greedy")).scalar_one() == 1


def test_bot_levels_match_the_rules_library():
    from server.game.bots import level_for
    from shared.bots import LEVELS
    assert LEVELS == ("random", "greedy", "strong")
    pig = get_game("pig")
    assert [level_for(pig, level) for level in LEVELS] == ["random"] * 3


@pytest.mark.slow
@pytest.mark.parametrize("type_, seats", [("zarahemla", 3), ("stone_age", 3),
                                          ("title_of_liberty", 2)])
def test_real_games_of_bots_only_play_to_the_end_and_verify(app, type_, seats):
    """Every seat a bot (the strongest level each game has): the worker plays a whole game
    of each real game, the game ends, the worker stops, and the archive verifies."""
    from server.db import db
    from server.db.models import Game
    from server.game import bots
    from server.game.archives import archive_for
    with app.app_context():
        level = bots.level_for(get_game(type_), "strong")
        creator = bots.bot_player(level)
        game_id = bots.create_game(creator, type_, seats, {}, bots=seats - 1, level=level).id
    app.config["PBEM_BOT_SECONDS"] = 0.05
    for _ in range(2000):
        if play_due(app) == 0:
            break
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game.status == "over", (game.head_seq, game.to_act)
        report = verify_archive(archive_for(game))
        assert report["complete"] and report["entries"] == game.head_seq + 1
    assert play_due(app) == 0
