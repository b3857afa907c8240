"""Moves in plain words by mail: a mail key the player delegates, reply tokens in the turn
notices, and every reply that must play nothing.

One real SMTP server on loopback (aiosmtpd) for the module receives the server's notices and
the players' replies; a reply is posted on to the inbound endpoint exactly as it arrived.
"""

import base64
import json
import secrets
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from click.testing import CliRunner

from client.cli import cli
from server.db import db
from server.db.models import MailKey, Move
from shared.archive import verify_archive
from shared.delegation import fingerprint, make_delegation
from tests.helpers.mail import INBOUND_TOKEN, SmtpServer, pig_game, tick

DAY = 86400


@pytest.fixture(scope="module")
def smtp_server():
    server = SmtpServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def smtp(app, smtp_server):
    smtp_server.messages.clear()
    smtp_server.raw.clear()
    app.config.update(PBEM_SMTP_URL=f"smtp://127.0.0.1:{smtp_server.port}",
                      PBEM_MAIL_FROM="pbem@pbem.example", PBEM_INBOUND_TOKEN=INBOUND_TOKEN)
    return smtp_server


def mail_on(player, clock, days=30):
    made = player.post("/api/mail/key")
    assert made.status_code == 201, made.get_json()
    made = made.get_json()
    assert made["label"] == "mail" and made["player"] == player.name
    delegation = make_delegation(player.key, player.name, made["device_key"], "mail",
                                 clock() + days * DAY)
    r = player.post("/api/mail/key/delegation", {"delegation": delegation})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["on"] is True
    return made["device_key"]


def sent_to(smtp, address):
    return [m for m in smtp.messages if m["To"] == address]


def reply(smtp, notice, frm, first, to=None, thread=True, extra=""):
    """A reply as a mail client writes it, sent through the SMTP server; returns its bytes
    as the server received them."""
    msg = EmailMessage()
    msg["From"] = frm
    msg["To"] = to or notice["Reply-To"] or notice["From"]
    msg["Subject"] = "Re: " + notice["Subject"]
    msg["Message-ID"] = make_msgid(domain="mail.example.org")
    if thread:
        msg["In-Reply-To"] = notice["Message-ID"]
        msg["References"] = notice["Message-ID"]
    quoted = "\n".join("> " + line for line in notice.get_content().splitlines())
    msg.set_content(f"{first}\n{extra}\nOn Wed, 2 Dec 2026, pbem wrote:\n{quoted}\n-- \nAnn\n")
    return send(smtp, msg)


def send(smtp, msg):
    before = len(smtp.raw)
    with smtplib.SMTP("127.0.0.1", smtp.port, timeout=10) as conn:
        conn.send_message(msg)
    assert len(smtp.raw) == before + 1
    smtp.messages.pop()
    return smtp.raw.pop()


def post(client, raw):
    r = client.post("/api/mail/inbound", data=raw, content_type="message/rfc822",
                    headers={"X-Pbem-Inbound-Token": INBOUND_TOKEN})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["plain"]


def log_length(app, game_id):
    with app.app_context():
        return db.session.query(Move).filter_by(game_id=game_id).count()


def answers(app, smtp):
    """Send what the server queued; return the mails it sent."""
    before = len(smtp.messages)
    tick(app)
    return smtp.messages[before:]


