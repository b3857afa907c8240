"""Table talk over the API: signed messages, private press that never reaches another
reader, caps, mutes, notices, the page and the archive (pbem-archive-v3)."""

import json

import pytest

from shared.archive import verify_archive
from tests.helpers.api import start_pig
from tests.server.talk_helpers import message_doc, say

SECRET = "zq-private-press-7731"


def _three(make_player):
    game_id, players = start_pig(make_player, seats=3)
    return game_id, dict(zip(("north", "east", "south"), players))


def page_as(app, player, game_id, path=None):
    """The game page as ``player`` signed in to it (a one-time link, a browser of its own)."""
    link = player.post(f"/api/games/{game_id}/link").get_json()["path"]
    browser = app.test_client()
    assert browser.get(link).status_code in (200, 302, 303)
    return browser.get(path or f"/g/{game_id}").get_data(as_text=True)


def _everything(app, game_id, seats, anyone):
    """Every answer each reader can get about the game: API bodies, the page, the archive,
    and (per player) the notices queued for them."""
    from server.db import db
    from server.db.models import Notice, Player
    out = []
    for who in list(seats.values()) + [None]:
        for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/view",
                     f"/api/games/{game_id}/log", f"/api/games/{game_id}/archive",
                     f"/api/games/{game_id}/messages", f"/api/games/{game_id}/orders",
                     f"/g/{game_id}", f"/g/{game_id}/live", f"/archive/{game_id}"):
            r = anyone.get(path, signed=False) if who is None else who.get(path)
            out.append((who.name if who else None, path, r.get_data(as_text=True)))
        if who is not None:
            for path in (f"/g/{game_id}", f"/g/{game_id}/live"):
                out.append((who.name, "signed-in " + path, page_as(app, who, game_id, path)))
    with app.app_context():
        for notice in db.session.execute(db.select(Notice)).scalars():
            name = db.session.get(Player, notice.player_id).name if notice.player_id else None
            out.append((name, f"notice {notice.kind}",
                        notice.subject + notice.body + json.dumps(notice.payload)))
    return out


def test_public_and_private_messages_reach_exactly_their_readers(make_player, app):
    game_id, seats = _three(make_player)
    ann, bob, cyd = seats["north"], seats["east"], seats["south"]
    for p in seats.values():
        p.request("PATCH", "/api/players/me", {"email": f"{p.name}@example.org"})
    assert say(ann, game_id, "north", "Good luck, all").status_code == 201
    r = say(ann, game_id, "north", SECRET, to="east")
    assert r.status_code == 201 and r.get_json()["to"] == "east"
    assert ann.play(game_id, "north", "hold").status_code == 201
    # the hostile stranger: every answer to cyd, to a spectator, and everyone's notices
    readers = {who for who, path, body in _everything(app, game_id, seats, cyd)
               if SECRET in body}
    assert readers == {"ann", "bob"}
    bob_texts = [m["text"] for m in bob.get(f"/api/games/{game_id}/messages").get_json()
                 ["messages"]]
    assert bob_texts == ["Good luck, all", SECRET]
    assert [m["text"] for m in cyd.get(f"/api/games/{game_id}/messages").get_json()
            ["messages"]] == ["Good luck, all"]


def test_the_page_shows_talk_to_its_reader_escaped(make_player, client):
    game_id, (ann, bob) = start_pig(make_player)
    assert say(ann, game_id, "north", "<script>alert(1)</script> & more").status_code == 201
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "Table talk" in page and "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page


