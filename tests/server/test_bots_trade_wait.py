"""A bot's trade offer waits for the human seats it asks (server/workers/bots.py, "A bot's
trade offer waits for the humans it asks"; docs/BOTS.md, "Bots and humans trading").

Zarahemla through the API with the fake clock; the worker's pass is called directly.  The
bot's offer is scripted (the first time the bot may offer, it offers what the test asks);
every other choice is the real bot's (greedy, seeded).
"""

import random

import pytest

from tests.helpers.bots import game_of, log_of, play_due

TALK = ("offer", "counter", "accept", "decline", "withdraw", "confirm")
HOUR = 3600


@pytest.fixture(autouse=True)
def fresh_worker_memory(app):
    from server.workers import bots as bot_worker
    bot_worker._given_up.clear()
    bot_worker._waiting.clear()
    app.config["PBEM_BOT_SEED"] = "trade-wait"
    yield
    bot_worker._given_up.clear()
    bot_worker._waiting.clear()


class Script:
    """The bot worker's ``choose_move``: the first time a bot on turn may offer and has no
    offer open, it offers ``pick(listed offers, seat)`` (``to`` appended when given); with
    ``confirm``, an offerer whose offer a seat accepted confirms it.  Else the real bot."""

    def __init__(self, to=None, pick=None, confirm=False, times=1):
        self.to, self.pick, self.confirm, self.left = to, pick, confirm, times
        self.offers = []

    def __call__(self, game, view, seat, legal, rng, level="random", budget=None, refused=()):
        from shared.bots import choose_move
        offer = view.get("offer")
        if self.confirm and offer and offer["from"] == seat:
            for s, answer in sorted(offer["answers"].items()):
                if answer == "accept":
                    return f"confirm {s}"
        on_turn = view.get("turn", view.get("current")) == seat   # Stone Age: "current"
        if self.left and on_turn and offer is None:
            listed = sorted(m for m in legal if m.startswith("offer "))
            move = (self.pick or (lambda moves, _seat: moves[0]))(listed, seat) if listed \
                else None
            if move is not None:
                self.left -= 1
                move += f" to {','.join(self.to)}" if self.to else ""
                self.offers.append((seat, move))
                return move
        return choose_move(game, view, seat, legal, rng, level, budget, refused=refused)


@pytest.fixture
def script(monkeypatch):
    from server.workers import bots as bot_worker

    def install(**kw):
        s = Script(**kw)
        monkeypatch.setattr(bot_worker, "choose_move", s)
        return s
    return install