def test_an_opted_in_plain_reply_is_appended_signed_by_the_mail_key(app, client, make_player,
                                                                    clock, smtp, tmp_path):
    set_up = pig_game(make_player, clock)
    game_id, ann, bob = set_up
    key = mail_on(ann, clock)
    tick(app)
    (notice,) = sent_to(smtp, "ann@example.org")
    token = notice["Reply-To"].split("+", 1)[1].split("@", 1)[0]
    assert notice["Reply-To"] == f"pbem+{token}@pbem.example" and len(token) == 32
    assert notice["Message-ID"] == f"<pbem.{token}@pbem.example>"
    assert "reply to this email with your move alone on its first line" in notice.get_content()

    got = post(client, reply(smtp, notice, "Ann <ann@example.org>", "peek"))
    assert got["status"] == "accepted" and got["seq"] == 0 and got["move"] == "peek"
    with app.app_context():
        env = json.loads(db.session.query(Move).filter_by(game_id=game_id, seq=0).one().envelope)
    assert env["delegation"]["label"] == "mail" and env["delegation"]["device_key"] == key

    # the confirmation goes to the registered address only, in the thread, with a new token
    # for the move she still owes (a peek keeps the turn in Pig)
    (confirm,) = answers(app, smtp)
    assert confirm["To"] == "ann@example.org"
    assert "Played in game" in confirm.get_content() and "peek" in confirm.get_content()
    assert confirm["In-Reply-To"].startswith("<") and token not in confirm["Reply-To"]
    got = post(client, reply(smtp, confirm, "ann@example.org", "HOLD"))
    assert got["status"] == "accepted" and got["seq"] == 1 and got["move"] == "hold"
    confirm, bobs = answers(app, smtp)
    assert confirm["To"] == "ann@example.org"
    assert "A notice comes when it is your move again" in confirm.get_content()
    # bob does not move by mail: his notice carries no reply token
    assert bobs["To"] == "bob@example.org"
    assert bobs["Reply-To"] is None and "pbem+" not in bobs["Message-ID"]

    # the archive names each move the mail key signed, and its delegation
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    report = verify_archive(archive)
    assert [(m["seq"], m["seat"], m["player"], m["device_key"], m["first_seq"])
            for m in report["mail_moves"]] == [(0, "north", "ann", key, 0),
                                               (1, "north", "ann", key, 0)]
    # and so does pbem verify, offline
    path = tmp_path / "game.json"
    path.write_text(json.dumps(archive))
    out = CliRunner().invoke(cli, ["verify", str(path)], env={"NO_COLOR": "1"})
    assert out.exit_code == 5, out.output  # a prefix: the game runs on
    assert (f"Moves 1, 2 (north) signed by ann's mail key {fingerprint(key)} (held by the "
            "server), delegated by ann's main key until") in " ".join(out.stdout.split())


def test_refused_replies_append_nothing_and_are_answered_as_described(app, client, make_player,
                                                                      clock, smtp):
    game_id, ann, bob = pig_game(make_player, clock)
    mail_on(ann, clock)
    tick(app)
    (notice,) = sent_to(smtp, "ann@example.org")

    def refused(frm, first="peek", code=None, answered_to=None, **kw):
        length = log_length(app, game_id)
        got = post(client, reply(smtp, notice, frm, first, **kw))
        assert log_length(app, game_id) == length, got
        if code is not None:
            assert got["status"] == "refused" and got["code"] == code, got
        sent = answers(app, smtp)
        assert [m["To"] for m in sent] == ([answered_to] if answered_to else []), got
        return got, sent

    # a stranger sending Ann's token gets nothing at all (no backscatter)
    got, _ = refused("mallory@evil.example", code=None)
    assert got == {"status": "ignored", "code": "unknown_sender"}
    # a forged From: bob's address with ann's token; the answer is bob's, and says why
    _, (answer,) = refused("bob@example.org", code="not_your_token",
                           answered_to="bob@example.org")
    assert "sent to another player" in answer.get_content()
    assert "How to move by mail" in answer.get_content()
    # a fresh mail without the notice's token (to the plain address, not in the thread)
    _, (answer,) = refused("ann@example.org", code="no_token", answered_to="ann@example.org",
                           to="pbem@pbem.example", thread=False)
    assert "carries no reply token" in answer.get_content()
    # a token for another move: the game moved on (Ann played from her shell)
    assert ann.play(game_id, "north", "peek").status_code == 201
    _, (answer,) = refused("ann@example.org", code="token_stale",
                           answered_to="ann@example.org")
    assert "moved on" in answer.get_content()
    fresh = answer  # it carries a token for the move she owes now
    assert fresh["Reply-To"] and fresh["Reply-To"] != notice["Reply-To"]
    got = post(client, reply(smtp, fresh, "ann@example.org", "peek"))
    assert got["status"] == "accepted"
    answers(app, smtp)
    # that token again: spent
    notice = fresh
    _, (answer,) = refused("ann@example.org", code="token_spent",
                           answered_to="ann@example.org")
    assert "used already" in answer.get_content()
    # bob, who does not move by mail, replies to his notice in plain words
    assert ann.play(game_id, "north", "hold").status_code == 201
    (notice,) = [m for m in answers(app, smtp) if m["To"] == "bob@example.org"]
    _, (answer,) = refused("bob@example.org", code="mail_off", answered_to="bob@example.org")
    assert "pbem mail on" in answer.get_content()


