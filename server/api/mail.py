"""Inbound mail (the shape mail providers' inbound webhooks POST) and the caller's mail key
(moves in plain words by mail: server/game/mailkeys.py)."""

import hmac

from flask import current_app, request
from flask.views import MethodView

from shared.delegation import MAIL_LABEL, fingerprint

from ..game import mailkeys
from ..http.auth import current_player
from ..http.errors import Blueprint, fail
from ..http.schemas import (
    InboundResultSchema,
    MailDelegationSchema,
    MailKeyMadeSchema,
    MailKeySchema,
    MailRevokedSchema,
    NoBodySchema,
)
from .devices import main_key_player
from .games import SIGNED

blp = Blueprint("mail", __name__, url_prefix="/api/mail", description="Moves by email")


def _raw_message():
    """The raw RFC 822 bytes: a message/rfc822 (or text) body, or a provider's form field."""
    from ..workers import mailin
    if request.mimetype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        for field in ("body-mime", "email", "message", "raw"):
            if field in request.form:
                return request.form[field].encode("utf-8")
            if field in request.files:
                return request.files[field].read(mailin.MAX_MESSAGE + 1)
        fail(400, "no_message", "the form has no raw message field (body-mime, email, message "
             "or raw)")
    raw = request.get_data(cache=False)
    if not raw.strip():
        fail(400, "no_message", "the request body is empty: POST the raw RFC 822 message")
    return raw


@blp.route("/inbound")
class Inbound(MethodView):
    @blp.response(200, InboundResultSchema)
    @blp.refusals(400, 401, 403, 413)
    def post(self):
        """Read a raw email, append every armoured signed move in it, answer the sender.

        A mail without any signed block is read as a move in plain words: a reply to a turn
        notice (its token in the address or In-Reply-To) by a player who moves by mail
        (``pbem mail on``), its first line the move; ``plain`` says what became of it.

        Send the message as the body (Content-Type message/rfc822 or text/plain) or as
        the form field body-mime / email.  The server's PBEM_INBOUND_TOKEN must come in
        the X-Pbem-Inbound-Token header or the token query parameter.  With no token
        configured inbound mail is refused (403), unless the operator opened it with
        PBEM_INBOUND_OPEN=1.  Each block's result is mailed to the player whose key signed
        it, never to the From header.
        """
        token = current_app.config.get("PBEM_INBOUND_TOKEN")
        if token:
            given = request.headers.get("X-Pbem-Inbound-Token") or request.args.get("token", "")
            if not hmac.compare_digest(given.encode("utf-8", "replace"),
                                       token.encode("utf-8")):
                fail(401, "bad_inbound_token", "the inbound token is missing or wrong")
        elif not current_app.config.get("PBEM_INBOUND_OPEN"):
            fail(403, "inbound_closed", "this server takes no inbound mail: its operator sets "
                 "PBEM_INBOUND_TOKEN (and gives it to the mail provider), or PBEM_INBOUND_OPEN=1 "
                 "to take unauthenticated posts")
        # the mail parser (email.parser, email.policy: ~3 MB) loads with the first inbound
        # mail, not in every web worker (bench/ANALYSIS.md, "Web worker memory")
        from ..workers import mailin
        raw = _raw_message()
        if len(raw) > mailin.MAX_MESSAGE:
            fail(413, "too_large", "the message is too large")
        return mailin.process(raw)


@blp.route("/key")
class MailKey(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, MailKeySchema)
    @blp.refusals(401)
    def get(self):
        """Whether moves by mail are on for the caller, and their mail key."""
        return mailkeys.status(current_player())

    @blp.doc(security=SIGNED)
    @blp.arguments(NoBodySchema)
    @blp.response(201, MailKeyMadeSchema)
    @blp.refusals(400, 401, 403, 409, 422)
    def post(self, _data):
        """A fresh mail key, made and kept by the server, for the caller's main key to
        delegate (POST /api/mail/key/delegation): it will sign the moves the caller sends
        in plain words by mail, and nothing else."""
        player = main_key_player()
        key = mailkeys.prepare(player)
        return {"player": player.name, "device_key": key, "fingerprint": fingerprint(key),
                "label": MAIL_LABEL, "max_days": mailkeys.max_days()}


@blp.route("/key/delegation")
class MailKeyDelegation(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(MailDelegationSchema)
    @blp.response(200, MailKeySchema)
    @blp.refusals(400, 401, 403, 404, 409, 422)
    def post(self, data):
        """The delegation the caller's main key signed for the mail key: moves by mail are
        on from now until its not_after."""
        player = main_key_player()
        mailkeys.activate(player, data["delegation"])
        return mailkeys.status(player)


@blp.route("/key/revoke")
class MailKeyRevoke(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(NoBodySchema)
    @blp.response(200, MailRevokedSchema)
    @blp.refusals(400, 401, 403, 404, 422)
    def post(self, _data):
        """Turn moves by mail off: the mail key signs nothing more here and its private half
        is wiped (``pbem mail off`` also appends ``@revoke KEY`` to each running game)."""
        keys, ended = mailkeys.turn_off(main_key_player())
        return {"revoked": keys, "orders_ended": ended}
