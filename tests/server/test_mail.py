"""Play by email: notices through a real SMTP server, digests, quiet hours, retries,
deadlines with forced moves, reminders, vacations, and moves by mail."""

import json
from email.message import EmailMessage

import pytest

from shared.archive import check_chain
from tests.helpers.mail import (
    _mail,
    armored,
    pig_game,
    post_mail,
    set_clock_utc,
    tick,
)

HOUR = 3600


def test_turn_notice_has_board_moves_and_local_deadline(app, make_player, clock, smtp):
    set_clock_utc(clock, 2027, 3, 10, 15)
    game_id, ann, bob = pig_game(make_player, clock)
    counts = tick(app)
    assert counts["notices"] == 1 and counts["sent"] == 1
    (msg,) = smtp.messages
    assert msg["To"] == "ann@example.org" and game_id in msg["Subject"]
    body = msg.get_content()
    assert "Pig to 20" in body                        # the board for her view
    assert "  roll" in body and "  hold" in body       # her legal moves
    assert "Fri 12 Mar 2027 10:00 EST" in body         # 48 h later, in New York time
    assert f"pbem play {game_id}" in body and "--armor" in body
    # the deadline shows in her zone in the API too (stored in UTC)
    mine = ann.get(f"/api/games/{game_id}").get_json()
    assert mine["deadlines"]["north"].startswith("2027-03-12T15:00:00")
    # whose move it is and when it is due are public: bob and a stranger read it too
    assert bob.get(f"/api/games/{game_id}").get_json()["deadlines"] == mine["deadlines"]
    assert bob.get(f"/api/games/{game_id}", signed=False).get_json()["deadlines"] == \
        mine["deadlines"]
    # a move by ann makes bob owe: he is told, once
    assert ann.play(game_id, "north", "hold").status_code == 201
    tick(app)
    tick(app)
    assert [m["To"] for m in smtp.messages] == ["ann@example.org", "bob@example.org"]
    assert "Sat 13 Mar 2027 00:00 JST" in smtp.messages[1].get_content()


def test_digest_collects_a_day_of_notices(app, make_player, clock, smtp):
    set_clock_utc(clock, 2027, 3, 10, 15)   # 10:00 in New York
    game_id, ann, bob = pig_game(make_player, clock, ann_settings={"notify": "digest"})
    tick(app)
    assert smtp.messages == []               # digest players get no single notice
    clock.advance(18 * HOUR)                 # 04:00 next day in New York: not yet
    tick(app)
    assert smtp.messages == []
    clock.advance(4 * HOUR)                  # 08:00: the digest goes
    tick(app)
    (msg,) = smtp.messages
    assert "digest" in msg["Subject"].lower() and "Pig to 20" in msg.get_content()
    tick(app)
    assert len(smtp.messages) == 1           # once a day


def test_quiet_hours_postpone_email(app, make_player, clock, smtp):
    set_clock_utc(clock, 2027, 3, 11, 4)     # 23:00 in New York
    game_id, ann, bob = pig_game(make_player, clock,
                                 ann_settings={"quiet_start": 22, "quiet_end": 7})
    tick(app)
    assert smtp.messages == []
    clock.advance(7 * HOUR)                  # 06:00 local, still quiet
    tick(app)
    assert smtp.messages == []
    clock.advance(1 * HOUR)                  # 07:00 local
    tick(app)
    assert len(smtp.messages) == 1


def test_retry_after_the_smtp_server_was_down(app, make_player, clock, smtp):
    smtp.stop()
    game_id, ann, bob = pig_game(make_player, clock)
    counts = tick(app)
    assert counts["sent"] == 0
    from server.db import db
    from server.db.models import Notice
    with app.app_context():
        notice = db.session.execute(db.select(Notice)).scalar_one()
        assert notice.attempts == 1 and notice.status == "pending" and notice.last_error
    smtp.start()
    assert tick(app)["sent"] == 0            # backoff: not yet
    clock.advance(31)
    assert tick(app)["sent"] == 1
    assert len(smtp.messages) == 1


def test_notices_without_smtp_go_to_the_log(app, make_player, clock, caplog):
    game_id, ann, bob = pig_game(make_player, clock)
    with caplog.at_level("INFO", logger="pbem.notices"):
        tick(app)
    assert any("Pig to 20" in r.getMessage() for r in caplog.records)