def test_hostile_replies_play_nothing(app, client, make_player, clock, smtp):
    game_id, ann, bob = pig_game(make_player, clock)
    mail_on(ann, clock)
    mail_on(bob, clock)
    tick(app)
    (notice,) = sent_to(smtp, "ann@example.org")

    def nothing(raw, code):
        length = log_length(app, game_id)
        got = post(client, raw)
        assert got["code"] == code and log_length(app, game_id) == length, got
        return answers(app, smtp)

    # bob, who moves by mail too, replies from his own address to ann's notice
    (answer,) = nothing(reply(smtp, notice, "bob@example.org", "hold"), "not_your_token")
    assert answer["To"] == "bob@example.org"
    # a guessed token
    guessed = f"pbem+{secrets.token_hex(16)}@pbem.example"
    (answer,) = nothing(reply(smtp, notice, "ann@example.org", "peek", to=guessed,
                              thread=False), "unknown_token")
    assert answer["To"] == "ann@example.org"
    # a move in another alphabet (Cyrillic letters that look like "peek"): the rules' refusal
    (answer,) = nothing(reply(smtp, notice, "ann@example.org", "\u0440\u0435\u0435\u043a"),
                        "bad_notation")
    assert "is not a move" in answer.get_content() and answer["To"] == "ann@example.org"
    # a table entry: a mail key signs moves only (a device key may ask a takeback; not it)
    (answer,) = nothing(reply(smtp, notice, "ann@example.org", "@takeback 0"), "mail_scope")
    assert "never a table entry" in answer.get_content()
    # control characters and a first line too long
    nothing(reply(smtp, notice, "ann@example.org", "x" * 300), "no_move")
    # a huge mail is refused before it is read
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.org", notice["Reply-To"], "Re: x"
    msg.set_content("peek\n" + "y" * (3 * 1024 * 1024))
    length = log_length(app, game_id)
    r = client.post("/api/mail/inbound", data=msg.as_bytes(), content_type="message/rfc822",
                    headers={"X-Pbem-Inbound-Token": INBOUND_TOKEN})
    assert r.status_code == 413 and log_length(app, game_id) == length
    assert answers(app, smtp) == []
    # after all that, her notice's token still plays her move
    got = post(client, reply(smtp, notice, "ann@example.org", "peek"))
    assert got["status"] == "accepted"


def test_mail_off_revokes_the_key_and_wipes_it(app, client, make_player, clock, smtp):
    game_id, ann, bob = pig_game(make_player, clock)
    key = mail_on(ann, clock)
    assert ann.post("/api/mail/key").get_json()["error"]["code"] == "mail_on"
    tick(app)
    (notice,) = sent_to(smtp, "ann@example.org")
    r = ann.post("/api/mail/key/revoke")
    assert r.status_code == 200 and r.get_json()["revoked"] == [key]
    with app.app_context():
        row = db.session.query(MailKey).filter_by(device_key=key).one()
        assert row.private_key is None and row.revoked_at is not None
    assert ann.get("/api/mail/key").get_json()["on"] is False
    length = log_length(app, game_id)
    got = post(client, reply(smtp, notice, "ann@example.org", "peek"))
    assert got["code"] == "mail_off" and log_length(app, game_id) == length
    assert ann.post("/api/mail/key/revoke").get_json()["error"]["code"] == "mail_off"
    # the label is the mail key's alone; a delegation of another key as "mail" is refused
    other = make_delegation(ann.key, "ann", bob.public_key, "mail", clock() + DAY)
    r = ann.post("/api/devices", {"delegation": other})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "reserved_label"
    r = ann.post("/api/mail/key/delegation", {"delegation": other})
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "unknown_mail_key"
    # too long a delegation
    made = ann.post("/api/mail/key").get_json()
    long = make_delegation(ann.key, "ann", made["device_key"], "mail", clock() + 400 * DAY)
    r = ann.post("/api/mail/key/delegation", {"delegation": long})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "delegation_too_long"


