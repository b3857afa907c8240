"""The third attack on the running service: the notice worker against a hostile or broken SMTP
server, plain-words mail replies with header injection, and the pages' headers.

Each test names the attack it keeps (docs/RELIABILITY.md, "The third attack").
"""

import socket
import threading
from email.message import EmailMessage

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP as AioSMTP

from tests.helpers.mail import Inbox, SmtpServer, pig_game, post_mail, tick
from tests.liveserver import free_port


def _notices(app):
    from server.db import db
    from server.db.models import Notice
    with app.app_context():
        return [(n.status, n.attempts, n.last_error or "")
                for n in db.session.execute(db.select(Notice).order_by(Notice.id)).scalars()]


class _Trickler:
    """An SMTP server that never finishes its greeting: one "220-" line every 0.2 s, each well
    inside a socket timeout, up to ``lines`` lines; it counts what it sent before the client
    hung up."""

    def __init__(self, lines=100):
        self.port, self.lines, self.sent = free_port(), lines, 0
        self.started = threading.Event()
        self.done = threading.Event()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(0.2)
            for _ in range(self.lines):
                try:
                    conn.sendall(b"220-please wait\r\n")
                    self.sent += 1
                    if self.sent == 2:
                        self.started.set()
                    if conn.recv(64) == b"":  # the client hung up
                        break
                except socket.timeout:
                    continue
                except OSError:
                    break
        self.started.set()
        self.done.set()

    def close(self):
        self.sock.close()
        self.thread.join(30)


def test_a_trickling_smtp_server_is_hung_up_on_at_the_deadline_and_the_web_serves(
        app, make_player, clock):
    """A server that trickles its greeting a line at a time held the worker for as long as it
    liked (each read is within the 10 s socket timeout): past the notice's two-minute claim,
    when a second worker sends it again.  Now the whole conversation has a deadline; the web
    answers a move meanwhile; the notice is retried and sent once when the server is good."""
    trickler = _Trickler(lines=100)
    app.config["PBEM_SMTP_URL"] = f"smtp://127.0.0.1:{trickler.port}"
    app.config["PBEM_SMTP_TIMEOUT"] = "1"
    try:
        game_id, ann, bob = pig_game(make_player, clock)
        results = {}
        worker = threading.Thread(target=lambda: results.update(tick(app)))
        worker.start()
        assert trickler.started.wait(30)
        # the web process meanwhile: a move by the seat the notice is about
        seat = ann.get(f"/api/games/{game_id}/view").get_json()["view"]["to_act"][0]
        mover = ann if seat == "north" else bob
        assert mover.play(game_id, seat, "hold").status_code == 201
        worker.join(60)
        assert not worker.is_alive()
        assert trickler.done.wait(30)
    finally:
        trickler.close()
    assert trickler.sent < trickler.lines  # hung up on: the server never finished
    assert results["sent"] == 0
    first = _notices(app)[0]
    assert first[0] == "pending" and first[1] == 1 and "deadline" in first[2]
    good = SmtpServer()
    good.start()
    try:
        app.config["PBEM_SMTP_URL"] = f"smtp://127.0.0.1:{good.port}"
        clock.advance(31)
        tick(app)
        tick(app)
        assert [s for s, _, _ in _notices(app)] == ["sent"] * len(_notices(app))
        assert len(good.messages) == len(_notices(app))  # none lost, none twice
    finally:
        good.stop()


class _QuitFails(AioSMTP):
    async def smtp_QUIT(self, arg):
        await self.push("451 4.3.0 something broke while closing")
        self.transport.close()


class _Flaky(Inbox):
    """Answers 451 to the first DATA, then accepts."""

    def __init__(self):
        super().__init__()
        self.refused = 0

    async def handle_DATA(self, server, session, envelope):
        if not self.refused:
            self.refused += 1
            return "451 4.3.0 try again later"
        return await super().handle_DATA(server, session, envelope)


class _Server(Controller):
    def __init__(self, handler, smtp_class=AioSMTP):
        self.smtp_class = smtp_class
        super().__init__(handler, hostname="127.0.0.1", port=free_port())

    def factory(self):
        return self.smtp_class(self.handler)