def test_webhook_gets_a_json_post(app, make_player, clock):
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer
    got = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self):
            got.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    app.config["PBEM_WEBHOOK_ALLOW_PRIVATE"] = True  # the receiver is on loopback
    try:
        game_id, ann, bob = pig_game(
            make_player, clock,
            ann_settings={"webhook_url": f"http://127.0.0.1:{server.server_port}/hook"})
        tick(app)
        # pbem's own body (Standard Webhooks' shape): the public notice, no legal moves (a
        # seat's moves can name what it holds)
        assert got and got[0]["type"] == "pbem.turn" and got[0]["data"]["game"] == game_id
        assert "you play north" in got[0]["data"]["headline"]
        assert "legal_moves" not in json.dumps(got[0])
    finally:
        server.shutdown()


def test_missed_deadline_plays_a_forced_move_with_reminder_first(app, make_player, clock, smtp):
    game_id, ann, bob = pig_game(make_player, clock, move_hours=48)
    tick(app)
    clock.advance(35 * HOUR)
    assert tick(app)["reminders"] == 0
    clock.advance(2 * HOUR)                  # 12 h before the deadline
    assert tick(app)["reminders"] == 1
    assert "Reminder" in smtp.messages[-1]["Subject"]
    clock.advance(12 * HOUR)
    counts = tick(app)
    assert counts["forced"] == 1
    log = ann.get(f"/api/games/{game_id}/log").get_json()["entries"]
    assert log[0]["forced"] is True and log[0]["move"] == "roll" and log[0]["seat"] == "north"
    assert any("deadline passed" in m["Subject"] for m in smtp.messages)
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    check_chain(archive)                     # the server's signature verifies in the archive
    assert json.loads(archive["entries"][0]["envelope"])["forced"] is True


def test_vacation_pauses_the_clock(app, make_player, clock, smtp):
    game_id, ann, bob = pig_game(make_player, clock, move_hours=48)
    r = ann.post("/api/players/me/vacation", {"days": 3})
    assert r.status_code == 200 and r.get_json()["vacation_days_left"] == 18
    clock.advance(49 * HOUR)
    assert tick(app)["forced"] == 0
    clock.advance(3 * 24 * HOUR)
    assert tick(app)["forced"] == 1
    r = ann.post("/api/players/me/vacation", {"days": 30})
    assert r.status_code == 422


def test_forged_forced_flag_from_a_player_is_refused(make_player, clock):
    game_id, ann, bob = pig_game(make_player, clock)
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    from shared.envelope import make_envelope, sign_envelope
    env = make_envelope(game_id, 0, info["prev"], "north", "roll", "n" * 10, clock(), forced=True)
    text, sig = sign_envelope(ann.key, env)
    r = ann.post(f"/api/games/{game_id}/moves", {"envelope": text, "signature": sig})
    assert r.status_code == 403


# --- moves by mail ---------------------------------------------------------------------



def test_mail_in_plain_html_forwarded_two_blocks_and_garbage(app, client, make_player, clock,
                                                              smtp):
    game_id, ann, bob = pig_game(make_player, clock)
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    block0, body0 = armored(ann, game_id, "north", "peek", 0, info["prev"], clock)
    # plain text with a signature and a quoted earlier message
    raw = _mail("Ann <ann@example.org>",
                f"Here is my move.\n\n{block0}\n-- \nAnn\n\n> On Monday the server wrote:\n"
                f"> You owe a move\n")
    r = post_mail(client, raw)
    assert r.status_code == 200
    assert r.get_json()["results"][0]["status"] == "accepted"
    # the same block again (e.g. the mail was delivered twice): a no-op
    r = post_mail(client, raw)
    assert r.get_json()["results"][0]["status"] == "already in log"
    from shared.envelope import entry_hash
    h0 = entry_hash(body0["envelope"].encode(), body0["signature"])
    # HTML mail with the block quoted in a blockquote, two blocks in one message
    block1, body1 = armored(ann, game_id, "north", "peek", 1, h0, clock)
    h1 = entry_hash(body1["envelope"].encode(), body1["signature"])
    block2, _ = armored(ann, game_id, "north", "peek", 2, h1, clock)
    quoted = "".join(f"&gt; {line}<br>" for line in block1.splitlines())
    html = f"<html><body><p>Two moves</p><blockquote>{quoted}</blockquote>" \
           f"<div>{block2.replace(chr(10), '<br>')}</div></body></html>"
    r = post_mail(client, _mail("ann@example.org", "see html", html=html))
    assert [x["status"] for x in r.get_json()["results"]] == ["accepted", "accepted"]
    # forwarded as an attached message
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    block3, _ = armored(ann, game_id, "north", "hold", info["next_seq"], info["prev"], clock)
    inner = EmailMessage()
    inner["From"], inner["Subject"] = "ann@example.org", "my move"
    inner.set_content(block3)
    outer = EmailMessage()
    outer["From"], outer["To"], outer["Subject"] = "bob@example.org", "moves@x", "Fwd: my move"
    outer.set_content("Forwarding Ann's move, her mail is down.")
    outer.add_attachment(inner)
    r = post_mail(client, outer.as_bytes())
    assert r.get_json()["results"][0]["status"] == "accepted"
    # garbage: a broken block and no block at all
    broken = "-----BEGIN PBEM MOVE-----\nnot base64 !!\n-----END PBEM MOVE-----"
    r = post_mail(client, _mail("ann@example.org", broken))
    assert r.status_code == 200 and r.get_json()["results"] == []
    assert r.get_json()["undecodable"]
    r = post_mail(client, _mail("ann@example.org", "hello, how are you?"))
    assert r.get_json()["results"] == []
    assert post_mail(client, b"").status_code == 400
    entries = ann.get(f"/api/games/{game_id}/log").get_json()["entries"]
    assert [e["move"] for e in entries] == ["peek", "peek", "peek", "hold"]
    # every message with a block signed by a seat's key got an answer, mailed to that
    # seat's player (the forwarded one to Ann, not to Bob who forwarded it); the two with
    # no signed block got none: their From header alone is not an address to mail
    tick(app)
    replies = [m for m in smtp.messages if "server" in m.get_content() and
               "read by the pbem server" in m.get_content()]
    assert len(replies) == 4   # the empty POST was a 400, not a message
    assert {m["To"] for m in replies} == {"ann@example.org"}
    assert any("REFUSED" not in m.get_content() and "already in log" in m.get_content()
               for m in replies)