def test_forged_and_malformed_messages_are_refused(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    eve = make_player("eve")
    url = f"/api/games/{game_id}/messages"
    # signed for ann's seat with another key; bob posting as ann's seat; a stranger
    assert ann.post(url, message_doc(ann, game_id, "north", "hi", key=bytes(32))) \
        .get_json()["error"]["code"] == "bad_signature"
    assert bob.post(url, message_doc(ann, game_id, "north", "hi")).get_json()["error"][
        "code"] == "not_your_seat"
    assert eve.post(url, message_doc(eve, game_id, "north", "hi")).status_code == 403
    assert say(eve, game_id, "west", "hi").get_json()["error"]["code"] == "unknown_seat"
    # an unsigned request (the game page's): the document's signature is the proof, as a
    # move's is; a forged one is refused all the same, and its author is the seat's player
    assert ann.post(url, message_doc(ann, game_id, "north", "hi", key=bytes(32)),
                    signed=False).get_json()["error"]["code"] == "bad_signature"
    assert eve.post(url, message_doc(eve, game_id, "north", "hi"), signed=False) \
        .status_code == 403
    r = ann.post(url, message_doc(ann, game_id, "north", "unsigned hi"), signed=False)
    assert r.status_code == 201 and r.get_json()["player"] == "ann"
    # stale or future at, a recipient not in the game, to oneself
    r = say(ann, game_id, "north", "late", at=5)
    assert r.status_code == 409 and r.get_json()["error"]["details"]["seq"] == 0
    assert say(ann, game_id, "north", "x", to="west").status_code in (400, 403)
    with pytest.raises(Exception):
        message_doc(ann, game_id, "north", "x", to="north")
    # a tampered body after signing
    doc = message_doc(ann, game_id, "north", "honest")
    doc["body"]["text"] = "forged"
    assert ann.post(url, doc).get_json()["error"]["code"] == "bad_signature"
    # a repeat
    doc = message_doc(ann, game_id, "north", "once")
    assert ann.post(url, doc).status_code == 201
    assert ann.post(url, doc).status_code == 409


@pytest.mark.parametrize("text", ["", "   ", "x" * 501, "red\x1b[2J", "a\u202eb", "nul\x00"])
def test_texts_a_table_cannot_show_are_refused(make_player, text):
    game_id, (ann, bob) = start_pig(make_player)
    from shared.messages import MESSAGE_DOMAIN, sign_document
    body = {"kind": "message", "game": game_id, "seat": "north", "to": None, "at": 0,
            "text": text, "nonce": "n0nce123", "ts": 1}
    r = ann.post(f"/api/games/{game_id}/messages",
                 sign_document(ann.key, MESSAGE_DOMAIN, body) if "\x00" not in text else
                 {"body": body, "signature": "0" * 128})
    assert r.status_code == 400, r.get_json()


def test_messages_close_with_the_game_and_land_in_its_archive(make_player, app):
    game_id, (ann, bob) = start_pig(make_player, target=1)
    assert say(ann, game_id, "north", "gl").status_code == 201
    assert say(bob, game_id, "east", SECRET, to="north").status_code == 201
    for _ in range(200):
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        if info["game"]["status"] == "over":
            break
        seat = info["view"]["to_act"][0]
        player = ann if seat == "north" else bob
        move = "hold" if info["view"]["pot"] else "roll"
        assert player.play(game_id, seat, move).status_code == 201
    assert say(ann, game_id, "north", "gg").get_json()["error"]["code"] == "game_over"
    public = ann.get(f"/api/games/{game_id}/archive", signed=False).get_json()
    mine = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert public["format"] == "pbem-archive-v4"
    assert [d["body"]["text"] for d in public["messages"]] == ["gl"]
    assert [d["body"]["text"] for d in mine["messages"]] == ["gl", SECRET]
    report = verify_archive(mine)
    assert report["complete"] and [m["text"] for m in report["messages"]] == ["gl", SECRET]
    # a tampered message, a message moved to another seat, a message at a seq after the end
    from shared.archive import ArchiveError
    for tamper in (lambda d: d["body"].update(text="forged"),
                   lambda d: d["body"].update(seat="north", to="east"),
                   lambda d: d["body"].update(at=10 ** 6),
                   lambda d: d.update(signature="00" * 64)):
        doc = json.loads(json.dumps(mine))
        tamper(doc["messages"][1])
        with pytest.raises(ArchiveError):
            verify_archive(doc)


def test_mutes_hide_a_players_messages_from_the_muter_only(make_player, app):
    game_id, seats = _three(make_player)
    ann, bob, cyd = seats["north"], seats["east"], seats["south"]
    bob.request("PATCH", "/api/players/me", {"email": "bob@example.org"})
    cyd.request("PATCH", "/api/players/me", {"email": "cyd@example.org"})
    r = bob.post("/api/mutes", {"player": "ann"})
    assert r.status_code == 200 and r.get_json()["muted"] == ["ann"]
    assert say(ann, game_id, "north", "buy my wood").status_code == 201
    assert bob.get(f"/api/games/{game_id}/messages").get_json()["messages"] == []
    assert len(cyd.get(f"/api/games/{game_id}/messages").get_json()["messages"]) == 1
    assert "buy my wood" not in page_as(app, bob, game_id)
    assert "buy my wood" in page_as(app, cyd, game_id)
    from server.db import db
    from server.db.models import Notice
    with app.app_context():
        talk = db.session.execute(db.select(Notice).filter_by(kind="talk")).scalars().all()
        assert {n.to_address for n in talk} == {"cyd@example.org"}
    # the record keeps it: the archive is not muted
    assert len(bob.get(f"/api/games/{game_id}/archive").get_json()["messages"]) == 1
    assert bob.post("/api/mutes", {"player": "bob"}).status_code == 422
    assert bob.post("/api/mutes", {"player": "nobody"}).status_code == 404
    assert bob.request("DELETE", "/api/mutes/ann").get_json()["muted"] == []
    assert len(bob.get(f"/api/games/{game_id}/messages").get_json()["messages"]) == 1


def test_turn_notices_carry_the_last_messages(make_player, app):
    from server.db import db
    from server.db.models import Notice
    from server.workers.notify import compose_turn_notices
    game_id, (ann, bob) = start_pig(make_player)
    bob.request("PATCH", "/api/players/me", {"email": "bob@example.org"})
    assert say(ann, game_id, "north", "your move soon").status_code == 201
    assert ann.play(game_id, "north", "hold").status_code == 201
    with app.app_context():
        compose_turn_notices()
        turn = db.session.execute(db.select(Notice).filter_by(kind="turn",
                                                               to_address="bob@example.org")
                                  ).scalars().all()
        assert turn and "Table talk" in turn[-1].body and "your move soon" in turn[-1].body


def test_the_message_cap_is_a_rate_limit(tmp_path, clock, monkeypatch):
    from flask_migrate import upgrade

    from server import create_app
    from server.db import db
    from tests.conftest import database_url
    from tests.helpers.limits import _dispose, client_from, start_pig_on
    monkeypatch.setenv("PBEM_LIMIT_TALK", "3/minute")
    url, cleanup = database_url(tmp_path)
    app = create_app({"TESTING": True, "PBEM_CLOCK": clock, "SQLALCHEMY_DATABASE_URI": url,
                      "RATELIMIT_STORAGE_URI": None})
    try:
        with app.app_context():
            upgrade()
        game_id, ann, bob = start_pig_on(client_from(app, "10.0.0.1"), clock)
        codes = [say(ann, game_id, "north", f"spam {i}").status_code for i in range(5)]
        assert codes == [201, 201, 201, 429, 429]
        refusal = say(ann, game_id, "north", "more").get_json()["error"]
        assert refusal["details"]["setting"] == "PBEM_LIMIT_TALK"
        # bob's allowance is his own: ann's spam does not spend it
        assert say(bob, game_id, "east", "hello").status_code == 201
        # forged messages in bob's name do not spend his allowance either
        eve = client_from(app, "10.6.6.6")
        from tests.conftest import Player
        fake = Player(eve, clock, "bob")
        fake.key = bytes(32)
        for i in range(5):
            assert say(fake, game_id, "east", f"forged {i}", at=0).status_code == 401
        assert say(bob, game_id, "east", "still me").status_code == 201
    finally:
        _dispose(app, db)
        cleanup()


def test_the_pages_live_part_follows_the_talk_its_reader_may_read(make_player, app):
    """/g/GAME/live carries the talk (a live part) and its ETag changes with a message the
    reader may read, and only then: a private message leaves a spectator's page unchanged."""
    game_id, seats = _three(make_player)
    ann, bob = seats["north"], seats["east"]

    def reader(player):
        browser = app.test_client()
        if player is not None:
            link = player.post(f"/api/games/{game_id}/link").get_json()["path"]
            browser.get(link)
        return browser

    def live(browser):
        r = browser.get(f"/g/{game_id}/live")
        assert r.status_code == 200
        return r.headers["ETag"], r.get_data(as_text=True)

    spectator, bobs = reader(None), reader(bob)
    before = {"spectator": live(spectator)[0], "bob": live(bobs)[0]}
    assert say(ann, game_id, "north", "for east <i>only</i>", to="east").status_code == 201
    tag, html = live(spectator)
    assert tag == before["spectator"] and "only</i>" not in html and "for east" not in html
    assert spectator.get(f"/g/{game_id}/live", headers={"If-None-Match": tag}).status_code == 304
    tag, html = live(bobs)
    assert tag != before["bob"] and 'id="talk-messages"' in html and "data-live-part" in html
    assert "for east &lt;i&gt;only&lt;/i&gt;" in html
    assert say(ann, game_id, "north", "hello all").status_code == 201
    tag2, html = live(spectator)
    assert tag2 != before["spectator"] and "hello all" in html