def test_the_mail_key_is_sealed_at_rest_when_the_operator_sets_a_secret(app, make_player,
                                                                        clock, smtp):
    app.config["PBEM_MAIL_KEY_SECRET"] = "operator secret"
    ann = make_player("ann", email="ann@example.org")
    key = mail_on(ann, clock)
    with app.app_context():
        stored = db.session.query(MailKey).filter_by(device_key=key).one().private_key
    assert stored.startswith("aesgcm:")
    assert ann.get("/api/mail/key").get_json()["on"] is True
    app.config["PBEM_MAIL_KEY_SECRET"] = "another secret"  # a lost secret: the key is off
    assert ann.get("/api/mail/key").get_json()["on"] is False


def test_dkim_when_the_operator_enables_it(app, client, make_player, clock, smtp, monkeypatch):
    import dkim
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from server.workers import mailreply
    private = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = private.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption())
    public = base64.b64encode(private.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))
    record = b"v=DKIM1; k=rsa; p=" + public

    def dns(name, timeout=5):
        return record if name == b"sel._domainkey.example.org." else None
    monkeypatch.setattr(mailreply, "DKIM_DNS", dns)
    app.config["PBEM_MAIL_DKIM"] = True
    game_id, ann, bob = pig_game(make_player, clock)
    mail_on(ann, clock)
    tick(app)
    (notice,) = sent_to(smtp, "ann@example.org")
    unsigned = reply(smtp, notice, "ann@example.org", "peek")
    got = post(client, unsigned)
    assert got["code"] == "dkim_failed" and log_length(app, game_id) == 0
    (answer,) = answers(app, smtp)
    assert "DKIM" in answer.get_content()
    signed = dkim.sign(unsigned, b"sel", b"example.org", pem,
                       include_headers=[b"From", b"To", b"Subject"]) + unsigned
    got = post(client, signed)
    assert got["status"] == "accepted" and log_length(app, game_id) == 1


def test_forged_mail_cannot_flood_a_player_with_answers(app, client, make_player, clock, smtp):
    from server.workers.mailreply import MAX_ANSWERS_PER_HOUR
    ann = make_player("ann", email="ann@example.org")
    mail_on(ann, clock)
    for i in range(MAX_ANSWERS_PER_HOUR + 5):
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = "ann@example.org", "pbem@pbem.example", f"{i}"
        msg.set_content("hold")
        assert post(client, send(smtp, msg))["code"] == "no_token"
    assert len(answers(app, smtp)) == MAX_ANSWERS_PER_HOUR
    clock.advance(3601)  # an hour later she is answered again
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.org", "pbem@pbem.example", "again"
    msg.set_content("hold")
    post(client, send(smtp, msg))
    assert [m["To"] for m in answers(app, smtp)] == ["ann@example.org"]


def test_an_html_only_reply_plays_its_first_line_not_the_quote(app, client, make_player,
                                                               clock, smtp):
    game_id, ann, bob = pig_game(make_player, clock)
    mail_on(ann, clock)
    tick(app)
    (notice,) = sent_to(smtp, "ann@example.org")
    msg = EmailMessage()
    msg["From"], msg["To"] = "ann@example.org", notice["Reply-To"]
    msg["Subject"], msg["In-Reply-To"] = "Re: " + notice["Subject"], notice["Message-ID"]
    msg.set_content("<html><head><style>p {color: red}</style></head><body><div>&nbsp;</div>"
                    "<div>Peek<br></div><blockquote><p>hold</p>Your legal moves</blockquote>"
                    "</body></html>", subtype="html")
    got = post(client, send(smtp, msg))
    assert got["status"] == "accepted" and got["move"] == "peek", got


