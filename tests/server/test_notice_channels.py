"""Notice channels end to end through the outbox: set by the API, told of a player's turn in
each format, postponed by quiet hours, folded into digests, stopped after repeated failures
(the player told by mail), a game's channel told of every move with mentions, and no channel
body ever carrying a hidden field (the sentinel test over every channel)."""

import json
import re

import pytest

from tests.helpers.mail import tick
from tests.helpers.receiver import Receiver

DISCORD_ID = "123456789012345678"


@pytest.fixture
def hooks(app):
    app.config["PBEM_WEBHOOK_ALLOW_PRIVATE"] = True  # the receivers are on loopback
    receiver = Receiver(status=204)
    app.config["PBEM_TELEGRAM_API"] = receiver.url
    yield receiver
    receiver.close()


def _all_channels(player, url):
    made = []
    for kind, target in (
            ("discord", {"url": url + "/discord", "mention": DISCORD_ID}),
            ("slack", {"url": url + "/slack", "mention": "U012ABCDEF"}),
            ("matrix", {"homeserver": url, "room": "!room:example.org",
                        "token": "syt_token_1234", "mention": "@ann:example.org"}),
            ("telegram", {"token": "123456:" + "B" * 30, "chat_id": "42"}),
            ("json", {"url": url + "/json"})):
        r = player.post("/api/players/me/channels", {"kind": kind, "target": target})
        assert r.status_code == 201, r.get_json()
        made.append(r.get_json())
    return made


def _bodies(receiver, part):
    return [json.loads(r["body"]) for r in receiver.requests if part in r["path"]]


def test_a_turn_notice_reaches_every_channel_in_its_own_format(app, make_player, clock, hooks,
                                                               smtp):  # noqa: F811
    ann = make_player("ann", email="ann@example.org")
    made = _all_channels(ann, hooks.url)
    secret = made[-1]["secret"]
    assert secret.startswith("whsec_")
    listed = ann.get("/api/players/me/channels").get_json()["channels"]
    assert all(c["secret"] is None for c in listed)  # shown once
    assert secret not in json.dumps(listed) and "syt_token_1234" not in json.dumps(listed)
    bob = make_player("bob")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2, "move_hours": 48}) \
        .get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    import time
    clock.t = int(time.time())  # the Standard Webhooks verifier checks against real time
    tick(app)
    discord, = _bodies(hooks, "/discord")
    assert discord["allowed_mentions"] == {"parse": [], "users": [DISCORD_ID]}
    assert game_id in discord["content"] and discord["embeds"][0]["fields"][0]["name"] == \
        "Deadline"
    slack, = _bodies(hooks, "/slack")
    assert slack["text"].startswith("<@U012ABCDEF>") and slack["blocks"]
    matrix, = _bodies(hooks, "/_matrix/")
    assert matrix["m.mentions"] == {"user_ids": ["@ann:example.org"]}
    telegram, = _bodies(hooks, "/sendMessage")
    assert telegram["chat_id"] == "42" and game_id in telegram["text"]
    from standardwebhooks.webhooks import Webhook
    raw = next(r for r in hooks.requests if r["path"] == "/json")
    body = Webhook(secret).verify(raw["body"], {k.lower(): v for k, v in raw["headers"].items()})
    assert body["data"]["game"] == game_id and body["type"] == "pbem.turn"
    # mail still goes too
    assert any(game_id in m["Subject"] for m in smtp.messages)


def test_quiet_hours_and_digests_hold_back_every_channel(app, make_player, clock, hooks,
                                                         smtp):  # noqa: F811
    from tests.helpers.mail import set_clock_utc
    set_clock_utc(clock, 2027, 3, 1, 3)  # 03:00 UTC
    ann = make_player("ann", email="ann@example.org")
    ann.request("PATCH", "/api/players/me", {"tz": "UTC", "quiet_start": 22, "quiet_end": 7})
    ann.post("/api/players/me/channels", {"kind": "discord",
                                          "target": {"url": hooks.url + "/discord"}})
    bob = make_player("bob")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    tick(app)
    assert _bodies(hooks, "/discord") == []       # quiet until 07:00
    set_clock_utc(clock, 2027, 3, 1, 7, 1)
    tick(app)
    assert len(_bodies(hooks, "/discord")) == 1
    # a digest player's channel gets one digest a day, not each notice
    carl = make_player("carl", email="carl@example.org")
    carl.request("PATCH", "/api/players/me", {"notify": "digest", "tz": "UTC"})
    carl.post("/api/players/me/channels", {"kind": "discord",
                                           "target": {"url": hooks.url + "/carl"}})
    game2 = carl.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    bob.post(f"/api/games/{game2}/join", {})
    tick(app)
    assert _bodies(hooks, "/carl") == []
    set_clock_utc(clock, 2027, 3, 2, 8, 5)
    tick(app)
    digest, = _bodies(hooks, "/carl")
    assert "digest" in digest["content"] and game2 in digest["content"]