def test_mail_in_refuses_a_stale_or_forged_block(app, client, make_player, clock):
    game_id, ann, bob = pig_game(make_player, clock)
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    forged, _ = armored(bob, game_id, "north", "peek", 0, info["prev"], clock)
    r = post_mail(client, _mail("bob@example.org", forged))
    assert r.get_json()["results"][0]["status"] == "refused"
    assert ann.get(f"/api/games/{game_id}/log").get_json()["entries"] == []


def test_mail_in_command_reads_stdin(app, make_player, clock):
    game_id, ann, bob = pig_game(make_player, clock)
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    block, _ = armored(ann, game_id, "north", "peek", 0, info["prev"], clock)
    runner = app.test_cli_runner()
    from server.cli import mail_in
    result = runner.invoke(mail_in, input=_mail("ann@example.org", block))
    assert result.exit_code == 0, result.output
    assert "accepted" in result.output
    result = runner.invoke(mail_in, input=_mail("ann@example.org", "nothing here"))
    assert result.exit_code == 1 and "no signed move" in result.output


def test_title_of_liberty_wall_clock_limit_ends_the_game(app, make_player, clock):
    from shared.games import game_types
    if "title_of_liberty" not in game_types():
        pytest.skip("title_of_liberty is not available")
    ann = make_player("ann")
    r = ann.post("/api/games", {"type": "title_of_liberty", "seats": 1,
                                "options": {"deadline_hours": 2}})
    game_id = r.get_json()["id"]
    assert r.get_json()["status"] == "playing"
    clock.advance(HOUR)
    assert tick(app)["time_up"] == 0
    clock.advance(HOUR + 1)
    assert tick(app)["time_up"] == 1
    info = ann.get(f"/api/games/{game_id}").get_json()
    assert info["status"] == "over" and info["result"]["outcome"] == "lamanites"
    entry = ann.get(f"/api/games/{game_id}/log").get_json()["entries"][-1]
    assert entry["forced"] and entry["move"] == "concede"


def test_each_notice_is_sent_once_by_racing_workers(app, make_player, clock, smtp):
    """Four workers tick at once over the same outbox: every notice goes out exactly once."""
    import threading
    game_id, ann, bob = pig_game(make_player, clock)
    for _ in range(5):   # more notices: bob and ann alternate owing a move
        seat, player = ("north", ann) if ann.get(f"/api/games/{game_id}/view").get_json()[
            "view"]["to_act"] == ["north"] else ("east", bob)
        player.play(game_id, seat, "hold")
    barrier = threading.Barrier(4)
    errors = []

    def worker():
        barrier.wait()
        try:
            for _ in range(3):
                tick(app)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    from server.db import db
    from server.db.models import Notice
    with app.app_context():
        notices = db.session.execute(db.select(Notice)).scalars().all()
        assert notices and all(n.status == "sent" for n in notices)
        assert len(smtp.messages) == len(notices)


