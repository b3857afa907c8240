"""Mail for the tests: a real SMTP server (aiosmtpd) to receive notices, a mail-worker tick,
a game of Pig between two players with addresses, and moves sent by mail."""

import email
import email.policy
from datetime import datetime, timezone
from email.message import EmailMessage

from aiosmtpd.controller import Controller

from client.armor import encode_block
from client.signing import signed_move
from tests.liveserver import free_port


class Inbox:
    def __init__(self):
        self.messages = []
        self.raw = []  # each message's bytes as received (a reply is posted on as it came)

    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.messages.append(msg)
        self.raw.append(envelope.content)
        return "250 OK"

    def bodies(self):
        return [m.get_content() for m in self.messages]


class SmtpServer(Inbox):
    """A real SMTP server (aiosmtpd) on a loopback port that can go down and come back."""

    def __init__(self):
        super().__init__()
        self.port = free_port()
        self.controller = None

    def start(self):
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self):
        if self.controller is not None:
            self.controller.stop()
            self.controller = None



def tick(app):
    from server.workers import notify
    with app.app_context():
        return notify.tick()


def set_clock_utc(clock, year, month, day, hour, minute=0):
    clock.t = int(datetime(year, month, day, hour, minute, tzinfo=timezone.utc).timestamp())


def pig_game(make_player, clock, move_hours=48, ann_settings=None, bob_settings=None):
    ann = make_player("ann", email="ann@example.org", tz="America/New_York")
    bob = make_player("bob", email="bob@example.org", tz="Asia/Tokyo")
    for p, settings in ((ann, ann_settings), (bob, bob_settings)):
        if settings:
            r = p.request("PATCH", "/api/players/me", settings)
            assert r.status_code == 200, r.get_json()
    r = ann.post("/api/games", {"type": "pig", "seats": 2, "move_hours": move_hours})
    game_id = r.get_json()["id"]
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200
    return game_id, ann, bob


def armored(player, game_id, seat, move, seq, prev, clock):
    body = signed_move(player.key, game_id, seq, prev, seat, move, ts=clock())
    return encode_block(game_id, body["envelope"], body["signature"]), body


def _mail(frm, body, subject="Re: your move", html=None):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = frm, "moves@pbem.example", subject
    msg.set_content(body)
    if html is not None:
        msg.add_alternative(html, subtype="html")
    return msg.as_bytes()


INBOUND_TOKEN = "test-inbound-token"


def post_mail(client, raw):
    client.application.config["PBEM_INBOUND_TOKEN"] = INBOUND_TOKEN
    return client.post("/api/mail/inbound", data=raw, content_type="message/rfc822",
                       headers={"X-Pbem-Inbound-Token": INBOUND_TOKEN})