def test_a_failing_quit_after_the_message_was_accepted_sends_it_once(app, make_player, clock):
    """The server accepted the notice (250 after DATA) and then failed its QUIT: the worker
    counted the notice unsent and sent it again on every retry (3 copies in 3 ticks)."""
    inbox = Inbox()
    server = _Server(inbox, _QuitFails)
    server.start()
    try:
        app.config["PBEM_SMTP_URL"] = f"smtp://127.0.0.1:{server.port}"
        pig_game(make_player, clock)
        for _ in range(3):
            tick(app)
            clock.advance(3600)
        assert [s for s, _, _ in _notices(app)] == ["sent"]
        assert len(inbox.messages) == 1
    finally:
        server.stop()


def test_a_4xx_after_data_is_retried_and_delivered_once(app, make_player, clock):
    inbox = _Flaky()
    server = _Server(inbox)
    server.start()
    try:
        app.config["PBEM_SMTP_URL"] = f"smtp://127.0.0.1:{server.port}"
        pig_game(make_player, clock)
        assert tick(app)["sent"] == 0
        (status, attempts, error), = _notices(app)
        assert status == "pending" and attempts == 1 and "451" in error
        clock.advance(31)
        assert tick(app)["sent"] == 1
        clock.advance(3600)
        assert tick(app)["sent"] == 0
        assert inbox.refused == 1 and len(inbox.messages) == 1
    finally:
        server.stop()


def _mail_on(player, clock):
    from shared.delegation import make_delegation
    made = player.post("/api/mail/key").get_json()
    delegation = make_delegation(player.key, player.name, made["device_key"], "mail",
                                 clock() + 30 * 86400)
    assert player.post("/api/mail/key/delegation",
                       {"delegation": delegation}).status_code == 200


def test_header_injection_through_a_plain_reply_reaches_no_one_else(app, client, make_player,
                                                                    clock, smtp):
    """A reply whose Subject (an encoded word), Message-ID (folded) and move line carry CR/LF
    and a Bcc: the answers go to the player's address alone, with none of the attacker's
    headers, and the move line plays only its first line."""
    app.config["PBEM_MAIL_FROM"] = "pbem@pbem.example"
    game_id, ann, bob = pig_game(make_player, clock)
    _mail_on(ann, clock)
    tick(app)
    (notice,) = [m for m in smtp.messages if m["To"] == "ann@example.org"]
    smtp.messages.clear()
    smtp.raw.clear()
    hostile = (
        f"From: ann@example.org\r\nTo: {notice['Reply-To']}\r\n"
        "Subject: =?utf-8?q?Re:_move=0D=0ABcc:_evil@attacker.example=0D=0A=0D=0Ahi?=\r\n"
        "Message-ID: <x@mail.example.org\r\n Bcc: evil@attacker.example>\r\n"
        f"In-Reply-To: {notice['Message-ID']}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n"
        "nonsense\rBcc: evil@attacker.example\r\n").encode()
    r = post_mail(client, hostile)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["plain"]["code"] == "bad_notation"  # "nonsense" alone was read
    tick(app)
    assert smtp.messages and all(m["To"] == "ann@example.org" for m in smtp.messages)
    for raw, msg in zip(smtp.raw, smtp.messages, strict=True):
        head = raw.split(b"\r\n\r\n", 1)[0].lower()
        assert b"\nbcc:" not in head and b"\ncc:" not in head
        assert "\n" not in msg["Subject"] and "\r" not in msg["Subject"]
    # the same line with a real move on it plays that move alone
    msg = EmailMessage()
    msg["From"], msg["To"] = "ann@example.org", smtp.messages[-1]["Reply-To"]
    msg["Subject"], msg["In-Reply-To"] = "Re: x", smtp.messages[-1]["Message-ID"]
    msg.set_content("hold\rpeek\n")
    r = post_mail(client, msg.as_bytes())
    assert r.get_json()["plain"]["move"] == "hold", r.get_json()