def test_hostile_mail_key_requests_get_a_clear_error(app, client, make_player, clock, smtp):
    ann = make_player("ann", email="ann@example.org")
    made = ann.post("/api/mail/key").get_json()
    good = make_delegation(ann.key, "ann", made["device_key"], "mail", clock() + DAY)
    for body in ({}, {"delegation": None}, {"delegation": []}, {"delegation": "mail"},
                 {"delegation": {"label": "mail", "device_key": [1]}},
                 {"delegation": {"label": "mail", "device_key": {"$ne": 1}}},
                 {"delegation": dict(good, not_after="soon")},
                 {"delegation": dict(good, signature="0" * 128)},
                 {"delegation": dict(good, player="bob")},
                 {"delegation": dict(good, label="phone")},
                 {"delegation": good, "extra": 1}):
        r = ann.post("/api/mail/key/delegation", body)
        assert 400 <= r.status_code < 500, (body, r.status_code)
        assert set(r.get_json()["error"]) == {"code", "message", "details"}, body
    assert ann.post("/api/mail/key", {"days": 3}).status_code in (400, 422)
    assert ann.get("/api/mail/key", signed=False).status_code == 401
    assert ann.get("/api/mail/key").get_json()["on"] is False
    # a delegation that has already ended, or ends while the key waits: refused, then off
    r = ann.post("/api/mail/key/delegation", {"delegation": dict(
        good, **make_delegation(ann.key, "ann", made["device_key"], "mail", clock() - 1))})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "delegation_expired"
    assert ann.post("/api/mail/key/delegation", {"delegation": good}).status_code == 200


def test_an_expired_mail_key_plays_nothing(app, client, make_player, clock, smtp):
    game_id, ann, bob = pig_game(make_player, clock)
    mail_on(ann, clock, days=1)
    tick(app)
    (notice,) = sent_to(smtp, "ann@example.org")
    clock.advance(DAY + 1)
    got = post(client, reply(smtp, notice, "ann@example.org", "peek"))
    assert got["code"] == "mail_off" and log_length(app, game_id) == 0
    (answer,) = answers(app, smtp)
    assert "mail key ended" in answer.get_content()
    assert ann.get("/api/mail/key").get_json() == {
        **ann.get("/api/mail/key").get_json(), "on": False, "ended": True}


def test_the_mail_key_signs_no_request_and_no_table_entry_even_posted(app, make_player, clock,
                                                                      smtp):
    """Whoever got hold of the mail key (the server holds it) cannot use it as a device:
    no signed request, no @revoke or @takeback posted to the API."""
    from tests.helpers.devices import Device
    game_id, ann, bob = pig_game(make_player, clock)
    key = mail_on(ann, clock)
    with app.app_context():
        stored = db.session.query(MailKey).filter_by(device_key=key).one().private_key
    device = Device(ann, label="mail", key=bytes.fromhex(stored.split(":", 1)[1]))
    assert device.public_key == key
    assert device.request("GET", "/api/mail/key").status_code == 401
    from shared.envelope import public_key_hex
    for text in (f"@revoke {public_key_hex(secrets.token_bytes(32))}", "@takeback 0"):
        r = device.play(game_id, "north", text)
        assert r.status_code == 422 and r.get_json()["error"]["code"] == "mail_scope", \
            r.get_json()
        assert log_length(app, game_id) == 0
    assert device.play(game_id, "north", "peek").status_code == 201  # a move, as by mail


def test_a_new_main_key_ends_the_mail_key(app, client, make_player, clock, smtp):
    """A delegation is the main key's: once the player's key changes, the mail key signs no
    more moves until the new key delegates a new one."""
    from server.db.models import Player
    from shared.envelope import public_key_hex
    game_id, ann, bob = pig_game(make_player, clock)
    mail_on(ann, clock)
    tick(app)
    (notice,) = sent_to(smtp, "ann@example.org")
    with app.app_context():
        player = db.session.execute(db.select(Player).filter_by(name="ann")).scalar_one()
        player.public_key = public_key_hex(secrets.token_bytes(32))
        db.session.commit()
    got = post(client, reply(smtp, notice, "ann@example.org", "peek"))
    assert got["code"] == "mail_off" and log_length(app, game_id) == 0