def new_game(player, seats=2, bots=1, move_hours=None, type_="zarahemla"):
    body = {"type": type_, "seats": seats, "options": {}, "bots": bots,
            "bot_level": "greedy"}
    if move_hours:
        body["move_hours"] = move_hours
    r = player.post("/api/games", body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def human_moves(player, game_id, seat, rng):
    """A move for the human: an owed answer is a decline; else any move but trade talk."""
    legal = player.get(f"/api/games/{game_id}/legal?seat={seat}").get_json()["moves"]
    if "decline" in legal:
        return "decline"
    return rng.choice(sorted(m for m in legal if m.split()[0] not in TALK))


def until_offered(app, player, game_id, script, rng, limit=600):
    """Play (the human at random, the bots by the worker) until the script's offer is made;
    returns the game as the human then sees it."""
    seat = game_of(player, game_id)["you"][0]
    for _ in range(limit):
        game = game_of(player, game_id)
        assert game["status"] == "playing"
        if seat in game["to_act"] and not script.offers:
            r = player.play(game_id, seat, human_moves(player, game_id, seat, rng))
            assert r.status_code == 201, r.get_json()
            continue
        played = play_due(app)
        if script.offers:
            return game_of(player, game_id)
        assert played >= 1
    raise AssertionError("the bot never offered")


def view_of(player, game_id):
    return player.get(f"/api/games/{game_id}/view").get_json()["view"]


def offer_of(player, game_id):
    return view_of(player, game_id)["offer"]


@pytest.mark.parametrize("type_, seats", [("zarahemla", 2), ("stone_age", 3)])
def test_the_offer_stays_open_across_passes_until_the_human_answers(make_player, app, clock,
                                                                     script, type_, seats):
    """The bot offers to ann alone (Stone Age: three seats, the other bot not asked)."""
    ann = make_player("ann")
    game = new_game(ann, seats=seats, bots=seats - 1, type_=type_)
    gid = game["id"]
    s = script(to=game["you"])
    until_offered(app, ann, gid, s, random.Random(1))
    bot, move = s.offers[0]
    entries = log_of(ann, gid)
    assert entries[-1]["seat"] == bot and entries[-1]["move"] == move
    mine = game_of(ann, gid)["you"][0]
    for _ in range(11):             # eleven hours of passes: the bot's turn waits
        clock.advance(HOUR)
        assert play_due(app) == 0
    assert len(log_of(ann, gid)) == len(entries)
    offer = offer_of(ann, gid)
    assert offer["from"] == bot and offer["to"] == [mine] and not offer["answers"]
    assert mine in game_of(ann, gid)["to_act"]
    # the human declines: every addressed seat answered, the bot goes on in the next pass
    assert ann.play(gid, mine, "decline").status_code == 201
    assert play_due(app) >= 1
    after = log_of(ann, gid)[len(entries) + 1:]
    # every seat it asked answered and none agreed: the greedy bot withdraws its offer
    assert after and (after[0]["seat"], after[0]["move"]) == (bot, "withdraw")


@pytest.mark.parametrize("move_hours, setting, wait", [
    (None, None, 12 * HOUR),   # no move time: the cap
    (4, None, 2 * HOUR),       # half the move time
    (48, None, 12 * HOUR),     # half of it, capped
    (4, "1", HOUR),            # the setting lowers the cap
    (None, "0.5", HOUR // 2),
])
def test_the_offer_is_closed_once_the_wait_ran_out(make_player, app, clock, script,
                                                   move_hours, setting, wait):
    if setting is not None:
        app.config["PBEM_BOT_OFFER_HOURS"] = setting
    ann = make_player("ann")
    gid = new_game(ann, move_hours=move_hours)["id"]
    s = script()
    until_offered(app, ann, gid, s, random.Random(2))
    bot = s.offers[0][0]
    n = len(log_of(ann, gid))
    clock.advance(wait - 1)
    assert play_due(app) == 0 and len(log_of(ann, gid)) == n
    clock.advance(1)
    assert play_due(app) >= 1          # the wait ran out: the bot goes on as always
    entries = log_of(ann, gid)
    assert entries[n]["seat"] == bot
    # ... and the greedy bot's turn ends with the offer unanswered (or it withdrew it)
    offer = offer_of(ann, gid)
    assert offer is None or offer["from"] != bot
    assert any(e["seat"] == bot and e["move"] in ("end", "withdraw") for e in entries[n:])


def test_a_second_offer_in_the_same_turn_waits_only_for_the_rest(make_player, app, clock,
                                                                  script):
    """The wait counts from the bot's first offer of its turn: ann declines after an hour,
    the bot withdraws and offers again, and that offer waits until the twelfth hour only."""
    ann = make_player("ann")
    gid = new_game(ann)["id"]
    mine = game_of(ann, gid)["you"][0]
    s = script(times=2)
    until_offered(app, ann, gid, s, random.Random(7))
    bot = s.offers[0][0]
    clock.advance(HOUR)
    assert ann.play(gid, mine, "decline").status_code == 201
    assert play_due(app) >= 1
    assert len(s.offers) == 2 and s.offers[1][0] == bot      # withdrawn, and offered again
    moves = [(e["seat"], e["move"]) for e in log_of(ann, gid)]
    assert moves[-2:] == [(bot, "withdraw"), s.offers[1]]
    n = len(moves)
    clock.advance(11 * HOUR - 1)
    assert play_due(app) == 0 and len(log_of(ann, gid)) == n
    clock.advance(1)
    assert play_due(app) >= 1 and log_of(ann, gid)[n]["seat"] == bot


def test_a_setting_of_0_means_bots_never_wait(make_player, app, script):
    app.config["PBEM_BOT_OFFER_HOURS"] = "0"
    ann = make_player("ann")
    gid = new_game(ann)["id"]
    s = script()
    until_offered(app, ann, gid, s, random.Random(3))
    offer = offer_of(ann, gid)
    assert offer is None or offer["from"] != s.offers[0][0]  # closed in the offer's own pass


def test_a_human_who_accepts_within_the_wait_gets_the_trade(make_player, app, clock, script):
    from server.db import db
    from server.db.models import Game
    from server.db.state_cache import load_log
    from shared.zarahemla.board import RESOURCES
    ann = make_player("ann")
    gid = new_game(ann)["id"]
    mine = game_of(ann, gid)["you"][0]

    def payable(listed, seat):
        """An offer whose asked card the human holds (the test reads the real hand)."""
        hand = load_log(db.session.get(Game, gid)).state["players"][mine]["hand"]
        for move in listed:   # offer 1X for 1Y
            if hand[RESOURCES.index(move.split()[3][1:])]:
                return move
        return None

    s = script(pick=payable, confirm=True)
    until_offered(app, ann, gid, s, random.Random(4))
    bot, move = s.offers[0]
    give, get = move.split()[1][1:], move.split()[3][1:]
    before = view_of(ann, gid)["hand"]
    clock.advance(5 * HOUR)
    assert play_due(app) == 0
    assert ann.play(gid, mine, "accept").status_code == 201
    assert play_due(app) >= 1
    moves = [(e["seat"], e["move"]) for e in log_of(ann, gid)]
    i = moves.index((bot, move))
    assert moves[i + 1:i + 3] == [(mine, "accept"), (bot, f"confirm {mine}")]
    after = view_of(ann, gid)["hand"]
    assert after[give] == before[give] + 1 and after[get] == before[get] - 1


def test_answers_by_bots_do_not_wait(make_player, app, clock, script):
    """Three seats: ann and two bots.  An offer to the other bot only does not wait: the
    offerer goes on in the same pass, as before; an offer to everyone is answered by the
    other bot in that pass, and waits for ann alone."""
    ann = make_player("ann")
    game = new_game(ann, seats=3, bots=2)
    gid, mine = game["id"], game["you"][0]
    bots = [s["seat"] for s in game["seats"] if s["seat"] != mine]
    first = bots[0]
    s = script(pick=lambda listed, seat: listed[0] if seat == first else None,
               to=[bots[1]])
    until_offered(app, ann, gid, s, random.Random(5))
    moves = [(e["seat"], e["move"]) for e in log_of(ann, gid)]
    i = moves.index(s.offers[0])
    assert any(seat == first for seat, _ in moves[i + 1:])    # the offerer went on
    offer = offer_of(ann, gid)
    assert offer is None or offer["from"] != first

    # to everyone: the other bot answers, the offer waits for ann
    gid2 = new_game(ann, seats=3, bots=2)["id"]
    s = script(pick=lambda listed, seat: listed[0] if seat == first else None)
    until_offered(app, ann, gid2, s, random.Random(6))
    moves = [(e["seat"], e["move"]) for e in log_of(ann, gid2)]
    i = moves.index(s.offers[0])
    assert [seat for seat, _ in moves[i + 1:]] == [bots[1]]   # the answer, nothing more
    offer = offer_of(ann, gid2)
    assert offer["from"] == first and offer["owed"] == [mine]
    clock.advance(HOUR)
    assert play_due(app) == 0


def test_a_game_of_bots_only_never_waits(app, script, monkeypatch):
    """No human seat: the wait is never even looked up, and the offerer goes straight on
    (as before: its next move is its own)."""
    from server.game import bots
    from server.workers import bots as bot_worker

    def never(*args):
        raise AssertionError("a game of bots only looked for a wait")

    monkeypatch.setattr(bot_worker, "_wait_started", never)
    with app.app_context():
        creator = bots.bot_player("random")
        gid = bots.create_game(creator, "zarahemla", 2, {}, bots=2, level="greedy").id
    s = script(times=3)
    for _ in range(40):
        assert play_due(app) >= 1
        if not s.left:
            break
    assert not s.left
    with app.app_context():
        from server.db import db
        from server.db.models import Game, Move
        game = db.session.get(Game, gid)
        moves = db.session.execute(db.select(Move.seat, Move.move).filter_by(game_id=gid)
                                   .order_by(Move.seq)).all()
        assert game.status == "playing"
    pairs = [(m.seat, m.move) for m in moves]
    for seat, move in s.offers:
        i = pairs.index((seat, move))
        assert moves[i + 1].seat == seat         # the offerer went straight on
    assert play_due(app) >= 1                    # and the game goes on