def _interleave(monkeypatch, domain, act):
    """Run ``act`` once, as a second request, at the moment the service checks a signature
    of ``domain``: the other request lands between that check and the write that follows."""
    from server.game import tournaments
    real, done = tournaments.verify, []

    def verify(public_key, message, signature):
        ok = real(public_key, message, signature)
        if not done and message.startswith(domain):
            done.append(None)
            other = threading.Thread(target=lambda: done.__setitem__(0, act()))
            other.start()  # a request of its own: its own context and session
            other.join(60)
        return ok

    monkeypatch.setattr(tournaments, "verify", verify)
    return done


def test_an_entry_landing_during_the_close_is_never_left_out_of_the_signed_list(
        app, make_player, monkeypatch):
    """The close read the entrants, checked the organiser's signature of that list and then
    closed: an entry committed in between was in the tournament, paired, and in no signed
    list (the export then fails to verify).  Now the close is refused and signed again."""
    from tests.helpers import tournaments as th
    org, ann, bob, cyd = (make_player(n) for n in ("org", "ann", "bob", "cyd"))
    tid = th.create(org, th.document(org, type_="pig", options={"target": 6})).get_json()["id"]
    assert th.join(ann, tid).status_code == 200 and th.join(bob, tid).status_code == 200
    late = _interleave(monkeypatch, b"pbem-tournament-close-v1\n",
                       lambda: th.join(cyd, tid).status_code)
    r = th.close(org, tid, ["ann", "bob"])
    assert late == [200]
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "entry_changed", \
        r.get_json()
    info = org.get(f"/api/tournaments/{tid}").get_json()
    assert info["status"] == "open" and len(info["entries"]) == 3
    assert th.close(org, tid, ["ann", "bob", "cyd"]).status_code == 200


def test_an_entry_checked_before_the_close_cannot_land_after_it(app, make_player, monkeypatch):
    """The join checked that entry was open before its signature check, then wrote: a close
    committed in between let an entry into a closed tournament, after the signed list."""
    from tests.helpers import tournaments as th
    org, ann, bob, cyd = (make_player(n) for n in ("org", "ann", "bob", "cyd"))
    tid = th.create(org, th.document(org, type_="pig", options={"target": 6})).get_json()["id"]
    assert th.join(ann, tid).status_code == 200 and th.join(bob, tid).status_code == 200
    closed = _interleave(monkeypatch, b"pbem-tournament-entry-v1\n",
                         lambda: th.close(org, tid, ["ann", "bob"]).status_code)
    r = th.join(cyd, tid)
    assert closed == [200]
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "entry_closed", \
        r.get_json()
    info = org.get(f"/api/tournaments/{tid}").get_json()
    assert sorted(e["player"] for e in info["entries"]) == ["ann", "bob"]


def test_a_name_of_another_player_in_other_case_or_with_another_players_key_is_refused(
        make_player):
    """"ANN" registered beside "ann" (201), passing for her in every list and message; the
    name of one player with the key of another matched two rows: a 500."""
    ann, bob = make_player("ann"), make_player("bob")
    for name in ("ANN", "Ann", "aNn"):
        r = make_player(name, register=False).register()
        assert r.status_code == 409 and r.get_json()["error"]["code"] == "name_taken", \
            r.get_json()
    thief = make_player("ann", register=False)
    thief.key, thief.public_key = bob.key, bob.public_key
    r = thief.register()
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "name_taken", r.get_json()
    assert ann.get("/api/players/ann").get_json()["public_key"] == ann.public_key