def test_a_failing_channel_is_stopped_and_the_player_told_by_mail(app, make_player, clock,
                                                                  smtp):  # noqa: F811
    app.config["PBEM_WEBHOOK_ALLOW_PRIVATE"] = True
    dead = Receiver(status=404)  # a deleted webhook
    try:
        ann = make_player("ann", email="ann@example.org")
        cid = ann.post("/api/players/me/channels", {"kind": "discord", "target": {
            "url": dead.url + "/gone"}}).get_json()["id"]
        bob = make_player("bob")
        for _ in range(2):
            game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
            bob.post(f"/api/games/{game_id}/join", {})
        tick(app)
        channel = next(c for c in ann.get("/api/players/me/channels").get_json()["channels"]
                       if c["id"] == cid)
        assert channel["status"] == "stopped" and "404" in channel["stopped_reason"]
        tick(app)
        told = [m for m in smtp.messages if "stopped" in m["Subject"]]
        assert len(told) == 1 and "discord" in told[0]["Subject"]
        sent = len(dead.requests)
        game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
        bob.post(f"/api/games/{game_id}/join", {})
        tick(app)
        assert len(dead.requests) == sent  # nothing more goes to a stopped channel
        # the test button says why, and starts a channel that works again
        r = ann.post(f"/api/players/me/channels/{cid}/test", {})
        assert r.status_code == 200 and r.get_json() == {"sent": False,
                                                        "reason": r.get_json()["reason"]}
        dead.status = 204
        assert ann.post(f"/api/players/me/channels/{cid}/test", {}).get_json()["sent"]
    finally:
        dead.close()


def test_a_games_channel_is_told_of_each_move_with_the_owing_players_mentions(
        app, make_player, clock, hooks):
    ann, bob = make_player("ann"), make_player("bob")
    assert bob.request("PUT", "/api/players/me/chat-ids",
                       {"discord": "222222222222222222"}).status_code == 200
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    eve = make_player("eve")
    target = {"kind": "discord", "target": {"url": hooks.url + "/group"}}
    assert eve.post(f"/api/games/{game_id}/channels", target).status_code == 403
    assert ann.post(f"/api/games/{game_id}/channels", target).status_code == 201
    ann.play(game_id, "north", "roll")
    ann.play(game_id, "north", "hold")
    tick(app)
    post, = _bodies(hooks, "/group")
    assert "north" in post["embeds"][0]["description"]
    # bob owes the next move: mentioned, and only bob
    assert post["allowed_mentions"]["users"] == ["222222222222222222"]
    assert post["content"].startswith("<@222222222222222222>")
    tick(app)
    assert len(_bodies(hooks, "/group")) == 1  # told once per move
    listed = ann.get(f"/api/games/{game_id}/channels").get_json()["channels"]
    assert listed[0]["target"]["url"].endswith("/...")
    assert eve.get(f"/api/games/{game_id}/channels").status_code == 403


def test_no_channel_body_carries_a_hidden_field(app, make_player, clock, hooks):
    """The sentinel test over every channel: each seat peeks at its Pig secret, and no body
    sent to any channel (chat, game channel, JSON) holds either secret."""
    ann = make_player("ann", email="ann@example.org")
    _all_channels(ann, hooks.url)
    bob = make_player("bob")
    bob.post("/api/players/me/channels", {"kind": "json", "target": {"url": hooks.url + "/b"}})
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2, "move_hours": 48}) \
        .get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    ann.post(f"/api/games/{game_id}/channels", {"kind": "slack",
                                                "target": {"url": hooks.url + "/group"}})
    tick(app)
    by_seat = {"north": ann, "east": bob}
    for seat, player in by_seat.items():
        while ann.get(f"/api/games/{game_id}/view").get_json()["view"]["to_act"] != [seat]:
            other = next(s for s in by_seat if s != seat)
            by_seat[other].play(game_id, other, "roll")
            by_seat[other].play(game_id, other, "hold")
            tick(app)
        assert player.play(game_id, seat, "peek").status_code == 201
        tick(app)
    clock.advance(47 * 3600)  # reminders
    tick(app)
    from server.db import db
    from server.db.models import Game
    from server.db.state_cache import load_state
    with app.app_context():
        state = load_state(db.session.get(Game, game_id))
    secrets = [str(v) for v in state["secret"].values()]
    bodies = [r["body"].decode() for r in hooks.requests]
    assert len(bodies) >= 10
    for secret in secrets:
        pattern = re.compile(r"peeked at " + re.escape(secret))
        assert not any(pattern.search(b) for b in bodies)