def test_players_who_chose_none_get_no_mail(app, make_player, clock, smtp):
    game_id, ann, bob = pig_game(make_player, clock, ann_settings={"notify": "none"})
    tick(app)
    assert smtp.messages == []
    me = ann.get("/api/players/me").get_json()
    assert me["notify"] == "none"


def _due_notices(app, count):
    from server.clock import now
    from server.db import db
    from server.db.models import Notice
    with app.app_context():
        db.session.add_all(Notice(to_address=f"p{i}@example.org", kind="turn", channel="email",
                                  subject=f"notice {i}", body="your move",
                                  next_attempt_at=now(), created_at=now())
                           for i in range(count))
        db.session.commit()


def test_two_workers_draining_200_notices_send_each_exactly_once(app, clock, smtp):
    """Two notice workers drain 200 due notices at once, each claiming batches of 20 with a
    lease (on PostgreSQL read FOR UPDATE SKIP LOCKED): every notice goes out exactly once,
    and both took a share."""
    import threading

    from server.workers import notify
    _due_notices(app, 200)
    barrier = threading.Barrier(2)
    sent, errors = {0: [], 1: []}, []

    def worker(n):
        barrier.wait()
        try:
            with app.app_context():
                while True:
                    count, more = notify.send_due(limit=20)
                    sent[n].append(count)
                    if not count and not more:
                        break
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    subjects = sorted(m["Subject"] for m in smtp.messages)
    assert subjects == sorted(f"notice {i}" for i in range(200))
    assert sum(sent[0]) + sum(sent[1]) == 200
    from server.db import db
    from server.db.models import Notice
    with app.app_context():
        assert {n.status for n in db.session.execute(db.select(Notice)).scalars()} == {"sent"}


def test_a_drain_sends_its_mail_on_one_smtp_connection(app, clock, smtp, monkeypatch):
    """A pass that sends many mails opens one SMTP connection, not one per mail; a pass
    stopped by its time budget says that more is due, and the next pass sends the rest."""
    from server.workers import mailer, notify
    opened = []
    original = mailer.Mailer._connect
    monkeypatch.setattr(mailer.Mailer, "_connect",
                        lambda self: opened.append(1) or original(self))
    _due_notices(app, 30)
    with app.app_context():
        assert notify.send_due(limit=10) == (30, False)
    assert len(opened) == 1 and len(smtp.messages) == 30
    _due_notices(app, 5)
    with app.app_context():
        assert notify.send_due(budget=0) == (0, True)  # out of time before the first mail
        assert notify.send_due() == (5, False)         # the rest went back to the outbox
    assert len(smtp.messages) == 35


def test_a_kept_smtp_connection_the_server_dropped_is_opened_again(app, smtp):
    """The mailer keeps its connection between mails; when the server dropped it meanwhile
    (a restart, an idle timeout) the next mail opens a new one instead of failing."""
    from server.workers.mailer import Mailer, SendError
    with Mailer(app.config) as m:
        m.send("a@example.org", "one", "first")
        m.send("a@example.org", "two", "second")
        assert m.connections == 1
        smtp.stop()
        smtp.start()
        m.send("a@example.org", "three", "third")
        assert m.connections == 2
        smtp.stop()
        with pytest.raises(SendError, match="SMTP 127.0.0.1"):
            m.send("a@example.org", "four", "fourth")
    assert [msg["Subject"] for msg in smtp.messages] == ["one", "two", "three"]


def test_a_header_value_with_a_line_break_cannot_start_a_header_of_its_own():
    """The mail is built with the email package's compat32 classes, which write a CR or LF in
    a header value as it is: a subject or a reply token carrying one would add a Bcc (or end
    the headers).  Every header value goes out on one line."""
    import email

    from server.workers.mailer import _message, _notice_headers
    raw = _message("pbem@example.org", "ann@example.org\r\nBcc: eve@example.org",
                   "your move\r\nBcc: eve@example.org\n\nforged body",
                   "the body\n", _notice_headers({"Reply-To": "x@y\nBcc: eve@example.org",
                                                  "X-Other": "dropped"}))
    msg = email.message_from_bytes(raw)
    assert msg.get_all("Bcc") is None and msg["X-Other"] is None
    assert "\n" not in msg["Subject"] and "\n" not in msg["Reply-To"]
    assert msg.get_payload().startswith("the body")