def test_a_channel_url_whose_host_two_parsers_read_differently_is_refused():
    """A Discord URL that is not Discord's: "https://evil.example\\@discord.com/api/webhooks"
    read as discord.com when it was checked and was sent to evil.example (urllib3 reads the
    backslash as the path's start), with the notice and its game in it."""
    from urllib3.util import parse_url

    from server.workers.channels import ChannelError, check_target
    hostile = ["https://evil.example\\@discord.com/api/webhooks/1/x",
               "https://user:pw@discord.com/api/webhooks/1/x",
               "https://discord.com\\@evil.example/api/webhooks/1/x"]
    assert parse_url(hostile[0]).host == "evil.example"
    for url in hostile:
        for kind in ("discord", "json"):
            try:
                got = check_target(kind, {"url": url})
            except ChannelError as refused:
                assert "host" in refused.message or "discord" in refused.message
            else:
                raise AssertionError(f"{kind} {url!r} accepted as {got}")
    for kind in ("slack", "json"):
        try:
            check_target(kind, {"url": "https://evil.example\\@hooks.slack.com/services/x"})
            raise AssertionError("accepted")
        except ChannelError:
            pass
    good = check_target("discord", {"url": "https://discord.com/api/webhooks/1/x"})
    assert parse_url(good["url"]).host == "discord.com"


def test_a_move_stamped_in_the_future_cannot_end_an_agreed_pause(make_player, app, clock):
    """The rules end a pause at the first entry signed at or after its end: a seat's move
    stamped 400 days ahead was appended (201) and ended a 3-day pause the table had just
    agreed.  A time more than the request window ahead is refused; an old one still plays."""
    from client.signing import signed_move
    ann, bob = (make_player(n, email=f"{n}@example.org") for n in ("ann", "bob"))
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2, "options": {"target": 50},
                                      "move_hours": 24}).get_json()["id"]
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200

    def play(p, seat, move, ts):
        info = p.get(f"/api/games/{game_id}/view").get_json()
        return p.post(f"/api/games/{game_id}/moves", signed_move(
            p.key, game_id, info["next_seq"], info["prev"], seat, move, ts=ts))

    assert ann.play(game_id, "north", "@pause 3").status_code == 201
    assert bob.play(game_id, "east", "@pause 3").status_code == 201

    def paused():
        return ann.get(f"/api/games/{game_id}/view").get_json()["view"]["table"].get("paused")

    assert paused()["days"] == 3
    r = play(ann, "north", "roll", clock() + 400 * 86400)
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "future_ts", r.get_json()
    assert paused()["days"] == 3
    # one move only: a roll may pass the turn, so a second move of north could be refused
    assert play(ann, "north", "roll", clock() - 7 * 86400).status_code == 201  # signed offline
    assert paused()["days"] == 3


def test_hostile_settings_are_refused_and_what_is_accepted_is_mailed(make_player, app, smtp):
    """The settings form's fields through the API: a 10 KB address, CR/LF and a Bcc, two
    addresses, NUL, a display name, a right-to-left mark, a zone with a newline or of 10 KB are
    each a 400 with the JSON error.  The odd addresses a mail standard allows but the one
    email rule of the schema and the service does not (a quoted local part, an address
    literal, a non-Latin domain unencoded) are refused in a sentence too; the same domain in
    its ASCII (punycode) form is taken and mailed without a worker error."""
    from server.workers.mailer import send_email
    ann = make_player("ann", email="ann@example.org")
    refused = [{"email": "a" * 10_000 + "@x.org"}, {"email": "a@b.org\r\nBcc: x@y.org"},
               {"email": "a@b.org, x@y.org"}, {"email": "ann@exa\u0000mple.org"},
               {"email": "Ann <ann@b.org>"}, {"email": "\u202eann@b.org"}, {"tz": "UTC\n"},
               {"tz": "x" * 10_000}]
    for body in refused:
        r = ann.request("PATCH", "/api/players/me", body)
        assert r.status_code == 400 and r.get_json()["error"]["message"], (body, r.get_json())
    for address in ('"a"@b.org', "ann@[127.0.0.1]", "ann@\u0431.org"):
        r = ann.request("PATCH", "/api/players/me", {"email": address})
        assert r.status_code == 400 and "email address" in r.get_json()["error"]["message"]
    address = "ann@" + "\u0431.org".encode("idna").decode()
    r = ann.request("PATCH", "/api/players/me", {"email": address})
    assert r.status_code == 200 and r.get_json()["email"] == address
    assert send_email(app.config, address, "subject", "body") == "sent"
    assert len(smtp.messages) == 1
